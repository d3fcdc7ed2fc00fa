/*
 * why-tree.h: the counted runs of `tdprof why` on a PMU that give its tree: the
 * drill-down of topdown --drilldown (cli/drill-run.h, model/drilldown.h), level 1
 * with the triage events, then a rerun per step for the children of the nodes that
 * crossed (else of the largest) and of the verdict's dominant node, down to the
 * leaves or -l N; each node with the run that measured it and its running
 * fraction, a value out of its bounds flagged mismeasured. The leaf the sampled
 * run then locates (why-drill.h) is the deepest dominant node measured.
 *
 * Usage (why-run.c): when why_tree_wanted(wo), rc = why_tree_pmu(...); rc ==
 * WHY_TREE_NONE means there is no model to drill with here (the caller counts the
 * triage events in one run, as without a model), else an exit status.
 */
#ifndef TDPROF_CLI_WHY_TREE_H
#define TDPROF_CLI_WHY_TREE_H

#include <stdbool.h>

#include "cli/why-run.h"
#include "diagnose/diagnose.h"

#define WHY_TREE_NONE (-1) /* no model applies: count without a drill-down */

/* What the runs did, for the exit status and the sampled run. */
struct why_tree_run {
	bool ran;                /* the workload ran */
	int status;              /* the first run's exit status (exitcode_from_wait) */
	double seconds;          /* the first run's wall time; <= 0 unknown */
	int signal;              /* a signal passed on to the workload ended the runs; 0 none */
};

/** Whether the tree is drilled down: not with -r N (each run counts the same tree) nor --no-drill. */
bool why_tree_wanted(const struct why_opts *wo);

/**
 * The drill-down's runs of argv into d (empty): diag_from_counts() over the merged
 * tree and step 1's counts, d->tree_drill and d->tree_drill_stopped. Prints its
 * progress, warnings and errors. Returns EXIT_OK, WHY_TREE_NONE (no model applies
 * and --cpu was not given: d untouched), or the exit status of a failure.
 */
int why_tree_pmu(const struct why_opts *wo, char *const *argv, const struct diag_opts *o, struct diag *d,
		 struct why_tree_run *out);

#endif
