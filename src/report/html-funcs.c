/*
 * html-funcs.c: the functions of `--by function` as a sortable grid with a bar per
 * function (see html-internal.h). The page has no script (its Content-Security-Policy
 * allows none): the grid is drawn once per sort key, and radio buttons, whose labels
 * are the column headings, show the copy of the chosen order through CSS (html.c's
 * "#fs-KEY:checked~table.by-KEY" rules; the keys here and there must agree).
 * The bar is the function's share (of the largest), split into its level 1.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "model/model.h"
#include "report/html-internal.h"

enum sort_key { BY_SHARE = 0, BY_RET, BY_BAD, BY_FE, BY_BE, BY_NAME, NR_KEYS };

static const char *const key_id[NR_KEYS] = { "share", "ret", "bad", "fe", "be", "name" };
static const char *const key_title[NR_KEYS] = { "share", "Retiring", "Bad Spec.", "Frontend", "Backend", "function" };
static const char *const l1_keys[4] = { "retiring", "bad_speculation", "frontend_bound", "backend_bound" };

#define BAR_W 220.0

/* the sort of one copy: a key, and the functions it orders (qsort_r's argument) */
struct order {
	enum sort_key key;
	const struct tdoc_function *v;
};

static double key_value(const struct tdoc_function *f, enum sort_key k)
{
	double v = k == BY_SHARE ? f->share : f->level1[k - BY_RET];

	return isfinite(v) ? v : -1;
}

static int cmp(const void *pa, const void *pb, void *arg)
{
	const struct order *o = arg;
	const struct tdoc_function *a = &o->v[*(const size_t *)pa], *b = &o->v[*(const size_t *)pb];
	double x, y;

	if (o->key == BY_NAME)
		return strcmp(a->name, b->name);
	x = key_value(a, o->key);
	y = key_value(b, o->key);
	if (x != y)
		return x > y ? -1 : 1;
	return strcmp(a->name, b->name);
}

static void pct_cell(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "<td class=\"num\">%.1f</td>", v);
	else
		fputs("<td class=\"num muted\">&ndash;</td>", out);
}

/* The function's bar: its share of the largest, split by its level 1 (grey when not measurable). */
static void bar(FILE *out, const struct tdoc_function *f, double max)
{
	double w = isfinite(f->share) && max > 0 ? BAR_W * f->share / max : 0, x = 0, sum = 0;

	fprintf(out, "<td><svg class=\"fbar\" width=\"%.0f\" height=\"14\" role=\"img\" aria-label=\"%.1f %%\">",
		BAR_W, isfinite(f->share) ? f->share : 0);
	for (size_t k = 0; k < 4; k++)
		sum += isfinite(f->level1[k]) && f->level1[k] > 0 ? f->level1[k] : 0;
	if (!(sum > 0)) {
		fprintf(out, "<rect x=\"0\" y=\"1\" width=\"%.2f\" height=\"12\" fill=\"#b0bec5\"/>", w);
	} else {
		for (size_t k = 0; k < 4; k++) {
			double part = isfinite(f->level1[k]) && f->level1[k] > 0 ? w * f->level1[k] / sum : 0;

			if (part > 0)
				fprintf(out, "<rect x=\"%.2f\" y=\"1\" width=\"%.2f\" height=\"12\" fill=\"%s\"/>", x, part,
					html_node_colour(l1_keys[k], NULL, 1));
			x += part;
		}
	}
	fputs("</svg></td>", out);
}

static void row(FILE *out, const struct tdoc_function *f, double max)
{
	fputs("<tr><td class=\"num\">", out);
	if (isfinite(f->share))
		fprintf(out, "%.1f %%", f->share);
	fputs("</td>", out);
	bar(out, f, max);
	for (size_t k = 0; k < 4; k++)
		pct_cell(out, f->level1[k]);
	fputs("<td class=\"where\"><b>", out);
	if (f->kernel)
		fputs("[k] ", out);
	html_esc(out, f->name);
	fputs("</b>", out);
	if (f->dominant) {
		fputs("<br>", out);
		html_esc(out, model_node_label(f->dominant));
		if (f->dominant_node) {
			fputs(" &gt; ", out);
			html_esc(out, model_node_label(f->dominant_node));
		}
	} else if (f->why) {
		fputs("<br><span class=\"muted\">not measurable: ", out);
		html_esc(out, f->why);
		fputs("</span>", out);
	}
	if (f->file && f->line) {
		fputs("<br><span class=\"muted\">at</span> ", out);
		html_esc(out, f->file);
		fprintf(out, ":%llu", (unsigned long long)f->line);
		if (isfinite(f->line_share))
			fprintf(out, " <span class=\"muted\">(%.0f %%)</span>", f->line_share);
	}
	fputs("</td></tr>\n", out);
}

/* One copy of the grid, in the order of key k; its headings are the labels that choose the others. */
static void grid(FILE *out, const struct tdoc *d, enum sort_key k, size_t *idx, double max)
{
	struct order o = { k, d->functions };

	for (size_t i = 0; i < d->nr_functions; i++)
		idx[i] = i;
	qsort_r(idx, d->nr_functions, sizeof(*idx), cmp, &o);
	fprintf(out, "<table class=\"funcs by-%s\"><thead><tr>", key_id[k]);
	for (size_t c = 0; c < NR_KEYS; c++) {
		if (c == BY_RET)
			fputs("<th>level 1 <span class=\"muted\">(share of the largest)</span></th>", out);
		fprintf(out, "<th class=\"%s\"><label for=\"fs-%s\">%s%s</label></th>", c == BY_NAME ? "" : "num",
			key_id[c], key_title[c], c == k ? " &#9660;" : "");
	}
	fputs("</tr></thead><tbody>\n", out);
	for (size_t i = 0; i < d->nr_functions; i++)
		row(out, &d->functions[idx[i]], max);
	fputs("</tbody></table>\n", out);
}

void html_functions(FILE *out, const struct tdoc *d)
{
	double max = 0;
	size_t *idx;

	if (!d->nr_functions || !(idx = tdp_calloc(d->nr_functions, sizeof(*idx))))
		return;
	for (size_t i = 0; i < d->nr_functions; i++)
		if (isfinite(d->functions[i].share) && d->functions[i].share > max)
			max = d->functions[i].share;
	fputs("<section id=\"functions\"><h2>Functions <span class=\"muted\">(each in percent of its own slots; "
	      "share of ", out);
	html_esc(out, d->functions_leader ? d->functions_leader : "cycles");
	fputs(")</span></h2>\n<div class=\"fgrid\">", out);
	for (size_t k = 0; k < NR_KEYS; k++)
		fprintf(out, "<input type=\"radio\" name=\"fsort\" id=\"fs-%s\"%s>", key_id[k], k == BY_SHARE ? " checked" : "");
	fputs("<p class=\"muted\">Click a column's heading to sort by it.</p>\n", out);
	for (size_t k = 0; k < NR_KEYS; k++)
		grid(out, d, (enum sort_key)k, idx, max);
	fputs("</div>", out);
	if (isfinite(d->functions_other) && d->functions_other > 0)
		fprintf(out, "<p class=\"muted\">%.1f %% in the other functions.</p>", d->functions_other);
	fputs("</section>\n", out);
	tdp_free(idx);
}
