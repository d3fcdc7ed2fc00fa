/*
 * html-metrics.c: the named metrics of a topdown page (Intel's Bottlenecks view,
 * the Info metrics, Arm's stage-2 groups) and the per-branch table of why's top
 * line (see html.h). Values are the document's, shown as it gives them.
 */
#include <math.h>
#include <string.h>

#include "report/html-internal.h"

/* How a unit reads after a value: " %" for shares of slots or cycles, else the unit's own word. */
static const char *unit_suffix(const char *unit)
{
	if (!unit)
		return "";
	if (!strcmp(unit, "percent_of_slots") || !strcmp(unit, "percent") || !strcmp(unit, "percent_of_cycles"))
		return " %";
	return NULL;
}

static void value_cell(FILE *out, const struct tdoc_metric *m)
{
	const char *suffix = unit_suffix(m->unit);

	fputs("<td class=\"num\">", out);
	html_num(out, m->value);
	if (suffix && isfinite(m->value))
		fputs(suffix, out);
	fputs("</td>", out);
	if (!suffix) {
		fputs("<td class=\"muted\">", out);
		html_esc(out, m->unit);
		fputs("</td>", out);
	} else
		fputs("<td></td>", out);
}

static void threshold_cell(FILE *out, const struct tdoc_metric *m)
{
	fputs("<td class=\"num\">", out);
	if (isfinite(m->threshold)) {
		fputs("&gt; ", out);
		html_num(out, m->threshold);
	}
	fprintf(out, "</td><td>%s</td>", m->flagged ? "above its threshold" : "");
}

/* One table of metrics; with group, a column that names each metric's group. */
static void metric_table(FILE *out, const struct tdoc_metric *v, size_t n, bool rank, bool group)
{
	fputs("<table class=\"metrics\"><thead><tr>", out);
	if (rank)
		fputs("<th class=\"num\">rank</th>", out);
	if (group)
		fputs("<th>group</th>", out);
	fputs("<th>metric</th><th class=\"num\">value</th><th>unit</th><th class=\"num\">threshold</th><th></th>"
	      "<th>description</th></tr></thead><tbody>\n", out);
	for (size_t i = 0; i < n; i++) {
		const struct tdoc_metric *m = &v[i];

		fprintf(out, "<tr%s data-name=\"", m->flagged ? " class=\"flagged\"" : "");
		html_esc(out, m->name);
		fputs("\">", out);
		if (rank)
			fprintf(out, "<td class=\"num\">%zu</td>", m->rank);
		if (group) {
			fputs("<td>", out);
			html_esc(out, m->group);
			fputs("</td>", out);
		}
		fputs("<td>", out);
		html_esc(out, m->name);
		fputs("</td>", out);
		value_cell(out, m);
		threshold_cell(out, m);
		fputs("<td class=\"muted\">", out);
		html_esc(out, m->description);
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

void html_metrics(FILE *out, const struct tdoc *d)
{
	if (d->nr_bottlenecks) {
		fputs("<section id=\"bottlenecks\"><h2>Bottlenecks <span class=\"muted\">(Intel's view, ranked; "
		      "percent of slots, they overlap the tree)</span></h2>\n", out);
		metric_table(out, d->bottlenecks, d->nr_bottlenecks, true, false);
		fputs("</section>\n", out);
	}
	if (d->nr_stage2) {
		const struct tdoc_node *n = d->stage2_node ? tdoc_find(d, d->stage2_node) : NULL;

		fputs("<section id=\"stage2\"><h2>Stage 2", out);
		if (d->stage2_node) {
			fputs(" <span class=\"muted\">(the metric groups the methodology explores under ", out);
			html_esc(out, n && n->label ? n->label : d->stage2_node);
			fputs(")</span>", out);
		}
		fputs("</h2>\n", out);
		metric_table(out, d->stage2, d->nr_stage2, false, true);
		fputs("</section>\n", out);
	}
	if (d->nr_info) {
		fputs("<section id=\"info\"><h2>Info metrics</h2>\n", out);
		metric_table(out, d->info, d->nr_info, false, true);
		fputs("</section>\n", out);
	}
}

void html_line_branches(FILE *out, const struct tdoc *d)
{
	if (d->nr_line_branches < 2)
		return; /* one branch: the site's own row says it all */
	fprintf(out, "<section id=\"line-branches\"><h2>The top line's %zu branches, each counted</h2>\n"
		     "<table class=\"line-branches\"><thead><tr><th>address</th><th>instruction</th>"
		     "<th class=\"num\">mispredicts</th><th class=\"num\">executions</th><th class=\"num\">rate</th>"
		     "<th></th></tr></thead><tbody>\n", d->nr_line_branches);
	for (size_t i = 0; i < d->nr_line_branches; i++) {
		const struct tdoc_branch *b = &d->line_branches[i];

		fprintf(out, "<tr%s>", b->target ? " class=\"flagged\"" : "");
		if (b->has_address)
			fprintf(out, "<td><code>0x%llx</code></td>", (unsigned long long)b->address);
		else
			fputs("<td></td>", out);
		fputs("<td><code>", out);
		html_esc(out, b->text);
		fputs("</code></td><td class=\"num\">", out);
		html_num(out, b->mispredicts);
		fputs("</td><td class=\"num\">", out);
		html_num(out, b->executions);
		fputs("</td><td class=\"num\">", out);
		/* the two counts of the row side by side, as a rate (the text report's column) */
		if (isfinite(b->mispredicts) && isfinite(b->executions) && b->executions > 0)
			fprintf(out, "%.1f %%", 100.0 * b->mispredicts / b->executions);
		else
			fputs("&ndash;", out);
		fprintf(out, "</td><td>%s</td></tr>\n", b->target ? "the marked branch" : "");
	}
	if (d->nr_sites) {
		/* the line's aggregate, apart: its rate averages the branches above */
		double m = tdoc_site_count(&d->sites[0], "mispredicts"), e = tdoc_site_count(&d->sites[0], "branches");

		fputs("<tr class=\"aggregate\"><td></td><td>the whole line</td><td class=\"num\">", out);
		html_num(out, m);
		fputs("</td><td class=\"num\">", out);
		html_num(out, e);
		fputs("</td><td class=\"num\">", out);
		if (isfinite(m) && isfinite(e) && e > 0)
			fprintf(out, "%.1f %%", 100.0 * m / e);
		else
			fputs("&ndash;", out);
		fputs("</td><td></td></tr>\n", out);
	}
	fputs("</tbody></table></section>\n", out);
}
