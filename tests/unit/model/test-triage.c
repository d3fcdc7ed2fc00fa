/*
 * Unit tests of model/triage: the mode-1 metrics and the routing verdict on
 * hand-computed counts, and perf stat's `#` column.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/countset.h"
#include "model/triage.h"

static void add(struct countset *cs, const char *name, double v)
{
	struct count *c = countset_add(cs, name, strcmp(name, "task-clock") ? "" : "msec", v, -1);

	assert_non_null(c);
}

static void add_status(struct countset *cs, const char *name, enum count_status st)
{
	struct count *c = countset_add(cs, name, NULL, 0, -1);

	assert_non_null(c);
	c->status = st;
}

static void assert_near(double got, double want)
{
	if (fabs(got - want) > 1e-9 * (fabs(want) + 1))
		fail_msg("got %.12g, want %.12g", got, want);
}

static void test_metrics_and_topdown(void **state)
{
	struct countset cs = COUNTSET_INIT;
	struct triage_metrics m;
	struct triage_verdict v;

	(void)state;
	add(&cs, "cycles", 2000000);
	add(&cs, "instructions", 1000000);
	add(&cs, "branches", 200000);
	add(&cs, "branch-misses", 2000);
	add(&cs, "L1-icache-load-misses", 1000);
	add(&cs, "cache-references", 40000);
	add(&cs, "cache-misses", 500);
	triage_metrics_compute(&cs, &m);
	assert_near(m.cpi, 2.0);               /* 2,000,000 / 1,000,000 */
	assert_near(m.ipc, 0.5);
	assert_near(m.branch_miss_rate, 1.0);  /* 100 * 2,000 / 200,000 */
	assert_near(m.branch_mpki, 2.0);       /* 1000 * 2,000 / 1,000,000 */
	assert_near(m.l1i_mpki, 1.0);          /* 1000 * 1,000 / 1,000,000 */
	assert_near(m.llc_mpki, 0.5);          /* 1000 * 500 / 1,000,000 (cache-misses) */
	assert_string_equal(m.llc_event, "cache-misses");
	triage_route(&m, &v);
	assert_int_equal(v.next, TRIAGE_TOPDOWN);
	assert_int_equal(v.nr_signals, 1);
	assert_string_equal(triage_next_name(v.next), "topdown");
	assert_non_null(strstr(v.reason, "CPI 2.00 > 1.0"));
	countset_release(&cs);
}

static void test_branches_win_over_topdown(void **state)
{
	struct countset cs = COUNTSET_INIT;
	struct triage_metrics m;
	struct triage_verdict v;
	char buf[256];

	(void)state;
	add(&cs, "cycles:u", 1500000);         /* a modifier is ignored for lookup */
	add(&cs, "instructions:u", 1000000);
	add(&cs, "branch-instructions", 100000);
	add(&cs, "branch-misses", 8000);       /* 8 MPKI > 5 */
	triage_metrics_compute(&cs, &m);
	assert_near(m.cpi, 1.5);
	assert_near(m.branch_mpki, 8.0);
	assert_near(m.branch_miss_rate, 8.0);
	assert_true(isnan(m.l1i_mpki));
	assert_true(isnan(m.llc_mpki));
	assert_null(m.llc_event);
	triage_route(&m, &v);
	assert_int_equal(v.next, TRIAGE_BRANCHES);
	assert_int_equal(v.nr_signals, 2);
	assert_non_null(strstr(v.reason, "branch MPKI 8.00 > 5"));
	assert_string_equal(triage_next_text(v.next, "./app -n 3", buf, sizeof(buf)),
			    "tdprof branches record -o branches.data -- ./app -n 3");
	countset_release(&cs);
}

static void test_frontend_and_memory(void **state)
{
	struct countset cs = COUNTSET_INIT;
	struct triage_metrics m;
	struct triage_verdict v;

	(void)state;
	/* CPI 0.5, L1i 6 MPKI: frontend */
	add(&cs, "cycles", 500000);
	add(&cs, "instructions", 1000000);
	add(&cs, "L1-icache-load-misses", 6000);
	triage_metrics_compute(&cs, &m);
	triage_route(&m, &v);
	assert_near(m.l1i_mpki, 6.0);
	assert_int_equal(v.next, TRIAGE_FRONTEND);
	countset_release(&cs);

	/* CPI 0.8; LLC-load-misses preferred over cache-misses: 3,000 -> 3 MPKI: memory */
	add(&cs, "cycles", 800000);
	add(&cs, "instructions", 1000000);
	add(&cs, "cache-misses", 10000);
	add(&cs, "LLC-load-misses", 3000);
	triage_metrics_compute(&cs, &m);
	assert_near(m.llc_mpki, 3.0);
	assert_string_equal(m.llc_event, "LLC-load-misses");
	triage_route(&m, &v);
	assert_int_equal(v.next, TRIAGE_MEMORY);
	assert_string_equal(triage_next_name(v.next), "memory");
	countset_release(&cs);
}

