/* Unit tests of report/fit.h: names cut with "...", paths keep their end, Rust's commit goes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "report/fit.h"

static void test_names(void **state)
{
	char buf[128];

	(void)state;
	assert_string_equal(fit_name("main", 11, buf, sizeof(buf)), "main");
	/* 18 columns of a C++ name: never cut silently */
	assert_string_equal(fit_name("perf_lab::detail::filter_impl<int>", 18, buf, sizeof(buf)), "perf_lab::detai...");
	assert_int_equal(strlen(buf), 18);
	/* UTF-8 is cut between characters, counted as one column each */
	assert_string_equal(fit_name("\xc3\xa9t\xc3\xa9_\xc3\xa9t\xc3\xa9_\xc3\xa9t\xc3\xa9", 7, buf, sizeof(buf)),
			    "\xc3\xa9t\xc3\xa9_...");
}

static void test_paths(void **state)
{
	char buf[256];
	const char *rust = "/rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/core/src/iter/range.rs:621";

	(void)state;
	assert_string_equal(fit_path(rust, 200, buf, sizeof(buf)), "/rustc/.../library/core/src/iter/range.rs:621");
	/* too long still: the end is kept, it names the file and line */
	assert_string_equal(fit_path(rust, 24, buf, sizeof(buf)), ".../iter/range.rs:621");
	assert_string_equal(fit_path("tests/e2e/workloads/wl-filter.cpp:10", 18, buf, sizeof(buf)), "wl-filter.cpp:10");
	assert_string_equal(fit_path("a/very_long_file_name_indeed.c:10", 18, buf, sizeof(buf)), "...ame_indeed.c:10");
	assert_int_equal(strlen(buf), 18);
	assert_string_equal(fit_path("src/a.c:10", 24, buf, sizeof(buf)), "src/a.c:10");
	/* not a commit: left alone */
	assert_string_equal(fit_path("/rustc/x/lib.rs", 200, buf, sizeof(buf)), "/rustc/x/lib.rs");
}

static void test_columns(void **state)
{
	(void)state;
	assert_int_equal(fit_columns(0), 80);
	assert_int_equal(fit_columns(20), FIT_MIN_COLUMNS);
	assert_int_equal(fit_columns(132), 132);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_columns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
