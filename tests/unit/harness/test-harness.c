/*
 * Unit tests of a whole harness run: the statistics and the N/2N fixed-cost
 * removal on a synthetic clock, pinning as seen from inside the kernel, the
 * empty kernel, the no-PMU path, and the errors of open and run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

#include "harness-internal.h"

/*
 * The synthetic machine: every clock read costs read_cost ns, every call into
 * the kernel costs fixed ns, and iteration i of repetition r costs per_iter[r]
 * ns. The harness must report the per_iter values exactly, whatever read_cost
 * and fixed are.
 */
struct fake {
	uint64_t now;
	uint64_t read_cost;
	uint64_t fixed;
	const double *per_iter;
	size_t nr;
	unsigned runs; /* calls with n > 0 */
	bool constant; /* per_iter[0] always (for the choice of N) */
};

static uint64_t fake_now(void *arg)
{
	struct fake *f = arg;

	f->now += f->read_cost;
	return f->now;
}

static void fake_run(void *arg, uint64_t n)
{
	struct fake *f = arg;
	size_t rep;

	f->now += f->fixed;
	if (n == 0)
		return;
	rep = f->constant ? 0 : f->runs / 2; /* repetition r runs N and 2N */
	f->runs++;
	assert_true(rep < f->nr);
	f->now += (uint64_t)llround((double)n * f->per_iter[rep]);
}

static struct tdp_harness *open_fake(struct tdp_harness_config *cfg, struct fake *f)
{
	struct tdp_harness *h = NULL;
	char err[256];

	cfg->flags |= TDP_HARNESS_NO_COUNTERS | TDP_HARNESS_NO_PIN | TDP_HARNESS_NO_TSC;
	assert_int_equal(tdp_harness_open(&h, cfg, err, sizeof(err)), 0);
	harness_set_fake_clock(h, fake_now, f);
	return h;
}

static void test_synthetic_clock(void **state)
{
	/* sorted: 10 11 11.5 12 12.5 13 50 -> median 12, MAD 1 (see test-stats.c), min 10, max 50 */
	static const double per_iter[] = { 12, 10, 50, 11.5, 13, 12.5, 11 };
	struct fake f = { 0, 7, 1000, per_iter, 7, 0, false };
	struct tdp_harness_config cfg;
	struct tdp_harness_kernel k = { "fake", fake_run, NULL, NULL, NULL, &f };
	struct tdp_harness_result r;
	struct tdp_harness *h;

	(void)state;
	tdp_harness_config_init(&cfg);
	cfg.repetitions = 7;
	cfg.iterations = 1000;
	cfg.warmup_seconds = 0;
	h = open_fake(&cfg, &f);
	assert_int_equal(tdp_harness_run(h, &k, &r), 0);
	assert_int_equal(f.runs, 14);
	assert_true(r.iterations == 1000);
	assert_int_equal(r.repetitions, 7);
	/* t(2N) - t(N) = N * per_iter: the 1000 ns per call and the 7 ns reads cancel */
	assert_true(r.ns.median == 12);
	assert_true(r.ns.mad == 1);
	assert_true(r.ns.min == 10);
	assert_true(r.ns.max == 50);
	assert_true(fabs(r.ns.spread - 1.0 / 12) < 1e-12);
	/* An empty measurement: one clock read (7 ns) and one call (1000 ns) */
	assert_true(r.fixed_cost_ns == 1007);
	assert_int_equal(r.method, TDP_HARNESS_METHOD_CLOCK);
	assert_false(r.has_counter[TDP_HARNESS_CYCLES]);
	assert_true(isnan(r.ipc));
	/* 8.3 % > 1 %: warned, with a cause */
	assert_true(r.warnings & TDP_HARNESS_WARN_SPREAD);
	assert_non_null(strstr(r.warning, "spread 8.33 %"));
	assert_non_null(strstr(r.warning, "likely cause"));
	tdp_harness_close(h);
}

