/* cmd-topdown-run.c: `tdprof topdown -- CMD`: a counted run, or a simulated one (see cmd-topdown.h). */
#include "cli/backend.h"
#include "cli/cmd.h"
#include "cli/cmd-topdown.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/opts.h"
#include "cli/output.h"
#include "base/alloc.h"
#include "base/countset.h"
#include "base/err.h"
#include "base/file.h"
#include "base/str.h"
#include "base/strbuf.h"
#include "cpu/cpu.h"
#include "import/import.h"
#include "measure/series.h"
#include "measure/topdown.h"
#include "model/groups.h"
#include "model/live.h"
#include "model/model.h"
#include "model/stats.h"
#include "report/topdown.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The model of the running machine, its slots and counters (model/live.h). */
static int live_model(const struct topdown_opts *to, const struct cpu_system *sys, const struct model **out,
		      struct model_eval_opts *o, struct groups_budget *b)
{
	struct tdp_err err = TDP_ERR_INIT;
	const struct model *chosen = NULL;

	if (to->cpu) {
		chosen = model_find(to->cpu);
		if (!chosen)
			return topdown_unknown_model(to->cpu);
	}
	if (model_live_setup(sys, chosen, (double)to->slots, out, o, b, &err)) {
		msg_err(&err);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static void note_progress(const char *line)
{
	msg_progress("%s", line);
}

/* The tree of a counted run (model/live.h chooses the model, measure/topdown.h counts). */
int topdown_run_live(const struct topdown_opts *to, char *const *argv, struct tdp_ctx *ctx)
{
	static const struct measure_notify notify = { note_progress, NULL };
	struct cpu_env env = CPU_ENV_INIT;
	struct cpu_system sys;
	struct tdp_err err = TDP_ERR_INIT;
	const struct model *m = NULL;
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct groups_budget b;
	struct measure_topdown t;
	struct measure_topdown_opts mo = { .nr_models = 1, .eo = &o, .budget = &b, .argv = argv,
					   .no_multiplex = to->no_multiplex, .repeat = to->repeat };
	struct metric_tree trees[TOPDOWN_MAX_TREES], mean;
	struct topdown_report r = { 0 };
	struct strbuf cmd = STRBUF_INIT;
	int ret, rc = EXIT_ANALYSIS;

	measure_topdown_init(&t);
	ret = cpu_system_detect(&sys, &env, &err);
	if (ret) {
		msg_err(&err);
		return exitcode_from_err(ret);
	}
	if (!sys.probe.opened) {
		msg_error("hardware counters are unavailable: %s", sys.probe.msg[0] ? sys.probe.msg : "no PMU");
		msg_hint("top-down needs a hardware PMU; use --backend=sim for a simulated estimate, or record "
			 "'perf stat -M TopdownL1 -x, -o counts.csv -- CMD' on a machine with one and run "
			 "'tdprof topdown --import counts.csv --cpu MODEL'");
		goto out;
	}
	rc = live_model(to, &sys, &m, &o, &b);
	if (rc)
		goto out;
	rc = topdown_choose_level(to, m, 1, &o.max_level);
	if (rc)
		goto out;
	mo.models[0] = m;
	if (m->companion && sys.cpu.hybrid)
		mo.models[mo.nr_models++] = m->companion;
	fflush(stdout); /* the workload shares it */
	ret = measure_topdown_run(&mo, &t, &notify, &err);
	if (ret) {
		msg_err(&err);
		rc = exitcode_from_err(ret);
		goto out;
	}
	rc = topdown_evaluate(m, &t.res.counts, &o, trees, &r.nr_trees);
	if (rc)
		goto out;
	for (size_t i = 0; i < r.nr_trees; i++)
		r.trees[i] = &trees[i];
	for (size_t i = 0; argv[i]; i++)
		strbuf_addf(&cmd, "%s%s", i ? " " : "'", argv[i]);
	strbuf_addch(&cmd, '\'');
	r.source = cmd.buf;
	r.backend = BACKEND_PMU;
	r.level = o.max_level;
	r.counts = &t.res.counts;
	r.no_multiplex = to->no_multiplex;
	r.runs = t.res.runs;
	if (t.split && r.nr_notes < TOPDOWN_MAX_NOTES)
		r.notes[r.nr_notes++] = "some formulas need more events than the counters hold at once: their "
					"events were counted in different groups (marked in the tree)";
	if (t.runs.nr > 1 && r.nr_trees > 1 && r.nr_notes < TOPDOWN_MAX_NOTES)
		r.notes[r.nr_notes++] = "-r: the means and intervals are of the first core type; the other core "
					"type's tree is the last run's";
	rc = topdown_use_means(&t.runs, &mean, &r);
	if (!rc)
		rc = topdown_render(to, &r, ctx);
	if (rc == EXIT_OK && t.res.workload_ran)
		rc = exitcode_from_wait(t.res.wstatus);
out:
	measure_topdown_release(&t);
	strbuf_release(&cmd);
	cpu_system_release(&sys);
	return rc;
}

/* The simulated runs of -r N (measure/series.h: the deterministic rule). *tree is the last run's. */
static int sim_runs(const struct topdown_opts *to, char *const *argv, struct measure_sim *s,
		    struct metric_tree *tree, struct model_runs *runs)
{
	struct measure_series ser;
	int rc = EXIT_OK;

	measure_series_init(&ser, to->repeat, true, runs);
	for (size_t i = 0; i < ser.n && !rc; i++) {
		struct tdp_err err = TDP_ERR_INIT;
		bool stop;

		if (i) {
			measure_sim_release(s);
			msg_progress("run %zu of %zu", i + 1, ser.n);
		}
		rc = backend_sim_run(argv, s);
		if (!rc && !s->have_est)
			rc = EXIT_ANALYSIS;
		if (rc)
			break;
		model_tree_from_sim(&s->est.topdown, s->machine.width, to->level ? (int)to->level : 1, tree);
		model_classify(tree);
		if (measure_series_add(&ser, tree, &stop, &err)) {
			msg_err(&err);
			rc = EXIT_ANALYSIS;
		} else if (stop) {
			break;
		}
	}
	return rc;
}

/* --backend=sim: the simulation's level-1 estimate (and the level-2 nodes it determines) as the tree. */
int topdown_run_sim(const struct topdown_opts *to, char *const *argv, struct tdp_ctx *ctx)
{
	struct measure_sim s;
	struct metric_tree tree, mean;
	struct model_runs runs = MODEL_RUNS_INIT;
	struct topdown_report r = { 0 };
	struct strbuf src = STRBUF_INIT;
	int rc;

	measure_sim_init(&s);
	rc = backend_sim_machine("topdown", to->sim_machine, &s.machine);
	/* the block model (Core Bound, Heavy Operations, the cycles of chains and ports) as why runs it:
	 * one estimate of a program whichever command asks */
	s.per_insn = true;
	s.stdout_to_stderr = strcmp(to->format, "text") && !to->out_path; /* a document on stdout: json, csv, html */
	if (!rc)
		rc = sim_runs(to, argv, &s, &tree, &runs);
	if (rc)
		goto out;
	r.trees[0] = &tree;
	r.nr_trees = 1;
	strbuf_adds(&src, "'");
	strbuf_add_shell_words(&src, argv);
	strbuf_addf(&src, "', estimate (simulated) on machine %s", s.machine_desc);
	r.source = src.buf;
	r.backend = BACKEND_SIM;
	r.level = tree.max_level;
	r.notes[r.nr_notes++] = "every figure is an estimate (simulated) by valgrind and the cost model of "
				"docs/sim-machine.md, not a measurement; the whole run is counted, the dynamic "
				"loader's start-up included ('tdprof why' can leave it out)";
	rc = topdown_use_means(&runs, &mean, &r);
	if (!rc)
		rc = topdown_render(to, &r, ctx);
	if (rc == EXIT_OK)
		rc = s.run.status;
out:
	strbuf_release(&src);
	model_runs_release(&runs);
	measure_sim_release(&s);
	return rc;
}
