/*
 * Unit tests of diff/diff: nodes flagged by the noise floor or by their intervals
 * (hand-computed), the ranking, sites and edges of two builds paired without
 * their addresses, the verdict's words, and documents refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "diff/diff.h"

#define near(a, b, eps) assert_true(fabs((a) - (b)) <= (eps))

static struct tdoc *doc(const char *json, const char *name)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct tdoc *d = NULL;

	if (tdoc_parse((const uint8_t *)json, strlen(json), name, &d, &err))
		fail_msg("%s: %s", name, err.msg);
	return d;
}

static const struct diff_node *node(const struct diff_result *r, const char *key)
{
	for (size_t i = 0; i < r->nr_nodes; i++)
		if (!strcmp(r->nodes[i].key, key))
			return &r->nodes[i];
	fail_msg("no node %s", key);
	return NULL;
}

#define TREE(ret, bad, fe, be, bm, mc)                                                                       \
	"{\"backend\": \"import\", \"cpu\": \"icelakex\", \"level1\": {\"retiring\": " #ret                   \
	", \"bad_speculation\": " #bad ", \"frontend_bound\": " #fe ", \"backend_bound\": " #be "},"          \
	" \"level2\": {\"bad_speculation\": {\"branch_mispredicts\": " #bm ", \"machine_clears\": " #mc "}}}"

static void test_single_runs_noise_floor(void **state)
{
	/*
	 * A: 40 / 10 / 20 / 30, branch_mispredicts 9, machine_clears 1
	 * B: 30 / 25 / 16.5 / 28.5, branch_mispredicts 24, machine_clears 1
	 * changes: retiring -10, bad_speculation +15, frontend -3.5, backend -1.5 (within the
	 * 2-point floor), branch_mispredicts +15, machine_clears 0.
	 */
	struct tdoc *a = doc(TREE(40, 10, 20, 30, 9, 1), "a.json");
	struct tdoc *b = doc(TREE(30, 25, 16.5, 28.5, 24, 1), "b.json");
	struct diff_opts o = DIFF_OPTS_INIT;
	struct diff_result r;

	(void)state;
	assert_int_equal(diff_check(a, b, NULL), 0);
	assert_int_equal(diff_compare(a, b, &o, &r, NULL), 0);
	assert_int_equal(r.rule, DIFF_RULE_NOISE_FLOOR);
	assert_int_equal(r.nr_nodes, 6);
	near(node(&r, "retiring")->delta, -10, 1e-12);
	assert_true(node(&r, "retiring")->flagged);
	near(node(&r, "frontend_bound")->delta, -3.5, 1e-12);
	assert_true(node(&r, "frontend_bound")->flagged);
	near(node(&r, "backend_bound")->delta, -1.5, 1e-12);
	assert_false(node(&r, "backend_bound")->flagged);
	assert_true(isnan(node(&r, "backend_bound")->half));
	assert_false(node(&r, "machine_clears")->flagged);
	/* ranked by |change|: +15, +15 (tree order), -10, -3.5, -1.5, 0 */
	assert_int_equal(r.nr_rank, 6);
	assert_string_equal(r.nodes[r.rank[0]].key, "bad_speculation");
	assert_string_equal(r.nodes[r.rank[1]].key, "branch_mispredicts");
	assert_string_equal(r.nodes[r.rank[2]].key, "retiring");
	assert_string_equal(r.nodes[r.rank[5]].key, "machine_clears");
	/* the verdict: a stall that rose, its child */
	assert_string_equal(r.verdict.node->key, "bad_speculation");
	assert_string_equal(r.verdict.child->key, "branch_mispredicts");
	assert_string_equal(r.verdict.text, "Bad Speculation rose 15.0 points (single runs: beyond the 2.0-point "
					    "noise floor): branch_mispredicts +15.0.");
	diff_result_release(&r);

	/* a floor of 20 points: nothing moved */
	o.noise_floor = 20;
	assert_int_equal(diff_compare(a, b, &o, &r, NULL), 0);
	assert_null(r.verdict.node);
	assert_string_equal(r.verdict.text, "No level-1 node moved beyond the noise: the largest change is Bad "
					    "Speculation, +15.0 points (within the 20.0-point noise floor).");
	diff_result_release(&r);
	tdoc_free(a);
	tdoc_free(b);
}

