/* html.c: the page, its header and verdict, documents and diffs (see html.h). */
#include "report/html.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "report/html-internal.h"
#include "report/render.h"

#ifndef TDPROF_VERSION
#define TDPROF_VERSION "?"
#endif

static const char css[] =
	"body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;margin:0;color:#1b1f24;"
	"background:#fff;line-height:1.45}"
	"header{background:#263238;color:#eceff1;padding:14px 24px}header h1{margin:0 0 6px;font-size:22px}"
	"main{padding:8px 24px 24px;max-width:1400px}h2{font-size:18px;border-bottom:1px solid #cfd8dc;"
	"padding-bottom:3px;margin-top:26px}h3{font-size:15px;margin:16px 0 6px}"
	"dl.meta{display:grid;grid-template-columns:max-content auto;gap:2px 14px;margin:0;font-size:14px}"
	"dl.meta dt{color:#b0bec5}dl.meta dd{margin:0}"
	".estimate{background:#ffb300;color:#000;border-radius:3px;padding:0 5px;font-weight:600}"
	".verdict{font-size:17px;font-weight:600;background:#fff8e1;border-left:5px solid #ffb300;padding:8px 12px}"
	".muted{color:#607d8b}.tag{background:#eceff1;border-radius:3px;padding:0 4px;font-size:12px}"
	"svg.tree{max-width:1100px;display:block;margin:8px 0}svg text.in-bar{fill:#fff;"
	"font-weight:600}svg text.axis{fill:#607d8b;font-size:12px}svg line.tick{stroke:#cfd8dc;"
	"stroke-dasharray:3 3}"
	"table{border-collapse:collapse;margin:8px 0;font-size:14px}th,td{padding:3px 10px;border-bottom:1px solid "
	"#eceff1;text-align:left;vertical-align:top}th{background:#f5f7f8}td.num,th.num{text-align:right;"
	"font-variant-numeric:tabular-nums}tr.l2 td:first-child{padding-left:28px}tr.l3 td:first-child{padding-left:46px}tr.l4 td:first-child{padding-left:64px}tr.l5 td:first-child{padding-left:82px}tr.l6 td:first-child{padding-left:100px}tr.flagged td{font-weight:600}"
	"tr.moved td{background:#fff3e0}"
	"td.where{overflow-wrap:anywhere;min-width:14em;max-width:36em}"
	"section{overflow-x:auto}.detail>*{min-width:0}"
	"pre{background:#263238;color:#eceff1;padding:8px 10px;overflow-x:auto;font-size:13px;margin:4px 0;tab-size:4;"
	"font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace}pre .hot{background:#c62828;color:#fff;"
	"display:inline-block;min-width:100%}pre .in-line{color:#ffcc80}pre .ln{color:#78909c}"
	".pair{display:grid;grid-template-columns:1fr 1fr;gap:24px}.col{min-width:0}"
	".pair svg text.axis{font-size:20px}"
	".detail{display:grid;grid-template-columns:1fr 1fr;gap:12px}.up{color:#c62828}.down{color:#2e7d32}"
	"ol.findings li{margin-bottom:10px}ol.findings p{margin:2px 0}p.title{font-weight:600}"
	/* --by function's grid (html-funcs.c): one copy per sort key, the checked one shown */
	".fgrid>input{position:absolute;opacity:0;width:0;height:0}.fgrid table.funcs{display:none}"
	".fgrid label{cursor:pointer;text-decoration:underline dotted}"
	"#fs-share:checked~table.by-share,#fs-ret:checked~table.by-ret,#fs-bad:checked~table.by-bad,"
	"#fs-fe:checked~table.by-fe,#fs-be:checked~table.by-be,#fs-name:checked~table.by-name{display:table}"
	"footer{color:#607d8b;font-size:12px;padding:12px 24px;border-top:1px solid #eceff1}";

void html_esc(FILE *out, const char *s)
{
	if (!s)
		return;
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			fputc(*s, out);
		}
	}
}

void html_page_start(FILE *out, const char *title, const char *subtitle)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
	      "img-src data:\"><title>", out);
	html_esc(out, title);
	if (subtitle) {
		fputs(": ", out);
		html_esc(out, subtitle);
	}
	fprintf(out, "</title><style>%s</style></head>\n<body>\n<header><h1>", css);
	html_esc(out, title);
	fputs("</h1>\n", out);
}

