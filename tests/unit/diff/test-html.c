/*
 * Unit tests of the HTML report (report/html.h) and of the diff renderers
 * (report/diff.h): the bars carry the JSON's numbers and exactly 10 units of
 * width per point, every string is escaped, nothing is fetched, and the diff's
 * JSON says what the comparison found.
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
#include "base/err.h"
#include "diff/diff.h"
#include "model/model.h"
#include "model/stats.h"
#include "report/diff.h"
#include "report/html.h"
#include "report/repeat.h"

static struct tdoc *doc(const char *json, const char *name)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct tdoc *d = NULL;

	if (tdoc_parse((const uint8_t *)json, strlen(json), name, &d, &err))
		fail_msg("%s: %s", name, err.msg);
	return d;
}

/* A hostile document: markup in every string a page shows. */
static const char evil[] =
	"{\"backend\": \"sim\", \"source\": \"'./a <script>alert(1)</script>'\", \"cpu\": \"zen4\","
	" \"findings\": [{\"title\": \"<img src=x onerror=alert(1)>\", \"fix\": \"a & b\"}],"
	" \"machine\": {\"name\": \"generic\", \"description\": \"\\\"quoted\\\" 'single'\"},"
	" \"level1\": {\"retiring\": 12.5, \"bad_speculation\": 62.25, \"frontend_bound\": 0.25,"
	" \"backend_bound\": 25, \"smt_contention\": null},"
	" \"level2\": {\"bad_speculation\": {\"branch_mispredicts\": 62.25, \"machine_clears\": null}},"
	" \"verdict\": {\"category\": \"bad_speculation\", \"value\": 62.25, \"next_step\": \"<b>sort</b>\"},"
	" \"sites\": [{\"file\": \"</pre><script>x()</script>.c\", \"line\": 4, \"function\": \"f<int>\","
	"   \"mispredicts\": 7}],"
	" \"notes\": [\"<style>body{display:none}</style>\"]}";

static char *render_doc(const struct tdoc *d)
{
	struct html_opts o = HTML_OPTS_INIT;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(html_print_doc(f, d, &o, NULL), 0);
	fclose(f);
	return buf;
}

/* The value of attribute name in the element that starts at tag. */
static double attr(const char *tag, const char *name)
{
	char key[64];
	const char *p, *end = strchr(tag, '>');

	snprintf(key, sizeof(key), " %s=\"", name);
	p = strstr(tag, key);
	assert_non_null(p);
	assert_true(p < end);
	return strtod(p + strlen(key), NULL);
}

static const char *bar_of(const char *html, const char *key)
{
	char needle[96];
	const char *p;

	snprintf(needle, sizeof(needle), "<rect class=\"node l");
	for (p = strstr(html, needle); p; p = strstr(p + 1, needle)) {
		char want[80];

		snprintf(want, sizeof(want), "data-key=\"%s\"", key);
		if (strstr(p, want) && strstr(p, want) < strchr(p, '>'))
			return p;
	}
	return NULL;
}

static void test_bars_are_the_json(void **state)
{
	struct tdoc *d = doc(evil, "e.json");
	char *html = render_doc(d);
	const char *b;

	(void)state;
	/* level 1 left to right: retiring at 0 (125 wide), bad_speculation at 125 (622.5), ... */
	b = bar_of(html, "retiring");
	assert_non_null(b);
	assert_true(attr(b, "x") == 0 && attr(b, "width") == 125 && attr(b, "data-value") == 12.5);
	b = bar_of(html, "bad_speculation");
	assert_true(attr(b, "x") == 125 && attr(b, "width") == 622.5 && attr(b, "data-level") == 1);
	b = bar_of(html, "frontend_bound");
	assert_true(attr(b, "x") == 747.5 && attr(b, "width") == 2.5);
	b = bar_of(html, "backend_bound");
	assert_true(attr(b, "x") == 750 && attr(b, "width") == 250);
	/* level 2 under its parent, from the parent's left edge */
	b = bar_of(html, "branch_mispredicts");
	assert_true(attr(b, "x") == 125 && attr(b, "width") == 622.5 && attr(b, "data-level") == 2);
	/* null is no bar (never a zero-width one) */
	assert_null(bar_of(html, "machine_clears"));
	assert_null(bar_of(html, "smt_contention"));
	assert_non_null(strstr(html, "Not measurable here (no bar, never 0): SMT Contention, Machine Clears."));
	assert_non_null(strstr(html, "estimate (simulated)"));
	tdoc_free(d);
	free(html);
}