/* Runs of bad_speculation and retiring (the two other nodes constant). */
static char *runs_doc(const double *bad, const double *ret, size_t n)
{
	static char buf[4096];
	double mb = 0, mr = 0;
	size_t at;

	for (size_t i = 0; i < n; i++) {
		mb += bad[i] / (double)n;
		mr += ret[i] / (double)n;
	}
	at = (size_t)snprintf(buf, sizeof(buf),
			      "{\"backend\": \"pmu\", \"cpu\": \"zen4\", \"level1\": {\"retiring\": %.17g, "
			      "\"bad_speculation\": %.17g}, \"runs\": [", mr, mb);
	for (size_t i = 0; i < n; i++)
		at += (size_t)snprintf(buf + at, sizeof(buf) - at,
				       "%s{\"level1\": {\"retiring\": %.17g, \"bad_speculation\": %.17g}}", i ? ", " : "",
				       ret[i], bad[i]);
	snprintf(buf + at, sizeof(buf) - at, "]}");
	return buf;
}

static void test_intervals(void **state)
{
	/*
	 * bad_speculation: A = 10, 12, 14 (mean 12, interval 12 -+ 4.968 = [7.03, 16.97]);
	 *                  B = 20, 21, 22, 23 (mean 21.5, sd 1.291, interval 21.5 -+ 2.054 = [19.45, 23.55]):
	 *                  disjoint; change +9.5 -+ 4.0423 (Welch, df 3.2347: see test-stats.c).
	 * retiring:        A = 50, 52, 54; B = 51, 52, 53, 54 (+0.5): the intervals overlap.
	 * A deterministic pair (every run equal on both sides) falls back to the noise floor.
	 */
	double ab[] = { 10, 12, 14 }, ar[] = { 50, 52, 54 }, bb[] = { 20, 21, 22, 23 }, br[] = { 51, 52, 53, 54 };
	double same_a[] = { 10, 10, 10 }, same_b[] = { 11, 11, 11 }, same_r[] = { 50, 50, 50 };
	struct tdoc *a = doc(runs_doc(ab, ar, 3), "a.json"), *b = doc(runs_doc(bb, br, 4), "b.json");
	struct diff_opts o = DIFF_OPTS_INIT;
	struct diff_result r;
	const struct diff_node *n;

	(void)state;
	assert_int_equal(diff_compare(a, b, &o, &r, NULL), 0);
	assert_int_equal(r.rule, DIFF_RULE_INTERVALS);
	n = node(&r, "bad_speculation");
	assert_int_equal(n->rule, DIFF_RULE_INTERVALS);
	near(n->delta, 9.5, 1e-9);
	near(n->half, 4.04232795492303, 1e-8);
	assert_true(n->flagged);
	n = node(&r, "retiring");
	near(n->delta, 0.5, 1e-9);
	assert_false(n->flagged);
	assert_string_equal(r.verdict.text, "Bad Speculation rose 9.5 points (\u00b14.0).");
	diff_result_release(&r);
	tdoc_free(a);
	tdoc_free(b);

	a = doc(runs_doc(same_a, same_r, 3), "a.json");
	b = doc(runs_doc(same_b, same_r, 3), "b.json");
	assert_int_equal(diff_compare(a, b, &o, &r, NULL), 0);
	n = node(&r, "bad_speculation");
	assert_int_equal(n->rule, DIFF_RULE_NOISE_FLOOR); /* zero-width on both sides: the floor decides */
	assert_false(n->flagged);                         /* +1 < 2 points */
	diff_result_release(&r);
	tdoc_free(a);
	tdoc_free(b);
}