static void test_choose_iterations(void **state)
{
	/* 100 ns per iteration, 10 ms target: N = 10 ms / 100 ns = 100000, less the fixed part */
	static const double per_iter[] = { 100 };
	struct fake f = { 0, 5, 50, per_iter, 1, 0, true };
	struct tdp_harness_config cfg;
	struct tdp_harness_kernel k = { "fake", fake_run, NULL, NULL, NULL, &f };
	struct tdp_harness_result r;
	struct tdp_harness *h;

	(void)state;
	tdp_harness_config_init(&cfg);
	cfg.repetitions = 5;
	h = open_fake(&cfg, &f);
	assert_int_equal(tdp_harness_run(h, &k, &r), 0);
	/* the warm batch is n = 8192 (819.2 us >= 10 ms / 16): N = 8192 * 1e7 / 819255 = 99993 */
	assert_true(r.iterations == 99993);
	assert_true(r.ns.median == 100);
	assert_true(r.ns.mad == 0);
	assert_int_equal(r.warnings & TDP_HARNESS_WARN_SPREAD, 0);
	assert_string_equal(r.warning, "");
	/* warm-up ran at least warmup_seconds of fake time */
	assert_true(f.now > 100000000);
	tdp_harness_close(h);
}

/*
 * Preemption, faked: the kernel's cost and whether the scheduler preempted the
 * thread depend on the attempt (a measured pair: two runs, and two readings of
 * the software counters around them).
 */
struct fake_sched {
	struct fake clock;
	const double *per_attempt;
	size_t nr;
	const bool *preempted; /* per attempt */
	unsigned sw_calls;
	uint64_t involuntary;
	uint64_t last_n;
	uint64_t preempt_above; /* when non-zero: preempted whenever n > this */
};

static uint64_t sched_now(void *arg)
{
	return fake_now(&((struct fake_sched *)arg)->clock);
}

static void sched_run(void *arg, uint64_t n)
{
	struct fake_sched *f = arg;
	size_t attempt;

	f->clock.now += f->clock.fixed;
	if (n == 0)
		return;
	attempt = f->preempt_above ? 0 : f->clock.runs / 2;
	f->clock.runs++;
	f->last_n = n;
	assert_true(attempt < f->nr);
	f->clock.now += (uint64_t)llround((double)n * f->per_attempt[attempt]);
}

static void sched_sw(void *arg, struct harness_swcount *out)
{
	struct fake_sched *f = arg;
	unsigned attempt = f->sw_calls / 2;

	/* the reading after the pair sees the preemption */
	if (f->sw_calls % 2 == 1 && (f->preempt_above ? f->last_n > f->preempt_above : f->preempted[attempt]))
		f->involuntary++;
	f->sw_calls++;
	memset(out, 0, sizeof(*out));
	out->involuntary = f->involuntary;
	out->cswitch = f->involuntary;
}

static struct tdp_harness *open_sched(struct tdp_harness_config *cfg, struct fake_sched *f)
{
	struct tdp_harness *h = open_fake(cfg, &f->clock);

	harness_set_fake_clock(h, sched_now, f);
	harness_set_fake_sw(h, sched_sw, f);
	return h;
}

static void test_preempted_remeasured(void **state)
{
	/* attempts 1 and 4 are preempted (500 and 900 ns: someone else's time): measured again */
	static const double cost[] = { 10, 500, 12, 11, 900, 13, 14 };
	static const bool pre[] = { false, true, false, false, true, false, false };
	struct fake_sched f = { { 0, 7, 100, NULL, 0, 0, false }, cost, 7, pre, 0, 0, 0, 0 };
	struct tdp_harness_config cfg;
	struct tdp_harness_kernel k = { "sched", sched_run, NULL, NULL, NULL, &f };
	struct tdp_harness_result r;
	struct tdp_harness *h;

	(void)state;
	tdp_harness_config_init(&cfg);
	cfg.repetitions = 5;
	cfg.iterations = 1000;
	cfg.warmup_seconds = 0;
	h = open_sched(&cfg, &f);
	assert_int_equal(tdp_harness_run(h, &k, &r), 0);
	/* kept: 10 12 11 13 14 -> median 12, MAD median(2 0 1 1 2) = 1, max 14 */
	assert_true(r.ns.median == 12);
	assert_true(r.ns.mad == 1);
	assert_true(r.ns.max == 14);
	assert_int_equal(r.remeasured, 2);
	assert_int_equal(r.discarded_preempted, 2);
	assert_int_equal(r.kept, 5);
	assert_true(r.context_switches == 2);
	assert_true(r.iterations == 1000);
	tdp_harness_close(h);
}

