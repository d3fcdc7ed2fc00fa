/*
 * topdown.c: top-down level 1 inside the harness, for the CPUs where a
 * self-monitoring thread can count it, with a minimal copy of the level-1
 * formulas. Each formula names its source; docs/harness.md says what is left
 * out. The models of tdprof proper (src/model) are richer; this library must
 * stand alone, so it carries only these three.
 *
 * Intel Ice Lake and later: the kernel's PERF_METRICS pseudo-events, in a group
 * led by slots (tools/perf/Documentation/topdown.txt: "The SLOTS event must be
 * the leader of the group"): slots = event 0x00 umask 0x4 (fixed counter 3),
 * topdown-retiring/bad-spec/fe-bound/be-bound = umask 0x80..0x83
 * (arch/x86/events/intel/core.c). The kernel exports them in sysfs only where
 * PERF_METRICS exists, so their presence there is the test. Formula: perf's
 * sapphirerapids/spr-metrics.json TopdownL1, i.e. each metric over the sum of
 * the four, bad speculation = max(1 - the other three, 0). Ice Lake's
 * icl-metrics.json adds INT_MISC corrections (uop dropping, recovery cycles)
 * that need general-purpose counters; they are left out (a few % at most).
 *
 * AMD cores with dispatch-slot events (Zen 4 and Zen 5: data/cpus.json says which
 * family/model ranges and their width): perf's amdzen4/pipeline.json PipelineL1 (from AMD PPR 19h/11h §2.1.15.2,
 * Table 28), slots = 6 (Zen 5: 8, amdzen5/pipeline.json) * ls_not_halted_cyc;
 * frontend = de_no_dispatch_per_slot.no_ops_from_frontend, backend =
 * .backend_stalls, smt_contention = .smt_contention, retiring = ex_ret_ops, bad
 * speculation = de_src_op_disp.all - ex_ret_ops, each over slots. Six events
 * fill Zen 4's six counters; smt_contention is dropped when they do not all fit
 * (an NMI watchdog may hold one).
 *
 * Arm (PMU with PMMIR_EL1.SLOTS, exported as caps/slots, and the STALL_SLOT*
 * and OP_* events): perf's arm64/sbsa.json TopdownL1 with #slots from caps/slots,
 * plus the Neoverse N2 erratum (STALL_SLOT and STALL_SLOT_FRONTEND count one
 * extra slot per cycle on r0p0-r0p2; data/cpus.json's stall_slot_erratum rows, as
 * perf's #no_stall_errata and Arm's r0p2/r0p3 specifications). The BR_MIS_PRED
 * terms of Arm's current V1/N2/V2 specifications (data/arm/) are left out: they
 * need a seventh event the harness group does not count.
 */
#include "harness-internal.h"
#include "arch.h"
#include "harness-cpus-data.h"

#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EVDIR "bus/event_source/devices"

/* AMD raw encoding: event[7:0] in config[7:0], unit mask in [15:8], event[11:8] in [35:32]. */
#define AMD_RAW(ev, umask) \
	((uint64_t)((ev) & 0xff) | ((uint64_t)(umask) << 8) | ((uint64_t)(((ev) >> 8) & 0xf) << 32))

void harness_cpu_id_read(struct harness_cpu_id *id, int cpu)
{
	uint32_t r[4];

	memset(id, 0, sizeof(*id));
	if (harness_arch_cpuid(0, 0, r)) {
		memcpy(id->vendor, &r[1], 4);
		memcpy(id->vendor + 4, &r[3], 4);
		memcpy(id->vendor + 8, &r[2], 4);
		id->vendor[12] = '\0';
		if (harness_arch_cpuid(1, 0, r)) {
			unsigned fam = (r[0] >> 8) & 0xf, model = (r[0] >> 4) & 0xf;

			/* Display family/model (Intel SDM vol. 2A CPUID leaf 01h). */
			if (fam == 0xf)
				fam += (r[0] >> 20) & 0xff;
			if (fam == 0x6 || fam >= 0xf)
				model |= ((r[0] >> 16) & 0xf) << 4;
			id->family = fam;
			id->model = model;
		}
	} else {
		char path[128], buf[64];

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/regs/identification/midr_el1",
			 cpu < 0 ? 0 : cpu);
		if (harness_read_file(path, buf, sizeof(buf)) > 0)
			id->midr = strtoull(buf, NULL, 0);
	}
}

