/*
 * The perf stat text outputs recorded on an AMD Zen 4 (Ryzen, family 25) in the
 * .md files of $TDPROF_SHARED_DATA/counters/amd-zen4-kinematics/ (KeithJH/
 * kinematics-demo), imported as text: every `perf stat -ddd` and
 * `perf stat -MPipelineL2` block, cut from the fenced code at run time.
 *
 * Checked against the file itself, line by line (each count and its running
 * percentage, each metric value), and against expected_metrics.json: for each of
 * the 112 metrics perf printed, the group the importer gives it must hold exactly
 * the events and values listed for it there, at the listed multiplexing
 * percentage. Skips (77) when the shared data is absent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"
#include "base/strbuf.h"
#include "import/import.h"

#define MAX_FILES 32

static char dir[4096];
static char *md_files[MAX_FILES];
static size_t nr_md_files;
static json_t *expected;

/* One `$ perf stat ...` run cut from a fenced block. */
struct run {
	char *cmd;  /* the "$ perf stat ..." line */
	char *text; /* the lines after it, to the next "$ " line or the end of the fence */
};

static void runs_free(struct run *runs, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		tdp_free(runs[i].cmd);
		tdp_free(runs[i].text);
	}
	tdp_free(runs);
}

/* Cut the perf stat runs out of the fenced blocks of an .md file. */
static size_t cut_runs(const char *md, size_t len, struct run **out)
{
	struct run *runs = NULL;
	size_t nr = 0, alloc = 0, off = 0;
	struct strbuf cur = STRBUF_INIT;
	char *cmd = NULL;
	bool fence = false;

	while (off <= len) {
		const char *l = md + off, *nl = memchr(l, '\n', len - off);
		size_t n = nl ? (size_t)(nl - l) : len - off;
		bool is_fence = n >= 3 && !strncmp(l, "```", 3);
		bool is_cmd = fence && n >= 2 && !strncmp(l, "$ ", 2);

		if (cmd && (is_fence || is_cmd || !nl)) {
			if (strstr(cur.buf, "Performance counter stats")) {
				assert_int_equal(TDP_GROW(runs, alloc, nr + 1), 0);
				runs[nr].cmd = cmd;
				runs[nr].text = strbuf_detach(&cur);
				nr++;
			} else {
				tdp_free(cmd);
			}
			cmd = NULL;
			strbuf_reset(&cur);
		}
		if (is_fence)
			fence = !fence;
		else if (is_cmd && n >= 12 && !strncmp(l, "$ perf stat", 11))
			assert_non_null(cmd = tdp_strndup(l, n));
		else if (cmd) {
			strbuf_add(&cur, l, n);
			strbuf_addch(&cur, '\n');
		}
		if (!nl)
			break;
		off += n + 1;
	}
	assert_false(strbuf_failed(&cur));
	strbuf_release(&cur);
	tdp_free(cmd);
	*out = runs;
	return nr;
}

/* What the file says about one count row, read the simplest way. */
struct oracle_row {
	bool counted;
	double value;
	double pct;
};

/* The first number of s with ',' removed (e.g. "31,487,420,857"). */
static double plain_number(const char *s)
{
	char buf[64];
	size_t o = 0;

	for (; *s && *s != ' ' && o < sizeof(buf) - 1; s++)
		if (*s != ',')
			buf[o++] = *s;
	buf[o] = '\0';
	return strtod(buf, NULL);
}

/* The "(NN.NN%)" at the end of a line, or -1. */
static double trailing_pct(const char *l, size_t n)
{
	while (n && l[n - 1] == ' ')
		n--;
	if (n < 4 || l[n - 1] != ')' || l[n - 2] != '%')
		return -1;
	for (size_t i = n - 2; i-- > 0;)
		if (l[i] == '(')
			return strtod(l + i + 1, NULL);
	return -1;
}

/*
 * Walk the run's lines up to "seconds time elapsed": every line starting with a
 * digit or '<' (after blanks) is a count; its running percentage ends that line or the last '#' line after
 * it (100 when perf printed none); every '#' starts a metric whose number follows.
 */
