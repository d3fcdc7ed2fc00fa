/*
 * Unit tests of measure/series.h: how many runs -r N makes, the
 * deterministic-simulation rule (two identical simulated runs end the series,
 * with the note; PMU runs never end early) and the tree of means.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "base/countset.h"
#include "base/err.h"
#include "measure/series.h"
#include "model/model.h"
#include "model/stats.h"

/* A level-1 Ice Lake tree from its four topdown counts (each over their sum, in percent). */
static void tree(double ret, double bad, double fe, double be, struct metric_tree *t)
{
	struct countset cs = COUNTSET_INIT;
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct tdp_err err = TDP_ERR_INIT;

	cs.backend = BACKEND_IMPORT;
	assert_non_null(countset_add(&cs, "TOPDOWN.SLOTS", NULL, ret + bad + fe + be, 0));
	assert_non_null(countset_add(&cs, "topdown-retiring", NULL, ret, 0));
	assert_non_null(countset_add(&cs, "topdown-bad-spec", NULL, bad, 0));
	assert_non_null(countset_add(&cs, "topdown-fe-bound", NULL, fe, 0));
	assert_non_null(countset_add(&cs, "topdown-be-bound", NULL, be, 0));
	o.max_level = 1;
	assert_int_equal(model_evaluate(model_find("icelakex"), &cs, &o, t, &err), 0);
	model_classify(t);
	countset_release(&cs);
}

static void test_one_run(void **state)
{
	static struct metric_tree t, mean;
	struct model_runs runs = MODEL_RUNS_INIT;
	struct measure_series s;
	bool stop = false, have = true;

	(void)state;
	measure_series_init(&s, 0, true, &runs);
	assert_int_equal(s.n, 1);
	assert_int_equal(runs.requested, 1);
	tree(40, 10, 20, 30, &t);
	assert_int_equal(measure_series_add(&s, &t, &stop, NULL), 0);
	assert_true(stop);
	assert_int_equal(runs.nr, 0); /* one run has no statistics */
	assert_int_equal(measure_runs_mean(&runs, &t, &mean, &have, NULL), 0);
	assert_false(have);
	model_runs_release(&runs);
}

/* Simulated: runs 1 and 2 identical -> stop after 2, deterministic, with the note. */
static void test_deterministic_sim(void **state)
{
	static struct metric_tree t, mean;
	struct model_runs runs = MODEL_RUNS_INIT;
	struct measure_series s;
	bool stop = true, have = false;

	(void)state;
	measure_series_init(&s, 5, true, &runs);
	assert_int_equal(s.n, 5);
	assert_int_equal(runs.requested, 5);
	tree(40, 10, 20, 30, &t);
	assert_int_equal(measure_series_add(&s, &t, &stop, NULL), 0);
	assert_false(stop);
	assert_int_equal(measure_series_add(&s, &t, &stop, NULL), 0);
	assert_true(stop);
	assert_true(runs.deterministic);
	assert_non_null(runs.note);
	assert_non_null(strstr(runs.note, "deterministic"));
	assert_int_equal(measure_runs_mean(&runs, &t, &mean, &have, NULL), 0);
	assert_true(have);
	assert_int_equal(runs.nr, 2);
	model_runs_release(&runs);
}

/* The same trees from the PMU: no early stop; different simulated runs go on too. */
static void test_no_early_stop(void **state)
{
	static struct metric_tree t, u, mean;
	struct model_runs runs = MODEL_RUNS_INIT, sim = MODEL_RUNS_INIT;
	struct measure_series s, ss;
	const struct metric_node *n;
	bool stop = true, have = false;

	(void)state;
	tree(40, 10, 20, 30, &t);
	tree(50, 10, 20, 20, &u);
	measure_series_init(&s, 3, false, &runs);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(measure_series_add(&s, &t, &stop, NULL), 0);
		assert_false(stop);
	}
	assert_false(runs.deterministic);
	assert_null(runs.note);
	measure_series_init(&ss, 3, true, &sim);
	assert_int_equal(measure_series_add(&ss, &t, &stop, NULL), 0);
	assert_int_equal(measure_series_add(&ss, &u, &stop, NULL), 0);
	assert_false(stop);
	assert_false(sim.deterministic);
	assert_int_equal(measure_runs_mean(&sim, &u, &mean, &have, NULL), 0);
	assert_true(have);
	n = metric_tree_find(&mean, "retiring");
	assert_non_null(n);
	assert_true(fabs(n->value - 45.0) < 1e-9);
	model_runs_release(&runs);
	model_runs_release(&sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_run),
		cmocka_unit_test(test_deterministic_sim),
		cmocka_unit_test(test_no_early_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
