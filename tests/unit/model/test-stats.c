/*
 * Unit tests of model/stats: Student's t quantiles against published values,
 * intervals of known samples computed by hand, Welch differences, and per-run
 * metric trees of the Ice Lake model evaluated from known counts.
 *
 * Reference quantiles t(0.975, df): the standard table (any statistics text;
 * here checked to 12 digits with mpmath: betainc inverted by findroot).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "base/countset.h"
#include "base/err.h"
#include "model/model.h"
#include "model/stats.h"

#define near(a, b, eps) assert_true(fabs((a) - (b)) <= (eps))

static void test_t_quantiles(void **state)
{
	static const struct {
		double df, p, t;
		int line;
	} rows[] = {
		{ 1, 0.975, 12.7062047361747, __LINE__ },
		{ 2, 0.975, 4.30265272974946, __LINE__ },
		{ 3, 0.975, 3.18244630528371, __LINE__ },
		{ 4, 0.975, 2.77644510519779, __LINE__ },
		{ 5, 0.975, 2.57058183563631, __LINE__ },
		{ 9, 0.975, 2.2621571627982, __LINE__ },
		{ 10, 0.975, 2.22813885198627, __LINE__ },
		{ 29, 0.975, 2.0452296421327, __LINE__ },
		{ 30, 0.975, 2.04227245630124, __LINE__ },
		{ 100, 0.975, 1.98397151852355, __LINE__ },
		{ 1000, 0.975, 1.96233908082641, __LINE__ },
		{ 2.5, 0.975, 3.57465484200368, __LINE__ }, /* a real df, as Welch's */
		{ 7, 0.9, 1.41492392765051, __LINE__ },
		{ 4, 0.995, 4.60409487134999, __LINE__ },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		double t = stats_t_quantile(rows[i].p, rows[i].df);

		if (fabs(t - rows[i].t) > 1e-9)
			fail_msg("line %d: t(%g, %g) = %.15g, want %.15g", rows[i].line, rows[i].p, rows[i].df, t,
				 rows[i].t);
		/* symmetric, and the CDF inverts it */
		near(stats_t_quantile(1 - rows[i].p, rows[i].df), -rows[i].t, 1e-9);
		near(stats_t_cdf(rows[i].t, rows[i].df), rows[i].p, 1e-12);
	}
	/* P(T <= 1.5) with 5 df = 0.903048159878763 (mpmath) */
	near(stats_t_cdf(1.5, 5), 0.903048159878763, 1e-12);
	near(stats_t_cdf(0, 3), 0.5, 1e-15);
	assert_true(stats_t_quantile(0.5, 4) == 0);
	assert_true(isnan(stats_t_quantile(0, 4)));
	assert_true(isnan(stats_t_quantile(1, 4)));
	assert_true(isnan(stats_t_quantile(0.975, 0)));
	assert_true(isnan(stats_t_quantile(NAN, 3)));
	assert_true(isnan(stats_t_cdf(1, -1)));
}

