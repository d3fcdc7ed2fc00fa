/*
 * session.h: one measurement, end to end: start the workload (or attach to a
 * process, a thread or CPUs), count an event list over it, deliver interval deltas,
 * repeat it N times, and return a struct countset with what the engine knows about
 * each count (status, running fraction, spread over runs) and the workload's fate.
 *
 * This is what `tdprof stat` and `tdprof topdown` call. `tdprof topdown
 * --no-multiplex` calls pmu_session_run_sets() to run the workload once per group
 * set and get one countset whose groups are numbered across the sets.
 *
 * Lifecycle:
 *   1. struct pmu_session_opts o = PMU_SESSION_OPTS_INIT; o.argv = ...;
 *      struct pmu_session_result r = PMU_SESSION_RESULT_INIT;
 *   2. pmu_session_run(&events, &o, &r, &err);
 *   3. read r.counts, r.wstatus, ...; pmu_session_result_release(&r).
 *
 * Signals: while a session runs, SIGINT, SIGTERM and SIGHUP are blocked in the calling
 * thread and read from a signalfd; the previous mask is restored before returning.
 * With a forked workload a signal sent to tdprof with kill(2) is forwarded to the
 * workload and the session waits for the workload to end (a terminal's ^C already
 * reaches the whole foreground process group, so it is not sent twice); the counts
 * are then returned as usual and r.signal says what happened. When attached (-p,
 * -t) or counting CPUs without a workload, they end the counting.
 * The workload starts with the mask the caller had, so it sees signals as usual.
 *
 * Overhead: the workload is forked and parked before the counters are opened with
 * enable_on_exec, so nothing of tdprof is counted and nothing runs inside the
 * workload beyond fork, one read() and execvp().
 */
#ifndef TDPROF_PMU_SESSION_H
#define TDPROF_PMU_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/countset.h"
#include "pmu/event.h"

struct tdp_err;

#define PMU_SESSION_MAX_RUNS 100000        /* -r */
#define PMU_SESSION_MIN_INTERVAL_MS 10     /* -I: perf's minimum too */
#define PMU_SESSION_MAX_INTERVALS 1000000  /* intervals kept for JSON */

/**
 * Called after each interval with its end time (ns since counting started) and
 * the counts of that interval (deltas, scaled). Both borrowed for the call only.
 */
typedef void pmu_interval_fn(void *arg, uint64_t t_ns, const struct countset *delta);

struct pmu_session_opts {
	char *const *argv;          /* workload, NULL-terminated; NULL: no workload (attach or CPUs) */
	pid_t pid;                  /* > 0: count every thread of this running process (-p) */
	pid_t tid;                  /* > 0: count this running thread (-t) */
	bool system_wide;           /* count every online CPU (-a) */
	const char *cpu_list;       /* count these CPUs, "0-3,6" (-C); NULL: none */
	bool no_inherit;            /* do not count threads and children created later */
	unsigned repeat;            /* runs of the workload (0 and 1: once); averaged */
	unsigned interval_ms;       /* > 0: deliver deltas every interval_ms (not with repeat > 1) */
	pmu_interval_fn *on_interval; /* NULL: none */
	void *arg;                  /* passed to on_interval */
	bool keep_intervals;        /* also store every interval in the result */
	bool until_signal;          /* perf stat's -r 0: run again and again until SIGINT, SIGTERM or SIGHUP
				     * (at most PMU_SESSION_MAX_RUNS runs); the run the signal cuts short
				     * is left out of the means when a whole run was made before it */
};

#define PMU_SESSION_OPTS_INIT { NULL, 0, 0, false, NULL, false, 1, 0, NULL, NULL, false, false }

struct pmu_interval {
	uint64_t t_ns;              /* end of the interval, ns since counting started */
	struct countset counts;     /* deltas over the interval */
};

struct pmu_session_result {
	/*
	 * Totals, one count per event in list order (over several sets: set after set,
	 * groups renumbered so that no two sets share a number). With repeat > 1 each
	 * value is the mean over the runs that counted it and stddev_pct is perf's
	 * "+-": the standard error of the mean relative to the mean, in percent.
	 * counts.elapsed_ns: mean wall time from exec (or enable) to exit (or stop).
	 */
	struct countset counts;
	double elapsed_stddev_ns;   /* standard error of the mean elapsed time; 0 with one run */
	unsigned runs;              /* runs completed */
	/*
	 * With repeat > 1 (pmu_session_run() only; NULL otherwise): every run's value,
	 * per_run[i * runs + r] for count i of run r (NAN when that run did not count
	 * it), and every run's elapsed time (NAN when unknown), so the caller can keep
	 * the per-run figures and compute intervals (issue 9).
	 */
	double *per_run;
	double *per_run_elapsed_ns;
	bool workload_ran;          /* a workload was executed: wstatus is valid */
	int wstatus;                /* wait status of the last run */
	double user_ns, sys_ns;     /* CPU time of the last run's workload (rusage); <0 unknown */
	int signal;                 /* SIGINT, SIGTERM or SIGHUP received during the session; 0 none */
	struct pmu_interval *intervals; /* with keep_intervals */
	size_t nr_intervals;
	size_t intervals_alloc;
	/*
	 * Hardware counters: how many were asked for, how many opened, the first
	 * failure (cpu_explain_open_error() in src/cpu turns hw_errno into words).
	 */
	size_t nr_hw;
	size_t nr_hw_open;
	int hw_errno;               /* errno of the first hardware event that did not open; 0 none */
	char hw_event[64];          /* its name */
	/*
	 * Kernel counting was refused (perf_event_paranoid >= 2, unprivileged) and
	 * some events count user space only, as perf falls back to.
	 */
	bool user_only;
	bool cut_run_left_out;      /* until_signal: the run the signal cut short is not in the counts */
};