static void test_thresholds_are_strict(void **state)
{
	struct triage_metrics m = { 1.0, 1.0, 1.0, 5.0, 4.0, 1.0, "cache-misses" };
	struct triage_verdict v;

	(void)state;
	/* every metric exactly at its threshold: nothing fires, the core is fine */
	triage_route(&m, &v);
	assert_int_equal(v.next, TRIAGE_DONE);
	assert_int_equal(v.nr_signals, 0);
	assert_string_equal(triage_next_name(v.next), "done");
	m.cpi = 1.01;
	triage_route(&m, &v);
	assert_int_equal(v.next, TRIAGE_TOPDOWN);
}

static void test_no_pmu_is_unknown(void **state)
{
	struct countset cs = COUNTSET_INIT;
	struct triage_metrics m;
	struct triage_verdict v;

	(void)state;
	add(&cs, "task-clock", 1e6);
	add_status(&cs, "cycles", COUNT_NOT_SUPPORTED);
	add_status(&cs, "instructions", COUNT_NOT_SUPPORTED);
	add_status(&cs, "branch-misses", COUNT_NOT_COUNTED);
	triage_metrics_compute(&cs, &m);
	assert_true(isnan(m.cpi) && isnan(m.ipc) && isnan(m.branch_mpki) && isnan(m.branch_miss_rate));
	triage_route(&m, &v);
	assert_int_equal(v.next, TRIAGE_UNKNOWN);
	assert_string_equal(triage_next_name(v.next), "unknown");
	assert_int_equal(v.nr_signals, 0);

	/* instructions counted as 0: MPKI would divide by zero, so it is missing */
	countset_release(&cs);
	add(&cs, "instructions", 0);
	add(&cs, "cycles", 100);
	add(&cs, "branch-misses", 10);
	triage_metrics_compute(&cs, &m);
	assert_true(isnan(m.cpi));
	assert_true(isnan(m.branch_mpki));
	assert_near(m.ipc, 0.0);
	countset_release(&cs);
}

static void test_annotations(void **state)
{
	struct countset cs = COUNTSET_INIT;
	struct triage_annotation a;
	char buf[64];

	(void)state;
	add(&cs, "task-clock", 1e6);            /* 1 ms */
	add(&cs, "page-faults", 50);
	add(&cs, "context-switches", 0);
	add(&cs, "cycles", 3e6);
	add(&cs, "instructions", 1.5e6);
	add(&cs, "branches", 200000);
	add(&cs, "branch-misses", 2000);
	add(&cs, "cache-references", 1000);
	add(&cs, "cache-misses", 250);
	add_status(&cs, "L1-icache-load-misses", COUNT_NOT_SUPPORTED);

	/* 1 ms of task-clock over 4 ms of wall time: 0.25 CPUs */
	triage_annotate(&cs, 0, 4e6, &a);
	snprintf(buf, sizeof(buf), a.fmt, a.value);
	assert_string_equal(buf, "   0.250");
	assert_string_equal(a.unit, "CPUs utilized");
	/* 50 faults in 1 ms of task-clock: 50,000/s = 50.000 K/sec */
	triage_annotate(&cs, 1, 4e6, &a);
	snprintf(buf, sizeof(buf), a.fmt, a.value);
	assert_string_equal(buf, "  50.000");
	assert_string_equal(a.unit, "K/sec");
	/* 0 per second: perf prints "0.000 /sec" */
	triage_annotate(&cs, 2, 4e6, &a);
	assert_non_null(a.fmt);
	assert_string_equal(a.unit, "/sec");
	assert_near(a.value, 0);
	/* 3e6 cycles in 1e6 ns: 3 GHz */
	triage_annotate(&cs, 3, 4e6, &a);
	assert_near(a.value, 3.0);
	assert_string_equal(a.unit, "GHz");
	/* 1.5e6 / 3e6 = 0.5 insn per cycle */
	triage_annotate(&cs, 4, 4e6, &a);
	snprintf(buf, sizeof(buf), a.fmt, a.value);
	assert_string_equal(buf, "   0.50 ");
	assert_string_equal(a.unit, "insn per cycle");
	/* 2,000 / 200,000 = 1% of all branches */
	triage_annotate(&cs, 6, 4e6, &a);
	snprintf(buf, sizeof(buf), a.fmt, a.value);
	assert_string_equal(buf, "   1.00%");
	assert_string_equal(a.unit, "of all branches");
	/* 250 / 1000 = 25 % of all cache refs */
	triage_annotate(&cs, 8, 4e6, &a);
	snprintf(buf, sizeof(buf), a.fmt, a.value);
	assert_string_equal(buf, "  25.000 %");
	assert_string_equal(a.unit, "of all cache refs");
	/* not supported: no annotation */
	triage_annotate(&cs, 9, 4e6, &a);
	assert_null(a.fmt);
	/* unknown elapsed time: no CPUs utilized */
	triage_annotate(&cs, 0, -1, &a);
	assert_null(a.fmt);
	countset_release(&cs);
}

