/* html-internal.h: the parts of the HTML report shared by html*.c (include only there). */
#ifndef TDPROF_REPORT_HTML_INTERNAL_H
#define TDPROF_REPORT_HTML_INTERNAL_H

#include <stdio.h>

#include "report/html.h"

/**
 * The page's start up to the header's title (<!DOCTYPE ... <header><h1>title</h1>): the
 * caller writes the header's facts, then "</header>\n<main>\n", the sections, and
 * html_page_end() (</main>, the footer, </html>).
 */
void html_page_start(FILE *out, const char *title, const char *subtitle);
void html_page_end(FILE *out);

/** Write s escaped for HTML text and attribute values (NULL writes nothing). */
void html_esc(FILE *out, const char *s);

/** A number for people: integers in full ("12345"), others with 4 significant digits. */
void html_num(FILE *out, double v);

/** The colour of a node's bar (by its level-1 ancestor). Static. */
const char *html_node_colour(const char *key, const char *parent, int level);

/** The tree of d as nested SVG bars; id names the svg element ("tree", "tree-a"). */
/* font: the in-bar text's size in SVG units (15 for a page-wide tree; larger for a half-width one,
 * which is drawn smaller): a label is shown only when it fits its bar whole. */
void html_tree(FILE *out, const struct tdoc *d, const char *id, double font);

/** The table of d's nodes (values, thresholds, intervals of repeated runs). */
void html_node_table(FILE *out, const struct tdoc *d);

/** d's ranked sites, the first max_detail with their source lines and disassembly. */
void html_sites(FILE *out, const struct tdoc *d, size_t max_sites, size_t max_detail);

/** One site's source lines and disassembly (nothing when it has neither). */
void html_site_detail(FILE *out, const struct tdoc_site *s);

/** why's findings. */
void html_findings(FILE *out, const struct tdoc *d);

/** A branch report's summary counts and its first max edges. */
void html_branches(FILE *out, const struct tdoc *d, size_t max);

/** A topdown document's Bottlenecks view, stage-2 metrics and Info metrics (each when it has them). */
void html_metrics(FILE *out, const struct tdoc *d);

/** --by function's functions as a sortable grid with a bar each (nothing without functions). */
void html_functions(FILE *out, const struct tdoc *d);

/** why's per-branch table of the top line (drilldown.line_branches; nothing with fewer than two). */
void html_line_branches(FILE *out, const struct tdoc *d);

#endif
