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

#include <errno.h>
#include <jansson.h>
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

static json_t *entry_json(const struct advice_entry *e)
{
	json_t *o = json_object(), *aliases = json_array(), *children = json_array();

	if (!o || !aliases || !children) {
		json_decref(o);
		json_decref(aliases);
		json_decref(children);
		return NULL;
	}
	for (const char *const *a = e->aliases; *a; a++)
		json_array_append_new(aliases, json_string(*a));
	for (size_t i = 0; i < advice_count(); i++)
		if (advice_get(i)->parent && !strcmp(advice_get(i)->parent, e->key))
			json_array_append_new(children, json_string(advice_get(i)->key));
	json_object_set_new(o, "key", json_string(e->key));
	json_object_set_new(o, "title", json_string(e->title));
	json_object_set_new(o, "level", json_integer(e->level));
	json_object_set_new(o, "parent", e->parent ? json_string(e->parent) : json_null());
	json_object_set_new(o, "children", children);
	json_object_set_new(o, "aliases", aliases);
	json_object_set_new(o, "summary", json_string(e->summary));
	json_object_set_new(o, "meaning", json_string(e->meaning));
	json_object_set_new(o, "confirm", json_string(e->confirm));
	json_object_set_new(o, "causes", json_string(e->causes));
	json_object_set_new(o, "fixes", json_string(e->fixes));
	json_object_set_new(o, "sources", json_string(e->sources));
	return o;
}

static json_t *list_json(void)
{
	json_t *o = json_object(), *nodes = json_array();

	if (!o || !nodes) {
		json_decref(o);
		json_decref(nodes);
		return NULL;
	}
	for (size_t i = 0; i < advice_count(); i++) {
		const struct advice_entry *e = advice_get(i);
		json_t *n = json_object();

		if (!n)
			continue;
		json_object_set_new(n, "key", json_string(e->key));
		json_object_set_new(n, "title", json_string(e->title));
		json_object_set_new(n, "level", json_integer(e->level));
		json_object_set_new(n, "parent", e->parent ? json_string(e->parent) : json_null());
		json_object_set_new(n, "summary", json_string(e->summary));
		json_array_append_new(nodes, n);
	}
	json_object_set_new(o, "nodes", nodes);
	return o;
}

/* The four classic level-1 nodes; the others at level 1 are extra buckets. */
static bool is_extra(const struct advice_entry *e)
{
	static const char *const classic[] = { "frontend_bound", "bad_speculation", "backend_bound", "retiring" };

	if (e->parent)
		return false;
	for (size_t i = 0; i < sizeof(classic) / sizeof(classic[0]); i++)
		if (!strcmp(e->key, classic[i]))
			return false;
	return true;
}

/* One line per node: the key (level 2 indented under its parent) and its title. */
static void list_text(struct strbuf *out, size_t width)
{
	strbuf_adds(out, "Nodes of the top-down tree ('tdprof explain NODE' prints one):\n\n");
	for (size_t i = 0; i < advice_count(); i++) {
		const struct advice_entry *e = advice_get(i);
		size_t start = out->len;

		strbuf_addf(out, "  %s%-*s  %s%s", e->parent ? "  " : "", e->parent ? 22 : 24, e->key, e->title,
			    is_extra(e) ? " (extra level-1 bucket)" : "");
		if (out->len - start > width)
			strbuf_setlen(out, start + width);
		strbuf_addch(out, '\n');
	}
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
	const char *output = NULL;
	const struct opt opts[] = {
		OPT_BOOL(0, "json", &json, "write the entry (or the list) as one JSON document"),
		OPT_STRING('o', "output", &output, "FILE", "write to FILE instead of standard output"),
		OPT_END(),
	};
	const struct advice_entry *e = NULL;
	struct strbuf out = STRBUF_INIT;
	size_t width;
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
	if (i < argc && !(e = advice_find(argv[i])))
		return unknown_node(argv[i]);
	width = output ? 80 : text_width(ctx);
	if (json) {
		json_t *doc_json = e ? entry_json(e) : list_json();

		/* every JSON document carries a backend: here, the one auto would pick */
		if (doc_json && json_object_set_new(doc_json, "backend", json_string(backend_auto_name())))
			out.failed = true;
		char *s = doc_json ? json_dumps(doc_json, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;

		if (s) {
			strbuf_adds(&out, s);
			strbuf_addch(&out, '\n');
		} else {
			out.failed = true;
		}
		free(s);
		json_decref(doc_json);
	} else if (e) {
		advice_render_text(e, width, &out);
	} else {
		list_text(&out, width);
	}
	if (strbuf_failed(&out)) {
		msg_error("out of memory");
		status = EXIT_ANALYSIS;
	} else {
		status = output_write(output, out.buf, out.len);
	}
	strbuf_release(&out);
	return status;
}
