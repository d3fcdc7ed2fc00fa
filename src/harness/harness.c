/*
 * harness.c: open, run and close a harness (see include/tdprof/harness.h).
 *
 * A run is: setup; warm-up, which doubles the batch size until one batch lasts
 * a sixteenth of the target time and keeps running until warmup_seconds have
 * passed (so caches, predictors and the core clock have settled); N chosen from
 * the last, warmest batch so one measurement lasts the target time; the fixed
 * cost of an empty measurement; the repetitions, each measuring N and 2N
 * iterations (alternating which goes first, so a slow drift biases neither);
 * the top-down pass when the CPU has one; statistics and diagnosis; teardown.
 *
 * Why N and 2N: a measurement of n iterations costs t(n) = c + n * k, where c
 * is everything paid once (the clock and counter reads, the call into the
 * kernel, its cold first iteration) and k is the cost of one iteration. Then
 * t(2N) - t(N) = N * k exactly, whatever c is, so (t(2N) - t(N)) / N is k with
 * the harness's own cost removed. The same holds for every counter.
 */
#include "harness-internal.h"
#include "arch.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_REPETITIONS 31
#define DEFAULT_TARGET_SECONDS 0.01
#define DEFAULT_WARMUP_SECONDS 0.1
#define DEFAULT_SPREAD_WARNING 0.01
#define MAX_TARGET_SECONDS 60.0
#define MAX_WARMUP_SECONDS 600.0
/* Warm-up batches grow until one lasts target / RAMP_DIVISOR. */
#define RAMP_DIVISOR 16

/* One measurement: clock ticks and scaled counter deltas. */
struct sample {
	uint64_t ticks;
	double count[HARNESS_MAX_EVENTS];
	bool counted;     /* the group ran (time_running advanced) */
	bool multiplexed; /* it ran only part of the time: counts are scaled */
};

void tdp_harness_config_init(struct tdp_harness_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->cpu = TDP_HARNESS_CPU_CURRENT;
	cfg->repetitions = DEFAULT_REPETITIONS;
	cfg->target_seconds = DEFAULT_TARGET_SECONDS;
	cfg->warmup_seconds = DEFAULT_WARMUP_SECONDS;
	cfg->iterations = 0;
	cfg->spread_warning = DEFAULT_SPREAD_WARNING;
	cfg->flags = 0;
	cfg->log = NULL;
	cfg->log_arg = NULL;
}

static int check_config(const struct tdp_harness_config *c, char *err, size_t size)
{
	if (c->cpu < TDP_HARNESS_CPU_CURRENT || c->cpu >= CPU_SETSIZE)
		snprintf(err, size, "CPU %d is out of range (0 to %d)", c->cpu, CPU_SETSIZE - 1);
	else if (c->repetitions < 3 || c->repetitions > TDP_HARNESS_MAX_REPETITIONS)
		snprintf(err, size, "%u repetitions is out of range (3 to %u)", c->repetitions,
			 TDP_HARNESS_MAX_REPETITIONS);
	else if (!(c->target_seconds > 0 && c->target_seconds <= MAX_TARGET_SECONDS))
		snprintf(err, size, "target time %g s is out of range (above 0, at most %g)", c->target_seconds,
			 MAX_TARGET_SECONDS);
	else if (!(c->warmup_seconds >= 0 && c->warmup_seconds <= MAX_WARMUP_SECONDS))
		snprintf(err, size, "warm-up time %g s is out of range (0 to %g)", c->warmup_seconds,
			 MAX_WARMUP_SECONDS);
	else if (c->iterations > HARNESS_MAX_ITERATIONS)
		snprintf(err, size, "%llu iterations is more than the limit (%llu)", (unsigned long long)c->iterations,
			 (unsigned long long)HARNESS_MAX_ITERATIONS);
	else if (!(c->spread_warning >= 0 && c->spread_warning < 1e6))
		snprintf(err, size, "spread warning %g is not a fraction >= 0", c->spread_warning);
	else
		return 0;
	return -EINVAL;
}

static void logmsg(const struct tdp_harness *h, enum tdp_harness_log_level level, const char *msg)
{
	if (h->cfg.log && msg[0])
		h->cfg.log(h->cfg.log_arg, level, msg);
}

static void seterr(char *buf, size_t size, const char *msg)
{
	if (buf && size)
		snprintf(buf, size, "%s", msg);
}

