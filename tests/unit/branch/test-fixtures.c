/*
 * test-fixtures.c: the shared perf.data recordings through branch_load() and
 * branch_agg_finish(), against what Debian's perf 6.1 printed for them
 * ($TDPROF_SHARED_DATA/perfdata/derived/<file>.perf6.1-script-brstack.txt,
 * `perf script -F event,ip,brstack`), parsed here:
 *   - samples, branch entries (0x0/0x0 padding included, as perf prints them),
 *     mispredicted entries and entries with a 0 address;
 *   - every edge (from, to): its count and mispredicts;
 *   - the timed blocks of perf.data.branch-4.14 (the only timed recording),
 *     recomputed from perf's text with the rule of branch.h: block
 *     [e[i+1].to, e[i].from] took e[i].cycles, skipping 0 addresses;
 *   - no timing in the three others.
 * Skips (77) without the shared data.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"
#include "branch/branch.h"
#include "perfdata/perfdata.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const fixtures[] = {
	"perf.data.branch-4.14",
	"perf.data.branch_stack_spec",
	"perf.data.branch_stack_hw_index",
	"perf.data.raw_callgraph_branch-3.4",
};

/* perf's decode: every entry of every sample, in order. */
struct pentry {
	uint64_t from, to;
	bool mispred;
	unsigned cycles;
	size_t sample;
};

struct perf_text {
	struct pentry *e;
	size_t nr, alloc;
	size_t samples;
};

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET)) {
		buf = tdp_malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			tdp_free(buf);
			buf = NULL;
		}
		if (buf)
			buf[n] = 0;
	}
	fclose(f);
	return buf;
}

/* A line starting a sample: its first word is an event name ending in ':' ("cycles:ppp:"). */
static bool sample_start(const char *line)
{
	while (*line == ' ' || *line == '\t')
		line++;
	if (!isalpha((unsigned char)*line))
		return false;
	while (*line && *line != ' ' && *line != '\n')
		line++;
	return line[-1] == ':';
}

/* Parse `perf script -F event,ip,brstack`: entries "0xFROM/0xTO/M|P|-/X|-/A|-/CYCLES/...". */
static void parse_script(char *text, struct perf_text *t)
{
	memset(t, 0, sizeof(*t));
	for (char *line = text; line && *line;) {
		char *eol = strchr(line, '\n');

		if (eol)
			*eol = 0;
		if (sample_start(line))
			t->samples++;
		for (char *p = strstr(line, "0x"); p; p = strstr(p, "0x")) {
			struct pentry e = { 0 };
			char *q;
			char flag;

			e.from = strtoull(p + 2, &q, 16);
			if (strncmp(q, "/0x", 3)) {
				p += 2;
				continue;
			}
			e.to = strtoull(q + 3, &q, 16);
			assert_true(q[0] == '/' && q[2] == '/');
			flag = q[1];
			assert_true(flag == 'M' || flag == 'P' || flag == '-');
			e.mispred = flag == 'M';
			/* /X|-/A|-/cycles/ */
			assert_true(q[4] == '/' && q[6] == '/');
			e.cycles = (unsigned)strtoul(q + 7, &q, 10);
			assert_int_equal(*q, '/');
			e.sample = t->samples - 1;
			assert_int_equal(TDP_GROW(t->e, t->alloc, t->nr + 1), 0);
			t->e[t->nr++] = e;
			p = q;
		}
		line = eol ? eol + 1 : NULL;
	}
}

static const struct branch_edge *find_edge(const struct branch_result *r, uint64_t from, uint64_t to)
{
	for (size_t i = 0; i < r->nr_edges; i++)
		if (r->edges[i].from == from && r->edges[i].to == to)
			return &r->edges[i];
	return NULL;
}

static const struct branch_block *find_block(const struct branch_result *r, uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < r->nr_blocks; i++)
		if (r->blocks[i].start == start && r->blocks[i].end == end)
			return &r->blocks[i];
	return NULL;
}

