/*
 * cmd-why.c: `tdprof why`, the whole workflow in one command: triage, top-down,
 * the drill-down into the dominant bucket and a ranked diagnosis with sites and
 * fixes. The analysis is src/diagnose/; the renderers are report/why.h; this file
 * reads options, chooses the backend, runs the workload and reports.
 */
#include "cli/columns.h"
#include "cli/backend.h"
#include "cli/cmd.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/opts.h"
#include "cli/why-drill.h"
#include "cli/output.h"
#include "base/alloc.h"
#include "base/countset.h"
#include "base/err.h"
#include "base/path.h"
#include "base/strbuf.h"
#include "diagnose/diagnose.h"
#include "measure/series.h"
#include "model/stats.h"
#include "report/why.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char cmd_why_summary[] = "the whole workflow in one command: why is it slow, where, and what to change";

static const struct cmd_doc doc = {
	.name = "why",
	.summary = cmd_why_summary,
	.usage = "why [--backend=auto|pmu|sim] [--sim-machine M] [-l 1|2] [--no-drill] [-n TOP] [--json] [-o FILE] -- "
		 "CMD [ARGS]",
	.description =
		"Runs CMD once and goes through the top-down workflow for you: triage (CPI, branch, i-cache and "
		"last-level-cache misses per 1000 instructions), the top-down tree (level 2 where the backend "
		"can tell), the verdict, then a drill-down into the bottleneck: Bad Speculation -> the branch "
		"sites ranked by mispredicts with the disassembly around the worst one; Frontend Bound -> the "
		"i-cache misses and the hot code footprint per function; Backend Bound -> memory versus core "
		"and the data-miss sites; Retiring -> the hot loop and the 'tdprof loop' command that measures it "
		"alone. It ends in a ranked diagnosis: each finding with the numbers behind it, its source line "
		"and function, and a fix from the knowledge base ('tdprof explain NODE' says more).\n"
		"\n"
		"Backends: with a hardware PMU the tree is measured; without one (most virtual machines) "
		"--backend=auto, the default, says so and simulates the run under valgrind (callgrind, its "
		"cache and branch simulators, per instruction) on the machine --sim-machine describes (docs/sim-machine.md): "
		"every figure is then an estimate (simulated), and the output says so. A simulated run takes "
		"20-100 times the normal run time; progress lines go to stderr. --backend=pmu fails (exit 1) "
		"where no hardware event opens, with the reason.\n"
		"\n"
		"The drill-down on the PMU runs CMD a second time, sampled: for Bad Speculation with the branch "
		"records of this machine ('tdprof info' names them: Intel LBR, AMD LbrExtV2 or BRS, Arm BRBE or "
		"SPE), ranked by mispredicted records per source line with the disassembly around the worst "
		"branch; without any, and for every other bucket, with the instruction pointers of cycles samples "
		"(the hot lines and functions, the hot code footprint for Frontend Bound, the 'tdprof loop' "
		"command for the hottest function). The recording stays in memory; the figures are samples and "
		"say so. --no-drill skips that second run. Where no top-down model applies to the CPU (a core "
		"without slot events), the PMU run gives the triage counts and the hot code, without a verdict.\n"
		"\n"
		"The verdict is the level-1 node above its threshold (Retiring 80 %, Bad Speculation 15 %, "
		"Frontend Bound 20 %, Backend Bound 40 %) with the largest share of slots, or, when none is, the "
		"largest stall (not Retiring), as 'tdprof topdown' says it. In a simulated run the costs of the dynamic loader and the libraries are left out "
		"when the program's own code ran at least half of the instructions (a short program would "
		"otherwise look like its start-up); the output names the scope and gives the whole run beside it.\n"
		"\n"
		"With --json and no -o, CMD's standard output goes to stderr, so that stdout holds only the "
		"JSON document. Build CMD with -g for source lines (and -fno-omit-frame-pointer does no harm). To reuse counts "
		"recorded elsewhere, 'tdprof topdown --import FILE' classifies them; 'why' runs the workload, so "
		"it takes no --import.",
	.examples = "tdprof why -- ./app input.txt\n"
		    "the whole workflow over one run of ./app\n"
		    "tdprof why --backend=sim --sim-machine zen4 -- ./app\n"
		    "simulated on a Zen 4-shaped machine, whatever this machine has\n"
		    "tdprof why --json -o why.json -- ./app\n"
		    "one JSON document: backend, level1, level2, verdict, sites, findings",
	.exit_status = "CMD's exit status (128+N when signal N killed it), 127 when CMD is not found, 126 when it "
		       "cannot be run; 1 when the analysis failed (valgrind missing, no hardware counters with "
		       "--backend=pmu); 2 for a usage error.",
	.see_also = "tdprof-stat(1), tdprof-topdown(1), tdprof-explain(1), tdprof-loop(1), valgrind(1)",
};

