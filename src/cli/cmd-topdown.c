/*
 * cmd-topdown.c: `tdprof topdown`, mode 3 of the workflow (classify): the
 * top-down tree of a command's run, or of perf stat output recorded anywhere
 * (--import), its thresholds, the verdict and the next step.
 */
#include "cli/backend.h"
#include "cli/cmd.h"
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

const char cmd_topdown_summary[] = "classify the bottleneck: the top-down tree, its verdict and the next step";

static const struct cmd_doc doc = {
	.name = "topdown",
	.summary = cmd_topdown_summary,
	.usage = "topdown [-l N] [--nodes LIST] [--info] [--cpu MODEL] [--json] [-o FILE] [--no-multiplex] -- CMD "
		 "[ARGS]\n"
		 "topdown --import FILE [--cpu MODEL] [-l N] [--nodes LIST] [--info] [--slots N] [--json] [-o FILE]",
	.description =
		"Classifies where the pipeline's slots go (Intel's top-down method, on Intel, AMD and Arm): level 1 "
		"splits them into Retiring, Bad Speculation, Frontend Bound and Backend Bound; level 2 splits each "
		"in two (Fetch Latency/Bandwidth, Branch Mispredicts/Machine Clears, Memory/Core Bound, "
		"Light/Heavy Operations); Intel's tree goes on to level 6 (-l 3 .. -l 6: every node of Intel's TMA "
		"with its threshold; --describe adds each node's description and tuning hint). --nodes chooses "
		"subtrees by name (toplev's spelling: Memory_Bound,-DRAM_Bound). --info adds the model's Info "
		"metrics (IPC, CPI, MPKIs, latencies); Intel's Bottlenecks view is shown beside the tree with its "
		"own ranking whenever its events were counted. On Arm, -l 2 shows the stage-2 metric groups the "
		"vendor's methodology explores under the dominant level-1 node. Asking for a level the model does "
		"not have says what it offers. Values are percentages of all slots; a node the hardware cannot measure "
		"shows '-' (JSON null), never 0. AMD's smt_contention is shown beside the four as an extra.\n"
		"\n"
		"With CMD, tdprof counts the events the model of this CPU needs, in groups that fit the counters "
		"(Intel's slots leads its topdown group), and runs CMD once; groups that cannot all be counted at "
		"once take turns (multiplexing) and the output says how long each ran. --no-multiplex runs CMD once "
		"per group instead. Without a hardware PMU (most virtual machines) it says so and stops: import "
		"counts recorded elsewhere, or use the simulated backend.\n"
		"\n"
		"With --import FILE, the counts come from 'perf stat' output (-x CSV, -j JSON lines, or its text), "
		"e.g. 'perf stat -M TopdownL1 -x, -o f.csv -- CMD' on Intel and Arm, or 'perf stat -M PipelineL2' on "
		"AMD Zen 4/5. --cpu names the model; without it the model is inferred only when the events fit "
		"exactly one. Each node takes its events from the group perf counted them in, as perf does.\n"
		"\n"
		"Thresholds: Retiring above 80 %, Bad Speculation above 15 %, Frontend Bound above 20 %, Backend "
		"Bound above 40 %; level 2 uses Intel's TMA thresholds and is flagged only under a flagged parent. "
		"The verdict names the principal bottleneck and the next step: Bad Speculation -> 'tdprof "
		"branches'; Frontend -> i-cache and decode; Backend -> memory or execution ports; Retiring -> "
		"fewer uops and 'tdprof loop'. AMD Zen 2/3, Neoverse N1 and Cortex-A76-class cores have no "
		"slot-level top-down: their output is cycle accounting and says so. 'tdprof list models' shows "
		"the models; 'tdprof list metrics --cpu MODEL' their formulas and sources.",
	.examples = "tdprof topdown -- ./app input.txt\n"
		    "level 1 of this CPU's top-down over one run of ./app\n"
		    "tdprof topdown -l 2 --json -o td.json -- ./app\n"
		    "levels 1 and 2 as one JSON document\n"
		    "tdprof topdown --import counts.csv --cpu icelakex\n"
		    "the tree of perf stat -x, output recorded on an Ice Lake-X machine\n"
		    "tdprof topdown --import pipeline.txt --cpu zen4\n"
		    "AMD Zen 4 level 2 from perf stat -MPipelineL2 text",
	.exit_status = "With CMD: CMD's exit status (128+N when signal N killed it). 1 when hardware counters "
		       "are unavailable or no node could be computed; 2 for a usage error, an unreadable or "
		       "malformed FILE, an unknown model, or a model that cannot be inferred.",
	.see_also = "tdprof-stat(1), tdprof-branches(1), tdprof-explain(1), tdprof-list(1), perf-stat(1)",
};

