/* html-sites.c: ranked sites with source and disassembly, findings, edges (see html.h). */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "base/str.h"
#include "base/strbuf.h"
#include "report/html-internal.h"

#define MAX_COLUMNS 6 /* count columns of the sites table */

void html_num(FILE *out, double v)
{
	char buf[64];

	/* for people: digits grouped, a fixed number of decimals, never an exponent */
	if (!isfinite(v))
		fputs("&ndash;", out);
	else if ((v == floor(v) && fabs(v) < 1e15) || fabs(v) >= 100)
		fputs(str_grouped_double(v, 0, buf, sizeof(buf)), out);
	else if (v != 0 && fabs(v) < 0.005)
		fputs(v > 0 ? "&lt; 0.01" : "&gt; -0.01", out);
	else
		fputs(str_grouped_double(v, 2, buf, sizeof(buf)), out);
}

/*
 * A column that is a share or a rate: the length of its label for people ("share"
 * of "share_pct") and the factor to percent; 0 when it is a count.
 */
static size_t percent_column(const struct tdoc *d, const char *name, double *factor)
{
	size_t n = strlen(name);

	if (n > 4 && !strcmp(name + n - 4, "_pct")) {
		*factor = 1;
		return n - 4;
	}
	if (!strcmp(name, "rate") || !strcmp(name, "share")) {
		/* branch reports give them as fractions (0-1), why documents in percent */
		*factor = d->kind == TDOC_BRANCHES ? 100 : 1;
		return n;
	}
	return 0;
}

/* A count's column head for people: "share_pct" -> "share (%)", "l1d_misses" -> "L1d misses". */
static void column_head(FILE *out, const struct tdoc *d, const char *name)
{
	static const char *const prefixes[][2] = { { "l1d_", "L1d " }, { "l1i_", "L1i " }, { "ll_i_", "LL i-" },
						   { "ll_", "LL " } };
	double f;
	size_t n = percent_column(d, name, &f);

	if (n) {
		fprintf(out, "%.*s (%%)", (int)n, name);
		return;
	}
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t k = strlen(prefixes[i][0]);

		if (!strncmp(name, prefixes[i][0], k)) {
			fputs(prefixes[i][1], out);
			name += k;
			break;
		}
	}
	for (const char *p = name; *p; p++)
		fputc(*p == '_' ? ' ' : *p, out);
}

/* One count cell: percent columns with "%", counts grouped. */
static void count_cell(FILE *out, const struct tdoc *d, const char *name, double v)
{
	double f;

	if (percent_column(d, name, &f) && isfinite(v)) {
		char buf[64];

		fprintf(out, "%s %%", str_grouped_double(v * f, v * f != 0 && fabs(v * f) < 0.1 ? 2 : 1, buf,
							 sizeof(buf)));
		return;
	}
	html_num(out, v);
}

static void site_name(FILE *out, const struct tdoc_site *s)
{
	struct strbuf sb = STRBUF_INIT;

	diff_site_name(s, &sb);
	html_esc(out, sb.buf);
	strbuf_release(&sb);
}

/* True when some listed site has a non-zero count called name. */
static bool column_useful(const struct tdoc *d, size_t max_sites, const char *name)
{
	for (size_t i = 0; i < d->nr_sites && i < max_sites; i++) {
		double v = tdoc_site_count(&d->sites[i], name);

		if (isfinite(v) && v != 0)
			return true;
	}
	return false;
}

static bool add_column(const char **cols, size_t *n, const char *name)
{
	for (size_t j = 0; j < *n; j++)
		if (!strcmp(cols[j], name))
			return false;
	if (*n >= MAX_COLUMNS)
		return false;
	cols[(*n)++] = name;
	return true;
}

/*
 * The count columns: the figures that say most about a site first (executions,
 * mispredicts, rate, share, misses), then the others the sites have, in the
 * document's order; a column that is 0 for every listed site is left out.
 */
static size_t columns(const struct tdoc *d, size_t max_sites, const char **cols)
{
	static const char *const first[] = { "executions", "branches", "mispredicts", "rate", "share", "share_pct",
					     "l1d_misses", "ll_misses", "l1i_misses", "instructions" };
	size_t n = 0;

	for (size_t k = 0; k < sizeof(first) / sizeof(first[0]); k++)
		if (column_useful(d, max_sites, first[k]))
			add_column(cols, &n, first[k]);
	for (size_t i = 0; i < d->nr_sites && i < max_sites; i++)
		for (size_t k = 0; k < d->sites[i].nr_counts; k++)
			if (column_useful(d, max_sites, d->sites[i].counts[k].name))
				add_column(cols, &n, d->sites[i].counts[k].name);
	return n;
}

void html_site_detail(FILE *out, const struct tdoc_site *s)
{
	if (!s->nr_source && !s->nr_disasm)
		return;
	fputs("<div class=\"detail\">", out);
	if (s->nr_source) {
		fputs("<pre class=\"source\">", out);
		for (size_t i = 0; i < s->nr_source; i++) {
			const struct tdoc_src *l = &s->source[i];
			bool hot = l->line == s->line;

			fprintf(out, "<span class=\"%s\"%s><span class=\"ln\">%5" PRIu64 "</span> ", hot ? "hot" : "line",
				hot ? " data-site-line=\"1\"" : "", l->line);
			html_esc(out, l->text);
			fputs("</span>\n", out);
		}
		fputs("</pre>", out);
	}
	if (s->nr_disasm) {
		fputs("<pre class=\"disasm\">", out);
		for (size_t i = 0; i < s->nr_disasm; i++) {
			const struct tdoc_asm *a = &s->disasm[i];

			fprintf(out, "<span class=\"%s\">", a->mark ? "hot" : a->in_line ? "in-line" : "line");
			if (a->address)
				fprintf(out, "<span class=\"ln\">%8" PRIx64 "</span> ", a->address);
			html_esc(out, a->text);
			fputs(a->mark ? "   &larr; this site</span>\n" : "</span>\n", out);
		}
		fputs("</pre>", out);
	}
	fputs("</div>\n", out);
}

