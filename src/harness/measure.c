/*
 * measure.c: the measurements of one run: warm-up and the choice of N, the
 * fixed cost, the repetitions of N and 2N, the top-down pass.
 *
 * Why N and 2N: a measurement of n iterations costs t(n) = c + n * k, where c
 * is everything paid once (the clock and counter reads, the call into the
 * kernel, its cold first iteration) and k is the cost of one iteration. Then
 * t(2N) - t(N) = N * k exactly, whatever c is, so (t(2N) - t(N)) / N is k with
 * the harness's own cost removed. The same holds for every counter. The order
 * of the two alternates between repetitions, so a slow drift favours neither.
 *
 * Discarding: a repetition during which the thread was preempted or migrated
 * (getrusage's involuntary context switches, the migration counter) measured
 * someone else's time too; one whose difference t(2N) - t(N) is not positive
 * cannot be a cost; one whose 2N measurement is not about twice its N
 * measurement (both less the fixed cost) was hit by something not counted
 * (an interrupt, the hypervisor taking the CPU). Each is discarded, counted by
 * cause, and measured again; none is ever kept, so no figure comes from a
 * disturbed repetition. The attempts are bounded (HARNESS_ATTEMPTS_PER_REP per
 * repetition): on a machine too busy to give that many clean ones the summary
 * is of fewer repetitions, and says so. When more than half of the wanted
 * repetitions are spoilt (a CPU shared with other busy threads: the
 * scheduler's slice is a few ms, shorter than 3 * target), N is divided by
 * HARNESS_SHRINK and the repetitions start over, down to measurements of
 * HARNESS_MIN_MEASURE_NS; removing the fixed cost with N and 2N is what makes
 * such short measurements still exact.
 */
#include "harness-internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Warm-up batches grow until one lasts target / RAMP_DIVISOR. */
#define RAMP_DIVISOR 16
/* Each warm-up size is measured this many times and the least is used (see harness_warmup). */
#define RAMP_TRIES 3
#define HARNESS_ATTEMPTS_PER_REP 4
/* A pair is consistent when (t(2N) - c) / (t(N) - c) lies within this factor of 2. */
#define HARNESS_PAIR_TOLERANCE 1.1
#define HARNESS_SHRINK 4
#define HARNESS_MAX_SHRINKS 6
#define HARNESS_MIN_MEASURE_NS 100000.0

int harness_run_alloc(struct harness_run *run, unsigned reps)
{
	size_t arrays = 3 + HARNESS_MAX_EVENTS;
	double *p = calloc(arrays * reps, sizeof(double));

	if (!p)
		return -ENOMEM;
	run->block = p;
	run->ns = p;
	run->ghz = p + reps;
	run->scratch = p + 2 * (size_t)reps;
	for (size_t i = 0; i < HARNESS_MAX_EVENTS; i++)
		run->cnt[i] = p + (3 + i) * (size_t)reps;
	return 0;
}

void harness_run_free(struct harness_run *run)
{
	free(run->block);
	run->block = NULL;
}

/* The loop for kernels given as one call per iteration; not inlined, so it is the same for every kernel. */
__attribute__((noinline)) static void call_loop(void (*call)(void *), void *arg, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		call(arg);
}

int harness_measure(struct tdp_harness *h, struct harness_group *g, const struct tdp_harness_kernel *k, uint64_t n,
		    struct harness_sample *s)
{
	struct harness_reading a, b;
	uint64_t t0, t1;
	int rc = 0;

	if (g->nr && (rc = harness_group_read(g, &a)) != 0)
		goto out;
	t0 = harness_clock_now(&h->clock);
	if (k->run)
		k->run(k->arg, n);
	else
		call_loop(k->call, k->arg, n);
	t1 = harness_clock_now(&h->clock);
	if (g->nr && (rc = harness_group_read(g, &b)) != 0)
		goto out;
	s->ticks = t1 - t0;
	s->counted = false;
	s->multiplexed = false;
	if (g->nr) {
		uint64_t en = b.enabled - a.enabled, ran = b.running - a.running;

		s->counted = ran > 0;
		s->multiplexed = ran < en;
		for (size_t i = 0; i < g->nr; i++)
			s->count[i] = harness_scale((double)(b.count[i] - a.count[i]), en, ran);
	}
out:
	if (rc)
		snprintf(h->err, sizeof(h->err), "reading the counters failed: %s", strerror(-rc));
	return rc;
}