/* Why cycles could not be opened, in words, with the remedy where there is one. */
static void explain_open_failure(int rc, const char *detail, char *note, size_t size)
{
	char par[16] = "?";

	harness_read_file("/proc/sys/kernel/perf_event_paranoid", par, sizeof(par));
	if (rc == -ENOENT || rc == -EOPNOTSUPP || rc == -ENODEV)
		harness_appendf(note, size, "method clock: no hardware PMU here (%s; usual in virtual machines)",
				detail);
	else if (rc == -EACCES || rc == -EPERM)
		harness_appendf(note, size,
				"method clock: hardware counters not permitted (%s; kernel.perf_event_paranoid is %s: "
				"'sysctl kernel.perf_event_paranoid=2' allows counting your own threads)",
				detail, par);
	else
		harness_appendf(note, size, "method clock: hardware counters unavailable (%s)", detail);
}

/*
 * arm64: with perf_user_access = 1 the counters of the core PMU, opened by its
 * own type with config1 bit 1 ("rdpmc"), and bit 0 for 64-bit counters, can be
 * read with mrs (Documentation/arch/arm64/perf.rst). Generic hardware events
 * cannot be read that way on heterogeneous systems, so the raw PMUv3 events
 * CPU_CYCLES 0x11, INST_RETIRED 0x08, BR_MIS_PRED 0x10 are used.
 */
static bool arm64_user_events(int cpu, struct harness_event *ev, uint64_t config1)
{
	char buf[16], name[128];
	uint32_t type;

	if (strcmp(HARNESS_ARCH_NAME, "arm64") || harness_read_file("/proc/sys/kernel/perf_user_access", buf,
								     sizeof(buf)) <= 0 || strcmp(buf, "1"))
		return false;
	if (harness_arm_core_pmu("/sys", cpu, &type, name, sizeof(name)))
		return false;
	ev[0] = (struct harness_event){ type, 0x11, config1, "cpu_cycles" };
	ev[1] = (struct harness_event){ type, 0x08, config1, "inst_retired" };
	ev[2] = (struct harness_event){ type, 0x10, config1, "br_mis_pred" };
	return true;
}

static void open_hw(struct tdp_harness *h)
{
	static const struct harness_event generic[3] = {
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, "cycles" },
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, "instructions" },
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 0, "branch-misses" },
	};
	unsigned flags = (h->cfg.flags & TDP_HARNESS_NO_RDPMC) ? 0 : HARNESS_GROUP_RDPMC;
	struct harness_event ev[3];
	char err[HARNESS_ERR_MAX] = "";
	int rc = -ENOENT;

	h->method = TDP_HARNESS_METHOD_CLOCK;
	if (h->cfg.flags & TDP_HARNESS_NO_COUNTERS) {
		harness_appendf(h->note, sizeof(h->note), "method clock: hardware counters not requested");
		return;
	}
	/* Try the 64-bit and 32-bit arm64 user-access encodings, then the generic events. */
	for (int attempt = 0; attempt < 3 && rc; attempt++) {
		if (attempt < 2 && (!flags || !arm64_user_events(h->pin.cpu, ev, attempt == 0 ? 3 : 2)))
			continue;
		if (attempt == 2)
			memcpy(ev, generic, sizeof(ev));
		/* All three, else cycles and instructions (branch-misses may be missing). */
		for (size_t nr = 3; nr >= 2 && rc; nr--) {
			rc = harness_group_open(&h->hw, ev, nr, flags, err, sizeof(err));
			if (!rc && (rc = harness_group_probe(&h->hw)) != 0) {
				if (rc == -ENODATA)
					snprintf(err, sizeof(err), "the counters could not be scheduled (all in use?)");
				harness_group_close(&h->hw);
			}
		}
	}
	if (rc) {
		explain_open_failure(rc, err, h->note, sizeof(h->note));
		return;
	}
	for (size_t i = 0; i < h->hw.nr; i++)
		h->hw_role[i] = (int)i;
	if (h->hw.rdpmc) {
		h->method = TDP_HARNESS_METHOD_RDPMC;
		harness_appendf(h->note, sizeof(h->note), "method rdpmc: counters read in user space (perf mmap page)");
	} else {
		h->method = TDP_HARNESS_METHOD_READ;
		harness_appendf(h->note, sizeof(h->note), "method read: counters read with read() (%s)",
				flags ? "the kernel does not allow user-space reads of these counters"
				      : "rdpmc not requested");
	}
}