void html_page_end(FILE *out)
{
	fputs("</main>\n<footer>Made by tdprof " TDPROF_VERSION ". A self-contained page: no script, no network, "
	      "no external font.</footer>\n</body></html>\n", out);
}

static bool simulated(const struct tdoc *d)
{
	return d->backend && !strcmp(d->backend, "sim");
}

/* The header's facts about one document. */
static void meta(FILE *out, const struct tdoc *d, const char *prefix)
{
	fprintf(out, "<dt>%s%s</dt><dd>", prefix, d->source ? "measured" : "document");
	html_esc(out, d->source ? d->source : d->name);
	fprintf(out, "</dd><dt>%sbackend</dt><dd><span class=\"backend\">", prefix);
	html_esc(out, d->backend ? d->backend : "not said");
	fputs("</span>", out);
	if (simulated(d))
		fputs(" <span class=\"estimate\">estimate (simulated)</span>", out);
	fputs("</dd>", out);
	if (d->cpu || d->model_description) {
		fprintf(out, "<dt>%s%s</dt><dd>", prefix, d->model_description ? "model" : "cpu");
		html_esc(out, d->cpu);
		if (d->cpu && d->model_description)
			fputs(" &mdash; ", out);
		html_esc(out, d->model_description);
		if (d->model_kind && !strcmp(d->model_kind, "cycle_accounting"))
			fputs(" (cycle accounting, not top-down)", out);
		fputs("</dd>", out);
	}
	if (d->machine) {
		fprintf(out, "<dt>%smachine</dt><dd>", prefix);
		html_esc(out, d->machine);
		fputs("</dd>", out);
	}
	if (d->runs > 1 || d->runs_requested > 1) {
		fprintf(out, "<dt>%sruns</dt><dd>%zu", prefix, d->runs);
		if (d->runs_requested > d->runs)
			fprintf(out, " of %zu asked", d->runs_requested);
		fputs(": each value is the mean, with its 95 % interval (Student's t)", out);
		if (d->repeat_note) {
			fputs("; ", out);
			html_esc(out, d->repeat_note);
		}
		fputs("</dd>", out);
	}
	fputc('\n', out);
}

static void verdict(FILE *out, const struct tdoc *d)
{
	const struct tdoc_verdict *v = &d->verdict;
	const struct tdoc_node *cat = v->category ? tdoc_find(d, v->category) : NULL;
	const char *unit = d->model_kind && !strcmp(d->model_kind, "cycle_accounting") ? "cycles" : "slots";

	fputs("<section id=\"verdict\"><h2>Verdict</h2><p class=\"verdict\">", out);
	if (v->category) {
		html_esc(out, cat ? cat->label : v->category);
		if (isfinite(v->value))
			fprintf(out, ": %.1f %% of %s", v->value, unit);
		if (cat && isfinite(cat->threshold))
			fprintf(out, ", %s its %g %% threshold", v->over_threshold ? "above" : "below", cat->threshold);
		if (v->node) {
			const struct tdoc_node *c = tdoc_find(d, v->node);

			fputs("; mostly ", out);
			html_esc(out, c ? c->label : v->node);
			if (isfinite(v->node_value))
				fprintf(out, " (%.1f %%)", v->node_value);
		}
		if (simulated(d))
			fputs(" <span class=\"estimate\">estimate (simulated)</span>", out);
	} else if (d->kind == TDOC_BRANCHES && d->nr_sites) {
		const struct tdoc_site *s = &d->sites[0];

		fputs("The top misprediction site is ", out);
		{
			struct strbuf sb = STRBUF_INIT;

			diff_site_name(s, &sb);
			html_esc(out, sb.buf);
			strbuf_release(&sb);
		}
		fputs(": ", out);
		html_num(out, tdoc_site_count(s, "mispredicts"));
		fputs(" mispredicts of ", out);
		html_num(out, tdoc_site_count(s, "executions"));
		fputs(" executions", out);
	} else {
		fputs("No verdict: nothing was measured.", out);
	}
	fputs("</p>\n", out);
	if (v->next_step) {
		fputs("<p><b>Next step:</b> ", out);
		html_esc(out, v->next_step);
		fputs("</p>\n", out);
	}
	if (v->advice) {
		fputs("<p class=\"advice\">", out);
		html_esc(out, v->advice);
		fputs("</p>\n", out);
	}
	fputs("</section>\n", out);
}