struct topdown_opts {
	const char *cpu, *import, *out_path, *backend, *sim_machine, *html, *format;
	long level;
	long slots;
	const char *nodes; /* --nodes */
	bool info, describe;
	long repeat;       /* -r N (0: once) */
	bool json, no_multiplex;
};

/* The usage error for an unknown model, with the closest names. */
static int unknown_model(const char *name)
{
	const char *names[128];
	size_t nr, n = 0, idx[3], k;
	const struct model *const *all = model_all(&nr);

	for (size_t i = 0; i < nr && n < 128; i++) {
		names[n++] = all[i]->name;
		for (size_t a = 0; a < MODEL_MAX_ALIASES && all[i]->aliases[a] && n < 128; a++)
			names[n++] = all[i]->aliases[a];
	}
	msg_error("'%s' is not a top-down model", name);
	k = str_suggest(name, names, n, idx, 3);
	for (size_t i = 0; i < k; i++)
		msg_hint("did you mean '--cpu %s'?", model_find(names[idx[i]])->name);
	msg_hint("'tdprof list models' shows them all");
	return EXIT_USAGE;
}

/* The model of an import: --cpu, or the one model_infer_import() finds; the usage error when none or several. */
static int import_model(const struct countset *cs, const char *cpu, const char *path, const struct model **out)
{
	size_t nr, nbest;
	const struct model *const *all = model_all(&nr);
	const struct model *fit[MODEL_INFER_MAX];
	struct strbuf names = STRBUF_INIT;

	if (cpu) {
		*out = model_find(cpu);
		return *out ? 0 : unknown_model(cpu);
	}
	nbest = model_infer_import(cs, fit);
	if (nbest == 1) {
		*out = fit[0];
		return 0;
	}
	for (size_t i = 0; i < (nbest ? nbest : nr); i++)
		strbuf_addf(&names, "%s%s", i ? ", " : "", nbest ? fit[i]->name : all[i]->name);
	if (nbest)
		msg_error("cannot tell the model from the events in '%s': they fit %s", path, names.buf);
	else
		msg_error("the events in '%s' fit no top-down model's level 1 (models: %s)", path, names.buf);
	msg_hint("give the CPU the counts come from: 'tdprof topdown --import %s --cpu %s'", path,
		 nbest ? fit[0]->name : "MODEL");
	strbuf_release(&names);
	return EXIT_USAGE;
}

/*
 * The level to evaluate for model m: -l, or the default; the usage error when m's
 * tree is not that deep (saying what it offers instead of printing less).
 */
