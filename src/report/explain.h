/*
 * explain.h (report): a node of the knowledge base (model/advice.h) as wrapped
 * terminal text or JSON, or the list of the nodes: what `tdprof explain` shows,
 * and the Markdown-to-terminal rendering other text renderers use for the
 * summary a verdict prints. Rendered through report/render.h (RENDER_EXPLAIN:
 * "text", "json").
 */
#ifndef TDPROF_REPORT_EXPLAIN_H
#define TDPROF_REPORT_EXPLAIN_H

#include <stddef.h>

#include "model/advice.h"

struct strbuf;
struct tdp_err;

#define EXPLAIN_MIN_WIDTH 40 /* the narrowest text rendered */

struct explain_report {
	const struct advice_entry *entry; /* NULL: the list of the nodes */
	size_t width;                     /* text: columns to wrap to (EXPLAIN_MIN_WIDTH at least) */
	const char *backend;              /* --backend=auto's; not written: nothing is measured */
};

/**
 * Append the entry as plain text wrapped to `width` columns (at least 40 is
 * used): title, place in the tree, aliases, the summary, then MEANING, HOW TO
 * CONFIRM, TYPICAL CAUSES, FIXES and SOURCES. Markdown is rendered for a terminal:
 * paragraphs and list items reflowed, code blocks kept verbatim and indented,
 * backticks removed. Check strbuf_failed(out) for allocation failure.
 */
void explain_entry_text(const struct advice_entry *e, size_t width, struct strbuf *out);

/**
 * Append Markdown text `md` rendered as explain_entry_text() renders a section,
 * every line indented by `indent` spaces and wrapped to `width` columns. For
 * verdicts that print a summary under their own heading.
 */
void explain_markdown(const char *md, size_t indent, size_t width, struct strbuf *out);

/** The entry, or the list of nodes, as text into out. Returns 0 or TDP_ENOMEM. */
int explain_text_render(struct strbuf *out, const struct explain_report *r, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** The entry, or the list, as one JSON document (no "backend": nothing is measured) into out. Returns 0 or TDP_ENOMEM. */
int explain_json_render(struct strbuf *out, const struct explain_report *r, struct tdp_err *err)
	__attribute__((warn_unused_result));

#endif
