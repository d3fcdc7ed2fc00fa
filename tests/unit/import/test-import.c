/*
 * Unit tests of import/: the fixtures of tests/data/import (recorded here with
 * Debian's perf 6.1, or written by hand; see its README), each row checked
 * against the number in the file; errors on truncated, garbage and oversized
 * input; allocation failures.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"
#include "base/strbuf.h"
#include "import/import.h"

#define NS 1e6 /* ns per msec */

struct exp_count {
	const char *name;
	enum count_status status;
	double value;      /* ns for msec events */
	double pct;        /* running percentage; -1 for not counted/supported */
	double stddev;     /* -1: none */
	int group;
	int line;
};

struct exp_metric {
	size_t count;
	double value;
	const char *unit;
	const char *name;
};

struct exp_file {
	const char *file;
	enum import_format format;
	char sep;
	const struct exp_count *counts;
	size_t nr_counts;
	const struct exp_metric *metrics;
	size_t nr_metrics;
	double elapsed_ns; /* -1: unknown */
	unsigned runs;
	size_t nr_intervals, nr_aggr;
	const char *note;  /* a note that must be there, or NULL */
};

#define OK COUNT_OK
#define NC COUNT_NOT_COUNTED
#define NSUP COUNT_NOT_SUPPORTED
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* perf61-default.csv: "0.57,msec,task-clock,568685,100.00,0.373,CPUs utilized", ... */
static const struct exp_count default_csv[] = {
	{ "task-clock", OK, 0.57 * NS, 100, -1, 0, __LINE__ },
	{ "context-switches", OK, 1, 100, -1, 0, __LINE__ },
	{ "cpu-migrations", OK, 0, 100, -1, 0, __LINE__ },
	{ "page-faults", OK, 52, 100, -1, 0, __LINE__ },
	{ "cycles", NSUP, 0, -1, -1, 0, __LINE__ },
	{ "instructions", NSUP, 0, -1, -1, 0, __LINE__ },
	{ "branches", NSUP, 0, -1, -1, 0, __LINE__ },
	{ "branch-misses", NSUP, 0, -1, -1, 0, __LINE__ },
};
static const struct exp_metric default_csv_m[] = {
	{ 0, 0.373, "", "CPUs utilized" }, { 1, 1.758, "K/sec", "K/sec" },
	{ 2, 0.0, "/sec", "/sec" }, { 3, 91.439, "K/sec", "K/sec" },
};

/* perf61-default.json: "counter-value" : "0.705648", "unit" : "msec", ... */
static const struct exp_count default_json[] = {
	{ "task-clock", OK, 0.705648 * NS, 100, -1, 0, __LINE__ },
	{ "context-switches", OK, 0, 100, -1, 0, __LINE__ },
	{ "cpu-migrations", OK, 0, 100, -1, 0, __LINE__ },
	{ "page-faults", OK, 49, 100, -1, 0, __LINE__ },
	{ "cycles", NSUP, 0, -1, -1, 0, __LINE__ },
	{ "instructions", NSUP, 0, -1, -1, 0, __LINE__ },
	{ "branches", NSUP, 0, -1, -1, 0, __LINE__ },
	{ "branch-misses", NSUP, 0, -1, -1, 0, __LINE__ },
};
static const struct exp_metric default_json_m[] = {
	{ 0, 0.492224, "", "CPUs utilized" }, { 1, 0, "/sec", "/sec" },
	{ 2, 0, "/sec", "/sec" }, { 3, 69.439721, "K/sec", "K/sec" },
};

/* perf61-default.txt: "0.50 msec task-clock # 0.489 CPUs utilized", ... */
static const struct exp_count default_txt[] = {
	{ "task-clock", OK, 0.50 * NS, 100, -1, 0, __LINE__ },
	{ "context-switches", OK, 0, 100, -1, 0, __LINE__ },
	{ "cpu-migrations", OK, 0, 100, -1, 0, __LINE__ },
	{ "page-faults", OK, 50, 100, -1, 0, __LINE__ },
	{ "cycles", NSUP, 0, -1, -1, 0, __LINE__ },
	{ "instructions", NSUP, 0, -1, -1, 0, __LINE__ },
	{ "branches", NSUP, 0, -1, -1, 0, __LINE__ },
	{ "branch-misses", NSUP, 0, -1, -1, 0, __LINE__ },
};
static const struct exp_metric default_txt_m[] = {
	{ 0, 0.489, "", "CPUs utilized" }, { 1, 0, "/sec", "/sec" },
	{ 2, 0, "/sec", "/sec" }, { 3, 100.527, "K/sec", "K/sec" },
};