static int choose_level(const struct topdown_opts *to, const struct model *m, int dflt, int *out)
{
	int depth = model_depth(m), want = to->level ? (int)to->level : to->nodes ? depth : dflt;
	bool stage2 = model_has_metrics(m, MODEL_METRIC_STAGE2);

	if (m->companion && model_depth(m->companion) > depth)
		depth = model_depth(m->companion);
	if (!to->level && want > depth)
		want = depth;
	if (want <= depth || (want == 2 && stage2)) {
		*out = want;
		return EXIT_OK;
	}
	msg_error("the '%s' model's tree has %d level%s: there is no level %d", m->name, depth, depth == 1 ? "" : "s",
		  want);
	if (stage2)
		msg_hint("it offers level 1 and, with -l 2, the stage-2 metric groups of the vendor's methodology");
	else if (depth > 1)
		msg_hint("it offers -l 1 to -l %d", depth);
	else
		msg_hint("it offers level 1 only");
	return EXIT_USAGE;
}

/* Evaluate one model (and its hybrid companion when the counts hold its events). */
static int evaluate(const struct model *m, const struct countset *cs, const struct model_eval_opts *o,
		    struct metric_tree *trees, size_t *nr_trees)
{
	struct tdp_err err = TDP_ERR_INIT;
	int ret = model_evaluate(m, cs, o, &trees[0], &err);

	if (ret) {
		msg_err(&err);
		return exitcode_from_err(ret);
	}
	model_classify(&trees[0]);
	*nr_trees = 1;
	if (m->companion && !model_evaluate(m->companion, cs, o, &trees[1], NULL)) {
		model_classify(&trees[1]);
		*nr_trees = 2;
	}
	return EXIT_OK;
}

static int json_doc(FILE *out, const void *r, struct tdp_err *err)
{
	return topdown_json_print(out, r, err);
}

/*
 * -r N: the tree of means of the runs in r->repeat into *mean, which then stands
 * for trees[0] (the last run's tree gives the labels and reasons).
 */
static int use_means(struct model_runs *runs, struct metric_tree *mean, struct topdown_report *r)
{
	struct tdp_err err = TDP_ERR_INIT;
	bool have;

	if (measure_runs_mean(runs, r->trees[0], mean, &have, &err)) {
		msg_err(&err);
		return EXIT_ANALYSIS;
	}
	if (have) {
		r->trees[0] = mean;
		r->repeat = runs;
	}
	return EXIT_OK;
}

static int render(const struct topdown_opts *to, struct topdown_report *r, struct tdp_ctx *ctx)
{
	int rc;

	r->bars = !to->json && !to->out_path && ctx->stdout_tty;
	r->verbose = ctx->verbose > 0;
	r->nodes = to->nodes;
	r->info = to->info;
	r->describe = to->describe || ctx->verbose > 0;
	if (to->nodes && r->nr_trees) {
		char unknown[256];

		topdown_nodes_unknown(r, r->trees[0], unknown, sizeof(unknown));
		if (unknown[0]) {
			msg_error("--nodes: the '%s' model has no node %s (up to level %d)", r->trees[0]->model->name,
				  unknown, r->level);
			msg_hint("'tdprof list metrics --cpu %s' lists its nodes", r->trees[0]->model->name);
			return EXIT_USAGE;
		}
	}
	rc = output_render(to->out_path, render_find(RENDER_TOPDOWN, to->format), r);
	if (rc == EXIT_OK && to->html)
		rc = output_html(to->html, json_doc, r);
	return rc;
}

/* A note when level 2 was asked for and none of it could be computed. */
static void note_level2(const struct metric_tree *t, struct topdown_report *r)
{
	bool any2 = false, l2 = false;

	for (size_t i = 0; i < t->nr; i++)
		if (t->v[i].level == 2) {
			l2 = true;
			any2 |= !isnan(t->v[i].value);
		}
	if (l2 && !any2 && r->nr_notes < TOPDOWN_MAX_NOTES)
		r->notes[r->nr_notes++] = "level 2 was not measured: the counts hold level-1 events only "
					  "(perf stat -M TopdownL2, or -M PipelineL2 on AMD, records them)";
}

