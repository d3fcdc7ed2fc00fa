/*
 * annotate-run.c: choosing the function, the simulated run, and the report of
 * `tdprof annotate` (annotate-run.h).
 */
#include "cli/annotate-run.h"
#include "cli/backend.h"
#include "cli/cmd.h"
#include "cli/columns.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/output.h"
#include "annot/annot.h"
#include "base/alloc.h"
#include "base/err.h"
#include "base/path.h"
#include "base/str.h"
#include "report/annotate.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void list_candidates(const struct annot_doc *d, const struct annot_func *v, const size_t *idx, size_t n)
{
	const char *what = d->col_primary != ANNOT_NONE ? d->cols[d->col_primary].key : "count";

	for (size_t i = 0; i < n; i++) {
		const struct annot_func *f = &v[idx[i]];
		char c[STR_GROUPED_U64_MAX], m[STR_GROUPED_U64_MAX];
		const char *slash = f->dso ? strrchr(f->dso, '/') : NULL;

		if (d->col_misp != ANNOT_NONE)
			msg_hint("  %s  (%s, %s %s, mispredicts %s)", f->name, slash ? slash + 1 : f->dso ? f->dso : "?",
				 what, str_grouped_u64(f->count, c, sizeof(c)), str_grouped_u64(f->mispredicts, m, sizeof(m)));
		else
			msg_hint("  %s  (%s, %s %s)", f->name, slash ? slash + 1 : f->dso ? f->dso : "?", what,
				 str_grouped_u64(f->count, c, sizeof(c)));
	}
}

/* The percentages' column: --sort KEY (a summed count), else mispredicts when f has any, else the primary. */
static int sort_column(const struct annotate_opts *o, struct annot_doc *d, const struct annot_func *f)
{
	if (o->sort) {
		size_t c = annot_col_find(d, o->sort);

		if (c == ANNOT_NONE || d->cols[c].agg != ANNOT_AGG_SUM) {
			msg_error("--sort: '%s' is not a count of this input that lines add up", o->sort);
			for (size_t k = 0; k < d->nr_cols; k++)
				if (d->cols[k].agg == ANNOT_AGG_SUM)
					msg_hint("  %s: %s", d->cols[k].key, d->cols[k].description);
			return EXIT_USAGE;
		}
		d->sort_col = c;
		return EXIT_OK;
	}
	d->sort_col = f && f->mispredicts && d->col_misp != ANNOT_NONE ? d->col_misp : d->col_primary;
	return EXIT_OK;
}

long annotate_choose(const struct annotate_opts *o, struct annot_doc *d, struct annot_func *v, unsigned long nr,
		     bool prefer, const char *what, int *status)
{
	size_t chosen, listed[ANNOT_MAX_LISTED], n = 0;
	bool by_misp = d->col_misp != ANNOT_NONE && (!o->sort || !strcmp(o->sort, "mispredicts"));
	uint64_t misp = 0;
	enum annot_sel sel;

	for (size_t i = 0; i < nr; i++)
		misp += v[i].mispredicts;
	annot_funcs_rank(v, nr, by_misp && misp);
	sel = annot_select(v, nr, o->function, o->dso, prefer, &chosen, listed, &n);
	if (sel == ANNOT_SEL_ONE) {
		d->hottest = !o->function;
		d->hottest_by = by_misp && misp ? "mispredicts" : d->cols[d->col_primary].key;
		d->scope = d->hottest && prefer ? (v[chosen].preferred ? "the program's own code" : "the whole run") : NULL;
		*status = sort_column(o, d, &v[chosen]);
		return *status == EXIT_OK ? (long)chosen : -1;
	}
	*status = EXIT_USAGE;
	if (sel == ANNOT_SEL_EMPTY) {
		msg_error("no function of %s has counts: nothing was named", what);
		msg_hint("its binaries are found where the recording names them, under --symfs DIR and by build-id "
			 "in ~/.debug (kernel functions: --kallsyms FILE of the recorded kernel)");
		return -1;
	}
	if (sel == ANNOT_SEL_AMBIGUOUS)
		msg_error("'%s' names %zu functions of %s: give the whole name (with its parameters), or --dso", o->function,
			  n, what);
	else
		msg_error("no function '%s'%s%s in %s", o->function, o->dso ? " in " : "", o->dso ? o->dso : "", what);
	msg_hint("%s (by %s):", sel == ANNOT_SEL_AMBIGUOUS ? "they are" : "functions with counts",
		 by_misp && misp ? "mispredicts" : d->cols[d->col_primary].key);
	list_candidates(d, v, listed, n);
	return -1;
}