/* -r 3: the variance right after the event ("0.41,msec,task-clock,8.00%,...") */
static const struct exp_count repeat_csv[] = {
	{ "task-clock", OK, 0.41 * NS, 100, 8.00, 0, __LINE__ },
	{ "page-faults", OK, 48, 100, 0.69, 0, __LINE__ },
};
static const struct exp_metric repeat_csv_m[] = { { 0, 0.454, "", "CPUs utilized" }, { 1, 104.800, "K/sec", "K/sec" } };
static const struct exp_count repeat_json[] = {
	{ "task-clock", OK, 0.406053 * NS, 100, 7.02, 0, __LINE__ },
	{ "page-faults", OK, 49, 100, 1.80, 0, __LINE__ },
};
static const struct exp_metric repeat_json_m[] = {
	{ 0, 0.491423, "", "CPUs utilized" }, { 1, 110.791048, "K/sec", "K/sec" },
};
static const struct exp_count repeat_txt[] = {
	{ "task-clock", OK, 0.43 * NS, 100, 35.11, 0, __LINE__ },
	{ "context-switches", OK, 0, 100, -1, 0, __LINE__ },
	{ "page-faults", OK, 48, 100, 1.84, 0, __LINE__ },
};
static const struct exp_metric repeat_txt_m[] = {
	{ 0, 0.368, "", "CPUs utilized" }, { 1, 0, "/sec", "/sec" }, { 2, 79.829, "K/sec", "K/sec" },
};

/* -I 100: intervals 1 and 4 counted, 2 and 3 <not counted>; sums 0.76+0.07 ms, 77+0 */
static const struct exp_count interval_csv[] = {
	{ "task-clock", OK, (0.76 + 0.07) * NS, 100, -1, 0, __LINE__ },
	{ "page-faults", OK, 77 + 0, 100, -1, 0, __LINE__ },
};
static const struct exp_count interval_json[] = {
	{ "task-clock", OK, (0.699038 + 0.064015) * NS, 100, -1, 0, __LINE__ },
	{ "page-faults", OK, 74 + 0, 100, -1, 0, __LINE__ },
};
static const struct exp_count interval_txt[] = {
	{ "task-clock", OK, (0.65 + 0.07) * NS, 100, -1, 0, __LINE__ },
	{ "page-faults", OK, 78 + 0, 100, -1, 0, __LINE__ },
};

/* -A, --per-core, --per-socket: CPU0 + CPU1 */
static const struct exp_count percpu_semicolon[] = {
	{ "task-clock", OK, (51.69 + 51.70) * NS, 100, -1, 0, __LINE__ },
	{ "context-switches", OK, 15 + 9, 100, -1, 0, __LINE__ },
	{ "page-faults", OK, 79 + 2, 100, -1, 0, __LINE__ },
};
static const struct exp_count percore_csv[] = {
	{ "task-clock", OK, (51.67 + 51.68) * NS, 100, -1, 0, __LINE__ },
	{ "page-faults", OK, 81 + 2, 100, -1, 0, __LINE__ },
};
static const struct exp_count percpu_json[] = {
	{ "task-clock", OK, (51.512115 + 51.515756) * NS, 100, -1, 0, __LINE__ },
	{ "page-faults", OK, 78 + 2, 100, -1, 0, __LINE__ },
};
static const struct exp_count persocket_txt[] = {
	{ "task-clock", OK, 103.93 * NS, 100, -1, 0, __LINE__ },
	{ "page-faults", OK, 83, 100, -1, 0, __LINE__ },
};
static const struct exp_metric persocket_txt_m[] = {
	{ 0, 2.000, "", "CPUs utilized" }, { 1, 798.647, "/sec", "/sec" },
};

/*
 * hand-perf5.txt: "1234.567890 task-clock (msec)" is msec; instructions' running
 * percentage (50.10) and variance (0.02) are on its continuation line.
 */