#define PMU_SESSION_RESULT_INIT { COUNTSET_INIT, 0, 0, NULL, NULL, false, 0, -1, -1, 0, NULL, 0, 0, 0, 0, 0, { 0 }, false, false }

/**
 * Run one measurement of `events` (borrowed) as `o` (borrowed) says, filling `res`
 * (must be PMU_SESSION_RESULT_INIT or released).
 * Returns 0 (even when the workload failed or was killed: see res->wstatus), or:
 * TDP_ENOCMD / TDP_ENOEXEC: the workload could not be run (message as a shell's);
 * TDP_EUSAGE: contradictory options (message names them);
 * TDP_ENOENT: the -p/-t task does not exist, or a -C CPU is not online;
 * TDP_EPERM: counting is not allowed (hint: perf_event_paranoid);
 * TDP_ELIMIT, TDP_EIO, TDP_ENOMEM. res keeps what was measured before a failure
 * of a later run; release it either way.
 * Blocks until the workload or target ends, or a signal stops the session.
 */
int pmu_session_run(const struct pmu_event_list *events, const struct pmu_session_opts *o,
		    struct pmu_session_result *res, struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * As pmu_session_run() once per set (the workload runs nr times, each set counted
 * in its own run, none multiplexed against another set), returning one countset:
 * the sets' counts in order, group numbers offset so they stay distinct.
 * Intervals are not supported here (TDP_EUSAGE when o->interval_ms is set and nr > 1).
 * A run interrupted by a signal ends the sequence (res->signal set).
 */
int pmu_session_run_sets(const struct pmu_event_list *const *sets, size_t nr, const struct pmu_session_opts *o,
			 struct pmu_session_result *res, struct tdp_err *err) __attribute__((warn_unused_result));

/** Free the result; it is left as after PMU_SESSION_RESULT_INIT. */
void pmu_session_result_release(struct pmu_session_result *res);

/*
 * Averaging over runs (repeat.c), used by pmu_session_run() and usable alone:
 *   struct pmu_repeat r = PMU_REPEAT_INIT;
 *   pmu_repeat_add(&r, &run_counts, elapsed_ns) per run (the same events in the same order);
 *   pmu_repeat_result(&r, &out) appends the mean counts; pmu_repeat_release(&r).
 */
struct pmu_repeat_stat {
	double n;      /* runs in which it was counted */
	double mean;
	double m2;     /* sum of squared deviations (Welford) */
};

struct pmu_repeat_event {
	char *name;
	char *unit;
	int group;
	bool supported;            /* opened in at least one run */
	struct pmu_repeat_stat value;
	struct pmu_repeat_stat raw;
	double pct_sum;            /* running_pct summed over counted runs */
	uint64_t enabled_ns, running_ns; /* summed over counted runs (the result gives the mean) */
	double *runs_v;            /* the value of each run, NAN when not counted (runs entries) */
};

struct pmu_repeat {
	struct pmu_repeat_event *v;
	size_t nr;
	struct pmu_repeat_stat elapsed;
	unsigned runs;
	size_t runs_alloc;         /* capacity of every runs_v and of elapsed_v */
	double *elapsed_v;         /* each run's elapsed time, NAN when unknown */
};

#define PMU_REPEAT_INIT { NULL, 0, { 0, 0, 0 }, 0, 0, NULL }

/** Add one observation x to a running mean/variance. */
void pmu_repeat_stat_add(struct pmu_repeat_stat *s, double x);

/** perf's "+-": standard error of the mean relative to the mean, in percent (0 for < 2 runs or mean 0). */
double pmu_repeat_stat_rel_stderr(const struct pmu_repeat_stat *s);

/** Standard error of the mean (0 for fewer than 2 observations). */
double pmu_repeat_stat_stderr(const struct pmu_repeat_stat *s);

/**
 * Add one run. The first run fixes the events; later runs must have the same
 * number of counts (TDP_EINVAL otherwise). elapsed_ns < 0: unknown.
 * Returns 0, TDP_EINVAL or TDP_ENOMEM.
 */
int pmu_repeat_add(struct pmu_repeat *r, const struct countset *run, double elapsed_ns, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Append the averaged counts to out (value and raw means over counted runs,
 * stddev_pct when runs > 1, running_pct averaged, status: not supported when never
 * opened, not counted when opened but never counted) and set out->elapsed_ns to the
 * mean elapsed time. Returns 0 or TDP_ENOMEM.
 */
int pmu_repeat_result(const struct pmu_repeat *r, struct countset *out, struct tdp_err *err)
	__attribute__((warn_unused_result));

void pmu_repeat_release(struct pmu_repeat *r);

#endif
