/*
 * test-perfmap.c: perf's JIT maps (symbol/perfmap.c): perf's line format with and
 * without 0x, names with spaces, CRLF, empty lines, a later line of one start
 * winning, lookups at the edges, and the lines that make a map unusable.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "symbol/symbol.h"

static int parse(const char *text, char *buf, struct symbol_perfmap_sym **v, size_t *nr, size_t *bad)
{
	size_t len = strlen(text);

	memcpy(buf, text, len + 1);
	return symbol_perfmap_parse(buf, len, v, nr, bad);
}

static void test_lines(void **state)
{
	char buf[512];
	struct symbol_perfmap_sym *v;
	size_t nr, bad;

	(void)state;
	assert_int_equal(parse("7f0000001000 40 LazyCompile:*f app.js:3\r\n\n0x7F0000000000 0x100 Stub:entry\n"
			       "7f0000000080 10 inner",
			       buf, &v, &nr, &bad),
			 0);
	assert_int_equal(nr, 3);
	assert_true(v[0].start == 0x7f0000000000 && v[0].size == 0x100 && !strcmp(v[0].name, "Stub:entry"));
	assert_int_equal(v[0].line, 3);
	assert_true(v[1].start == 0x7f0000000080 && !strcmp(v[1].name, "inner") && v[1].line == 4);
	assert_string_equal(v[2].name, "LazyCompile:*f app.js:3"); /* spaces kept, CR dropped */
	/* the innermost symbol holding an address, the edges of each */
	assert_string_equal(symbol_perfmap_find(v, nr, 0x7f0000000085)->name, "inner");
	assert_string_equal(symbol_perfmap_find(v, nr, 0x7f0000000090)->name, "Stub:entry");
	assert_string_equal(symbol_perfmap_find(v, nr, 0x7f00000000ff)->name, "Stub:entry");
	assert_null(symbol_perfmap_find(v, nr, 0x7f0000000100));
	assert_string_equal(symbol_perfmap_find(v, nr, 0x7f000000103f)->name, "LazyCompile:*f app.js:3");
	assert_null(symbol_perfmap_find(v, nr, 0x7f0000001040));
	assert_null(symbol_perfmap_find(v, nr, 0x1000));
	tdp_free(v);

	/* a JIT that reuses memory writes the address again: the later line is the one */
	assert_int_equal(parse("1000 10 old\n1000 10 new\n", buf, &v, &nr, &bad), 0);
	assert_string_equal(symbol_perfmap_find(v, nr, 0x1008)->name, "new");
	tdp_free(v);
	{
		/* empty symbols written later at the same start hide no sized one, however many (the
		 * search looks back 64 entries at most; a fuzzer's case) */
		static char many[4096];
		size_t at = (size_t)snprintf(many, sizeof(many), "2000 20 sized\n");

		for (int i = 0; i < 100; i++)
			at += (size_t)snprintf(many + at, sizeof(many) - at, "2000 0 empty%d\n", i);
		assert_int_equal(symbol_perfmap_parse(many, at, &v, &nr, &bad), 0);
		assert_int_equal(nr, 101);
		assert_string_equal(symbol_perfmap_find(v, nr, 0x2000)->name, "sized");
		assert_string_equal(symbol_perfmap_find(v, nr, 0x201f)->name, "sized");
		tdp_free(v);
	}

	assert_int_equal(parse("", buf, &v, &nr, &bad), 0);
	assert_int_equal(nr, 0);
	assert_null(symbol_perfmap_find(v, nr, 0));
	tdp_free(v);
}

static void test_bad_lines(void **state)
{
	static const struct {
		const char *text;
		size_t line;
	} rows[] = {
		{ "1000 10 ok\nnot a line\n", 2 },
		{ "1000 10\n", 1 },                     /* no name */
		{ "1000 10 \n", 1 },                    /* an empty name */
		{ "1000\n", 1 },
		{ "x1000 10 f\n", 1 },
		{ "1000 1g f\n", 1 },
		{ "10000000000000000 1 f\n", 1 },       /* 17 digits */
		{ "ffffffffffffffff 2 f\n", 1 },        /* wraps past the end of memory */
		{ "\n\n1000 10 a\0b\n", 3 },            /* a NUL inside the name */
		{ " 1000 10 f\n", 1 },
	};
	char buf[256];
	struct symbol_perfmap_sym *v;
	size_t nr, bad;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		size_t len = strlen(rows[i].text);

		if (i == 8)
			len = 14; /* the text has a NUL in it: "\n\n1000 10 a" "\0b\n" */
		memcpy(buf, rows[i].text, len + 1);
		buf[len] = '\0';
		if (symbol_perfmap_parse(buf, len, &v, &nr, &bad) != TDP_EFORMAT || bad != rows[i].line || v || nr)
			fail_msg("row %zu: expected a bad line %zu, got line %zu (%zu symbols)", i, rows[i].line, bad, nr);
	}
}

static void test_long_name(void **state)
{
	size_t n = SYMBOL_PERFMAP_MAX_NAME + 1;
	char *buf = tdp_malloc(n + 16);
	struct symbol_perfmap_sym *v;
	size_t nr, bad;

	(void)state;
	assert_non_null(buf);
	memcpy(buf, "1000 10 ", 8);
	memset(buf + 8, 'a', n);
	buf[8 + n] = '\0';
	assert_int_equal(symbol_perfmap_parse(buf, 8 + n, &v, &nr, &bad), TDP_EFORMAT);
	buf[8 + n - 1] = '\0'; /* at the limit: accepted */
	assert_int_equal(symbol_perfmap_parse(buf, 8 + n - 1, &v, &nr, &bad), 0);
	assert_int_equal(nr, 1);
	tdp_free(v);
	tdp_free(buf);
}

static void test_alloc_failure(void **state)
{
	char buf[64];
	struct symbol_perfmap_sym *v;
	size_t nr, bad;

	(void)state;
	tdp_alloc_fail_after(0);
	assert_int_equal(parse("1000 10 a\n", buf, &v, &nr, &bad), TDP_ENOMEM);
	tdp_alloc_fail_after(-1);
	assert_null(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_long_name),
		cmocka_unit_test(test_alloc_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
