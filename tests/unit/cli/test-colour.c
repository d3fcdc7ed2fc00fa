/*
 * test-colour.c: when stdout's text is coloured (cli/colour.h): --color's words,
 * the terminal, NO_COLOR (no-color.org: any value but the empty one) and
 * TERM=dumb, and an explicit --color=always over the environment.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "cli/colour.h"
#include "report/palette.h"

static void test_words(void **state)
{
	enum colour_when w;

	(void)state;
	assert_true(colour_parse("auto", &w) && w == COLOUR_AUTO);
	assert_true(colour_parse("always", &w) && w == COLOUR_ALWAYS);
	assert_true(colour_parse("never", &w) && w == COLOUR_NEVER);
	assert_true(colour_parse("true", &w) && w == COLOUR_ALWAYS);
	assert_true(colour_parse("false", &w) && w == COLOUR_NEVER);
	assert_false(colour_parse("", &w));
	assert_false(colour_parse("Always", &w));
	assert_false(colour_parse("sometimes", &w));
}

static void test_rule(void **state)
{
	static const struct {
		enum colour_when when;
		bool tty;
		const char *no_color, *term;
		bool coloured;
		int line;
	} rows[] = {
		{ COLOUR_AUTO, true, NULL, "xterm", true, __LINE__ },
		{ COLOUR_AUTO, true, NULL, NULL, true, __LINE__ },
		{ COLOUR_AUTO, false, NULL, "xterm", false, __LINE__ },
		{ COLOUR_AUTO, true, "1", "xterm", false, __LINE__ },
		{ COLOUR_AUTO, true, "0", "xterm", false, __LINE__ },  /* any value, even "0" */
		{ COLOUR_AUTO, true, "", "xterm", true, __LINE__ },    /* empty: as if unset */
		{ COLOUR_AUTO, true, NULL, "dumb", false, __LINE__ },
		{ COLOUR_ALWAYS, false, "1", "dumb", true, __LINE__ }, /* the argument overrides the environment */
		{ COLOUR_NEVER, true, NULL, "xterm", false, __LINE__ },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct palette *p = colour_palette(rows[i].when, rows[i].tty, rows[i].no_color, rows[i].term);

		if ((p != NULL) != rows[i].coloured)
			fail_msg("line %d: coloured %d, expected %d", rows[i].line, p != NULL, rows[i].coloured);
	}
}

static void test_palette(void **state)
{
	(void)state;
	/* without a palette a renderer writes nothing extra */
	assert_string_equal(pal_on(NULL, PAL_HOT), "");
	assert_string_equal(pal_off(NULL), "");
	assert_string_equal(pal_on(&palette_ansi, PAL_HOT), "\033[1;31m");
	assert_string_equal(pal_on(&palette_ansi, PAL_VERDICT), "\033[1m");
	assert_string_equal(pal_on(&palette_ansi, PAL_ROLES), "");
	assert_string_equal(pal_off(&palette_ansi), "\033[m");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_rule),
		cmocka_unit_test(test_palette),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
