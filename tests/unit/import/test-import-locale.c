/*
 * Unit tests of import/'s leniency: pasted terminal transcripts (the shell prompt
 * line, perf stat -o's "# started on" lines) and numbers printed under another
 * locale (space, no-break space, dot or comma thousands; a decimal comma), in
 * text, CSV and JSON; and the errors that remain, with the file, line and reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "base/err.h"
#include "import/import.h"

#define NS 1e6 /* ns per msec */

static const struct count *find(const struct import_result *r, const char *name)
{
	for (size_t i = 0; i < r->counts.nr; i++)
		if (!strcmp(r->counts.v[i].name, name))
			return &r->counts.v[i];
	fail_msg("no count '%s'", name);
	return NULL;
}

static void import_ok(const char *text, struct import_result *r)
{
	struct tdp_err err = TDP_ERR_INIT;

	import_result_init(r);
	if (import_perf_stat_result((const uint8_t *)text, strlen(text), "paste.txt", r, &err))
		fail_msg("import failed: %s", err.msg);
}

static void expect_count(const struct import_result *r, const char *name, double want)
{
	const struct count *c = find(r, name);

	if (fabs(c->value - want) > 1e-6 * (fabs(want) + 1))
		fail_msg("%s = %.6f, expected %.6f", name, c->value, want);
}

static double metric_value(const struct import_result *r, const char *name)
{
	for (size_t i = 0; i < r->nr_metrics; i++)
		if (!strcmp(r->metrics[i].name, name))
			return r->metrics[i].value;
	fail_msg("no metric '%s'", name);
	return NAN;
}

static void import_fails(const char *text, const char *want_in_msg)
{
	struct import_result r;
	struct tdp_err err = TDP_ERR_INIT;

	import_result_init(&r);
	assert_int_equal(import_perf_stat_result((const uint8_t *)text, strlen(text), "paste.txt", &r, &err),
			 TDP_EFORMAT);
	if (!strstr(err.msg, want_in_msg))
		fail_msg("message '%s' lacks '%s'", err.msg, want_in_msg);
	assert_non_null(strstr(err.msg, "'paste.txt': line "));
	import_result_release(&r);
}

static void test_transcript_text(void **state)
{
	static const char text[] =
		"user@host:~/src$ perf stat -e cycles,instructions -- ./a.out\n"
		"hello from a.out\n"
		"# started on Wed Dec  2 06:00:00 2026\n"
		"\n"
		" Performance counter stats for './a.out':\n"
		"\n"
		"        21,958,894      cycles\n"
		"        31,958,894      instructions              #    1.46  insn per cycle\n"
		"\n"
		"       0.005744305 seconds time elapsed\n"
		"\n"
		"user@host:~/src$ \n";
	struct import_result r;

	(void)state;
	import_ok(text, &r);
	expect_count(&r, "cycles", 21958894);
	expect_count(&r, "instructions", 31958894);
	assert_true(fabs(r.counts.elapsed_ns - 5744305) < 1);
	import_result_release(&r);
}

static void test_transcript_csv_json(void **state)
{
	static const char csv[] =
		"$ perf stat -x, -e cycles,instructions true\n"
		"# started on Wed Dec  2 06:00:00 2026\n"
		"\n"
		"2974623,,cycles,2974623,100.00,,\n"
		"1974623,,instructions,2974623,100.00,0.66,insn per cycle\n"
		"$ \n";
	static const char csv_prompts[] =
		"[user@host src]$ perf stat -x, -e cycles true\n"
		"2974623,,cycles,2974623,100.00,,\n"
		"root@host:~# perf stat -x, -e cycles true\n"
		"~/src% \n"
		"% \n";
	static const char json[] =
		"user@host:~$ perf stat -j -e task-clock true\n"
		"# started on Wed Dec  2 06:00:00 2026\n"
		"{\"counter-value\" : \"2.781637\", \"unit\" : \"msec\", \"event\" : \"task-clock\", "
		"\"event-runtime\" : 2781637, \"pcnt-running\" : 100.00, \"metric-value\" : 0.554475, "
		"\"metric-unit\" : \"CPUs utilized\"}\n";
	struct import_result r;

	(void)state;
	import_ok(csv, &r);
	assert_int_equal(r.format, IMPORT_FMT_CSV);
	expect_count(&r, "cycles", 2974623);
	expect_count(&r, "instructions", 1974623);
	import_result_release(&r);
	import_ok(csv_prompts, &r);
	expect_count(&r, "cycles", 2974623);
	assert_int_equal(r.counts.nr, 1);
	import_result_release(&r);
	import_ok(json, &r);
	assert_int_equal(r.format, IMPORT_FMT_JSON);
	expect_count(&r, "task-clock", 2.781637 * NS);
	import_result_release(&r);
}