static const struct exp_count perf5_txt[] = {
	{ "task-clock", OK, 1234.567890 * NS, 100, 0.12, 0, __LINE__ },
	{ "context-switches", OK, 5, 100, 20.00, 0, __LINE__ },
	{ "cycles", OK, 4e9, 49.90, 0.05, 1, __LINE__ },
	{ "instructions", OK, 6e9, 50.10, 0.02, 2, __LINE__ },
	{ "stalled-cycles-backend", NSUP, 0, -1, -1, 2, __LINE__ },
	{ "branch-misses", NC, 0, -1, -1, 2, __LINE__ },
};
static const struct exp_metric perf5_txt_m[] = {
	{ 0, 0.998, "", "CPUs utilized" }, { 1, 0.004, "K/sec", "K/sec" }, { 2, 3.240, "GHz", "GHz" },
	{ 3, 1.50, "", "insn per cycle" }, { 3, 0.10, "", "stalled cycles per insn" },
};

/*
 * hand-groups.csv: both multiplexed groups print 25.00 %; their run times
 * (2500000 and 2400000 ns) tell them apart; ls_not_halted_cyc at 100 % repeats.
 */
static const struct exp_count groups_csv[] = {
	{ "ex_ret_brn_misp", OK, 1000000, 25, -1, 0, __LINE__ },
	{ "de_src_op_disp.all", OK, 40000000, 25, -1, 0, __LINE__ },
	{ "resyncs_or_nc_redirects", OK, 20000, 25, -1, 0, __LINE__ },
	{ "ls_not_halted_cyc", OK, 10000000, 25, -1, 0, __LINE__ },
	{ "ex_ret_ops", OK, 30000000, 25, -1, 0, __LINE__ },
	{ "de_no_dispatch_per_slot.no_ops_from_frontend", OK, 5000000, 25, -1, 1, __LINE__ },
	{ "cpu/de_no_dispatch_per_slot.no_ops_from_frontend,cmask=0x6/", OK, 700000, 25, -1, 1, __LINE__ },
	{ "ls_not_halted_cyc", OK, 10000000, 25, -1, 1, __LINE__ },
	{ "ex_ret_ucode_ops", NC, 0, -1, -1, 1, __LINE__ },
	{ "ls_not_halted_cyc", OK, 12000000, 100, -1, 2, __LINE__ },
};
static const struct exp_metric groups_csv_m[] = {
	{ 0, 16.3, "%", "bad_speculation_mispredicts" }, { 0, 0.3, "%", "bad_speculation_pipeline_restarts" },
	{ 5, 1.3, "%", "frontend_bound_bandwidth" }, { 6, 7.0, "%", "frontend_bound_latency" },
};

/* hand-perf613.json: string metric values, ", }" */
static const struct exp_count perf613_json[] = {
	{ "TOPDOWN.SLOTS", OK, 10000000, 100, -1, 0, __LINE__ },
	{ "topdown-retiring", OK, 4322600, 100, -1, 0, __LINE__ },
	{ "INT_MISC.UOP_DROPPING", NSUP, 0, -1, -1, 0, __LINE__ },
	{ "cpu-clock", OK, 3.141593 * NS, 100, -1, 0, __LINE__ },
};
static const struct exp_metric perf613_json_m[] = {
	{ 0, 43.226002, "%", "tma_retiring" }, { 0, 12.5, "%", "tma_bad_speculation" },
	{ 3, 1.0, "", "CPUs utilized" },
};

/*
 * hand-interval-percpu.txt: cycles 1,000 + 3,000 + 1,500 = 5,500 and instructions
 * 2,000 + 1,000 + 2,500 = 5,500 over the counted rows; running % the mean
 * (50 + 25 + 50) / 3 = 41.667 (text gives no run times).
 */
static const struct exp_count interval_percpu_txt[] = {
	{ "cycles", OK, 5500, (50.0 + 25.0 + 50.0) / 3, -1, 0, __LINE__ },
	{ "instructions", OK, 5500, (50.0 + 25.0 + 50.0) / 3, -1, 0, __LINE__ },
};

#define E(c) c, ARRAY_SIZE(c)
#define NOM NULL, 0

