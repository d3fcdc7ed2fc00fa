/*
 * Unit tests of the harness's counter arithmetic (the mmap-page read without a
 * PMU), the software counters, the diagnosis of a spread and the formatting of
 * a result.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness-internal.h"

static void test_sign_extend(void **state)
{
	(void)state;
	/* a 48-bit counter holding -1 */
	assert_true(harness_pmc_sign_extend(UINT64_C(0xffffffffffff), 48) == UINT64_MAX);
	/* the largest positive 48-bit value stays as it is */
	assert_true(harness_pmc_sign_extend(UINT64_C(0x7fffffffffff), 48) == UINT64_C(0x7fffffffffff));
	/* bits above the width are garbage and go */
	assert_true(harness_pmc_sign_extend(UINT64_C(0xabcd000000000005), 48) == 5);
	/* a 32-bit counter (arm64 without 64-bit counters) at 0x80000000 is negative */
	assert_true(harness_pmc_sign_extend(UINT64_C(0x80000000), 32) == UINT64_C(0xffffffff80000000));
	assert_true(harness_pmc_sign_extend(UINT64_C(0x123), 64) == 0x123);
}

static void test_mmap_time(void **state)
{
	(void)state;
	/* mult/2^shift = 1536/1024 = 1.5 ns per tick, offset 100:
	 * 1000 ticks: quot 0, rem 1000 -> 1000 * 1536 >> 10 = 1500 -> 1600 */
	assert_true(harness_mmap_time(1000, 1536, 10, 100) == 1600);
	/* 5000 ticks: quot 4 -> 4 * 1536 = 6144; rem 904 -> 904 * 1536 >> 10 = 1356 -> 7600 */
	assert_true(harness_mmap_time(5000, 1536, 10, 100) == 7600);
	/* 2^62 ticks at mult 2^31, shift 31 (1 ns per tick): cyc * mult would overflow 64 bits */
	assert_true(harness_mmap_time(UINT64_C(1) << 62, UINT32_C(1) << 31, 31, 0) == UINT64_C(1) << 62);
}

static void test_scale(void **state)
{
	(void)state;
	assert_true(harness_scale(100, 200, 100) == 200); /* ran half the time */
	assert_true(harness_scale(100, 100, 100) == 100);
	assert_true(harness_scale(100, 100, 0) == 100);   /* never ran: not scaled (caller checks) */
}