static void notes(FILE *out, const struct tdoc *d)
{
	if (!d->nr_notes)
		return;
	fputs("<section id=\"notes\"><h2>Notes</h2><ul>\n", out);
	for (size_t i = 0; i < d->nr_notes; i++) {
		fputs("<li>", out);
		html_esc(out, d->notes[i]);
		fputs("</li>\n", out);
	}
	fputs("</ul></section>\n", out);
}

static size_t opt_or(size_t v, size_t dflt)
{
	return v ? v : dflt;
}

static int finish(FILE *out, struct tdp_err *err)
{
	if (fflush(out) || ferror(out))
		return tdp_err_set(err, TDP_EIO, "cannot write the HTML report: %s", strerror(errno ? errno : EIO));
	return 0;
}

int html_print_doc(FILE *out, const struct tdoc *d, const struct html_opts *o, struct tdp_err *err)
{
	char title[64];

	snprintf(title, sizeof(title), "tdprof %s", tdoc_kind_name(d->kind));
	html_page_start(out, title, d->source);
	fputs("<dl class=\"meta\">", out);
	meta(out, d, "");
	fputs("</dl></header>\n<main>\n", out);
	verdict(out, d);
	if (d->nr_nodes) {
		fputs("<section id=\"tree-section\"><h2>Top-down tree", out);
		fprintf(out, " <span class=\"muted\">(percent of %s)</span></h2>\n",
			d->model_kind && !strcmp(d->model_kind, "cycle_accounting") ? "cycles" : "pipeline slots");
		html_tree(out, d, "tree", 15);
		html_node_table(out, d);
		fputs("</section>\n", out);
	}
	html_metrics(out, d);
	html_functions(out, d);
	html_findings(out, d);
	html_sites(out, d, opt_or(o->max_sites, HTML_SITES_DEFAULT), opt_or(o->max_detail, HTML_DETAIL_DEFAULT));
	html_line_branches(out, d);
	if (d->kind == TDOC_BRANCHES)
		html_branches(out, d, opt_or(o->max_sites, HTML_SITES_DEFAULT));
	notes(out, d);
	html_page_end(out);
	return finish(out, err);
}

/* ---------------------------------------------------------------------------
 * Diff
 */

static void change_cell(FILE *out, double delta, double half)
{
	if (!isfinite(delta)) {
		fputs("<td class=\"num\">&ndash;</td>", out);
		return;
	}
	/* the colour follows the figure as printed: +0.0 is no rise */
	fprintf(out, "<td class=\"num %s\">%+.1f", delta >= 0.05 ? "up" : delta <= -0.05 ? "down" : "", delta);
	if (isfinite(half))
		fprintf(out, " &plusmn;%.1f", half);
	fputs("</td>", out);
}

static void value_cell(FILE *out, const struct tdoc_node *n)
{
	if (!n || !isfinite(n->value))
		fputs("<td class=\"num\">&ndash;</td>", out);
	else if (n->s.n >= 2 && isfinite(n->s.half))
		fprintf(out, "<td class=\"num\">%.1f %% &plusmn;%.1f</td>", n->value, n->s.half);
	else
		fprintf(out, "<td class=\"num\">%.1f %%</td>", n->value);
}