bool harness_cpulist_has(const char *list, int cpu)
{
	const char *p = list;

	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b;

		if (end == p)
			return false;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1)
				return false;
			p = end;
		}
		if (cpu >= a && cpu <= b)
			return true;
		if (*p != ',')
			break;
		p++;
	}
	return false;
}

static bool exists(const char *root, const char *pmu, const char *file)
{
	char path[512], buf[128];

	snprintf(path, sizeof(path), "%s/" EVDIR "/%s/%s", root, pmu, file);
	return harness_read_file(path, buf, sizeof(buf)) >= 0;
}

static int pmu_type(const char *root, const char *pmu, uint32_t *type)
{
	char path[512], buf[32];
	char *end;
	unsigned long v;

	snprintf(path, sizeof(path), "%s/" EVDIR "/%s/type", root, pmu);
	if (harness_read_file(path, buf, sizeof(buf)) <= 0)
		return -ENOENT;
	v = strtoul(buf, &end, 10);
	if (*end || v > UINT32_MAX)
		return -ENOENT;
	*type = (uint32_t)v;
	return 0;
}

int harness_arm_core_pmu(const char *sysfs_root, int cpu, uint32_t *type, char *name, size_t size)
{
	char path[512], buf[256];
	struct dirent *de;
	int rc = -ENOENT;
	DIR *d;

	snprintf(path, sizeof(path), "%s/" EVDIR, sysfs_root);
	d = opendir(path);
	if (!d)
		return rc;
	while (rc && (de = readdir(d))) {
		if (de->d_name[0] == '.' || !exists(sysfs_root, de->d_name, "events/cpu_cycles"))
			continue;
		snprintf(path, sizeof(path), "%s/" EVDIR "/%s/cpus", sysfs_root, de->d_name);
		if (harness_read_file(path, buf, sizeof(buf)) <= 0)
			continue;
		if (cpu >= 0 && !harness_cpulist_has(buf, cpu))
			continue;
		if (pmu_type(sysfs_root, de->d_name, type))
			continue;
		snprintf(name, size, "%s", de->d_name);
		rc = 0;
	}
	closedir(d);
	return rc;
}

static void add(struct harness_topdown *td, uint32_t type, uint64_t config, const char *name)
{
	struct harness_event *e = &td->ev[td->nr++];

	e->type = type;
	e->config = config;
	e->config1 = 0;
	e->name = name;
}

static void detect_intel(struct harness_topdown *td, const char *root)
{
	static const char *const pmus[] = { "cpu", "cpu_core" };
	uint32_t type;

	for (size_t i = 0; i < 2; i++) {
		if (!exists(root, pmus[i], "events/topdown-retiring") || !exists(root, pmus[i], "events/slots") ||
		    pmu_type(root, pmus[i], &type))
			continue;
		td->kind = HARNESS_TD_INTEL_METRICS;
		add(td, type, 0x0400, "slots");
		add(td, type, 0x8000, "topdown-retiring");
		add(td, type, 0x8100, "topdown-bad-spec");
		add(td, type, 0x8200, "topdown-fe-bound");
		add(td, type, 0x8300, "topdown-be-bound");
		td->nr_required = td->nr;
		return;
	}
	snprintf(td->why_not, sizeof(td->why_not),
		 "this Intel CPU has no PERF_METRICS (before Ice Lake): level 1 needs more counters than a "
		 "harness group; use 'tdprof topdown'");
}

/*
 * Which CPUs have slot events, their width and the N2 erratum: data/cpus.json, the
 * same rows src/cpu/uarch.c reads, emitted into harness-cpus-data.h by
 * src/cpu/gen/gen-cpus.py (the harness is a library on its own and links none of
 * tdprof's modules, so it expands its own copy of the generated tables).
 */
