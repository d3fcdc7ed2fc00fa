/* topdown-text.c: `tdprof topdown` for a person (see topdown.h). */
#include "report/topdown.h"
#include "base/alloc.h"

#include <math.h>
#include <string.h>

#include "base/strbuf.h"
#include "model/advice.h"
#include "report/explain.h"
#include "report/palette.h"

#define LABEL_WIDTH 26
#define BAR_WIDTH 30

static void bar(FILE *out, double v, const struct palette *pal)
{
	int n;

	if (isnan(v))
		return;
	n = (int)lround(v / 100.0 * BAR_WIDTH);
	if (n < 0)
		n = 0;
	if (n > BAR_WIDTH)
		n = BAR_WIDTH;
	fprintf(out, "  %s", n ? pal_on(pal, PAL_BAR) : "");
	for (int i = 0; i < BAR_WIDTH; i++) {
		if (i == n && n)
			fputs(pal_off(pal), out);
		fputc(i < n ? '#' : '.', out);
	}
	if (n == BAR_WIDTH)
		fputs(pal_off(pal), out);
}

static void print_node(FILE *out, const struct topdown_report *r, const struct metric_node *n, int width)
{
	char label[96];

	snprintf(label, sizeof(label), "%*s%s%s", 2 * (n->level - 1), "", n->label, n->extra ? " (extra)" : "");
	/* a node above its threshold: its label and value in the hot colour */
	fprintf(out, "  %s%-*s", n->flagged && !isnan(n->value) ? pal_on(r->pal, PAL_HOT) : "", width, label);
	if (isnan(n->value)) {
		fprintf(out, "     -    not measured: %s\n", n->why);
		return;
	}
	fprintf(out, "%6.1f %%%s", n->value, n->flagged ? pal_off(r->pal) : "");
	if (r->bars)
		bar(out, n->value, r->pal);
	if (n->flagged)
		fprintf(out, "  %sabove %g %%%s", pal_on(r->pal, PAL_HOT), n->threshold, pal_off(r->pal));
	if (n->vendor && strcmp(n->vendor, n->key) && strncmp(n->vendor, "tma_", 4))
		fprintf(out, "  (%s)", n->vendor);
	if (n->split)
		fputs("  [events from several groups]", out);
	if (n->older)
		fputs("  [older formula]", out);
	fputc('\n', out);
	if (r->verbose && n->expr)
		fprintf(out, "  %*s= %s\n  %*s  source: %s\n", width, "", n->expr, width, "",
			n->older ? n->variant_source : n->source);
	if (r->describe && n->def && n->def->description)
		fprintf(out, "  %*s  %s\n", 2 * n->level, "", n->def->description);
	if (r->describe && n->def && n->def->hint)
		fprintf(out, "  %*s  hint: %s\n", 2 * n->level, "", n->def->hint);
}

/* n and, below level 2 or when some level-2 node was measured, its children in the table's order */
static void print_subtree(FILE *out, const struct topdown_report *r, const struct metric_tree *t,
			  const struct metric_node *n, bool show_l2, int width)
{
	if (topdown_node_shown(r, t, n))
		print_node(out, r, n, width);
	for (size_t j = 0; j < t->nr && (show_l2 || n->level >= 2) && n->level < MODEL_MAX_LEVEL; j++)
		if (t->v[j].parent && !strcmp(t->v[j].parent, n->key))
			print_subtree(out, r, t, &t->v[j], show_l2, width);
}

static void print_verdict(FILE *out, const struct metric_tree *t, const struct palette *pal)
{
	const struct metric_verdict *v = &t->verdict;
	const char *unit = t->kind == MODEL_KIND_SLOTS ? "slots" : "cycles";
	const struct metric_node *cat;
	const char *summary;
	struct strbuf sb = STRBUF_INIT;

	if (!v->category) {
		fputs("verdict: none: no node could be computed\n", out);
		return;
	}
	cat = metric_tree_find(t, v->category);
	fputs(pal_on(pal, PAL_VERDICT), out);
	if (t->kind == MODEL_KIND_CYCLE_ACCOUNTING)
		fprintf(out, "verdict: %s is the larger bucket (%.1f %% of cycles; cycle accounting, not top-down)",
			cat->label, v->value);
	else if (v->over_threshold)
		fprintf(out, "verdict: %s (%.1f %% of %s, above its %g %% threshold)", cat->label, v->value, unit,
			cat->threshold);
	else
		fprintf(out, "verdict: no level-1 node is above its threshold; the largest stall is %s (%.1f %% of %s)",
			cat->label, v->value, unit);
	if (v->node)
		fprintf(out, ", mostly %s (%.1f %%)", model_node_label(v->node), v->node_value);
	fprintf(out, "%s\n", pal_off(pal));
	fprintf(out, "next step: %s\n", v->next_step);
	summary = advice_summary(v->node ? v->node : v->category);
	if (summary) {
		explain_markdown(summary, 2, 78, &sb);
		if (!strbuf_failed(&sb) && sb.len)
			fprintf(out, "%s%s", sb.buf, sb.buf[sb.len - 1] == '\n' ? "" : "\n");
		fprintf(out, "  (more: 'tdprof explain %s')\n", v->node ? v->node : v->category);
	}
	strbuf_release(&sb);
}