struct why_opts {
	const char *backend, *machine, *out_path, *html, *format;
	long level, top;
	long repeat;       /* -r N (0: once) */
	bool json;
	bool no_drill;     /* --no-drill: no second, sampled run (PMU) */
};

static int json_doc(FILE *out, const void *r, struct tdp_err *err)
{
	return why_json_print(out, r, err);
}

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
	rc = output_render(wo->out_path, render_find(RENDER_WHY, wo->format), &rr);
	if (rc == EXIT_OK && wo->html)
		rc = output_html(wo->html, json_doc, &rr);
	return rc;
}

static void fill_opts(struct diag_opts *o, const struct why_opts *wo, const char *exe, const char *cwd,
		      const char *command)
{
	o->exe = exe;
	o->cwd = cwd;
	o->command = command;
	o->level = (int)wo->level;
	o->top = (size_t)wo->top;
}

/* With --json on stdout, the workload's own output would corrupt the document. */
static bool divert(const struct why_opts *wo)
{
	return wo->json && !wo->out_path;
}

static int run_sim(const struct why_opts *wo, char *const *argv, const char *command, struct tdp_ctx *ctx)
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
	s.stdout_to_stderr = divert(wo);
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

static int run_pmu(const struct why_opts *wo, char *const *argv, const char *command, struct tdp_ctx *ctx)
{
	struct measure_pmu p;
	struct diag d;
	struct diag_opts o = { 0 };
	struct why_report r = { 0 };
	struct tdp_err err = TDP_ERR_INIT;
	struct model_runs runs = MODEL_RUNS_INIT;
	struct measure_series ser;
	int rc = EXIT_OK, saved;
	char *exe = wo->no_drill ? NULL : tdp_find_program_abs(argv[0], getenv("PATH")), cwd[4096];

	measure_pmu_init(&p);
	diag_init(&d);
	measure_series_init(&ser, wo->repeat, false, &runs);
	fill_opts(&o, wo, exe, exe && getcwd(cwd, sizeof(cwd)) ? cwd : NULL, command);
	for (size_t i = 0; i < ser.n; i++) {
		if (i) {
			diag_release(&d);
			diag_init(&d);
			measure_pmu_release(&p);
			measure_pmu_init(&p);
			msg_progress("run %zu of %zu", i + 1, ser.n);
		}
		saved = backend_divert_stdout(divert(wo));
		p.allow_no_model = true;
		rc = backend_pmu_run(argv, (int)wo->level, &p);
		backend_restore_stdout(saved);
		if (rc)
			goto out;
		if (diag_from_counts(&d, BACKEND_PMU, &p.res.counts, &p.tree, &o, &err)) {
			msg_err(&err);
			rc = EXIT_ANALYSIS;
			goto out;
		}
		if (!p.model)
			why_drill_no_model(&d, p.no_model);
		if (add_run(&ser, &d, &rc) || p.res.signal)
			break;
	}
	if (rc || (rc = use_means(&runs, &d, &r)))
		goto out;
	r.d = &d;
	r.command = command;
	r.workload_ran = p.res.workload_ran;
	r.exit_status = p.res.workload_ran ? exitcode_from_wait(p.res.wstatus) : 0;
	diag_note_exit(&d, r.exit_status);
	if (!wo->no_drill && p.res.workload_ran && !p.res.signal)
		why_drill_pmu(&d, &(struct why_drill_in){ argv, divert(wo), p.res.counts.elapsed_ns / 1e9,
							  r.exit_status, &o });
	rc = render(wo, &r, ctx);
	if (rc == EXIT_OK)
		rc = r.exit_status;
out:
	tdp_free(exe);
	diag_release(&d);
	model_runs_release(&runs);
	measure_pmu_release(&p);
	return rc;
}