static const struct exp_file files[] = {
	{ "perf61-default.csv", IMPORT_FMT_CSV, ',', E(default_csv), E(default_csv_m), -1, 1, 0, 0, NULL },
	{ "perf61-default.json", IMPORT_FMT_JSON, 0, E(default_json), E(default_json_m), -1, 1, 0, 0, NULL },
	{ "perf61-default.txt", IMPORT_FMT_TEXT, 0, E(default_txt), E(default_txt_m), 0.001017321e9, 1, 0, 0, NULL },
	{ "perf61-repeat.csv", IMPORT_FMT_CSV, ',', E(repeat_csv), E(repeat_csv_m), -1, 0, 0, 0, NULL },
	{ "perf61-repeat.json", IMPORT_FMT_JSON, 0, E(repeat_json), E(repeat_json_m), -1, 0, 0, 0, NULL },
	{ "perf61-repeat.txt", IMPORT_FMT_TEXT, 0, E(repeat_txt), E(repeat_txt_m), 0.001160e9, 3, 0, 0, NULL },
	{ "perf61-interval.csv", IMPORT_FMT_CSV, ',', E(interval_csv), NOM, 0.352041660e9, 1, 4, 0,
	  "summed 4 intervals of -I output per event (0.352 s in all)" },
	{ "perf61-interval.json", IMPORT_FMT_JSON, 0, E(interval_json), NOM, 0.351399998e9, 1, 4, 0,
	  "'task-clock' was counted in 2 of its 4 rows (intervals or CPUs); its count is the sum of those" },
	{ "perf61-interval.txt", IMPORT_FMT_TEXT, 0, E(interval_txt), NOM, 0.351352602e9, 1, 4, 0,
	  "perf's metrics were printed per interval or CPU and are not kept" },
	{ "perf61-percpu-semicolon.csv", IMPORT_FMT_CSV, ';', E(percpu_semicolon), NOM, -1, 1, 0, 2,
	  "summed 2 CPUs, cores, sockets, threads or cgroups per event" },
	{ "perf61-percore.csv", IMPORT_FMT_CSV, ',', E(percore_csv), NOM, -1, 1, 0, 2, NULL },
	{ "perf61-percpu.json", IMPORT_FMT_JSON, 0, E(percpu_json), NOM, -1, 1, 0, 2, NULL },
	{ "perf61-persocket.txt", IMPORT_FMT_TEXT, 0, E(persocket_txt), E(persocket_txt_m), 0.051957222e9, 1, 0, 0, NULL },
	{ "hand-perf5.txt", IMPORT_FMT_TEXT, 0, E(perf5_txt), E(perf5_txt_m), 1.237e9, 5, 0, 0, NULL },
	{ "hand-groups.csv", IMPORT_FMT_CSV, ',', E(groups_csv), E(groups_csv_m), -1, 1, 0, 0, NULL },
	{ "hand-perf613.json", IMPORT_FMT_JSON, 0, E(perf613_json), E(perf613_json_m), -1, 1, 0, 0, NULL },
	{ "hand-interval-percpu.txt", IMPORT_FMT_TEXT, 0, E(interval_percpu_txt), NOM, 2.0002e9, 1, 2, 2,
	  "'cycles' was counted in 3 of its 4 rows (intervals or CPUs); its count is the sum of those" },
};

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b));
}

static char *fixture_path(const char *name)
{
	const char *root = getenv("TDPROF_SOURCE_ROOT");
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s/tests/data/import/%s", root ? root : "../..", name);
	return strbuf_detach(&sb);
}

static void load(const char *name, struct tdp_file *f)
{
	struct tdp_err err = TDP_ERR_INIT;
	char *path = fixture_path(name);

	if (tdp_file_open(f, path, 0, &err))
		fail_msg("%s", err.msg);
	tdp_free(path);
}

