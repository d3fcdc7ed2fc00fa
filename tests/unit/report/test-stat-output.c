/*
 * Unit tests of report/stat-*: perf stat's CSV layout byte for byte (expected lines
 * are perf 6.1's own output, /work/shared/reference/perf61-stat-output-shapes.txt,
 * fed with the same numbers), the human layout's columns, and the JSON document
 * parsed back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/countset.h"
#include "base/str.h"
#include "model/triage.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "report/render.h"
#include "report/stat.h"

struct mem {
	char *buf;
	size_t len;
	FILE *f;
};

static void mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->f);
}

static void mem_close(struct mem *m)
{
	fclose(m->f);
}

static struct count *add(struct countset *cs, const char *name, const char *unit, double v, uint64_t run)
{
	struct count *c = countset_add(cs, name, unit, v, -1);

	assert_non_null(c);
	c->raw = v;
	c->enabled_ns = run;
	c->running_ns = run;
	return c;
}

static struct count *add_status(struct countset *cs, const char *name, const char *unit, enum count_status st)
{
	struct count *c = countset_add(cs, name, unit, 0, -1);

	assert_non_null(c);
	c->status = st;
	c->running_pct = 0;
	return c;
}

/*
 * perf 6.1: `perf stat -x, -e task-clock,page-faults true` printed
 *   2.97,msec,task-clock,2974623,100.00,0.578,CPUs utilized
 *   47,,page-faults,2974623,100.00,15.800,K/sec
 * Same inputs: 2,974,623 ns of task-clock, 47 faults; the wall time was not
 * printed, 2974623 / 0.578 = 5,146,406 ns reproduces its 0.578.
 */
static void test_csv_matches_perf(void **state)
{
	struct countset cs = COUNTSET_INIT;
	struct mem m;

	(void)state;
	add(&cs, "task-clock", "msec", 2974623, 2974623);
	add(&cs, "page-faults", NULL, 47, 2974623);
	add_status(&cs, "cycles", NULL, COUNT_NOT_SUPPORTED);
	cs.elapsed_ns = 5146406;
	mem_open(&m);
	stat_csv_print(m.f, &cs, 1, ",");
	mem_close(&m);
	assert_string_equal(m.buf, "2.97,msec,task-clock,2974623,100.00,0.578,CPUs utilized\n"
				   "47,,page-faults,2974623,100.00,15.800,K/sec\n"
				   "<not supported>,,cycles,0,100.00,,\n");
	free(m.buf);
	countset_release(&cs);
}

/*
 * perf 6.1 with -r 3: the variance comes right after the event name:
 *   3.04,msec,task-clock,3.49%,3037242,100.00,0.548,CPUs utilized
 * (3037242 / 0.548 = 5,542,412 ns of wall time gives its 0.548.)
 */
static void test_csv_repeat_variance(void **state)
{
	struct countset cs = COUNTSET_INIT;
	struct mem m;
	struct count *c;

	(void)state;
	c = add(&cs, "task-clock", "msec", 3037242, 3037242);
	c->stddev_pct = 3.49;
	add_status(&cs, "cycles", NULL, COUNT_NOT_SUPPORTED);
	cs.elapsed_ns = 5542412;
	mem_open(&m);
	stat_csv_print(m.f, &cs, 3, ",");
	mem_close(&m);
	/* perf prints 0.00% for the unsupported row too (seen in its -r output) */
	assert_string_equal(m.buf, "3.04,msec,task-clock,3.49%,3037242,100.00,0.548,CPUs utilized\n"
				   "<not supported>,,cycles,0.00%,0,100.00,,\n");
	free(m.buf);
	countset_release(&cs);
}

/*
 * perf 6.1 -I 100 -x,: a space-padded timestamp first; <not counted> keeps the
 * unit and empty metric fields:
 *        0.100295343,3.12,msec,task-clock,3117775,100.00,0.031,CPUs utilized
 *        0.200826024,<not counted>,msec,task-clock,0,100.00,,
 */