int cmd_why(int argc, char **argv, struct tdp_ctx *ctx)
{
	struct why_opts wo = { .backend = "auto", .level = 2, .top = 10 };
	struct opt opts[] = {
		OPT_GROUP("how to measure"),
		OPT_CHOICE(0, "backend", &wo.backend, "auto|pmu|sim", "where counts come from: auto (the PMU, else "
								      "the simulation), pmu, sim (valgrind; estimates)"),
		OPT_STRING(0, "sim-machine", &wo.machine, "M", "the simulated machine: a preset (generic, zen4, "
							       "alderlake, skylake, neoverse-n1), KEY=VAL,... or a file"),
		OPT_LONG('l', "level", &wo.level, "1|2", "deepest level of the tree (default 2)", 1, 2),
		OPT_LONG('r', "repeat", &wo.repeat, "N", "run CMD N times: each node's mean and its 95 % confidence "
							 "interval (Student's t); the diagnosis is the last run's",
			 1, MODEL_RUNS_MAX),
		OPT_BOOL(0, "no-drill", &wo.no_drill, "PMU: no second, sampled run of CMD for the sites of the "
						       "bottleneck (the diagnosis then names the command that traces them)"),
		OPT_GROUP("output"),
		OPT_LONG('n', "top", &wo.top, "N", "sites listed (default 10; JSON and -v list them all up to N)", 1,
			 DIAG_MAX_SITES),
		OPT_CHOICE(0, "format", &wo.format, "text|json", "the output's format (default text)"),
		OPT_BOOL(0, "json", &wo.json, "one JSON document (--format=json)"),
		OPT_STRING('o', "output", &wo.out_path, "FILE", "write the result to FILE instead of stdout"),
		OPT_STRING(0, "html", &wo.html, "FILE", "also write a self-contained HTML report to FILE"),
		OPT_END(),
	};
	struct strbuf cmd = STRBUF_INIT;
	enum tdp_backend b;
	int i = opts_parse(opts, &doc, argc, argv), rc;

	if (i < 0)
		return opts_exit(i);
	if (!(wo.format = output_format("why", wo.format, wo.json ? "json" : NULL, "text")))
		return EXIT_USAGE;
	wo.json = !strcmp(wo.format, "json");
	if (i >= argc)
		return msg_usage("why", "no command to run: give it after '--'");
	rc = backend_select("why", wo.backend, &(struct backend_select_opts){ .can_sim = true }, &b);
	if (rc)
		return rc;
	if (wo.machine && b != BACKEND_SIM)
		msg_warning("'--sim-machine' applies to the simulated backend only: the PMU measures this machine");
	if (wo.no_drill && b == BACKEND_SIM)
		msg_note("'--no-drill' applies to the PMU backend: the simulation's sites come from its one run");
	strbuf_add_shell_words(&cmd, argv + i);
	if (strbuf_failed(&cmd)) {
		msg_error("out of memory");
		rc = EXIT_ANALYSIS;
	} else {
		rc = b == BACKEND_SIM ? run_sim(&wo, argv + i, cmd.buf, ctx) : run_pmu(&wo, argv + i, cmd.buf, ctx);
	}
	strbuf_release(&cmd);
	return rc;
}