static void diff_nodes(FILE *out, const struct diff_result *r)
{
	if (!r->nr_nodes)
		return;
	fputs("<section id=\"changes\"><h2>Changes, node by node</h2>\n<table class=\"changes\"><thead><tr><th>node"
	      "</th><th class=\"num\">A</th><th class=\"num\">B</th><th class=\"num\">change (points)</th><th>"
	      "</th></tr></thead><tbody>\n", out);
	size_t order[2 * TDOC_MAX_NODES];

	diff_node_order(r, order, NULL);
	for (size_t i = 0; i < r->nr_nodes; i++) {
		const struct diff_node *n = &r->nodes[order[i]];

		fprintf(out, "<tr class=\"l%d%s\" data-key=\"", n->level, n->flagged ? " moved" : "");
		html_esc(out, n->key);
		fputs("\"><td>", out);
		html_esc(out, n->label);
		fputs("</td>", out);
		value_cell(out, n->a);
		value_cell(out, n->b);
		change_cell(out, n->delta, n->half);
		fprintf(out, "<td>%s</td></tr>\n",
			!n->flagged ? "" : n->rule == DIFF_RULE_INTERVALS ? "moved: the intervals do not overlap"
									 : "moved: beyond the noise floor");
	}
	fputs("</tbody></table>\n", out);
	if (r->rule == DIFF_RULE_INTERVALS)
		fprintf(out, "<p class=\"muted\">A change is flagged when the 95 %% intervals of A (%zu runs) and B (%zu "
			     "runs) do not overlap; &plusmn; is the 95 %% interval of the change (Welch).</p>\n",
			r->a->runs, r->b->runs);
	else
		fprintf(out, "<p class=\"muted\">Single runs: a change is flagged when it exceeds the noise floor of "
			     "%.1f points. Repeat runs with -r N for confidence intervals.</p>\n", r->opts.noise_floor);
	if (r->nr_rank) {
		fputs("<h3>Moved most</h3><ol class=\"moved\">", out);
		for (size_t i = 0; i < r->nr_rank && i < 6; i++) {
			const struct diff_node *n = &r->nodes[r->rank[i]];

			fputs("<li>", out);
			html_esc(out, n->label);
			fprintf(out, " %+.1f points%s</li>", n->delta, n->flagged ? " (beyond the noise)" : "");
		}
		fputs("</ol>\n", out);
	}
	fputs("</section>\n", out);
}