/*
 * Two builds of one program: B's code sits 0x40 bytes later; parse_token's hot
 * branch (parse.c:212) went from 100 to 141 mispredicts (+41 %) and so overtook
 * main's (120 in both) as the site with the most; helper's branch is in A only, init's in B only; an unresolved kernel address
 * is in both. B's file names are in another directory.
 */
static const char sites_a[] =
	"{\"backend\": \"import\", \"cpu\": \"x\", \"branch_entries\": 1000, \"mispredicted_entries\": 170,"
	" \"sites\": ["
	"  {\"address\": \"0x401200\", \"function\": \"main\", \"offset\": 16, \"file\": \"/a/main.c\", \"line\": 7,"
	"   \"executions\": 500, \"mispredicts\": 120},"
	"  {\"address\": \"0x401136\", \"function\": \"parse_token\", \"offset\": 22, \"file\": \"/a/parse.c\","
	"   \"line\": 212, \"executions\": 900, \"mispredicts\": 100},"
	"  {\"address\": \"0x401300\", \"function\": \"helper\", \"offset\": 4, \"executions\": 30, \"mispredicts\": 15},"
	"  {\"address\": \"0xffffffff81000010\", \"function\": null, \"executions\": 9, \"mispredicts\": 5}],"
	" \"edges\": ["
	"  {\"from\": \"0x401136\", \"to\": \"0x401120\", \"from_symbol\": \"[.] parse_token\","
	"   \"to_symbol\": \"[.] parse_token\", \"count\": 900, \"mispredicts\": 100},"
	"  {\"from\": \"0x401200\", \"to\": \"0x401136\", \"from_symbol\": \"[.] main\","
	"   \"to_symbol\": \"[.] parse_token\", \"count\": 40, \"mispredicts\": 0}]}";

static const char sites_b[] =
	"{\"backend\": \"import\", \"cpu\": \"x\", \"branch_entries\": 1100, \"mispredicted_entries\": 206,"
	" \"sites\": ["
	"  {\"address\": \"0x401176\", \"function\": \"parse_token\", \"offset\": 22, \"file\": \"/b/parse.c\","
	"   \"line\": 212, \"executions\": 900, \"mispredicts\": 141},"
	"  {\"address\": \"0x401240\", \"function\": \"main\", \"offset\": 16, \"file\": \"/b/main.c\", \"line\": 7,"
	"   \"executions\": 500, \"mispredicts\": 120},"
	"  {\"address\": \"0x401400\", \"function\": \"init\", \"offset\": 8, \"executions\": 20, \"mispredicts\": 10},"
	"  {\"address\": \"0xffffffff81000010\", \"function\": null, \"executions\": 9, \"mispredicts\": 5}],"
	" \"edges\": ["
	"  {\"from\": \"0x401176\", \"to\": \"0x401160\", \"from_symbol\": \"[.] parse_token\","
	"   \"to_symbol\": \"[.] parse_token\", \"count\": 900, \"mispredicts\": 141},"
	"  {\"from\": \"0x401240\", \"to\": \"0x401176\", \"from_symbol\": \"[.] main\","
	"   \"to_symbol\": \"[.] parse_token\", \"count\": 40, \"mispredicts\": 0}]}";

static const struct diff_site *site_named(const struct diff_result *r, const char *fn)
{
	for (size_t i = 0; i < r->nr_sites; i++) {
		const struct tdoc_site *s = r->sites[i].b ? r->sites[i].b : r->sites[i].a;

		if (s->function && !strcmp(s->function, fn))
			return &r->sites[i];
	}
	fail_msg("no site in %s", fn);
	return NULL;
}

