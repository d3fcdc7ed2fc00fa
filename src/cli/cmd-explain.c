/*
 * cmd-explain.c: `tdprof explain [NODE] [--json]`: the knowledge base entry of a
 * top-down node (what it means, how to confirm it, causes, fixes with code,
 * sources), or the list of nodes. The entries come from model/advice.h.
 */
#include "cli/backend.h"
#include "cli/cmd.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/opts.h"
#include "cli/output.h"
#include "base/strbuf.h"
#include "model/advice.h"
#include "report/explain.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

const char cmd_explain_summary[] = "explain a top-down node: meaning, how to confirm it, causes and fixes";

static const struct cmd_doc doc = {
	.name = "explain",
	.summary = cmd_explain_summary,
	.usage = "explain [--json] [-o FILE]\n"
		 "explain NODE [--json] [-o FILE]",
	.description =
		"Prints the knowledge-base entry of a node of the top-down tree: what it means, how to confirm "
		"it (which counters on Intel, AMD and Arm, and which tdprof mode), its typical causes, and "
		"concrete fixes with short C examples, with the sources they come from. Without NODE, lists "
		"the nodes, one line each.\n"
		"\n"
		"NODE is a key of the tree (frontend_bound, fetch_latency, fetch_bandwidth, bad_speculation, "
		"branch_mispredicts, machine_clears, backend_bound, memory_bound, core_bound, retiring, "
		"light_operations, heavy_operations, and the extra smt_contention, frontend_stalled_cycles and "
		"backend_stalled_cycles), or a name perf, Intel, AMD or Arm tools give it: tma_fetch_latency, "
		"frontend_bound_latency, retiring_microcode, stalled-cycles-frontend. Case, '-' and '_' do not "
		"matter.\n"
		"\n"
		"The text is wrapped to the terminal's width (80 columns when the output is not a terminal); "
		"code examples are printed as they are. The entries are docs/tma-diagnosis-actions.md, "
		"compiled into tdprof.",
	.examples = "tdprof explain\n"
		    "list the nodes of the top-down tree\n"
		    "tdprof explain branch_mispredicts\n"
		    "what wasted slots on mispredicted branches mean, and what to change\n"
		    "tdprof explain backend_bound_memory --json\n"
		    "the entry AMD's metric name refers to (memory_bound), as JSON",
	.exit_status = "2 when NODE is not a node of the tree (the closest names are suggested).",
	.see_also = "tdprof-topdown(1), tdprof-why(1)",
};

/* Width of the terminal on stdout, or 80 when it is not one. */
static size_t text_width(const struct tdp_ctx *ctx)
{
	struct winsize ws;

	if (ctx->stdout_tty && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col >= 20)
		return ws.ws_col;
	return 80;
}

static int unknown_node(const char *node)
{
	const char *sug[3];
	size_t n = advice_suggest(node, sug, 3);

	msg_error("'%s' is not a node of the top-down tree", node);
	for (size_t i = 0; i < n; i++)
		msg_hint("did you mean 'tdprof explain %s'?", sug[i]);
	msg_hint("'tdprof explain' lists the nodes");
	return EXIT_USAGE;
}

int cmd_explain(int argc, char **argv, struct tdp_ctx *ctx)
{
	bool json = false;
	const char *output = NULL, *format = NULL;
	const struct opt opts[] = {
		OPT_CHOICE(0, "format", &format, "text|json", "the entry's (or the list's) format (default text)"),
		OPT_BOOL(0, "json", &json, "write the entry (or the list) as one JSON document (--format=json)"),
		OPT_STRING('o', "output", &output, "FILE", "write to FILE instead of standard output"),
		OPT_END(),
	};
	const struct advice_entry *e = NULL;
	struct explain_report r;
	int i, status;

	i = opts_parse(opts, &doc, argc, argv);
	if (i < 0)
		return opts_exit(i);
	if (i < argc) {
		/* options may follow NODE too ('explain NODE --json'): parse what is after it */
		int j = opts_parse(opts, &doc, argc - i, argv + i);

		if (j < 0)
			return opts_exit(j);
		if (j < argc - i)
			return msg_usage("explain", "explain takes one node, not several ('%s', '%s')", argv[i],
					 argv[i + j]);
		argc = i + 1;
	}
	if (argc - i > 1)
		return msg_usage("explain", "explain takes one node, not %d ('%s', '%s', ...)", argc - i, argv[i],
				 argv[i + 1]);
	if (!(format = output_format("explain", format, json ? "json" : NULL, "text")))
		return EXIT_USAGE;
	if (i < argc && !(e = advice_find(argv[i])))
		return unknown_node(argv[i]);
	r = (struct explain_report){ e, output ? 80 : text_width(ctx), backend_auto_name() };
	status = output_render(output, render_find(RENDER_EXPLAIN, format), &r);
	return status;
}
