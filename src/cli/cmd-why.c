/*
 * cmd-why.c: `tdprof why`, the whole workflow in one command: triage, top-down,
 * the drill-down into the dominant bucket and a ranked diagnosis with sites and
 * fixes. The analysis is src/diagnose/; the renderers are report/why.h; this file
 * reads options, chooses the backend, runs the workload and reports.
 */
#include "cli/backend.h"
#include "cli/cmd.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/opts.h"
#include "cli/output.h"
#include "cli/why-run.h"
#include "base/strbuf.h"
#include "diagnose/diagnose.h"
#include "model/model.h"
#include "model/stats.h"

#include <stdio.h>
#include <string.h>

const char cmd_why_summary[] = "the whole workflow in one command: why is it slow, where, and what to change";

static const struct cmd_doc doc = {
	.name = "why",
	.summary = cmd_why_summary,
	.usage = "why [--backend=auto|pmu|sim] [--sim-machine M] [-l N] [--no-multiplex] [--cpu MODEL] [--no-drill] "
		 "[-n TOP] [--json | --format FMT] [-o FILE] [--html FILE] -- CMD [ARGS]",
	.description =
		"Runs CMD (once when simulated; on a PMU once per level of the drill-down, then once sampled) and goes "
		"through the top-down workflow for you: triage (CPI, branch, i-cache and "
		"last-level-cache misses per 1000 instructions), the top-down tree (level 2 where the backend "
		"can tell), the verdict, then a drill-down into the bottleneck: Bad Speculation -> the branch "
		"sites ranked by mispredicts with the disassembly around the worst one; Frontend Bound -> the "
		"i-cache misses and the hot code footprint per function; Backend Bound -> memory versus core "
		"and the data-miss sites (Core Bound: the hot loop, as for Retiring); Retiring -> the hot loop and "
		"the 'tdprof loop' command that measures it alone. It ends in a ranked diagnosis: each finding with the numbers behind it, its source line "
		"and function, and a fix from the knowledge base ('tdprof explain NODE' says more).\n"
		"\n"
		"Backends: with a hardware PMU the tree is measured; without one (most virtual machines) "
		"--backend=auto, the default, says so and simulates the run under valgrind (tdprof's own tool, "
		"tdpsim, where it was built: three cache levels, prefetchers, overlapping misses, a modern branch "
		"predictor; else callgrind; per instruction) on the machine --sim-machine describes (docs/sim-machine.md): "
		"every figure is then an estimate (simulated), and the output says so. A simulated run takes "
		"20-100 times the normal run time; progress lines go to stderr. --backend=pmu fails (exit 1) "
		"where no hardware event opens, with the reason.\n"
		"\n"
		"On the PMU the tree is drilled down as 'tdprof topdown --drilldown' does: CMD runs for level 1 "
		"(and once more for the triage counts, which would take counters from it), then again per level for the children of every node that crossed its "
		"threshold (else of the largest) and of the verdict's dominant node, down to the leaves or -l N. "
		"Each node says which run measured it and how long its counters ran (their running fraction; "
		"--no-multiplex gives every counter group a run of its own), and a value out of its bounds "
		"(negative, above 100 % or above its parent) is shown as mismeasured with its likely cause, not "
		"as a fact. --cpu MODEL counts with another model than this CPU's (a virtual machine whose PMU "
		"has the events but no model).\n"
		"\n"
		"Then CMD runs once more, sampled, to locate the code: for Bad Speculation with the branch "
		"records of this machine ('tdprof info' names them: Intel LBR, AMD LbrExtV2 or BRS, Arm BRBE or "
		"SPE), ranked by mispredicted records per source line with the disassembly around the worst "
		"branch; for every other bucket with the dominant leaf's Locate-with event (the deepest dominant "
		"node measured, the vendor's event, precise with :pp where the PMU can), else with the "
		"instruction pointers of cycles samples (the hot lines and functions, the hot code footprint for "
		"Frontend Bound, the 'tdprof loop' command for the hottest function). The recording stays in "
		"memory; the figures are samples and say so. --no-drill runs CMD only once: the tree up to -l "
		"(default 2) counted in that run, and no sampled run; -r N counts that tree in each of N runs. "
		"Where no top-down model applies to the CPU (a core without slot events), the PMU run gives the "
		"triage counts and the hot code, without a verdict.\n"
		"\n"
		"The verdict is the level-1 node above its threshold (Retiring 80 %, Bad Speculation 15 %, "
		"Frontend Bound 20 %, Backend Bound 40 %) with the largest share of slots, or, when none is, the "
		"largest stall (not Retiring), as 'tdprof topdown' says it. In a simulated run the costs of the dynamic loader and the libraries are left out "
		"when the program's own code ran at least half of the instructions (a short program would "
		"otherwise look like its start-up); the output names the scope and gives the whole run beside it.\n"
		"\n"
		"With --json (or --format html) and no -o, CMD's standard output goes to stderr, so that stdout holds only the "
		"JSON document. Build CMD with -g for source lines (and -fno-omit-frame-pointer does no harm). To reuse counts "
		"recorded elsewhere, 'tdprof topdown --import FILE' classifies them; 'why' runs the workload, so "
		"it takes no --import.\n"
		"\n"
		"--format pprof -o FILE.pb.gz writes the diagnosis as a gzipped pprof profile "
		"(perftools.profiles.Profile) for pprof, Parca, Pyroscope and other fleet profilers: each site "
		"(function, file, line) under its level-1 bucket, with the sample types slots, cycles, instructions, "
		"executions, branches, mispredicts, loads, l1d_misses, ll_misses and l1i_misses (simulated), or slots, "
		"samples, branches and mispredicts (PMU); its comments name the backend, the model and the verdict.",
	.examples = "tdprof why -- ./app input.txt\n"
		    "the whole workflow over one run of ./app\n"
		    "tdprof why --backend=sim --sim-machine zen4 -- ./app\n"
		    "simulated on a Zen 4-shaped machine, whatever this machine has\n"
		    "tdprof why --json -o why.json -- ./app\n"
		    "one JSON document: backend, level1, level2, verdict, sites, findings\n"
		    "tdprof why --format=pprof -o why.pb.gz -- ./app && pprof -top why.pb.gz\n"
		    "the sites as a pprof profile",
	.exit_status = "CMD's exit status (128+N when signal N killed it), 127 when CMD is not found, 126 when it "
		       "cannot be run; 1 when the analysis failed (valgrind missing, no hardware counters with "
		       "--backend=pmu); 2 for a usage error.",
	.see_also = "tdprof-stat(1), tdprof-topdown(1), tdprof-explain(1), tdprof-loop(1), valgrind(1)",
};

