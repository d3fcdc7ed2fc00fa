/*
 * annotate-run.h: the work of `tdprof annotate` after its options are read
 * (cmd-annotate.c): a recording loaded and aggregated as `branches report` does
 * (annotate-load.c), or a workload simulated as `why --backend=sim` does; the
 * function chosen, listed and counted (annot/annot.h); the document rendered
 * (report/annotate.h) to stdout or -o FILE (and --html FILE).
 *
 * Both entry points print their errors and return the exit status: 2 for a
 * name that matches no function or several (the candidates are listed with
 * their counts), a file that is not a perf.data; the workload's status after a
 * simulated run that was annotated.
 */
#ifndef TDPROF_CLI_ANNOTATE_RUN_H
#define TDPROF_CLI_ANNOTATE_RUN_H

#include <stdbool.h>

struct tdp_ctx;
struct annot_doc;
struct annot_func;

struct annotate_opts {
	const char *function;  /* FUNCTION (or -s NAME); NULL: the hottest */
	const char *input, *output, *format, *html, *symfs, *kallsyms, *dso, *sort, *backend, *machine;
	bool json, asm_only, source_only, no_source, stdio, raw;
	long context;
};

/** Annotate from the recording o->input. */
int annotate_run_file(const struct annotate_opts *o, struct tdp_ctx *ctx);

/** Annotate from a simulated run of argv (NULL-terminated; command: argv as shell words). */
int annotate_run_sim(const struct annotate_opts *o, char *const *argv, const char *command, struct tdp_ctx *ctx);

/*
 * Shared by the two (annotate-run.c): choose the function among v[0..nr)
 * (ranked here by o->sort), set d's sort column for it; on failure the
 * candidates are printed. Returns the index, or -1 with *status set.
 */
long annotate_choose(const struct annotate_opts *o, struct annot_doc *d, struct annot_func *v, unsigned long nr,
		     bool prefer, const char *what, int *status);

/* Sources, figures and the rendering of a built document. Returns the exit status. */
int annotate_report(const struct annotate_opts *o, struct annot_doc *d, const char *comp_dir, struct tdp_ctx *ctx);

#endif