static void test_csv_intervals(void **state)
{
	struct countset a = COUNTSET_INIT, b = COUNTSET_INIT;
	struct stat_interval iv;
	struct mem m;

	(void)state;
	add(&a, "task-clock", "msec", 3117775, 3117775);
	add_status(&b, "task-clock", "msec", COUNT_NOT_COUNTED);
	mem_open(&m);
	iv = (struct stat_interval){ 100295343, 100295343, &a };
	stat_csv_interval(m.f, &iv, ",");
	iv = (struct stat_interval){ 200826024, 100530681, &b };
	stat_csv_interval(m.f, &iv, ",");
	mem_close(&m);
	assert_string_equal(m.buf, "     0.100295343,3.12,msec,task-clock,3117775,100.00,0.031,CPUs utilized\n"
				   "     0.200826024,<not counted>,msec,task-clock,0,100.00,,\n");
	free(m.buf);
	countset_release(&a);
	countset_release(&b);
}

/* Multiplexed: pcnt-running is perf's integer 100*run/ena; another separator. */
static void test_csv_multiplexed_and_separator(void **state)
{
	struct countset cs = COUNTSET_INIT;
	struct mem m;
	struct count *c;

	(void)state;
	c = add(&cs, "instructions", NULL, 4000, 1000);
	c->enabled_ns = 1333; /* 100*1000/1333 = 75 in integers (75.02 exactly) */
	c->running_pct = 100.0 * 1000 / 1333;
	cs.elapsed_ns = -1;
	mem_open(&m);
	stat_csv_print(m.f, &cs, 1, ";");
	mem_close(&m);
	assert_string_equal(m.buf, "4000;;instructions;1000;75.00;;\n");
	free(m.buf);
	countset_release(&cs);
}

static char *line_of(const char *text, const char *needle, char *buf, size_t size)
{
	const char *p = strstr(text, needle), *start, *end;

	if (!p)
		return NULL;
	start = p;
	while (start > text && start[-1] != '\n')
		start--;
	end = strchr(p, '\n');
	snprintf(buf, size, "%.*s", (int)(end - start), start);
	return buf;
}

static void test_text_layout(void **state)
{
	struct countset cs = COUNTSET_INIT;
	struct triage_metrics tm;
	struct triage_verdict tv;
	struct stat_report r = { 0 };
	struct mem m;
	char line[256];
	struct count *c;

	(void)state;
	add(&cs, "task-clock", "msec", 810000, 810000);
	add(&cs, "context-switches", NULL, 1, 810000);
	add_status(&cs, "cycles", NULL, COUNT_NOT_SUPPORTED);
	c = add(&cs, "instructions", NULL, 1234567, 500);
	c->enabled_ns = 1000;
	c->running_pct = 50.0;
	cs.elapsed_ns = 84062428;
	triage_metrics_compute(&cs, &tm);
	triage_route(&tm, &tv);
	r.counts = &cs;
	r.metrics = &tm;
	r.verdict = &tv;
	r.target = "'sleep 0.05'";
	r.command = "sleep 0.05";
	r.runs = 1;
	r.user_ns = 1602000;
	r.sys_ns = 0;
	r.hw_note = "hardware counters are unavailable: no PMU";
	r.hw_hint = "rerun with --backend=sim for a simulated estimate";
	mem_open(&m);
	stat_text_print(m.f, &r);
	mem_close(&m);
	assert_non_null(strstr(m.buf, "\n Performance counter stats for 'sleep 0.05':\n\n"));
	/* perf 6.1 printed, for 0.81 ms in 84,062,428 ns: "#    0.010 CPUs utilized" */
	assert_string_equal(line_of(m.buf, "task-clock", line, sizeof(line)),
			    "              0.81 msec task-clock                       #    0.010 CPUs utilized"
			    "          ");
	/* 1 switch in 0.81 ms of task-clock: 1,234.568/s -> "1.235 K/sec" */
	assert_string_equal(line_of(m.buf, "context-switches", line, sizeof(line)),
			    "                 1      context-switches                 #    1.235 K/sec"
			    "                  ");
	/* perf 6.1 (same machine): 84 columns, the name padded to 25 for a count without a value */
	assert_string_equal(line_of(m.buf, "cycles", line, sizeof(line)),
			    "   <not supported>      cycles                   "
			    "                                   ");
	assert_int_equal(strlen(line), 84);
	/* thousands separators, and the share of time it ran */
	assert_non_null(strstr(line_of(m.buf, "instructions", line, sizeof(line)),
			       "         1,234,567      instructions"));
	assert_non_null(strstr(line, "  (50.00%)"));
	assert_non_null(strstr(m.buf, "\n       0.084062428 seconds time elapsed\n\n"
				      "       0.001602000 seconds user\n"
				      "       0.000000000 seconds sys\n"));
	assert_non_null(strstr(m.buf, " hardware counters are unavailable: no PMU\n"
				      " rerun with --backend=sim for a simulated estimate\n"));
	/* no cycles: no verdict line */
	assert_null(strstr(m.buf, " next:"));
	free(m.buf);
	countset_release(&cs);
}

