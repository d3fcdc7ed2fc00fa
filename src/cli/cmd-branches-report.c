/*
 * cmd-branches-report.c: `tdprof branches report -i FILE`: read a perf.data with
 * branch stacks (or Arm SPE trace), aggregate it (branch/branch.h), name the
 * addresses (branch/annotate.h) and render it (report/branches.h): the options
 * here, the work in branches-report-run.c.
 */
#include "cli/branches-report-run.h"
#include "cli/cmd.h"
#include "cli/cmd-branches.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/opts.h"
#include "cli/output.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <string.h>

const char cmd_branches_report_summary[] = "rank misprediction sites, edges and timed blocks of a perf.data";

static const struct cmd_doc doc = {
	.name = "branches report",
	.summary = cmd_branches_report_summary,
	.usage = "branches report [-i FILE] [--symfs DIR] [--json | --csv | --folded | --format FMT] [-n TOP] "
		 "[--sort mispredicts|executions|rate] [--by site|edge|type|block] [--no-source] [--no-disasm] "
		 "[-o FILE]",
	.description =
		"Reads a perf.data file with branch stacks (tdprof branches record, perf record -b or -j, any "
		"perf since 3.4, file or pipe format) or with Arm SPE trace (perf record -e arm_spe//), and "
		"reports:\n"
		"\n"
		"misprediction sites: each branch address with its executions (the LBR entries that name "
		"it), mispredicts, mispredict rate, share of all mispredicted entries and branch type (as "
		"recorded with -j save_type, else decoded from the binary), with function, file:line and the "
		"inline chain;\n"
		"\n"
		"edges grouped by (source symbol, target symbol, mispredicted) exactly as 'perf report "
		"--sort symbol_from,symbol_to,mispredict' counts them (overhead = entries of the row / all "
		"entries; unresolved addresses printed as perf prints them);\n"
		"\n"
		"branches by type; the disassembly around the top sites with the branch marked;\n"
		"\n"
		"timed basic blocks: Intel's LBR (and Arm BRBE) record in each entry the cycles since the "
		"previous entry, so the code from the older entry's target to the newer entry's branch ran "
		"in that many cycles; blocks are ranked by total cycles with their average cycles, "
		"instructions and IPC. Recordings without timing (AMD LbrExtV2 and BRS, Arm SPE) say 'no "
		"timing in this recording'.\n"
		"\n"
		"Binaries are found where the recording names them, under --symfs DIR, and by build-id in "
		"~/.debug and /usr/lib/debug. Without them, addresses stay addresses.\n"
		"\n"
		"A recording without branch stacks (plain samples: tdprof branches record -e cpu-clock, perf "
		"record [-g] with a software event) is reported by instruction pointer instead: hot functions "
		"(self samples, and with call chains the total with their callees, as perf report --children), "
		"hot source lines and hot call chains; --folded writes 'comm;outer;...;inner N' stacks as "
		"stackcollapse-perf.pl folds perf script, --csv the functions, and the JSON has mode "
		"'samples' with functions, lines and stacks.\n"
		"\n"
		"-i - reads a perf record -o - stream from standard input as it arrives (memory stays bounded "
		"by the largest record, however long the stream).\n"
		"\n"
		"--folded writes 'FROM;TO N' lines for flamegraph.pl: FROM and TO are the source and target "
		"functions of edges, N their mispredicted entries (--sort executions: all entries).\n"
		"\n"
		"--format pprof -o FILE.pb.gz writes a gzipped pprof profile (perftools.profiles.Profile) for "
		"pprof, Parca, Pyroscope and other fleet profilers: every branch site as a location (its address, "
		"function, file, line and inline frames, in a mapping with the recording's build-id), with the "
		"sample types branches (executions) and mispredicts, whose totals are the JSON's branch_entries and "
		"mispredicted_entries.\n"
		"\n"
		"JSON ('backend' is 'import' for a file recorded by another program, 'pmu' for one recorded "
		"by tdprof): samples, branch_entries, mispredicted_entries, lost_samples, sites, edges, "
		"symbol_edges, types, timing (or null with timing_reason), blocks, disassembly; addresses are "
		"\"0x...\" strings. Like the text, the ranked tables (sites, edges, symbol_edges, blocks) hold the "
		"top 20 rows unless -n N or --all says otherwise; 'top' is the cut (null: none) and "
		"'rows_left_out' counts the rows each table left out.",
	.examples = "tdprof branches report -i perf.data\n"
		    "the text report: sites, types, edges, blocks, disassembly\n"
		    "tdprof branches report -i perf.data --json -n 50 | jq '.sites[0]'\n"
		    "the worst site as JSON\n"
		    "tdprof branches report -i perf.data --folded > br.folded && flamegraph.pl br.folded > br.svg\n"
		    "a flame graph of mispredictions by source and target function\n"
		    "tdprof branches report -i perf.data --format=pprof -o br.pb.gz && pprof -top br.pb.gz\n"
		    "the sites as a pprof profile for fleet profilers\n"
		    "perf record -e cpu-clock -g -o - -- ./app | tdprof branches report -i - --folded > cpu.folded\n"
		    "plain samples (no PMU needed) read as they arrive: call chains for flamegraph.pl",
	.exit_status = "0: the report was written.\n"
		       "2: bad usage, a file that cannot be read, is not a perf.data, is corrupt or truncated "
		       "(the message names the offset), or has neither branch records nor samples.\n"
		       "1: the report could not be produced or written.",
	.see_also = "tdprof-branches-record(1), perf-report(1), perf-script(1)",
};

