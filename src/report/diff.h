/*
 * diff.h (report): the renderers of `tdprof diff`: a table for a person and one
 * JSON document for tools, from a struct diff_result (doc/diff-result.h). They format
 * only: the changes, the flags, the ranking and the verdict come computed.
 *
 * JSON document:
 *   kind           "diff"
 *   of             "topdown" | "why" | "branches report"
 *   backend        the documents' backend (both have the same one)
 *   a, b           {file, backend, cpu, model_kind, source, runs, runs_requested, deterministic}
 *   rule           "intervals" (both documents have runs: flagged when the 95 % intervals
 *                  do not overlap) | "noise_floor" (flagged when |change| > noise_floor)
 *   noise_floor    points
 *   verdict        {text, node, delta, half, child, child_delta, largest, top_site, top_is_new}
 *   nodes          [{key, parent, level, label, a, b, delta, half, a_ci95 [lo, hi] | null,
 *                  b_ci95, rule, flagged}] in tree order (a or b null: not in that document
 *                  or not measurable there)
 *   delta_rank     [key, ...] of the nodes with a change, largest |change| first
 *   measure        what sites are compared on ("mispredicts"), null without sites
 *   sites          the top changes: [{match, name, function, file, line, a {rank, address,
 *                  value} | null, b {...} | null, delta, change_pct}]
 *   sites_matched, sites_only_a, sites_only_b
 *   edges          the top changes: [{match, from_symbol, to_symbol, a {from, to, value} | null,
 *                  b {...}, delta, change_pct}] (branch reports)
 *   edges_matched
 *
 * Lifecycle: diff_text_print(out, &res) or diff_json_print(out, &res, &err); out is
 * the caller's.
 */
#ifndef TDPROF_REPORT_DIFF_H
#define TDPROF_REPORT_DIFF_H

#include <stdio.h>

#include "doc/diff-result.h"

struct tdp_err;

/** Print the comparison as text. */
void diff_text_print(FILE *out, const struct diff_result *r);

/** Print one JSON document (indented, ending in a newline). Returns 0, TDP_ENOMEM or TDP_EIO. */
int diff_json_print(FILE *out, const struct diff_result *r, struct tdp_err *err)
	__attribute__((warn_unused_result));

#endif
