/*
 * pdtest.h: helpers shared by the perfdata unit tests: locating the shared
 * recordings and the committed fixtures, and reading a file whole.
 */
#ifndef TDPROF_TESTS_PDTEST_H
#define TDPROF_TESTS_PDTEST_H

#include "base/alloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Exit status meson reads as "skipped". */
#define PDTEST_SKIP 77

/* The four real recordings in ../shared/data/perfdata/ (see its NOTES.md). */
static const char *const pdtest_fixtures[] = {
	"perf.data.branch-4.14",
	"perf.data.branch_stack_spec",
	"perf.data.branch_stack_hw_index",
	"perf.data.raw_callgraph_branch-3.4",
};
#define PDTEST_NR_FIXTURES (sizeof(pdtest_fixtures) / sizeof(pdtest_fixtures[0]))

/* "$TDPROF_SHARED_DATA/perfdata/<name>" into buf; NULL when the variable is unset. */
static inline const char *pdtest_shared(char *buf, size_t size, const char *name)
{
	const char *dir = getenv("TDPROF_SHARED_DATA");

	if (!dir || !*dir)
		return NULL;
	snprintf(buf, size, "%s/perfdata/%s", dir, name);
	return buf;
}

/* "$TDPROF_SOURCE_ROOT/tests/data/perfdata/<name>" (or a path relative to the cwd). */
static inline const char *pdtest_local(char *buf, size_t size, const char *name)
{
	const char *dir = getenv("TDPROF_SOURCE_ROOT");

	snprintf(buf, size, "%s/tests/data/perfdata/%s", dir && *dir ? dir : ".", name);
	return buf;
}

/* Read a whole file into a NUL-terminated heap buffer (tdp_free); NULL on failure. */
static inline uint8_t *pdtest_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	*len = 0;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = tdp_malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			tdp_free(buf);
			buf = NULL;
		}
		if (buf) {
			buf[n] = 0;
			*len = (size_t)n;
		}
	}
	fclose(f);
	return buf;
}

/* True when the shared recordings are there (else the test prints why and skips). */
static inline int pdtest_have_shared(void)
{
	char path[4096];
	FILE *f;

	if (!pdtest_shared(path, sizeof(path), pdtest_fixtures[0]))
		return 0;
	f = fopen(path, "rb");
	if (!f)
		return 0;
	fclose(f);
	return 1;
}

#endif