int cmd_why(int argc, char **argv, struct tdp_ctx *ctx)
{
	struct why_opts wo = { .backend = "auto", .top = 10 };
	struct opt opts[] = {
		OPT_GROUP("how to measure"),
		OPT_CHOICE(0, "backend", &wo.backend, "auto|pmu|sim", "where counts come from: auto (the PMU, else "
								      "the simulation), pmu, sim (valgrind; estimates)"),
		OPT_STRING(0, "sim-machine", &wo.machine, "M", "the simulated machine: a preset (generic, zen4, "
							       "alderlake, skylake, icelake-server, zen3, neoverse-n1), KEY=VAL,... "
							       "or a file; default: TDPROF_SIM_MACHINE, else this host's CPU's preset, else generic"),
		OPT_LONG('l', "level", &wo.level, "N", "deepest level of the tree (the simulation: 1 to 3, default 2; the "
						       "PMU's drill-down: default the leaves)",
			 1, MODEL_MAX_LEVEL),
		OPT_BOOL(0, "no-multiplex", &wo.no_multiplex, "PMU: each counter group of the drill-down in a run of "
							       "its own (more runs, no multiplexing)"),
		OPT_STRING(0, "cpu", &wo.cpu, "MODEL", "PMU: the model to count with ('tdprof list models'); default: "
						       "this CPU's"),
		OPT_LONG('r', "repeat", &wo.repeat, "N", "run CMD N times: each node's mean and its 95 % confidence "
							 "interval (Student's t); the diagnosis is the last run's",
			 1, MODEL_RUNS_MAX),
		OPT_BOOL(0, "no-drill", &wo.no_drill, "PMU: run CMD once: no drill-down reruns and no sampled run for "
						       "the sites (the diagnosis then names the command that traces them)"),
		OPT_GROUP("output"),
		OPT_LONG('n', "top", &wo.top, "N", "sites listed (default 10; JSON and -v list them all up to N)", 1,
			 DIAG_MAX_SITES),
		OPT_CHOICE(0, "format", &wo.format, "text|json|csv|html|pprof", "the output's format (default text; "
									    "html: the page of --html)"),
		OPT_BOOL(0, "json", &wo.json, "one JSON document (--format=json)"),
		OPT_BOOL(0, "csv", &wo.csv, "the findings, one row each (--format=csv)"),
		OPT_STRING('x', "field-separator", &wo.sep, "SEP", "CSV with SEP between fields, as perf stat -x"),
		OPT_STRING('o', "output", &wo.out_path, "FILE", "write the result to FILE instead of stdout"),
		OPT_STRING(0, "html", &wo.html, "FILE", "also write a self-contained HTML report to FILE (the page of "
							"--format html)"),
		OPT_END(),
	};
	struct strbuf cmd = STRBUF_INIT;
	enum tdp_backend b;
	int i = opts_parse(opts, &doc, argc, argv), rc;

	if (i < 0)
		return opts_exit(i);
	if (!(wo.format = output_format_csv("why", wo.format, wo.json, wo.csv, wo.sep)))
		return EXIT_USAGE;
	wo.json = !strcmp(wo.format, "json");
	if (!strcmp(wo.format, "pprof") && !wo.out_path && ctx->stdout_tty)
		return msg_usage("why", "--format pprof writes a binary file: give -o FILE.pb.gz");
	if (i >= argc)
		return msg_usage("why", "no command to run: give it after '--'");
	rc = backend_select("why", wo.backend, &(struct backend_select_opts){ .can_sim = true }, &b);
	if (rc)
		return rc;
	if (wo.machine && b != BACKEND_SIM)
		msg_warning("'--sim-machine' applies to the simulated backend only: the PMU measures this machine");
	if (wo.no_drill && b == BACKEND_SIM)
		msg_note("'--no-drill' applies to the PMU backend: the simulation's sites come from its one run");
	if ((wo.no_multiplex || wo.cpu) && b == BACKEND_SIM)
		msg_note("'%s' applies to the PMU backend: the simulation counts everything in its one run",
			 wo.cpu ? "--cpu" : "--no-multiplex");
	if (b == BACKEND_SIM && wo.level > 3)
		return msg_usage("why", "the simulated tree has 3 levels: give -l 1, 2 or 3");
	strbuf_add_shell_words(&cmd, argv + i);
	if (strbuf_failed(&cmd)) {
		msg_error("out of memory");
		rc = EXIT_ANALYSIS;
	} else {
		rc = b == BACKEND_SIM ? why_run_sim(&wo, argv + i, cmd.buf, ctx) : why_run_pmu(&wo, argv + i, cmd.buf, ctx);
	}
	strbuf_release(&cmd);
	return rc;
}