static double ticks_ns(const struct tdp_harness *h, double ticks)
{
	return ticks * h->clock.ns_per_tick;
}

int harness_warmup(struct tdp_harness *h, struct harness_run *run)
{
	double target = h->cfg.target_seconds * 1e9, warm = h->cfg.warmup_seconds * 1e9, elapsed = 0, ns = 0;
	uint64_t n = 1;
	struct harness_sample s;
	int rc = 0;

	run->n_floor = 0;
	if (h->cfg.iterations && warm <= 0) {
		run->n = h->cfg.iterations;
		goto out;
	}
	for (;;) {
		/*
		 * The least of a few measurements of n: one that was preempted (a busy
		 * machine) would stop the ramp early and make N far too small, and then
		 * every repetition too short to tell N from 2N.
		 */
		ns = INFINITY;
		for (int t = 0; t < RAMP_TRIES; t++) {
			double one;

			rc = harness_measure(h, &h->hw, run->k, n, &s);
			if (rc)
				goto out;
			one = ticks_ns(h, (double)s.ticks);
			elapsed += one;
			ns = one < ns ? one : ns;
		}
		if (ns < target / RAMP_DIVISOR && n < HARNESS_MAX_ITERATIONS / 2) {
			n *= 2;
			continue;
		}
		if (elapsed >= warm)
			break;
	}
	run->est_ns = ns / (double)n;
	if (h->cfg.iterations) {
		run->n = h->cfg.iterations; /* the caller's N is kept as it is */
	} else {
		double want = ns > 0 ? (double)n * target / ns : (double)n;
		double floor_n = run->est_ns > 0 ? HARNESS_MIN_MEASURE_NS / run->est_ns : 1;

		run->n = want < 1 ? 1 : want > (double)HARNESS_MAX_ITERATIONS ? HARNESS_MAX_ITERATIONS : (uint64_t)want;
		run->n_floor = floor_n < 1 ? 1 : floor_n > (double)run->n ? run->n : (uint64_t)floor_n;
	}
out:
	run->n_chosen = run->n;
	return rc;
}

int harness_fixed_cost(struct tdp_harness *h, struct harness_run *run, double *out)
{
	double x[HARNESS_FIXED_COST_SAMPLES];
	struct harness_sample s;
	int rc = 0;

	for (size_t i = 0; i < HARNESS_FIXED_COST_SAMPLES; i++) {
		rc = harness_measure(h, &h->hw, run->k, 0, &s);
		if (rc)
			goto out;
		x[i] = ticks_ns(h, (double)s.ticks);
	}
	*out = harness_median_inplace(x, HARNESS_FIXED_COST_SAMPLES);
out:
	return rc;
}

/* Measure N and 2N (in alternating order); a is the N sample, b the 2N one. */
static int measure_pair(struct tdp_harness *h, struct harness_group *g, const struct tdp_harness_kernel *k,
			uint64_t n, unsigned r, struct harness_sample *a, struct harness_sample *b)
{
	int rc;

	if (r % 2 == 0) {
		rc = harness_measure(h, g, k, n, a);
		if (!rc)
			rc = harness_measure(h, g, k, 2 * n, b);
	} else {
		rc = harness_measure(h, g, k, 2 * n, b);
		if (!rc)
			rc = harness_measure(h, g, k, n, a);
	}
	return rc;
}

static void note_khz(struct tdp_harness *h, struct harness_evidence *ev)
{
	uint64_t khz = harness_cpufreq_khz(h->pin.cpu);

	if (khz && (!ev->khz_min || khz < ev->khz_min))
		ev->khz_min = khz;
	if (khz > ev->khz_max)
		ev->khz_max = khz;
}

/* Keep repetition r of a measured pair. */
static void keep(struct tdp_harness *h, struct harness_run *run, unsigned r, const struct harness_sample *a,
		 const struct harness_sample *b)
{
	double n = (double)run->n;

	run->ns[r] = ticks_ns(h, (double)b->ticks - (double)a->ticks) / n;
	if (h->hw.nr && a->counted && b->counted) {
		size_t c = run->counted;

		for (size_t i = 0; i < h->hw.nr; i++)
			run->cnt[i][c] = (b->count[i] - a->count[i]) / n;
		run->ghz[c] = (a->count[0] + b->count[0]) / ticks_ns(h, (double)(a->ticks + b->ticks));
		run->ev.multiplexed |= a->multiplexed || b->multiplexed;
		run->counted = c + 1;
	}
}

