/* Unit tests of the harness statistics: min, median, MAD, spread on samples worked by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "harness-internal.h"

static void test_odd(void **state)
{
	/* sorted: 10 11 11.5 12 12.5 13 50 -> median 12; |x-12| sorted: 0 .5 .5 1 1 2 38 -> MAD 1 */
	const double x[] = { 12, 10, 50, 11.5, 13, 12.5, 11 };
	double scratch[7];
	struct tdp_harness_stat s;

	(void)state;
	harness_stats(x, 7, scratch, &s);
	assert_true(s.min == 10);
	assert_true(s.max == 50);
	assert_true(s.median == 12);
	assert_true(s.mad == 1);
	assert_true(fabs(s.spread - 1.0 / 12) < 1e-12);
	assert_true(x[0] == 12 && x[2] == 50); /* the input is left alone */
}

static void test_even(void **state)
{
	/* sorted: 1 2 4 9 -> median (2+4)/2 = 3; |x-3|: 2 1 1 6 -> sorted 1 1 2 6 -> MAD (1+2)/2 = 1.5 */
	const double x[] = { 9, 1, 4, 2 };
	double scratch[4];
	struct tdp_harness_stat s;

	(void)state;
	harness_stats(x, 4, scratch, &s);
	assert_true(s.median == 3);
	assert_true(s.mad == 1.5);
	assert_true(s.spread == 0.5);
}

static void test_zero_median(void **state)
{
	const double x[] = { -1, 0, 1 };
	double scratch[3];
	struct tdp_harness_stat s;

	(void)state;
	harness_stats(x, 3, scratch, &s);
	assert_true(s.median == 0);
	assert_true(s.mad == 1);
	assert_true(isnan(s.spread));
}

static void test_single(void **state)
{
	double x[] = { 7 };
	double scratch[1];
	struct tdp_harness_stat s;

	(void)state;
	harness_stats(x, 1, scratch, &s);
	assert_true(s.median == 7 && s.min == 7 && s.max == 7 && s.mad == 0 && s.spread == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_odd),
		cmocka_unit_test(test_even),
		cmocka_unit_test(test_zero_median),
		cmocka_unit_test(test_single),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
