/*
 * html-tree.c: the top-down tree as nested SVG bars, and its table (see html.h).
 * Level 1 is one row of bars left to right in the document's order; under each
 * bar, one row down, its children from the parent's left edge, to the document's
 * depth (level 6 on Intel); a node above its threshold has a dark outline. A bar is
 * HTML_UNITS_PER_POINT units wide per percentage point, exactly: its width
 * attribute is 10 * the JSON's value, and data-value is that value.
 */
#include <math.h>
#include <string.h>

#include "base/treeorder.h"
#include "report/html-internal.h"

#define TREE_TOP 22      /* room for the axis labels */
#define ROW_H 46
#define ROW_GAP 8
#define CHAR_W 0.58      /* a character of the in-bar font, wide, in font sizes (sans-serif, bold) */
#define TEXT_PAD 12      /* the text's x offset and some air on the right */

static const struct {
	const char *key;
	const char *colour;
} colours[] = {
	{ "retiring", "#2e7d32" },
	{ "bad_speculation", "#c62828" },
	{ "frontend_bound", "#6a1b9a" },
	{ "backend_bound", "#ef6c00" },
	{ "frontend_stalled_cycles", "#6a1b9a" },
	{ "backend_stalled_cycles", "#ef6c00" },
};

const char *html_node_colour(const char *key, const char *parent, int level)
{
	const char *k = level == 2 && parent ? parent : key;

	for (size_t i = 0; i < sizeof(colours) / sizeof(colours[0]); i++)
		if (!strcmp(colours[i].key, k))
			return colours[i].colour;
	return "#546e7a"; /* a vendor extra (smt_contention) */
}

static double width_of(double v)
{
	return v > 0 ? v * HTML_UNITS_PER_POINT : 0;
}

/*
 * depth: the row (0 for level 1); colour: the level-1 ancestor's; vis: the width
 * left visible in its parent's span, which decides whether the text fits.
 */
static void bar(FILE *out, const struct tdoc_node *n, double x, double y, double font, int depth, const char *colour,
		double vis)
{
	double w = vis, cw = CHAR_W * font;
	/* deeper rows fade, so that a level reads as a level; a crossed node has a dark outline */
	double opacity = depth == 0 ? 1 : depth == 1 ? 0.62 : 0.62 - 0.08 * (depth - 1);

	fputs("<g class=\"bar\">", out);
	fprintf(out, "<rect class=\"node l%d%s\" data-key=\"", n->level, n->flagged ? " flagged" : "");
	html_esc(out, n->key);
	fputs("\" data-parent=\"", out);
	html_esc(out, n->parent ? n->parent : "");
	fprintf(out, "\" data-level=\"%d\" data-value=\"%.17g\" data-flagged=\"%d\" x=\"%.4f\" y=\"%d\" width=\"%.4f\" "
		     "height=\"%d\" fill=\"%s\" fill-opacity=\"%.2f\" stroke=\"%s\" stroke-width=\"%d\"><title>",
		n->level, n->value, n->flagged ? 1 : 0, x, (int)y, width_of(n->value), ROW_H, colour, opacity,
		n->flagged ? "#212121" : "#fff", n->flagged ? 3 : 1);
	html_esc(out, n->label);
	fprintf(out, ": %.1f %%", n->value);
	if (n->s.n >= 2 && !isnan(n->s.half))
		fprintf(out, " \u00b1%.1f (95 %% interval over %zu runs)", n->s.half, n->s.n);
	if (n->flagged)
		fputs(", above its threshold", out);
	fputs("</title></rect>", out);
	if (w >= 6 * cw + TEXT_PAD) { /* "84.4 %" */
		/* a nested svg clips the text to its bar (it is never meant to need it) */
		fprintf(out, "<svg x=\"%.4f\" y=\"%d\" width=\"%.4f\" height=\"%d\"><text x=\"6\" y=\"%d\" "
			     "class=\"in-bar\" font-size=\"%g\">", x, (int)y, w, ROW_H, ROW_H / 2 + (int)(font * 0.4), font);
		/* the label only when it fits whole: a clipped "Branch Mispre" says nothing (the
		 * table and the tooltip give every name) */
		if (w >= (double)(strlen(n->label) + 7) * cw + TEXT_PAD) {
			html_esc(out, n->label);
			fputc(' ', out);
		}
		fprintf(out, "%.1f %%</text></svg>", n->value);
	}
	fputs("</g>\n", out);
}