static int run_import(const struct topdown_opts *to, struct tdp_ctx *ctx)
{
	struct tdp_file f = TDP_FILE_INIT;
	struct import_result res = IMPORT_RESULT_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct metric_tree trees[TOPDOWN_MAX_TREES];
	struct topdown_report r = { 0 };
	struct strbuf src = STRBUF_INIT, inferred = STRBUF_INIT;
	const struct model *m = NULL;
	int ret, rc;

	ret = tdp_file_open_checked(&f, to->import, IMPORT_MAX_INPUT, import_stream_check,
				    &(struct import_stream){ .name = to->import }, &err);
	if (!ret)
		ret = import_perf_stat_result(f.data, f.size, to->import, &res, &err);
	if (ret) {
		msg_err(&err);
		rc = exitcode_from_err(ret);
		goto out;
	}
	rc = import_model(&res.counts, to->cpu, to->import, &m);
	if (rc)
		goto out;
	rc = choose_level(to, m, 2, &o.max_level);
	if (rc)
		goto out;
	o.slots = (double)to->slots;
	rc = evaluate(m, &res.counts, &o, trees, &r.nr_trees);
	if (rc)
		goto out;
	for (size_t i = 0; i < r.nr_trees; i++)
		r.trees[i] = &trees[i];
	strbuf_addf(&src, "'%s' (perf stat %s)", to->import, import_format_name(res.format));
	r.source = src.buf;
	r.backend = BACKEND_IMPORT;
	r.level = o.max_level;
	r.counts = &res.counts;
	if (!to->cpu) {
		strbuf_addf(&inferred, "model '%s' inferred from the events (give --cpu to choose)", m->name);
		r.notes[r.nr_notes++] = inferred.buf;
	}
	if (o.max_level >= 2)
		note_level2(&trees[0], &r);
	for (size_t i = 0; i < res.nr_notes && r.nr_notes < TOPDOWN_MAX_NOTES; i++)
		r.notes[r.nr_notes++] = res.notes[i];
	rc = render(to, &r, ctx);
out:
	strbuf_release(&src);
	strbuf_release(&inferred);
	import_result_release(&res);
	tdp_file_close(&f);
	return rc;
}

/* The model of the running machine, its slots and counters (model/live.h). */
static int live_model(const struct topdown_opts *to, const struct cpu_system *sys, const struct model **out,
		      struct model_eval_opts *o, struct groups_budget *b)
{
	struct tdp_err err = TDP_ERR_INIT;
	const struct model *chosen = NULL;