/* Why a measured pair cannot be kept, or HARNESS_KEEP. */
enum harness_verdict harness_pair_verdict(double t1_ns, double t2_ns, double fixed_ns, bool preempted,
					  bool migrated)
{
	double a = t1_ns - fixed_ns, b = t2_ns - fixed_ns;

	if (migrated)
		return HARNESS_DISCARD_MIGRATED;
	if (preempted)
		return HARNESS_DISCARD_PREEMPTED;
	if (!(t2_ns > t1_ns))
		return HARNESS_DISCARD_NONPOSITIVE;
	/* a fixed cost larger than a measurement (a noisy estimate) leaves nothing to compare */
	if (a > 0 && !(b >= 2 * a / HARNESS_PAIR_TOLERANCE && b <= 2 * a * HARNESS_PAIR_TOLERANCE))
		return HARNESS_DISCARD_INCONSISTENT;
	return HARNESS_KEEP;
}

int harness_repetitions(struct tdp_harness *h, struct harness_run *run)
{
	unsigned reps = h->cfg.repetitions, kept = 0, attempts = 0, spoilt = 0;
	struct harness_swcount s0, s1;
	struct harness_sample a, b;
	int rc = 0;

	run->counted = 0;
	while (kept < reps && attempts < reps * HARNESS_ATTEMPTS_PER_REP) {
		enum harness_verdict v;

		attempts++;
		note_khz(h, &run->ev);
		harness_sw_now(h, &s0);
		rc = measure_pair(h, &h->hw, run->k, run->n, attempts, &a, &b);
		if (rc)
			goto out;
		harness_sw_now(h, &s1);
		run->ev.sw.cswitch += s1.cswitch - s0.cswitch;
		run->ev.sw.involuntary += s1.involuntary - s0.involuntary;
		run->ev.sw.migrations += s1.migrations - s0.migrations;
		run->ev.sw.faults += s1.faults - s0.faults;
		v = harness_pair_verdict(ticks_ns(h, (double)a.ticks), ticks_ns(h, (double)b.ticks), run->fixed_ns,
					 s1.involuntary != s0.involuntary, s1.migrations != s0.migrations);
		if (v == HARNESS_KEEP) {
			keep(h, run, kept++, &a, &b);
			continue;
		}
		run->discarded[v]++;
		run->remeasured++;
		/* Most repetitions spoilt: the CPU is shared; shorter measurements fit between interruptions. */
		if (v != HARNESS_DISCARD_NONPOSITIVE && ++spoilt > reps / 2 && run->n_floor && run->n > run->n_floor &&
		    run->shrinks < HARNESS_MAX_SHRINKS) {
			run->n = run->n / HARNESS_SHRINK < run->n_floor ? run->n_floor : run->n / HARNESS_SHRINK;
			run->shrinks++;
			run->counted = 0;
			run->ev.multiplexed = false;
			kept = 0;
			attempts = 0;
			spoilt = 0;
		}
	}
out:
	run->kept = kept;
	return rc;
}

int harness_topdown_pass(struct tdp_harness *h, struct harness_run *run, struct harness_level1 *l1, bool *ok)
{
	unsigned reps = h->cfg.repetitions / 3 < 3 ? 3 : h->cfg.repetitions / 3;
	double sum[HARNESS_MAX_EVENTS] = { 0 };
	struct harness_sample a, b;
	int rc;

	*ok = false;
	rc = harness_group_enable(&h->tdg, true);
	for (unsigned r = 0; !rc && r < reps; r++) {
		rc = measure_pair(h, &h->tdg, run->k, run->n, r, &a, &b);
		if (!rc && a.counted && b.counted)
			for (size_t i = 0; i < h->tdg.nr; i++)
				sum[i] += b.count[i] - a.count[i];
	}
	harness_group_enable(&h->tdg, false);
	if (!rc)
		*ok = !harness_topdown_level1(&h->td, sum, h->tdg.nr, l1);
	return rc;
}
