/* test-diagnose.c: unit tests of src/diagnose/ (see diagnose.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "diagnose/diagnose-internal.h"
#include "diagnose/diagnose.h"
#include "model/model.h"
#include "sim/sim.h"
#include "symbol/exe.h"

static void test_path_normalise(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "/work/main/build/../examples/branch/branch.c", "/work/main/examples/branch/branch.c" },
		{ "a/./b//c/", "a/b/c" },
		{ "../x/y", "../x/y" },
		{ "../../x", "../../x" },
		{ "/..", "/" },
		{ "/a/b/../../c", "/c" },
		{ "a/..", "." },
		{ "/", "/" },
	};
	char buf[64], tiny[4];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_non_null(symbol_path_normalise(cases[i].in, buf, sizeof(buf)));
		assert_string_equal(buf, cases[i].out);
	}
	assert_null(symbol_path_normalise("/abcdef", tiny, sizeof(tiny)));
}

static void test_sim_tree(void **state)
{
	struct sim_topdown td = { .retiring = 10, .bad_speculation = 70, .frontend_bound = 5, .backend_bound = 15 };
	struct metric_tree t;

	(void)state;
	model_tree_from_sim(&td, 6, 2, &t);
	model_classify(&t);
	assert_string_equal(t.model->name, "sim");
	assert_true(fabs(metric_tree_find(&t, "branch_mispredicts")->value - 70) < 1e-12);
	assert_true(fabs(metric_tree_find(&t, "memory_bound")->value - 15) < 1e-12);
	assert_true(fabs(metric_tree_find(&t, "fetch_latency")->value - 5) < 1e-12);
	/* what the model cannot estimate is NAN with a reason, never 0 */
	assert_true(isnan(metric_tree_find(&t, "machine_clears")->value));
	assert_true(isnan(metric_tree_find(&t, "core_bound")->value));
	assert_true(metric_tree_find(&t, "core_bound")->why[0] != '\0');
	assert_true(fabs(t.level1_sum - 100) < 1e-9);
	assert_string_equal(t.verdict.category, "bad_speculation");
	assert_string_equal(diag_category(&t), "bad_speculation");
	/* level 1 only: no level-2 node at all */
	model_tree_from_sim(&td, 6, 1, &t);
	assert_null(metric_tree_find(&t, "branch_mispredicts"));
	assert_int_equal(t.nr, 4);
}

static void test_category_rule(void **state)
{
	struct sim_topdown calm = { .retiring = 70, .bad_speculation = 1, .frontend_bound = 8, .backend_bound = 21 };
	struct sim_topdown mixed = { .retiring = 55, .bad_speculation = 30, .frontend_bound = 5, .backend_bound = 10 };
	struct metric_tree t;

	(void)state;
	struct sim_topdown near = { .retiring = 79.7, .bad_speculation = 14.5, .frontend_bound = 3, .backend_bound = 2.8 };

	/* no stall above its threshold (backend 21 <= 40): why says what topdown says, the
	 * largest stall, not Retiring */
	model_tree_from_sim(&calm, 6, 1, &t);
	model_classify(&t);
	assert_string_equal(t.verdict.category, "backend_bound");
	assert_false(t.verdict.over_threshold);
	assert_string_equal(diag_category(&t), "backend_bound");
	/* the user's case: a branch at ~15 %, Retiring 79.7 %: one verdict, Bad Speculation */
	model_tree_from_sim(&near, 6, 1, &t);
	model_classify(&t);
	assert_string_equal(t.verdict.category, "bad_speculation");
	assert_string_equal(diag_category(&t), "bad_speculation");
	/* a stall above its threshold (30 > 15) wins over a larger Retiring under its own (55 <= 80) */
	model_tree_from_sim(&mixed, 6, 1, &t);
	model_classify(&t);
	assert_string_equal(diag_category(&t), "bad_speculation");
}

