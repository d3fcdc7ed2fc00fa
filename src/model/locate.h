/*
 * locate.h: the plan of the sampling run that finds the code of the dominant leaf
 * (toplev's --run-sample, TMA's "Locate-with"): which node, which event, and
 * whether to ask for precise samples. Pure code over a classified tree; the run
 * itself needs a PMU.
 *
 * The leaf: from the verdict's level-1 category down, at each level the largest
 * flagged child, else the largest measurable one, until a node has no measurable
 * child. The event: that leaf's locate_with (model_node_def.locate_with, from the
 * vendor's data), else its nearest ancestor's. Intel marks precise (PEBS) events
 * with a "_PS" suffix, which perf's event names do not carry: the suffix is dropped,
 * and ":pp" added when the core PMU can sample precisely (caps/max_precise >= 2,
 * as perf checks); without PEBS the event is sampled plainly and the plan says so.
 * A list of events ("A;B") samples the first and names the others.
 */
#ifndef TDPROF_MODEL_LOCATE_H
#define TDPROF_MODEL_LOCATE_H

#include <stdbool.h>

#include "model/model.h"

struct locate_plan {
	const char *leaf;        /* the dominant leaf's key (static, the model's) */
	const char *node;        /* the node whose locate_with is used: the leaf or an ancestor */
	char event[128];         /* the vendor's event as the data spells it ("MEM_LOAD_RETIRED.L3_HIT_PS") */
	char spec[160];          /* what to sample, perf's spelling ("MEM_LOAD_RETIRED.L3_HIT:pp") */
	bool precise;            /* ":pp" was added */
	char others[256];        /* the other events of the list, ';'-separated; "" none */
	char reason[320];        /* one sentence: why this event, and why (not) precise */
};

/**
 * The dominant leaf of t (classified; model_classify()): from the verdict's
 * category down, at each level the largest flagged child, else the largest
 * measurable one, until a node has no measurable child. In a drilled-down tree
 * (model/drilldown.h) that is the deepest dominant node the drill measured. NULL
 * when t has no verdict. Pure.
 */
const struct metric_node *locate_leaf(const struct metric_tree *t);

/**
 * Plan the sampling run for t (classified; model_classify()) on a core PMU whose
 * caps/max_precise is max_precise (-1 unknown: no ":pp"). Returns 0 with *out
 * filled, or -1 when t has no verdict or no node on the leaf's path has a
 * locate_with (out->reason says which). Pure.
 */
int locate_plan(const struct metric_tree *t, int max_precise, struct locate_plan *out);

/**
 * locate_plan() for the node called key of t (any node, classified or not): its
 * Locate-with event, else its nearest ancestor's. Returns 0, or -1 when t has no
 * such node or none on its path has a Locate-with (out->reason says which). Pure.
 */
int locate_plan_node(const struct metric_tree *t, const char *key, int max_precise, struct locate_plan *out);

#endif
