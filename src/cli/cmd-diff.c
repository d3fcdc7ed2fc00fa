/*
 * cmd-diff.c: `tdprof diff A.json B.json`: what changed between two runs, from
 * their JSON documents (topdown, why or branches report), whether it is beyond
 * the noise, and where. It never measures. The analysis is diff/diff.h; the
 * renderers report/diff.h and report/html.h.
 */
#include "cli/cmd.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/opts.h"
#include "cli/output.h"
#include "base/err.h"
#include "base/file.h"
#include "diff/diff.h"
#include "doc/doc.h"
#include "report/diff.h"
#include "report/html.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char cmd_diff_summary[] = "what changed between two runs: top-down, sites and a verdict, from their JSON";

static const struct cmd_doc doc = {
	.name = "diff",
	.summary = cmd_diff_summary,
	.usage = "diff A.json B.json [--json | --format FMT] [-o FILE] [--html FILE] [--noise-floor POINTS] [-n TOP]",
	.description =
		"Compares two documents of one kind: two 'tdprof topdown --json', two 'tdprof why --json' or two "
		"'tdprof branches report --json' outputs, typically of a good build (A) and a bad one (B). It "
		"reads the documents only and never measures.\n"
		"\n"
		"Every level-1 and level-2 node is shown side by side with the change in points (B - A). A "
		"change is flagged when the 95 % confidence intervals of A and B do not overlap, when both "
		"documents were made with '-r N' (N >= 2; a deterministic, simulated backend gives zero-width "
		"intervals, and then the noise floor decides); otherwise when it exceeds the noise floor "
		"(default 2.0 points, --noise-floor). The nodes that moved most are ranked.\n"
		"\n"
		"For why and branch reports, the sites (and edges) that gained or lost the most mispredicts (or, "
		"for why's other verdicts, misses or instructions) are listed. Two builds put the same code at "
		"other addresses, so sites are matched by source file and line in the same function, else by "
		"function and offset within it, else (unresolved code only) by address.\n"
		"\n"
		"It ends with a one-paragraph verdict: the node that moved, its child, and the new top site with "
		"its change. Documents of different kinds, CPU models or backends are refused: their difference "
		"would not be the program's. --html writes a self-contained page with A and B side by side. "
		"docs/diff.md gives the rules.",
	.examples = "tdprof diff good.json bad.json\n"
		    "the change of every node, the sites that moved, the verdict\n"
		    "tdprof diff --json -o change.json good.json bad.json\n"
		    "the same as one JSON document\n"
		    "tdprof diff good.json bad.json --html change.html\n"
		    "also a page with both trees side by side\n"
		    "tdprof diff --noise-floor 0.5 a.json b.json\n"
		    "flag single-run changes above half a point",
	.exit_status = "0 when the documents were compared (whether or not something moved); 2 for a usage "
		       "error, an unreadable or malformed document, or documents of different kinds, models or "
		       "backends.",
	.see_also = "tdprof-topdown(1), tdprof-why(1), tdprof-branches(1)",
};

struct diff_cli {
	const char *out_path, *html_path, *source_dir, *format;
	bool json;
	double noise_floor;
	long top;
};

/*
 * Parse options anywhere among the two file names (A.json B.json --json works).
 * Returns 0, a negative opts_parse() result (help shown, usage printed) or a usage exit status.
 */
