/*
 * why-run.c: the runs of `tdprof why` (see why-run.h): the workload measured
 * under the chosen backend (measure/, through cli/backend.h), -r N's series and
 * its means (measure/series.h), the diagnosis (diagnose/), the PMU drill-down
 * (why-drill.h), and the document rendered (report/why.h through cli/output.h).
 */
#include "cli/columns.h"
#include "cli/why-run.h"
#include "cli/backend.h"
#include "cli/cmd.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/output.h"
#include "cli/why-drill.h"
#include "cli/why-tree.h"
#include "base/alloc.h"
#include "base/err.h"
#include "base/path.h"
#include "diagnose/diagnose.h"
#include "measure/series.h"
#include "model/model.h"
#include "model/stats.h"
#include "report/why.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * -r N: keep the tree of the run just diagnosed. Returns true when the series
 * should stop (measure/series.h), or the run has no tree.
 */
static bool add_run(struct measure_series *ser, const struct diag *d, int *rc)
{
	struct tdp_err err = TDP_ERR_INIT;
	bool stop;

	if (!d->has_tree)
		return true;
	if (measure_series_add(ser, &d->tree, &stop, &err)) {
		msg_err(&err);
		*rc = EXIT_ANALYSIS;
		return true;
	}
	return stop;
}

/* -r N: the diagnosis's tree becomes the tree of means (its verdict, sites and findings stay the last run's). */
static int use_means(struct model_runs *runs, struct diag *d, struct why_report *r)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct metric_tree mean;
	bool have;

	if (measure_runs_mean(runs, &d->tree, &mean, &have, &err)) {
		msg_err(&err);
		return EXIT_ANALYSIS;
	}
	if (have) {
		d->tree = mean;
		r->repeat = runs;
	}
	return EXIT_OK;
}

static int render(const struct why_opts *wo, const struct why_report *r, struct tdp_ctx *ctx)
{
	struct why_report rr = *r;
	int rc;

	rr.verbose = ctx->verbose > 0;
	rr.columns = cli_columns();
	rr.csv_sep = wo->sep;
	rr.pal = wo->out_path ? NULL : ctx->palette;
	rc = output_render(wo->out_path, render_find(RENDER_WHY, wo->format), &rr);
	if (rc == EXIT_OK && wo->html)
		rc = output_html_of(wo->html, RENDER_WHY, &rr);
	return rc;
}

static void fill_opts(struct diag_opts *o, const struct why_opts *wo, const char *exe, const char *cwd,
		      const char *command)
{
	o->exe = exe;
	o->cwd = cwd;
	o->command = command;
	o->level = wo->level > 0 ? (int)wo->level : 2;
	o->top = (size_t)wo->top;
}

/* With a document (JSON, HTML) on stdout, the workload's own output would corrupt it. */
bool why_divert(const struct why_opts *wo)
{
	return strcmp(wo->format, "text") && !wo->out_path;
}

int why_run_sim(const struct why_opts *wo, char *const *argv, const char *command, struct tdp_ctx *ctx)
{
	struct measure_sim s;
	struct diag d;
	struct diag_opts o = { 0 };
	struct tdp_err err = TDP_ERR_INIT;
	struct why_report r = { 0 };
	struct model_runs runs = MODEL_RUNS_INIT;
	struct measure_series ser;
	char *exe = NULL, cwd[4096];
	int rc, ret;

	measure_sim_init(&s);
	diag_init(&d);
	measure_series_init(&ser, wo->repeat, true, &runs);
	rc = backend_sim_machine("why", wo->machine, &s.machine);
	if (rc)
		goto out;
	s.stdout_to_stderr = why_divert(wo);
	s.per_insn = true; /* one line may hold several branches: rank each (diagnose.h) */
	/* the symbol session finds binaries by absolute path */
	exe = tdp_find_program_abs(argv[0], getenv("PATH"));
	fill_opts(&o, wo, exe, getcwd(cwd, sizeof(cwd)) ? cwd : NULL, command);
	for (size_t i = 0; i < ser.n; i++) {
		if (i) {
			diag_release(&d);
			diag_init(&d);
			measure_sim_release(&s);
			msg_progress("run %zu of %zu", i + 1, ser.n);
		}
		rc = backend_sim_run(argv, &s);
		if (rc)
			goto out;
		if (!s.have_est) {
			rc = EXIT_ANALYSIS;
			goto out;
		}
		msg_progress("diagnosing: scope, sites, drill-down");
		ret = diag_from_sim(&d, &s.profile, &s.machine, &s.est, &o, &err);
		if (ret) {
			msg_err(&err);
			rc = exitcode_from_err(ret);
			goto out;
		}
		if (add_run(&ser, &d, &rc))
			break;
	}
	if (rc || (rc = use_means(&runs, &d, &r)))
		goto out;
	r.d = &d;
	r.command = command;
	r.workload_ran = true;
	r.exit_status = s.run.status;
	diag_note_exit(&d, r.exit_status);
	rc = render(wo, &r, ctx);
	if (rc == EXIT_OK)
		rc = s.run.status;
out:
	tdp_free(exe);
	diag_release(&d);
	model_runs_release(&runs);
	measure_sim_release(&s);
	return rc;
}