static void test_sw_counters(void **state)
{
	struct harness_sw s;
	struct harness_swcount a, b, c;
	long page = sysconf(_SC_PAGESIZE);
	volatile char *p;

	(void)state;
	harness_group_init(&s.group);
	harness_sw_open(&s);
	harness_sw_read(&s, &a);
	usleep(2000); /* sleeping is a (voluntary) context switch */
	harness_sw_read(&s, &b);
	assert_true(b.cswitch >= a.cswitch + 1);
	p = mmap(NULL, (size_t)page * 4, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	for (int i = 0; i < 4; i++)
		p[i * page] = 1; /* first touch of each page faults */
	harness_sw_read(&s, &c);
	assert_true(c.faults >= b.faults + 4);
	munmap((void *)p, (size_t)page * 4);
	harness_sw_close(&s);
	assert_true(harness_steal_ms(-1) >= 0);
}

static void test_diagnose(void **state)
{
	struct harness_evidence ev;
	char text[TDP_HARNESS_TEXT_MAX];
	unsigned w;

	(void)state;
	memset(&ev, 0, sizeof(ev));
	ev.threshold = 0.01;
	ev.cpu = 1;
	ev.steal_ms = NAN;
	ev.ghz_min = ev.ghz_max = NAN;
	/* low spread: causes recorded, no warning text */
	ev.spread = 0.005;
	ev.sw.cswitch = 3;
	harness_diagnose(&ev, &w, text, sizeof(text));
	assert_int_equal(w, TDP_HARNESS_WARN_CSWITCH);
	assert_string_equal(text, "");
	/* high spread with context switches */
	ev.spread = 0.05;
	ev.sw.cswitch = 12;
	harness_diagnose(&ev, &w, text, sizeof(text));
	assert_int_equal(w, TDP_HARNESS_WARN_SPREAD | TDP_HARNESS_WARN_CSWITCH);
	assert_non_null(strstr(text, "spread 5.00 % (MAD/median) is above 1.00 %, too high to trust; likely cause: "));
	assert_non_null(strstr(text, "12 context switches (0 preemptions): other work shared CPU 1"));
	/* migrations come first, then frequency and steal */
	ev.sw.cswitch = 0;
	ev.sw.migrations = 2;
	ev.ghz_min = 2.0;
	ev.ghz_max = 2.5;
	ev.steal_ms = 30;
	harness_diagnose(&ev, &w, text, sizeof(text));
	assert_true(w & TDP_HARNESS_WARN_MIGRATION);
	assert_true(w & TDP_HARNESS_WARN_FREQUENCY);
	assert_true(w & TDP_HARNESS_WARN_STEAL);
	assert_true(strstr(text, "moved between CPUs 2 times") < strstr(text, "steal time"));
	assert_non_null(strstr(text, "the hypervisor took 30 ms of steal time"));
	assert_non_null(strstr(text, "varied from 2.00 to 2.50 GHz"));
	/* a 1 % clock change is not a frequency change */
	memset(&ev.sw, 0, sizeof(ev.sw));
	ev.steal_ms = 0;
	ev.ghz_min = 2.0;
	ev.ghz_max = 2.02;
	harness_diagnose(&ev, &w, text, sizeof(text));
	assert_int_equal(w, TDP_HARNESS_WARN_SPREAD);
	assert_non_null(strstr(text, "no interruption was counted"));
	/* fewer kept than asked: said first, with the discards by cause, even at a low spread */
	ev.spread = 0.001;
	ev.kept = 20;
	ev.wanted = 31;
	ev.discarded[HARNESS_DISCARD_PREEMPTED] = 30;
	ev.discarded[HARNESS_DISCARD_INCONSISTENT] = 3;
	harness_diagnose(&ev, &w, text, sizeof(text));
	assert_int_equal(w, TDP_HARNESS_WARN_FEW_KEPT);
	assert_non_null(strstr(text, "only 20 of 31 repetitions kept (discarded: 30 preempted, 3 with 2N not twice N"));
	assert_null(strstr(text, "migrated"));
	ev.spread = 0.05;
	harness_diagnose(&ev, &w, text, sizeof(text));
	assert_int_equal(w, TDP_HARNESS_WARN_FEW_KEPT | TDP_HARNESS_WARN_SPREAD);
	assert_true(strstr(text, "only 20 of 31") < strstr(text, "; spread 5.00 %"));
}

static void base_result(struct tdp_harness_result *r)
{
	memset(r, 0, sizeof(*r));
	r->kernel = "say \"hi\"";
	r->method = TDP_HARNESS_METHOD_CLOCK;
	r->clock = TDP_HARNESS_CLOCK_TSC;
	r->cpu = 1;
	r->iterations = 1000;
	r->repetitions = 31;
	r->kept = 31;
	r->ns = (struct tdp_harness_stat){ 1.5, 2.0, 0.01, 3.0, 0.005 };
	r->fixed_cost_ns = 20;
	r->seconds = 1;
	r->ipc = NAN;
	r->ghz = NAN;
	r->smt_contention = NAN;
	r->steal_ms = NAN;
	for (int i = 0; i < TDP_HARNESS_NR_COUNTERS; i++)
		r->counter[i] = (struct tdp_harness_stat){ NAN, NAN, NAN, NAN, NAN };
	snprintf(r->note, sizeof(r->note), "method clock: no hardware PMU here");
}

static void test_format_json(void **state)
{
	struct tdp_harness_result r;
	char buf[4096], small[16];
	size_t n, m;

	(void)state;
	base_result(&r);
	n = tdp_harness_format_json(&r, buf, sizeof(buf));
	assert_int_equal(n, strlen(buf));
	assert_non_null(strstr(buf, "{\"kernel\": \"say \\\"hi\\\"\", \"method\": \"clock\", \"clock\": \"tsc\", \"cpu\": 1"));
	assert_non_null(strstr(buf, "\"median_ns_per_iteration\": 2,"));
	assert_non_null(strstr(buf, "\"min_ns_per_iteration\": 1.5,"));
	assert_non_null(strstr(buf, "\"spread_pct\": 0.5,"));
	assert_non_null(strstr(buf, "\"counters\": null"));
	assert_non_null(strstr(buf, "\"level1\": null"));
	assert_non_null(strstr(buf, "\"steal_ms\": null"));
	assert_non_null(strstr(buf, "\"notes\": [\"method clock: no hardware PMU here\"], \"warnings\": []"));
	/* counters present */
	r.method = TDP_HARNESS_METHOD_RDPMC;
	r.has_counter[TDP_HARNESS_CYCLES] = true;
	r.counter[TDP_HARNESS_CYCLES] = (struct tdp_harness_stat){ 4, 5, 0.5, 6, 0.1 };
	r.ipc = 2.5;
	r.has_topdown = true;
	r.retiring = 40;
	r.bad_speculation = 10;
	r.frontend_bound = 20;
	r.backend_bound = 30;
	tdp_harness_format_json(&r, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\"counters\": {\"cycles\": {\"median\": 5, \"min\": 4, \"max\": 6, \"mad\": 0.5, "
				    "\"spread_pct\": 10}, \"instructions\": null, \"branch_misses\": null, \"ipc\": 2.5"));
	assert_non_null(strstr(buf, "\"level1\": {\"retiring\": 40, \"bad_speculation\": 10, \"frontend_bound\": 20, "
				    "\"backend_bound\": 30}"));
	/* snprintf's contract: the full length, a NUL-terminated prefix */
	m = tdp_harness_format_json(&r, small, sizeof(small));
	assert_int_equal(m, strlen(buf));
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_memory_equal(small, buf, sizeof(small) - 1);
	assert_int_equal(tdp_harness_format_json(&r, NULL, 0), m);
}

