/* topdown-json.c: `tdprof topdown --json` (see topdown.h for the keys). */
#include "report/topdown.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "base/err.h"
#include "model/advice.h"
#include "report/repeat.h"

static const char *const level1_keys[] = { "retiring", "bad_speculation", "frontend_bound", "backend_bound" };

/* A JSON number, or null for NaN (not measurable) and infinities. */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* A count: an integer when it is one (JSON readers keep it exact), else a number. */
static json_t *count_value(double v)
{
	if (isfinite(v) && v == floor(v) && fabs(v) < 9007199254740992.0)
		return json_integer((json_int_t)v);
	return num(v);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static void put(json_t *o, const char *key, json_t *v, bool *failed)
{
	if (!v || json_object_set_new(o, key, v))
		*failed = true;
}

static void append(json_t *a, json_t *v, bool *failed)
{
	if (!v || json_array_append_new(a, v))
		*failed = true;
}

static json_t *model_object(const struct metric_tree *t, bool *failed)
{
	const struct model *m = t->model;
	json_t *o = json_object();

	if (!o) {
		*failed = true;
		return NULL;
	}
	put(o, "name", json_string(m->name), failed);
	put(o, "description", json_string(m->description), failed);
	put(o, "vendor", json_string(model_vendor_name(m->vendor)), failed);
	put(o, "slots", num(t->slots), failed);
	put(o, "core_type", str_or_null(m->core_type), failed);
	put(o, "note", str_or_null(m->note), failed);
	put(o, "sources", json_string(m->sources), failed);
	return o;
}

static json_t *node_object(const struct metric_node *n, bool *failed)
{
	json_t *o = json_object();

	if (!o) {
		*failed = true;
		return NULL;
	}
	put(o, "key", json_string(n->key), failed);
	put(o, "parent", str_or_null(n->parent), failed);
	put(o, "level", json_integer(n->level), failed);
	put(o, "label", json_string(n->label), failed);
	put(o, "extra", json_boolean(n->extra), failed);
	put(o, "value", num(n->value), failed);
	put(o, "threshold", num(n->threshold), failed);
	put(o, "flagged", json_boolean(n->flagged), failed);
	put(o, "vendor_metric", str_or_null(n->vendor), failed);
	put(o, "formula", str_or_null(n->formula), failed);
	put(o, "expr", str_or_null(n->expr), failed);
	put(o, "source", str_or_null(n->source), failed);
	put(o, "group", n->group >= 0 ? json_integer(n->group) : json_null(), failed);
	put(o, "split", json_boolean(n->split), failed);
	put(o, "why", n->why[0] ? json_string(n->why) : json_null(), failed);
	return o;
}

/* The keys that describe one tree (top level, or one entry of core_types). */
static void tree_keys(json_t *o, const struct metric_tree *t, bool *failed)
{
	json_t *l1 = json_object(), *l2 = json_object(), *extra = json_array(), *flagged = json_array();
	json_t *thr = json_object(), *nodes = json_array(), *verdict = json_object(), *cycles = NULL;
	const struct metric_verdict *v = &t->verdict;
	const char *advice;

	if (!l1 || !l2 || !extra || !flagged || !thr || !nodes || !verdict)
		*failed = true;
	put(o, "cpu", json_string(t->model->name), failed);
	put(o, "core_type", str_or_null(t->model->core_type), failed);
	put(o, "model_kind", json_string(model_kind_name(t->kind)), failed);
	put(o, "model", model_object(t, failed), failed);
	for (size_t i = 0; i < 4; i++) {
		const struct metric_node *n = t->kind == MODEL_KIND_SLOTS ? metric_tree_find(t, level1_keys[i]) : NULL;

		put(l1, level1_keys[i], n ? num(n->value) : json_null(), failed);
	}
	if (t->kind == MODEL_KIND_CYCLE_ACCOUNTING && !(cycles = json_object()))
		*failed = true;
	for (size_t i = 0; i < t->nr; i++) {
		const struct metric_node *n = &t->v[i];

		if (n->level == 1 && t->kind == MODEL_KIND_CYCLE_ACCOUNTING) {
			put(cycles, n->key, num(n->value), failed);
		} else if (n->level == 1 && n->extra) {
			put(l1, n->key, num(n->value), failed);
			append(extra, json_string(n->key), failed);
		} else if (n->level == 2) {
			json_t *p = json_object_get(l2, n->parent);

			if (!p) {
				p = json_object();
				put(l2, n->parent, p, failed);
			}
			if (p)
				put(p, n->key, num(n->value), failed);
		}
		if (!isnan(n->threshold))
			put(thr, n->key, json_real(n->threshold), failed);
		if (n->flagged)
			append(flagged, json_string(n->key), failed);
		append(nodes, node_object(n, failed), failed);
	}
	put(o, "level1", l1, failed);
	put(o, "extra", extra, failed);
	if (cycles)
		put(o, "cycle_accounting", cycles, failed);
	put(o, "level1_sum", num(t->level1_sum), failed);
	put(o, "level1_sum_off", json_boolean(t->sum_off), failed);
	put(o, "level2", l2, failed);
	put(o, "thresholds", thr, failed);
	put(o, "flagged", flagged, failed);
	put(verdict, "category", str_or_null(v->category), failed);
	put(verdict, "node", str_or_null(v->node), failed);
	put(verdict, "value", num(v->value), failed);
	put(verdict, "node_value", num(v->node_value), failed);
	put(verdict, "over_threshold", json_boolean(v->over_threshold), failed);
	put(verdict, "next_step", str_or_null(v->next_step), failed);
	advice = v->category ? advice_summary(v->node ? v->node : v->category) : NULL;
	put(verdict, "advice", str_or_null(advice), failed);
	put(o, "verdict", verdict, failed);
	put(o, "nodes", nodes, failed);
}

static json_t *groups_array(const struct countset *cs, bool *multiplexed, bool *failed)
{
	json_t *a = json_array();
	size_t ng = countset_nr_groups(cs);
	bool ungrouped = false;

	*multiplexed = false;
	if (!a) {
		*failed = true;
		return NULL;
	}
	for (size_t i = 0; i < cs->nr; i++)
		ungrouped |= cs->v[i].group < 0;
	for (size_t gi = 0; gi < ng + (ungrouped ? 1 : 0); gi++) {
		int g = gi < ng ? (int)gi : -1;
		json_t *o = json_object(), *ev = json_array(), *counts = json_array();
		double pct = -1;

		if (!o || !ev || !counts)
			*failed = true;
		for (size_t i = 0; i < cs->nr; i++) {
			const struct count *c = &cs->v[i];

			if (c->group != g)
				continue;
			append(ev, json_string(c->name), failed);
			append(counts, c->status == COUNT_OK ? count_value(c->value) : json_null(), failed);
			if (c->status == COUNT_OK && c->running_pct >= 0 && (pct < 0 || c->running_pct < pct))
				pct = c->running_pct;
		}
		if (pct >= 0 && pct < 99.995)
			*multiplexed = true;
		put(o, "group", g >= 0 ? json_integer(g) : json_null(), failed);
		put(o, "events", ev, failed);
		put(o, "counts", counts, failed);
		put(o, "running_pct", pct >= 0 ? json_real(pct) : json_null(), failed);
		append(a, o, failed);
	}
	return a;
}

int topdown_json_print(FILE *out, const struct topdown_report *r, struct tdp_err *err)
{
	json_t *doc = json_object(), *notes = json_array();
	bool failed = !doc || !notes, multiplexed = false;
	int rc = 0;

	put(doc, "backend", json_string(backend_name(r->backend)), &failed);
	put(doc, "source", str_or_null(r->source), &failed);
	put(doc, "level", json_integer(r->level), &failed);
	if (r->nr_trees)
		tree_keys(doc, r->trees[0], &failed);
	if (r->nr_trees > 1) {
		json_t *cores = json_array();

		if (!cores)
			failed = true;
		for (size_t i = 0; i < r->nr_trees; i++) {
			json_t *o = json_object();

			if (!o) {
				failed = true;
				break;
			}
			tree_keys(o, r->trees[i], &failed);
			append(cores, o, &failed);
		}
		put(doc, "core_types", cores, &failed);
	}
	if (r->counts)
		put(doc, "groups", groups_array(r->counts, &multiplexed, &failed), &failed);
	else
		put(doc, "groups", json_array(), &failed);
	put(doc, "multiplexed", json_boolean(multiplexed && !r->no_multiplex), &failed);
	put(doc, "no_multiplex", json_boolean(r->no_multiplex), &failed);
	if (r->repeat && r->nr_trees)
		repeat_json_put(doc, r->repeat, r->trees[0], &failed);
	for (size_t i = 0; i < r->nr_notes; i++)
		append(notes, json_string(r->notes[i]), &failed);
	put(doc, "notes", notes, &failed);
	if (failed)
		rc = tdp_err_oom(err);
	else if (json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) ||
		 fputc('\n', out) == EOF)
		rc = tdp_err_set(err, TDP_EIO, "cannot write the JSON document: %s", "write error");
	json_decref(doc);
	return rc;
}