static size_t oracle(const char *text, struct oracle_row *rows, size_t max_rows, double *metrics, size_t *nr_metrics)
{
	size_t nr = 0, nm = 0;
	const char *l = strstr(text, "Performance counter stats");

	assert_non_null(l);
	l = strchr(l, '\n') + 1;
	while (*l) {
		const char *nl = strchr(l, '\n'), *t, *hash;
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		double pct = trailing_pct(l, n);
		char line[512];

		assert_true(n < sizeof(line));
		memcpy(line, l, n);
		line[n] = '\0';
		for (t = line; *t == ' ';)
			t++;
		if (strstr(t, "seconds time elapsed"))
			break; /* the end of perf's output */
		hash = strchr(line, '#');
		if ((*t >= '0' && *t <= '9') || *t == '<') {
			{
				assert_true(nr < max_rows);
				rows[nr].counted = *t != '<';
				rows[nr].value = rows[nr].counted ? plain_number(t) : 0;
				if (rows[nr].counted && strstr(t, " msec "))
					rows[nr].value *= 1e6;
				rows[nr].pct = !rows[nr].counted ? -1 : pct >= 0 ? pct : 100;
				nr++;
			}
		} else if (*t == '#' && nr && pct >= 0) {
			rows[nr - 1].pct = pct;
		}
		if (hash) {
			const char *m = hash + 1;

			assert_true(nm < 64);

			while (*m == ' ')
				m++;
			metrics[nm++] = strtod(m, NULL);
		}
		l = nl ? nl + 1 : l + n;
	}
	*nr_metrics = nm;
	return nr;
}

static bool same(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b));
}

/* The entries of expected_metrics.json for one file, in their order. */
static size_t expected_for(const char *file, json_t **out, size_t max)
{
	size_t i, n = 0;
	json_t *e;

	json_array_foreach(expected, i, e) {
		if (!strcmp(json_string_value(json_object_get(e, "file")), file)) {
			assert_true(n < max);
			out[n++] = e;
		}
	}
	return n;
}

/* One expected_metrics.json entry against the metric and group the import gave it. */
static void check_entry(const char *file, const struct import_result *r, json_t *e)
{
	const char *metric = json_string_value(json_object_get(e, "metric"));
	double printed = json_number_value(json_object_get(e, "printed_pct"));
	double group_pct = json_number_value(json_object_get(e, "group_multiplex_pct"));
	json_t *events = json_object_get(e, "events"), *v;
	const struct import_metric *m = NULL;
	const char *ev;
	size_t in_group = 0;

	for (size_t i = 0; i < r->nr_metrics; i++) {
		if (!strcmp(r->metrics[i].name, metric)) {
			if (m)
				fail_msg("%s: metric %s printed twice in one run", file, metric);
			m = &r->metrics[i];
		}
	}
	if (!m)
		fail_msg("%s: metric %s not found", file, metric);
	if (!same(m->value, printed) || strcmp(m->unit, "%"))
		fail_msg("%s: %s = %g [%s], perf printed %g %%", file, metric, m->value, m->unit, printed);
	for (size_t i = 0; i < r->counts.nr; i++)
		in_group += r->counts.v[i].group == m->group;
	if (in_group != json_object_size(events))
		fail_msg("%s: %s: group %d holds %zu events, expected %zu", file, metric, m->group, in_group,
			 json_object_size(events));
	json_object_foreach(events, ev, v) {
		const struct count *c = countset_find(&r->counts, ev, m->group);

		if (!c)
			fail_msg("%s: %s: event %s is not in group %d", file, metric, ev, m->group);
		if (c->status != COUNT_OK || c->value != json_number_value(v) || !same(c->running_pct, group_pct))
			fail_msg("%s: %s: %s = %.0f at %.2f %%, expected %.0f at %.2f %%", file, metric, ev, c->value,
				 c->running_pct, json_number_value(v), group_pct);
	}
}

