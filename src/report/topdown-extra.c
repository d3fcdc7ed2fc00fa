/*
 * topdown-extra.c: what `tdprof topdown` shows beside the tree (see topdown.h):
 * the --nodes selection, Arm's stage-2 metrics for the dominant level-1 node,
 * Intel's Bottlenecks view with its own ranking, the Info metrics (--info), and
 * the nested JSON tree. The values all come computed in the metric tree
 * (model_eval() fills metric_tree.metrics[]).
 */
#include "report/topdown.h"

#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/drilldown.h"
#include "report/json-util.h"

/* name == key, ignoring case and with ' ', '-' and '_' alike */
static bool name_eq(const char *a, size_t alen, const char *b)
{
	size_t i;

	if (!b)
		return false;
	for (i = 0; i < alen && b[i]; i++) {
		int x = tolower((unsigned char)a[i]), y = tolower((unsigned char)b[i]);

		if (x == ' ' || x == '-')
			x = '_';
		if (y == ' ' || y == '-')
			y = '_';
		if (x != y)
			return false;
	}
	return i == alen && !b[i];
}

/* a wildcard pattern (toplev's: "Mem*", "*_Bound") against key, lowercased, ' ' and '-' as '_' */
static bool name_match(const char *pat, size_t len, const char *key)
{
	char p[96], k[96];
	size_t i;

	if (!key || len >= sizeof(p))
		return false;
	for (i = 0; i < len; i++)
		p[i] = pat[i] == ' ' || pat[i] == '-' ? '_' : (char)tolower((unsigned char)pat[i]);
	p[len] = '\0';
	for (i = 0; key[i] && i + 1 < sizeof(k); i++)
		k[i] = key[i] == ' ' || key[i] == '-' ? '_' : (char)tolower((unsigned char)key[i]);
	k[i] = '\0';
	return fnmatch(p, k, 0) == 0;
}

static bool node_is(const struct metric_node *n, const char *name, size_t len)
{
	if (memchr(name, '*', len) || memchr(name, '?', len))
		return name_match(name, len, n->key) || name_match(name, len, n->label);
	if (name_eq(name, len, n->key) || name_eq(name, len, n->label))
		return true;
	return n->vendor && !strncmp(n->vendor, "tma_", 4) && name_eq(name, len, n->vendor + 4);
}

/* Is a (or one of its ancestors) the node called name? */
static bool under(const struct metric_tree *t, const struct metric_node *a, const char *name, size_t len)
{
	for (int depth = 0; a && depth <= MODEL_MAX_LEVEL; depth++) {
		if (node_is(a, name, len))
			return true;
		a = a->parent ? metric_tree_find(t, a->parent) : NULL;
	}
	return false;
}

/* Is n an ancestor of the node called name? */
static bool above(const struct metric_tree *t, const struct metric_node *n, const char *name, size_t len)
{
	for (size_t i = 0; i < t->nr; i++)
		if (&t->v[i] != n && node_is(&t->v[i], name, len) && under(t, &t->v[i], n->key, strlen(n->key)))
			return true;
	return false;
}