#define TREE_MAX_DEPTH 8 /* rows drawn (Intel's TMA has 6 levels) */

void html_tree(FILE *out, const struct tdoc *d, const char *id, double font)
{
	const char *keys[TDOC_MAX_NODES], *parents[TDOC_MAX_NODES], *colour[TREE_MAX_DEPTH];
	size_t order[TDOC_MAX_NODES];
	int depth[TDOC_MAX_NODES], rows = 1, skip = -1;
	double total = 0, w, next[TREE_MAX_DEPTH + 1] = { 0 };
	double lo[TREE_MAX_DEPTH], hi[TREE_MAX_DEPTH]; /* the span each depth's current node shows */
	int height;
	bool any = false, unmeasured = false;

	for (size_t i = 0; i < d->nr_nodes; i++) {
		keys[i] = d->nodes[i].key;
		parents[i] = d->nodes[i].parent;
		if (!d->nodes[i].parent && isfinite(d->nodes[i].value)) {
			total += width_of(d->nodes[i].value);
			any = true;
		}
	}
	if (!any) {
		fputs("<p class=\"muted\">No node of the tree was measured.</p>\n", out);
		return;
	}
	tree_order(keys, parents, d->nr_nodes, order, depth);
	for (size_t i = 0; i < d->nr_nodes; i++)
		if (depth[i] + 1 > rows && depth[i] < TREE_MAX_DEPTH)
			rows = depth[i] + 1;
	height = TREE_TOP + rows * ROW_H + (rows - 1) * ROW_GAP + 4;
	w = total > 100 * HTML_UNITS_PER_POINT ? total : 100 * HTML_UNITS_PER_POINT;
	fprintf(out, "<svg class=\"tree\" id=\"%s\" data-units-per-point=\"%d\" data-rows=\"%d\" viewBox=\"-2 0 %.4f %d\" "
		     "width=\"100%%\" role=\"img\" aria-label=\"top-down tree\" xmlns=\"http://www.w3.org/2000/svg\">\n",
		id, HTML_UNITS_PER_POINT, rows, w + 4, height);
	for (int t = 0; t <= 100; t += 25) {
		fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"tick\"/>"
			     "<text x=\"%d\" y=\"14\" class=\"axis\" text-anchor=\"%s\">%d %%</text>\n",
			t * HTML_UNITS_PER_POINT, TREE_TOP - 4, t * HTML_UNITS_PER_POINT, height,
			t * HTML_UNITS_PER_POINT, t == 0 ? "start" : t == 100 ? "end" : "middle", t);
	}
	/* depth first: each node starts where its earlier siblings end, the first child
	 * at its parent's left edge; an unmeasured node and its subtree get no bar.
	 * Children whose shares add up to more than their parent's (Intel's deeper
	 * nodes need not sum to it; multiplexed counts may overshoot) keep their exact
	 * widths but are clipped to the span their parent shows, never drawn over its
	 * siblings' columns. */
	for (size_t i = 0; i < d->nr_nodes; i++) {
		const struct tdoc_node *n = &d->nodes[order[i]];
		int k = depth[i];

		if (skip >= 0 && k > skip)
			continue;
		skip = -1;
		if (k < 0 || k >= TREE_MAX_DEPTH)
			continue;
		if (!isfinite(n->value)) {
			unmeasured = true;
			skip = k;
			continue;
		}
		if (k == 0)
			colour[0] = html_node_colour(n->key, NULL, 1);
		else
			colour[k] = colour[k - 1];
		{
			double x0 = next[k], x1 = x0 + width_of(n->value);

			if (k > 0) {
				x0 = x0 > lo[k - 1] ? x0 : lo[k - 1];
				x1 = x1 < hi[k - 1] ? x1 : hi[k - 1];
				if (x1 < x0)
					x1 = x0;
				/* a nested viewport over the parent's span, in the tree's own coordinates
				 * (no clip-path: a url() reference is kept out of the page) */
				fprintf(out, "<svg class=\"clip\" x=\"%.4f\" y=\"0\" width=\"%.4f\" height=\"%d\" "
					     "viewBox=\"%.4f 0 %.4f %d\">", lo[k - 1], hi[k - 1] - lo[k - 1], height,
					lo[k - 1], hi[k - 1] - lo[k - 1], height);
			}
			lo[k] = x0;
			hi[k] = x1;
			bar(out, n, next[k], TREE_TOP + k * (ROW_H + ROW_GAP), font, k, colour[k], x1 - x0);
			if (k > 0)
				fputs("</svg>\n", out);
		}
		next[k + 1] = next[k];
		next[k] += width_of(n->value);
	}
	fputs("</svg>\n", out);
	if (unmeasured) {
		size_t n = 0;

		fputs("<p class=\"muted\">Not measurable here (no bar, never 0): ", out);
		for (size_t i = 0; i < d->nr_nodes; i++)
			if (!isfinite(d->nodes[i].value)) {
				fputs(n++ ? ", " : "", out);
				html_esc(out, d->nodes[i].label);
			}
		fputs(".</p>\n", out);
	}
}

