/* diff-text.c: `tdprof diff` for a person (see report/diff.h). */
#include "report/diff.h"

#include <math.h>
#include <string.h>

#include "base/strbuf.h"

#define LABEL_WIDTH 26
#define NAME_WIDTH 40

static void describe(FILE *out, const char *which, const struct tdoc *d)
{
	fprintf(out, "%s: %s (%s", which, d->name, tdoc_kind_name(d->kind));
	if (d->backend)
		fprintf(out, ", %s%s", d->backend, !strcmp(d->backend, "sim") ? ": estimate (simulated)" : "");
	if (d->cpu)
		fprintf(out, ", %s", d->cpu);
	if (d->runs > 1)
		fprintf(out, ", %zu runs", d->runs);
	fputs(")\n", out);
}

static void value(FILE *out, const struct tdoc_node *n)
{
	if (!n || isnan(n->value))
		fprintf(out, "%9s", "-");
	else
		fprintf(out, "%7.1f %%", n->value);
}

static void print_nodes(FILE *out, const struct diff_result *r)
{
	if (!r->nr_nodes)
		return;
	size_t order[2 * TDOC_MAX_NODES];
	int depth[2 * TDOC_MAX_NODES];
	bool cycles = !isnan(r->a->cycles) && !isnan(r->b->cycles);

	diff_node_order(r, order, depth);
	fprintf(out, "\n  %-*s %9s %9s %9s", LABEL_WIDTH, "node", "A", "B", "change");
	if (cycles)
		fprintf(out, " %13s", "cycles change");
	fputc('\n', out);
	for (size_t i = 0; i < r->nr_nodes; i++) {
		const struct diff_node *n = &r->nodes[order[i]];
		char label[64];

		snprintf(label, sizeof(label), "%*s%s", 2 * (depth[i] < 5 ? depth[i] : 5), "", n->label);
		fprintf(out, "  %-*s ", LABEL_WIDTH, label);
		value(out, n->a);
		fputc(' ', out);
		value(out, n->b);
		if (isnan(n->delta)) {
			fputc('\n', out);
			continue;
		}
		fprintf(out, " %+9.1f", n->delta);
		if (cycles && !isnan(n->cycles_delta))
			fprintf(out, " %+13.0f", n->cycles_delta);
		if (!isnan(n->half))
			fprintf(out, " \u00b1%.1f", n->half);
		if (n->flagged)
			fputs(n->rule == DIFF_RULE_INTERVALS ? "  * intervals apart" : "  * beyond the noise floor", out);
		fputc('\n', out);
	}
	if (r->rule == DIFF_RULE_INTERVALS)
		fprintf(out, "  (* the 95 %% intervals of A's %zu runs and B's %zu runs do not overlap)\n", r->a->runs,
			r->b->runs);
	else
		fprintf(out, "  (* |change| above the %.1f-point noise floor; repeat runs with -r N for intervals)\n",
			r->opts.noise_floor);
	if (r->nr_rank) {
		fputs("  moved most:", out);
		for (size_t i = 0; i < r->nr_rank && i < 5; i++) {
			const struct diff_node *n = &r->nodes[r->rank[i]];

			fprintf(out, "%s %s %+.1f", i ? "," : "", n->label, n->delta);
		}
		fputc('\n', out);
	}
}

static void change(FILE *out, double va, double vb, double delta, bool only_a, bool only_b)
{
	struct strbuf w = STRBUF_INIT;

	fprintf(out, " %+12.0f", delta);
	if (only_b)
		fputs("  new in B", out);
	else if (only_a)
		fputs("  gone in B", out);
	else {
		diff_change_words(va, vb, &w);
		if (w.len)
			fprintf(out, "  %s", w.buf);
	}
	strbuf_release(&w);
}

static void print_sites(FILE *out, const struct diff_result *r)
{
	struct strbuf name = STRBUF_INIT;

	if (!r->nr_sites)
		return;
	fprintf(out, "\n  sites by change in %s (matched %zu, only in A %zu, only in B %zu)\n", r->measure,
		r->sites_matched, r->sites_only_a, r->sites_only_b);
	fprintf(out, "  %-*s %12s %12s %12s\n", NAME_WIDTH, "site", "A", "B", "change");
	for (size_t i = 0; i < r->nr_sites_nonzero && i < r->opts.top; i++) {
		const struct diff_site *s = &r->sites[i];

		strbuf_reset(&name);
		diff_site_name(s->b ? s->b : s->a, &name);
		fprintf(out, "  %-*s %12.0f %12.0f", NAME_WIDTH, name.buf, s->va, s->vb);
		change(out, s->va, s->vb, s->delta, !s->b, !s->a);
		if (s->a && s->b && s->how != DIFF_MATCH_LOCATION)
			fprintf(out, "  (by %s)", diff_match_name(s->how));
		fputc('\n', out);
	}
	strbuf_release(&name);
}

static void print_edges(FILE *out, const struct diff_result *r)
{
	if (!r->nr_edges)
		return;
	fprintf(out, "\n  edges by change in %s (matched %zu)\n", r->edge_measure ? r->edge_measure : "count",
		r->edges_matched);
	for (size_t i = 0; i < r->nr_edges_nonzero && i < r->opts.top; i++) {
		const struct diff_edge *e = &r->edges[i];
		const struct tdoc_edge *any = e->b ? e->b : e->a;
		char name[2 * NAME_WIDTH];

		snprintf(name, sizeof(name), "%s -> %s", any->from_symbol ? any->from_symbol : "?",
			 any->to_symbol ? any->to_symbol : "?");
		fprintf(out, "  %-*s %12.0f %12.0f", NAME_WIDTH, name, e->va, e->vb);
		change(out, e->va, e->vb, e->delta, !e->b, !e->a);
		fputc('\n', out);
	}
}

/* Which tables of a large document were summarised by their first rows (diff/doc.h, sites_cut). */
static void print_cut(FILE *out, const struct diff_result *r)
{
	const bool cut[4] = { r->a->sites_cut, r->a->edges_cut, r->b->sites_cut, r->b->edges_cut };
	static const char *const what[4] = { "A's sites", "A's edges", "B's sites", "B's edges" };
	const char *sep = "";

	if (!cut[0] && !cut[1] && !cut[2] && !cut[3])
		return;
	fputs("\n  note: only the first rows of the longest tables were compared (", out);
	for (int i = 0; i < 4; i++)
		if (cut[i]) {
			fprintf(out, "%s%s", sep, what[i]);
			sep = ", ";
		}
	fputs("): the rows past them rank lowest in their documents\n", out);
}

void diff_text_print(FILE *out, const struct diff_result *r)
{
	describe(out, "A", r->a);
	describe(out, "B", r->b);
	print_nodes(out, r);
	print_sites(out, r);
	print_edges(out, r);
	print_cut(out, r);
	fprintf(out, "\nverdict: %s\n", r->verdict.text ? r->verdict.text : "");
}