static void test_format_text(void **state)
{
	struct tdp_harness_result r;
	char buf[4096];

	(void)state;
	base_result(&r);
	tdp_harness_format_text(&r, buf, sizeof(buf));
	assert_non_null(strstr(buf, "kernel 'say \"hi\"': 2 ns per iteration (median of 31 kept of 31 repetitions; min 1.5 ns"));
	assert_non_null(strstr(buf, "spread 0.50 %"));
	assert_non_null(strstr(buf, "cycles         not counted"));
	r.ns.median = 1234.5;
	tdp_harness_format_text(&r, buf, sizeof(buf));
	assert_non_null(strstr(buf, "1.234 us per iteration") ? strstr(buf, "1.234 us per iteration")
							       : strstr(buf, "1.235 us per iteration"));
	assert_string_equal(tdp_harness_method_name(TDP_HARNESS_METHOD_RDPMC), "rdpmc");
	assert_string_equal(tdp_harness_method_name((enum tdp_harness_method)9), "unknown");
	assert_string_equal(tdp_harness_clock_name(TDP_HARNESS_CLOCK_MONOTONIC_RAW), "monotonic_raw");
}

static void test_cpuset_format(void **state)
{
	cpu_set_t s;
	char buf[64];

	(void)state;
	CPU_ZERO(&s);
	harness_cpuset_format(&s, buf, sizeof(buf));
	assert_string_equal(buf, "none");
	for (int c = 0; c < 4; c++)
		CPU_SET(c, &s);
	CPU_SET(8, &s);
	CPU_SET(1023, &s);
	harness_cpuset_format(&s, buf, sizeof(buf));
	assert_string_equal(buf, "0-3,8,1023");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sign_extend),
		cmocka_unit_test(test_mmap_time),
		cmocka_unit_test(test_scale),
		cmocka_unit_test(test_sw_counters),
		cmocka_unit_test(test_diagnose),
		cmocka_unit_test(test_format_json),
		cmocka_unit_test(test_format_text),
		cmocka_unit_test(test_cpuset_format),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