/* perf's text under fr_FR (U+202F or U+00A0 thousands, decimal comma), de_DE, and with ASCII spaces. */
static void test_text_space_thousands(void **state)
{
	static const char nnbsp[] =
		" Performance counter stats for 'true':\n\n"
		"          5\xe2\x80\xaf" "751,87 msec task-clock                #    1,001 CPUs utilized\n"
		"        21\xe2\x80\xaf" "958\xe2\x80\xaf" "894      cycles\n"
		"        31\xc2\xa0" "958\xc2\xa0" "894      instructions              #    1,46  insn per cycle\n"
		"           123\xe2\x80\xaf" "456      topdown-retiring          #      5,5 %  tma_retiring           (50,00%)\n"
		"\n       5,744305165 seconds time elapsed\n";
	static const char ascii[] =
		" Performance counter stats for 'true':\n\n"
		"        21 958 894      cycles\n"
		"         1 234,5 msec task-clock\n"
		"               894      instructions\n"
		"\n       0,005744305 seconds time elapsed\n";
	struct import_result r;

	(void)state;
	import_ok(nnbsp, &r);
	expect_count(&r, "task-clock", 5751.87 * NS);
	expect_count(&r, "cycles", 21958894);
	expect_count(&r, "instructions", 31958894);
	expect_count(&r, "topdown-retiring", 123456);
	assert_true(fabs(find(&r, "topdown-retiring")->running_pct - 50) < 1e-9);
	assert_true(fabs(metric_value(&r, "tma_retiring") - 5.5) < 1e-9);
	assert_true(fabs(metric_value(&r, "insn per cycle") - 1.46) < 1e-9);
	assert_true(fabs(r.counts.elapsed_ns - 5744305165) < 1);
	import_result_release(&r);

	import_ok(ascii, &r);
	expect_count(&r, "cycles", 21958894);
	expect_count(&r, "task-clock", 1234.5 * NS);
	expect_count(&r, "instructions", 894);
	import_result_release(&r);
}

static void test_text_dot_thousands(void **state)
{
	static const char de[] =
		" Performance counter stats for 'true':\n\n"
		"          5.751,87 msec task-clock                #    1,001 CPUs utilized\n"
		"        21.958.894      cycles\n"
		"             1.234      instructions              #    0,00  insn per cycle\n"
		"\n       5,744305165 seconds time elapsed\n";
	/* One "1.234" alone in a file whose other numbers use a decimal point: a decimal. */
	static const char c_locale[] =
		" Performance counter stats for 'true':\n\n"
		"              0.53 msec task-clock\n"
		"             1.234      cycles\n"
		"\n       0.005744305 seconds time elapsed\n";
	/* Without evidence either way, perf's own C locale: ',' groups thousands. */
	static const char plain[] =
		" Performance counter stats for 'true':\n\n"
		"             1,234      cycles\n"
		"             2,345      instructions\n";
	struct import_result r;

	(void)state;
	import_ok(de, &r);
	expect_count(&r, "task-clock", 5751.87 * NS);
	expect_count(&r, "cycles", 21958894);
	expect_count(&r, "instructions", 1234);
	assert_true(fabs(r.counts.elapsed_ns - 5744305165) < 1);
	import_result_release(&r);

	import_ok(c_locale, &r);
	expect_count(&r, "cycles", 1.234);
	import_result_release(&r);

	import_ok(plain, &r);
	expect_count(&r, "cycles", 1234);
	expect_count(&r, "instructions", 2345);
	import_result_release(&r);
}

/* -I under de_DE: the timestamps keep their '.' (perf prints them so under every locale). */
static void test_text_interval_dot_thousands(void **state)
{
	static const char de[] =
		"#           time             counts unit events\n"
		"     1.001234567         21.958.894      cycles\n"
		"     1.001234567              1.234      instructions\n"
		"     2.002345678          1.000.000      cycles\n"
		"     2.002345678                766      instructions\n";
	struct import_result r;

	(void)state;
	import_ok(de, &r);
	expect_count(&r, "cycles", 22958894);
	expect_count(&r, "instructions", 2000);
	assert_int_equal(r.nr_intervals, 2);
	import_result_release(&r);
}