static void open_topdown(struct tdp_harness *h)
{
	struct harness_cpu_id id;
	char err[HARNESS_ERR_MAX] = "";
	int rc = -ENOENT;

	if (h->hw.nr == 0 || (h->cfg.flags & TDP_HARNESS_NO_TOPDOWN))
		return;
	harness_cpu_id_read(&id, h->pin.cpu);
	harness_topdown_detect(&h->td, &id, "/sys", h->pin.cpu);
	if (h->td.kind == HARNESS_TD_NONE) {
		harness_appendf(h->note, sizeof(h->note), "; top-down not counted: %s", h->td.why_not);
		return;
	}
	/* All events, else only the required ones (AMD's smt_contention is optional). */
	for (size_t nr = h->td.nr; nr >= h->td.nr_required && nr > 0 && rc; nr--) {
		rc = harness_group_open(&h->tdg, h->td.ev, nr, 0, err, sizeof(err));
		if (!rc && (rc = harness_group_probe(&h->tdg)) != 0) {
			if (rc == -ENODATA)
				snprintf(err, sizeof(err), "the %zu top-down events could not be scheduled together", nr);
			harness_group_close(&h->tdg);
		}
	}
	if (rc)
		harness_appendf(h->note, sizeof(h->note), "; top-down not counted: %s", err);
}

static void describe_clock(struct tdp_harness *h)
{
	if (h->clock.kind == TDP_HARNESS_CLOCK_TSC)
		harness_appendf(h->note, sizeof(h->note),
				"; time from the invariant TSC (%.1f MHz, calibrated against CLOCK_MONOTONIC_RAW)",
				1e3 / h->clock.ns_per_tick);
	else if (h->cfg.flags & TDP_HARNESS_NO_TSC)
		harness_appendf(h->note, sizeof(h->note), "; time from CLOCK_MONOTONIC_RAW");
	else if (!harness_arch_has_tsc())
		harness_appendf(h->note, sizeof(h->note), "; time from CLOCK_MONOTONIC_RAW (no invariant TSC)");
	else
		harness_appendf(h->note, sizeof(h->note),
				"; time from CLOCK_MONOTONIC_RAW (the TSC calibration was implausible)");
}

int tdp_harness_open(struct tdp_harness **out, const struct tdp_harness_config *cfg, char *errbuf, size_t errlen)
{
	struct tdp_harness *h = calloc(1, sizeof(*h));
	int rc;

	if (!h) {
		seterr(errbuf, errlen, "out of memory");
		return -ENOMEM;
	}
	if (cfg)
		h->cfg = *cfg;
	else
		tdp_harness_config_init(&h->cfg);
	harness_group_init(&h->hw);
	harness_group_init(&h->tdg);
	harness_group_init(&h->sw.group);
	h->pin.cpu = -1;
	rc = check_config(&h->cfg, h->err, sizeof(h->err));
	if (rc)
		goto out;
	if (!(h->cfg.flags & TDP_HARNESS_NO_PIN)) {
		rc = harness_pin(&h->pin, h->cfg.cpu, h->err, sizeof(h->err));
		if (rc)
			goto out;
	}
	harness_clock_init(&h->clock, h->cfg.flags);
	harness_sw_open(&h->sw);
	open_hw(h);
	open_topdown(h);
	describe_clock(h);
	if (h->pin.cpu >= 0)
		harness_appendf(h->note, sizeof(h->note), "; pinned to CPU %d", h->pin.cpu);
	else
		harness_appendf(h->note, sizeof(h->note), "; not pinned");
	logmsg(h, TDP_HARNESS_LOG_NOTE, h->note);
out:
	if (rc) {
		seterr(errbuf, errlen, h->err);
		tdp_harness_close(h);
	} else {
		*out = h;
	}
	return rc;
}

void tdp_harness_close(struct tdp_harness *h)
{
	if (!h)
		return;
	harness_group_close(&h->tdg);
	harness_group_close(&h->hw);
	harness_sw_close(&h->sw);
	harness_unpin(&h->pin);
	free(h);
}

const char *tdp_harness_error(const struct tdp_harness *h)
{
	return h ? h->err : "";
}

enum tdp_harness_method tdp_harness_method(const struct tdp_harness *h)
{
	return h->method;
}

void harness_set_fake_clock(struct tdp_harness *h, harness_clock_fn *fn, void *arg)
{
	h->clock.fake = fn;
	h->clock.fake_arg = arg;
	if (fn)
		h->clock.ns_per_tick = 1.0;
}