void html_sites(FILE *out, const struct tdoc *d, size_t max_sites, size_t max_detail)
{
	const char *cols[MAX_COLUMNS];
	size_t nc;
	bool types = false;

	if (!d->nr_sites)
		return;
	nc = columns(d, max_sites, cols);
	for (size_t i = 0; i < d->nr_sites && i < max_sites; i++)
		types |= d->sites[i].type != NULL;
	fprintf(out, "<section id=\"sites\"><h2>Sites, most guilty first</h2>\n<table class=\"sites\"><thead><tr>"
		     "<th>#</th><th>site</th>%s", types ? "<th>type</th>" : "");
	for (size_t k = 0; k < nc; k++) {
		fputs("<th class=\"num\">", out);
		column_head(out, d, cols[k]);
		fputs("</th>", out);
	}
	fputs("</tr></thead><tbody>\n", out);
	for (size_t i = 0; i < d->nr_sites && i < max_sites; i++) {
		const struct tdoc_site *s = &d->sites[i];

		fprintf(out, "<tr class=\"site\" data-rank=\"%zu\"><td>%zu</td><td class=\"where\">", s->rank, s->rank);
		site_name(out, s);
		if (s->has_address && (s->function || s->file))
			fprintf(out, " <span class=\"muted\">0x%" PRIx64 "</span>", s->address);
		fputs("</td>", out);
		if (types) {
			fputs("<td>", out);
			html_esc(out, s->type);
			fputs("</td>", out);
		}
		for (size_t k = 0; k < nc; k++) {
			double v = tdoc_site_count(s, cols[k]);

			fputs("<td class=\"num\">", out);
			count_cell(out, d, cols[k], v);
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
	if (d->nr_sites > max_sites)
		fprintf(out, "<p class=\"muted\">%zu more sites in the JSON document.</p>\n", d->nr_sites - max_sites);
	for (size_t i = 0; i < d->nr_sites && i < max_detail; i++) {
		const struct tdoc_site *s = &d->sites[i];

		if (!s->nr_source && !s->nr_disasm)
			continue;
		fprintf(out, "<h3>#%zu ", s->rank);
		site_name(out, s);
		fputs("</h3>\n", out);
		html_site_detail(out, s);
	}
	fputs("</section>\n", out);
}

void html_findings(FILE *out, const struct tdoc *d)
{
	if (!d->nr_findings)
		return;
	fputs("<section id=\"findings\"><h2>Diagnosis</h2><ol class=\"findings\">\n", out);
	for (size_t i = 0; i < d->nr_findings; i++) {
		const struct tdoc_finding *f = &d->findings[i];

		fputs("<li><p class=\"title\">", out);
		html_esc(out, f->title);
		if (f->category) {
			fputs(" <span class=\"tag\">", out);
			html_esc(out, f->category);
			fputs("</span>", out);
		}
		fputs("</p>", out);
		if (f->site) {
			fputs("<p><b>where:</b> ", out);
			html_esc(out, f->site);
			fputs("</p>", out);
		}
		if (f->evidence) {
			fputs("<p><b>evidence:</b> ", out);
			html_esc(out, f->evidence);
			fputs("</p>", out);
		}
		if (f->fix) {
			fputs("<p><b>fix:</b> ", out);
			html_esc(out, f->fix);
			fputs("</p>", out);
		}
		fputs("</li>\n", out);
	}
	fputs("</ol></section>\n", out);
}

void html_branches(FILE *out, const struct tdoc *d, size_t max)
{
	if (d->nr_summary) {
		fputs("<section id=\"summary\"><h2>Recording</h2><table class=\"kv\"><tbody>\n", out);
		for (size_t i = 0; i < d->nr_summary; i++) {
			fputs("<tr><td>", out);
			html_esc(out, d->summary[i].name);
			fputs("</td><td class=\"num\">", out);
			html_num(out, d->summary[i].value);
			fputs("</td></tr>\n", out);
		}
		fputs("</tbody></table></section>\n", out);
	}
	if (!d->nr_edges)
		return;
	fputs("<section id=\"edges\"><h2>Edges (taken branches), most executed first</h2><table class=\"edges\">"
	      "<thead><tr><th>from</th><th>to</th><th class=\"num\">count</th><th class=\"num\">mispredicts</th>"
	      "</tr></thead><tbody>\n", out);
	for (size_t i = 0; i < d->nr_edges && i < max; i++) {
		const struct tdoc_edge *e = &d->edges[i];

		fputs("<tr><td>", out);
		html_esc(out, e->from_symbol);
		if (e->has_from && e->from_function) /* an unresolved symbol is the address already */
			fprintf(out, " <span class=\"muted\">0x%" PRIx64 "</span>", e->from);
		fputs("</td><td>", out);
		html_esc(out, e->to_symbol);
		if (e->has_to && e->to_function)
			fprintf(out, " <span class=\"muted\">0x%" PRIx64 "</span>", e->to);
		fputs("</td><td class=\"num\">", out);
		html_num(out, e->count);
		fputs("</td><td class=\"num\">", out);
		html_num(out, e->mispredicts);
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table></section>\n", out);
}
