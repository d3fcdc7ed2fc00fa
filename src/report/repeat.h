/*
 * repeat.h: the runs of `-r N` (model/stats.h: struct model_runs) in a command's
 * output, beside the tree of means the command prints as usual.
 *
 * JSON keys added to the document (design.md's keys stay where they are: level1
 * and level2 hold the means):
 *   repeat   {runs, requested, confidence: 0.95, method: "student_t", deterministic,
 *            note}
 *   runs     [{level1: {...}, level2: {parent: {...}}}, ...] one object per run, in
 *            the shape of the document's own level1/level2 (a cycle-accounting model:
 *            cycle_accounting instead of level1); null: not measured in that run
 *   ci95     {level1: {node: [lo, hi]}, level2: {parent: {node: [lo, hi]}}}: the 95 %
 *            confidence interval of each mean (Student's t, n - 1 degrees of
 *            freedom); null when fewer than two runs measured the node
 *   stddev   the same shape: each node's sample standard deviation
 *
 * Lifecycle: after model_runs_mean(); out and doc are the caller's.
 */
#ifndef TDPROF_REPORT_REPEAT_H
#define TDPROF_REPORT_REPEAT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "model/model.h"
#include "model/stats.h"

/** Add repeat, runs, ci95 and stddev to doc for runs r whose tree of means is mean. */
void repeat_json_put(json_t *doc, const struct model_runs *r, const struct metric_tree *mean, bool *failed);

/** Print each node's mean, 95 % interval and standard deviation over the runs. */
void repeat_text_print(FILE *out, const struct model_runs *r, const struct metric_tree *mean);

#endif