int cmd_branches_report(int argc, char **argv, struct tdp_ctx *ctx)
{
	struct branches_report_opts o = { .input = "perf.data", .source = true, .disasm = true, .top = -1 };
	const struct opt opts[] = {
		OPT_STRING('i', "input", &o.input, "FILE", "the perf.data to read (default perf.data; -: stdin, a "
							 "perf record -o - stream read as it arrives)"),
		OPT_STRING('o', "output", &o.output, "FILE", "write the report to FILE instead of stdout"),
		OPT_GROUP("format"),
		OPT_CHOICE(0, "format", &o.format, "text|json|csv|folded|html|pprof", "the report's format (default text; "
										   "html: the page of --html)"),
		OPT_BOOL(0, "json", &o.json, "write one JSON document (--format=json)"),
		OPT_BOOL(0, "csv", &o.csv, "write one CSV table (the --by view; sites by default)"),
		OPT_BOOL(0, "folded", &o.folded, "write folded stacks for flamegraph.pl ('FROM;TO N')"),
		OPT_STRING(0, "html", &o.html, "FILE", "also write a self-contained HTML report to FILE (--format html)"),
		OPT_LONG('n', "top", &o.top, "N", "rows per table (text and JSON: 20, CSV and folded: all; 0: all)", 0,
			 1L << 30),
		OPT_BOOL(0, "all", &o.all, "every row of every table (as -n 0)"),
		OPT_CHOICE(0, "sort", &o.sort, "mispredicts|executions|rate", "rank sites by (default mispredicts)"),
		OPT_CHOICE(0, "by", &o.by, "site|edge|type|block", "show one view (text: all; CSV: site)"),
		OPT_GROUP("symbols"),
		OPT_STRING(0, "symfs", &o.symfs, "DIR", "look for the recorded binaries under DIR"),
		OPT_STRING(0, "kallsyms", &o.kallsyms, "FILE", "kernel symbols of the recorded kernel"),
		OPT_BOOL(0, "source", &o.source, "source lines and inline chains (--no-source: faster)"),
		OPT_BOOL(0, "disasm", &o.disasm, "disassemble the top sites (--no-disasm to skip)"),
		OPT_GROUP("damaged input"),
		OPT_BOOL(0, "partial", &o.partial,
			 "read a cut or damaged pipe stream up to the damage and say what was lost (default: refuse it)"),
		OPT_END(),
	};
	struct strbuf out = STRBUF_INIT;
	int i, status;

	i = opts_parse(opts, &doc, argc, argv);
	if (i < 0)
		return opts_exit(i);
	if (i < argc)
		return msg_usage("branches report", "unexpected argument '%s' (the file is given with -i)", argv[i]);
	if (o.json + o.csv + o.folded > 1)
		return msg_usage("branches report", "--json, --csv and --folded exclude each other");
	if (o.all && o.top > 0)
		return msg_usage("branches report", "--all and -n %ld exclude each other", o.top);
	o.format = output_format("branches report", o.format, o.json ? "json" : o.csv ? "csv" : o.folded ? "folded" : NULL,
				 "text");
	if (!o.format)
		return EXIT_USAGE;
	o.json = !strcmp(o.format, "json");
	o.csv = !strcmp(o.format, "csv");
	o.folded = !strcmp(o.format, "folded");
	if (!strcmp(o.format, "pprof") && !o.output && ctx->stdout_tty)
		return msg_usage("branches report", "--format pprof writes a binary file: give -o FILE.pb.gz");
	strbuf_init(&out, 1u << 30);
	o.pal = o.output ? NULL : ctx->palette;
	status = branches_report_run(&o, &out);
	if (status == EXIT_OK)
		status = output_write(o.output, out.buf, out.len);
	strbuf_release(&out);
	return status;
}