static void test_kb_fix(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_true(diag_kb_fix("branch_mispredicts", "Sort or partition", &sb));
	assert_true(strncmp(sb.buf, "Sort or partition the data first", 32) == 0);
	assert_null(strchr(sb.buf, '`'));
	assert_null(strchr(sb.buf, '\n'));
	strbuf_reset(&sb);
	assert_true(diag_kb_fix("memory_bound", "linked structures", &sb));
	assert_non_null(strstr(sb.buf, "Replace linked structures by arrays"));
	strbuf_reset(&sb);
	/* no such keyword: the first bullet ("Turn the branch into a data dependency ...:" made a sentence) */
	assert_true(diag_kb_fix("branch_mispredicts", "no-such-words", &sb));
	assert_true(strncmp(sb.buf, "Turn the branch into a data dependency", 38) == 0);
	assert_int_equal(sb.buf[sb.len - 1], '.');
	strbuf_reset(&sb);
	assert_false(diag_kb_fix("no_such_node", NULL, &sb));
	strbuf_release(&sb);
}

/*
 * Two lines of one function: line 10 runs 1,000,000 branches and mispredicts 100 of
 * them; line 11 runs 100,000 and mispredicts 50,000. The generic machine (6 slots,
 * 15 cycles per mispredict, 5 of them the front end's resteer): retire = 1,100,000 / 6
 * = 183,333.3 cycles, bad_spec = 50,100 x 10 = 501,000 cycles, resteers 50,100 x 5 =
 * 250,500, no misses; cycles = 934,833.3; Bad Speculation = 53.59 %, and line 11 alone
 * 500,000 / 934,833.3 = 53.49 % of the slots.
 */
static const char profile_text[] = "desc: I1 cache: 32768 B, 64 B, 8-way associative\n"
				   "cmd: ./app\n"
				   "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim\n"
				   "fl=/src/a.c\n"
				   "fn=main\n"
				   "10 1000000 0 0 0 0 0 0 0 0 1000000 100 0 0\n"
				   "11 100000 0 0 0 0 0 0 0 0 100000 50000 0 0\n"
				   "summary: 1100000 0 0 0 0 0 0 0 0 1100000 50100 0 0\n";

/* keep: the estimate keeps its sites (sim_estimate_core_keep(), as measure/ does) and the diagnosis reads them */
static int diagnose_profile_as(struct diag *d, bool keep)
{
	struct sim_profile p;
	struct sim_machine m;
	struct sim_estimate est;
	struct sim_site *sites = NULL;
	size_t nr = 0;
	struct diag_opts o = { .level = 2, .top = 10, .cwd = "/src" };
	struct tdp_err err = TDP_ERR_INIT;
	int ret;

	sim_profile_init(&p);
	ret = sim_machine_preset(&m, "generic", &err);
	if (!ret)
		ret = sim_cachegrind_parse(&p, (const uint8_t *)profile_text, strlen(profile_text), "t", &err);
	if (!ret)
		ret = keep ? sim_estimate_core_keep(&p, &m, NULL, &est, &sites, &nr, &err) : sim_estimate(&p, &m, &est, &err);
	if (!ret) {
		assert_true(keep ? est.sites == sites && est.nr_sites == 2 : !est.sites);
		ret = diag_from_sim(d, &p, &m, &est, &o, &err);
	}
	sim_sites_free(sites);
	sim_profile_release(&p);
	return ret;
}

static int diagnose_profile(struct diag *d)
{
	return diagnose_profile_as(d, false);
}