	if (to->cpu) {
		chosen = model_find(to->cpu);
		if (!chosen)
			return unknown_model(to->cpu);
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
static int run_live(const struct topdown_opts *to, char *const *argv, struct tdp_ctx *ctx)
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
	rc = choose_level(to, m, 1, &o.max_level);
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
	rc = evaluate(m, &t.res.counts, &o, trees, &r.nr_trees);
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
	rc = use_means(&t.runs, &mean, &r);
	if (!rc)
		rc = render(to, &r, ctx);
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
static int run_sim(const struct topdown_opts *to, char *const *argv, struct tdp_ctx *ctx)
{
	struct measure_sim s;
	struct metric_tree tree, mean;
	struct model_runs runs = MODEL_RUNS_INIT;
	struct topdown_report r = { 0 };
	struct strbuf src = STRBUF_INIT;
	int rc;

	measure_sim_init(&s);
	rc = backend_sim_machine("topdown", to->sim_machine, &s.machine);
	s.stdout_to_stderr = to->json && !to->out_path;
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
	rc = use_means(&runs, &mean, &r);
	if (!rc)
		rc = render(to, &r, ctx);
	if (rc == EXIT_OK)
		rc = s.run.status;
out:
	strbuf_release(&src);
	model_runs_release(&runs);
	measure_sim_release(&s);
	return rc;
}

int cmd_topdown(int argc, char **argv, struct tdp_ctx *ctx)
{
	struct topdown_opts to = { .backend = "auto" };
	struct opt opts[] = {
		OPT_GROUP("what to classify"),
		OPT_LONG('l', "level", &to.level, "N", "deepest level of the tree, up to the model's (6 on Intel; "
						       "default: 1 for a run, 2 for an import)", 1, MODEL_MAX_LEVEL),
		OPT_STRING(0, "nodes", &to.nodes, "LIST", "only these subtrees: node names, comma-separated "
							  "(Fetch_Latency,-ICache_Misses); -l defaults to the model's depth"),
		OPT_BOOL(0, "info", &to.info, "also the model's Info metrics (IPC, CPI, MPKIs, latencies)"),
		OPT_BOOL(0, "describe", &to.describe, "each node's description and tuning hint from the vendor's data"),
		OPT_STRING(0, "cpu", &to.cpu, "MODEL", "the model to use ('tdprof list models'); default: this CPU's, "
						       "or for --import the one the events fit"),
		OPT_STRING(0, "import", &to.import, "FILE", "read perf stat output (CSV, JSON lines or text) instead "
							   "of running a command"),
		OPT_LONG(0, "slots", &to.slots, "N", "pipeline slots per cycle for models that read them from the "
						     "PMU (Arm's caps/slots)", 1, 64),
		OPT_BOOL(0, "no-multiplex", &to.no_multiplex, "run CMD once per group of counters instead of "
							      "letting groups take turns"),
		OPT_CHOICE(0, "backend", &to.backend, BACKEND_CHOICES, "where counts come from: pmu (auto; without "
								       "one it says so), sim (valgrind; estimates), "
								       "import (--import FILE)"),
		OPT_STRING(0, "sim-machine", &to.sim_machine, "M", "the simulated machine (--backend=sim): a preset, "
								   "KEY=VAL,... or a file"),
		OPT_LONG('r', "repeat", &to.repeat, "N", "run CMD N times: each node's mean and its 95 % confidence "
							 "interval (Student's t)", 1, MODEL_RUNS_MAX),
		OPT_GROUP("output"),
		OPT_CHOICE(0, "format", &to.format, "text|json", "the output's format (default text)"),
		OPT_BOOL(0, "json", &to.json, "one JSON document (--format=json)"),
		OPT_STRING('o', "output", &to.out_path, "FILE", "write the result to FILE instead of stdout"),
		OPT_STRING(0, "html", &to.html, "FILE", "also write a self-contained HTML report to FILE"),
		OPT_END(),
	};
	int i = opts_parse(opts, &doc, argc, argv), rc;
	enum tdp_backend b;

	if (i < 0)
		return opts_exit(i);
	if (!(to.format = output_format("topdown", to.format, to.json ? "json" : NULL, "text")))
		return EXIT_USAGE;
	to.json = !strcmp(to.format, "json");
	if (to.import && to.repeat > 1)
		return msg_usage("topdown", "'-r' repeats a run: an import is one recording (record it with "
					    "'perf stat -r N' instead)");
	if (!to.import && i >= argc)
		return msg_usage("topdown", "no command to run: give it after '--', or read counts with '--import FILE'");
	rc = backend_select("topdown", to.backend,
			    &(struct backend_select_opts){ .can_sim = !to.import, .can_import = true,
							   .has_import = to.import != NULL },
			    &b);
	if (rc)
		return rc;
	if (b == BACKEND_SIM) {
		if (i >= argc)
			return msg_usage("topdown", "no command to simulate: give it after '--'");
		return run_sim(&to, argv + i, ctx);
	}
	if (to.import) {
		if (i < argc)
			return msg_usage("topdown", "'--import' reads counts from a file: do not give a command too");
		if (to.no_multiplex)
			return msg_usage("topdown", "'--no-multiplex' applies to a run, not to '--import'");
		return run_import(&to, ctx);
	}
	if (i >= argc)
		return msg_usage("topdown", "no command to run: give it after '--', or read counts with '--import FILE'");
	return run_live(&to, argv + i, ctx);
}
