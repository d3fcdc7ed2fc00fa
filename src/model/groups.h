/*
 * groups.h: split the events a model needs into groups that fit the counters,
 * keeping the events of each formula in one group. Pure code over indices: no
 * PMU is touched, so the unit tests can check every budget.
 *
 * Input: the events (what counter each needs), the sets of events that must be
 * counted together (one per formula), and the counter budget. Output: groups;
 * the kernel schedules one group at a time when they do not all fit, so more than
 * one group means multiplexing (each group then counts a fraction of the run,
 * and the values are scaled estimates).
 *
 * Rules:
 *   - a group holds at most `gp` general-purpose events, one fewer when the NMI
 *     watchdog holds a counter; a fixed-counter event takes its fixed counter (two
 *     events wanting the same fixed counter cannot share a group; an event whose
 *     fixed counter is beyond the budget needs a general-purpose one);
 *   - PERF_METRICS events (Intel's topdown-*) take no counter but belong in a group
 *     led by the slots event (tools/perf/Documentation/topdown.txt: "The SLOTS
 *     event must be the leader of the group"); the leader is listed first;
 *   - a set that is a subset of another is dropped; sets are placed largest
 *     first into the first group their union fits (first-fit decreasing), so
 *     sets share events and groups;
 *   - a set too large for any group is spread over as few groups as possible
 *     and counted in `split`: its formula then mixes counts from different
 *     slices of the run.
 *
 * Lifecycle: struct groups_plan p = GROUPS_PLAN_INIT; groups_make(..., &p, &err);
 * use p.v[0..p.nr); groups_plan_release(&p).
 */
#ifndef TDPROF_MODEL_GROUPS_H
#define TDPROF_MODEL_GROUPS_H

#include <stdbool.h>
#include <stddef.h>

#include "model/model.h"

struct tdp_err;

#define GROUPS_MAX_EVENTS 32  /* events in one group or one set */
#define GROUPS_MAX_SETS 256   /* sets in one request */

struct groups_event {
	enum model_counter counter;
	int fixed_idx;  /* MODEL_CTR_FIXED: which fixed counter */
	bool leader;    /* the slots event: leads a group of PERF_METRICS events */
};

struct groups_budget {
	unsigned gp;        /* general-purpose counters */
	unsigned fixed;     /* fixed counters (numbers 0..fixed-1 exist) */
	bool nmi_watchdog;  /* the watchdog holds one general-purpose counter */
};

struct groups_set {
	size_t ev[GROUPS_MAX_EVENTS]; /* event indices */
	size_t nr;
};

struct groups_group {
	size_t ev[GROUPS_MAX_EVENTS]; /* event indices, the leader first */
	size_t nr;
	bool split;                   /* holds part of a set that fits no single group */
};

struct groups_plan {
	struct groups_group *v;
	size_t nr;
	size_t alloc;
	size_t nr_split;              /* sets that had to be spread over several groups */
};

#define GROUPS_PLAN_INIT { NULL, 0, 0, 0 }

/**
 * True when events ev[0..nr) can be counted together in one group under b.
 * events: all events (borrowed); ev: indices into it.
 */
bool groups_fit(const struct groups_event *events, const size_t *ev, size_t nr, const struct groups_budget *b);

/**
 * Make the groups for sets[0..nr_sets) of events[0..nr_events) (both borrowed)
 * under budget b, into out (must be empty). Returns 0; TDP_EINVAL when a set names
 * an event index out of range or has more than GROUPS_MAX_EVENTS events;
 * TDP_ENOTSUP when some event fits no group at all (no counter of its kind: the
 * message names it; a PMU-less VM has 0 counters); TDP_ENOMEM. On failure out
 * is released.
 */
int groups_make(const struct groups_event *events, size_t nr_events, const struct groups_set *sets, size_t nr_sets,
		const struct groups_budget *b, struct groups_plan *out, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** Free the groups; p is left as after GROUPS_PLAN_INIT. */
void groups_plan_release(struct groups_plan *p);

/*
 * Planning a live run of a model (plan.c): which events to count, in which
 * groups. Each formula takes its first variant allowed for this machine
 * (model_formula.when against o->smt_on / o->core_wide; MODEL_WHEN_IMPORT never);
 * each node up to o->max_level makes one set of the events its formula reads
 * (with the slots leader added to a set that has PERF_METRICS events).
 */

/** The budget a model assumes when the machine does not say (its table's counters). */
void model_default_budget(const struct model *m, struct groups_budget *out);

/**
 * Make the groups for a live run of mc (borrowed) under b. Group members are
 * indices into mc's model events. Returns as groups_make(), or TDP_EANALYSIS
 * when a level-1 node has no variant this machine allows (naming it).
 */
int model_plan(const struct model_compiled *mc, const struct model_eval_opts *o, const struct groups_budget *b,
	       struct groups_plan *out, struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * model_plan() for the nodes i with nodes[i] set (indices into mc's model nodes,
 * m->nr_nodes entries; the drill-down of drilldown.h), whatever their level, and
 * no stage-2 metrics; nodes NULL: model_plan(). A node of the mask without a
 * variant this machine allows is left out (it will evaluate to not measurable),
 * but for a level-1 node (TDP_EANALYSIS, as model_plan()). Returns as model_plan().
 */
int model_plan_nodes(const struct model_compiled *mc, const struct model_eval_opts *o, const unsigned char *nodes,
		     const struct groups_budget *b, struct groups_plan *out, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Append to sb the event list of groups [first, first + nr) of p in
 * pmu/event.h's syntax, each group in braces ("{slots,topdown-retiring},{...}"),
 * using each event's live spelling (model_event.spec, else its name).
 */
void model_plan_spec(const struct model *m, const struct groups_plan *p, size_t first, size_t nr,
		     struct strbuf *sb);

#endif
