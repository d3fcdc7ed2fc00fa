/* Unit tests of base/countset: adding, group-aware lookup, scaling. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "base/countset.h"

static void test_add_find(void **state)
{
	struct countset cs = COUNTSET_INIT;
	const struct count *c;
	double v;

	(void)state;
	assert_non_null(countset_add(&cs, "ls_not_halted_cyc", NULL, 100, 0));
	assert_non_null(countset_add(&cs, "ex_ret_ops", NULL, 50, 0));
	assert_non_null(countset_add(&cs, "ls_not_halted_cyc", NULL, 200, 1));
	assert_int_equal(cs.nr, 3);
	assert_int_equal(countset_nr_groups(&cs), 2);

	c = countset_find(&cs, "LS_NOT_HALTED_CYC", 1);
	assert_non_null(c);
	assert_true(c->value == 200);
	assert_string_equal(c->unit, "");
	c = countset_find(&cs, "ls_not_halted_cyc", -1);
	assert_true(c->value == 100);
	assert_null(countset_find(&cs, "ex_ret_ops", 1));
	assert_true(countset_get(&cs, "ex.ret.ops", &v));
	assert_true(v == 50);

	cs.v[1].status = COUNT_NOT_SUPPORTED;
	assert_false(countset_get(&cs, "ex_ret_ops", &v));
	assert_false(countset_get(&cs, "nope", &v));
	countset_release(&cs);
	assert_int_equal(cs.nr, 0);
	assert_int_equal(countset_nr_groups(&cs), 0);
}

static void test_scale(void **state)
{
	double v, pct;

	(void)state;
	assert_true(count_scale(1000, 100, 100, &v, &pct));
	assert_true(v == 1000 && pct == 100);
	assert_true(count_scale(1000, 400, 100, &v, &pct));
	assert_true(v == 4000 && pct == 25);
	assert_false(count_scale(0, 100, 0, &v, &pct));
	assert_false(count_scale(0, 0, 0, &v, &pct));
}

static void test_add_oom(void **state)
{
	struct countset cs = COUNTSET_INIT;

	(void)state;
	/* The first add makes 3 allocations (array, name, unit): fail each in turn. */
	for (long n = 0; n < 3; n++) {
		tdp_alloc_fail_after(n);
		assert_null(countset_add(&cs, "x", "msec", 1, -1));
		tdp_alloc_fail_after(-1);
		assert_int_equal(cs.nr, 0);
		countset_release(&cs);
	}
	assert_non_null(countset_add(&cs, "x", "msec", 1, -1));
	assert_int_equal(cs.nr, 1);
	countset_release(&cs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_find),
		cmocka_unit_test(test_scale),
		cmocka_unit_test(test_add_oom),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