static void test_preempted_never_kept(void **state)
{
	/* the first repetition is preempted 4 times (50 to 100 ns: someone else's time): all discarded */
	static const double cost[] = { 100, 100, 100, 50, 10, 11, 12, 13, 14 };
	static const bool pre[] = { true, true, true, true, false, false, false, false, false };
	struct fake_sched f = { { 0, 7, 100, NULL, 0, 0, false }, cost, 9, pre, 0, 0, 0, 0 };
	struct tdp_harness_config cfg;
	struct tdp_harness_kernel k = { "sched", sched_run, NULL, NULL, NULL, &f };
	struct tdp_harness_result r;
	struct tdp_harness *h;

	(void)state;
	tdp_harness_config_init(&cfg);
	cfg.repetitions = 5;
	cfg.iterations = 1000;
	cfg.warmup_seconds = 0;
	h = open_sched(&cfg, &f);
	assert_int_equal(tdp_harness_run(h, &k, &r), 0);
	/* kept: 10 11 12 13 14 -> median 12, min 10 (never the preempted 50); the given N is never shrunk */
	assert_true(r.ns.median == 12);
	assert_true(r.ns.min == 10);
	assert_true(r.ns.max == 14);
	assert_int_equal(r.remeasured, 4);
	assert_int_equal(r.discarded_preempted, 4);
	assert_int_equal(r.kept, 5);
	assert_int_equal(r.warnings & TDP_HARNESS_WARN_FEW_KEPT, 0);
	assert_true(r.iterations == 1000);
	assert_null(strstr(r.note, "N reduced"));
	tdp_harness_close(h);
}

static void test_always_preempted_keeps_nothing(void **state)
{
	/* every pair is preempted and N is the caller's (no shrinking): no figure at all, and why */
	static const double cost[] = { 10 };
	struct fake_sched f = { { 0, 7, 100, NULL, 0, 0, true }, cost, 1, NULL, 0, 0, 0, 1 };
	struct tdp_harness_config cfg;
	struct tdp_harness_kernel k = { "sched", sched_run, NULL, NULL, NULL, &f };
	struct tdp_harness_result r;
	struct tdp_harness *h;
	char json[4096];

	(void)state;
	tdp_harness_config_init(&cfg);
	cfg.repetitions = 5;
	cfg.iterations = 1000;
	cfg.warmup_seconds = 0;
	h = open_sched(&cfg, &f);
	assert_int_equal(tdp_harness_run(h, &k, &r), 0);
	assert_int_equal(r.kept, 0);
	/* the attempts are bounded: 4 per repetition */
	assert_int_equal(r.remeasured, 20);
	assert_int_equal(r.discarded_preempted, 20);
	assert_true(isnan(r.ns.median) && isnan(r.ns.min));
	assert_true(r.warnings & TDP_HARNESS_WARN_FEW_KEPT);
	assert_non_null(strstr(r.warning, "no repetition could be kept"));
	assert_non_null(strstr(r.warning, "20 preempted"));
	tdp_harness_format_json(&r, json, sizeof(json));
	assert_non_null(strstr(json, "\"min_ns_per_iteration\": null"));
	assert_non_null(strstr(json, "\"kept_repetitions\": 0"));
	tdp_harness_close(h);
}

/*
 * A clock where each measurement (a run with n > 0) has its own cost per
 * iteration, so the N and 2N of one pair can disagree.
 */
struct fake_runs {
	struct fake clock;
	const double *per_run;
	size_t nr;
};

static uint64_t runs_now(void *arg)
{
	return fake_now(&((struct fake_runs *)arg)->clock);
}

static void runs_run(void *arg, uint64_t n)
{
	struct fake_runs *f = arg;

	f->clock.now += f->clock.fixed;
	if (n == 0)
		return;
	assert_true(f->clock.runs < f->nr);
	f->clock.now += (uint64_t)llround((double)n * f->per_run[f->clock.runs++]);
}