#define X86_ROW(v, f, m0, m1, s0, s1, name) { (v), (f), (m0), (m1), (name) },
static const struct {
	unsigned vendor, family, model_lo, model_hi;
	const char *uarch;
} x86_rows[] = { CPU_DATA_X86(X86_ROW) };

#define UARCH_ROW(name, w, gp, fx, depth, caps) { (name), (w), (caps) },
static const struct {
	const char *uarch;
	unsigned width, caps;
} uarch_rows[] = { CPU_DATA_UARCH(UARCH_ROW) };

#define ARM_ROW(imp, part_, lo, hi, name, rev_name, caps) { (imp), (part_), (lo), (hi), (caps) },
static const struct {
	unsigned implementer, part, rv_lo, rv_hi, caps;
} arm_rows[] = { CPU_DATA_ARM(ARM_ROW) };

#define NR(a) (sizeof(a) / sizeof((a)[0]))

/* The dispatch width of an AMD core with slot events, or 0 (any stepping: the harness reads none). */
static unsigned amd_slot_width(const struct harness_cpu_id *id)
{
	for (size_t i = 0; i < NR(x86_rows); i++) {
		if (x86_rows[i].vendor != CPU_DATA_AMD || id->family != x86_rows[i].family ||
		    id->model < x86_rows[i].model_lo || id->model > x86_rows[i].model_hi)
			continue;
		for (size_t u = 0; u < NR(uarch_rows); u++)
			if (!strcmp(uarch_rows[u].uarch, x86_rows[i].uarch))
				return (uarch_rows[u].caps & CPU_DATA_CAP_SLOT_EVENTS) ? uarch_rows[u].width : 0;
		return 0;
	}
	return 0;
}

static void detect_amd(struct harness_topdown *td, const struct harness_cpu_id *id)
{
	unsigned width = amd_slot_width(id);

	if (width) {
		td->kind = HARNESS_TD_AMD;
		td->width = width;
		add(td, PERF_TYPE_RAW, AMD_RAW(0x76, 0x00), "ls_not_halted_cyc");
		add(td, PERF_TYPE_RAW, AMD_RAW(0x1a0, 0x01), "de_no_dispatch_per_slot.no_ops_from_frontend");
		add(td, PERF_TYPE_RAW, AMD_RAW(0x1a0, 0x1e), "de_no_dispatch_per_slot.backend_stalls");
		add(td, PERF_TYPE_RAW, AMD_RAW(0xaa, 0x07), "de_src_op_disp.all");
		add(td, PERF_TYPE_RAW, AMD_RAW(0xc1, 0x00), "ex_ret_ops");
		td->nr_required = td->nr;
		add(td, PERF_TYPE_RAW, AMD_RAW(0x1a0, 0x60), "de_no_dispatch_per_slot.smt_contention");
		return;
	}
	snprintf(td->why_not, sizeof(td->why_not),
		 "AMD family %xh model %xh has no dispatch-slot events (top-down needs Zen 4 or later)",
		 id->family, id->model);
}

/* Whether the core of MIDR_EL1 midr has the STALL_SLOT erratum (Neoverse N2 before r0p3): its first
 * matching row (a core's revision rows come before its catch-all row) says so. */
static bool has_n2_erratum(uint64_t midr)
{
	unsigned imp = (midr >> 24) & 0xff, part = (midr >> 4) & 0xfff;
	unsigned rv = (unsigned)((midr >> 20) & 0xf) << 4 | (unsigned)(midr & 0xf);

	for (size_t i = 0; i < NR(arm_rows); i++)
		if (arm_rows[i].implementer == imp && arm_rows[i].part == part && rv >= arm_rows[i].rv_lo &&
		    rv <= arm_rows[i].rv_hi)
			return (arm_rows[i].caps & CPU_DATA_CAP_STALL_SLOT_ERRATUM) != 0;
	return false;
}

