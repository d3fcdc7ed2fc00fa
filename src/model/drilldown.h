/*
 * drilldown.h: the automatic drill-down of `tdprof topdown --drilldown` and of
 * `tdprof why` on a PMU as pure code: which nodes the next run measures, in which
 * groups and runs, which measured values cannot be facts (mismeasured), and the
 * loop that drives the steps over counts the caller supplies. No PMU is touched:
 * the tests give it every model of model_all() and that CPU's counters, and feed
 * drill_run() counts of their own.
 *
 * The drill (toplev's --drilldown, in steps):
 *   step 1   the level-1 nodes;
 *   step k   the children of every node measured in step k-1 that crossed its
 *            threshold (metric_node.flagged after model_classify() of the merged
 *            tree); when none crossed, of the largest measurable one that has
 *            children; and in any case of the node of step k-1 on the verdict's
 *            path (locate.h's dominant leaf so far), so that the leaf `why`
 *            locates is as deep as the tree goes; nodes beyond max_level (-l N)
 *            are not measured;
 *   end      when no node of the last step has a child to expand (the leaves).
 * Each step's nodes make one plan (groups.h, model_plan_nodes()); its groups are
 * counted in one run of the workload (the kernel multiplexes them when they do not
 * all fit) or, with no_multiplex, one run per group.
 *
 * Mismeasured: a value outside its bounds is not a fact. drill_check() flags a node
 * whose value is negative, above 100 % or above its parent's (by more than
 * DRILL_TOLERANCE points; only where the children share the parent's unit and add
 * up to it: not under a parent with approx_children, Intel's cycle-domain nodes
 * below level 2), and gives the likely cause: its counts were multiplexed (the
 * group ran only part of the time), the run was too short, or parent and child came
 * from different runs of a workload that varies between runs.
 *
 * Lifecycle of the steps: struct drill_step s; drill_step_init(&s);
 * drill_first()/drill_next(); drill_step_plan(); use s.groups, s.runs;
 * drill_step_release(&s). Or the whole drill in one call: drill_run() with a
 * counter that runs the workload (cli/) or reads made-up counts (tests).
 */
#ifndef TDPROF_MODEL_DRILLDOWN_H
#define TDPROF_MODEL_DRILLDOWN_H

#include <stdbool.h>
#include <stddef.h>

#include "model/groups.h"
#include "model/model.h"

struct tdp_err;

#define DRILL_TOLERANCE 1.0     /* points a child may exceed its parent (rounding, noise) */
#define DRILL_MIN_SECONDS 0.05  /* a run shorter than this gives too few counts to trust */
#define DRILL_MIN_RUNNING 99.0  /* a group that ran less than this percent of the time was multiplexed */
#define DRILL_MAX_RUNS 64       /* runs of one step (no_multiplex: one per group) */
#define DRILL_MAX_STEPS 8       /* steps of one drill: one per level (MODEL_MAX_LEVEL), with room */

/* The groups [first, first + nr) of a step's plan counted in one run of the workload. */
struct drill_run {
	size_t first;
	size_t nr;
};

struct drill_step {
	int index;                             /* 1, 2, ... */
	unsigned char nodes[MODEL_MAX_NODES];  /* model node indices measured in this step */
	size_t nr_nodes;
	int level;                             /* the deepest level among them */
	char why[256];                         /* why these nodes (names the crossed parents or the largest) */
	struct groups_plan groups;             /* drill_step_plan() */
	struct drill_run runs[DRILL_MAX_RUNS];
	size_t nr_runs;
};

/** Make s empty. */
void drill_step_init(struct drill_step *s);

/** Free s's groups; s is left as after drill_step_init(). */
void drill_step_release(struct drill_step *s);

/** Step 1 of m's drill: its level-1 nodes (extras included). */
void drill_first(const struct model *m, struct drill_step *s);

/**
 * The step after prev of m's drill from t, the classified tree of everything measured
 * so far (the nodes of prev with their values and flags), down to max_level. Returns
 * true with *next filled (index prev->index + 1, why saying which nodes were
 * expanded), or false when the drill is over (no node of prev to expand: the leaves,
 * max_level, or nothing measurable).
 */
bool drill_next(const struct model *m, const struct drill_step *prev, const struct metric_tree *t, int max_level,
		struct drill_step *next);

/**
 * Plan s's nodes under budget b (model_plan_nodes()) into s->groups and its runs:
 * every group in one run, or with no_multiplex one run per group. Returns 0, or as
 * model_plan_nodes(), or TDP_ELIMIT with more than DRILL_MAX_RUNS runs.
 */
int drill_step_plan(const struct model_compiled *mc, const struct model_eval_opts *o, const struct groups_budget *b,
		    bool no_multiplex, struct drill_step *s, struct tdp_err *err) __attribute__((warn_unused_result));

/** The budget the drill counts with: m's counters, less the one the NMI watchdog holds. */
void drill_budget(const struct model *m, bool nmi_watchdog, struct groups_budget *out);

