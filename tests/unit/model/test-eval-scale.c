/*
 * The evaluator's work grows linearly with the counts: perf stat --append over
 * many runs (or a hostile file) gives 262,144 rows in thousands of groups, and
 * group selection once compared every group with every count. The work is
 * counted (model_eval_opts.work), not timed, so that the test cannot fail on a
 * busy machine; the results must not change with the size.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/countset.h"
#include "base/err.h"
#include "model/model.h"

/* ngroups copies of a Zen 4 level-1 group; the last copy is the only complete one. */
static void fill(struct countset *cs, size_t ngroups)
{
	static const char *const ev[] = { "ex_ret_brn_misp", "de_src_op_disp.all", "resyncs_or_nc_redirects",
					  "ls_not_halted_cyc", "ex_ret_ops" };
	static const double val[] = { 1e6, 4e7, 2e4, 1e7, 3e7 };

	for (size_t g = 0; g < ngroups; g++)
		for (size_t e = 0; e < 5; e++) {
			/* the other groups lack ex_ret_ops: the node must find the complete one */
			if (e == 4 && g + 1 != ngroups)
				continue;
			assert_non_null(countset_add(cs, ev[e], NULL, val[e] * (g + 1 == ngroups ? 1 : 2), (int)g));
		}
	cs->backend = BACKEND_IMPORT;
}

static size_t eval_work(size_t ngroups, double *retiring, int *group)
{
	const struct model *m = model_find("zen4");
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct countset cs = COUNTSET_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	struct metric_tree t;
	size_t work = 0;

	assert_non_null(m);
	fill(&cs, ngroups);
	o.work = &work;
	assert_int_equal(model_evaluate(m, &cs, &o, &t, &err), 0);
	for (size_t i = 0; i < t.nr; i++)
		if (!strcmp(t.v[i].key, "retiring")) {
			*retiring = t.v[i].value;
			*group = t.v[i].group;
		}
	countset_release(&cs);
	return work;
}

static void test_linear(void **state)
{
	double v1 = NAN, v2 = NAN;
	int g1 = -2, g2 = -2;
	size_t w1, w2;

	(void)state;
	w1 = eval_work(4096, &v1, &g1);
	w2 = eval_work(4 * 4096, &v2, &g2);
	/* retiring = ex_ret_ops / (6 * ls_not_halted_cyc) of the complete group */
	assert_true(fabs(v1 - 50.0) < 1e-9 && fabs(v2 - 50.0) < 1e-9);
	assert_int_equal(g1, 4095);
	assert_int_equal(g2, 4 * 4096 - 1);
	/* four times the counts: about four times the work (quadratic would be sixteen) */
	if (w2 > 5 * w1 || w1 < 4096)
		fail_msg("work %zu for 4096 groups, %zu for 16384", w1, w2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linear),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