static void detect_arm(struct harness_topdown *td, const struct harness_cpu_id *id, const char *root, int cpu)
{
	char pmu[64], path[512], buf[64];
	unsigned long slots = 0;
	uint32_t type;

	if (harness_arm_core_pmu(root, cpu, &type, pmu, sizeof(pmu))) {
		snprintf(td->why_not, sizeof(td->why_not), "no CPU PMU in sysfs");
		return;
	}
	snprintf(path, sizeof(path), "%s/" EVDIR "/%s/caps/slots", root, pmu);
	if (harness_read_file(path, buf, sizeof(buf)) > 0)
		slots = strtoul(buf, NULL, 0);
	if (!slots || !exists(root, pmu, "events/stall_slot") || !exists(root, pmu, "events/op_spec")) {
		snprintf(td->why_not, sizeof(td->why_not),
			 "the PMU '%s' has no slot events (PMMIR_EL1.SLOTS, STALL_SLOT, OP_SPEC: Armv8.4 or later)",
			 pmu);
		return;
	}
	td->kind = HARNESS_TD_ARM;
	td->width = (unsigned)slots;
	td->n2_erratum = has_n2_erratum(id->midr);
	add(td, type, 0x11, "cpu_cycles");
	add(td, type, 0x3e, "stall_slot_frontend");
	add(td, type, 0x3d, "stall_slot_backend");
	add(td, type, 0x3f, "stall_slot");
	add(td, type, 0x3a, "op_retired");
	add(td, type, 0x3b, "op_spec");
	td->nr_required = td->nr;
}

void harness_topdown_detect(struct harness_topdown *td, const struct harness_cpu_id *id,
			    const char *sysfs_root, int cpu)
{
	memset(td, 0, sizeof(*td));
	if (!strcmp(id->vendor, "GenuineIntel"))
		detect_intel(td, sysfs_root);
	else if (!strcmp(id->vendor, "AuthenticAMD"))
		detect_amd(td, id);
	else if (!id->vendor[0])
		detect_arm(td, id, sysfs_root, cpu);
	else
		snprintf(td->why_not, sizeof(td->why_not), "no level-1 formula for '%s' CPUs", id->vendor);
}

static int level1_arm(const struct harness_topdown *td, const double *d, struct harness_level1 *o)
{
	double cycles = d[0], ssf = d[1], ssb = d[2], ss = d[3], ret = d[4], spec = d[5];
	double total = td->width * cycles, busy, frac;

	if (total <= 0 || spec <= 0)
		return -EDOM;
	if (td->n2_erratum && td->width == 5) {
		ssf -= cycles;
		ss -= cycles;
	}
	busy = 1 - ss / total;
	frac = ret / spec;
	o->frontend_bound = 100 * ssf / total;
	o->backend_bound = 100 * ssb / total;
	o->retiring = 100 * frac * busy;
	o->bad_speculation = 100 * (1 - frac) * busy;
	return 0;
}

int harness_topdown_level1(const struct harness_topdown *td, const double *d, size_t nr,
			   struct harness_level1 *out)
{
	double sum, slots;
	int rc = 0;

	out->smt_contention = NAN;
	if (nr < td->nr_required)
		return -EINVAL;
	switch (td->kind) {
	case HARNESS_TD_INTEL_METRICS:
		sum = d[1] + d[2] + d[3] + d[4];
		if (sum <= 0)
			return -EDOM;
		out->retiring = 100 * d[1] / sum;
		out->frontend_bound = 100 * d[3] / sum;
		out->backend_bound = 100 * d[4] / sum;
		out->bad_speculation = fmax(100 - (out->retiring + out->frontend_bound + out->backend_bound), 0);
		break;
	case HARNESS_TD_AMD:
		slots = td->width * d[0];
		if (slots <= 0)
			return -EDOM;
		out->frontend_bound = 100 * d[1] / slots;
		out->backend_bound = 100 * d[2] / slots;
		out->bad_speculation = 100 * (d[3] - d[4]) / slots;
		out->retiring = 100 * d[4] / slots;
		if (nr > 5)
			out->smt_contention = 100 * d[5] / slots;
		break;
	case HARNESS_TD_ARM:
		rc = level1_arm(td, d, out);
		break;
	default:
		rc = -EINVAL;
	}
	return rc;
}
