/*
 * stats.h: the statistics of repeated runs (-r N on topdown and why, and what
 * `tdprof diff` compares): the mean of each metric, its sample standard
 * deviation and the 95 % confidence interval of the mean with Student's t, the
 * interval of a difference of two means (Welch), and per-run metric trees
 * gathered into one tree of means.
 *
 * Why Student's t: N is small (3 to 10 runs is typical), the run-to-run spread
 * is unknown and estimated from the same runs, so the normal quantile 1.96
 * would make the interval too narrow (with 3 runs the right factor is 4.30).
 * The interval of a mean of n runs is
 *
 *   mean +- t(0.975, n - 1) * sd / sqrt(n),   sd = sqrt(sum (x - mean)^2 / (n - 1))
 *
 * and of a difference of two means (runs of A and runs of B, variances not
 * assumed equal: Welch, with Satterthwaite's degrees of freedom)
 *
 *   (mean_b - mean_a) +- t(0.975, df) * sqrt(sa^2/na + sb^2/nb),
 *   df = (sa^2/na + sb^2/nb)^2 / ((sa^2/na)^2 / (na - 1) + (sb^2/nb)^2 / (nb - 1)).
 *
 * The quantile is computed, not looked up: the regularized incomplete beta
 * function (a continued fraction) gives Student's distribution for any real df,
 * and the quantile is found by bisection to full double precision.
 *
 * Everything here is pure: no allocation except model_runs' array, nothing
 * printed. docs/diff.md explains how the figures are used.
 */
#ifndef TDPROF_MODEL_STATS_H
#define TDPROF_MODEL_STATS_H

#include <stdbool.h>
#include <stddef.h>

#include "model/model.h"

struct tdp_err;

#define STATS_CONFIDENCE 0.95   /* the level of every interval tdprof prints */
#define MODEL_RUNS_MAX 10000    /* runs gathered by one model_runs (-r at most) */

/** The summary of n observations. */
struct stats_summary {
	size_t n;     /* finite observations (NaNs are not observations) */
	double mean;  /* NAN when n == 0 */
	double sd;    /* sample standard deviation (divisor n - 1); NAN when n < 2 */
	double sem;   /* standard error of the mean, sd / sqrt(n); NAN when n < 2 */
	double t;     /* Student's t quantile 0.975 with n - 1 degrees of freedom; NAN when n < 2 */
	double half;  /* half-width of the 95 % interval, t * sem; NAN when n < 2 */
	double lo;    /* mean - half; NAN when n < 2 (one run has no interval) */
	double hi;    /* mean + half; NAN when n < 2 */
};

/** The interval of a difference of two means. */
struct stats_diff {
	double delta; /* mean_b - mean_a; NAN when either mean is */
	double df;    /* Welch-Satterthwaite degrees of freedom; NAN without two intervals */
	double half;  /* half-width of its 95 % interval; NAN when either side has n < 2 */
};

/**
 * The quantile p (0 < p < 1) of Student's t distribution with df > 0 degrees of
 * freedom (real, not only whole numbers): stats_t_quantile(0.975, 2) = 4.3027.
 * Returns NAN for p or df out of range.
 */
double stats_t_quantile(double p, double df);

/** Student's t cumulative distribution at t with df > 0 degrees of freedom; NAN when df <= 0. */
double stats_t_cdf(double t, double df);

/** Summarize x[0..n) (borrowed; NaNs skipped) into out. */
void stats_summarize(const double *x, size_t n, struct stats_summary *out);

/**
 * The summary of observations given by their moments (n, mean, sd) rather than
 * the values: what a document that kept only its summary gives back.
 */
void stats_from_moments(size_t n, double mean, double sd, struct stats_summary *out);

/** The difference b - a and its 95 % interval (Welch). */
void stats_diff(const struct stats_summary *a, const struct stats_summary *b, struct stats_diff *out);

/**
 * True when both summaries have an interval (n >= 2) and the intervals are
 * disjoint: [a.lo, a.hi] and [b.lo, b.hi] do not touch.
 */
bool stats_disjoint(const struct stats_summary *a, const struct stats_summary *b);

/* ---------------------------------------------------------------------------
 * Per-run metric trees (-r N)
 *
 * Lifecycle:
 *   1. struct model_runs r = MODEL_RUNS_INIT;
 *   2. model_runs_add(&r, &tree_of_run_i, &err) after each run (each tree
 *      borrowed for the call; the first fixes the model and the nodes);
 *   3. model_runs_mean(&r, &mean): the tree of means, classified (thresholds,
 *      verdict); r.s[i] is node i's summary (the node mean.v[i]);
 *   4. model_runs_release(&r).
 */

struct model_runs {
	size_t nr;                       /* runs added */
	size_t alloc;
	double (*v)[MODEL_MAX_NODES];    /* v[run][node]: the node's value in that run (NAN: not measured) */
	size_t nr_nodes;                 /* nodes of every tree (the first run's count) */
	const char *keys[MODEL_MAX_NODES]; /* their keys (static strings of the model table) */
	const struct model *model;       /* the first run's model */
	struct stats_summary s[MODEL_MAX_NODES]; /* filled by model_runs_mean() */
	size_t requested;                /* runs asked for (-r N); 0: as many as were added */
	bool deterministic;              /* the backend gives the same figures every run (the
	                                    caller sets it; see model_runs_identical()) */
	const char *note;                /* said with the runs (static), or NULL */
};

#define MODEL_RUNS_INIT { 0, 0, NULL, 0, { NULL }, NULL, { { 0, 0, 0, 0, 0, 0, 0, 0 } }, 0, false, NULL }

/**
 * Add the node values of one run's tree t (borrowed). Every tree must come from
 * the same model with the same nodes in the same order (TDP_EINVAL otherwise: a
 * bug of the caller). Returns 0, TDP_EINVAL, TDP_ELIMIT (more than
 * MODEL_RUNS_MAX runs) or TDP_ENOMEM; r is unchanged on failure.
 */
int model_runs_add(struct model_runs *r, const struct metric_tree *t, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Make *mean the tree of means: a copy of first (the first run's tree, borrowed;
 * it gives labels, formulas and reasons) whose node values are the means over the
 * runs that measured them, its level-1 sum recomputed and classified again
 * (model_classify), and fill r->s[] with each node's summary. Requires r->nr >= 1
 * (TDP_EINVAL otherwise).
 */
int model_runs_mean(struct model_runs *r, const struct metric_tree *first, struct metric_tree *mean,
		    struct tdp_err *err) __attribute__((warn_unused_result));

/** True when every run gave every node exactly the same value (NaN equals NaN here). */
bool model_runs_identical(const struct model_runs *r);

/** The summary of the node with key, or NULL (after model_runs_mean()). */
const struct stats_summary *model_runs_find(const struct model_runs *r, const char *key);

/** Free the array; r is left as after MODEL_RUNS_INIT. */
void model_runs_release(struct model_runs *r);

#endif