/* Where a node's value came from (for drill_check and the renderers). */
struct drill_origin {
	int step;            /* the step that measured it; 0: not measured */
	int run;             /* the run of that step (1-based) */
	double running_pct;  /* the lowest running percentage of the counts it read; <0 unknown */
	double seconds;      /* the run's wall time; <=0 unknown */
};

enum drill_cause {
	DRILL_OK = 0,
	DRILL_MULTIPLEXED,   /* its group ran only part of the time: a scaled estimate */
	DRILL_SHORT_RUN,     /* the run was shorter than DRILL_MIN_SECONDS */
	DRILL_OTHER_RUN,     /* parent and child were measured in different runs */
	DRILL_UNKNOWN,       /* none of those: a counter erratum or a formula out of its range */
};

struct drill_verdict {
	bool mismeasured;
	enum drill_cause cause;
	char why[200];       /* "-3.1 % is negative", "42.0 % is above its parent Backend Bound (30.2 %)" */
};

/**
 * Check node n of t (its parent looked up in t) against its bounds, with the origins
 * of n and of its parent (parent_origin may be NULL at level 1). A NAN value is not
 * mismeasured (it is not measurable). Pure.
 */
void drill_check(const struct metric_tree *t, const struct metric_node *n, const struct drill_origin *origin,
		 const struct drill_origin *parent_origin, struct drill_verdict *out);

/* What the drill knows of one node of the merged tree (indexed like metric_tree.v). */
struct drill_node {
	struct drill_origin origin;   /* step 0: not measured by the drill */
	struct drill_verdict verdict;
	double raw;                   /* the value measured, also when mismeasured (then the tree has NAN) */
};

/**
 * Merge step s's tree (evaluated from the step's counts at s->level) into merged
 * (evaluated beforehand at the drill's max_level; same model): each node of s takes
 * its value, formula variant, group and reason from step, and its origin in info[]
 * (merged->nr entries): the step, the run of its group (group_run[g], 1-based; NULL:
 * run 1), the running percentage of its group (group_running[g]; NULL or g out of
 * range: unknown) and the run's seconds. Then every node of s is checked
 * (drill_check()): a mismeasured one keeps its value in info[].raw and becomes NAN in
 * merged with "mismeasured: <why>; <cause>" as its reason. Call model_classify()
 * after. Pure.
 */
void drill_merge(const struct model *m, const struct drill_step *s, const struct metric_tree *step,
		 const int *group_run, const double *group_running, size_t nr_groups, double seconds,
		 struct metric_tree *merged, struct drill_node *info);

/** One sentence naming the cause ("its group was multiplexed: ..."); static. */
const char *drill_cause_text(enum drill_cause c);

/* One step of a drill as it ran (for the renderers). */
struct drill_step_info {
	int index;                /* 1, 2, ... */
	int level;                /* the deepest level among its nodes */
	char why[256];            /* drill_step.why: which nodes and why */
	size_t nr_nodes;          /* nodes it measured */
	size_t groups;            /* counter groups */
	size_t runs;              /* runs of the workload */
	double seconds;           /* its run's wall time (the sum with no_multiplex); <0 unknown */
};

/* What a drill measured, beside its merged tree: per node (indexed like the tree's v[]) and per step. */
struct drill_info {
	struct drill_node nodes[MODEL_MAX_NODES];
	struct drill_step_info steps[DRILL_MAX_STEPS];
	size_t nr_steps;          /* steps that were counted and merged */
	bool no_multiplex;        /* each group had a run of its own */
};

/*
 * The caller's counting of one step: count the groups of s->groups over the
 * workload, in the runs s->runs says (each run: the groups [first, first + nr)),
 * into out (COUNTSET_INIT on entry; released by drill_run()): a count of group g of
 * the plan has .group == g, with its running_pct, and out->elapsed_ns the wall
 * time. Set *stop to end the drill after this step (the workload was
 * interrupted). Returns 0 or an error with err set (the drill ends with it).
 */
struct drill_counter {
	int (*count)(void *arg, const struct drill_step *s, struct countset *out, bool *stop, struct tdp_err *err);
	void *arg;
};

/**
 * The whole drill of m (o: the evaluation options, o->max_level the deepest
 * level, -l N; b: the counters): step 1, then drill_next() until the leaves, each
 * step planned (drill_step_plan()), counted by c, evaluated, merged into merged
 * (overwritten: every node of m down to o->max_level, NAN until a step measures
 * it) and classified. info is overwritten. Returns 0; or the error of planning,
 * counting or evaluating a step (TDP_EANALYSIS: step 1 measured no level-1 node),
 * with err set: merged and info then hold the steps done before it
 * (info->nr_steps, maybe 0). TDP_ENOMEM.
 */
int drill_run(const struct model *m, const struct model_eval_opts *o, const struct groups_budget *b,
	      bool no_multiplex, const struct drill_counter *c, struct metric_tree *merged, struct drill_info *info,
	      struct tdp_err *err) __attribute__((warn_unused_result));

/** The drill_node of tree node key in info (merged's v[] order); NULL when merged has no such node. */
const struct drill_node *drill_info_node(const struct drill_info *info, const struct metric_tree *merged,
					 const char *key);

#endif
