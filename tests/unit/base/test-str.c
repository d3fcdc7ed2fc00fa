/* Unit tests of base/str: number parsing, event-name matching, suggestions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/str.h"

static void test_u64(void **state)
{
	uint64_t v;

	(void)state;
	assert_true(str_to_u64("0", &v));
	assert_int_equal(v, 0);
	assert_true(str_to_u64("18446744073709551615", &v));
	assert_true(v == UINT64_MAX);
	assert_false(str_to_u64("18446744073709551616", &v));
	assert_true(str_to_u64("0x1A0", &v));
	assert_int_equal(v, 0x1a0);
	assert_false(str_to_u64("", &v));
	assert_false(str_to_u64("0x", &v));
	assert_false(str_to_u64("12a", &v));
	assert_false(str_to_u64("-1", &v));
	assert_false(str_to_u64(" 1", &v));
	assert_true(str_to_u64_n("123xyz", 3, &v));
	assert_int_equal(v, 123);
}

static void test_long_double(void **state)
{
	long l;
	double d;

	(void)state;
	assert_true(str_to_long("-5", -10, 10, &l));
	assert_int_equal(l, -5);
	assert_false(str_to_long("11", -10, 10, &l));
	assert_false(str_to_long("1x", -10, 10, &l));
	assert_true(str_to_double("2.5", &d));
	assert_true(d == 2.5);
	assert_false(str_to_double("nan", &d));
	assert_false(str_to_double("1e999", &d));
	assert_false(str_to_double("", &d));
}

static void test_hexval(void **state)
{
	const char *digits = "0123456789abcdef", *upper = "ABCDEF";

	(void)state;
	for (int i = 0; i < 16; i++)
		assert_int_equal(str_hexval(digits[i]), i);
	for (int i = 0; i < 6; i++)
		assert_int_equal(str_hexval(upper[i]), 10 + i);
	assert_int_equal(str_hexval('g'), -1);
	assert_int_equal(str_hexval('G'), -1);
	assert_int_equal(str_hexval('/'), -1);
	assert_int_equal(str_hexval(':'), -1);
	assert_int_equal(str_hexval('\0'), -1);
}

static void test_event_name_eq(void **state)
{
	(void)state;
	assert_true(str_event_name_eq("INT_MISC.RECOVERY_CYCLES", "int_misc:recovery_cycles"));
	assert_true(str_event_name_eq("inst_retired.any", "INST_RETIRED_ANY"));
	assert_false(str_event_name_eq("cycles", "cycle"));
	assert_false(str_event_name_eq("cycles", "cycles2"));
	assert_false(str_event_name_eq("a-b", "a_b"));
}

static void test_edit_distance(void **state)
{
	(void)state;
	assert_int_equal(str_edit_distance("cycles", "cycles"), 0);
	assert_int_equal(str_edit_distance("cyles", "cycles"), 1);
	assert_int_equal(str_edit_distance("cylces", "cycles"), 1); /* transposition */
	assert_int_equal(str_edit_distance("", "abc"), 3);
	assert_int_equal(str_edit_distance("STAT", "stat"), 0);
}

static void test_suggest(void **state)
{
	static const char *const names[] = {
		"cycles", "instructions", "branches", "branch-misses", "cache-misses", "task-clock",
	};
	size_t idx[3], n;

	(void)state;
	n = str_suggest("cyclse", names, 6, idx, 3);
	assert_true(n >= 1);
	assert_string_equal(names[idx[0]], "cycles");
	n = str_suggest("branch-mises", names, 6, idx, 3);
	assert_true(n >= 1);
	assert_string_equal(names[idx[0]], "branch-misses");
	n = str_suggest("zzzzzzzz", names, 6, idx, 3);
	assert_int_equal(n, 0);
	n = str_suggest("misses", names, 6, idx, 3);
	assert_int_equal(n, 2);
}

static void test_trim(void **state)
{
	char a[] = "  x y \n";
	char b[] = "";

	(void)state;
	assert_string_equal(str_trim(a), "x y");
	assert_string_equal(str_trim(b), "");
}

static void test_grouped(void **state)
{
	char buf[STR_GROUPED_U64_MAX], small[6], wide[64];

	(void)state;
	assert_string_equal(str_grouped_u64(0, buf, sizeof(buf)), "0");
	assert_string_equal(str_grouped_u64(999, buf, sizeof(buf)), "999");
	assert_string_equal(str_grouped_u64(1000, buf, sizeof(buf)), "1,000");
	assert_string_equal(str_grouped_u64(1234567, buf, sizeof(buf)), "1,234,567");
	assert_string_equal(str_grouped_u64(UINT64_MAX, buf, sizeof(buf)), "18,446,744,073,709,551,615");
	assert_string_equal(str_grouped_double(-1234567.256, 2, wide, sizeof(wide)), "-1,234,567.26");
	assert_string_equal(str_grouped_double(12345.678, 0, wide, sizeof(wide)), "12,346");
	assert_string_equal(str_grouped_double(-999.5, 1, wide, sizeof(wide)), "-999.5");
	assert_string_equal(str_group_digits("-inf", wide, sizeof(wide)), "-inf");
	assert_string_equal(str_group_digits("1234e5", wide, sizeof(wide)), "1,234e5");
	/* cut, never past the buffer */
	assert_string_equal(str_grouped_u64(1234567, small, sizeof(small)), "1,234");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_long_double),
		cmocka_unit_test(test_hexval),
		cmocka_unit_test(test_event_name_eq),
		cmocka_unit_test(test_edit_distance),
		cmocka_unit_test(test_suggest),
		cmocka_unit_test(test_trim),
		cmocka_unit_test(test_grouped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
