/*
 * topdown.h: the renderers of `tdprof topdown`: the tree for a person (text,
 * with bars on a terminal) and one JSON document for tools.
 *
 * A renderer formats: the values, the flags above thresholds and the verdict all
 * come computed in the metric trees (model_eval() and model_classify()); the
 * groups section lists the counts as they came (countset). The advice under the
 * verdict is the knowledge base's summary for the node (model/advice.h).
 *
 * Lifecycle:
 *   1. struct topdown_report r = { .trees = {&t}, .nr_trees = 1, .counts = &cs, ... };
 *   2. topdown_text_print(out, &r) or topdown_json_print(out, &r, &err);
 * Both write to a FILE the caller owns and never close it.
 *
 * JSON document (design.md's contract):
 *   backend       "pmu" | "sim" | "import"
 *   cpu           the model's name ("zen4")
 *   model_kind    "slots" | "cycle_accounting"
 *   model         {name, description, vendor, slots, core_type, note, sources}
 *   source        the imported file or the command, or null
 *   level         the deepest level asked for (1 to the model's depth, 6 on Intel)
 *   level1        {retiring, bad_speculation, frontend_bound, backend_bound} in percent
 *                 of slots (null: not measurable), plus vendor extras (AMD's
 *                 smt_contention) beside them; a cycle-accounting model has the four
 *                 keys null and its buckets under "cycle_accounting"
 *   extra         the names of the extra level-1 keys
 *   cycle_accounting {frontend_stalled_cycles, backend_stalled_cycles} in percent of
 *                 cycles (cycle-accounting models only)
 *   level1_sum, level1_sum_off
 *   level2        {frontend_bound: {fetch_latency, fetch_bandwidth}, bad_speculation:
 *                 {branch_mispredicts, machine_clears}, backend_bound: {memory_bound,
 *                 core_bound}, retiring: {light_operations, heavy_operations}} (only
 *                 the nodes the model has, at level 2)
 *   thresholds    {node: percent}
 *   flagged       [node, ...] above their thresholds
 *   verdict       {category, node, value, node_value, over_threshold, next_step, advice}
 *   nodes         [{key, parent, level, label, value, vendor_metric, formula, expr,
 *                 source, group, split, flagged, why}]
 *   tree          the same nodes nested: [{key, label, level, value, threshold,
 *                 flagged, parent, description, hint, locate_with, metric_groups,
 *                 older_formula, children: [...]}] (only those --nodes shows)
 *   info          [{name, group, value, unit, threshold, flagged, description}] (--info)
 *   bottlenecks   Intel's Bottlenecks view, largest first: [{name, rank, value,
 *                 threshold, flagged, description}] in percent of slots
 *   stage2        Arm's methodology: {node, groups: [names], metrics: [{name, group,
 *                 value, unit, threshold, flagged}]} for the dominant level-1 node
 *   groups        [{group, events, counts, running_pct}] (counts null when not counted)
 *   multiplexed   true when several groups shared the counters
 *   no_multiplex  true when each group set ran alone (--no-multiplex)
 *   notes         [text, ...]
 *   repeat, runs, ci95, stddev   with -r N (report/repeat.h): level1/level2 are then the means
 *   core_types    hybrids: one object per core type with the per-tree keys above
 *                 (core_type, cpu, model_kind, level1, ..., verdict); the top-level
 *                 per-tree keys then describe the first (P-core) tree
 */
#ifndef TDPROF_REPORT_TOPDOWN_H
#define TDPROF_REPORT_TOPDOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/countset.h"
#include "model/model.h"

struct model_runs;
struct drill_info;
struct drill_node;
struct byfunc_result;
struct tdp_err;
struct palette;

#define TOPDOWN_MAX_TREES 2  /* hybrids: P-core and E-core */
#define TOPDOWN_MAX_NOTES 8

struct topdown_report {
	const struct metric_tree *trees[TOPDOWN_MAX_TREES]; /* borrowed, classified; P-core first */
	size_t nr_trees;
	enum tdp_backend backend;
	const char *source;          /* the file imported or the command run; NULL: none */
	int level;                   /* deepest level asked for (1..MODEL_MAX_LEVEL) */
	const struct countset *counts; /* borrowed; NULL: no groups section */
	bool no_multiplex;           /* each group set ran alone, in its own run */
	size_t runs;                 /* runs of the workload (no_multiplex); 0: unknown */
	const char *notes[TOPDOWN_MAX_NOTES]; /* borrowed lines said with the result */
	size_t nr_notes;
	const struct model_runs *repeat; /* -r N: the runs whose means trees[0] holds (report/repeat.h adds
	                                    repeat, runs, ci95, stddev to the JSON); NULL: one run */
	bool bars;                   /* draw bars (a terminal) */
	bool verbose;                /* text: also each node's formula and source */
	const char *nodes;           /* --nodes: the subtrees to show (topdown_node_shown); NULL: all */
	bool info;                   /* --info: the model's Info metrics too */
	bool describe;               /* text: each node's description and tuning hint */
	const struct drill_info *drill; /* --drilldown: per node of trees[0] (its v[] order), where it was
	                                   measured, and the steps (model/drilldown.h); NULL: no drill-down */
	const struct byfunc_result *functions; /* --by function (diagnose/byfunc.h); NULL: none */
	const char *csv_sep;         /* csv: the field separator (-x SEP); NULL: "," */
	const struct palette *pal;   /* text: colours (report/palette.h); NULL: none */
};