static void test_sites_of_shifted_builds(void **state)
{
	struct tdoc *a = doc(sites_a, "a.json"), *b = doc(sites_b, "b.json");
	struct diff_opts o = DIFF_OPTS_INIT;
	struct diff_result r;
	const struct diff_site *s;

	(void)state;
	assert_int_equal(diff_check(a, b, NULL), 0);
	assert_int_equal(diff_compare(a, b, &o, &r, NULL), 0);
	assert_string_equal(r.measure, "mispredicts");
	assert_int_equal(r.nr_sites, 5);
	assert_int_equal(r.sites_matched, 3);
	assert_int_equal(r.sites_only_a, 1);
	assert_int_equal(r.sites_only_b, 1);
	/* parse.c:212: matched by location across directories, at another address */
	s = site_named(&r, "parse_token");
	assert_int_equal(s->how, DIFF_MATCH_LOCATION);
	assert_int_equal(s->a->address, 0x401136);
	assert_int_equal(s->b->address, 0x401176);
	near(s->delta, 41, 0);
	near(s->pct, 41, 1e-12);
	/* ranked first: the largest change (+41), then helper (-15), init (+10), then 0, 0 */
	assert_ptr_equal(&r.sites[0], s);
	assert_string_equal(r.sites[1].a->function, "helper");
	assert_int_equal(r.sites[1].how, DIFF_ONLY_A);
	near(r.sites[1].delta, -15, 0);
	assert_string_equal(r.sites[2].b->function, "init");
	assert_int_equal(r.sites[2].how, DIFF_ONLY_B);
	assert_true(isnan(r.sites[2].pct));
	s = site_named(&r, "main");
	assert_int_equal(s->how, DIFF_MATCH_LOCATION);
	near(s->delta, 0, 0);
	/* the kernel address: unresolved on both sides, matched by address */
	assert_int_equal(r.sites[4].how == DIFF_MATCH_ADDRESS || r.sites[3].how == DIFF_MATCH_ADDRESS, 1);
	/* edges by function+offset: parse_token+0x16 -> parse_token+0x0, main+0x10 -> parse_token+0x16 */
	assert_int_equal(r.nr_edges, 2);
	assert_int_equal(r.edges_matched, 2);
	assert_int_equal(r.edges[0].how, DIFF_MATCH_OFFSET);
	near(r.edges[0].delta, 41, 0);
	/* the verdict: B's site with the most mispredicts was not A's */
	assert_ptr_equal(r.verdict.top, &r.sites[0]);
	assert_true(r.verdict.top_is_new);
	assert_string_equal(r.verdict.text, "Mispredicted branch entries rose from 170 to 206 (+21 %); the new top "
					    "site is parse.c:212 in parse_token, +41 % mispredicts (100 to 141).");
	diff_result_release(&r);
	tdoc_free(a);
	tdoc_free(b);
}

static void test_offsets_without_lines(void **state)
{
	/* no debug info: function+offset pairs them; the same line numbers in other functions do not */
	static const char ja[] =
		"{\"findings\": [], \"backend\": \"sim\", \"level1\": {\"bad_speculation\": 5},"
		" \"verdict\": {\"category\": \"bad_speculation\"}, \"sites\": ["
		"  {\"function\": \"f\", \"symbol\": \"f+0x10\", \"mispredicts\": 10},"
		"  {\"function\": \"g\", \"file\": \"x.c\", \"line\": 5, \"mispredicts\": 4}]}";
	static const char jb[] =
		"{\"findings\": [], \"backend\": \"sim\", \"level1\": {\"bad_speculation\": 5},"
		" \"verdict\": {\"category\": \"bad_speculation\"}, \"sites\": ["
		"  {\"function\": \"g2\", \"file\": \"x.c\", \"line\": 5, \"mispredicts\": 4},"
		"  {\"function\": \"f\", \"symbol\": \"f+0x10\", \"mispredicts\": 12}]}";
	struct tdoc *a = doc(ja, "a.json"), *b = doc(jb, "b.json");
	struct diff_opts o = DIFF_OPTS_INIT;
	struct diff_result r;
	const struct diff_site *s;

	(void)state;
	assert_int_equal(diff_compare(a, b, &o, &r, NULL), 0);
	s = site_named(&r, "f");
	assert_int_equal(s->how, DIFF_MATCH_OFFSET);
	near(s->pct, 20, 1e-12);
	assert_int_equal(r.sites_matched, 1); /* x.c:5 in g and in g2 are different sites */
	assert_string_equal(r.verdict.text, "No level-1 node moved beyond the noise: the largest change is Bad "
					    "Speculation, +0.0 points (within the 2.0-point noise floor); the top site "
					    "is still f+0x10, +20 % mispredicts (10 to 12).");
	diff_result_release(&r);
	tdoc_free(a);
	tdoc_free(b);
}