void html_node_table(FILE *out, const struct tdoc *d)
{
	bool runs = d->runs > 1;
	const char *keys[TDOC_MAX_NODES], *parents[TDOC_MAX_NODES];
	size_t order[TDOC_MAX_NODES];

	if (!d->nr_nodes)
		return;
	fputs("<table class=\"nodes\"><thead><tr><th>node</th><th class=\"num\">value</th>", out);
	if (runs)
		fputs("<th class=\"num\">95 % interval</th><th class=\"num\">sd</th>", out);
	fputs("<th class=\"num\">threshold</th><th></th></tr></thead><tbody>\n", out);
	for (size_t i = 0; i < d->nr_nodes; i++) {
		keys[i] = d->nodes[i].key;
		parents[i] = d->nodes[i].parent;
	}
	tree_order(keys, parents, d->nr_nodes, order, NULL);
	for (size_t i = 0; i < d->nr_nodes; i++) {
		const struct tdoc_node *n = &d->nodes[order[i]];

		fprintf(out, "<tr class=\"l%d%s\" data-key=\"", n->level, n->flagged ? " flagged" : "");
		html_esc(out, n->key);
		fputs("\"><td>", out);
		html_esc(out, n->label);
		if (n->extra)
			fputs(" <span class=\"muted\">(extra)</span>", out);
		fputs("</td><td class=\"num\">", out);
		if (isfinite(n->value))
			fprintf(out, "%.1f %%", n->value);
		else
			fputs("&ndash;", out);
		fputs("</td>", out);
		if (runs) {
			if (n->s.n >= 2 && isfinite(n->s.lo))
				fprintf(out, "<td class=\"num\">%.1f &ndash; %.1f</td><td class=\"num\">%.2f</td>", n->s.lo,
					n->s.hi, n->s.sd);
			else
				fputs("<td class=\"num\">&ndash;</td><td class=\"num\">&ndash;</td>", out);
		}
		if (isfinite(n->threshold))
			fprintf(out, "<td class=\"num\">&gt; %g %%</td>", n->threshold);
		else
			fputs("<td class=\"num\"></td>", out);
		fprintf(out, "<td>%s</td></tr>\n", n->flagged ? "above its threshold" : "");
	}
	fputs("</tbody></table>\n", out);
}
