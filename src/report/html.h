/*
 * html.h: the HTML report of `topdown`, `why`, `branches report` and `diff`
 * (--html FILE): one self-contained page (inline CSS and SVG; no script, no
 * network, no external font), readable offline and printable.
 *
 * What it shows: the backend and the machine ("estimate (simulated)" when
 * simulated), the verdict and its advice, the top-down tree as a picture (nested
 * bars in SVG: level 1 in one row, each node's children one row under it from its
 * left edge, to the document's depth (6 on Intel), a crossed node outlined, 10
 * units of width per percentage point), the node table in tree order (with the
 * 95 % intervals of repeated runs), Intel's Bottlenecks view, Arm's stage-2
 * metrics and the Info metrics when the document has them, why's per-branch
 * table of its top line, the ranked sites with their source lines and disassembly, the
 * findings of `why`, the edges of a branch report, the notes; for a diff, A and B
 * side by side, the changes, the flags and the verdict.
 *
 * It is drawn from the document structure (doc/doc.h), that is from the command's
 * own JSON document, never from a recomputation: every bar carries the JSON's
 * number as data-value and a width of exactly 10 * value (data-key, data-level,
 * data-parent say which node), so a test can check the picture against the JSON.
 * Every string is escaped (&, <, >, ", ').
 *
 * Lifecycle: fill a struct html_opts; call html_print_doc(), html_print_diff(),
 * or html_print_json() (which captures a JSON renderer's output in memory and
 * draws it); out is the caller's (--html FILE: cli/output.c's output_html()).
 */
#ifndef TDPROF_REPORT_HTML_H
#define TDPROF_REPORT_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "doc/diff-result.h"
#include "doc/doc.h"

struct tdp_err;

#define HTML_UNITS_PER_POINT 10 /* SVG width of one percentage point */
#define HTML_SITES_DEFAULT 10   /* sites listed */
#define HTML_DETAIL_DEFAULT 5   /* of which shown with source and disassembly */
#define HTML_SOURCE_CONTEXT 3   /* source lines before and after a site's line */

struct html_opts {
	const char *const *source_dirs; /* where relative source file names are also looked up; may be NULL */
	size_t nr_source_dirs;
	size_t max_sites;               /* sites listed (0: HTML_SITES_DEFAULT) */
	size_t max_detail;              /* sites with source and disassembly (0: HTML_DETAIL_DEFAULT) */
};

#define HTML_OPTS_INIT { NULL, 0, 0, 0 }

/**
 * Print a document's page. Source lines are shown for the sites d has them for
 * (tdoc_attach_sources()). Returns 0 or TDP_EIO (a write failed).
 */
int html_print_doc(FILE *out, const struct tdoc *d, const struct html_opts *o, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** Print a diff's page: A and B side by side (r's documents, borrowed). Returns 0 or TDP_EIO. */
int html_print_diff(FILE *out, const struct diff_result *r, const struct html_opts *o, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Draw the JSON document json[0..len) (a command's own output; name for
 * messages): read it back (tdoc_parse), attach the sources of its first sites,
 * print its page. Returns 0, tdoc_parse()'s errors, TDP_ENOMEM or TDP_EIO.
 */
int html_print_json_text(FILE *out, const char *json, size_t len, const char *name, const struct html_opts *o,
			 struct tdp_err *err) __attribute__((warn_unused_result));

/** A JSON renderer: writes one document to out (e.g. topdown_json_print with its report as arg). */
typedef int html_json_fn(FILE *out, const void *arg, struct tdp_err *err);

/**
 * Run fn(arg) into memory and draw its document as html_print_json_text() does.
 * Returns fn's error, or as html_print_json_text().
 */
int html_print_json(FILE *out, html_json_fn *fn, const void *arg, const char *name, const struct html_opts *o,
		    struct tdp_err *err) __attribute__((warn_unused_result));

#endif
