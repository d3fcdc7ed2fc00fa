/* Unit tests of base/alloc and base/err: overflow checks, injection, messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"

static void test_overflow(void **state)
{
	(void)state;
	assert_null(tdp_calloc(SIZE_MAX / 2, 4));
	assert_null(tdp_reallocarray(NULL, SIZE_MAX / 2, 4));
}

static void test_grow(void **state)
{
	int *arr = NULL;
	size_t alloc = 0;

	(void)state;
	assert_int_equal(TDP_GROW(arr, alloc, 1), 0);
	assert_true(alloc >= 1);
	assert_int_equal(TDP_GROW(arr, alloc, 1000), 0);
	assert_true(alloc >= 1000);
	arr[999] = 7;
	tdp_alloc_fail_after(0);
	assert_int_equal(TDP_GROW(arr, alloc, 5000), TDP_ENOMEM);
	tdp_alloc_fail_after(-1);
	assert_int_equal(arr[999], 7);
	assert_int_equal(TDP_GROW(arr, alloc, SIZE_MAX), TDP_ENOMEM);
	tdp_free(arr);
}

static void test_injection_counts(void **state)
{
	void *a, *b;

	(void)state;
	tdp_alloc_fail_after(1);
	a = tdp_malloc(4);
	b = tdp_malloc(4);
	assert_non_null(a);
	assert_null(b);
	tdp_free(a);
	tdp_alloc_fail_after(-1);
	a = tdp_strdup("x");
	assert_int_equal(tdp_alloc_fail_after(-1), 1);
	tdp_free(a);
}

static void test_err(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	assert_int_equal(tdp_err_set(&err, TDP_EFORMAT, "'%s': bad at offset %#x", "f", 0x1a40), TDP_EFORMAT);
	assert_string_equal(err.msg, "'f': bad at offset 0x1a40");
	/* the first error wins */
	tdp_err_set(&err, TDP_EIO, "later");
	assert_int_equal(err.code, TDP_EFORMAT);
	tdp_err_hint(&err, "run '%s'", "x");
	assert_string_equal(err.hint, "run 'x'");
	tdp_err_prefix(&err, "reading %s", "perf.data");
	assert_string_equal(err.msg, "reading perf.data: 'f': bad at offset 0x1a40");
	tdp_err_clear(&err);
	assert_int_equal(err.code, 0);
	assert_int_equal(tdp_err_set(NULL, TDP_ENOENT, "x"), TDP_ENOENT);
	assert_string_equal(tdp_strerror(TDP_ELIMIT), "input exceeds a size limit");
	assert_string_equal(tdp_strerror(12345), "unknown error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_injection_counts),
		cmocka_unit_test(test_err),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