static void test_discard_nonpositive_and_inconsistent(void **state)
{
	/*
	 * Pairs alternate 2N-first and N-first, starting with 2N (values in ns per iteration of each run):
	 *   (2N 10, N 30): 20000 - 30000 < 0, non-positive
	 *   (N 10, 2N 15): 30000 against 2 * 10000, inconsistent (an interruption in 2N)
	 *   (2N 20, N 40): 40000 - 40000 = 0, non-positive
	 *   (N 5, 2N 3.5): 7000 against 2 * 5000, inconsistent (an interruption in N)
	 *   then 4 clean pairs of 11, 12, 13, 14
	 */
	static const double per_run[] = { 10, 30, 10, 15, 20, 40, 5, 3.5, 11, 11, 12, 12, 13, 13, 14, 14 };
	struct fake_runs f = { { 0, 7, 100, NULL, 0, 0, false }, per_run, 16 };
	struct tdp_harness_config cfg;
	struct tdp_harness_kernel k = { "runs", runs_run, NULL, NULL, NULL, &f };
	struct tdp_harness_result r;
	struct tdp_harness *h;

	(void)state;
	tdp_harness_config_init(&cfg);
	cfg.repetitions = 4;
	cfg.iterations = 1000;
	cfg.warmup_seconds = 0;
	cfg.spread_warning = 1; /* only the discards are of interest here */
	h = open_fake(&cfg, &f.clock);
	harness_set_fake_clock(h, runs_now, &f);
	assert_int_equal(tdp_harness_run(h, &k, &r), 0);
	assert_int_equal(r.kept, 4);
	assert_int_equal(r.discarded_nonpositive, 2);
	assert_int_equal(r.discarded_inconsistent, 2);
	assert_int_equal(r.remeasured, 4);
	assert_true(r.ns.min == 11);
	assert_true(r.ns.median == 12.5);
	assert_true(r.ns.max == 14);
	assert_int_equal(r.warnings & (TDP_HARNESS_WARN_FEW_KEPT | TDP_HARNESS_WARN_SPREAD), 0);
	tdp_harness_close(h);
}

static void test_pair_verdict(void **state)
{
	(void)state;
	/* 1000 ns fixed: 11000 and 21000 are exactly N and 2N */
	assert_int_equal(harness_pair_verdict(11000, 21000, 1000, false, false), HARNESS_KEEP);
	assert_int_equal(harness_pair_verdict(11000, 21000, 1000, true, false), HARNESS_DISCARD_PREEMPTED);
	assert_int_equal(harness_pair_verdict(11000, 21000, 1000, true, true), HARNESS_DISCARD_MIGRATED);
	assert_int_equal(harness_pair_verdict(11000, 11000, 1000, false, false), HARNESS_DISCARD_NONPOSITIVE);
	assert_int_equal(harness_pair_verdict(11000, 9000, 1000, false, false), HARNESS_DISCARD_NONPOSITIVE);
	/* 10 % either way of twice is kept; beyond it is not */
	assert_int_equal(harness_pair_verdict(11000, 22900, 1000, false, false), HARNESS_KEEP);
	assert_int_equal(harness_pair_verdict(11000, 23100, 1000, false, false), HARNESS_DISCARD_INCONSISTENT);
	assert_int_equal(harness_pair_verdict(11000, 19300, 1000, false, false), HARNESS_KEEP);
	assert_int_equal(harness_pair_verdict(11000, 19000, 1000, false, false), HARNESS_DISCARD_INCONSISTENT);
	/* a fixed-cost estimate above the N measurement leaves only the sign to check */
	assert_int_equal(harness_pair_verdict(900, 1500, 1000, false, false), HARNESS_KEEP);
	assert_int_equal(harness_pair_verdict(NAN, NAN, 1000, false, false), HARNESS_DISCARD_NONPOSITIVE);
}