static void test_text_repeat_and_verdict(void **state)
{
	struct countset cs = COUNTSET_INIT;
	struct triage_metrics tm;
	struct triage_verdict tv;
	struct stat_report r = { 0 };
	struct mem m;
	struct count *c;

	(void)state;
	c = add(&cs, "cycles", NULL, 3000000, 1000);
	c->stddev_pct = 1.5;
	add(&cs, "instructions", NULL, 1000000, 1000);
	cs.elapsed_ns = 277000;
	triage_metrics_compute(&cs, &tm);
	triage_route(&tm, &tv);
	r.counts = &cs;
	r.metrics = &tm;
	r.verdict = &tv;
	r.target = "'true'";
	r.command = "true";
	r.runs = 3;
	r.elapsed_stddev_ns = 275000;
	r.user_ns = r.sys_ns = -1;
	mem_open(&m);
	stat_text_print(m.f, &r);
	mem_close(&m);
	assert_non_null(strstr(m.buf, " Performance counter stats for 'true' (3 runs):"));
	assert_non_null(strstr(m.buf, "  ( +-  1.50% )"));
	/* perf 6.1: "          0.000277 +- 0.000275 seconds time elapsed  ( +- 99.28% )" */
	assert_non_null(strstr(m.buf, "          0.000277 +- 0.000275 seconds time elapsed  ( +- 99.28% )\n"));
	assert_null(strstr(m.buf, "seconds user"));
	/* CPI 3.00 > 1.0 */
	assert_non_null(strstr(m.buf, " next: tdprof topdown -- true\n"));
	assert_non_null(strstr(m.buf, "CPI 3.00 > 1.0"));
	free(m.buf);
	countset_release(&cs);
}

static void test_text_interval_header(void **state)
{
	struct countset cs = COUNTSET_INIT;
	struct stat_interval iv;
	struct mem m;

	(void)state;
	add(&cs, "task-clock", "msec", 790000, 790000);
	iv = (struct stat_interval){ 100145557, 100145557, &cs };
	mem_open(&m);
	stat_text_interval(m.f, &iv, 0);
	stat_text_interval(m.f, &iv, 1);
	mem_close(&m);
	/* perf 6.1 -I 100 printed exactly these two lines for its first interval */
	assert_string_equal(m.buf, "#           time             counts unit events\n"
				   "     0.100145557               0.79 msec task-clock                       #"
				   "    0.008 CPUs utilized          \n"
				   "     0.100145557               0.79 msec task-clock                       #"
				   "    0.008 CPUs utilized          \n");
	free(m.buf);
	countset_release(&cs);
}

