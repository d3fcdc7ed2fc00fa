/*
 * why-run.h: the runs of `tdprof why` after its options are read (cmd-why.c):
 * under the simulation or the PMU, -r N times, diagnosed, drilled down (PMU) and
 * rendered to stdout or -o FILE (and --html FILE).
 *
 * Usage (cmd-why.c): rc = b == BACKEND_SIM ? why_run_sim(&wo, argv, command, ctx)
 *                                          : why_run_pmu(&wo, argv, command, ctx);
 * Both print their errors and return the exit status: the workload's, or the
 * failure's (exitcode.h).
 */
#ifndef TDPROF_CLI_WHY_RUN_H
#define TDPROF_CLI_WHY_RUN_H

#include <stdbool.h>

struct tdp_ctx;

struct why_opts {
	const char *backend, *machine, *out_path, *html, *format;
	long level;        /* -l N: the deepest level (0: the simulation's 2, the PMU drill-down's leaves) */
	long top;
	long repeat;       /* -r N (0: once) */
	bool json, csv;
	const char *sep;   /* -x SEP: CSV with SEP between fields */
	bool no_drill;     /* --no-drill: CMD runs once (PMU: no drill-down reruns, no sampled run) */
	bool no_multiplex; /* --no-multiplex: each counter group of the drill-down in a run of its own */
	const char *cpu;   /* --cpu MODEL: the model to count with (PMU); NULL: this CPU's */
};

/** Whether the workload's stdout goes to stderr (a document other than text on stdout). */
bool why_divert(const struct why_opts *wo);

/** The simulated run(s) of argv (NULL-terminated, borrowed; command: argv as shell words). */
int why_run_sim(const struct why_opts *wo, char *const *argv, const char *command, struct tdp_ctx *ctx);

/** The counted run(s) of argv, then the sampled drill-down unless wo->no_drill. */
int why_run_pmu(const struct why_opts *wo, char *const *argv, const char *command, struct tdp_ctx *ctx);

#endif
