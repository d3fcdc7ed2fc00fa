/*
 * series.h: the runs of -r N, one rule for stat, topdown and why: how many runs
 * to make, when a series stops early, and the tree of means that stands for the
 * last run's tree.
 *
 * The deterministic-simulation rule: valgrind's simulation of a program that does
 * the same work every run gives the same figures every run, so after two
 * simulated runs that agree to the last bit the others are not made (their
 * intervals would have zero width anyway) and runs->note says so; a program whose
 * runs differ (threads, the time, addresses in its work) runs N times. Counts of
 * the PMU always run N times.
 *
 * Usage:
 *   struct model_runs runs = MODEL_RUNS_INIT;
 *   struct measure_series s;
 *   measure_series_init(&s, repeat, simulated, &runs);
 *   for (size_t i = 0; i < s.n; i++) {
 *       ... run i, its tree t ...
 *       ret = measure_series_add(&s, &t, &stop, &err);   (a single run is not kept)
 *       if (ret || stop) break;
 *   }
 *   ret = measure_runs_mean(&runs, &last_tree, &mean, &have_mean, &err);
 *   model_runs_release(&runs);
 * Nothing here prints; the caller says "run i of N".
 */
#ifndef TDPROF_MEASURE_SERIES_H
#define TDPROF_MEASURE_SERIES_H

#include <stdbool.h>
#include <stddef.h>

#include "model/model.h"
#include "model/stats.h"

struct tdp_err;

struct measure_series {
	size_t n;                 /* runs to make: N of -r N, or 1 */
	bool simulated;           /* the deterministic-simulation rule applies */
	struct model_runs *runs;  /* the trees kept (borrowed); runs->requested is n */
};

/** Start a series of `repeat` runs (<= 1: one run) into runs (borrowed, empty). */
void measure_series_init(struct measure_series *s, long repeat, bool simulated, struct model_runs *runs);

/**
 * Keep the tree t of the run just made (borrowed). *stop is set when the series
 * ends here: it has one run only (t is not kept: one run has no statistics), or
 * a simulated program gave the same tree twice (runs->deterministic, runs->note).
 * Returns 0, or model_runs_add()'s error.
 */
int measure_series_add(struct measure_series *s, const struct metric_tree *t, bool *stop, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * With two runs or more, the tree of means into *mean (labels and reasons from
 * last, the last run's tree) and *have set; with fewer, *have false and nothing
 * done. Returns 0 or model_runs_mean()'s error.
 */
int measure_runs_mean(struct model_runs *runs, const struct metric_tree *last, struct metric_tree *mean, bool *have,
		      struct tdp_err *err) __attribute__((warn_unused_result));

#endif
