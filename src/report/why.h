/*
 * why.h: the renderers of `tdprof why`: the whole workflow for a person (text:
 * triage, the top-down tree and its verdict, the drill-down into the dominant
 * bucket, the ranked diagnosis) and one JSON document for tools. Everything shown
 * is computed in a struct diag (diagnose/diagnose.h); a renderer only formats.
 * Simulated figures say "estimate (simulated)" in every section they appear in.
 *
 * JSON document:
 *   backend        "pmu" | "sim" | "import"
 *   estimate       true when every figure is simulated
 *   command        the workload, one line; exit_status its status
 *   machine        sim: {name, description, slots_per_cycle}; null otherwise
 *   scope          {kind: "program"|"whole_run", object, instructions_pct, reason}
 *   triage         {cpi, ipc, branch_miss_rate, branch_mpki, l1i_mpki, llc_mpki, next, reason}
 *                  (null: not computable)
 *   counts         {instructions, cycles, branches, branch_misses, l1i_misses, l1d_loads,
 *                  l1d_misses, ll_misses} of the scope (sim), null when unknown
 *   level1         {retiring, bad_speculation, frontend_bound, backend_bound}, percent of slots
 *   level2         at level 2: {frontend_bound: {fetch_latency, fetch_bandwidth}, bad_speculation:
 *                  {branch_mispredicts, machine_clears}, backend_bound: {memory_bound, core_bound},
 *                  retiring: {light_operations, heavy_operations}}; null: not estimable here
 *   whole_run      sim with scope "program": {level1} of every instruction of the run
 *   thresholds     {node: percent}; flagged [node, ...]
 *   verdict        {category: one of retiring, bad_speculation, frontend_bound, backend_bound;
 *                  node, value, over_threshold, reason, next_step}
 *   drilldown      {kind: "branches"|"icache"|"memory"|"hot_loop"|"none", ranked_by,
 *                  sampling {method: "ip"|"branch_stack"|"spe", event, frequency, period, samples,
 *                  branch_records, mispredicted, lost, branch_facility, branch_facility_reason,
 *                  reason} (PMU: the second, sampled run of diagnose/drill-pmu.h; null otherwise),
 *                  disassembly {function, target, why, instructions [{address, text, branch,
 *                  in_line, target}]} (branches), footprint {functions, bytes, files, l1i_bytes,
 *                  top [{function, file, bytes, instructions, l1i_misses, samples}]} (icache),
 *                  loop_command (hot_loop)}
 *   sites          ranked, most guilty first: [{rank, file, line, function, in_program, share_pct,
 *                  executions, samples, instructions, branches, mispredicts, cond_branches,
 *                  cond_mispredicts, indirect_branches, indirect_mispredicts, loads, l1d_misses,
 *                  ll_misses, l1i_misses, ll_i_misses, stream}]; a PMU site's counts are sampled
 *                  (samples: IP samples or branch records) and what it did not sample is null
 *   findings       ranked: [{rank, title, category, node, evidence, site {file, line, function} |
 *                  null, fix, explain, share_pct}]
 *   notes          [text, ...]
 *   repeat, runs, ci95, stddev   with -r N (report/repeat.h): level1/level2 are then the means; the
 *                  diagnosis (verdict, sites, findings) is the last run's
 *
 * pprof (--format=pprof): report_why_pprof(), a perftools.profiles.Profile, gzipped.
 * CSV (--format=csv, -x SEP): why_csv(), the findings as rows (why-csv.c says the columns).
 */
#ifndef TDPROF_REPORT_WHY_H
#define TDPROF_REPORT_WHY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "diagnose/diagnose.h"

struct model_runs;
struct palette;
struct tdp_err;

struct why_report {
	const struct diag *d;    /* borrowed */
	const char *command;     /* the workload as one line (borrowed) */
	int exit_status;         /* the workload's status */
	bool workload_ran;
	bool verbose;            /* text: every site, the whole tree's reasons */
	unsigned columns;        /* text: the terminal's width (0: 80; report/fit.h) */
	const struct model_runs *repeat; /* -r N: the runs whose means d->tree holds (report/repeat.h adds
	                                    repeat, runs, ci95, stddev to the JSON); NULL: one run */
	const char *csv_sep;     /* csv: the field separator (-x SEP); NULL: "," */
	const struct palette *pal; /* text: colours (report/palette.h); NULL: none */
};

struct strbuf;

/** Append the findings as CSV rows separated by r->csv_sep (why-csv.c). */
void why_csv(struct strbuf *sb, const struct why_report *r);

/** Print the workflow as text to out (which the caller owns). */
void why_text_print(FILE *out, const struct why_report *r);

/** Print first, then text wrapped at width, its words from column indent (a "%" stays with its number). */
void why_wrap(FILE *out, const char *first, size_t indent, const char *text, size_t width);

/**
 * why-tree.c: the top-down section of the text (section 2: every level measured, or the simulation's up
 * to -l; on a drilled-down PMU tree each node with the step and run that measured it and its running
 * fraction, a mismeasured one flagged with its cause, then the steps), the verdict and its next step.
 * As JSON: "tree" (topdown's nested tree, each node with its "drill") and "tree_drilldown" ({steps,
 * no_multiplex, plan, stopped}, null when the tree was counted in one run).
 */
void why_tree_text(FILE *out, const struct diag *d, const struct palette *pal, size_t width);
struct json_t;
void why_tree_json(struct json_t *doc, const struct diag *d, bool *failed);

/**
 * why-lead.c: the Bottlenecks lead (d->bottlenecks: every cost above its threshold and at
 * least the three largest, each with its node, its code and its fix) as text wrapped at
 * width; false (nothing printed) when d has none. As JSON: "bottlenecks": [{rank, name,
 * value, threshold, flagged, description, leaf, leaf_value, node, fix, hint, site {rank,
 * file, line, function} | null, locate_with}], every measured cost.
 */
bool why_lead_text(FILE *out, const struct diag *d, size_t width);
struct json_t;
void why_lead_json(struct json_t *doc, const struct diag *d, bool *failed);

/** Print one JSON document (indented, ending in a newline). Returns 0, TDP_ENOMEM or TDP_EIO. */
int why_json_print(FILE *out, const struct why_report *r, struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Append the diagnosis as a gzipped pprof profile (pprof-why.c says what is in it).
 * Returns 0, TDP_ENOMEM or TDP_EIO.
 */
int report_why_pprof(struct strbuf *out, const struct why_report *r, struct tdp_err *err)
	__attribute__((warn_unused_result));

#endif