/* The loop for kernels given as one call per iteration; not inlined, so it is the same for every kernel. */
__attribute__((noinline)) static void call_loop(void (*call)(void *), void *arg, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		call(arg);
}

static int measure(struct tdp_harness *h, struct harness_group *g, const struct tdp_harness_kernel *k,
		   uint64_t n, struct sample *s)
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
		uint64_t en = b.enabled - a.enabled, run = b.running - a.running;

		s->counted = run > 0;
		s->multiplexed = run < en;
		for (size_t i = 0; i < g->nr; i++)
			s->count[i] = harness_scale((double)(b.count[i] - a.count[i]), en, run);
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

/* Warm up and choose N (see the top of this file). */
static int choose_iterations(struct tdp_harness *h, const struct tdp_harness_kernel *k, uint64_t *n_out)
{
	double target = h->cfg.target_seconds * 1e9, warm = h->cfg.warmup_seconds * 1e9, elapsed = 0, ns = 0;
	uint64_t n = 1;
	struct sample s;
	int rc = 0;

	if (h->cfg.iterations && warm <= 0) {
		*n_out = h->cfg.iterations;
		goto out;
	}
	for (;;) {
		rc = measure(h, &h->hw, k, n, &s);
		if (rc)
			goto out;
		ns = ticks_ns(h, (double)s.ticks);
		elapsed += ns;
		if (ns < target / RAMP_DIVISOR && n < HARNESS_MAX_ITERATIONS / 2) {
			n *= 2;
			continue;
		}
		if (elapsed >= warm)
			break;
	}
	if (h->cfg.iterations) {
		*n_out = h->cfg.iterations;
	} else {
		double want = ns > 0 ? (double)n * target / ns : (double)n;

		*n_out = want < 1 ? 1 : want > (double)HARNESS_MAX_ITERATIONS ? HARNESS_MAX_ITERATIONS : (uint64_t)want;
	}
out:
	return rc;
}

static int fixed_cost(struct tdp_harness *h, const struct tdp_harness_kernel *k, double *out)
{
	double x[HARNESS_FIXED_COST_SAMPLES];
	struct sample s;
	int rc = 0;

	for (size_t i = 0; i < HARNESS_FIXED_COST_SAMPLES; i++) {
		rc = measure(h, &h->hw, k, 0, &s);
		if (rc)
			goto out;
		x[i] = ticks_ns(h, (double)s.ticks);
	}
	*out = harness_median_inplace(x, HARNESS_FIXED_COST_SAMPLES);
out:
	return rc;
}

/* Per-run working arrays, one allocation. */
struct work {
	double *ns;                                /* [reps] ns per iteration */
	double *cnt[HARNESS_MAX_EVENTS];           /* [reps] count per iteration, per hw event */
	double *ghz;                               /* [reps] cycles per ns */
	double *scratch;                           /* [reps] */
	void *block;
};

static int work_alloc(struct work *w, size_t reps)
{
	size_t arrays = 3 + HARNESS_MAX_EVENTS;
	double *p = calloc(arrays * reps, sizeof(double));

	memset(w, 0, sizeof(*w));
	if (!p)
		return -ENOMEM;
	w->block = p;
	w->ns = p;
	w->ghz = p + reps;
	w->scratch = p + 2 * reps;
	for (size_t i = 0; i < HARNESS_MAX_EVENTS; i++)
		w->cnt[i] = p + (3 + i) * reps;
	return 0;
}

/* Measure N and 2N (in alternating order); a is the N sample, b the 2N one. */
static int measure_pair(struct tdp_harness *h, struct harness_group *g, const struct tdp_harness_kernel *k,
			uint64_t n, unsigned r, struct sample *a, struct sample *b)
{
	int rc;

	if (r % 2 == 0) {
		rc = measure(h, g, k, n, a);
		if (!rc)
			rc = measure(h, g, k, 2 * n, b);
	} else {
		rc = measure(h, g, k, 2 * n, b);
		if (!rc)
			rc = measure(h, g, k, n, a);
	}
	return rc;
}