static void test_measures(void **state)
{
	static const char ja[] =
		"{\"findings\": [], \"verdict\": {\"category\": \"backend_bound\"}, \"sites\": ["
		" {\"file\": \"m.c\", \"line\": 3, \"executions\": 5, \"l1d_misses\": 9, \"ll_misses\": 7}]}";
	static const char jr[] =
		"{\"findings\": [], \"verdict\": {\"category\": \"retiring\"}, \"sites\": ["
		" {\"file\": \"m.c\", \"line\": 3, \"executions\": 5, \"instructions\": 90}]}";
	struct tdoc *a = doc(ja, "a.json"), *b = doc(jr, "b.json");

	(void)state;
	assert_string_equal(diff_site_measure(a, a, NULL), "ll_misses");
	assert_string_equal(diff_site_measure(a, a, "bad_speculation"), "executions"); /* none of its: the first */
	assert_string_equal(diff_site_measure(b, b, NULL), "instructions");
	tdoc_free(a);
	tdoc_free(b);
}

static void test_refused(void **state)
{
	struct tdoc *td = doc(TREE(40, 10, 20, 30, 9, 1), "td.json");
	struct tdoc *why = doc("{\"findings\": [], \"backend\": \"import\", \"cpu\": \"icelakex\"}", "why.json");
	struct tdoc *zen = doc("{\"backend\": \"import\", \"cpu\": \"zen4\", \"level1\": {}}", "zen.json");
	struct tdoc *sim = doc("{\"backend\": \"sim\", \"cpu\": \"icelakex\", \"level1\": {}}", "sim.json");
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	assert_int_equal(diff_check(td, why, &err), TDP_EUSAGE);
	assert_string_equal(err.msg, "cannot compare 'td.json' with 'why.json': a 'topdown' document with a 'why' "
				     "document");
	tdp_err_clear(&err);
	assert_int_equal(diff_check(td, zen, &err), TDP_EUSAGE);
	assert_string_equal(err.msg, "cannot compare 'td.json' with 'zen.json': they come from different models "
				     "('icelakex' and 'zen4')");
	tdp_err_clear(&err);
	assert_int_equal(diff_check(td, sim, &err), TDP_EUSAGE);
	assert_string_equal(err.msg, "cannot compare 'td.json' with 'sim.json': they come from different backends "
				     "('import' and 'sim')");
	assert_non_null(strstr(err.hint, "--backend="));
	tdoc_free(td);
	tdoc_free(why);
	tdoc_free(zen);
	tdoc_free(sim);
}

static void test_allocation_failures(void **state)
{
	struct tdoc *a = doc(sites_a, "a.json"), *b = doc(sites_b, "b.json");
	struct diff_opts o = DIFF_OPTS_INIT;
	struct diff_result r;
	long n;

	(void)state;
	tdp_alloc_fail_after(-1);
	assert_int_equal(diff_compare(a, b, &o, &r, NULL), 0);
	diff_result_release(&r);
	n = tdp_alloc_fail_after(-1);
	for (long i = 0; i < n + 2; i++) {
		int ret;

		tdp_alloc_fail_after(i);
		ret = diff_compare(a, b, &o, &r, NULL);
		tdp_alloc_fail_after(-1);
		if (ret)
			assert_int_equal(ret, TDP_ENOMEM);
		else
			diff_result_release(&r);
	}
	tdoc_free(a);
	tdoc_free(b);
}

