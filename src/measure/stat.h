/*
 * stat.h: the counted run of `tdprof stat`: the events (-e LIST, or the triage
 * set: perf stat's defaults plus the L1i and last-level-cache events) counted
 * over a workload, a process, a thread or CPUs, once, -r N times (means), or
 * every -I MS (intervals delivered as they end, and kept for a document that
 * holds them all). The rows of the triage set that this kernel does not support
 * (LLC-loads and LLC-load-misses, both refused) are left out of what is shown.
 * With the simulated backend, the counts valgrind's simulation estimates
 * (measure_stat_from_sim()).
 *
 * Nothing here prints; the workload's stdout is the caller's to divert.
 *
 * Lifecycle:
 *   struct measure_stat m; measure_stat_init(&m);
 *   ret = measure_stat_events(&m, events, &err);            (TDP_EUSAGE: a bad -e)
 *   ret = measure_stat_run(&m, &so, keep, on_interval, arg, &err);
 *   ... m.shown (the totals), m.res (runs, times, per-run values), m.intervals ...
 *   measure_stat_release(&m);
 */
#ifndef TDPROF_MEASURE_STAT_H
#define TDPROF_MEASURE_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/countset.h"
#include "measure/run.h"
#include "pmu/event.h"
#include "pmu/session.h"

struct tdp_err;

/* One interval of -I: its end (ns since counting started), its length, its counts (deltas). */
struct measure_stat_interval {
	uint64_t t_ns;
	double len_ns;
	struct countset counts;
};

/**
 * Called as each interval ends, with the counts as shown (borrowed for the call);
 * counts NULL when they could not be copied (out of memory): the interval is lost.
 */
typedef void measure_stat_interval_fn(void *arg, uint64_t t_ns, double len_ns, const struct countset *counts);

struct measure_stat {
	struct pmu_event_list list;     /* the events parsed */
	bool hide_llc;                  /* the triage set: unsupported LLC rows are not shown */
	struct pmu_session_result res;  /* the session's result (runs, times, per-run values, hardware) */
	struct countset shown;          /* res.counts as shown (backend BACKEND_PMU) */
	struct measure_stat_interval *intervals; /* with keep: every interval as shown */
	size_t nr_intervals;
	/* private: the interval callback */
	measure_stat_interval_fn *fn;
	void *arg;
	uint64_t last_t;
};

/** Make m empty. */
void measure_stat_init(struct measure_stat *m);

/** Free what m owns; m is left as after measure_stat_init(). */
void measure_stat_release(struct measure_stat *m);

/**
 * Parse the events to count: `events` (-e LIST, libpfm4's names too), or NULL for
 * the triage set. Returns 0 or pmu_event_list_parse()'s error (TDP_EUSAGE for a
 * bad name), with err set.
 */
int measure_stat_events(struct measure_stat *m, const char *events, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Count m's events as so says (argv, pid, tid, CPUs, inherit, repeat, interval;
 * its on_interval, arg and keep_intervals are m's to set): fn(arg, ...) for each
 * interval (fn may be NULL); with keep, every interval in m->intervals. Returns 0
 * (m->res.workload_ran says whether a workload was executed), or
 * pmu_session_run()'s error (TDP_EUSAGE: options the kernel refuses; TDP_ENOCMD,
 * TDP_ENOEXEC: the workload cannot be run), or TDP_ENOMEM, with err set.
 */
int measure_stat_run(struct measure_stat *m, struct pmu_session_opts *so, bool keep, measure_stat_interval_fn *fn,
		     void *arg, struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * The counts of a simulated run s (perf's names, every one an estimate) into cs
 * (empty), with no elapsed time (valgrind's wall time is not the program's).
 * Returns 0 or sim_estimate_countset()'s error.
 */
int measure_stat_from_sim(const struct measure_sim *s, struct countset *cs, struct tdp_err *err)
	__attribute__((warn_unused_result));

#endif
