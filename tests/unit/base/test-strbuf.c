/* Unit tests of base/strbuf: invariants after every step, cap, allocation failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"

static void check_invariants(const struct strbuf *sb)
{
	assert_non_null(sb->buf);
	assert_int_equal(sb->buf[sb->len], '\0');
	assert_true(sb->alloc == 0 || sb->alloc > sb->len);
}

static void test_append(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	check_invariants(&sb);
	assert_string_equal(sb.buf, "");
	strbuf_adds(&sb, "abc");
	check_invariants(&sb);
	strbuf_addch(&sb, '-');
	check_invariants(&sb);
	strbuf_addf(&sb, "%d/%s", 42, "x");
	check_invariants(&sb);
	assert_string_equal(sb.buf, "abc-42/x");
	assert_int_equal(sb.len, 8);
	for (int i = 0; i < 1000; i++)
		strbuf_addf(&sb, "%04d", i);
	check_invariants(&sb);
	assert_int_equal(sb.len, 8 + 4000);
	assert_memory_equal(sb.buf + sb.len - 4, "0999", 4);
	strbuf_setlen(&sb, 3);
	check_invariants(&sb);
	assert_string_equal(sb.buf, "abc");
	assert_false(strbuf_failed(&sb));
	strbuf_release(&sb);
	check_invariants(&sb);
	assert_int_equal(sb.len, 0);
}

/* Shell words: plain words as they are, everything else in '...' with ' as '\''. */
static void test_shell_words(void **state)
{
	char *argv[] = { "./prog", "-n", "a b", "it's", "", "x=$HOME", "a,b:c@d%e+f", NULL };
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_add_shell_words(&sb, argv);
	check_invariants(&sb);
	assert_string_equal(sb.buf, "./prog -n 'a b' 'it'\\''s' '' 'x=$HOME' a,b:c@d%e+f");
	strbuf_reset(&sb);
	strbuf_add_shell_word(&sb, "'");
	assert_string_equal(sb.buf, "''\\'''");
	strbuf_reset(&sb);
	strbuf_add_shell_words(&sb, argv + 7);
	assert_string_equal(sb.buf, "");
	strbuf_release(&sb);
}

static void test_cap_is_sticky(void **state)
{
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb, 10);
	strbuf_adds(&sb, "0123456789");
	assert_false(strbuf_failed(&sb));
	strbuf_addch(&sb, 'x');
	assert_true(strbuf_failed(&sb));
	assert_int_equal(sb.len, 10);
	strbuf_adds(&sb, "");
	assert_true(strbuf_failed(&sb));
	check_invariants(&sb);
	assert_null(strbuf_detach(&sb));
	assert_false(strbuf_failed(&sb));
	strbuf_release(&sb);
}

static void test_detach(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;

	(void)state;
	s = strbuf_detach(&sb);
	assert_non_null(s);
	assert_string_equal(s, "");
	tdp_free(s);
	strbuf_adds(&sb, "hello");
	s = strbuf_detach(&sb);
	assert_string_equal(s, "hello");
	check_invariants(&sb);
	assert_int_equal(sb.len, 0);
	tdp_free(s);
}

static void fill(struct strbuf *sb)
{
	for (int i = 0; i < 200; i++)
		strbuf_addf(sb, "%d,", i);
}

static void test_alloc_failure(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	long total;

	(void)state;
	/* Count the allocations of a good run, then fail each in turn (curl's torture). */
	tdp_alloc_fail_after(-1);
	fill(&sb);
	total = tdp_alloc_fail_after(-1);
	assert_false(strbuf_failed(&sb));
	assert_true(total >= 2);
	strbuf_release(&sb);
	for (long n = 0; n < total; n++) {
		tdp_alloc_fail_after(n);
		fill(&sb);
		tdp_alloc_fail_after(-1);
		check_invariants(&sb);
		assert_true(strbuf_failed(&sb));
		strbuf_release(&sb);
	}
}

/* Names for a terminal: control characters, C1 and bytes that are not UTF-8 as \xNN; UTF-8 kept. */
static void test_printable(void **state)
{
	static const struct {
		const char *in, *want, *want_lines;
	} cases[] = {
		{ "plain", "plain", "plain" },
		{ "a\x1b[31mb", "a\\x1b[31mb", "a\\x1b[31mb" },
		{ "two\nlines\tx", "two\\x0alines\\x09x", "two\nlines\tx" },
		{ "del\x7f", "del\\x7f", "del\\x7f" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
		{ "csi\xc2\x9b", "csi\\xc2\\x9b", "csi\\xc2\\x9b" },              /* C1 CSI */
		{ "bad\xff\xfe", "bad\\xff\\xfe", "bad\\xff\\xfe" },
		{ "over\xc0\xaf", "over\\xc0\\xaf", "over\\xc0\\xaf" },           /* overlong '/' */
		{ "surr\xed\xa0\x80", "surr\\xed\\xa0\\x80", "surr\\xed\\xa0\\x80" }, /* U+D800 */
		{ "cut\xe2\x82", "cut\\xe2\\x82", "cut\\xe2\\x82" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;

		strbuf_add_name(&a, cases[i].in);
		strbuf_add_printable(&b, cases[i].in, strlen(cases[i].in), true);
		if (strcmp(a.buf, cases[i].want) || strcmp(b.buf, cases[i].want_lines))
			fail_msg("case %zu: '%s' / '%s'", i, a.buf, b.buf);
		strbuf_release(&a);
		strbuf_release(&b);
	}
}

/* A CSV field: escaped as a name, quoted (quotes doubled) only when it holds a comma or a quote. */
static void test_csv_field(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "main", "main" },
		{ "f(int, char)", "\"f(int, char)\"" },
		{ "say \"hi\"", "\"say \"\"hi\"\"\"" },
		{ "nl\nx,y", "\"nl\\x0ax,y\"" },
		{ "", "" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf a = STRBUF_INIT;

		strbuf_adds(&a, "<");
		strbuf_add_csv_field(&a, cases[i].in);
		strbuf_add_csv_field(&a, NULL);
		strbuf_adds(&a, ">");
		if (strncmp(a.buf, "<", 1) || strlen(a.buf) != strlen(cases[i].want) + 2 ||
		    strncmp(a.buf + 1, cases[i].want, strlen(cases[i].want)))
			fail_msg("case %zu: %s", i, a.buf);
		strbuf_release(&a);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_append),
		cmocka_unit_test(test_shell_words),
		cmocka_unit_test(test_cap_is_sticky),
		cmocka_unit_test(test_detach),
		cmocka_unit_test(test_alloc_failure),
		cmocka_unit_test(test_printable),
		cmocka_unit_test(test_csv_field),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