static void test_everything_escaped(void **state)
{
	struct tdoc *d = doc(evil, "e.json");
	char *html = render_doc(d);

	(void)state;
	assert_null(strstr(html, "<script"));
	assert_null(strstr(html, "<img"));
	assert_null(strstr(html, "<b>sort"));
	assert_null(strstr(html, "<style>body{display:none}"));
	assert_non_null(strstr(html, "&lt;style&gt;body{display:none}"));
	assert_non_null(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	assert_non_null(strstr(html, "f&lt;int&gt;"));
	assert_non_null(strstr(html, "a &amp; b"));
	assert_non_null(strstr(html, "&quot;quoted&quot; &#39;single&#39;"));
	/* self-contained: nothing to fetch */
	assert_null(strstr(html, " src=\""));
	assert_null(strstr(html, " href=\""));
	assert_null(strstr(html, "url("));
	assert_null(strstr(html, "@import"));
	assert_non_null(strstr(html, "default-src 'none'"));
	tdoc_free(d);
	free(html);
}

#define TREE(ret, bad, fe, be)                                                                                \
	"{\"backend\": \"import\", \"cpu\": \"icelakex\", \"level1\": {\"retiring\": " #ret                   \
	", \"bad_speculation\": " #bad ", \"frontend_bound\": " #fe ", \"backend_bound\": " #be "}}"

static void test_diff_page_and_json(void **state)
{
	struct tdoc *a = doc(TREE(40, 10, 20, 30), "a.json"), *b = doc(TREE(30, 25, 15, 30), "b.json");
	struct diff_opts o = DIFF_OPTS_INIT;
	struct html_opts ho = HTML_OPTS_INIT;
	struct diff_result r;
	json_t *j, *nodes;
	json_error_t jerr;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	const char *pa, *pb;

	(void)state;
	assert_int_equal(diff_compare(a, b, &o, &r, NULL), 0);
	f = open_memstream(&buf, &len);
	assert_int_equal(html_print_diff(f, &r, &ho, NULL), 0);
	fclose(f);
	pa = strstr(buf, "id=\"tree-a\"");
	pb = strstr(buf, "id=\"tree-b\"");
	assert_non_null(pa);
	assert_non_null(pb);
	assert_true(attr(bar_of(pa, "bad_speculation"), "width") == 100);
	assert_true(attr(bar_of(pb, "bad_speculation"), "width") == 250);
	assert_non_null(strstr(buf, "Bad Speculation rose 15.0 points"));
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(diff_json_print(f, &r, NULL), 0);
	fclose(f);
	j = json_loads(buf, 0, &jerr);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "kind")), "diff");
	assert_string_equal(json_string_value(json_object_get(j, "of")), "topdown");
	assert_string_equal(json_string_value(json_object_get(j, "rule")), "noise_floor");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "verdict"), "node")),
			    "bad_speculation");
	nodes = json_object_get(j, "nodes");
	assert_int_equal(json_array_size(nodes), 4);
	assert_true(json_real_value(json_object_get(json_array_get(nodes, 1), "delta")) == 15);
	assert_true(json_is_true(json_object_get(json_array_get(nodes, 1), "flagged")));
	assert_false(json_is_true(json_object_get(json_array_get(nodes, 3), "flagged")));
	assert_string_equal(json_string_value(json_array_get(json_object_get(j, "delta_rank"), 0)),
			    "bad_speculation");
	json_decref(j);
	free(buf);

	/* a diff document read back is refused, not compared */
	{
		struct tdoc *d = NULL;
		struct tdp_err err = TDP_ERR_INIT;

		buf = NULL;
		f = open_memstream(&buf, &len);
		assert_int_equal(diff_json_print(f, &r, NULL), 0);
		fclose(f);
		assert_int_equal(tdoc_parse((const uint8_t *)buf, len, "d.json", &d, &err), TDP_EFORMAT);
		assert_string_equal(err.msg, "'d.json' is the output of 'tdprof diff'");
		free(buf);
	}
	diff_result_release(&r);
	tdoc_free(a);
	tdoc_free(b);
}

static int write_doc(FILE *out, const void *arg, struct tdp_err *err)
{
	(void)err;
	return fputs(arg, out) < 0 ? TDP_EIO : 0;
}

static void test_from_a_json_renderer(void **state)
{
	struct html_opts o = HTML_OPTS_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(html_print_json(f, write_doc, TREE(40, 10, 20, 30), "t.json", &o, &err), 0);
	fclose(f);
	assert_true(attr(bar_of(buf, "backend_bound"), "x") == 700);
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(html_print_json(f, write_doc, "not json", "t.json", &o, &err), TDP_EFORMAT);
	fclose(f);
	free(buf);
}