static void check_file(const struct exp_file *e)
{
	struct import_result r = IMPORT_RESULT_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	struct tdp_file f = TDP_FILE_INIT;
	char sep = 'x';

	load(e->file, &f);
	assert_int_equal(import_detect(f.data, f.size, &sep), e->format);
	assert_int_equal(sep, e->sep);
	if (import_perf_stat_result(f.data, f.size, e->file, &r, &err))
		fail_msg("%s: %s", e->file, err.msg);
	assert_int_equal(r.format, e->format);
	assert_int_equal(r.counts.backend, BACKEND_IMPORT);
	if (r.counts.nr != e->nr_counts)
		fail_msg("%s: %zu counts, expected %zu", e->file, r.counts.nr, e->nr_counts);
	for (size_t i = 0; i < e->nr_counts; i++) {
		const struct exp_count *x = &e->counts[i];
		const struct count *c = &r.counts.v[i];

		if (strcmp(c->name, x->name) || c->status != x->status || !near(c->value, x->value) ||
		    !near(c->running_pct, x->pct) || !near(c->stddev_pct, x->stddev) || c->group != x->group)
			fail_msg("%s: count %zu (expected at test line %d): got %s status %d value %.6f pct %.4f "
				 "stddev %.2f group %d",
				 e->file, i, x->line, c->name, c->status, c->value, c->running_pct, c->stddev_pct,
				 c->group);
		if (c->status != COUNT_OK)
			assert_true(c->value == 0);
	}
	if (r.nr_metrics != e->nr_metrics)
		fail_msg("%s: %zu metrics, expected %zu", e->file, r.nr_metrics, e->nr_metrics);
	for (size_t i = 0; i < e->nr_metrics; i++) {
		const struct exp_metric *x = &e->metrics[i];
		const struct import_metric *m = &r.metrics[i];

		if (m->count != x->count || !near(m->value, x->value) || strcmp(m->unit, x->unit) ||
		    strcmp(m->name, x->name) || m->group != r.counts.v[m->count].group)
			fail_msg("%s: metric %zu: got count %zu %g [%s] '%s'", e->file, i, m->count, m->value, m->unit,
				 m->name);
	}
	if (!near(r.counts.elapsed_ns, e->elapsed_ns))
		fail_msg("%s: elapsed %.1f ns, expected %.1f", e->file, r.counts.elapsed_ns, e->elapsed_ns);
	assert_int_equal(r.runs, e->runs);
	assert_int_equal(r.nr_intervals, e->nr_intervals);
	assert_int_equal(r.nr_aggr, e->nr_aggr);
	if (e->note) {
		bool found = false;

		for (size_t i = 0; i < r.nr_notes; i++)
			found = found || !strcmp(r.notes[i], e->note);
		if (!found)
			fail_msg("%s: note '%s' missing", e->file, e->note);
	}
	import_result_release(&r);
	tdp_file_close(&f);
}

static void test_fixtures(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		check_file(&files[i]);
}

/* Run times from CSV/JSON: enabled = run time * 100 / pct; summed over rows. */
static void test_times(void **state)
{
	struct import_result r = IMPORT_RESULT_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	struct tdp_file f = TDP_FILE_INIT;

	(void)state;
	load("hand-groups.csv", &f);
	assert_int_equal(import_perf_stat_result(f.data, f.size, "g", &r, &err), 0);
	/* 2500000 ns running at 25.00 % => 10000000 ns enabled */
	assert_int_equal(r.counts.v[0].running_ns, 2500000);
	assert_int_equal(r.counts.v[0].enabled_ns, 10000000);
	assert_int_equal(r.counts.v[5].enabled_ns, 9600000);
	import_result_release(&r);
	tdp_file_close(&f);

	load("perf61-interval.csv", &f);
	assert_int_equal(import_perf_stat_result(f.data, f.size, "i", &r, &err), 0);
	/* 761191 + 70726 ns over the two counted intervals (not-counted rows add nothing) */
	assert_int_equal(r.counts.v[0].running_ns, 761191 + 70726);
	import_result_release(&r);
	tdp_file_close(&f);
}

/* import_perf_stat() appends to a countset, shifting groups past the ones it holds. */
static void test_append(void **state)
{
	struct countset cs = COUNTSET_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	struct tdp_file f = TDP_FILE_INIT;
	const struct count *c;

	(void)state;
	assert_non_null(countset_add(&cs, "cycles", NULL, 5, 0));
	assert_non_null(countset_add(&cs, "instructions", NULL, 7, 1));
	load("hand-groups.csv", &f);
	assert_int_equal(import_perf_stat(f.data, f.size, "g", &cs, &err), 0);
	assert_int_equal(cs.nr, 2 + 10);
	assert_int_equal(cs.backend, BACKEND_IMPORT);
	assert_int_equal(countset_nr_groups(&cs), 2 + 3);
	c = countset_find(&cs, "ls_not_halted_cyc", 2 + 2);
	assert_non_null(c);
	assert_true(c->value == 12000000);
	assert_true(cs.elapsed_ns < 0);
	countset_release(&cs);
	tdp_file_close(&f);

	/* on failure the countset is untouched */
	assert_non_null(countset_add(&cs, "cycles", NULL, 5, 0));
	assert_int_equal(import_perf_stat((const uint8_t *)"nonsense\n", 9, "n", &cs, &err), TDP_EFORMAT);
	assert_int_equal(cs.nr, 1);
	countset_release(&cs);
}

struct bad {
	const char *in;
	int code;
	const char *msg;
	int line;
};

