/*
 * stat-run.h: the runs of `tdprof stat` after its options are read (cmd-stat.c):
 * the counted run (measure/stat.h) with its intervals printed as they end, or the
 * simulated one (--backend=sim), the triage metrics and route computed
 * (model/triage.h), and the document rendered through its renderer table
 * (report/render.h, RENDER_STAT) to stdout or -o FILE.
 *
 * Both print their errors and return the exit status: the workload's, or the
 * failure's (exitcode.h).
 */
#ifndef TDPROF_CLI_STAT_RUN_H
#define TDPROF_CLI_STAT_RUN_H

#include <stdbool.h>

#include "pmu/session.h"

struct palette;

struct stat_opts {
	char *events;
	const char *sep, *out_path, *pid_s, *tid_s, *cpu_list, *backend, *sim_machine, *format;
	long repeat, interval;
	bool json, all_cpus, no_inherit;
	const struct palette *pal; /* text on stdout: its colours (cli/colour.h); NULL: none */
};

/** The counted run of so (its argv, pid, tid filled by the caller). */
int stat_run_pmu(const struct stat_opts *o, struct pmu_session_opts *so);

/** --backend=sim: the counts valgrind's simulation estimates for argv (borrowed). */
int stat_run_sim(const struct stat_opts *o, char *const *argv);

#endif