/* One Ice Lake run: each level-1 node is its topdown event over the four's sum. */
static void icl_tree(double ret, double bad, double fe, double be, struct metric_tree *t)
{
	struct countset cs = COUNTSET_INIT;
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;

	assert_non_null(countset_add(&cs, "TOPDOWN.SLOTS", NULL, ret + bad + fe + be, 0));
	assert_non_null(countset_add(&cs, "topdown-retiring", NULL, ret, 0));
	assert_non_null(countset_add(&cs, "topdown-bad-spec", NULL, bad, 0));
	assert_non_null(countset_add(&cs, "topdown-fe-bound", NULL, fe, 0));
	assert_non_null(countset_add(&cs, "topdown-be-bound", NULL, be, 0));
	o.max_level = 1;
	assert_int_equal(model_evaluate(model_find("icelakex"), &cs, &o, t, NULL), 0);
	countset_release(&cs);
}

static void test_repeat_json_round_trip(void **state)
{
	/*
	 * Three runs: bad_speculation 20, 22, 24 (mean 22, sd 2, interval 22 -+ 4.968275),
	 * retiring 50, 48, 46 (the same spread), frontend 10 and backend 20 every time.
	 * The JSON holds them; a document read back (diff/doc.h) gives the same intervals.
	 */
	static struct metric_tree t[3], mean;
	struct model_runs r = MODEL_RUNS_INIT;
	json_t *doc = json_object(), *l1 = json_object(), *ci;
	bool failed = false;
	char *text;
	struct tdoc *d = NULL;

	(void)state;
	icl_tree(50, 20, 10, 20, &t[0]);
	icl_tree(48, 22, 10, 20, &t[1]);
	icl_tree(46, 24, 10, 20, &t[2]);
	for (int i = 0; i < 3; i++)
		assert_int_equal(model_runs_add(&r, &t[i], NULL), 0);
	r.requested = 5;
	assert_int_equal(model_runs_mean(&r, &t[0], &mean, NULL), 0);
	for (size_t i = 0; i < mean.nr; i++)
		json_object_set_new(l1, mean.v[i].key, json_real(mean.v[i].value));
	json_object_set_new(doc, "backend", json_string("pmu"));
	json_object_set_new(doc, "level1", l1);
	repeat_json_put(doc, &r, &mean, &failed);
	assert_false(failed);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "repeat"), "runs")), 3);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "repeat"), "requested")), 5);
	assert_int_equal(json_array_size(json_object_get(doc, "runs")), 3);
	assert_true(fabs(json_real_value(json_object_get(json_object_get(json_array_get(json_object_get(doc, "runs"), 1),
									      "level1"), "bad_speculation")) - 22) < 1e-9);
	ci = json_object_get(json_object_get(json_object_get(doc, "ci95"), "level1"), "bad_speculation");
	assert_true(fabs(json_real_value(json_array_get(ci, 0)) - (22 - 4.96827542350066)) < 1e-9);
	assert_true(fabs(json_real_value(json_array_get(ci, 1)) - (22 + 4.96827542350066)) < 1e-9);
	ci = json_object_get(json_object_get(json_object_get(doc, "ci95"), "level1"), "frontend_bound");
	assert_true(json_real_value(json_array_get(ci, 0)) == json_real_value(json_array_get(ci, 1)));
	assert_true(fabs(json_real_value(json_object_get(json_object_get(json_object_get(doc, "stddev"), "level1"),
							 "retiring")) - 2) < 1e-12);
	text = json_dumps(doc, JSON_REAL_PRECISION(17));
	assert_non_null(text);
	assert_int_equal(tdoc_parse((const uint8_t *)text, strlen(text), "r.json", &d, NULL), 0);
	assert_int_equal(d->runs, 3);
	assert_int_equal(d->runs_requested, 5);
	assert_true(fabs(tdoc_find(d, "bad_speculation")->s.lo - (22 - 4.96827542350066)) < 1e-9);
	assert_true(fabs(tdoc_find(d, "retiring")->s.hi - (48 + 4.96827542350066)) < 1e-9);
	tdoc_free(d);
	free(text);
	json_decref(doc);
	model_runs_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bars_are_the_json),
		cmocka_unit_test(test_everything_escaped),
		cmocka_unit_test(test_diff_page_and_json),
		cmocka_unit_test(test_from_a_json_renderer),
		cmocka_unit_test(test_repeat_json_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
