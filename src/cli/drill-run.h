/*
 * drill-run.h: the counted runs of a drill-down (model/drilldown.h's drill_run())
 * as `tdprof topdown --drilldown` and `tdprof why` (on a PMU) run them: each
 * step's groups counted over the workload by measure/topdown.h, with a progress
 * line per step and the live line on stderr. In cli/ because it prints; what
 * to count, and what the counts mean, are model/drilldown.h's.
 *
 * Usage:
 *   struct cli_drill c = { .m = m, .o = &o, .b = &b, .argv = argv, ... };
 *   rc = cli_drill_run(&c, merged, info);   (an exit status; errors printed)
 *   ... c.first, c.first_status, c.last_status ...
 *   cli_drill_release(&c);
 */
#ifndef TDPROF_CLI_DRILL_RUN_H
#define TDPROF_CLI_DRILL_RUN_H

#include <stdbool.h>

#include "base/countset.h"
#include "base/err.h"
#include "model/drilldown.h"
#include "model/groups.h"
#include "model/model.h"

struct cli_drill {
	/* in */
	const struct model *m;
	const struct model_eval_opts *o;  /* o->max_level: -l N */
	const struct groups_budget *b;
	bool no_multiplex;                /* --no-multiplex: one run per group */
	char *const *argv;                /* the workload (borrowed) */
	const char *first_extra;          /* events counted in step 1 too, each alone, in a run of their own
	                                     after the groups' (why's triage; the step's runs count it); NULL */
	bool divert;                      /* the workload's stdout goes to stderr (a document on stdout) */
	bool keep_partial;                /* a step after the first that cannot be counted ends the drill
	                                     with a warning (why) instead of failing it (topdown) */
	/* out */
	struct countset first;            /* step 1's counts, first_extra's included (owned) */
	bool ran;                         /* the workload ran at least once */
	int first_status;                 /* step 1's workload status (exitcode_from_wait), when ran */
	int last_status;                  /* the last run's */
	int signal;                       /* a signal passed on to the workload ended the drill; 0 none */
	char stopped[TDP_ERR_MSG_MAX];    /* keep_partial: why the drill stopped early; "" it did not */
};

/**
 * Run the whole drill of c->m over c->argv into merged and info (see
 * drilldown.h's drill_run()). Returns EXIT_OK (steps merged: info->nr_steps >= 1)
 * or the exit status of the failure, printed.
 */
int cli_drill_run(struct cli_drill *c, struct metric_tree *merged, struct drill_info *info);

/** Free c->first. */
void cli_drill_release(struct cli_drill *c);

#endif