static void test_preempted_shrinks_n(void **state)
{
	/* 100 ns per iteration; every measurement longer than 3 ms is preempted (a busy CPU) */
	static const double cost[] = { 100 };
	struct fake_sched f = { { 0, 5, 50, NULL, 0, 0, true }, cost, 1, NULL, 0, 0, 0, 30000 };
	struct tdp_harness_config cfg;
	struct tdp_harness_kernel k = { "sched", sched_run, NULL, NULL, NULL, &f };
	struct tdp_harness_result r;
	struct tdp_harness *h;

	(void)state;
	tdp_harness_config_init(&cfg);
	cfg.repetitions = 5;
	h = open_sched(&cfg, &f);
	assert_int_equal(tdp_harness_run(h, &k, &r), 0);
	/* N = 99993 (see test_choose_iterations); 2N > 30000 is preempted; after 3 spoilt
	 * attempts (more than 5 / 2) N becomes 99993 / 4 = 24998, whose 2N still is;
	 * 3 more: 24998 / 4 = 6249, clean */
	assert_true(r.iterations == 6249);
	assert_non_null(strstr(r.note, "N reduced from 99993 to 6249"));
	assert_int_equal(r.remeasured, 6);
	assert_true(r.ns.median == 100);
	tdp_harness_close(h);
}

struct pin_probe {
	int cpu_seen;
	int nr_allowed;
	bool allowed_cpu;
	int want;
};

static void pin_run(void *arg, uint64_t n)
{
	struct pin_probe *p = arg;
	cpu_set_t set;

	(void)n;
	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		p->nr_allowed = CPU_COUNT(&set);
		p->allowed_cpu = CPU_ISSET(p->want, &set);
	}
	p->cpu_seen = sched_getcpu();
}

static void test_pinning_inside_kernel(void **state)
{
	cpu_set_t before, after;
	int last = -1;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(before), &before), 0);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &before))
			last = c;
	assert_true(last >= 0);
	/* Pin to each allowed CPU in turn, the last one first (rarely the current one). */
	for (int c = last; c >= 0; c--) {
		struct pin_probe p = { -1, 0, false, c };
		struct tdp_harness_config cfg;
		struct tdp_harness_kernel k = { "pin", pin_run, NULL, NULL, NULL, &p };
		struct tdp_harness_result r;
		struct tdp_harness *h;
		char err[256];

		if (!CPU_ISSET(c, &before))
			continue;
		tdp_harness_config_init(&cfg);
		cfg.cpu = c;
		cfg.repetitions = 3;
		cfg.iterations = 1;
		cfg.warmup_seconds = 0;
		cfg.flags = TDP_HARNESS_NO_COUNTERS;
		assert_int_equal(tdp_harness_open(&h, &cfg, err, sizeof(err)), 0);
		assert_int_equal(tdp_harness_run(h, &k, &r), 0);
		assert_int_equal(p.nr_allowed, 1);
		assert_true(p.allowed_cpu);
		assert_int_equal(p.cpu_seen, c);
		assert_int_equal(r.cpu, c);
		assert_non_null(strstr(r.note, "pinned to CPU"));
		tdp_harness_close(h);
		/* closing restores the affinity */
		assert_int_equal(sched_getaffinity(0, sizeof(after), &after), 0);
		assert_true(CPU_EQUAL(&before, &after));
	}
}

static void test_pin_bad_cpu(void **state)
{
	struct tdp_harness_config cfg;
	struct tdp_harness *h = NULL;
	char err[256] = "";
	cpu_set_t before, after;

	(void)state;
	sched_getaffinity(0, sizeof(before), &before);
	tdp_harness_config_init(&cfg);
	cfg.cpu = CPU_SETSIZE - 1; /* not a CPU of this machine */
	assert_int_equal(tdp_harness_open(&h, &cfg, err, sizeof(err)), -EINVAL);
	assert_null(h);
	assert_non_null(strstr(err, "cannot pin to CPU 1023"));
	sched_getaffinity(0, sizeof(after), &after);
	assert_true(CPU_EQUAL(&before, &after));
}

