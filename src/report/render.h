/*
 * render.h: one interface for every output format of every document. A renderer
 * is a format's name and a function that writes one finished document into a
 * strbuf; each document kind has one table of them. A command picks the entry
 * for --format (render_find()) and hands the strbuf to cli/output.c, the one
 * place that writes results to stdout or -o FILE.
 *
 * Adding a format: one function per document kind (in that kind's renderer
 * file) and one row in its table here (render.c). "html" is the page of
 * report/html.h, drawn from the kind's own JSON (render_html_of_json()): topdown,
 * why, branches report; diff draws its result (html_print_diff()). Renderers only format: every
 * rate, share and derived figure is in the document struct they are given.
 *
 * Every document kind has a table; a kind's printers (its header in report/)
 * remain for what streams before the document (stat's -I intervals).
 *
 * Usage:
 *   const struct renderer *r = render_find(RENDER_TOPDOWN, format);
 *   struct strbuf sb = STRBUF_INIT;
 *   ret = r->render(&sb, &topdown_report, &err);
 *   ... write sb (cli/output.h: output_render()) ...; strbuf_release(&sb);
 */
#ifndef TDPROF_REPORT_RENDER_H
#define TDPROF_REPORT_RENDER_H

#include <stddef.h>
#include <stdio.h>

struct strbuf;
struct tdp_err;

enum render_kind {
	RENDER_TOPDOWN = 0, /* struct topdown_report (report/topdown.h) */
	RENDER_WHY,         /* struct why_report (report/why.h) */
	RENDER_BRANCHES,    /* struct branches_report (report/branches.h) */
	RENDER_LOOP,        /* struct loop_report (report/loop.h) */
	RENDER_INFO,        /* struct info_report (report/info.h) */
	RENDER_DIFF,        /* struct diff_result (diff/diff.h; report/diff.h) */
	RENDER_SELFTEST,    /* struct selftest_report (report/selftest.h) */
	RENDER_LIST,        /* struct list_report (report/list.h) */
	RENDER_EXPLAIN,     /* struct explain_report (report/explain.h) */
	RENDER_STAT,        /* struct stat_report (report/stat.h) */
	RENDER_ANNOTATE,    /* struct annotate_report (report/annotate.h) */
	RENDER_KINDS,
};

/** Writes one document (its struct, borrowed) to out. Returns 0, TDP_ENOMEM or TDP_EIO. */
typedef int render_fn(struct strbuf *out, const void *doc, struct tdp_err *err);

struct renderer {
	const char *format; /* "text", "json", ... (the value of --format) */
	render_fn *render;
};

/** A renderer that prints to a FILE (the older form; render_capture() adapts it). */
typedef int render_file_fn(FILE *out, const void *doc, struct tdp_err *err);

/**
 * Run fn(doc) into a memory stream and append what it wrote to out: the same
 * bytes as fn printing to a file. Returns fn's error, or TDP_ENOMEM.
 */
int render_capture(struct strbuf *out, render_file_fn *fn, const void *doc, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * The HTML page (report/html.h) of the document that the JSON renderer `json`
 * writes of doc: the JSON rendered into memory, read back (doc/doc.h) and drawn,
 * so the page shows exactly what the JSON says. A kind with a page lists it as
 *   static int <kind>_html(struct strbuf *o, const void *d, struct tdp_err *e)
 *   { return render_html_of_json(o, <kind>_json, d, e); }
 *   ... { "html", <kind>_html } in its table.
 * Returns 0, json's error, or as html_print_json_text().
 */
int render_html_of_json(struct strbuf *out, render_fn *json, const void *doc, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** The renderers of kind k, ending with { NULL, NULL }; the first is the default. */
const struct renderer *render_table(enum render_kind k);

/** The renderer of `format` (NULL: the default) for kind k, or NULL when k has none of that name. */
const struct renderer *render_find(enum render_kind k, const char *format);

#endif