static void test_json_parses_back(void **state)
{
	struct countset cs = COUNTSET_INIT, iv_cs = COUNTSET_INIT;
	struct triage_metrics tm;
	struct triage_verdict tv;
	struct stat_report r = { 0 };
	struct stat_interval iv;
	struct mem m;
	json_error_t jerr;
	json_t *doc, *ev, *met, *route;
	struct count *c;

	(void)state;
	add(&cs, "task-clock", "msec", 2974623, 2974623);
	add_status(&cs, "cycles", NULL, COUNT_NOT_SUPPORTED);
	add_status(&cs, "page-faults", NULL, COUNT_NOT_COUNTED);
	c = add(&cs, "context-switches", NULL, 8, 500);
	c->enabled_ns = 1000;
	c->running_pct = 50;
	c->stddev_pct = 2.5;
	cs.elapsed_ns = 5146406;
	add(&iv_cs, "task-clock", "msec", 1000000, 1000000);
	iv = (struct stat_interval){ 100000000, 100000000, &iv_cs };
	triage_metrics_compute(&cs, &tm);
	triage_route(&tm, &tv);
	r.counts = &cs;
	r.metrics = &tm;
	r.verdict = &tv;
	r.target = "'true'";
	r.command = "true";
	r.runs = 1;
	r.user_ns = 1000;
	r.sys_ns = 2000;
	r.exit_status = 130;
	r.hw_note = "hardware counters are unavailable: x";
	r.intervals = &iv;
	r.nr_intervals = 1;
	mem_open(&m);
	assert_int_equal(stat_json_print(m.f, &r, NULL), 0);
	mem_close(&m);
	doc = json_loads(m.buf, 0, &jerr);
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "backend")), "pmu");
	assert_int_equal(json_integer_value(json_object_get(doc, "exit_status")), 130);
	assert_int_equal(json_integer_value(json_object_get(doc, "elapsed_ns")), 5146406);
	ev = json_object_get(doc, "events");
	assert_int_equal(json_array_size(ev), 4);
	/* msec counts are in milliseconds in JSON, as their unit says */
	assert_true(fabs(json_real_value(json_object_get(json_array_get(ev, 0), "value")) - 2.974623) < 1e-9);
	assert_string_equal(json_string_value(json_object_get(json_array_get(ev, 0), "status")), "counted");
	assert_true(json_is_false(json_object_get(json_array_get(ev, 0), "scaled")));
	assert_true(json_is_null(json_object_get(json_array_get(ev, 0), "stddev_pct")));
	assert_true(json_is_null(json_object_get(json_array_get(ev, 1), "value")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(ev, 1), "status")), "not supported");
	assert_string_equal(json_string_value(json_object_get(json_array_get(ev, 2), "status")), "not counted");
	assert_true(json_is_null(json_object_get(json_array_get(ev, 2), "value")));
	assert_true(json_is_true(json_object_get(json_array_get(ev, 3), "scaled")));
	assert_true(json_real_value(json_object_get(json_array_get(ev, 3), "running_pct")) == 50.0);
	assert_true(json_real_value(json_object_get(json_array_get(ev, 3), "stddev_pct")) == 2.5);
	met = json_object_get(doc, "metrics");
	assert_true(json_is_null(json_object_get(met, "cpi")));
	assert_true(json_is_null(json_object_get(met, "llc_mpki")));
	route = json_object_get(doc, "route");
	assert_true(json_is_null(json_object_get(route, "next")));
	assert_true(json_is_false(json_object_get(json_object_get(doc, "hardware"), "available")));
	assert_int_equal(json_array_size(json_object_get(doc, "intervals")), 1);
	assert_true(json_real_value(json_object_get(json_array_get(json_object_get(doc, "intervals"), 0), "time")) ==
		    0.1);
	json_decref(doc);
	free(m.buf);
	countset_release(&cs);
	countset_release(&iv_cs);
}

static void test_grouping(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(str_grouped_double(1234567.891, 2, buf, sizeof(buf)), "1,234,567.89");
	assert_string_equal(str_grouped_double(999, 0, buf, sizeof(buf)), "999");
	assert_string_equal(str_grouped_double(1000, 0, buf, sizeof(buf)), "1,000");
	assert_string_equal(str_grouped_double(0, 2, buf, sizeof(buf)), "0.00");
	assert_string_equal(str_grouped_double(-1234, 0, buf, sizeof(buf)), "-1,234");
	assert_string_equal(str_grouped_double(123456, 0, buf, sizeof(buf)), "123,456");
	/* a small buffer truncates, NUL-terminated */
	assert_string_equal(str_grouped_double(1234567, 0, buf, 4), "1,2");
}