/* --drilldown's section (topdown-drill.c): each measured node's step, run and running fraction,
 * and the mismeasured ones with their raw value and cause. */
void topdown_drill_text(FILE *out, const struct topdown_report *r);
struct json_t;
/* Adds "drilldown": {"steps": N, "plan": [...], "nodes": [...]} to doc; sets *failed on allocation failure. */
void topdown_drill_json(struct json_t *doc, const struct topdown_report *r, bool *failed);
/* The parts `why` shares: each step of a drill as a line ("step 2: children of Backend Bound; 2 nodes
 * in 1 group, 1 run"), each prefixed by indent; a node's origin ("step 2, run 1, running 100 %" and, when
 * mismeasured, its raw value, why and cause; nothing when no step measured it); the same as JSON: a
 * node's {step, run, running_pct, mismeasured, measured_value, why, cause} (null when no step measured
 * it; NULL and *failed on allocation failure) and the steps [{step, level, nodes, nr_nodes, groups,
 * runs, seconds}]. */
struct palette;
void topdown_drill_steps_text(FILE *out, const struct drill_info *info, const char *indent);
struct drill_step_info;
/* One step's line without its "step N: " ("level 1; 4 nodes in 1 group, 1 run, 0.52 s") into buf. */
void topdown_drill_step_line(const struct drill_step_info *s, char *buf, size_t size);
void topdown_drill_node_text(FILE *out, const struct drill_node *d, const struct palette *pal);
struct json_t *topdown_drill_node_json(const struct drill_node *d, bool *failed);
struct json_t *topdown_drill_steps_json(const struct drill_info *info, bool *failed);
/* The nested "tree" of t (r: its --nodes filter and, when t is r->trees[0], its drill-down: each node's
 * "drill"), as topdown's JSON has it; NULL and *failed on allocation failure. */
struct json_t *topdown_tree_json(const struct topdown_report *r, const struct metric_tree *t, bool *failed);

/* --by function's section (topdown-byfunc.c): each function's share, level 1, dominant node and
 * guilty line; as JSON "functions": [...] and "functions_other_pct". */
void topdown_byfunc_text(FILE *out, const struct topdown_report *r);
void topdown_byfunc_json(struct json_t *doc, const struct topdown_report *r, bool *failed);
/* The same for any per-function result (`why` prints it too); f NULL: nothing. The JSON adds
 * "by_function": {source, model, level, cover_pct, nr_functions, events, leader, totals, samples}. */
void byfunc_text(FILE *out, const struct byfunc_result *f);
void byfunc_json(struct json_t *doc, const struct byfunc_result *f, bool *failed);
struct strbuf;
/* The functions as CSV, one row each: name, dso, share, level 1, level 2, dominant node, line, samples
 * and each event's count (a header row first). */
void byfunc_csv(struct strbuf *out, const struct byfunc_result *f);

/**
 * Whether node n of t is shown under r->nodes, a comma list of node names (the
 * key or the vendor's name, case-insensitive, "Fetch_Latency" = "fetch_latency"):
 * a named node is shown with its subtree and its ancestors; "-NAME" (or "^NAME",
 * toplev's other spelling) hides NAME and its subtree; "+NAME" is NAME; a name with
 * '*' or '?' is a wildcard pattern ("*_Bound"). Everything is shown when r->nodes is NULL.
 */
bool topdown_node_shown(const struct topdown_report *r, const struct metric_tree *t, const struct metric_node *n);

/** The names of r->nodes no node of t has, comma-separated into buf (size bytes); "" when all exist. */
void topdown_nodes_unknown(const struct topdown_report *r, const struct metric_tree *t, char *buf, size_t size);

/* The sections beside the tree, as text (topdown-extra.c): Arm's stage 2, Intel's bottlenecks, --info. */
void topdown_text_extra(FILE *out, const struct topdown_report *r, const struct metric_tree *t);

/* The same as JSON keys of o: "info", "bottlenecks", "stage2" and the nested "tree". */
void topdown_json_extra(struct json_t *o, const struct topdown_report *r, const struct metric_tree *t, bool *failed);

/**
 * Append the tree as CSV, one row per node shown (topdown-csv.c says the columns),
 * separated by r->csv_sep.
 */
struct strbuf;
void topdown_csv(struct strbuf *sb, const struct topdown_report *r);

/** Print the tree, the sum, the groups, the verdict and its advice as text. */
void topdown_text_print(FILE *out, const struct topdown_report *r);

/**
 * Print one JSON document (indented, ending in a newline). Returns 0, or
 * TDP_ENOMEM / TDP_EIO with err set.
 */
int topdown_json_print(FILE *out, const struct topdown_report *r, struct tdp_err *err)
	__attribute__((warn_unused_result));

#endif