static const struct bad bad_inputs[] = {
	{ "", TDP_EFORMAT, "'x' is empty", __LINE__ },
	{ " \n\n\t\n", TDP_EFORMAT, "'x' is empty", __LINE__ },
	{ "hello world\nthis is not perf\n", TDP_EFORMAT, "'x' is not perf stat output: no line holds a count", __LINE__ },
	/* CSV cut in the middle of its second row */
	{ "0.57,msec,task-clock,568685,100.00,0.373,CPUs utilized\n1,,cont", TDP_EFORMAT,
	  "'x': line 2: 'cont' has no run time and running percentage (is the line cut short?)", __LINE__ },
	{ "0.57,msec,task-clock,568685,100.00,0.373,CPUs utilized\n0.5", TDP_EFORMAT,
	  "'x': line 2: not a perf stat -x',' row like line 1 (expected 0 fields before the count)", __LINE__ },
	{ "1,,cycles,100,150.00,,\n", TDP_EFORMAT,
	  "'x': line 1: running percentage '150.00' of 'cycles' is not within 0..100", __LINE__ },
	{ "1,,cycles,1x0,50.00,,\n", TDP_EFORMAT, "'x': line 1: run time '1x0' of 'cycles' is not a number",
	  __LINE__ },
	{ "1,,cycles,100,50.00,abc,GHz\n", TDP_EFORMAT, "'x': line 1: metric value 'abc' of 'cycles' is not a number",
	  __LINE__ },
	/* JSON cut inside a string, and not an object */
	{ "{\"counter-value\" : \"0.70", TDP_EFORMAT, "'x': line 1: not a perf stat -j object: a string is not closed",
	  __LINE__ },
	{ "{\"counter-value\" : \"1\", \"event\" : \"cycles\"}\nplain text\n", TDP_EFORMAT,
	  "'x': line 2: not a perf stat -j object: an object ('{') was expected", __LINE__ },
	{ "{\"counter-value\" : \"1e999\", \"event\" : \"cycles\"}\n", TDP_EFORMAT,
	  "'x': line 1: counter-value '1e999' of 'cycles' is not a number", __LINE__ },
	{ "{\"counter-value\" : \"-3\", \"event\" : \"cycles\"}\n", TDP_EFORMAT,
	  "'x': line 1: counter-value '-3' of 'cycles' is not a number", __LINE__ },
	{ "{\"counter-value\" : \"3\", \"event\" : [1]}\n", TDP_EFORMAT,
	  "'x': line 1: not a perf stat -j object: nested objects and arrays are not perf stat output", __LINE__ },
	{ "{\"metric-value\" : 3, \"metric-unit\" : \"GHz\"}\n", TDP_EFORMAT, "'x': no counts found", __LINE__ },
	/* text: a line perf does not print after the header; two runs in one file */
	{ " Performance counter stats for 'true':\n\n  1,234  cycles\n  12x cycles\n", TDP_EFORMAT,
	  "'x': line 4: count '12x' is not a number (digits in groups of three after the first, the decimal "
	  "mark '.' as in the rest of the file)", __LINE__ },
	{ " Performance counter stats for 'a':\n 1 cycles\n Performance counter stats for 'b':\n", TDP_EFORMAT,
	  "'x': line 3: a second 'Performance counter stats' block", __LINE__ },
	/* "1,2345" alone is 1.2345 under a decimal-comma locale (test-import-locale.c); en_IN's lakh
	   grouping is not read */
	{ " Performance counter stats for 'a':\n 12,34,567 cycles\n", TDP_EFORMAT,
	  "'x': line 2: count '12,34,567' is not a number (digits in groups of three after the first, the "
	  "decimal mark '.' as in the rest of the file)", __LINE__ },
	{ " Performance counter stats for 'a':\n  5 msec 7 cycles\n", TDP_EFORMAT,
	  "'x': line 2: '5 msec 7 cycles' is not a line perf stat prints (two counts)", __LINE__ },
	{ " Performance counter stats for 'a':\n  5 msec cycles 7 x\n", TDP_EFORMAT,
	  "'x': line 2: unexpected '7' after the event 'cycles'", __LINE__ },
	{ " Performance counter stats for 'a':\n 1 cycles\n\n nan seconds time elapsed\n", TDP_EFORMAT,
	  "'x': line 4: elapsed time 'nan seconds time elapsed' is not a number", __LINE__ },
	{ " Performance counter stats for 'a':\n", TDP_EFORMAT, "'x': no counts found", __LINE__ },
	/* text: a running column CSV and JSON would refuse is refused, not read as the event name */
	{ " Performance counter stats for 'a':\n 1 cycles (abc%)\n", TDP_EFORMAT,
	  "'x': line 2: running percentage '(abc%)' is not within 0..100%", __LINE__ },
	{ " Performance counter stats for 'a':\n 1 cycles (nan%)\n", TDP_EFORMAT,
	  "'x': line 2: running percentage '(nan%)' is not within 0..100%", __LINE__ },
	{ " Performance counter stats for 'a':\n 2 instructions\n 1 cycles    (101%)\n", TDP_EFORMAT,
	  "'x': line 3: running percentage '(101%)' is not within 0..100%", __LINE__ },
	{ " Performance counter stats for 'a':\n 1 cycles # 2 x ( +- 1e9% )\n", TDP_EFORMAT,
	  "'x': line 2: running percentage '( +- 1e9% )' is not within 0..100%", __LINE__ },
	{ " Performance counter stats for 'a':\n 1 cycles (50.00%) (x%)\n", TDP_EFORMAT,
	  "'x': line 2: running percentage '(x%)' is not within 0..100%", __LINE__ },
};

