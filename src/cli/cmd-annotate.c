/*
 * cmd-annotate.c: `tdprof annotate [FUNCTION] -i FILE` and `tdprof annotate
 * [FUNCTION] -- CMD`: one function's source lines and instructions with their
 * counts beside each, as perf annotate --stdio shows them, with branch data.
 * The options here; the work in annotate-run.c and annotate-load.c.
 */
#include "cli/annotate-run.h"
#include "cli/backend.h"
#include "cli/cmd.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/opts.h"
#include "cli/output.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <string.h>

const char cmd_annotate_summary[] = "one function's source and instructions with their branch and miss counts";

static const struct cmd_doc doc = {
	.name = "annotate",
	.summary = cmd_annotate_summary,
	.usage = "annotate [FUNCTION] [-i FILE] [--dso DSO] [--sort KEY] [--asm-only | --source-only | --no-source] "
		 "[--context N] [--json | --format text|json|html] [-o FILE]\n"
		 "annotate [FUNCTION] [--backend=auto|sim] [--sim-machine M] [OPTIONS] -- CMD [ARGS]",
	.description =
		"Shows one function as perf annotate --stdio does, with branch data: its source lines and its "
		"instructions, each with its counts, the hottest lines marked '>>' and a percentage column.\n"
		"\n"
		"From a recording (-i FILE, default perf.data: tdprof branches record, perf record -b or -j, or "
		"plain samples such as perf record -e cpu-clock): per instruction, executions (the branch record "
		"entries that name it as their source: taken branches, the numbers 'branches report' gives its "
		"sites), mispredicts and their rate, and where the LBR is timed the cycles of the basic blocks "
		"ending at it and the IPC of the block covering it; plain samples give samples per instruction.\n"
		"\n"
		"From a run (-- CMD): the workload is simulated under valgrind (the same per-instruction run as "
		"'why --backend=sim', labelled estimate (simulated)): executions (times each instruction ran), "
		"branches, mispredicts, the rate and valgrind's cache events by name (D1mr, DLmr, I1mr...); a "
		"line's numbers are the ones 'why --backend=sim' gives that site. On a machine with a PMU a live "
		"run is not annotated directly: record it with 'tdprof branches record -o perf.data -- CMD' and "
		"annotate the file ('tdprof annotate FUNCTION -i perf.data'), or simulate with --backend=sim.\n"
		"\n"
		"FUNCTION is the function's name as demangled (C++ 'ns::f' names every overload, 'ns::f(int)' "
		"one), or its mangled name (C++ _Z..., Rust _R... or _ZN...E); without it, the hottest function "
		"(by mispredicts when there are any, else by executions or samples; of the program's own code "
		"in a simulated run), and the header says so. A name that matches none or several lists the "
		"candidates with their counts (exit 2).\n"
		"\n"
		"Addresses are the binary's own (ELF virtual addresses, as objdump and nm print them), whatever "
		"the process's load address was; branch targets are named <func+off>. Lines of inlined functions "
		"say which function they belong to. The source view shows the function's lines in source order "
		"with their sums, --context N lines around the others, '...' where lines are left out; the "
		"disassembly view lists the instructions in address order, each run under its source line.",
	.examples = "tdprof annotate -i perf.data\n"
		    "the hottest function of a recording\n"
		    "tdprof annotate 'ns::parse' -i perf.data --sort executions\n"
		    "one C++ function (every overload named so), percentages of executions\n"
		    "tdprof annotate branchy -- ./app\n"
		    "a simulated run: branch and cache counts per line and instruction\n"
		    "tdprof annotate main --json -- ./app | jq .hottest_line\n"
		    "the hottest line with its counts as JSON",
	.exit_status = "after -- CMD, CMD's exit status (128+N when signal N killed it; 127/126 when it cannot be "
		       "run); 2: bad usage, a FUNCTION that names no function or several, a file that is not a "
		       "perf.data (the message names the offset) or holds nothing to annotate; 1: the analysis "
		       "failed (valgrind missing, the code unreadable) or the output could not be written.",
	.see_also = "tdprof-branches(1), tdprof-why(1), perf-annotate(1), objdump(1)",
};

/*
 * FUNCTION may come before, between or after the options (perf annotate main -i
 * perf.data). Returns -1 to go on, else the exit status (help shown: 0).
 */
static int parse(const struct opt *opts, int argc, char **argv, struct annotate_opts *o, int *cmd_at)
{
	int i = opts_parse(opts, &doc, argc, argv), j;

	*cmd_at = -1;
	if (i < 0)
		return opts_exit(i);
	if (i < argc && strcmp(argv[i - 1], "--")) {
		if (o->function)
			return msg_usage("annotate", "two functions: '%s' and '%s' (annotate one at a time)", o->function,
					 argv[i]);
		o->function = argv[i];
		j = opts_parse(opts, &doc, argc - i, argv + i);
		if (j < 0)
			return opts_exit(j);
		i += j;
		if (i < argc && strcmp(argv[i - 1], "--"))
			return msg_usage("annotate", "unexpected argument '%s' (a command to run goes after '--')",
					 argv[i]);
	}
	if (i < argc)
		*cmd_at = i;
	else if (i == argc && !strcmp(argv[i - 1], "--"))
		return msg_usage("annotate", "no command after '--'");
	return -1;
}