static void test_summaries(void **state)
{
	/*
	 * 10, 12, 14: mean 12, squared deviations 4 + 0 + 4 = 8, sd = sqrt(8 / 2) = 2,
	 * sem = 2 / sqrt(3) = 1.154700538, t(0.975, 2) = 4.302652730,
	 * half = 4.968275424, interval [7.031724576, 16.968275424].
	 */
	double x[] = { 10, 12, NAN, 14 };
	double one[] = { 42 }, same[] = { 5, 5, 5, 5 };
	struct stats_summary s;

	(void)state;
	stats_summarize(x, 4, &s);
	assert_int_equal(s.n, 3); /* the NaN (a run that did not measure it) is no observation */
	near(s.mean, 12, 1e-12);
	near(s.sd, 2, 1e-12);
	near(s.sem, 1.154700538379, 1e-9);
	near(s.t, 4.30265272974946, 1e-9);
	near(s.half, 4.96827542350066, 1e-9);
	near(s.lo, 7.03172457649934, 1e-9);
	near(s.hi, 16.96827542350066, 1e-9);

	stats_summarize(one, 1, &s); /* one run: a value, no interval */
	assert_int_equal(s.n, 1);
	near(s.mean, 42, 0);
	assert_true(isnan(s.sd) && isnan(s.half) && isnan(s.lo) && isnan(s.hi));

	stats_summarize(same, 4, &s); /* identical runs: a zero-width interval */
	near(s.sd, 0, 0);
	near(s.lo, 5, 0);
	near(s.hi, 5, 0);

	stats_summarize(x, 0, &s);
	assert_int_equal(s.n, 0);
	assert_true(isnan(s.mean));

	/* the same sample given by its moments */
	stats_from_moments(3, 12, 2, &s);
	near(s.half, 4.96827542350066, 1e-9);
	stats_from_moments(3, 12, NAN, &s); /* no spread known: one value */
	assert_int_equal(s.n, 1);
	assert_true(isnan(s.lo));
}

static void test_welch(void **state)
{
	/*
	 * A = 10, 12, 14: mean 12, variance 4, n 3 -> va = 4/3.
	 * B = 20, 21, 22, 23: mean 21.5, variance (2.25 + 0.25 + 0.25 + 2.25) / 3 = 5/3,
	 * n 4 -> vb = 5/12. v = 4/3 + 5/12 = 1.75.
	 * df = 1.75^2 / ((4/3)^2 / 2 + (5/12)^2 / 3) = 3.0625 / 0.946759 = 3.234718826,
	 * t(0.975, 3.2347) = 3.055712710, half = t * sqrt(1.75) = 4.042327955.
	 */
	double a[] = { 10, 12, 14 }, b[] = { 20, 21, 22, 23 }, c[] = { 13, 14, 15 };
	struct stats_summary sa, sb, sc, one;
	struct stats_diff d;

	(void)state;
	stats_summarize(a, 3, &sa);
	stats_summarize(b, 4, &sb);
	stats_diff(&sa, &sb, &d);
	near(d.delta, 9.5, 1e-12);
	near(d.df, 3.23471882640587, 1e-9);
	near(d.half, 4.04232795492303, 1e-8);
	/* A's interval [7.03, 16.97]; B's: sd = 1.290994, half = 3.182446 * 0.645497 = 2.054260 -> [19.45, 23.55] */
	near(sb.half, 2.05426026, 1e-7);
	assert_true(stats_disjoint(&sa, &sb));
	assert_true(stats_disjoint(&sb, &sa));
	/* C = 13, 14, 15: [14 - 2.48, 14 + 2.48] overlaps A's */
	stats_summarize(c, 3, &sc);
	assert_false(stats_disjoint(&sa, &sc));
	/* one run has no interval: never "disjoint", and the difference has no half-width */
	stats_summarize(a, 1, &one);
	assert_false(stats_disjoint(&one, &sb));
	stats_diff(&one, &sb, &d);
	near(d.delta, 11.5, 1e-12);
	assert_true(isnan(d.half));
}

/*
 * One Ice Lake run from perf 5.x-style topdown counts (no correction events): each
 * level-1 node is its event over the sum of the four, in percent.
 */
static void icl_tree(double ret, double bad, double fe, double be, struct metric_tree *t)
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