static void test_rate_prefixes(void **state)
{
	struct countset cs = COUNTSET_INIT;
	struct triage_annotation a;

	(void)state;
	add(&cs, "task-clock", 1e9); /* 1 s */
	add(&cs, "r1", 999);         /* 999/s: no prefix */
	add(&cs, "r2", 2.5e6);       /* 2.5 M/sec */
	add(&cs, "r3", 7e9);         /* 7 G/sec */
	triage_annotate(&cs, 1, 1e9, &a);
	assert_string_equal(a.unit, "/sec");
	assert_near(a.value, 999);
	triage_annotate(&cs, 2, 1e9, &a);
	assert_string_equal(a.unit, "M/sec");
	assert_near(a.value, 2.5);
	triage_annotate(&cs, 3, 1e9, &a);
	assert_string_equal(a.unit, "G/sec");
	assert_near(a.value, 7);
	countset_release(&cs);
}

/*
 * The user's case: ~850 KiB of hot code. CPI 2.0, branch MPKI 6 (fires) and L1i MPKI
 * 30 (fires): i-cache misses cost 30 x 12.5 = 375 cycles per 1000 instructions,
 * mispredicts 6 x 17.5 = 105. The fixed order of old sent it to the branch trace;
 * the costliest signal is the frontend. Every signal is still reported, with its cost.
 */
static void test_costliest_signal_wins(void **state)
{
	struct countset cs = COUNTSET_INIT;
	struct triage_metrics m;
	struct triage_verdict v;
	const struct triage_costs cheap_icache = { 17.5, 2.0, 200.0 };

	(void)state;
	add(&cs, "cycles", 2000000);
	add(&cs, "instructions", 1000000);
	add(&cs, "branches", 100000);
	add(&cs, "branch-misses", 6000);
	add(&cs, "L1-icache-load-misses", 30000);
	triage_metrics_compute(&cs, &m);
	triage_route(&m, &v);
	assert_int_equal(v.next, TRIAGE_FRONTEND);
	assert_int_equal(v.nr_signals, 3);
	assert_int_equal(v.signals[0].kind, TRIAGE_TOPDOWN);
	assert_true(isnan(v.signals[0].cost_cpki));
	assert_int_equal(v.signals[1].kind, TRIAGE_BRANCHES);
	assert_near(v.signals[1].cost_cpki, 105.0);
	assert_int_equal(v.signals[2].kind, TRIAGE_FRONTEND);
	assert_near(v.signals[2].cost_cpki, 375.0);
	assert_non_null(strstr(v.reason, "L1i MPKI 30.00 > 4"));
	assert_non_null(strstr(v.reason, "about 375 cycles per 1000 instructions"));
	/* on a machine whose L1i misses cost 2 cycles, the 60 cycles of i-cache misses lose */
	triage_route_costs(&m, &cheap_icache, &v);
	assert_int_equal(v.next, TRIAGE_BRANCHES);
	assert_near(v.signals[2].cost_cpki, 60.0);
	countset_release(&cs);
}

/* Simulated counts: the branch step is one that runs without a PMU. */
static void test_simulated_next_step(void **state)
{
	char buf[512];

	(void)state;
	assert_string_equal(triage_next_text_sim(TRIAGE_BRANCHES, "./app", buf, sizeof(buf)),
			    "tdprof why -- ./app (it names the mispredicting branches from the simulation; a branch "
			    "trace, 'tdprof branches record', needs a hardware PMU)");
	assert_string_equal(triage_next_text_sim(TRIAGE_TOPDOWN, "./app", buf, sizeof(buf)), "tdprof topdown -- ./app");
	assert_string_equal(triage_next_text(TRIAGE_BRANCHES, "./app", buf, sizeof(buf)),
			    "tdprof branches record -o branches.data -- ./app");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metrics_and_topdown),
		cmocka_unit_test(test_branches_win_over_topdown),
		cmocka_unit_test(test_frontend_and_memory),
		cmocka_unit_test(test_costliest_signal_wins),
		cmocka_unit_test(test_simulated_next_step),
		cmocka_unit_test(test_thresholds_are_strict),
		cmocka_unit_test(test_no_pmu_is_unknown),
		cmocka_unit_test(test_annotations),
		cmocka_unit_test(test_rate_prefixes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
