/*
 * topdown-csv.c: `tdprof topdown --csv` (or -x SEP): the tree as one row per node,
 * in the tree's order (each node followed by its children), the nodes --nodes
 * shows; a hybrid's two trees one after the other, with a core_type column first.
 *
 *   key,name,level,parent,value,threshold,crossed
 *   frontend_bound,Frontend Bound,1,,32.10,15,true
 *
 * value is in percent of slots (of cycles for a cycle-accounting model), empty when
 * the node cannot be measured here (never 0); threshold empty when it has none;
 * crossed is true when the value is above its threshold (the JSON's "crossed").
 */
#include "report/topdown.h"
#include "base/strbuf.h"
#include "report/csv.h"

#include <math.h>
#include <string.h>

struct csv_walk {
	struct strbuf *sb;
	const struct topdown_report *r;
	const struct metric_tree *t;
	const char *sep;
};

static void row(const struct csv_walk *w, const struct metric_node *n)
{
	struct strbuf *sb = w->sb;

	if (w->r->nr_trees > 1) {
		csv_field(sb, w->t->model->core_type ? w->t->model->core_type : w->t->model->name, w->sep);
		strbuf_adds(sb, w->sep);
	}
	csv_field(sb, n->key, w->sep);
	strbuf_adds(sb, w->sep);
	csv_field(sb, n->label, w->sep);
	strbuf_addf(sb, "%s%d%s", w->sep, n->level, w->sep);
	csv_field(sb, n->parent, w->sep);
	strbuf_adds(sb, w->sep);
	csv_number(sb, n->value, 2);
	strbuf_adds(sb, w->sep);
	if (isfinite(n->threshold))
		strbuf_addf(sb, "%g", n->threshold);
	strbuf_addf(sb, "%s%s\n", w->sep, n->flagged ? "true" : "false");
}

/* The children of parent (NULL: level 1), each followed by its own. */
static void walk(const struct csv_walk *w, const char *parent, int depth)
{
	const struct metric_tree *t = w->t;

	for (size_t i = 0; i < t->nr && depth <= MODEL_MAX_LEVEL; i++) {
		const struct metric_node *n = &t->v[i];

		if ((parent ? !n->parent || strcmp(n->parent, parent) : n->parent != NULL) ||
		    !topdown_node_shown(w->r, t, n))
			continue;
		row(w, n);
		walk(w, n->key, depth + 1);
	}
}

void topdown_csv(struct strbuf *sb, const struct topdown_report *r)
{
	const char *sep = r->csv_sep && *r->csv_sep ? r->csv_sep : ",";
	const char *cols[] = { "key", "name", "level", "parent", "value", "threshold", "crossed" };

	if (r->nr_trees > 1)
		strbuf_addf(sb, "core_type%s", sep);
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		strbuf_addf(sb, "%s%s", i ? sep : "", cols[i]);
	strbuf_addch(sb, '\n');
	for (size_t i = 0; i < r->nr_trees; i++) {
		struct csv_walk w = { sb, r, r->trees[i], sep };

		walk(&w, NULL, 1);
	}
}
