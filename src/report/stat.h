/*
 * stat.h: the renderers of `tdprof stat`: perf stat's human layout (plus the
 * triage block), perf stat's CSV layout (-x SEP, byte for byte, so that
 * `tdprof topdown --import` and other tools read it back), and one JSON document.
 *
 * A renderer formats; it never computes a metric: the `#` column comes from
 * model/triage (triage_annotate), the triage block from triage_metrics_compute()
 * and triage_route(). Counts that are not COUNT_OK print `<not counted>` or
 * `<not supported>` (JSON null), never 0.
 *
 * Units: counts with unit "msec" hold nanoseconds (base/countset.h); they are
 * printed in milliseconds as perf does. Other counts print as integers, or with two
 * decimals when they carry a unit (sysfs-scaled events).
 *
 * Usage:
 *   text:  stat_text_interval() for each interval as it arrives (when -I), then
 *          stat_text_print() once;
 *   CSV:   stat_csv_interval() per interval, or stat_csv_print() once (perf prints
 *          no summary after intervals);
 *   JSON:  stat_json_print() once with every interval in the report.
 * All write to a FILE the caller owns; none of them closes or flushes it except
 * the interval writers, which flush so a pipe sees each interval when it ends.
 * The whole document goes through report/render.h (RENDER_STAT: text, json, csv);
 * the intervals stream as they come, before it.
 */
#ifndef TDPROF_REPORT_STAT_H
#define TDPROF_REPORT_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/countset.h"
#include "model/triage.h"

struct tdp_err;

struct stat_interval {
	uint64_t t_ns;                  /* end of the interval since counting started */
	double len_ns;                  /* its length (for CPUs utilized) */
	const struct countset *counts;  /* deltas; borrowed */
};

struct palette;

struct stat_report {
	const struct countset *counts;  /* totals (means with -r); counts->elapsed_ns is the wall time */
	const struct triage_metrics *metrics;
	const struct triage_verdict *verdict;
	const char *target;             /* as perf names it after "for ": "'sleep 1'", "process id '42'",
	                                   "thread id '7'", "'system wide'", "'CPU(s) 0-1'" */
	const char *command;            /* the workload as one line, for the next-step text; NULL: none */
	bool simulated;                 /* counts from the simulated backend: next steps that need no PMU */
	unsigned runs;                  /* runs averaged (1: one) */
	double elapsed_stddev_ns;       /* standard error of the mean elapsed time (runs > 1) */
	double user_ns, sys_ns;         /* workload CPU time; < 0: not shown */
	bool workload_ran;
	int exit_status;                /* tdprof's exit status (JSON exit_status) */
	const char *hw_note;            /* "hardware counters are unavailable: ..." or NULL */
	const char *hw_hint;            /* what to do about it, or NULL */
	const char *csv_sep;            /* CSV (render.h's "csv"): the separator of -x SEP; NULL: "," */
	bool after_intervals;           /* text: the intervals were printed before (-I): a blank line first */
	const struct stat_interval *intervals; /* JSON only; borrowed */
	size_t nr_intervals;
	/*
	 * With -r N (JSON only; NULL otherwise): each run's values of run_counts, as
	 * pmu_session_result.per_run holds them (run_values[i * nr_runs + r]), and each
	 * run's elapsed time. The shown counts are matched to run_counts by name and
	 * group. Borrowed.
	 */
	const struct countset *run_counts;
	const double *run_values;
	const double *run_elapsed_ns;
	unsigned nr_runs;
	const struct palette *pal;      /* text: colours (report/palette.h); NULL: none */
};

/**
 * Print the report in perf stat's human layout: header, one line per count with
 * thousands separators, the `#` column, `( +- x% )` with -r, `(NN.NN%)` when
 * multiplexed, elapsed/user/sys, then the triage metrics, the hardware note and
 * the next step.
 */
void stat_text_print(FILE *f, const struct stat_report *r);

/**
 * Print one interval as perf stat -I does: a `#           time  counts unit events`
 * header before the first (index 0) and every 25th, then each count prefixed by
 * its timestamp. Flushes f.
 */
void stat_text_interval(FILE *f, const struct stat_interval *iv, size_t index);

/**
 * Print the counts in perf stat's CSV layout (-x SEP): per count
 * value,unit,event,[variance,]run-time,pcnt-running,metric-value,metric-unit
 * (variance when runs > 1). sep: borrowed, non-empty.
 */
void stat_csv_print(FILE *f, const struct countset *cs, unsigned runs, const char *sep);

/** One interval in perf's CSV layout: each line starts with the space-padded timestamp and sep. Flushes f. */
void stat_csv_interval(FILE *f, const struct stat_interval *iv, const char *sep);

/**
 * Write one JSON document: backend, command, runs, events [{event, value (null
 * when not counted/supported), unit, status, running_pct, scaled, stddev_pct}],
 * metrics {cpi, ipc, branch_miss_rate, branch_mpki, l1i_mpki, llc_mpki} (null when
 * an input is missing), route {next, reason, command, signals}, hardware
 * {available, reason, hint}, exit_status, elapsed_ns, and with intervals an `intervals`
 * array [{time, events}]. Values of "msec" counts are in milliseconds as their unit
 * says. Returns 0, TDP_ENOMEM or TDP_EIO (write failed).
 */
int stat_json_print(FILE *f, const struct stat_report *r, struct tdp_err *err) __attribute__((warn_unused_result));

/** The value of a count in the unit it prints in (ms for "msec" counts). */
double stat_display_value(const struct count *c);

/** Decimals a count prints with: 2 for counts with a unit, else 0. */
int stat_display_decimals(const struct count *c);

#endif
