/*
 * cmd-topdown.c: `tdprof topdown`, mode 3 of the workflow (classify): the
 * top-down tree of a command's run, or of perf stat output recorded anywhere
 * (--import), its thresholds, the verdict and the next step.
 */
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
#include "pmu/sampling.h"
#include "report/topdown.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

const char cmd_topdown_summary[] = "classify the bottleneck: the top-down tree, its verdict and the next step";

static const struct cmd_doc doc = {
	.name = "topdown",
	.summary = cmd_topdown_summary,
	.usage = "topdown [-l N] [--nodes LIST] [--info] [--cpu MODEL] [--json | --csv | -x SEP] [-o FILE] [--no-multiplex] -- CMD "
		 "[ARGS]\n"
		 "topdown --drilldown [-l N] [--no-multiplex] [--json] -- CMD [ARGS]\n"
		 "topdown --by function [-e GROUP] [--save-data FILE] [--json | --csv] -- CMD [ARGS]\n"
		 "topdown --by function --backend=sim [--json] -- CMD [ARGS]\n"
		 "topdown [--by function] -i FILE.data [--cpu MODEL] [--symfs DIR] [-l N] [--json | --csv]\n"
		 "topdown --import FILE [--cpu MODEL | --midr HEX] [-l N] [--nodes LIST] [--info] [--slots N] [--json] [-o FILE]",
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
		"--by function gives each function holding 95 % of the cycles its own top-down, dominant node and "
		"guilty line. On a PMU, one run samples the model's level-1 events as a group that every sample reads "
		"(perf record -e '{slots,topdown-retiring,...}:S'), -e GROUP another group (software events need no "
		"PMU); -i FILE.data reads such a recording made by perf (--symfs DIR for its binaries), and "
		"--backend=sim estimates each function without a PMU.\n"
		"\n"
		"Thresholds: Retiring above 80 %, Bad Speculation above 15 %, Frontend Bound above 20 %, Backend "
		"Bound above 40 %; deeper levels use Intel's TMA thresholds, a node flagged only under a flagged parent "
		"where TMA says so (its \"& P\"). "
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
		    "AMD Zen 4 level 2 from perf stat -MPipelineL2 text\n"
		    "tdprof topdown --by function -i g.data --cpu sapphirerapids\n"
		    "each function of a perf record -e '{slots,topdown-retiring,...}:S' recording",
	.exit_status = "With CMD: CMD's exit status (128+N when signal N killed it). 1 when hardware counters "
		       "are unavailable or no node could be computed; 2 for a usage error, an unreadable or "
		       "malformed FILE, an unknown model, or a model that cannot be inferred.",
	.see_also = "tdprof-stat(1), tdprof-branches(1), tdprof-explain(1), tdprof-list(1), perf-stat(1)",
};

static int json_doc(FILE *out, const void *r, struct tdp_err *err)
{
	return topdown_json_print(out, r, err);
}