/* Why documents with their cycles: the fix that shrinks the run leads, not the share that rose (issue 16). */
#define WHY(scope, cycles, ret, bad, fe, be)                                                                \
	"{\"backend\": \"sim\", \"scope\": {\"kind\": \"" scope "\"}, \"counts\": {\"cycles\": " #cycles "},"    \
	" \"findings\": [], \"level1\": {\"retiring\": " #ret ", \"bad_speculation\": " #bad                      \
	", \"frontend_bound\": " #fe ", \"backend_bound\": " #be "},"                                              \
	" \"level2\": {\"frontend_bound\": {\"fetch_latency\": " #fe "}, \"backend_bound\": {\"memory_bound\": " #be "}}}"

static void test_cycles_lead_and_scopes(void **state)
{
	/*
	 * A: 100 M cycles, Bad Speculation 85 % (85 M), Backend 5 % (5 M).
	 * B: 20 M cycles, Bad Speculation 5 % (1 M), Backend 20 % (4 M): Backend's share rose 15
	 * points while its cycles fell; Bad Speculation fell 84 M cycles and leads.
	 */
	struct tdoc *a = doc(WHY("program", 100000000, 10, 85, 0, 5), "a.json");
	struct tdoc *b = doc(WHY("whole_run", 20000000, 75, 5, 0, 20), "b.json");
	struct diff_opts o = DIFF_OPTS_INIT;
	struct diff_result r;
	size_t order[2 * TDOC_MAX_NODES];
	int depth[2 * TDOC_MAX_NODES];

	(void)state;
	assert_int_equal(diff_compare(a, b, &o, &r, NULL), 0);
	assert_true(r.verdict.by_cycles);
	assert_string_equal(r.verdict.node->key, "bad_speculation");
	near(node(&r, "bad_speculation")->cycles_delta, -84e6, 1);
	near(node(&r, "backend_bound")->cycles_delta, -1e6, 1);
	assert_true(r.verdict.scopes_differ);
	assert_non_null(strstr(r.verdict.text, "The scopes differ (A: the program's own code, B: the whole run"));
	assert_non_null(strstr(r.verdict.text, "Bad Speculation fell 80.0 points"));
	assert_non_null(strstr(r.verdict.text, "the largest change in cycles"));
	/* the tree in order: children right under their parent */
	assert_int_equal(diff_node_order(&r, order, depth), r.nr_nodes);
	for (size_t i = 0; i < r.nr_nodes; i++)
		if (r.nodes[order[i]].parent)
			assert_string_equal(r.nodes[order[i - 1]].key, r.nodes[order[i]].parent);
	diff_result_release(&r);
	tdoc_free(a);
	tdoc_free(b);
}

static void test_change_words(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	diff_change_words(0, 163997, &sb);
	assert_string_equal(sb.buf, "new"); /* never "+16399669 %" */
	strbuf_reset(&sb);
	diff_change_words(1000, 1410, &sb);
	assert_string_equal(sb.buf, "+41 %");
	strbuf_reset(&sb);
	diff_change_words(5, 0, &sb);
	assert_string_equal(sb.buf, "gone");
	strbuf_reset(&sb);
	diff_change_words(0, 0, &sb);
	assert_int_equal(sb.len, 0);
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_runs_noise_floor),
		cmocka_unit_test(test_intervals),
		cmocka_unit_test(test_sites_of_shifted_builds),
		cmocka_unit_test(test_offsets_without_lines),
		cmocka_unit_test(test_measures),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_cycles_lead_and_scopes),
		cmocka_unit_test(test_change_words),
		cmocka_unit_test(test_allocation_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
