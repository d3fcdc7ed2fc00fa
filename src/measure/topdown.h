/*
 * topdown.h: the counted runs of `tdprof topdown`: the groups of the model (and of
 * a hybrid's second core type) planned to fit the counters, parsed into event
 * lists, and counted over the workload once, or -r N times with each run's tree
 * kept (series.h). Either every group in one list, which the kernel rotates when
 * they do not all fit (multiplexing), or with no_multiplex one run per group.
 *
 * Nothing here prints: "run i of N" goes to the notify; the caller flushes its
 * stdout before (the workload shares it) and prints the errors.
 *
 * Lifecycle:
 *   struct measure_topdown t; measure_topdown_init(&t);
 *   ret = measure_topdown_run(&opts, &t, &notify, &err);   t.res: the last run's counts
 *   ... evaluate t.res.counts; t.runs with -r N ...
 *   measure_topdown_release(&t);
 */
#ifndef TDPROF_MEASURE_TOPDOWN_H
#define TDPROF_MEASURE_TOPDOWN_H

#include <stdbool.h>
#include <stddef.h>

#include "measure/run.h"
#include "model/groups.h"
#include "model/model.h"
#include "model/stats.h"
#include "pmu/event.h"
#include "pmu/session.h"

#define MEASURE_TOPDOWN_MAX_MODELS 2 /* a hybrid: P-core and E-core */
#define MEASURE_TOPDOWN_MAX_SETS 64  /* groups of one live run */

struct measure_topdown_opts {
	const struct model *models[MEASURE_TOPDOWN_MAX_MODELS]; /* the first gives the trees of -r N */
	size_t nr_models;
	const struct model_eval_opts *eo;   /* levels and slots (model_live_setup) */
	const struct groups_budget *budget; /* the counters */
	char *const *argv;                  /* the workload (borrowed) */
	bool no_multiplex;                  /* one run per group */
	long repeat;                        /* -r N (<= 1: once) */
	const unsigned char *nodes;         /* models[0]'s nodes to count (a drill-down step,
	                                       model_plan_nodes()); NULL: every node up to eo->max_level */
	const char *extra;                  /* events counted beside the groups, each alone (why's triage
	                                       events), in a run of their own after the groups' (so that they
	                                       take no counter from them); NULL: none */
};

struct measure_topdown {
	struct groups_plan plans[MEASURE_TOPDOWN_MAX_MODELS];
	struct pmu_event_list lists[MEASURE_TOPDOWN_MAX_SETS];
	size_t nr_sets;
	struct pmu_session_result res;      /* the last run's counts (backend PMU) */
	struct model_runs runs;             /* each run's tree of models[0], with -r N */
	bool split;                         /* some formula's events went into several groups */
};

/** Make t empty. */
void measure_topdown_init(struct measure_topdown *t);

/** Free what t owns; t is left as after measure_topdown_init(). */
void measure_topdown_release(struct measure_topdown *t);

/**
 * Plan, parse and count (see above). A run interrupted by a signal ends the
 * series. Returns 0 when the workload ran (t->res.workload_ran, its status in
 * t->res.wstatus), or the error of planning (TDP_ELIMIT: more groups than
 * MEASURE_TOPDOWN_MAX_SETS), parsing, counting (TDP_ENOCMD, TDP_ENOEXEC, ...)
 * or evaluation, with err set.
 */
int measure_topdown_run(const struct measure_topdown_opts *o, struct measure_topdown *t,
			const struct measure_notify *n, struct tdp_err *err) __attribute__((warn_unused_result));

#endif