/* Every edge of perf's text: our count and mispredicts must equal perf's. */
static void check_edges(const struct perf_text *t, const struct branch_result *r)
{
	size_t distinct = 0;

	for (size_t i = 0; i < t->nr; i++) {
		uint64_t count = 0, misp = 0;
		bool first = true;
		const struct branch_edge *e;

		for (size_t k = 0; k < t->nr; k++) {
			if (t->e[k].from != t->e[i].from || t->e[k].to != t->e[i].to)
				continue;
			if (k < i)
				first = false;
			count++;
			misp += t->e[k].mispred;
		}
		if (!first)
			continue;
		distinct++;
		e = find_edge(r, t->e[i].from, t->e[i].to);
		assert_non_null(e);
		assert_int_equal(e->count, count);
		assert_int_equal(e->mispredicts, misp);
	}
	assert_int_equal(r->nr_edges, distinct);
}

/* The timed blocks recomputed from perf's text. */
static void check_blocks(const struct perf_text *t, const struct branch_result *r)
{
	size_t seen = 0, skipped = 0, distinct = 0;

	for (size_t i = 0; i + 1 < t->nr; i++) {
		const struct pentry *newer = &t->e[i], *older = &t->e[i + 1];
		uint64_t count = 0, timed = 0, cycles = 0;
		const struct branch_block *b;
		bool first = true;

		if (newer->sample != older->sample)
			continue;
		seen++;
		if (!older->to || !newer->from || older->to > newer->from ||
		    newer->from - older->to >= BRANCH_MAX_BLOCK_BYTES) {
			skipped++;
			continue;
		}
		for (size_t k = 0; k + 1 < t->nr; k++) {
			if (t->e[k].sample != t->e[k + 1].sample || t->e[k + 1].to != older->to ||
			    t->e[k].from != newer->from)
				continue;
			if (k < i)
				first = false;
			count++;
			timed += t->e[k].cycles != 0;
			cycles += t->e[k].cycles;
		}
		if (!first)
			continue;
		distinct++;
		b = find_block(r, older->to, newer->from);
		assert_non_null(b);
		assert_int_equal(b->count, count);
		assert_int_equal(b->timed, timed);
		assert_int_equal(b->cycles, cycles);
	}
	assert_int_equal(r->counts.blocks_seen, seen);
	assert_int_equal(r->counts.blocks_skipped, skipped);
	assert_int_equal(r->nr_blocks, distinct);
}

static void check_fixture(const char *name)
{
	const char *dir = getenv("TDPROF_SHARED_DATA");
	char path[4096], script[4096];
	struct tdp_err err = TDP_ERR_INIT;
	struct tdp_file f = TDP_FILE_INIT;
	struct perfdata *p = NULL;
	struct branch_agg *a = NULL;
	struct branch_result r = BRANCH_RESULT_INIT;
	struct branch_load_info li;
	struct perf_text t;
	uint64_t misp = 0, zero = 0, timed = 0;
	char *text;

	snprintf(path, sizeof(path), "%s/perfdata/%s", dir, name);
	snprintf(script, sizeof(script), "%s/perfdata/derived/%s.perf6.1-script-brstack.txt", dir, name);
	text = read_all(script);
	assert_non_null(text);
	parse_script(text, &t);
	tdp_free(text);

	assert_int_equal(tdp_file_open(&f, path, 0, &err), 0);
	assert_int_equal(perfdata_open(&p, f.data, f.size, path, 0, &err), 0);
	assert_int_equal(branch_agg_new(&a, &err), 0);
	assert_int_equal(branch_load(p, a, NULL, &li, &err), 0);
	assert_int_equal(branch_agg_finish(a, &r, &err), 0);

	for (size_t i = 0; i < t.nr; i++) {
		misp += t.e[i].mispred;
		zero += !t.e[i].from || !t.e[i].to;
		timed += t.e[i].cycles != 0;
	}
	print_message("%s: perf printed %zu samples, %zu entries, %llu mispredicted, %llu with a 0 address\n", name,
		      t.samples, t.nr, (unsigned long long)misp, (unsigned long long)zero);
	assert_int_equal(r.counts.samples, t.samples);
	assert_int_equal(r.counts.samples_with_stack, t.samples);
	assert_int_equal(r.counts.branch_entries, t.nr);
	assert_int_equal(r.counts.mispredicted_entries, misp);
	assert_int_equal(r.counts.zero_entries, zero);
	assert_int_equal(r.counts.timed_entries, timed);
	assert_int_equal(r.counts.lost + r.counts.lost_samples, 0); /* "Total Lost Samples: 0" */
	assert_true(li.nr_branch_attrs >= 1);
	assert_false(li.spe.present);
	check_edges(&t, &r);
	assert_int_equal(r.has_timing, timed != 0);
	if (r.has_timing)
		check_blocks(&t, &r);
	else
		assert_int_equal(r.nr_blocks, 0);

	tdp_free(t.e);
	branch_result_release(&r);
	branch_agg_free(a);
	perfdata_close(p);
	tdp_file_close(&f);
}