/* -x; under a decimal-comma locale: the comma is the decimal mark. */
static void test_csv_semicolon_decimal_comma(void **state)
{
	static const char csv[] =
		"2974,62;msec;task-clock;2974623;100,00;0,578;CPUs utilized\n"
		"47;;page-faults;2974623;100,00;15,800;K/sec\n"
		"21958894;;cycles;1487311;50,00;;\n";
	struct import_result r;

	(void)state;
	import_ok(csv, &r);
	assert_int_equal(r.sep, ';');
	expect_count(&r, "task-clock", 2974.62 * NS);
	expect_count(&r, "page-faults", 47);
	expect_count(&r, "cycles", 21958894);
	assert_true(fabs(find(&r, "cycles")->running_pct - 50) < 1e-9);
	assert_true(fabs(metric_value(&r, "CPUs utilized") - 0.578) < 1e-9);
	import_result_release(&r);
}

/*
 * -x, under a decimal-comma locale: perf splits every decimal number in two
 * fields. Its fields have fixed shapes (the running percentage always has two
 * decimals), so the rows are read back; the note says so.
 */
static void test_csv_comma_decimal_comma(void **state)
{
	static const char csv[] =
		"2974,62,msec,task-clock,2974623,100,00,0,578,CPUs utilized\n"
		"47,,page-faults,2974623,100,00,15,800,K/sec\n"
		"21958894,,cycles,1487311,50,00,,\n"
		"21958894,,cpu/event=0x3c,umask=0x0/,1487311,50,00,,\n";
	struct import_result r;

	(void)state;
	import_ok(csv, &r);
	assert_int_equal(r.sep, ',');
	expect_count(&r, "task-clock", 2974.62 * NS);
	expect_count(&r, "page-faults", 47);
	expect_count(&r, "cycles", 21958894);
	expect_count(&r, "cpu/event=0x3c,umask=0x0/", 21958894);
	assert_true(fabs(find(&r, "cycles")->running_pct - 50) < 1e-9);
	assert_true(fabs(find(&r, "task-clock")->running_pct - 100) < 1e-9);
	assert_true(fabs(metric_value(&r, "CPUs utilized") - 0.578) < 1e-9);
	assert_true(fabs(metric_value(&r, "K/sec") - 15.8) < 1e-9);
	import_result_release(&r);
}

/* A version string ("13.3.0") earlier in a transcript is not a number with dot
 * thousands: it must not decide the file's decimal mark. */
static void test_transcript_version_not_a_number(void **state)
{
	static const char text[] =
		"$ g++ --version\n"
		"g++ (Ubuntu 13.3.0-6ubuntu2~24.04) 13.3.0\n"
		"$ perf stat -e task-clock,cycles -- ./a.out\n"
		"\n"
		" Performance counter stats for './a.out':\n"
		"\n"
		"          5,639.52 msec task-clock                       #    1.001 CPUs utilized\n"
		"        21,958,894      cycles\n"
		"\n"
		"       5.633601010 seconds time elapsed\n";
	struct import_result r;

	(void)state;
	import_ok(text, &r);
	expect_count(&r, "task-clock", 5639.52 * NS);
	expect_count(&r, "cycles", 21958894);
	import_result_release(&r);
}

static void test_errors_name_line_and_reason(void **state)
{
	(void)state;
	/* groups after the first must have three digits */
	import_fails(" Performance counter stats for 'true':\n\n"
		     "        21 95 894      cycles\n", "line 3:");
	import_fails(" Performance counter stats for 'true':\n\n"
		     "        21.958.894      cycles\n"
		     "        21,958,894      instructions\n", "line 4: count '21,958,894'");
	import_fails(" Performance counter stats for 'true':\n\n"
		     "        21x958      cycles\n", "line 3:");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_transcript_text),
		cmocka_unit_test(test_transcript_csv_json),
		cmocka_unit_test(test_text_space_thousands),
		cmocka_unit_test(test_text_dot_thousands),
		cmocka_unit_test(test_text_interval_dot_thousands),
		cmocka_unit_test(test_csv_semicolon_decimal_comma),
		cmocka_unit_test(test_csv_comma_decimal_comma),
		cmocka_unit_test(test_transcript_version_not_a_number),
		cmocka_unit_test(test_errors_name_line_and_reason),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