int annotate_report(const struct annotate_opts *o, struct annot_doc *d, const char *comp_dir, struct tdp_ctx *ctx)
{
	struct annotate_report r = { 0 };
	struct tdp_err err = TDP_ERR_INIT;
	char cwd[4096];
	int rc;

	if (annot_sources(d, comp_dir, getcwd(cwd, sizeof(cwd)) ? cwd : NULL, (unsigned)o->context, &err) ||
	    annot_finish(d)) {
		msg_error("out of memory");
		return EXIT_ANALYSIS;
	}
	r.d = d;
	r.asm_view = !o->source_only;
	r.source_view = !o->asm_only && !o->no_source;
	r.interleave = !o->no_source && !o->asm_only;
	r.bytes = o->raw;
	r.pal = o->output ? NULL : ctx->palette;
	r.columns = cli_columns();
	rc = output_render(o->output, render_find(RENDER_ANNOTATE, o->format), &r);
	if (rc == EXIT_OK && o->html)
		rc = output_html_of(o->html, RENDER_ANNOTATE, &r);
	return rc;
}

/* With a document (JSON, HTML) on stdout, the workload's own output would corrupt it. */
static bool divert(const struct annotate_opts *o)
{
	return strcmp(o->format, "text") && !o->output;
}

int annotate_run_sim(const struct annotate_opts *o, char *const *argv, const char *command, struct tdp_ctx *ctx)
{
	struct measure_sim s;
	struct annot_doc d;
	struct annot_func *v = NULL;
	struct tdp_err err = TDP_ERR_INIT;
	struct annot_sim_in in = { &s.profile, NULL };
	const char *comp_dir = NULL;
	char *exe = NULL;
	size_t nr = 0;
	long k;
	int rc;

	measure_sim_init(&s);
	annot_doc_init(&d);
	rc = backend_sim_machine("annotate", o->machine, &s.machine);
	if (rc)
		goto out;
	s.stdout_to_stderr = divert(o);
	s.per_insn = true; /* per-instruction counts (callgrind) */
	rc = backend_sim_run(argv, &s);
	if (rc)
		goto out;
	in.exe = exe = tdp_find_program_abs(argv[0], getenv("PATH"));
	d.backend = "sim";
	d.command = command;
	d.machine = s.machine_desc[0] ? s.machine_desc : NULL;

	if ((rc = annot_sim_funcs(&d, &in, &v, &nr, &err))) {
		msg_err(&err);
		rc = exitcode_from_err(rc);
		goto out;
	}
	k = annotate_choose(o, &d, v, nr, exe != NULL, "the simulated run", &rc);
	if (k < 0)
		goto out;
	msg_progress("annotating %s", v[k].name);
	if ((rc = annot_sim_build(&d, &in, &v[k], &comp_dir, &err))) {
		msg_err(&err);
		rc = exitcode_from_err(rc);
		goto out;
	}
	rc = annotate_report(o, &d, comp_dir, ctx);
	if (rc == EXIT_OK)
		rc = s.run.status;
out:
	annot_funcs_free(v);
	annot_doc_release(&d);
	tdp_free(exe);
	measure_sim_release(&s);
	return rc;
}