static void test_branch_414(void **state)
{
	(void)state;
	check_fixture(fixtures[0]);
}

static void test_stack_spec(void **state)
{
	(void)state;
	check_fixture(fixtures[1]);
}

static void test_hw_index(void **state)
{
	(void)state;
	check_fixture(fixtures[2]);
}

static void test_raw_callgraph(void **state)
{
	(void)state;
	check_fixture(fixtures[3]);
}

/* The figures of branch-4.14 as the shared README states them: 13 x 32, 21 mispredicted, timed. */
static void test_branch_414_readme(void **state)
{
	const char *dir = getenv("TDPROF_SHARED_DATA");
	char path[4096];
	struct tdp_err err = TDP_ERR_INIT;
	struct tdp_file f = TDP_FILE_INIT;
	struct perfdata *p = NULL;
	struct branch_agg *a = NULL;
	struct branch_result r = BRANCH_RESULT_INIT;

	(void)state;
	snprintf(path, sizeof(path), "%s/perfdata/%s", dir, fixtures[0]);
	assert_int_equal(tdp_file_open(&f, path, 0, &err), 0);
	assert_int_equal(perfdata_open(&p, f.data, f.size, path, 0, &err), 0);
	assert_int_equal(branch_agg_new(&a, &err), 0);
	assert_int_equal(branch_load(p, a, NULL, NULL, &err), 0);
	assert_int_equal(branch_agg_finish(a, &r, &err), 0);
	assert_int_equal(r.counts.samples, 13);
	assert_int_equal(r.counts.branch_entries, 13 * 32);
	assert_int_equal(r.counts.mispredicted_entries, 21);
	/* its first sample holds 3 real entries and 29 padding 0x0/0x0 entries */
	assert_int_equal(r.counts.zero_entries, 29);
	assert_true(r.has_timing);
	branch_result_release(&r);
	branch_agg_free(a);
	perfdata_close(p);
	tdp_file_close(&f);
}

/* A truncated file: the reader's error (file and offset), TDP_EFORMAT, never a crash. */
static void test_truncated(void **state)
{
	const char *dir = getenv("TDPROF_SHARED_DATA");
	char path[4096];
	struct tdp_file f = TDP_FILE_INIT;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	snprintf(path, sizeof(path), "%s/perfdata/%s", dir, fixtures[1]);
	assert_int_equal(tdp_file_open(&f, path, 0, &err), 0);
	/* cut inside the data section at several places */
	for (size_t cut = 0x200; cut < f.size; cut += f.size / 7) {
		struct tdp_err e = TDP_ERR_INIT;
		struct perfdata *p = NULL;
		struct branch_agg *a = NULL;
		int rc = perfdata_open(&p, f.data, cut, path, 0, &e);

		if (!rc) {
			assert_int_equal(branch_agg_new(&a, &e), 0);
			rc = branch_load(p, a, NULL, NULL, &e);
		}
		assert_true(rc == TDP_EFORMAT || rc == TDP_ELIMIT);
		assert_non_null(strstr(e.msg, "offset"));
		branch_agg_free(a);
		perfdata_close(p);
	}
	tdp_file_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_branch_414),
		cmocka_unit_test(test_stack_spec),
		cmocka_unit_test(test_hw_index),
		cmocka_unit_test(test_raw_callgraph),
		cmocka_unit_test(test_branch_414_readme),
		cmocka_unit_test(test_truncated),
	};
	const char *dir = getenv("TDPROF_SHARED_DATA");
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/perfdata/%s", dir ? dir : "", fixtures[0]);
	if (!dir || !*dir || !(f = fopen(path, "rb"))) {
		print_message("skip: the shared perf.data recordings are not readable (TDPROF_SHARED_DATA)\n");
		return 77;
	}
	fclose(f);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