static void test_bad_config(void **state)
{
	struct tdp_harness_config cfg;
	struct tdp_harness *h = NULL;
	char err[256] = "";

	(void)state;
	tdp_harness_config_init(&cfg);
	cfg.repetitions = 2;
	assert_int_equal(tdp_harness_open(&h, &cfg, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "2 repetitions is out of range (3 to 100001)");
	tdp_harness_config_init(&cfg);
	cfg.target_seconds = 0;
	assert_int_equal(tdp_harness_open(&h, &cfg, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "target time 0 s"));
	tdp_harness_config_init(&cfg);
	cfg.warmup_seconds = NAN;
	assert_int_equal(tdp_harness_open(&h, &cfg, err, sizeof(err)), -EINVAL);
	assert_null(h);
}

static int setup_fails(void *arg)
{
	(void)arg;
	return 42;
}

static void count_teardown(void *arg)
{
	(*(int *)arg)++;
}

static void nop_run(void *arg, uint64_t n)
{
	(void)arg;
	(void)n;
}

static void test_run_errors(void **state)
{
	struct tdp_harness_config cfg;
	struct tdp_harness *h;
	struct tdp_harness_result r;
	int teardowns = 0;
	struct tdp_harness_kernel none = { "none", NULL, NULL, NULL, NULL, NULL };
	struct tdp_harness_kernel bad = { "bad", nop_run, NULL, setup_fails, count_teardown, &teardowns };

	(void)state;
	tdp_harness_config_init(&cfg);
	cfg.flags = TDP_HARNESS_NO_COUNTERS | TDP_HARNESS_NO_PIN;
	assert_int_equal(tdp_harness_open(&h, &cfg, NULL, 0), 0);
	assert_int_equal(tdp_harness_run(h, &none, &r), -EINVAL);
	assert_string_equal(tdp_harness_error(h), "the kernel has neither a run nor a call function");
	assert_int_equal(tdp_harness_run(h, &bad, &r), -ECANCELED);
	assert_string_equal(tdp_harness_error(h), "the setup of kernel 'bad' failed (it returned 42)");
	assert_int_equal(teardowns, 0); /* no teardown without a successful setup */
	assert_true(isnan(r.ns.median));
	tdp_harness_close(h);
	tdp_harness_close(NULL);
}

static void empty_run(void *arg, uint64_t n)
{
	(void)arg;
	for (uint64_t i = 0; i < n; i++)
		__asm__ volatile("");
}

static void empty_call(void *arg)
{
	(void)arg;
}

/* ~200 dependent multiplies per iteration: hundreds of cycles on any core */
static void work_run(void *arg, uint64_t n)
{
	uint64_t x = (uint64_t)(uintptr_t)arg | 1;

	for (uint64_t i = 0; i < n; i++)
		for (int k = 0; k < 200; k++)
			x = x * 0x9e3779b97f4a7c15ull + 1;
	__asm__ volatile("" : : "r"(x));
}

/*
 * The harness removes its own fixed cost: what is left of an empty kernel is finite
 * and far below a kernel that does work. How close to zero it comes is a figure of
 * the machine (bench/loop-spread.py), not something a loaded machine can promise.
 */
static void test_empty_kernel(void **state)
{
	struct tdp_harness_kernel ks[3] = {
		{ "empty-run", empty_run, NULL, NULL, NULL, NULL },
		{ "empty-call", NULL, empty_call, NULL, NULL, NULL },
		{ "work-run", work_run, NULL, NULL, NULL, NULL },
	};
	struct tdp_harness_config cfg;
	struct tdp_harness_result r[3];
	struct tdp_harness *h;

	(void)state;
	tdp_harness_config_init(&cfg);
	assert_int_equal(tdp_harness_open(&h, &cfg, NULL, 0), 0);
	for (int i = 0; i < 3; i++) {
		/*
		 * On a loaded machine every attempt of every repetition may be preempted:
		 * then nothing is kept and the figures are NAN, with the reason. Measure
		 * again a few times so that the figures are usually there to check.
		 */
		for (int tries = 0; tries < 5; tries++) {
			assert_int_equal(tdp_harness_run(h, &ks[i], &r[i]), 0);
			if (r[i].kept)
				break;
		}
		printf("# %s: %.3f ns per iteration (min %.3f, spread %.2f %%), N %llu, fixed cost %.1f ns, "
		       "%u kept, %u remeasured\n",
		       ks[i].name, r[i].ns.median, r[i].ns.min, 100 * r[i].ns.spread,
		       (unsigned long long)r[i].iterations, r[i].fixed_cost_ns, r[i].kept, r[i].remeasured);
		assert_true(r[i].iterations >= 1);
		assert_true(r[i].fixed_cost_ns > 0);
		assert_true(r[i].kept <= r[i].repetitions);
		if (!r[i].kept) {
			/* no figure rather than a wrong one, and it says why */
			assert_true(isnan(r[i].ns.median) && isnan(r[i].ns.min));
			assert_true(r[i].warnings & TDP_HARNESS_WARN_FEW_KEPT);
			assert_true(r[i].remeasured > 0);
			continue;
		}
		assert_true(isfinite(r[i].ns.median));
		/* only repetitions whose N/2N difference is positive are kept: never a negative figure */
		assert_true(r[i].ns.min >= 0);
		assert_true(r[i].ns.min <= r[i].ns.median && r[i].ns.median <= r[i].ns.max);
	}
	/* an empty iteration is a cycle or a few; one of work-run, hundreds */
	for (int i = 0; i < 2; i++)
		if (r[i].kept && r[2].kept)
			assert_true(r[i].ns.median < r[2].ns.median / 10);
	/* the empty kernels fit many more iterations into the same measurement time */
	assert_true(r[0].iterations > r[2].iterations);
	tdp_harness_close(h);
}

/* Whether this machine can count cycles, asked without the harness. */
static int cycles_open_errno(void)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static void test_method_matches_machine(void **state)
{
	struct tdp_harness_kernel k = { "empty", empty_run, NULL, NULL, NULL, NULL };
	struct tdp_harness_config cfg;
	struct tdp_harness_result r;
	char err[256], json[4096];
	int e = cycles_open_errno();

	(void)state;
	tdp_harness_config_init(&cfg);
	cfg.repetitions = 5;
	cfg.warmup_seconds = 0.01;
	cfg.target_seconds = 0.002;
	assert_int_equal(tdp_harness_measure(&k, &cfg, &r, err, sizeof(err)), 0);
	tdp_harness_format_json(&r, json, sizeof(json));
	if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV) {
		/* No hardware PMU (this project's VMs): the clock path, said plainly. */
		assert_int_equal(r.method, TDP_HARNESS_METHOD_CLOCK);
		assert_false(r.has_counter[TDP_HARNESS_CYCLES]);
		assert_false(r.has_counter[TDP_HARNESS_INSTRUCTIONS]);
		assert_false(r.has_topdown);
		assert_non_null(strstr(r.note, "no hardware PMU"));
		assert_non_null(strstr(json, "\"method\": \"clock\""));
		assert_non_null(strstr(json, "\"counters\": null"));
		assert_non_null(strstr(json, "\"level1\": null"));
	} else if (e == 0) {
		assert_int_not_equal(r.method, TDP_HARNESS_METHOD_CLOCK);
		assert_true(r.has_counter[TDP_HARNESS_CYCLES]);
		/* the empty loop retires at least its 2 instructions per iteration */
		assert_true(r.counter[TDP_HARNESS_INSTRUCTIONS].median > 1.5);
		assert_null(strstr(json, "\"counters\": null"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synthetic_clock),
		cmocka_unit_test(test_choose_iterations),
		cmocka_unit_test(test_preempted_remeasured),
		cmocka_unit_test(test_preempted_never_kept),
		cmocka_unit_test(test_always_preempted_keeps_nothing),
		cmocka_unit_test(test_discard_nonpositive_and_inconsistent),
		cmocka_unit_test(test_pair_verdict),
		cmocka_unit_test(test_preempted_shrinks_n),
		cmocka_unit_test(test_pinning_inside_kernel),
		cmocka_unit_test(test_pin_bad_cpu),
		cmocka_unit_test(test_bad_config),
		cmocka_unit_test(test_run_errors),
		cmocka_unit_test(test_empty_kernel),
		cmocka_unit_test(test_method_matches_machine),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