static void test_bad_inputs(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad_inputs); i++) {
		const struct bad *b = &bad_inputs[i];
		struct import_result r = IMPORT_RESULT_INIT;
		struct tdp_err err = TDP_ERR_INIT;
		int rc = import_perf_stat_result((const uint8_t *)b->in, strlen(b->in), "x", &r, &err);

		if (rc != b->code || (b->msg && strcmp(err.msg, b->msg)))
			fail_msg("input at test line %d: rc %d, message '%s'", b->line, rc, err.msg);
		if (rc) {
			/* on failure the result is left empty */
			assert_int_equal(r.counts.nr, 0);
			assert_int_equal(r.nr_metrics, 0);
			assert_int_equal(r.nr_notes, 0);
		}
		import_result_release(&r);
	}
}

/*
 * perf stat --append: runs follow each other in one file, each after its
 * "# started on" line. They are runs, not more groups: each count is the mean
 * of its runs (as -r prints), and the groups are those of one run.
 */
static void test_appended_runs(void **state)
{
	static const char csv[] = "# started on Mon Jan  5 10:00:00 2026\n\n"
				  "100,,cycles,1000,50.00,,\n300,,instructions,1000,50.00,,\n"
				  "7,,task-clock,2000,100.00,,\n"
				  "# started on Mon Jan  5 10:00:01 2026\n\n"
				  "300,,cycles,3000,50.00,,\n500,,instructions,3000,50.00,,\n"
				  "9,,task-clock,4000,100.00,,\n";
	static const char json[] = "# started on Mon Jan  5 10:00:00 2026\n"
				   "{\"counter-value\" : \"10\", \"unit\" : \"\", \"event\" : \"cycles\", "
				   "\"event-runtime\" : 10, \"pcnt-running\" : 100.00}\n"
				   "# started on Mon Jan  5 10:00:01 2026\n"
				   "{\"counter-value\" : \"30\", \"unit\" : \"\", \"event\" : \"cycles\", "
				   "\"event-runtime\" : 10, \"pcnt-running\" : 100.00}\n";
	struct import_result r = IMPORT_RESULT_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	const struct count *c;

	(void)state;
	assert_int_equal(import_perf_stat_result((const uint8_t *)csv, strlen(csv), "app.csv", &r, &err), 0);
	assert_int_equal(r.runs, 2);
	assert_int_equal(r.counts.nr, 3);
	assert_int_equal(countset_nr_groups(&r.counts), 2);
	c = countset_find(&r.counts, "cycles", -1);
	assert_non_null(c);
	assert_true(c->value == 200 && c->running_ns == 2000 && c->enabled_ns == 4000);
	assert_true(fabs(c->running_pct - 50.0) < 1e-9);
	c = countset_find(&r.counts, "instructions", -1);
	assert_true(c && c->value == 400 && c->group == 0);
	c = countset_find(&r.counts, "task-clock", -1);
	assert_true(c && c->group == 1);
	assert_true(r.nr_notes >= 1 && strstr(r.notes[0], "averaged 2 runs appended"));
	import_result_release(&r);

	assert_int_equal(import_perf_stat_result((const uint8_t *)json, strlen(json), "app.json", &r, &err), 0);
	assert_int_equal(r.runs, 2);
	assert_int_equal(r.counts.nr, 1);
	assert_true(r.counts.v[0].value == 20);
	import_result_release(&r);

	/* text: each run its own block after "# started on", as perf stat --append -o FILE writes it */
	{
		static const char text[] = "# started on Mon Jan  5 10:00:00 2026\n\n"
					   " Performance counter stats for 'x':\n\n"
					   "               100      cycles\n\n"
					   "       1.000000000 seconds time elapsed\n\n"
					   "# started on Mon Jan  5 10:00:01 2026\n\n"
					   " Performance counter stats for 'x':\n\n"
					   "               300      cycles\n\n"
					   "       3.000000000 seconds time elapsed\n\n";

		assert_int_equal(import_perf_stat_result((const uint8_t *)text, strlen(text), "app.txt", &r, &err), 0);
		assert_int_equal(r.runs, 2);
		assert_int_equal(r.counts.nr, 1);
		assert_true(r.counts.v[0].value == 200);
		assert_true(fabs(r.counts.elapsed_ns - 2e9) < 1);
		import_result_release(&r);
	}

	/* one "# started on" at the top is one run, as before */
	assert_int_equal(import_perf_stat_result((const uint8_t *)csv, 124, "one.csv", &r, &err), 0);
	assert_int_equal(r.runs, 1);
	import_result_release(&r);
}