bool topdown_node_shown(const struct topdown_report *r, const struct metric_tree *t, const struct metric_node *n)
{
	const char *p = r->nodes;
	bool shown = false, any = false;

	if (!p)
		return true;
	while (*p) {
		size_t len = strcspn(p, ","), nl = len;
		const char *name = p;
		bool minus = false;

		if (nl && (*name == '+' || *name == '-' || *name == '^')) {
			minus = *name != '+';
			name++;
			nl--;
		}
		if (nl && minus && under(t, n, name, nl))
			return false;
		if (nl && !minus) {
			any = true;
			shown |= under(t, n, name, nl) || above(t, n, name, nl);
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return shown || !any;
}

void topdown_nodes_unknown(const struct topdown_report *r, const struct metric_tree *t, char *buf, size_t size)
{
	const char *p = r->nodes;
	size_t used = 0;

	buf[0] = '\0';
	while (p && *p) {
		size_t len = strcspn(p, ",");
		const char *name = p;
		bool found = false;

		if (len && (*name == '+' || *name == '-' || *name == '^')) {
			name++;
			len--;
		}
		for (size_t i = 0; i < t->nr && !found; i++)
			found = node_is(&t->v[i], name, len);
		if (!found && len && used + len + 2 < size)
			used += (size_t)snprintf(buf + used, size - used, "%s%.*s", used ? ", " : "", (int)len, name);
		p = name + len;
		if (*p == ',')
			p++;
	}
}

static bool has_kind(const struct metric_tree *t, enum model_metric_kind k)
{
	for (size_t i = 0; i < t->nr_metrics; i++)
		if (t->metrics[i].def->kind == k)
			return true;
	return false;
}

/* The groups Arm's methodology explores under the dominant level-1 node, or NULL. */
static const char *stage2_groups(const struct metric_tree *t)
{
	const struct model *m = t->model;

	for (size_t i = 0; i < m->nr_explore && t->verdict.category; i++)
		if (!strcmp(m->explore[i].node, t->verdict.category))
			return m->explore[i].groups;
	return NULL;
}

static bool in_groups(const char *groups, const char *g)
{
	size_t len = g ? strlen(g) : 0;

	for (const char *p = groups; p && *p && len;) {
		size_t n = strcspn(p, ";");

		if (n == len && !strncmp(p, g, len))
			return true;
		p += n + (p[n] == ';');
	}
	return false;
}

static int cmp_value_desc(const void *a, const void *b)
{
	const struct metric_value *x = *(const struct metric_value *const *)a, *y = *(const struct metric_value *const *)b;

	if (isnan(x->value) != isnan(y->value))
		return isnan(x->value) ? 1 : -1;
	return (x->value < y->value) - (x->value > y->value);
}

/* The bottlenecks, largest first (NaN last); returns how many. */
static size_t ranked_bottlenecks(const struct metric_tree *t, const struct metric_value **v)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nr_metrics; i++)
		if (t->metrics[i].def->kind == MODEL_METRIC_BOTTLENECK)
			v[n++] = &t->metrics[i];
	qsort(v, n, sizeof(*v), cmp_value_desc);
	return n;
}

static void text_metric(FILE *out, const struct metric_value *v, int rank)
{
	if (rank > 0)
		fprintf(out, "  %2d. ", rank);
	else
		fputs("  ", out);
	fprintf(out, "%-34s", v->def->key);
	if (isnan(v->value))
		fprintf(out, "    -    not measured: %s\n", v->why);
	else
		fprintf(out, "%10.3f%s%s\n", v->value,
			v->def->unit && !strncmp(v->def->unit, "percent", 7) ? " %" : "",
			v->flagged ? "  <- above its threshold" : "");
}

void topdown_text_extra(FILE *out, const struct topdown_report *r, const struct metric_tree *t)
{
	const struct metric_value *rank[MODEL_MAX_METRICS];
	const char *groups = stage2_groups(t);
	size_t n;
	bool any = false;

	if (r->level >= 2 && groups && has_kind(t, MODEL_METRIC_STAGE2)) {
		fprintf(out, "\nstage 2 (the vendor's methodology) for %s: %s\n", model_node_label(t->verdict.category),
			groups);
		for (size_t i = 0; i < t->nr_metrics; i++)
			if (t->metrics[i].def->kind == MODEL_METRIC_STAGE2 && in_groups(groups, t->metrics[i].def->group))
				text_metric(out, &t->metrics[i], 0);
	}
	n = ranked_bottlenecks(t, rank);
	for (size_t i = 0; i < n; i++)
		any |= !isnan(rank[i]->value);
	if (any) {
		fputs("\nbottlenecks (Intel's view, its own ranking; % of slots):\n", out);
		for (size_t i = 0; i < n; i++)
			text_metric(out, rank[i], (int)i + 1);
	}
	if (r->info && has_kind(t, MODEL_METRIC_INFO)) {
		const char *group = NULL;

		fputs("\ninfo metrics:\n", out);
		for (size_t i = 0; i < t->nr_metrics; i++) {
			const struct metric_value *v = &t->metrics[i];

			if (v->def->kind != MODEL_METRIC_INFO || (isnan(v->value) && !r->verbose))
				continue;
			if (!group || !v->def->group || strcmp(group, v->def->group))
				fprintf(out, " %s\n", (group = v->def->group) ? group : "other");
			text_metric(out, v, 0);
		}
		if (!r->verbose)
			fputs("  (metrics that could not be computed are left out; -v lists them)\n", out);
	}
}

static json_t *metric_object(const struct metric_value *v, int rank, bool *failed)
{
	json_t *o = json_object();

	if (!o) {
		*failed = true;
		return NULL;
	}
	jput(o, "name", json_string(v->def->key), failed);
	if (rank > 0)
		jput(o, "rank", json_integer(rank), failed);
	jput(o, "group", jstr_or_null(v->def->group), failed);
	jput(o, "value", jnum_or_null(v->value), failed);
	jput(o, "unit", jstr_or_null(v->def->unit), failed);
	jput(o, "threshold", jnum_or_null(v->def->threshold), failed);
	jput(o, "flagged", json_boolean(v->flagged), failed);
	jput(o, "why", v->why[0] ? json_string(v->why) : json_null(), failed);
	jput(o, "description", jstr_or_null(v->def->description), failed);
	return o;
}

