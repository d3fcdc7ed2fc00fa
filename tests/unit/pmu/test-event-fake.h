/*
 * test-event-fake.h: fake sysfs trees for the event-parser tests, made in a
 * temporary directory: <root>/bus/event_source/devices/<pmu>/{type,format/,events/,cpus}.
 *
 * The layouts copy what the kernel exposes (arch/x86/events/intel/core.c and
 * amd/core.c format attributes, arm_pmuv3.c's "event=0x%04llx" aliases, RAPL's
 * .scale/.unit files); tests assert the encodings these trees must produce.
 */
#ifndef TDPROF_TESTS_PMU_EVENT_FAKE_H
#define TDPROF_TESTS_PMU_EVENT_FAKE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fake_sysfs {
	char root[256];
};

static inline void fake_die(const char *what, const char *path)
{
	fprintf(stderr, "fake sysfs: cannot %s '%s'\n", what, path);
	abort();
}

static inline void fake_init(struct fake_sysfs *f)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(f->root, sizeof(f->root), "%s/tdprof-sysfs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(f->root))
		fake_die("create", f->root);
}

/* Write content to <root>/<rel>, creating the directories on the way. */
static inline void fake_write(struct fake_sysfs *f, const char *rel, const char *content)
{
	char path[1024];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", f->root, rel);
	for (char *p = path + strlen(f->root) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && access(path, F_OK))
			fake_die("mkdir", path);
		*p = '/';
	}
	fp = fopen(path, "w");
	if (!fp)
		fake_die("write", path);
	fprintf(fp, "%s\n", content);
	fclose(fp);
}

static inline void fake_pmu_file(struct fake_sysfs *f, const char *pmu, const char *file, const char *content)
{
	char rel[512];

	snprintf(rel, sizeof(rel), "bus/event_source/devices/%s/%s", pmu, file);
	fake_write(f, rel, content);
}

static inline void fake_pmu(struct fake_sysfs *f, const char *pmu, unsigned type)
{
	char t[16];

	snprintf(t, sizeof(t), "%u", type);
	fake_pmu_file(f, pmu, "type", t);
}

static inline int fake_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static inline void fake_free(struct fake_sysfs *f)
{
	nftw(f->root, fake_rm, 16, FTW_DEPTH | FTW_PHYS);
}

/* The PMUs every Linux machine has (this VM has exactly these, plus uprobe). */
static inline void fake_common(struct fake_sysfs *f)
{
	fake_pmu(f, "software", 1);
	fake_pmu(f, "tracepoint", 2);
	fake_pmu(f, "breakpoint", 5);
	fake_pmu(f, "msr", 9);
	fake_pmu_file(f, "msr", "format/event", "config:0-63");
	fake_pmu_file(f, "msr", "events/tsc", "event=0x00");
}

/* An Ice Lake-like core PMU "cpu" (Intel formats) and RAPL's "power". */
static inline void fake_intel(struct fake_sysfs *f)
{
	fake_common(f);
	fake_pmu(f, "cpu", 4);
	fake_pmu_file(f, "cpu", "format/event", "config:0-7");
	fake_pmu_file(f, "cpu", "format/umask", "config:8-15");
	fake_pmu_file(f, "cpu", "format/edge", "config:18");
	fake_pmu_file(f, "cpu", "format/any", "config:21");
	fake_pmu_file(f, "cpu", "format/inv", "config:23");
	fake_pmu_file(f, "cpu", "format/cmask", "config:24-31");
	fake_pmu_file(f, "cpu", "format/ldlat", "config1:0-15");
	fake_pmu_file(f, "cpu", "events/slots", "event=0x00,umask=0x4");
	fake_pmu_file(f, "cpu", "events/topdown-retiring", "event=0x00,umask=0x80");
	fake_pmu_file(f, "cpu", "events/topdown-bad-spec", "event=0x00,umask=0x81");
	fake_pmu_file(f, "cpu", "events/topdown-total-slots", "event=0x3c,umask=0x0");
	fake_pmu_file(f, "cpu", "events/topdown-total-slots.scale", "4");
	fake_pmu_file(f, "cpu", "events/mem-loads", "event=0xcd,umask=0x1,ldlat=3");
	/* an alias named like a generic event: the generic name must still win */
	fake_pmu_file(f, "cpu", "events/cycles", "event=0x99");
	fake_pmu(f, "power", 23);
	fake_pmu_file(f, "power", "format/event", "config:0-7");
	fake_pmu_file(f, "power", "events/energy-pkg", "event=0x02");
	fake_pmu_file(f, "power", "events/energy-pkg.scale", "2.3283064365386962890625e-10");
	fake_pmu_file(f, "power", "events/energy-pkg.unit", "Joules");
}

/* An AMD-like core PMU "cpu": a 12-bit event select split over bits 0-7 and 32-35. */
static inline void fake_amd(struct fake_sysfs *f)
{
	fake_common(f);
	fake_pmu(f, "cpu", 4);
	fake_pmu_file(f, "cpu", "format/event", "config:0-7,32-35");
	fake_pmu_file(f, "cpu", "format/umask", "config:8-15");
	fake_pmu_file(f, "cpu", "format/edge", "config:18");
	fake_pmu_file(f, "cpu", "format/inv", "config:23");
	fake_pmu_file(f, "cpu", "format/cmask", "config:24-31");
}

/* An Arm core PMU (Neoverse N2-like): 16-bit event numbers, a cpus file. */
static inline void fake_arm(struct fake_sysfs *f)
{
	fake_common(f);
	fake_pmu(f, "armv8_pmuv3_0", 8);
	fake_pmu_file(f, "armv8_pmuv3_0", "cpus", "0-3");
	fake_pmu_file(f, "armv8_pmuv3_0", "format/event", "config:0-15");
	fake_pmu_file(f, "armv8_pmuv3_0", "format/long", "config1:0");
	/* the kernel writes "event=0x%04llx" (drivers/perf/arm_pmuv3.c) */
	fake_pmu_file(f, "armv8_pmuv3_0", "events/br_mis_pred", "event=0x0010");
	fake_pmu_file(f, "armv8_pmuv3_0", "events/cpu_cycles", "event=0x0011");
	fake_pmu_file(f, "armv8_pmuv3_0", "events/stall_frontend", "event=0x0023");
	fake_pmu_file(f, "armv8_pmuv3_0", "events/stall_backend", "event=0x0024");
	fake_pmu_file(f, "armv8_pmuv3_0", "events/op_retired", "event=0x003a");
	fake_pmu_file(f, "armv8_pmuv3_0", "events/op_spec", "event=0x003b");
	fake_pmu_file(f, "armv8_pmuv3_0", "events/stall_slot_backend", "event=0x003d");
	fake_pmu_file(f, "armv8_pmuv3_0", "events/stall_slot_frontend", "event=0x003e");
	fake_pmu_file(f, "armv8_pmuv3_0", "events/stall_slot", "event=0x003f");
}

#endif
