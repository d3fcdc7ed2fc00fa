/*
 * clock.c: the time source of the harness.
 *
 * The invariant TSC is preferred: it ticks at a constant rate whatever the core
 * clock does, rdtsc costs about 10 ns even in a KVM guest (clock_gettime costs
 * 20-30 ns through the vDSO, and a system call where the clocksource has no
 * vDSO support), and it is never adjusted. Its rate is calibrated once against
 * CLOCK_MONOTONIC_RAW (which NTP does not slew) over HARNESS_CALIBRATE_NS; each
 * end of the window is the tightest of several rdtsc/clock_gettime/rdtsc
 * brackets, so a preemption during calibration costs accuracy only if it hits
 * every bracket. The error over 20 ms is a few parts per million.
 */
#include "harness-internal.h"
#include "arch.h"

#include <time.h>

#define CALIBRATE_BRACKETS 7

uint64_t harness_clock_raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t harness_clock_now(const struct harness_clock *c)
{
	if (c->fake)
		return c->fake(c->fake_arg);
	if (c->kind == TDP_HARNESS_CLOCK_TSC)
		return harness_arch_tsc();
	return harness_clock_raw_ns();
}

/* One (tsc, ns) pair taken as close together as we can observe. */
static void pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < CALIBRATE_BRACKETS; i++) {
		uint64_t a = harness_arch_tsc();
		uint64_t t = harness_clock_raw_ns();
		uint64_t b = harness_arch_tsc();

		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = t;
		}
	}
}

void harness_clock_init(struct harness_clock *c, unsigned flags)
{
	uint64_t t0, n0, t1, n1;
	struct timespec req = { 0, HARNESS_CALIBRATE_NS };
	double npt;

	c->kind = TDP_HARNESS_CLOCK_MONOTONIC_RAW;
	c->ns_per_tick = 1.0;
	c->fake = NULL;
	c->fake_arg = NULL;
	if ((flags & TDP_HARNESS_NO_TSC) || !harness_arch_has_tsc())
		return;
	pair(&t0, &n0);
	while (nanosleep(&req, &req))
		;
	pair(&t1, &n1);
	if (t1 <= t0 || n1 <= n0)
		return;
	npt = (double)(n1 - n0) / (double)(t1 - t0);
	/* A TSC between 100 MHz and 20 GHz; anything else is a broken calibration. */
	if (npt > 0.05 && npt < 10.0) {
		c->kind = TDP_HARNESS_CLOCK_TSC;
		c->ns_per_tick = npt;
	}
}