/* The sites the estimate kept give the diagnosis that building them again gives. */
static void test_from_sim_kept_sites(void **state)
{
	struct diag a, b;

	(void)state;
	diag_init(&a);
	diag_init(&b);
	assert_int_equal(diagnose_profile_as(&a, false), 0);
	assert_int_equal(diagnose_profile_as(&b, true), 0);
	assert_string_equal(a.category, b.category);
	assert_true(a.category_value == b.category_value);
	assert_int_equal(a.nr_sites, b.nr_sites);
	for (size_t i = 0; i < a.nr_sites; i++) {
		assert_int_equal(a.sites[i].line, b.sites[i].line);
		assert_true(a.sites[i].share == b.sites[i].share);
	}
	assert_int_equal(a.nr_findings, b.nr_findings);
	assert_string_equal(a.findings[0].evidence, b.findings[0].evidence);
	assert_int_equal(a.functions.nr, b.functions.nr);
	assert_true(a.functions.v[0].cycles == b.functions.v[0].cycles);
	diag_release(&a);
	diag_release(&b);
	/* and the kept path fails cleanly when an allocation does */
	for (long n = 0, ret = -1; ret != 0 && n < 10000; n++) {
		diag_init(&b);
		tdp_alloc_fail_after(n);
		ret = diagnose_profile_as(&b, true);
		tdp_alloc_fail_after(-1);
		assert_true(ret == 0 || ret == TDP_ENOMEM);
		diag_release(&b);
	}
}

static void test_from_sim_ranks_by_mispredicts(void **state)
{
	struct diag d;

	(void)state;
	diag_init(&d);
	assert_int_equal(diagnose_profile(&d), 0);
	assert_int_equal(d.backend, BACKEND_SIM);
	assert_true(d.estimate);
	assert_int_equal(d.scope, DIAG_SCOPE_WHOLE_RUN); /* no executable given */
	assert_string_equal(d.category, "bad_speculation");
	assert_true(fabs(d.category_value - 100.0 * 501000 / (1100000 / 6.0 + 751500)) < 1e-9);
	assert_int_equal(d.drill, DIAG_DRILL_BRANCHES);
	/* the most mispredicts first, not the most executed */
	assert_int_equal(d.nr_sites, 2);
	assert_int_equal(d.sites[0].line, 11);
	assert_int_equal(d.sites[1].line, 10);
	assert_string_equal(d.sites[0].file, "a.c"); /* shown relative to cwd /src */
	assert_string_equal(d.sites[0].function, "main");
	assert_int_equal(d.sites[0].c.cond_mispredicts, 50000);
	assert_true(fabs(d.sites[0].share - 100.0 * 500000 / (1100000 / 6.0 + 751500)) < 1e-9);
	assert_false(d.has_disasm);
	assert_true(d.nr_findings >= 1);
	assert_string_equal(d.findings[0].category, "bad_speculation");
	assert_int_equal(d.findings[0].line, 11);
	assert_non_null(strstr(d.findings[0].title, "a.c:11 in main"));
	assert_non_null(strstr(d.findings[0].evidence, "50,000 of 100,000 branches"));
	assert_true(strlen(d.findings[0].fix) > 20);
	/* triage over the same counts: 50,100 mispredicts per 1,100,000 instructions */
	assert_true(fabs(d.triage.branch_mpki - 1000.0 * 50100 / 1100000) < 1e-9);
	diag_release(&d);
}

static void test_from_sim_out_of_memory(void **state)
{
	long n = 0;
	int ret;

	(void)state;
	do {
		struct diag d;

		diag_init(&d);
		tdp_alloc_fail_after(n++);
		ret = diagnose_profile(&d);
		tdp_alloc_fail_after(-1);
		assert_true(ret == 0 || ret == TDP_ENOMEM);
		diag_release(&d);
	} while (ret != 0 && n < 10000);
	assert_int_equal(ret, 0);
}

static void test_exe_missing(void **state)
{
	struct symbol_exe x;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	assert_int_equal(symbol_exe_open(&x, "/nonexistent/tdprof-no-such-exe", &err), TDP_ENOENT);
	assert_non_null(strstr(err.msg, "tdprof-no-such-exe"));
	symbol_exe_close(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_normalise),
		cmocka_unit_test(test_sim_tree),
		cmocka_unit_test(test_category_rule),
		cmocka_unit_test(test_kb_fix),
		cmocka_unit_test(test_from_sim_kept_sites),
		cmocka_unit_test(test_from_sim_ranks_by_mispredicts),
		cmocka_unit_test(test_from_sim_out_of_memory),
		cmocka_unit_test(test_exe_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