static int repetitions(struct tdp_harness *h, const struct tdp_harness_kernel *k, uint64_t n, struct work *w,
		       size_t *counted, struct harness_evidence *ev)
{
	unsigned reps = h->cfg.repetitions;
	struct harness_swcount s0, s1;
	struct sample a, b;
	int rc = 0;

	*counted = 0;
	ev->khz_min = 0;
	ev->khz_max = 0;
	for (unsigned r = 0; r < reps; r++) {
		uint64_t khz = harness_cpufreq_khz(h->pin.cpu);

		if (khz && (!ev->khz_min || khz < ev->khz_min))
			ev->khz_min = khz;
		if (khz > ev->khz_max)
			ev->khz_max = khz;
		harness_sw_read(&h->sw, &s0);
		rc = measure_pair(h, &h->hw, k, n, r, &a, &b);
		if (rc)
			goto out;
		harness_sw_read(&h->sw, &s1);
		ev->sw.cswitch += s1.cswitch - s0.cswitch;
		ev->sw.migrations += s1.migrations - s0.migrations;
		ev->sw.faults += s1.faults - s0.faults;
		w->ns[r] = ticks_ns(h, (double)b.ticks - (double)a.ticks) / (double)n;
		if (h->hw.nr && a.counted && b.counted) {
			size_t c = *counted;

			for (size_t i = 0; i < h->hw.nr; i++)
				w->cnt[i][c] = (b.count[i] - a.count[i]) / (double)n;
			w->ghz[c] = (a.count[0] + b.count[0]) / ticks_ns(h, (double)(a.ticks + b.ticks));
			ev->multiplexed |= a.multiplexed || b.multiplexed;
			*counted = c + 1;
		}
	}
out:
	return rc;
}

static int topdown_pass(struct tdp_harness *h, const struct tdp_harness_kernel *k, uint64_t n,
			struct tdp_harness_result *out)
{
	unsigned reps = h->cfg.repetitions / 3 < 3 ? 3 : h->cfg.repetitions / 3;
	double sum[HARNESS_MAX_EVENTS] = { 0 };
	struct harness_level1 l1;
	struct sample a, b;
	int rc;

	rc = harness_group_enable(&h->tdg, true);
	for (unsigned r = 0; !rc && r < reps; r++) {
		rc = measure_pair(h, &h->tdg, k, n, r, &a, &b);
		if (!rc && a.counted && b.counted)
			for (size_t i = 0; i < h->tdg.nr; i++)
				sum[i] += b.count[i] - a.count[i];
	}
	harness_group_enable(&h->tdg, false);
	if (!rc && !harness_topdown_level1(&h->td, sum, h->tdg.nr, &l1)) {
		out->has_topdown = true;
		out->retiring = l1.retiring;
		out->bad_speculation = l1.bad_speculation;
		out->frontend_bound = l1.frontend_bound;
		out->backend_bound = l1.backend_bound;
		out->smt_contention = l1.smt_contention;
	}
	return rc;
}

static void result_init(struct tdp_harness_result *out, const struct tdp_harness *h,
			const struct tdp_harness_kernel *k)
{
	const struct tdp_harness_stat nan_stat = { NAN, NAN, NAN, NAN, NAN };

	memset(out, 0, sizeof(*out));
	out->kernel = k ? k->name : NULL;
	out->method = h->method;
	out->clock = h->clock.kind;
	out->cpu = h->pin.cpu;
	out->repetitions = h->cfg.repetitions;
	out->ns = nan_stat;
	out->fixed_cost_ns = NAN;
	out->seconds = NAN;
	for (int i = 0; i < TDP_HARNESS_NR_COUNTERS; i++)
		out->counter[i] = nan_stat;
	out->ipc = NAN;
	out->ghz = NAN;
	out->retiring = out->bad_speculation = out->frontend_bound = out->backend_bound = NAN;
	out->smt_contention = NAN;
	out->steal_ms = NAN;
	snprintf(out->note, sizeof(out->note), "%s", h->note);
}

static void fill_counters(struct tdp_harness *h, struct work *w, size_t counted, struct tdp_harness_result *out,
			  struct harness_evidence *ev)
{
	ev->ghz_min = ev->ghz_max = NAN;
	if (!h->hw.nr)
		return;
	if (!counted) {
		harness_appendf(out->note, sizeof(out->note), "; the counters did not run during the measurements");
		return;
	}
	for (size_t i = 0; i < h->hw.nr; i++) {
		int role = h->hw_role[i];

		harness_stats(w->cnt[i], counted, w->scratch, &out->counter[role]);
		out->has_counter[role] = true;
	}
	if (out->has_counter[TDP_HARNESS_CYCLES] && out->has_counter[TDP_HARNESS_INSTRUCTIONS] &&
	    out->counter[TDP_HARNESS_CYCLES].median > 0)
		out->ipc = out->counter[TDP_HARNESS_INSTRUCTIONS].median / out->counter[TDP_HARNESS_CYCLES].median;
	{
		struct tdp_harness_stat g;

		harness_stats(w->ghz, counted, w->scratch, &g);
		out->ghz = g.median;
		ev->ghz_min = g.min;
		ev->ghz_max = g.max;
	}
}