static json_t *tree_array(const struct topdown_report *r, const struct metric_tree *t, const char *parent,
			  int depth, bool *failed)
{
	json_t *a = json_array();

	if (!a) {
		*failed = true;
		return NULL;
	}
	for (size_t i = 0; i < t->nr && depth <= MODEL_MAX_LEVEL; i++) {
		const struct metric_node *n = &t->v[i];
		const struct model_node_def *d = n->def;
		json_t *o;

		if ((parent ? !n->parent || strcmp(n->parent, parent) : n->parent != NULL) ||
		    !topdown_node_shown(r, t, n))
			continue;
		if (!(o = json_object())) {
			*failed = true;
			break;
		}
		jput(o, "key", json_string(n->key), failed);
		jput(o, "name", json_string(n->label), failed); /* design.md's spelling of label */
		jput(o, "label", json_string(n->label), failed);
		jput(o, "level", json_integer(n->level), failed);
		jput(o, "parent", jstr_or_null(n->parent), failed);
		jput(o, "value", jnum_or_null(n->value), failed);
		jput(o, "threshold", jnum_or_null(n->threshold), failed);
		jput(o, "crossed", json_boolean(n->flagged), failed); /* design.md's spelling of flagged */
		jput(o, "flagged", json_boolean(n->flagged), failed);
		jput(o, "description", jstr_or_null(d ? d->description : NULL), failed);
		jput(o, "hint", jstr_or_null(d ? d->hint : NULL), failed);
		jput(o, "locate_with", jstr_or_null(d ? d->locate_with : NULL), failed);
		jput(o, "metric_groups", jstr_or_null(d ? d->groups : NULL), failed);
		jput(o, "older_formula", n->older ? json_string(n->variant_source) : json_null(), failed);
		jput(o, "why", n->why[0] ? json_string(n->why) : json_null(), failed);
		jput(o, "drill", topdown_drill_node_json(r->drill && r->nr_trees && t == r->trees[0] && i < MODEL_MAX_NODES
								 ? &r->drill->nodes[i] : NULL, failed),
		     failed);
		jput(o, "children", tree_array(r, t, n->key, depth + 1, failed), failed);
		jappend(a, o, failed);
	}
	return a;
}

json_t *topdown_tree_json(const struct topdown_report *r, const struct metric_tree *t, bool *failed)
{
	return tree_array(r, t, NULL, 1, failed);
}

void topdown_json_extra(json_t *o, const struct topdown_report *r, const struct metric_tree *t, bool *failed)
{
	const struct metric_value *rank[MODEL_MAX_METRICS];
	json_t *info = json_array(), *bot = json_array(), *s2 = json_null();
	const char *groups = stage2_groups(t);
	size_t n;

	if (!info || !bot)
		*failed = true;
	jput(o, "tree", tree_array(r, t, NULL, 1, failed), failed);
	for (size_t i = 0; i < t->nr_metrics && r->info; i++)
		if (t->metrics[i].def->kind == MODEL_METRIC_INFO)
			jappend(info, metric_object(&t->metrics[i], 0, failed), failed);
	n = ranked_bottlenecks(t, rank);
	for (size_t i = 0; i < n; i++)
		jappend(bot, metric_object(rank[i], (int)i + 1, failed), failed);
	if (groups && has_kind(t, MODEL_METRIC_STAGE2)) {
		json_t *names = json_array(), *ms = json_array();

		s2 = json_object();
		if (!s2 || !names || !ms)
			*failed = true;
		for (const char *p = groups; *p;) {
			size_t len = strcspn(p, ";");

			jappend(names, json_stringn(p, len), failed);
			p += len + (p[len] == ';');
		}
		for (size_t i = 0; i < t->nr_metrics; i++)
			if (t->metrics[i].def->kind == MODEL_METRIC_STAGE2 && in_groups(groups, t->metrics[i].def->group))
				jappend(ms, metric_object(&t->metrics[i], 0, failed), failed);
		jput(s2, "node", json_string(t->verdict.category), failed);
		jput(s2, "groups", names, failed);
		jput(s2, "metrics", ms, failed);
	}
	jput(o, "info", info, failed);
	jput(o, "bottlenecks", bot, failed);
	jput(o, "stage2", s2 ? s2 : json_null(), failed);
}