static void test_runs_of_trees(void **state)
{
	/*
	 * Three runs (counts per 100 slots):  retiring  bad_spec  frontend  backend
	 *   run 1                                50        20        10        20
	 *   run 2                                48        22        10        20
	 *   run 3                                46        24        10        20
	 * means 48, 22, 10, 20 (sum 100); sd of retiring and bad_spec = 2, so their
	 * intervals are +- 4.968275 (t(0.975, 2) * 2 / sqrt(3)); frontend and backend
	 * did not move: zero-width intervals. Bad Speculation 22 > 15 is the verdict.
	 */
	static struct metric_tree t[3], mean;
	struct model_runs r = MODEL_RUNS_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	const struct stats_summary *s;
	const struct metric_node *n;

	(void)state;
	icl_tree(50, 20, 10, 20, &t[0]);
	icl_tree(48, 22, 10, 20, &t[1]);
	icl_tree(46, 24, 10, 20, &t[2]);
	for (int i = 0; i < 3; i++)
		assert_int_equal(model_runs_add(&r, &t[i], &err), 0);
	assert_int_equal(r.nr, 3);
	assert_false(model_runs_identical(&r));
	assert_int_equal(model_runs_mean(&r, &t[0], &mean, &err), 0);
	n = metric_tree_find(&mean, "retiring");
	near(n->value, 48, 1e-9);
	n = metric_tree_find(&mean, "bad_speculation");
	near(n->value, 22, 1e-9);
	assert_true(n->flagged);
	s = model_runs_find(&r, "bad_speculation");
	assert_non_null(s);
	assert_int_equal(s->n, 3);
	near(s->sd, 2, 1e-9);
	near(s->lo, 22 - 4.96827542350066, 1e-8);
	near(s->hi, 22 + 4.96827542350066, 1e-8);
	s = model_runs_find(&r, "frontend_bound");
	near(s->lo, 10, 1e-9);
	near(s->hi, 10, 1e-9);
	near(mean.level1_sum, 100, 1e-9);
	assert_false(mean.sum_off);
	assert_string_equal(mean.verdict.category, "bad_speculation");
	near(mean.verdict.value, 22, 1e-9);
	assert_null(model_runs_find(&r, "no_such_node"));

	/* a tree of another model is a caller's bug */
	{
		static struct metric_tree other;
		struct countset cs = COUNTSET_INIT;
		struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;

		assert_non_null(countset_add(&cs, "TOPDOWN.SLOTS", NULL, 100, 0));
		assert_non_null(countset_add(&cs, "topdown-retiring", NULL, 50, 0));
		assert_non_null(countset_add(&cs, "topdown-bad-spec", NULL, 10, 0));
		assert_non_null(countset_add(&cs, "topdown-fe-bound", NULL, 20, 0));
		assert_non_null(countset_add(&cs, "topdown-be-bound", NULL, 20, 0));
		o.max_level = 1;
		assert_int_equal(model_evaluate(model_find("sapphirerapids"), &cs, &o, &other, NULL), 0);
		assert_int_equal(model_runs_add(&r, &other, &err), TDP_EINVAL);
		assert_int_equal(r.nr, 3);
		countset_release(&cs);
	}
	model_runs_release(&r);
	assert_null(r.v);

	/* identical runs (a deterministic backend) */
	for (int i = 0; i < 3; i++)
		assert_int_equal(model_runs_add(&r, &t[0], &err), 0);
	assert_true(model_runs_identical(&r));
	assert_int_equal(model_runs_mean(&r, &t[0], &mean, &err), 0);
	s = model_runs_find(&r, "retiring");
	near(s->half, 0, 0);
	model_runs_release(&r);

	/* no runs */
	assert_int_equal(model_runs_mean(&r, &t[0], &mean, NULL), TDP_EINVAL);
}

static void test_runs_allocation_failure(void **state)
{
	static struct metric_tree t;
	struct model_runs r = MODEL_RUNS_INIT;

	(void)state;
	icl_tree(50, 20, 10, 20, &t);
	tdp_alloc_fail_after(0);
	assert_int_equal(model_runs_add(&r, &t, NULL), TDP_ENOMEM);
	tdp_alloc_fail_after(-1);
	assert_int_equal(r.nr, 0);
	assert_int_equal(model_runs_add(&r, &t, NULL), 0);
	model_runs_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_t_quantiles),
		cmocka_unit_test(test_summaries),
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_runs_of_trees),
		cmocka_unit_test(test_runs_allocation_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
