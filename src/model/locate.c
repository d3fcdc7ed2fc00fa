/* locate.c: the dominant leaf and its Locate-with event (locate.h). */
#include "model/locate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The child of key in t to follow: the largest flagged one, else the largest measurable one. */
static const struct metric_node *next_child(const struct metric_tree *t, const char *key)
{
	const struct metric_node *best = NULL;

	for (size_t i = 0; i < t->nr; i++) {
		const struct metric_node *n = &t->v[i];

		if (!n->parent || strcmp(n->parent, key) || isnan(n->value))
			continue;
		if (!best || (n->flagged && !best->flagged) || (n->flagged == best->flagged && n->value > best->value))
			best = n;
	}
	return best;
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !strncmp(s + len - n, suffix, n);
}

const struct metric_node *locate_leaf(const struct metric_tree *t)
{
	const struct metric_node *leaf, *c;

	if (!t->verdict.category || !(leaf = metric_tree_find(t, t->verdict.category)))
		return NULL;
	while ((c = next_child(t, leaf->key)))
		leaf = c;
	return leaf;
}

int locate_plan(const struct metric_tree *t, int max_precise, struct locate_plan *out)
{
	const struct metric_node *leaf = locate_leaf(t);

	memset(out, 0, sizeof(*out));
	if (!leaf) {
		snprintf(out->reason, sizeof(out->reason), "no verdict: nothing to locate");
		return -1;
	}
	return locate_plan_node(t, leaf->key, max_precise, out);
}

int locate_plan_node(const struct metric_tree *t, const char *key, int max_precise, struct locate_plan *out)
{
	const struct metric_node *leaf = metric_tree_find(t, key), *n;
	const char *lw = NULL, *semi, *name, *above;
	size_t len;
	int w;

	memset(out, 0, sizeof(*out));
	if (!leaf) {
		snprintf(out->reason, sizeof(out->reason), "the tree has no node %s", key ? key : "(none)");
		return -1;
	}
	out->leaf = leaf->key;
	for (n = leaf; n; n = n->parent ? metric_tree_find(t, n->parent) : NULL)
		if (n->def && n->def->locate_with && n->def->locate_with[0]) {
			lw = n->def->locate_with;
			break;
		}
	if (!lw) {
		snprintf(out->reason, sizeof(out->reason),
			 "the %s model names no event to locate %s or its parents with (no Locate-with in its data)",
			 t->model ? t->model->name : "", leaf->label ? leaf->label : leaf->key);
		return -1;
	}
	out->node = n->key;
	semi = strchr(lw, ';');
	len = semi ? (size_t)(semi - lw) : strlen(lw);
	if (len >= sizeof(out->event))
		len = sizeof(out->event) - 1;
	memcpy(out->event, lw, len);
	out->event[len] = 0;
	if (semi)
		snprintf(out->others, sizeof(out->others), "%s", semi + 1);
	name = n->label ? n->label : n->key;
	above = n == leaf ? "" : " (the nearest node above the leaf with a Locate-with)";
	/* a reason cut short is still a reason: the lengths are checked, not trusted */
	if (ends_with(out->event, len, "_PS")) {
		out->precise = max_precise >= 2;
		w = snprintf(out->spec, sizeof(out->spec), "%.*s%s", (int)(len - 3), out->event,
			     out->precise ? ":pp" : "");
		w |= snprintf(out->reason, sizeof(out->reason), "%s%s: %s is a precise (PEBS) event; %s", name, above,
			      out->event,
			      out->precise ? "sampled with :pp so that each sample names the instruction itself"
					   : "this PMU cannot sample precisely (caps/max_precise below 2): plain "
					     "samples, which land a few instructions after the guilty one");
	} else {
		w = snprintf(out->spec, sizeof(out->spec), "%s", out->event);
		w |= snprintf(out->reason, sizeof(out->reason), "%s%s: sampled on %s, the vendor's Locate-with event",
			      name, above, out->event);
	}
	return w < 0 ? -1 : 0;
}
