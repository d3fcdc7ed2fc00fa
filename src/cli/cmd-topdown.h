/*
 * cmd-topdown.h: the parts of `tdprof topdown` (cmd-topdown.c: options and
 * rendering; cmd-topdown-eval.c: the model, the level, the import;
 * cmd-topdown-run.c: a counted or simulated run), shared inside the command only.
 */
#ifndef TDPROF_CLI_CMD_TOPDOWN_H
#define TDPROF_CLI_CMD_TOPDOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/countset.h"
#include "cli/cmd.h"
#include "model/model.h"
#include "report/topdown.h"

struct model_runs;

struct topdown_opts {
	const char *midr; /* --midr: an arm64 MIDR_EL1 value naming the model (and its revision) */
	const char *cpu, *import, *out_path, *backend, *sim_machine, *html, *format;
	long level;
	long slots;
	const char *nodes; /* --nodes */
	bool info, describe;
	long repeat;       /* -r N (0: once) */
	bool json, csv, no_multiplex;
	const char *sep;   /* -x SEP: CSV with SEP between fields */
	bool drilldown;    /* --drilldown */
	const char *by;    /* --by function */
	const char *symfs, *kallsyms; /* --symfs DIR, --kallsyms FILE: the recording's binaries */
	const char *events;      /* -e GROUP: --by function samples these instead of the model's */
	const char *save_data;   /* --save-data FILE: --by function's recording kept there */
	long freq;               /* -F N: --by function's samples per second (0: perf's 4000) */
};

/* cmd-topdown-eval.c */

/** The usage error for an unknown model, with the closest names (EXIT_USAGE). */
int topdown_unknown_model(const char *name);

/**
 * The level to evaluate for m into *out: -l, or --nodes' model depth, or dflt;
 * the usage error when m's tree is not that deep, saying what it offers.
 */
/** --midr HEX: set to->cpu to the model that MIDR (with its revision) selects; 0 or the exit code. */
int topdown_midr_model(struct topdown_opts *to);

int topdown_choose_level(const struct topdown_opts *to, const struct model *m, int dflt, int *out);

/** Evaluate m (and its hybrid companion when the counts hold its events) into trees. */
int topdown_evaluate(const struct model *m, const struct countset *cs, const struct model_eval_opts *o,
		     struct metric_tree *trees, size_t *nr_trees);

/** -r N: the tree of means of runs into *mean, which then stands for r->trees[0]. */
int topdown_use_means(struct model_runs *runs, struct metric_tree *mean, struct topdown_report *r);

/** --import FILE: the tree of perf stat output. */
int topdown_run_import(const struct topdown_opts *to, struct tdp_ctx *ctx);

/* cmd-topdown-run.c */

/** The tree of a counted run of argv. */
int topdown_run_live(const struct topdown_opts *to, char *const *argv, struct tdp_ctx *ctx);

/** --backend=sim: the simulation's estimate as the tree. */
int topdown_run_sim(const struct topdown_opts *to, char *const *argv, struct tdp_ctx *ctx);

/* cmd-topdown-drill.c */

/** --drilldown: level 1, then a rerun per step of model/drilldown.h. */
int topdown_run_drill(const struct topdown_opts *to, char *const *argv, struct tdp_ctx *ctx);

/* cmd-topdown-byfunc.c */

/** --by function --backend=sim: each function's top-down from the simulation's per-line counts. */
int topdown_run_byfunc_sim(const struct topdown_opts *to, char *const *argv, struct tdp_ctx *ctx);

/* cmd-topdown-groupread.c */

/** Whether data[0..size) is a perf.data (its magic). */
bool topdown_is_perfdata(const uint8_t *data, size_t size);

struct tdp_file;
struct tdp_err;

/**
 * Open --import's path: a regular file mapped whatever its size (a perf.data may be large),
 * perf stat output (a stream, or a file that is not a perf.data) up to IMPORT_MAX_INPUT.
 * Returns as tdp_file_open_checked().
 */
int topdown_open_import(const char *path, struct tdp_file *f, struct tdp_err *err);

/**
 * The tree of a perf.data's group reads data[0..size) (path names it) and, with --by function,
 * each function's; live_cmd: the command sampled live (the backend is then pmu), NULL for an import.
 */
int topdown_run_groupread(const struct topdown_opts *to, const uint8_t *data, size_t size, const char *path,
			  const char *live_cmd, struct tdp_ctx *ctx);

/* cmd-topdown-sample.c */

/** --by function -- CMD on a PMU: a sampling run with group reads, then topdown_run_groupread(). */
int topdown_run_byfunc_live(const struct topdown_opts *to, char *const *argv, struct tdp_ctx *ctx);

/* cmd-topdown.c */

/** Render r as --format/-o/--html ask, with --nodes, --info and --describe. */
int topdown_render(const struct topdown_opts *to, struct topdown_report *r, struct tdp_ctx *ctx);

#endif