static void diff_sites(FILE *out, const struct diff_result *r, size_t max, size_t detail)
{
	struct strbuf sb = STRBUF_INIT;
	size_t shown = 0;

	if (!r->nr_sites)
		return;
	fputs("<section id=\"site-changes\"><h2>Sites that gained or lost the most ", out);
	html_esc(out, r->measure);
	fprintf(out, "</h2><p class=\"muted\">%zu matched (by source line, else function and offset, else address), "
		     "%zu only in A, %zu only in B.</p>\n<table class=\"sites\"><thead><tr><th>site</th><th>matched by"
		     "</th><th class=\"num\">A</th><th class=\"num\">B</th><th class=\"num\">change</th></tr></thead>"
		     "<tbody>\n", r->sites_matched, r->sites_only_a, r->sites_only_b);
	for (size_t i = 0; i < r->nr_sites_nonzero && i < max; i++) {
		const struct diff_site *s = &r->sites[i];

		strbuf_reset(&sb);
		diff_site_name(s->b ? s->b : s->a, &sb);
		fputs("<tr class=\"site\"><td class=\"where\">", out);
		html_esc(out, sb.buf);
		fputs("</td><td>", out);
		html_esc(out, s->how == DIFF_ONLY_A ? "gone in B" : s->how == DIFF_ONLY_B ? "new in B"
											    : diff_match_name(s->how));
		fputs("</td><td class=\"num\">", out);
		html_num(out, s->va);
		fputs("</td><td class=\"num\">", out);
		html_num(out, s->vb);
		fprintf(out, "</td><td class=\"num %s\">%+.0f", s->delta >= 0.5 ? "up" : s->delta <= -0.5 ? "down" : "",
			s->delta);
		if (s->a && s->b) {
			struct strbuf w = STRBUF_INIT;

			diff_change_words(s->va, s->vb, &w);
			if (w.len)
				fprintf(out, " (%s)", w.buf);
			strbuf_release(&w);
		}
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
	for (size_t i = 0; i < r->nr_sites_nonzero && shown < detail; i++) {
		const struct diff_site *s = &r->sites[i];
		bool a = s->a && (s->a->nr_source || s->a->nr_disasm), b = s->b && (s->b->nr_source || s->b->nr_disasm);

		if (!a && !b)
			continue;
		shown++;
		strbuf_reset(&sb);
		diff_site_name(s->b ? s->b : s->a, &sb);
		fputs("<h3>", out);
		html_esc(out, sb.buf);
		fputs("</h3><div class=\"pair\"><div class=\"col\"><p class=\"muted\">A</p>", out);
		if (a)
			html_site_detail(out, s->a);
		fputs("</div><div class=\"col\"><p class=\"muted\">B</p>", out);
		if (b)
			html_site_detail(out, s->b);
		fputs("</div></div>\n", out);
	}
	fputs("</section>\n", out);
	strbuf_release(&sb);
}

static void diff_edges(FILE *out, const struct diff_result *r, size_t max)
{
	if (!r->nr_edges)
		return;
	fprintf(out, "<section id=\"edge-changes\"><h2>Edges that gained or lost the most</h2><p class=\"muted\">%zu "
		     "matched by their ends' functions and offsets.</p><table class=\"edges\"><thead><tr><th>from</th>"
		     "<th>to</th><th class=\"num\">A</th><th class=\"num\">B</th><th class=\"num\">change</th></tr>"
		     "</thead><tbody>\n", r->edges_matched);
	for (size_t i = 0; i < r->nr_edges_nonzero && i < max; i++) {
		const struct diff_edge *e = &r->edges[i];
		const struct tdoc_edge *any = e->b ? e->b : e->a;

		fputs("<tr><td>", out);
		html_esc(out, any->from_symbol);
		fputs("</td><td>", out);
		html_esc(out, any->to_symbol);
		fputs("</td><td class=\"num\">", out);
		html_num(out, e->va);
		fputs("</td><td class=\"num\">", out);
		html_num(out, e->vb);
		fprintf(out, "</td><td class=\"num\">%+.0f</td></tr>\n", e->delta);
	}
	fputs("</tbody></table></section>\n", out);
}

int html_print_diff(FILE *out, const struct diff_result *r, const struct html_opts *o, struct tdp_err *err)
{
	size_t max = opt_or(o->max_sites, HTML_SITES_DEFAULT);

	html_page_start(out, "tdprof diff", tdoc_kind_name(r->kind));
	fputs("<dl class=\"meta\">", out);
	meta(out, r->a, "A: ");
	meta(out, r->b, "B: ");
	fputs("</dl></header>\n<main>\n<section id=\"verdict\"><h2>Verdict</h2><p class=\"verdict\" "
	      "id=\"diff-verdict\">", out);
	html_esc(out, r->verdict.text);
	fputs("</p></section>\n", out);
	if (r->a->nr_nodes || r->b->nr_nodes) {
		fputs("<section id=\"trees\"><h2>A and B side by side</h2><div class=\"pair\"><div class=\"col\"><h3>A: ",
		      out);
		html_esc(out, r->a->name);
		fputs("</h3>", out);
		html_tree(out, r->a, "tree-a", 25);
		fputs("</div><div class=\"col\"><h3>B: ", out);
		html_esc(out, r->b->name);
		fputs("</h3>", out);
		html_tree(out, r->b, "tree-b", 25);
		fputs("</div></div></section>\n", out);
	}
	diff_nodes(out, r);
	diff_sites(out, r, max, opt_or(o->max_detail, HTML_DETAIL_DEFAULT));
	diff_edges(out, r, max);
	html_page_end(out);
	return finish(out, err);
}

/* ---------------------------------------------------------------------------
 * From a JSON renderer
 */

int html_print_json_text(FILE *out, const char *json, size_t len, const char *name, const struct html_opts *o,
			 struct tdp_err *err)
{
	struct tdoc *d = NULL;
	int ret = tdoc_parse((const uint8_t *)json, len, name, &d, err);

	if (!ret)
		ret = tdoc_attach_sources(d, opt_or(o->max_detail, HTML_DETAIL_DEFAULT), HTML_SOURCE_CONTEXT,
					  o->source_dirs, o->nr_source_dirs, err);
	if (!ret)
		ret = html_print_doc(out, d, o, err);
	tdoc_free(d);
	return ret;
}

int html_print_json(FILE *out, html_json_fn *fn, const void *arg, const char *name, const struct html_opts *o,
		    struct tdp_err *err)
{
	struct strbuf json = STRBUF_INIT;
	int ret = render_capture(&json, fn, arg, err);

	if (!ret)
		ret = html_print_json_text(out, json.buf, json.len, name, o, err);
	strbuf_release(&json);
	return ret;
}