/* A document's bytes through render_find(RENDER_STAT, format) into a strbuf (NUL-terminated copy). */
static char *rendered(const char *format, const struct stat_report *r)
{
	const struct renderer *rd = render_find(RENDER_STAT, format);
	struct strbuf sb = STRBUF_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	char *out;

	assert_non_null(rd);
	assert_int_equal(rd->render(&sb, r, &err), 0);
	out = calloc(1, sb.len + 1);
	assert_non_null(out);
	memcpy(out, sb.buf, sb.len);
	strbuf_release(&sb);
	return out;
}

/*
 * The renderer table of stat: text (the default), json and csv, each the same
 * bytes as its printer; csv with the report's separator (',' when none); text
 * after streamed intervals starts with one blank line; no html page.
 */
static void test_renderer_table(void **state)
{
	struct countset cs = COUNTSET_INIT;
	struct triage_metrics tm;
	struct triage_verdict tv;
	struct stat_report r = { 0 };
	struct mem m;
	char *got;
	json_t *doc;

	(void)state;
	add(&cs, "task-clock", "msec", 2974623, 2974623);
	add(&cs, "cycles", NULL, 3000000, 1000);
	add(&cs, "instructions", NULL, 1000000, 1000);
	cs.elapsed_ns = 5146406;
	triage_metrics_compute(&cs, &tm);
	triage_route(&tm, &tv);
	r.counts = &cs;
	r.metrics = &tm;
	r.verdict = &tv;
	r.target = "'true'";
	r.command = "true";
	r.runs = 1;
	r.user_ns = r.sys_ns = -1;

	assert_string_equal(render_table(RENDER_STAT)->format, "text");
	assert_ptr_equal(render_find(RENDER_STAT, NULL), render_find(RENDER_STAT, "text"));
	assert_null(render_find(RENDER_STAT, "html"));
	assert_null(render_find(RENDER_STAT, "folded"));

	mem_open(&m);
	stat_text_print(m.f, &r);
	mem_close(&m);
	got = rendered("text", &r);
	assert_string_equal(got, m.buf);
	free(got);
	r.after_intervals = true;
	got = rendered("text", &r);
	assert_int_equal(got[0], '\n');
	assert_string_equal(got + 1, m.buf);
	free(got);
	free(m.buf);

	mem_open(&m);
	stat_csv_print(m.f, &cs, 1, ",");
	mem_close(&m);
	got = rendered("csv", &r);
	assert_string_equal(got, m.buf);
	assert_non_null(strstr(got, "2.97,msec,task-clock,"));
	free(got);
	free(m.buf);
	r.csv_sep = ";";
	got = rendered("csv", &r);
	assert_non_null(strstr(got, "2.97;msec;task-clock;"));
	free(got);

	got = rendered("json", &r);
	doc = json_loads(got, 0, NULL);
	assert_non_null(doc);
	assert_true(json_is_array(json_object_get(doc, "events")));
	assert_int_equal(json_array_size(json_object_get(doc, "events")), 3);
	assert_true(json_real_value(json_object_get(json_object_get(doc, "metrics"), "cpi")) == 3.0);
	json_decref(doc);
	free(got);
	countset_release(&cs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_matches_perf),
		cmocka_unit_test(test_csv_repeat_variance),
		cmocka_unit_test(test_csv_intervals),
		cmocka_unit_test(test_csv_multiplexed_and_separator),
		cmocka_unit_test(test_text_layout),
		cmocka_unit_test(test_text_repeat_and_verdict),
		cmocka_unit_test(test_text_interval_header),
		cmocka_unit_test(test_json_parses_back),
		cmocka_unit_test(test_grouping),
		cmocka_unit_test(test_renderer_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
