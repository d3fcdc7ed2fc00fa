/*
 * why-drill.h: the PMU drill-down of `tdprof why` as the command runs it: the
 * second, sampled run of the workload (diagnose/drill-pmu.h), with its progress
 * lines and warnings on stderr. In cli/ because it prints, reads the environment
 * (TMPDIR) and /proc/sys/kernel/perf_event_max_sample_rate; the analysis is in
 * diagnose/.
 *
 * Usage (cmd-why.c, PMU backend, after diag_from_counts()):
 *   if (!p.model) why_drill_no_model(&d, p.no_model);
 *   why_drill_pmu(&d, &(struct why_drill_in){ ... });
 * A drill-down that cannot be made is a warning, never a failure of the command:
 * d keeps the diagnosis of the counts, whose finding names the command that traces
 * the branches.
 */
#ifndef TDPROF_CLI_WHY_DRILL_H
#define TDPROF_CLI_WHY_DRILL_H

#include <stdbool.h>

#include "diagnose/diagnose.h"

struct why_drill_in {
	char *const *argv;         /* the workload (borrowed) */
	bool divert;               /* its stdout goes to stderr (a JSON document on stdout) */
	double run_seconds;        /* the first run's wall time; <= 0 unknown */
	int first_status;          /* the first run's exit status (exitcode_from_wait) */
	const struct diag_opts *o; /* exe, cwd, command, top (borrowed) */
};

/**
 * Sample argv a second time as d's category asks and fill d's drill-down: prints
 * what is sampled and why (progress), the samples read, and a warning when the
 * second run's status differs from the first's or when the drill-down cannot be
 * made (then d is left as it was).
 */
void why_drill_pmu(struct diag *d, const struct why_drill_in *in);

/**
 * A PMU diagnosis without a model (backend_pmu's allow_no_model): no tree and no
 * verdict; the reason in d->reason and a note saying what the output still holds.
 */
void why_drill_no_model(struct diag *d, const char *why);

#endif