static int parse(int argc, char **argv, struct diff_cli *c, const char **files)
{
	struct opt opts[] = {
		OPT_GROUP("comparison"),
		OPT_DOUBLE(0, "noise-floor", &c->noise_floor, "POINTS", "flag single-run changes larger than this "
									"(default 2.0 points)", 0, 100),
		OPT_LONG('n', "top", &c->top, "TOP", "sites and edges to list (default 10)", 1, 100000),
		OPT_STRING(0, "source-dir", &c->source_dir, "DIR", "also look for relative source files here "
								   "(--html)"),
		OPT_GROUP("output"),
		OPT_CHOICE(0, "format", &c->format, "text|json|html", "the comparison's format (default text; html: "
								      "the page of --html)"),
		OPT_BOOL(0, "json", &c->json, "one JSON document (--format=json)"),
		OPT_STRING('o', "output", &c->out_path, "FILE", "write the result to FILE instead of stdout"),
		OPT_STRING(0, "html", &c->html_path, "FILE", "also write a self-contained HTML page to FILE"),
		OPT_END(),
	};
	int base = 0, nr = 0;

	for (;;) {
		int k = opts_parse(opts, &doc, argc - base, argv + base);

		if (k < 0)
			return k;
		k += base;
		if (k >= argc)
			break;
		if (!strcmp(argv[k - 1], "--") && k - 1 > base) {
			/* after "--": every word is a file */
			for (; k < argc; k++) {
				if (nr >= 2)
					return msg_usage("diff", "too many documents: '%s' (give A.json and B.json)", argv[k]);
				files[nr++] = argv[k];
			}
			break;
		}
		if (nr >= 2)
			return msg_usage("diff", "too many documents: '%s' (give A.json and B.json)", argv[k]);
		files[nr++] = argv[k];
		base = k;
	}
	if (nr < 2)
		return msg_usage("diff", "give two documents to compare: 'tdprof diff A.json B.json'");
	if (!(c->format = output_format("diff", c->format, c->json ? "json" : NULL, "text")))
		return EXIT_USAGE;
	return EXIT_OK;
}

static int load(const char *path, struct tdoc **out)
{
	struct tdp_file f = TDP_FILE_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	int ret = tdp_file_open(&f, path, TDOC_MAX_BYTES, &err);

	if (!ret)
		ret = tdoc_parse(f.data, f.size, path, out, &err);
	tdp_file_close(&f);
	if (ret) {
		msg_err(&err);
		return exitcode_from_err(ret);
	}
	return EXIT_OK;
}

/* The page (--html, --format html) shows the source lines of the sites it details: attach them. */
static int attach_sources(const struct diff_cli *c, struct tdoc *a, struct tdoc *b)
{
	struct tdp_err err = TDP_ERR_INIT;
	const char *dirs[1] = { c->source_dir };
	size_t nr = c->source_dir ? 1 : 0;
	/* the sources of the sites the page details (the diff's first sites are drawn from both) */
	int ret = tdoc_attach_sources(a, HTML_SITES_DEFAULT, HTML_SOURCE_CONTEXT, dirs, nr, &err);

	if (!ret)
		ret = tdoc_attach_sources(b, HTML_SITES_DEFAULT, HTML_SOURCE_CONTEXT, dirs, nr, &err);
	if (ret) {
		msg_err(&err);
		return EXIT_ANALYSIS;
	}
	return EXIT_OK;
}

int cmd_diff(int argc, char **argv, struct tdp_ctx *ctx)
{
	struct diff_cli c = { .noise_floor = DIFF_NOISE_FLOOR_DEFAULT, .top = DIFF_TOP_DEFAULT };
	struct diff_opts o = DIFF_OPTS_INIT;
	struct diff_result r = DIFF_RESULT_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	struct tdoc *a = NULL, *b = NULL;
	const char *files[2] = { NULL, NULL };
	int rc;

	(void)ctx;
	rc = parse(argc, argv, &c, files);
	if (rc)
		return rc < 0 ? opts_exit(rc) : rc;
	rc = load(files[0], &a);
	if (!rc)
		rc = load(files[1], &b);
	if (rc)
		goto out;
	if (diff_check(a, b, &err)) {
		msg_err(&err);
		rc = EXIT_USAGE;
		goto out;
	}
	o.noise_floor = c.noise_floor;
	o.top = (size_t)c.top;
	if (diff_compare(a, b, &o, &r, &err)) {
		msg_err(&err);
		rc = EXIT_ANALYSIS;
		goto out;
	}
	if ((c.html_path || !strcmp(c.format, "html")) && (rc = attach_sources(&c, a, b)))
		goto out;
	if (c.html_path && (rc = output_html_of(c.html_path, RENDER_DIFF, &r)))
		goto out;
	rc = output_render(c.out_path, render_find(RENDER_DIFF, c.format), &r);
out:
	diff_result_release(&r);
	tdoc_free(a);
	tdoc_free(b);
	return rc;
}