/* A NUL byte, a line over the limit, more rows than the limit. */
static void test_limits(void **state)
{
	struct import_result r = IMPORT_RESULT_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	static const char nul[] = "1,,cycles,100,100.00,,\n2,,inst\0ructions,100,100.00,,\n";
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_int_equal(import_perf_stat_result((const uint8_t *)nul, sizeof(nul) - 1, "x", &r, &err), TDP_EFORMAT);
	assert_string_equal(err.msg, "'x': line 2: holds a NUL byte (binary data, not perf stat output)");
	tdp_err_clear(&err);

	strbuf_adds(&sb, "1,,cycles,100,100.00,,\n2,,");
	for (int i = 0; i < IMPORT_MAX_LINE; i++)
		strbuf_addch(&sb, 'a');
	strbuf_adds(&sb, ",100,100.00,,\n");
	assert_false(strbuf_failed(&sb));
	assert_int_equal(import_perf_stat_result((const uint8_t *)sb.buf, sb.len, "x", &r, &err), TDP_ELIMIT);
	assert_string_equal(err.msg, "'x': line 2: line is longer than 65536 bytes");
	tdp_err_clear(&err);

	/* an event name over IMPORT_MAX_NAME on a line within the limit */
	strbuf_reset(&sb);
	strbuf_adds(&sb, "1,,");
	for (int i = 0; i < IMPORT_MAX_NAME + 1; i++)
		strbuf_addch(&sb, 'b');
	strbuf_adds(&sb, ",100,100.00,,\n");
	assert_int_equal(import_perf_stat_result((const uint8_t *)sb.buf, sb.len, "x", &r, &err), TDP_ELIMIT);
	tdp_err_clear(&err);

	strbuf_reset(&sb);
	for (int i = 0; i <= IMPORT_MAX_ROWS; i++)
		strbuf_addf(&sb, "%d,,e%d,100,100.00,,\n", i, i % 7);
	assert_false(strbuf_failed(&sb));
	assert_int_equal(import_perf_stat_result((const uint8_t *)sb.buf, sb.len, "x", &r, &err), TDP_ELIMIT);
	assert_string_equal(err.msg, "'x': line 262145: more than 262144 counts");
	strbuf_release(&sb);
	import_result_release(&r);
}

/* Fail every allocation in turn: each failure is TDP_ENOMEM and leaks nothing. */
static void test_alloc_failures(void **state)
{
	static const char *const names[] = { "hand-groups.csv", "hand-perf613.json", "hand-perf5.txt",
					     "perf61-interval.txt", "perf61-percpu.json" };

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
		struct tdp_file f = TDP_FILE_INIT;
		long n;

		load(names[k], &f);
		for (n = 0;; n++) {
			struct import_result r = IMPORT_RESULT_INIT;
			struct tdp_err err = TDP_ERR_INIT;
			int rc;

			tdp_alloc_fail_after(n);
			rc = import_perf_stat_result(f.data, f.size, names[k], &r, &err);
			tdp_alloc_fail_after(-1);
			if (rc == 0) {
				import_result_release(&r);
				break;
			}
			if (rc != TDP_ENOMEM)
				fail_msg("%s: allocation %ld failed: rc %d '%s'", names[k], n, rc, err.msg);
			assert_int_equal(r.counts.nr, 0);
			assert_null(r.metrics);
			assert_null(r.notes);
		}
		assert_true(n > 10);
		tdp_file_close(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_append),
		cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_appended_runs),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_alloc_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