static int check(struct annotate_opts *o, int cmd_at, struct tdp_ctx *ctx)
{
	(void)ctx;
	if (o->asm_only + o->source_only + o->no_source > 1)
		return msg_usage("annotate", "--asm-only, --source-only and --no-source exclude each other");
	if (cmd_at >= 0 && o->input)
		return msg_usage("annotate", "-i FILE and a command to run exclude each other: annotate one or the other");
	if (cmd_at < 0 && (o->machine || strcmp(o->backend, "auto")))
		msg_warning("'--backend' and '--sim-machine' apply to a command run after '--'");
	if (!o->input)
		o->input = "perf.data";
	o->format = output_format("annotate", o->format, o->json ? "json" : NULL, "text");
	return o->format ? EXIT_OK : EXIT_USAGE;
}

/* A live run: simulated; on the PMU, the two commands that annotate it (a recording). */
static int run_cmd(const struct annotate_opts *o, char **argv, struct tdp_ctx *ctx)
{
	struct strbuf cmd = STRBUF_INIT;
	enum tdp_backend b;
	int rc = backend_select("annotate", o->backend, &(struct backend_select_opts){ .can_sim = true }, &b);

	if (rc)
		return rc;
	strbuf_add_shell_words(&cmd, argv);
	if (strbuf_failed(&cmd)) {
		msg_error("out of memory");
		rc = EXIT_ANALYSIS;
	} else if (b != BACKEND_SIM) {
		const char *fn = o->function ? o->function : "", *sp = o->function ? " " : "";

		msg_error("annotating a live run on the PMU takes a recording: annotate reads one, or simulates the run");
		msg_hint("record it, then annotate the file: 'tdprof branches record -o perf.data -- %s' and 'tdprof "
			 "annotate %s%s-i perf.data'; or simulate it: 'tdprof annotate --backend=sim %s%s-- %s'",
			 cmd.buf, fn, sp, fn, sp, cmd.buf);
		rc = EXIT_USAGE;
	} else {
		rc = annotate_run_sim(o, argv, cmd.buf, ctx);
	}
	strbuf_release(&cmd);
	return rc;
}

int cmd_annotate(int argc, char **argv, struct tdp_ctx *ctx)
{
	struct annotate_opts o = { .backend = "auto", .context = 2 };
	const struct opt opts[] = {
		OPT_STRING('i', "input", &o.input, "FILE", "the perf.data to read (default perf.data; -: a stream)"),
		OPT_STRING('s', "symbol", &o.function, "NAME", "the function to annotate (as FUNCTION)"),
		OPT_STRING('d', "dso", &o.dso, "DSO", "only a function of this binary (its path or file name)"),
		OPT_STRING(0, "sort", &o.sort, "KEY", "the percentages and the hottest lines are of this count "
						      "(default mispredicts when there are any, else executions or samples)"),
		OPT_GROUP("how to measure (-- CMD)"),
		OPT_CHOICE(0, "backend", &o.backend, "auto|pmu|sim", "auto: simulate where there is no PMU; on a PMU, "
								     "say how to record and annotate"),
		OPT_STRING(0, "sim-machine", &o.machine, "M", "the simulated machine: a preset (generic, zen4, "
							      "alderlake, ...), KEY=VAL,... or a file; default: this host's CPU's preset"),
		OPT_GROUP("what is shown"),
		OPT_BOOL(0, "asm-only", &o.asm_only, "the instructions only (no source view)"),
		OPT_BOOL(0, "source-only", &o.source_only, "the source lines with their sums only"),
		OPT_BOOL(0, "no-source", &o.no_source, "no source lines at all (as perf annotate --no-source)"),
		OPT_LONG(0, "context", &o.context, "N", "source lines shown around the lines with code (default 2)", 0,
			 20),
		OPT_BOOL(0, "asm-raw", &o.raw, "the instructions' bytes too"),
		OPT_BOOL(0, "stdio", &o.stdio, "accepted for perf annotate's users: the text is always for a terminal"),
		OPT_GROUP("symbols"),
		OPT_STRING(0, "symfs", &o.symfs, "DIR", "look for the recorded binaries under DIR"),
		OPT_STRING(0, "kallsyms", &o.kallsyms, "FILE", "kernel symbols of the recorded kernel"),
		OPT_GROUP("output"),
		OPT_CHOICE(0, "format", &o.format, "text|json|html", "the output's format (default text)"),
		OPT_BOOL(0, "json", &o.json, "one JSON document (--format=json)"),
		OPT_STRING('o', "output", &o.output, "FILE", "write the result to FILE instead of stdout"),
		OPT_STRING(0, "html", &o.html, "FILE", "also write a self-contained HTML page to FILE"),
		OPT_END(),
	};
	int cmd_at, rc = parse(opts, argc, argv, &o, &cmd_at);

	if (rc >= 0 || (rc = check(&o, cmd_at, ctx)))
		return rc;
	return cmd_at >= 0 ? run_cmd(&o, argv + cmd_at, ctx) : annotate_run_file(&o, ctx);
}