static void test_kinematics(void **state)
{
	size_t total_runs = 0, total_expected = 0, total_counts = 0, total_metrics = 0;

	(void)state;
	for (size_t k = 0; k < nr_md_files; k++) {
		struct tdp_file f = TDP_FILE_INIT;
		struct tdp_err err = TDP_ERR_INIT;
		struct strbuf path = STRBUF_INIT;
		struct run *runs;
		json_t *exp[64];
		size_t nr, nr_exp, used = 0;

		strbuf_addf(&path, "%s/%s", dir, md_files[k]);
		if (tdp_file_open(&f, path.buf, 0, &err))
			fail_msg("%s", err.msg);
		nr = cut_runs((const char *)f.data, f.size, &runs);
		nr_exp = expected_for(md_files[k], exp, 64);
		/* gcc and clang, each with -ddd and -MPipelineL2 */
		if (nr != 4)
			fail_msg("%s: %zu perf stat runs, expected 4", md_files[k], nr);
		for (size_t i = 0; i < nr; i++) {
			struct import_result r = IMPORT_RESULT_INIT;
			struct oracle_row rows[64];
			double metrics[64];
			size_t nrows, nm;
			bool l2 = strstr(runs[i].cmd, "-MPipelineL2") != NULL;

			if (import_perf_stat_result((const uint8_t *)runs[i].text, strlen(runs[i].text), md_files[k], &r,
						    &err))
				fail_msg("%s run %zu: %s", md_files[k], i, err.msg);
			assert_int_equal(r.format, IMPORT_FMT_TEXT);
			nrows = oracle(runs[i].text, rows, 64, metrics, &nm);
			if (nrows != r.counts.nr)
				fail_msg("%s run %zu: %zu counts, the file has %zu", md_files[k], i, r.counts.nr, nrows);
			for (size_t j = 0; j < nrows; j++) {
				const struct count *c = &r.counts.v[j];

				if ((c->status == COUNT_OK) != rows[j].counted || c->value != rows[j].value ||
				    !same(c->running_pct, rows[j].pct))
					fail_msg("%s run %zu count %zu (%s): %.2f at %.2f %%, the file says %.2f at %.2f %%",
						 md_files[k], i, j, c->name, c->value, c->running_pct, rows[j].value,
						 rows[j].pct);
			}
			if (nm != r.nr_metrics)
				fail_msg("%s run %zu: %zu metrics, the file has %zu", md_files[k], i, r.nr_metrics, nm);
			for (size_t j = 0; j < nm; j++)
				if (!same(r.metrics[j].value, metrics[j]))
					fail_msg("%s run %zu metric %zu (%s): %g, the file says %g", md_files[k], i, j,
						 r.metrics[j].name, r.metrics[j].value, metrics[j]);
			assert_true(r.counts.elapsed_ns > 1e9); /* every run lasted seconds */
			if (l2) {
				/* 8 PipelineL2 metrics per run, in expected_metrics.json's order */
				assert_int_equal(r.nr_metrics, 8);
				assert_int_equal(countset_nr_groups(&r.counts), 4);
				for (size_t j = 0; j < 8; j++) {
					if (used >= nr_exp)
						fail_msg("%s: more PipelineL2 runs than expected_metrics.json lists",
							 md_files[k]);
					check_entry(md_files[k], &r, exp[used++]);
				}
			}
			total_counts += r.counts.nr;
			total_metrics += r.nr_metrics;
			import_result_release(&r);
		}
		assert_int_equal(used, nr_exp);
		total_runs += nr;
		total_expected += used;
		runs_free(runs, nr);
		tdp_file_close(&f);
		strbuf_release(&path);
	}
	assert_int_equal(total_runs, 4 * nr_md_files);
	assert_int_equal(total_expected, json_array_size(expected));
	print_message("%zu runs, %zu counts, %zu metrics; %zu expected_metrics.json entries matched\n", total_runs,
		      total_counts, total_metrics, total_expected);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinematics),
	};
	const char *shared = getenv("TDPROF_SHARED_DATA");
	json_error_t jerr;
	struct dirent *de;
	DIR *d;
	int rc;

	snprintf(dir, sizeof(dir), "%s/counters/amd-zen4-kinematics", shared ? shared : "../shared/data");
	d = opendir(dir);
	if (!d) {
		printf("skip: shared data not found: %s\n", dir);
		return 77;
	}
	while ((de = readdir(d)) && nr_md_files < MAX_FILES) {
		size_t n = strlen(de->d_name);

		if (n > 3 && !strcmp(de->d_name + n - 3, ".md"))
			md_files[nr_md_files++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(md_files, nr_md_files, sizeof(*md_files), cmp_str);
	{
		char path[4200];

		snprintf(path, sizeof(path), "%s/expected_metrics.json", dir);
		expected = json_load_file(path, 0, &jerr);
		if (!expected) {
			printf("cannot read '%s': %s\n", path, jerr.text);
			return 1;
		}
	}
	if (nr_md_files == 0) {
		printf("skip: no .md files in %s\n", dir);
		return 77;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	json_decref(expected);
	for (size_t i = 0; i < nr_md_files; i++)
		free(md_files[i]);
	return rc;
}
