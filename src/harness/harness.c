/*
 * harness.c: open, run and close a harness (see include/tdprof/harness.h).
 *
 * A run is: setup; warm-up and the choice of N; the fixed cost of an empty
 * measurement; the repetitions of N and 2N; the top-down pass when the CPU has
 * one (all in measure.c); statistics and diagnosis; teardown.
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
	else
		harness_appendf(h->note, sizeof(h->note), "; top-down level 1 from %zu events, in a separate pass",
				h->tdg.nr);
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

static void never_preempted(void *arg, struct harness_swcount *out)
{
	(void)arg;
	memset(out, 0, sizeof(*out));
}

void harness_set_fake_clock(struct tdp_harness *h, harness_clock_fn *fn, void *arg)
{
	h->clock.fake = fn;
	h->clock.fake_arg = arg;
	if (fn)
		h->clock.ns_per_tick = 1.0;
	harness_set_fake_sw(h, fn ? never_preempted : NULL, NULL);
}

void harness_set_fake_sw(struct tdp_harness *h, harness_sw_fn *fn, void *arg)
{
	h->fake_sw = fn;
	h->fake_sw_arg = arg;
}

void harness_sw_now(struct tdp_harness *h, struct harness_swcount *out)
{
	if (h->fake_sw)
		h->fake_sw(h->fake_sw_arg, out);
	else
		harness_sw_read(&h->sw, out);
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

static void fill_counters(struct tdp_harness *h, struct harness_run *run, struct tdp_harness_result *out)
{
	struct tdp_harness_stat g;

	run->ev.ghz_min = run->ev.ghz_max = NAN;
	if (!h->hw.nr)
		return;
	if (!run->counted) {
		harness_appendf(out->note, sizeof(out->note), "; the counters did not run during the measurements");
		return;
	}
	for (size_t i = 0; i < h->hw.nr; i++) {
		int role = h->hw_role[i];

		harness_stats(run->cnt[i], run->counted, run->scratch, &out->counter[role]);
		out->has_counter[role] = true;
	}
	if (out->has_counter[TDP_HARNESS_CYCLES] && out->has_counter[TDP_HARNESS_INSTRUCTIONS] &&
	    out->counter[TDP_HARNESS_CYCLES].median > 0)
		out->ipc = out->counter[TDP_HARNESS_INSTRUCTIONS].median / out->counter[TDP_HARNESS_CYCLES].median;
	harness_stats(run->ghz, run->counted, run->scratch, &g);
	out->ghz = g.median;
	run->ev.ghz_min = g.min;
	run->ev.ghz_max = g.max;
}

static void fill_result(struct tdp_harness *h, struct harness_run *run, struct tdp_harness_result *out)
{
	out->iterations = run->n;
	out->remeasured = run->remeasured;
	out->kept = run->kept;
	out->discarded_preempted = run->discarded[HARNESS_DISCARD_PREEMPTED];
	out->discarded_migrated = run->discarded[HARNESS_DISCARD_MIGRATED];
	out->discarded_nonpositive = run->discarded[HARNESS_DISCARD_NONPOSITIVE];
	out->discarded_inconsistent = run->discarded[HARNESS_DISCARD_INCONSISTENT];
	/* only kept repetitions make figures; none kept leaves them NAN (null), never a guess */
	if (run->kept)
		harness_stats(run->ns, run->kept, run->scratch, &out->ns);
	fill_counters(h, run, out);
	if (run->shrinks)
		harness_appendf(out->note, sizeof(out->note),
				"; N reduced from %llu to %llu: preemptions spoilt most repetitions (a shared CPU)",
				(unsigned long long)run->n_chosen, (unsigned long long)run->n);
	if (h->hw.rdpmc && h->hw.rdpmc_fallbacks)
		harness_appendf(out->note, sizeof(out->note), "; %llu counter reads fell back to read()",
				(unsigned long long)h->hw.rdpmc_fallbacks);
	out->context_switches = run->ev.sw.cswitch;
	out->migrations = run->ev.sw.migrations;
	out->page_faults = run->ev.sw.faults;
	out->steal_ms = run->ev.steal_ms;
	run->ev.spread = out->ns.spread;
	run->ev.threshold = h->cfg.spread_warning;
	run->ev.cpu = h->pin.cpu;
	run->ev.kept = run->kept;
	run->ev.wanted = h->cfg.repetitions;
	memcpy(run->ev.discarded, run->discarded, sizeof(run->ev.discarded));
	harness_diagnose(&run->ev, &out->warnings, out->warning, sizeof(out->warning));
}

int tdp_harness_run(struct tdp_harness *h, const struct tdp_harness_kernel *k, struct tdp_harness_result *out)
{
	uint64_t start = harness_clock_raw_ns();
	struct harness_run run;
	struct harness_level1 l1;
	bool set_up = false, l1_ok = false;
	double steal0;
	int rc = 0, cpu;

	h->err[0] = '\0';
	memset(&run, 0, sizeof(run));
	run.k = k;
	run.ev.steal_ms = NAN;
	result_init(out, h, k);
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
		snprintf(h->err, sizeof(h->err),
			 "the thread runs on CPU %d, not on CPU %d where it was pinned (was its affinity changed?)", cpu,
			 h->pin.cpu);
		rc = -EIO;
		goto out;
	}
	if ((rc = harness_run_alloc(&run, h->cfg.repetitions)) != 0) {
		snprintf(h->err, sizeof(h->err), "out of memory");
		goto out;
	}
	if ((rc = harness_group_enable(&h->hw, true)) != 0) {
		snprintf(h->err, sizeof(h->err), "enabling the counters failed: %s", strerror(-rc));
		goto out;
	}
	if ((rc = harness_warmup(h, &run)) != 0 || (rc = harness_fixed_cost(h, &run, &out->fixed_cost_ns)) != 0)
		goto out;
	run.fixed_ns = out->fixed_cost_ns;
	steal0 = harness_steal_ms(h->pin.cpu);
	rc = harness_repetitions(h, &run);
	run.ev.steal_ms = harness_steal_ms(h->pin.cpu) - steal0;
	harness_group_enable(&h->hw, false);
	if (rc)
		goto out;
	if (h->tdg.nr && (rc = harness_topdown_pass(h, &run, &l1, &l1_ok)) != 0)
		goto out;
	if (l1_ok) {
		out->has_topdown = true;
		out->retiring = l1.retiring;
		out->bad_speculation = l1.bad_speculation;
		out->frontend_bound = l1.frontend_bound;
		out->backend_bound = l1.backend_bound;
		out->smt_contention = l1.smt_contention;
	}
	fill_result(h, &run, out);
	logmsg(h, TDP_HARNESS_LOG_WARNING, out->warning);
out:
	harness_group_enable(&h->hw, false);
	if (set_up && k->teardown)
		k->teardown(k->arg);
	harness_run_free(&run);
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
