/*
 * cmd-branches.c: `tdprof branches record|report`: dispatch to the subcommand
 * (cmd-branches-record.c, cmd-branches-report.c).
 *
 * The record subcommand is another file that a build may not have yet
 * (src/cli/meson.build compiles the files of cli_extra_files that exist), so it
 * is referenced weakly: without it, `tdprof branches record` says so instead of
 * the link failing.
 */
#include "cli/cmd.h"
#include "cli/cmd-branches.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/opts.h"

#include <string.h>

#pragma weak cmd_branches_record
#pragma weak cmd_branches_record_summary

const char cmd_branches_summary[] = "record branch stacks and rank the mispredicted branches";

static const struct cmd_doc doc = {
	.name = "branches",
	.summary = cmd_branches_summary,
	.usage = "branches record [-j FILTER] [-c PERIOD | -F FREQ] [-e EVENT] -o FILE -- CMD [ARGS]\n"
		 "branches report -i FILE [--json | --csv | --folded] [OPTIONS]",
	.description =
		"Mode 4 of the top-down workflow: when top-down says Bad Speculation, find the branches.\n"
		"\n"
		"'tdprof branches record' samples branch stacks (Intel LBR, AMD LbrExtV2 or BRS, Arm BRBE) or "
		"Arm SPE branch records into a perf.data file. 'tdprof branches report' reads such a file, "
		"also one recorded by perf ('perf record -b', 'perf record -e arm_spe//'), and ranks the "
		"misprediction sites with their source lines and disassembly, the edges as "
		"'perf report --sort symbol_from,symbol_to,mispredict' does, the branch types, and the "
		"cycles and IPC of basic blocks where the LBR is timed.\n"
		"\n"
		"'tdprof branches SUBCOMMAND --help' explains each.",
	.examples = "tdprof branches record -o br.data -- ./app\n"
		    "record branch stacks of ./app\n"
		    "tdprof branches report -i br.data\n"
		    "rank its mispredicted branches",
	.see_also = "tdprof-branches-record(1), tdprof-branches-report(1), perf-record(1), perf-report(1)",
	.subcommands = "record|report",
};

int cmd_branches(int argc, char **argv, struct tdp_ctx *ctx)
{
	const struct opt opts[] = { OPT_END() };
	const char *sub;
	int i = opts_parse(opts, &doc, argc, argv);

	if (i < 0)
		return opts_exit(i);
	if (i >= argc)
		return msg_usage("branches", "'branches' needs a subcommand: 'record' or 'report'");
	sub = argv[i];
	if (!strcmp(sub, "report"))
		return cmd_branches_report(argc - i, argv + i, ctx);
	if (!strcmp(sub, "record")) {
		if (!cmd_branches_record) {
			msg_error("'tdprof branches record' is not part of this build");
			msg_hint("read an existing recording with 'tdprof branches report -i FILE', or record one "
				 "with 'perf record -b -o FILE -- CMD'");
			return EXIT_ANALYSIS;
		}
		return cmd_branches_record(argc - i, argv + i, ctx);
	}
	return msg_usage("branches", "'%s' is not a branches subcommand ('record' or 'report')", sub);
}
