/* diff.c: two documents side by side: the checks, the nodes, the verdict (see diff.h). */
#include "diff/diff.h"

#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "base/treeorder.h"
#include "diff/diff-internal.h"

static bool str_differ(const char *a, const char *b)
{
	if (!a || !b)
		return a != b;
	return strcmp(a, b) != 0;
}

int diff_check(const struct tdoc *a, const struct tdoc *b, struct tdp_err *err)
{
	const char *what = NULL, *va = NULL, *vb = NULL;

	if (a->kind != b->kind) {
		tdp_err_set(err, TDP_EUSAGE, "cannot compare '%s' with '%s': a '%s' document with a '%s' document",
			    a->name, b->name, tdoc_kind_name(a->kind), tdoc_kind_name(b->kind));
		return tdp_err_hint(err, "compare two documents of one command (two 'tdprof topdown --json', two "
				    "'tdprof why --json' or two 'tdprof branches report --json')");
	}
	if (str_differ(a->backend, b->backend)) {
		what = "backends";
		va = a->backend;
		vb = b->backend;
	} else if (str_differ(a->cpu, b->cpu)) {
		what = "models";
		va = a->cpu;
		vb = b->cpu;
	} else if (str_differ(a->model_kind, b->model_kind)) {
		what = "model kinds";
		va = a->model_kind;
		vb = b->model_kind;
	}
	if (!what)
		return 0;
	tdp_err_set(err, TDP_EUSAGE, "cannot compare '%s' with '%s': they come from different %s ('%s' and '%s')",
		    a->name, b->name, what, va ? va : "none", vb ? vb : "none");
	if (!strcmp(what, "backends") && a->kind == TDOC_BRANCHES)
		return tdp_err_hint(err, "record both builds the same way ('tdprof branches record' or 'perf record "
				    "-b') and report each with 'tdprof branches report --json'");
	if (!strcmp(what, "backends"))
		return tdp_err_hint(err, "measure both builds with one backend: 'tdprof %s --backend=%s --json -o "
				    "A.json -- ./app', then the same for B", tdoc_kind_name(a->kind),
				    (va && !strcmp(va, "sim")) || (vb && !strcmp(vb, "sim")) ? "sim" : "pmu");
	return tdp_err_hint(err, "a difference between two CPU models is not a regression: measure both builds "
			    "on one machine, or import both with the same '--cpu MODEL'");
}

/* ---------------------------------------------------------------------------
 * Nodes
 */

static const struct tdoc_node *find_node(const struct tdoc *d, const struct tdoc_node *like)
{
	for (size_t i = 0; i < d->nr_nodes; i++) {
		const struct tdoc_node *n = &d->nodes[i];

		if (!strcmp(n->key, like->key) && !str_differ(n->parent, like->parent))
			return n;
	}
	return NULL;
}

/* Intervals decide only when both sides have them and they are not both points. */
static bool use_intervals(const struct stats_summary *a, const struct stats_summary *b)
{
	return a->n >= 2 && b->n >= 2 && !isnan(a->half) && !isnan(b->half) && (a->half > 0 || b->half > 0);
}

static void compare_node(struct diff_result *r, const struct tdoc_node *a, const struct tdoc_node *b)
{
	struct diff_node *n = &r->nodes[r->nr_nodes++];
	const struct tdoc_node *any = a ? a : b;
	struct stats_diff sd;

	memset(n, 0, sizeof(*n));
	n->key = any->key;
	n->parent = any->parent;
	n->label = any->label;
	n->level = any->level;
	n->a = a;
	n->b = b;
	n->delta = n->half = NAN;
	n->cycles_a = a && !isnan(a->value) ? r->a->cycles * a->value / 100.0 : NAN;
	n->cycles_b = b && !isnan(b->value) ? r->b->cycles * b->value / 100.0 : NAN;
	n->cycles_delta = n->cycles_b - n->cycles_a; /* NAN when either is */
	n->rule = DIFF_RULE_NOISE_FLOOR;
	if (!a || !b || isnan(a->value) || isnan(b->value))
		return;
	n->delta = b->value - a->value;
	if (use_intervals(&a->s, &b->s)) {
		n->rule = DIFF_RULE_INTERVALS;
		stats_diff(&a->s, &b->s, &sd);
		n->half = sd.half;
		n->flagged = stats_disjoint(&a->s, &b->s);
	} else {
		n->flagged = fabs(n->delta) > r->opts.noise_floor;
	}
}

