/*
 * util.c: helpers of the fuzz targets (fuzz.h).
 */
#include "fuzz.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/err.h"

_Noreturn void fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: fuzz check failed: %s\n", file, line, what);
	abort();
}

int fuzz_check_ret(int ret, const struct tdp_err *err)
{
	static int verbose = -1;

	if (verbose < 0)
		verbose = getenv("FUZZ_VERBOSE") != NULL;
	FUZZ_CHECK(ret <= 0);
	if (ret < 0) {
		FUZZ_CHECK(err->code == ret);
		FUZZ_CHECK(err->msg[0] != '\0');
		if (verbose)
			fprintf(stderr, "  %d: %s\n", ret, err->msg);
	} else if (verbose) {
		fprintf(stderr, "  ok\n");
	}
	return ret;
}

char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = tdp_malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

static char fake_root[256];

/* Write content to fake_root/rel, making the directories on the way; 0 or -1. */
static int fake_write(const char *rel, const char *content)
{
	char path[512];
	FILE *fp;
	int n = snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s", fake_root, rel);

	if (n < 0 || (size_t)n >= sizeof(path))
		return -1;
	for (char *p = path + strlen(fake_root) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && access(path, F_OK))
			return -1;
		*p = '/';
	}
	fp = fopen(path, "w");
	if (!fp)
		return -1;
	fprintf(fp, "%s\n", content);
	return fclose(fp) ? -1 : 0;
}

static int fake_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void fake_cleanup(void)
{
	nftw(fake_root, fake_rm, 16, FTW_DEPTH | FTW_PHYS);
}

/* The fake tree: {file relative to devices/, content}. */
static const char *const fake_files[][2] = {
	{ "cpu/type", "4" },
	{ "cpu/format/event", "config:0-7" },
	{ "cpu/format/umask", "config:8-15" },
	{ "cpu/format/edge", "config:18" },
	{ "cpu/format/any", "config:21" },
	{ "cpu/format/inv", "config:23" },
	{ "cpu/format/cmask", "config:24-31" },
	{ "cpu/format/ldlat", "config1:0-15" },
	{ "cpu/format/frontend", "config1:0-23" },
	{ "cpu/format/wide", "config:32-35,60-63" },
	{ "cpu/events/slots", "event=0x00,umask=0x4" },
	{ "cpu/events/topdown-retiring", "event=0x00,umask=0x80" },
	{ "cpu/events/topdown-bad-spec", "event=0x00,umask=0x81" },
	{ "cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3" },
	{ "cpu/events/mem-loads.scale", "1.0e-6" },
	{ "cpu/events/mem-loads.unit", "ns" },
	{ "cpu/cpus", "0-1" },
	{ "msr/type", "9" },
	{ "msr/format/event", "config:0-63" },
	{ "msr/events/tsc", "event=0x00" },
	{ "power/type", "23" },
	{ "power/format/event", "config:0-7" },
	{ "power/events/energy-pkg", "event=0x02" },
	{ "power/events/energy-pkg.scale", "2.3283064365386962890625e-10" },
	{ "power/events/energy-pkg.unit", "Joules" },
	{ "armv8_pmuv3_0/type", "8" },
	{ "armv8_pmuv3_0/format/event", "config:0-15" },
	{ "armv8_pmuv3_0/format/long", "config1:0" },
	{ "armv8_pmuv3_0/events/stall_slot", "event=0x003f" },
};

const char *fuzz_fake_sysfs(void)
{
	const char *tmp = getenv("TMPDIR");

	if (fake_root[0])
		return fake_root;
	snprintf(fake_root, sizeof(fake_root), "%s/tdprof-fuzz-sysfs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(fake_root)) {
		fake_root[0] = '\0';
		return "/sys";
	}
	atexit(fake_cleanup);
	for (size_t i = 0; i < sizeof(fake_files) / sizeof(fake_files[0]); i++) {
		if (fake_write(fake_files[i][0], fake_files[i][1]))
			return "/sys";
	}
	return fake_root;
}
