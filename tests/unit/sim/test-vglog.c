/*
 * test-vglog.c: sim_log_unhandled() on valgrind 3.19's own log of a program that
 * ran an AVX-512 instruction (the text below is what it wrote, pid and all), on
 * variants without the frame, with a VEX prefix, and on every truncation of the
 * log (never a read past its end: ASan checks).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sim/vglog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char LOG[] =
	"==17937== Callgrind, a call-graph generating cache profiler\n"
	"==17937== Command: ./avx\n"
	"==17937== \n"
	"vex amd64->IR: unhandled instruction bytes: 0x62 0xF2 0x7D 0x48 0x18 0xD 0x8B 0xF 0x0 0x0\n"
	"vex amd64->IR:   REX=0 REX.W=0 REX.R=0 REX.X=0 REX.B=0\n"
	"vex amd64->IR:   VEX=0 VEX.L=0 VEX.nVVVV=0x0 ESC=NONE\n"
	"vex amd64->IR:   PFX.66=0 PFX.F2=0 PFX.F3=0\n"
	"==17937== valgrind: Unrecognised instruction at address 0x109073.\n"
	"==17937==    at 0x109073: main (avx.c:3)\n"
	"==17937== Your program just tried to execute an instruction that Valgrind\n"
	"==17937== Process terminating with default action of signal 4 (SIGILL)\n";

static void test_avx512(void **state)
{
	struct sim_unhandled u;

	(void)state;
	assert_true(sim_log_unhandled(LOG, strlen(LOG), &u));
	assert_string_equal(u.bytes, "0x62 0xF2 0x7D 0x48 0x18 0xD 0x8B 0xF 0x0 0x0");
	assert_string_equal(u.where, "main (avx.c:3)");
	assert_non_null(strstr(u.what, "AVX-512"));
}

static void test_vex_without_frame(void **state)
{
	static const char log[] = "vex amd64->IR: unhandled instruction bytes: 0xC4 0xE2 0x79 0x18\n"
				  "==1== valgrind: Unrecognised instruction at address 0x4000.\n";
	struct sim_unhandled u;

	(void)state;
	assert_true(sim_log_unhandled(log, strlen(log), &u));
	assert_string_equal(u.where, "");
	assert_non_null(strstr(u.what, "VEX"));
	assert_null(strstr(u.what, "AVX-512"));
}

static void test_clean_log(void **state)
{
	static const char log[] = "==1== Callgrind\n==1== Events    : Ir\n";
	struct sim_unhandled u;

	(void)state;
	assert_false(sim_log_unhandled(log, strlen(log), &u));
	assert_false(sim_log_unhandled(NULL, 0, &u));
}

/* Every prefix of the log, in a buffer of exactly that size: found only once the
 * bytes are there, never a read beyond the end, always terminated strings. */
static void test_truncations(void **state)
{
	size_t len = strlen(LOG), found = 0;

	(void)state;
	for (size_t n = 0; n <= len; n++) {
		char *buf = malloc(n ? n : 1);
		struct sim_unhandled u;

		assert_non_null(buf);
		memcpy(buf, LOG, n);
		if (sim_log_unhandled(buf, n, &u)) {
			found++;
			assert_true(strlen(u.bytes) < sizeof(u.bytes));
			assert_true(strlen(u.where) < sizeof(u.where));
			assert_non_null(u.what);
		}
		free(buf);
	}
	/* from the byte after "bytes: " on, every prefix is found */
	assert_int_equal(found, len - (size_t)(strstr(LOG, "bytes: ") + 7 - LOG) + 1);
}

/* Control characters in the log come out as spaces; a huge line is cut. */
static void test_hostile_text(void **state)
{
	char log[4096];
	struct sim_unhandled u;
	int n = snprintf(log, sizeof(log), "unhandled instruction bytes: 0x62\x1b[31m");

	(void)state;
	memset(log + n, 'A', sizeof(log) - (size_t)n);
	assert_true(sim_log_unhandled(log, sizeof(log), &u));
	assert_null(strchr(u.bytes, '\x1b'));
	assert_int_equal(strlen(u.bytes), sizeof(u.bytes) - 1);
	assert_non_null(strstr(u.what, "AVX-512"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_avx512),
		cmocka_unit_test(test_vex_without_frame),
		cmocka_unit_test(test_clean_log),
		cmocka_unit_test(test_truncations),
		cmocka_unit_test(test_hostile_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
