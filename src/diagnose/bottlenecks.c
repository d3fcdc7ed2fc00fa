/*
 * bottlenecks.c: the vendor's Bottlenecks view as `why`'s lead (diagnose.h,
 * diag_bottlenecks()).
 *
 * Which tree nodes a cost covers is the vendor's data, not ours: Intel's TMA puts a
 * "Bv.." metric group on each bottleneck row (Mispredictions: BvMP) and on every
 * node that bottleneck's formula draws on (Branch_Mispredicts, Mispredicts_Resteers:
 * BvMP). The lead points at the covered node of largest value, the fix is the
 * knowledge base's for its nearest ancestor with an entry (the KB has the level-1
 * and level-2 nodes), and the code is the drill-down's when it drilled into that
 * node's level-1 bucket.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "diagnose/diagnose-internal.h"
#include "model/advice.h"
#include "model/locate.h"

/* The "Bv.." token of a ';'-separated group list into code (size bytes); false when none. */
static bool bv_code(const char *groups, char *code, size_t size)
{
	for (const char *p = groups; p && *p;) {
		size_t n = strcspn(p, ";");

		if (n > 2 && n < size && !strncmp(p, "Bv", 2)) {
			memcpy(code, p, n);
			code[n] = '\0';
			return true;
		}
		p += n + (p[n] == ';');
	}
	return false;
}

static bool in_groups(const char *groups, const char *code)
{
	size_t len = strlen(code);

	for (const char *p = groups; p && *p;) {
		size_t n = strcspn(p, ";");

		if (n == len && !strncmp(p, code, len))
			return true;
		p += n + (p[n] == ';');
	}
	return false;
}

static const struct metric_node *parent_of(const struct metric_tree *t, const struct metric_node *n)
{
	return n->parent ? metric_tree_find(t, n->parent) : NULL;
}

/* The level-1 ancestor of n (n itself at level 1). */
static const struct metric_node *top_of(const struct metric_tree *t, const struct metric_node *n)
{
	for (int i = 0; n && n->parent && i < MODEL_MAX_LEVEL; i++)
		n = parent_of(t, n);
	return n;
}

/* n or its nearest ancestor that the knowledge base has an entry for; NULL none. */
static const char *kb_node(const struct metric_tree *t, const struct metric_node *n)
{
	for (int i = 0; n && i <= MODEL_MAX_LEVEL; i++, n = parent_of(t, n)) {
		const struct advice_entry *e = advice_find(n->key);

		if (e)
			return e->key;
	}
	return NULL;
}

static int by_value(const void *pa, const void *pb)
{
	const struct diag_bottleneck *a = pa, *b = pb;

	return (a->value < b->value) - (a->value > b->value);
}

/* Fill b's covered node, fix and located code from the tree and the drill-down. */
static int cover(struct diag *d, const struct model_metric_def *def, struct diag_bottleneck *b, struct tdp_err *err)
{
	const struct metric_tree *t = &d->tree;
	const struct metric_node *best = NULL, *first = NULL, *top;
	struct strbuf sb = STRBUF_INIT;
	struct locate_plan lp;
	char code[16];

	b->site = -1;
	b->leaf_value = NAN;
	if (!bv_code(def->groups, code, sizeof(code)))
		return 0;
	for (size_t i = 0; i < t->nr; i++) {
		const struct metric_node *n = &t->v[i];

		if (!n->def || !in_groups(n->def->groups, code))
			continue;
		if (!first)
			first = n;
		if (!isnan(n->value) && (!best || n->value > best->value || (n->value == best->value && n->level > best->level)))
			best = n;
	}
	if (best) {
		b->leaf = best->key;
		b->leaf_label = best->label;
		b->leaf_value = best->value;
		b->hint = best->def ? best->def->hint : NULL;
		if (!locate_plan_node(t, best->key, -1, &lp))
			snprintf(b->locate_with, sizeof(b->locate_with), "%s", lp.event);
		top = top_of(t, best);
		b->branches = top && !strcmp(top->key, "bad_speculation");
		if (d->nr_sites && d->drill != DIAG_DRILL_NONE && top && d->category && !strcmp(top->key, d->category))
			b->site = 0;
	}
	if (!(b->node = kb_node(t, best ? best : first)))
		return 0;
	if (diag_kb_fix(b->node, NULL, &sb)) {
		if (strbuf_failed(&sb) || !(b->fix = tdp_strdup(sb.buf))) {
			strbuf_release(&sb);
			return tdp_err_oom(err);
		}
	}
	strbuf_release(&sb);
	return 0;
}

int diag_bottlenecks(struct diag *d, struct tdp_err *err)
{
	size_t n = 0;
	int ret = 0;

	for (size_t i = 0; i < d->nr_bottlenecks; i++)
		tdp_free(d->bottlenecks[i].fix);
	memset(d->bottlenecks, 0, sizeof(d->bottlenecks));
	d->nr_bottlenecks = 0;
	if (!d->has_tree)
		return 0;
	for (size_t i = 0; i < d->tree.nr_metrics && n < DIAG_MAX_BOTTLENECKS; i++) {
		const struct metric_value *v = &d->tree.metrics[i];

		if (v->def->kind != MODEL_METRIC_BOTTLENECK || isnan(v->value))
			continue;
		d->bottlenecks[n++] = (struct diag_bottleneck){ .name = v->def->key, .description = v->def->description,
								 .value = v->value, .threshold = v->def->threshold,
								 .flagged = v->flagged };
	}
	qsort(d->bottlenecks, n, sizeof(*d->bottlenecks), by_value);
	d->nr_bottlenecks = n;
	for (size_t i = 0; i < n && !ret; i++) {
		const struct model_metric_def *def = NULL;

		for (size_t k = 0; k < d->tree.nr_metrics && !def; k++)
			if (!strcmp(d->tree.metrics[k].def->key, d->bottlenecks[i].name))
				def = d->tree.metrics[k].def;
		ret = cover(d, def, &d->bottlenecks[i], err);
	}
	return ret;
}