int tdp_harness_run(struct tdp_harness *h, const struct tdp_harness_kernel *k, struct tdp_harness_result *out)
{
	struct harness_evidence ev;
	uint64_t start = harness_clock_raw_ns(), n = 0;
	double steal0;
	bool set_up = false;
	size_t counted = 0;
	struct work w = { 0 };
	int rc = 0, cpu;

	h->err[0] = '\0';
	result_init(out, h, k);
	memset(&ev, 0, sizeof(ev));
	if (!k || (!k->run && !k->call)) {
		snprintf(h->err, sizeof(h->err), "the kernel has neither a run nor a call function");
		rc = -EINVAL;
		goto out;
	}
	if (k->setup && (rc = k->setup(k->arg)) != 0) {
		snprintf(h->err, sizeof(h->err), "the setup of kernel '%s' failed (it returned %d)",
			 k->name ? k->name : "(unnamed)", rc);
		rc = -ECANCELED;
		goto out;
	}
	set_up = true;
	cpu = sched_getcpu();
	if (h->pin.cpu >= 0 && cpu != h->pin.cpu) {
		snprintf(h->err, sizeof(h->err), "the thread runs on CPU %d, not on CPU %d where it was pinned "
			 "(was its affinity changed?)", cpu, h->pin.cpu);
		rc = -EIO;
		goto out;
	}
	rc = work_alloc(&w, h->cfg.repetitions);
	if (rc) {
		snprintf(h->err, sizeof(h->err), "out of memory");
		goto out;
	}
	if ((rc = harness_group_enable(&h->hw, true)) != 0) {
		snprintf(h->err, sizeof(h->err), "enabling the counters failed: %s", strerror(-rc));
		goto out;
	}
	if ((rc = choose_iterations(h, k, &n)) != 0 || (rc = fixed_cost(h, k, &out->fixed_cost_ns)) != 0)
		goto out;
	out->iterations = n;
	steal0 = harness_steal_ms(h->pin.cpu);
	rc = repetitions(h, k, n, &w, &counted, &ev);
	ev.steal_ms = harness_steal_ms(h->pin.cpu) - steal0;
	harness_group_enable(&h->hw, false);
	if (rc)
		goto out;
	if (h->tdg.nr && (rc = topdown_pass(h, k, n, out)) != 0)
		goto out;
	harness_stats(w.ns, h->cfg.repetitions, w.scratch, &out->ns);
	fill_counters(h, &w, counted, out, &ev);
	if (h->hw.rdpmc && h->hw.rdpmc_fallbacks)
		harness_appendf(out->note, sizeof(out->note), "; %llu counter reads fell back to read()",
				(unsigned long long)h->hw.rdpmc_fallbacks);
	out->context_switches = ev.sw.cswitch;
	out->migrations = ev.sw.migrations;
	out->page_faults = ev.sw.faults;
	out->steal_ms = ev.steal_ms;
	ev.spread = out->ns.spread;
	ev.threshold = h->cfg.spread_warning;
	ev.cpu = h->pin.cpu;
	harness_diagnose(&ev, &out->warnings, out->warning, sizeof(out->warning));
	logmsg(h, TDP_HARNESS_LOG_WARNING, out->warning);
out:
	harness_group_enable(&h->hw, false);
	if (set_up && k->teardown)
		k->teardown(k->arg);
	free(w.block);
	out->seconds = (double)(harness_clock_raw_ns() - start) / 1e9;
	return rc;
}

int tdp_harness_measure(const struct tdp_harness_kernel *k, const struct tdp_harness_config *cfg,
			struct tdp_harness_result *out, char *errbuf, size_t errlen)
{
	struct tdp_harness *h;
	int rc = tdp_harness_open(&h, cfg, errbuf, errlen);

	if (rc) {
		memset(out, 0, sizeof(*out));
		return rc;
	}
	rc = tdp_harness_run(h, k, out);
	if (rc)
		seterr(errbuf, errlen, h->err);
	tdp_harness_close(h);
	return rc;
}