/*
 * The counted run(s) of the whole tree up to -l (-r N, --no-drill, or no model to drill
 * with): each run diagnosed, -r N's means kept in r.
 */
static int count_runs(const struct why_opts *wo, char *const *argv, const struct diag_opts *o, struct diag *d,
		      struct model_runs *runs, struct why_report *r, struct why_tree_run *out)
{
	struct measure_pmu p;
	struct tdp_err err = TDP_ERR_INIT;
	struct measure_series ser;
	int rc = EXIT_OK, saved;

	measure_pmu_init(&p);
	measure_series_init(&ser, wo->repeat, false, runs);
	if (wo->cpu && !(p.chosen = model_find(wo->cpu)))
		return backend_unknown_model(wo->cpu);
	for (size_t i = 0; i < ser.n; i++) {
		if (i) {
			diag_release(d);
			diag_init(d);
			measure_pmu_release(&p);
			measure_pmu_init(&p);
			p.chosen = wo->cpu ? model_find(wo->cpu) : NULL;
			msg_progress("run %zu of %zu", i + 1, ser.n);
		}
		saved = backend_divert_stdout(why_divert(wo));
		p.allow_no_model = true;
		rc = backend_pmu_run(argv, o->level, &p);
		backend_restore_stdout(saved);
		if (rc)
			goto out;
		if (diag_from_counts(d, BACKEND_PMU, &p.res.counts, &p.tree, o, &err)) {
			msg_err(&err);
			rc = EXIT_ANALYSIS;
			goto out;
		}
		if (!p.model)
			why_drill_no_model(d, p.no_model);
		if (add_run(&ser, d, &rc) || p.res.signal)
			break;
	}
	if (!rc)
		rc = use_means(runs, d, r);
	out->ran = p.res.workload_ran;
	out->status = p.res.workload_ran ? exitcode_from_wait(p.res.wstatus) : 0;
	out->seconds = p.res.counts.elapsed_ns / 1e9;
	out->signal = p.res.signal;
out:
	measure_pmu_release(&p);
	return rc;
}

int why_run_pmu(const struct why_opts *wo, char *const *argv, const char *command, struct tdp_ctx *ctx)
{
	struct diag d;
	struct diag_opts o = { 0 };
	struct why_report r = { 0 };
	struct model_runs runs = MODEL_RUNS_INIT;
	struct why_tree_run run = { 0 };
	int rc = WHY_TREE_NONE;
	char *exe = wo->no_drill ? NULL : tdp_find_program_abs(argv[0], getenv("PATH")), cwd[4096];

	diag_init(&d);
	fill_opts(&o, wo, exe, exe && getcwd(cwd, sizeof(cwd)) ? cwd : NULL, command);
	if (why_tree_wanted(wo))
		rc = why_tree_pmu(wo, argv, &o, &d, &run);
	if (rc == WHY_TREE_NONE)
		rc = count_runs(wo, argv, &o, &d, &runs, &r, &run);
	if (rc)
		goto out;
	r.d = &d;
	r.command = command;
	r.workload_ran = run.ran;
	r.exit_status = run.ran ? run.status : 0;
	diag_note_exit(&d, r.exit_status);
	if (!wo->no_drill && run.ran && !run.signal)
		why_drill_pmu(&d, &(struct why_drill_in){ argv, why_divert(wo), run.seconds, r.exit_status, &o });
	rc = render(wo, &r, ctx);
	if (rc == EXIT_OK)
		rc = r.exit_status;
out:
	tdp_free(exe);
	diag_release(&d);
	model_runs_release(&runs);
	return rc;
}