int topdown_render(const struct topdown_opts *to, struct topdown_report *r, struct tdp_ctx *ctx)
{
	int rc;

	r->bars = !to->json && !to->out_path && ctx->stdout_tty;
	r->verbose = ctx->verbose > 0;
	r->nodes = to->nodes;
	r->info = to->info;
	r->describe = to->describe || ctx->verbose > 0;
	r->csv_sep = to->sep;
	r->pal = to->out_path ? NULL : ctx->palette;
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

int cmd_topdown(int argc, char **argv, struct tdp_ctx *ctx)
{
	struct topdown_opts to = { .backend = "auto" };
	struct opt opts[] = {
		OPT_GROUP("what to classify"),
		OPT_LONG('l', "level", &to.level, "N", "deepest level of the tree, up to the model's (6 on Intel; "
						       "default: 1 for a run, 2 for an import)", 1, MODEL_MAX_LEVEL),
		OPT_STRING(0, "nodes", &to.nodes, "LIST", "only these subtrees: node names or wildcards, "
							  "comma-separated, -NAME or ^NAME to leave one out "
							  "(Fetch_Latency,-ICache_Misses); -l defaults to the model's depth"),
		OPT_BOOL(0, "info", &to.info, "also the model's Info metrics (IPC, CPI, MPKIs, latencies)"),
		OPT_BOOL(0, "describe", &to.describe, "each node's description and tuning hint from the vendor's data"),
		OPT_STRING(0, "cpu", &to.cpu, "MODEL", "the model to use ('tdprof list models'); default: this CPU's, "
						       "or for --import the one the events fit"),
		OPT_STRING(0, "midr", &to.midr, "HEX", "the model of this arm64 MIDR_EL1 value, with its revision "
						       "(0x410fd493: Neoverse N2 r0p3)"),
		OPT_STRING('i', "import", &to.import, "FILE", "read perf stat output (CSV, JSON lines or text), or a "
							     "perf.data whose samples read their group, instead of "
							     "running a command"),
		OPT_STRING(0, "symfs", &to.symfs, "DIR", "a perf.data's binaries under DIR (--by function)"),
		OPT_STRING(0, "kallsyms", &to.kallsyms, "FILE", "kernel symbols of a perf.data's kernel"),
		OPT_LONG(0, "slots", &to.slots, "N", "pipeline slots per cycle for models that read them from the "
						     "PMU (Arm's caps/slots)", 1, 64),
		OPT_BOOL(0, "drilldown", &to.drilldown, "measure level 1, then rerun CMD to measure the children "
							"of every node that crossed its threshold (else of the largest), "
							"down to the leaves or -l N"),
		OPT_CHOICE(0, "by", &to.by, "function", "each function's own top-down (the functions holding "
							 "95 % of cycles): sampled with group reads, from a "
							 "perf.data's (-i FILE.data), or simulated (--backend=sim)"),
		OPT_STRING('e', "event", &to.events, "GROUP", "--by function: sample this group instead of the "
							      "model's level-1 events, its first event leading "
							      "('{cpu-clock,task-clock}')"),
		OPT_LONG('F', "freq", &to.freq, "N", "--by function: samples per second (default 4000)", 1,
			 PMU_SAMPLING_MAX_FREQ),
		OPT_STRING(0, "save-data", &to.save_data, "FILE", "--by function: keep the sampled recording in FILE "
								  "(a perf.data perf reads)"),
		OPT_BOOL(0, "no-multiplex", &to.no_multiplex, "run CMD once per group of counters instead of "
							      "letting groups take turns"),
		OPT_CHOICE(0, "backend", &to.backend, BACKEND_CHOICES, "where counts come from: pmu (auto; without "
								       "one it says so), sim (valgrind; estimates), "
								       "import (--import FILE)"),
		OPT_STRING(0, "sim-machine", &to.sim_machine, "M", "the simulated machine (--backend=sim): a preset, "
								   "KEY=VAL,... or a file; default: this host's CPU's preset"),
		OPT_LONG('r', "repeat", &to.repeat, "N", "run CMD N times: each node's mean and its 95 % confidence "
							 "interval (Student's t)", 1, MODEL_RUNS_MAX),
		OPT_GROUP("output"),
		OPT_CHOICE(0, "format", &to.format, "text|json|csv|html", "the output's format (default text; "
									      "html: the page --html writes)"),
		OPT_BOOL(0, "json", &to.json, "one JSON document (--format=json)"),
		OPT_BOOL(0, "csv", &to.csv, "one row per node: key, name, level, parent, value, threshold, "
					    "crossed; with --by function one row per function (--format=csv)"),
		OPT_STRING('x', "field-separator", &to.sep, "SEP", "CSV with SEP between fields, as perf stat -x"),
		OPT_STRING('o', "output", &to.out_path, "FILE", "write the result to FILE instead of stdout"),
		OPT_STRING(0, "html", &to.html, "FILE", "also write a self-contained HTML report to FILE"),
		OPT_END(),
	};
	int i = opts_parse(opts, &doc, argc, argv), rc;
	enum tdp_backend b;

	if (i < 0)
		return opts_exit(i);
	if (to.midr && (rc = topdown_midr_model(&to)))
		return rc;
	if (!(to.format = output_format_csv("topdown", to.format, to.json, to.csv, to.sep)))
		return EXIT_USAGE;
	to.json = !strcmp(to.format, "json");
	if (to.import && to.repeat > 1)
		return msg_usage("topdown", "'-r' repeats a run: an import is one recording (record it with "
					    "'perf stat -r N' instead)");
	if (!to.import && i >= argc)
		return msg_usage("topdown", "no command to run: give it after '--', or read counts with '--import FILE'");
	/* -e: the group is sampled by the kernel's sampling (software events need no PMU) */
	rc = backend_select("topdown", to.backend,
			    &(struct backend_select_opts){
				    .can_sim = !to.import, .can_import = true, .has_import = to.import != NULL,
				    .auto_pmu = to.events != NULL, .pmu_soft = to.events != NULL,
				    .pmu_hint = to.by && !to.import
							? "'--by function -e GROUP' samples a group of your choice with group reads, "
							  "and software events need no PMU: '-e {cpu-clock,task-clock}'"
							: NULL },
			    &b);
	if (rc)
		return rc;
	if (to.by && to.drilldown)
		return msg_usage("topdown", "'--by function' and '--drilldown' are two different views: choose one");
	if (to.drilldown && to.import)
		return msg_usage("topdown", "'--drilldown' reruns a command: an import is one recording");
	if (b == BACKEND_SIM) {
		if (i >= argc)
			return msg_usage("topdown", "no command to simulate: give it after '--'");
		if (to.by)
			return topdown_run_byfunc_sim(&to, argv + i, ctx);
		if (to.drilldown)
			msg_warning("--drilldown reruns CMD with hardware counters; the simulated backend has none to "
				 "rerun: showing the nodes the simulation models (level 2)");
		if (to.drilldown && !to.level)
			to.level = 2;
		return topdown_run_sim(&to, argv + i, ctx);
	}
	if ((to.events || to.save_data || to.freq) && (!to.by || to.import))
		return msg_usage("topdown", "'-e', '-F' and '--save-data' go with '--by function -- CMD'");
	if (to.by && !to.import)
		return topdown_run_byfunc_live(&to, argv + i, ctx);
	if (to.import) {
		if (i < argc)
			return msg_usage("topdown", "'--import' reads counts from a file: do not give a command too");
		if (to.no_multiplex)
			return msg_usage("topdown", "'--no-multiplex' applies to a run, not to '--import'");
		return topdown_run_import(&to, ctx);
	}
	if (i >= argc)
		return msg_usage("topdown", "no command to run: give it after '--', or read counts with '--import FILE'");
	if (to.drilldown)
		return topdown_run_drill(&to, argv + i, ctx);
	return topdown_run_live(&to, argv + i, ctx);
}