static void print_tree(FILE *out, const struct topdown_report *r, const struct metric_tree *t)
{
	const struct model *m = t->model;
	bool show_l2 = false;
	int width = t->max_level > 2 ? LABEL_WIDTH + 12 : LABEL_WIDTH;

	if (m->core_type)
		fprintf(out, "%s: %s (%s)\n", m->core_type, m->name, m->description);
	else
		fprintf(out, "model: %s (%s)\n", m->name, m->description);
	if (m->note)
		fprintf(out, "note: %s\n", m->note);
	if (t->kind == MODEL_KIND_SLOTS && !isnan(t->slots))
		fprintf(out, "\n  %-*s  %% of slots (%g per cycle)\n", width, "", t->slots);
	else if (t->kind == MODEL_KIND_SLOTS)
		fprintf(out, "\n  %-*s  %% of slots\n", width, "");
	else
		fprintf(out, "\n  %-*s  %% of cycles\n", width, "");
	/* level 1 in the table's order, each followed by its children (unless no child was measured) */
	for (size_t i = 0; i < t->nr; i++)
		show_l2 |= t->v[i].level == 2 && !isnan(t->v[i].value);
	for (size_t i = 0; i < t->nr; i++) {
		const struct metric_node *n = &t->v[i];

		if (n->level != 1)
			continue;
		print_subtree(out, r, t, n, show_l2, width);
	}
	fputc('\n', out);
	if (t->kind == MODEL_KIND_SLOTS) {
		if (isnan(t->level1_sum))
			fputs("level-1 sum: not computed (a level-1 node is not measurable)\n", out);
		else if (t->sum_off)
			fprintf(out, "level-1 sum: %.1f %% of slots: off 100 by more than 1 point (the nodes came from "
				"different groups or multiplexing added noise)\n", t->level1_sum);
		else
			fprintf(out, "level-1 sum: %.1f %% of slots\n", t->level1_sum);
	}
}

/* The lowest running percentage of the counts idx[from..to) (COUNT_OK only when ok_only); -1 when none. */
static double min_pct(const struct countset *cs, const size_t *idx, size_t from, size_t to, bool ok_only)
{
	double pct = -1;

	for (size_t k = from; k < to; k++) {
		const struct count *c = &cs->v[idx[k]];

		if ((!ok_only || c->status == COUNT_OK) && c->running_pct >= 0 && (pct < 0 || c->running_pct < pct))
			pct = c->running_pct;
	}
	return pct;
}

/* The groups as the counts came: one line each when there are several. */
static void print_groups(FILE *out, const struct topdown_report *r)
{
	const struct countset *cs = r->counts;
	size_t ng = countset_nr_groups(cs), *start, *idx;
	double lo = 101, hi = -1;

	if (!ng || countset_by_group(cs, &start, &idx))
		return;
	for (size_t g = 0; g < ng; g++) {
		double pct = min_pct(cs, idx, start[g], start[g + 1], true);

		if (pct >= 0) {
			lo = pct < lo ? pct : lo;
			hi = pct > hi ? pct : hi;
		}
	}
	if (r->no_multiplex)
		fprintf(out, "no multiplexing: the workload ran %zu times, one group set per run\n", r->runs);
	else if (hi >= 0 && lo < 99.995)
		fprintf(out, "multiplexing: %zu group%s took turns on the counters; each counted %.1f-%.1f %% of the "
			"time, its counts scaled up (estimates)\n", ng, ng == 1 ? "" : "s", lo, hi);
	else
		fprintf(out, "groups: %zu, each counted all the time (no multiplexing)\n", ng);
	for (size_t g = 0; ng >= 2 && g < ng; g++) {
		double pct = min_pct(cs, idx, start[g], start[g + 1], false);

		if (pct >= 0)
			fprintf(out, "  group %zu (%.2f %%):", g, pct);
		else
			fprintf(out, "  group %zu:", g);
		for (size_t k = start[g]; k < start[g + 1]; k++)
			fprintf(out, "%s %s", k == start[g] ? "" : ",", cs->v[idx[k]].name);
		fputc('\n', out);
	}
	tdp_free(start);
	tdp_free(idx);
}

void topdown_text_print(FILE *out, const struct topdown_report *r)
{
	if (r->source)
		fprintf(out, "counts: %s %s\n", r->backend == BACKEND_IMPORT ? "imported from" : "measured over",
			r->source);
	for (size_t i = 0; i < r->nr_notes; i++)
		fprintf(out, "note: %s\n", r->notes[i]);
	for (size_t i = 0; i < r->nr_trees; i++) {
		if (i || r->source || r->nr_notes)
			fputc('\n', out);
		print_tree(out, r, r->trees[i]);
	}
	for (size_t i = 0; i < r->nr_trees; i++)
		topdown_text_extra(out, r, r->trees[i]);
	topdown_drill_text(out, r);
	topdown_byfunc_text(out, r);
	if (r->counts)
		print_groups(out, r);
	for (size_t i = 0; i < r->nr_trees; i++) {
		fputc('\n', out);
		if (r->nr_trees > 1)
			fprintf(out, "%s: ", r->trees[i]->model->core_type ? r->trees[i]->model->core_type : "core");
		print_verdict(out, r->trees[i], r->pal);
	}
}