static void compare_nodes(struct diff_result *r)
{
	const struct tdoc *a = r->a, *b = r->b;
	bool all_intervals = true, any = false;

	for (size_t i = 0; i < a->nr_nodes; i++)
		compare_node(r, &a->nodes[i], find_node(b, &a->nodes[i]));
	for (size_t i = 0; i < b->nr_nodes; i++)
		if (!find_node(a, &b->nodes[i]))
			compare_node(r, NULL, &b->nodes[i]);
	for (size_t i = 0; i < r->nr_nodes; i++) {
		if (isnan(r->nodes[i].delta))
			continue;
		any = true;
		all_intervals &= r->nodes[i].rule == DIFF_RULE_INTERVALS;
		r->rank[r->nr_rank++] = i;
	}
	r->rule = any && all_intervals ? DIFF_RULE_INTERVALS : DIFF_RULE_NOISE_FLOOR;
	/* rank by |change| (insertion sort: at most 64 nodes), ties in tree order */
	for (size_t i = 1; i < r->nr_rank; i++) {
		size_t k = r->rank[i], j = i;

		while (j > 0 && fabs(r->nodes[r->rank[j - 1]].delta) < fabs(r->nodes[k].delta)) {
			r->rank[j] = r->rank[j - 1];
			j--;
		}
		r->rank[j] = k;
	}
}

/* The verdict's nodes: the principal change, its child, the largest change. */
static void pick_nodes(struct diff_result *r)
{
	struct diff_verdict *v = &r->verdict;
	const struct diff_node *rose = NULL, *moved = NULL, *by_cycles = NULL;

	for (size_t i = 0; i < r->nr_nodes; i++) {
		const struct diff_node *n = &r->nodes[i];

		if (n->level != 1 || isnan(n->delta))
			continue;
		if (!v->largest || fabs(n->delta) > fabs(v->largest->delta))
			v->largest = n;
		if (!n->flagged)
			continue;
		/* without cycles: a stall that rose is the regression to explain first */
		if (strcmp(n->key, "retiring") && n->delta > 0 && (!rose || n->delta > rose->delta))
			rose = n;
		if (!moved || fabs(n->delta) > fabs(moved->delta))
			moved = n;
		if (!isnan(n->cycles_delta) && (!by_cycles || fabs(n->cycles_delta) > fabs(by_cycles->cycles_delta)))
			by_cycles = n;
	}
	v->by_cycles = by_cycles != NULL;
	v->node = by_cycles ? by_cycles : rose ? rose : moved;
	if (!v->node)
		return;
	for (size_t i = 0; i < r->nr_nodes; i++) {
		const struct diff_node *n = &r->nodes[i];
		double dir = v->node->delta >= 0 ? 1 : -1;

		if (n->level != 2 || !n->parent || strcmp(n->parent, v->node->key) || isnan(n->delta))
			continue;
		if (n->delta * dir > 0 && (!v->child || n->delta * dir > v->child->delta * dir))
			v->child = n;
	}
}

/* True when d's sites measure m (a document without sites measures anything). */
static bool site_measured(const struct tdoc *d, const char *m)
{
	if (!d->nr_sites)
		return true;
	for (size_t s = 0; s < d->nr_sites && s < 8; s++)
		if (!isnan(tdoc_site_count(&d->sites[s], m)))
			return true;
	return false;
}

/*
 * The measure sites are compared by: the bucket's preferred one that both
 * documents measured. A recording without mispredict flags (AMD Zen 3 BRS) has
 * null mispredicts: comparing them with another build's as if they were 0 would
 * invent a change, so the comparison falls back to a measure both have.
 */
