/*
 * test-match.c: which function `tdprof annotate NAME` means (annot/annot.h:
 * annot_name_matches(), annot_funcs_rank(), annot_select()).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "annot/annot.h"

static void names(void **state)
{
	(void)state;
	assert_true(annot_name_matches("main", "main", NULL));
	assert_true(annot_name_matches("ns::f(int)", "ns::f", NULL));
	assert_true(annot_name_matches("ns::f(int) const", "ns::f", NULL));
	assert_true(annot_name_matches("ns::f(int)", "ns::f(int)", NULL));
	assert_false(annot_name_matches("ns::ff(int)", "ns::f", NULL));
	assert_false(annot_name_matches("ns::f2", "ns::f", NULL));
	assert_false(annot_name_matches("main", "mai", NULL));
	assert_false(annot_name_matches("main", "", NULL));
	assert_false(annot_name_matches(NULL, "main", NULL));
	/* a mangled name by its demangled form */
	assert_true(annot_name_matches("ns::f(int)", "_ZN2ns1fEi", "ns::f(int)"));
	assert_false(annot_name_matches("ns::f(double)", "_ZN2ns1fEi", "ns::f(int)"));
}

static struct annot_func fn(const char *name, const char *dso, uint64_t count, uint64_t misp, bool preferred)
{
	return (struct annot_func){ .name = name, .dso = dso, .addr = 0x1000 + count, .count = count,
				    .mispredicts = misp, .preferred = preferred };
}

static void ranking(void **state)
{
	struct annot_func v[] = {
		fn("a", "/bin/x", 10, 5, true), fn("b", "/bin/x", 50, 1, true), fn("c", "/lib/libc.so.6", 30, 9, false),
	};

	(void)state;
	annot_funcs_rank(v, 3, true);
	assert_string_equal(v[0].name, "c");
	assert_string_equal(v[1].name, "a");
	annot_funcs_rank(v, 3, false);
	assert_string_equal(v[0].name, "b");
	assert_string_equal(v[2].name, "a");
}

static void select_hottest(void **state)
{
	struct annot_func v[] = {
		fn("memcpy", "/lib/libc.so.6", 900, 0, false), fn("work", "/bin/x", 100, 0, true),
		fn("idle", "/bin/x", 0, 0, true),
	};
	size_t chosen, listed[ANNOT_MAX_LISTED], n;

	(void)state;
	assert_int_equal(annot_select(v, 3, NULL, NULL, false, &chosen, listed, &n), ANNOT_SEL_ONE);
	assert_int_equal(chosen, 0);
	/* preferring the program's own code */
	assert_int_equal(annot_select(v, 3, NULL, NULL, true, &chosen, listed, &n), ANNOT_SEL_ONE);
	assert_int_equal(chosen, 1);
	/* nothing with counts */
	assert_int_equal(annot_select(v + 2, 1, NULL, NULL, true, &chosen, listed, &n), ANNOT_SEL_EMPTY);
	assert_int_equal(chosen, ANNOT_NONE);
	assert_int_equal(n, 0);
}

static void select_by_name(void **state)
{
	struct annot_func v[] = {
		fn("ns::f(int)", "/bin/x", 30, 3, true), fn("ns::f(double)", "/bin/x", 20, 2, true),
		fn("ns::g()", "/bin/x", 10, 1, true),      fn("helper", "/bin/x", 5, 0, true),
		fn("helper", "/lib/liby.so", 4, 0, false), fn("quiet", "/bin/x", 0, 0, true),
	};
	size_t chosen, listed[ANNOT_MAX_LISTED], n;

	(void)state;
	assert_int_equal(annot_select(v, 6, "ns::f", NULL, false, &chosen, listed, &n), ANNOT_SEL_AMBIGUOUS);
	assert_int_equal(n, 2);
	assert_int_equal(listed[0], 0);
	assert_int_equal(listed[1], 1);
	assert_int_equal(annot_select(v, 6, "ns::f(double)", NULL, false, &chosen, listed, &n), ANNOT_SEL_ONE);
	assert_int_equal(chosen, 1);
	/* the mangled name of ns::f(double) */
	assert_int_equal(annot_select(v, 6, "_ZN2ns1fEd", NULL, false, &chosen, listed, &n), ANNOT_SEL_ONE);
	assert_int_equal(chosen, 1);
	/* two binaries: --dso by path or file name */
	assert_int_equal(annot_select(v, 6, "helper", NULL, false, &chosen, listed, &n), ANNOT_SEL_AMBIGUOUS);
	assert_int_equal(annot_select(v, 6, "helper", "liby.so", false, &chosen, listed, &n), ANNOT_SEL_ONE);
	assert_int_equal(chosen, 4);
	assert_int_equal(annot_select(v, 6, "helper", "/bin/x", false, &chosen, listed, &n), ANNOT_SEL_ONE);
	assert_int_equal(chosen, 3);
	assert_int_equal(annot_select(v, 6, "helper", "x.so", false, &chosen, listed, &n), ANNOT_SEL_NONE);
	/* a function without counts can still be named */
	assert_int_equal(annot_select(v, 6, "quiet", NULL, false, &chosen, listed, &n), ANNOT_SEL_ONE);
	assert_int_equal(chosen, 5);
}

static void suggestions(void **state)
{
	struct annot_func v[] = {
		fn("branchy", "/bin/x", 30, 3, true), fn("chase", "/bin/x", 20, 2, true), fn("main", "/bin/x", 10, 1, true),
		fn("brunch", "/bin/x", 0, 0, true),
	};
	size_t chosen, listed[ANNOT_MAX_LISTED], n;

	(void)state;
	/* a part of a name: the names holding it */
	assert_int_equal(annot_select(v, 4, "bra", NULL, false, &chosen, listed, &n), ANNOT_SEL_NONE);
	assert_int_equal(chosen, ANNOT_NONE);
	assert_int_equal(n, 1);
	assert_int_equal(listed[0], 0);
	/* a misspelling: the closest names (with counts) */
	assert_int_equal(annot_select(v, 4, "chasse", NULL, false, &chosen, listed, &n), ANNOT_SEL_NONE);
	assert_int_equal(n, 1);
	assert_int_equal(listed[0], 1);
	/* nothing alike: the hottest with counts */
	assert_int_equal(annot_select(v, 4, "zzzzzzzz", NULL, false, &chosen, listed, &n), ANNOT_SEL_NONE);
	assert_int_equal(n, 3);
	assert_int_equal(listed[0], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names),
		cmocka_unit_test(ranking),
		cmocka_unit_test(select_hottest),
		cmocka_unit_test(select_by_name),
		cmocka_unit_test(suggestions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