const char *diff_site_measure(const struct tdoc *a, const struct tdoc *b, const char *node_key)
{
	static const struct {
		const char *node;
		const char *measures[6];
	} prefs[] = {
		{ "bad_speculation", { "mispredicts", "branch_misses", "executions", NULL } },
		{ "backend_bound", { "ll_misses", "l1d_misses", "misses", NULL } },
		{ "frontend_bound", { "l1i_misses", "ll_i_misses", "misses", NULL } },
		{ "retiring", { "instructions", "executions", NULL } },
	};
	const struct tdoc *d = b->nr_sites ? b : a;

	if (!d->nr_sites)
		return NULL;
	if (d->kind == TDOC_BRANCHES || !node_key)
		node_key = d->kind == TDOC_BRANCHES ? "bad_speculation" : d->verdict.category;
	for (size_t i = 0; node_key && i < sizeof(prefs) / sizeof(prefs[0]); i++) {
		if (strcmp(prefs[i].node, node_key))
			continue;
		for (size_t k = 0; k < 6 && prefs[i].measures[k]; k++)
			if (site_measured(a, prefs[i].measures[k]) && site_measured(b, prefs[i].measures[k]))
				return prefs[i].measures[k];
	}
	if (site_measured(a, "cycles") && site_measured(b, "cycles"))
		return "cycles";
	return d->sites[0].nr_counts ? d->sites[0].counts[0].name : NULL;
}

/*
 * The top site: B's site with the most of the measure (B's first-ranked when none
 * has any); new when A's site with the most of it was another one.
 */
static void pick_top(struct diff_result *r)
{
	const struct diff_site *top_a = NULL, *top_b = NULL, *first_b = NULL;

	for (size_t i = 0; i < r->nr_sites; i++) {
		const struct diff_site *s = &r->sites[i];

		if (s->b && s->b->rank == 1)
			first_b = s;
		if (s->b && s->vb > 0 && (!top_b || s->vb > top_b->vb || (s->vb == top_b->vb && s->b->rank < top_b->b->rank)))
			top_b = s;
		if (s->a && s->va > 0 && (!top_a || s->va > top_a->va || (s->va == top_a->va && s->a->rank < top_a->a->rank)))
			top_a = s;
	}
	r->verdict.top = top_b ? top_b : first_b;
	r->verdict.top_is_new = r->verdict.top && r->verdict.top != top_a;
}

static double summary_value(const struct tdoc *d, const char *name)
{
	for (size_t i = 0; i < d->nr_summary; i++)
		if (!strcmp(d->summary[i].name, name))
			return d->summary[i].value;
	return NAN;
}

int diff_compare(const struct tdoc *a, const struct tdoc *b, const struct diff_opts *o, struct diff_result *out,
		 struct tdp_err *err)
{
	struct diff_verdict *v = &out->verdict;
	const char *key;
	int ret;

	memset(out, 0, sizeof(*out));
	out->a = a;
	out->b = b;
	out->opts = *o;
	out->kind = a->kind;
	v->summary_a = v->summary_b = NAN;
	v->scopes_differ = a->scope && b->scope && strcmp(a->scope, b->scope);
	compare_nodes(out);
	pick_nodes(out);
	key = v->node ? v->node->key : NULL;
	out->measure = diff_site_measure(a, b, key);
	ret = diff_match_sites(out, err);
	/* Sites that all have none of the chosen measure make an empty table: compare
	 * them on the measure of a verdict that has some (B's, A's, then instructions). */
	{
		const char *const others[] = { b->verdict.category, a->verdict.category, "retiring" };

		for (size_t i = 0; !ret && out->nr_sites && !out->nr_sites_nonzero && i < 3; i++) {
			const char *m = others[i] ? diff_site_measure(a, b, others[i]) : NULL;

			if (!m || (out->measure && !strcmp(m, out->measure)))
				continue;
			tdp_free(out->sites);
			out->sites = NULL;
			out->nr_sites = out->nr_sites_nonzero = 0;
			out->sites_matched = out->sites_only_a = out->sites_only_b = 0;
			out->measure = m;
			ret = diff_match_sites(out, err);
		}
	}
	if (!ret)
		ret = diff_match_edges(out, err);
	if (!ret) {
		pick_top(out);
		if (a->kind == TDOC_BRANCHES) {
			v->summary_a = summary_value(a, "mispredicted_entries");
			v->summary_b = summary_value(b, "mispredicted_entries");
		}
		ret = diff_verdict_text(out, err);
	}
	if (ret)
		diff_result_release(out);
	return ret;
}
