/* topdown-json.c: `tdprof topdown --json` (see topdown.h for the keys). */
#include "report/topdown.h"
#include "base/alloc.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "base/err.h"
#include "model/advice.h"
#include "report/repeat.h"
#include "report/json-util.h"

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

static json_t *model_object(const struct metric_tree *t, bool *failed)
{
	const struct model *m = t->model;
	json_t *o = json_object();

	if (!o) {
		*failed = true;
		return NULL;
	}
	jput(o, "name", json_string(m->name), failed);
	jput(o, "description", json_string(m->description), failed);
	jput(o, "vendor", json_string(model_vendor_name(m->vendor)), failed);
	jput(o, "slots", num(t->slots), failed);
	jput(o, "core_type", jstr_or_null(m->core_type), failed);
	jput(o, "note", jstr_or_null(m->note), failed);
	jput(o, "sources", json_string(m->sources), failed);
	return o;
}

static json_t *node_object(const struct metric_node *n, bool *failed)
{
	json_t *o = json_object();

	if (!o) {
		*failed = true;
		return NULL;
	}
	jput(o, "key", json_string(n->key), failed);
	jput(o, "parent", jstr_or_null(n->parent), failed);
	jput(o, "level", json_integer(n->level), failed);
	jput(o, "label", json_string(n->label), failed);
	jput(o, "extra", json_boolean(n->extra), failed);
	jput(o, "value", num(n->value), failed);
	jput(o, "threshold", num(n->threshold), failed);
	jput(o, "flagged", json_boolean(n->flagged), failed);
	jput(o, "vendor_metric", jstr_or_null(n->vendor), failed);
	jput(o, "formula", jstr_or_null(n->formula), failed);
	jput(o, "expr", jstr_or_null(n->expr), failed);
	jput(o, "source", jstr_or_null(n->source), failed);
	jput(o, "group", n->group >= 0 ? json_integer(n->group) : json_null(), failed);
	jput(o, "split", json_boolean(n->split), failed);
	jput(o, "why", n->why[0] ? json_string(n->why) : json_null(), failed);
	return o;
}

/* The keys that describe one tree (top level, or one entry of core_types). */
static void tree_keys(json_t *o, const struct topdown_report *r, const struct metric_tree *t, bool *failed)
{
	json_t *l1 = json_object(), *l2 = json_object(), *extra = json_array(), *flagged = json_array();
	json_t *thr = json_object(), *nodes = json_array(), *verdict = json_object(), *cycles = NULL;
	const struct metric_verdict *v = &t->verdict;
	const char *advice;

	if (!l1 || !l2 || !extra || !flagged || !thr || !nodes || !verdict)
		*failed = true;
	jput(o, "cpu", json_string(t->model->name), failed);
	jput(o, "core_type", jstr_or_null(t->model->core_type), failed);
	jput(o, "model_kind", json_string(model_kind_name(t->kind)), failed);
	jput(o, "model", model_object(t, failed), failed);
	for (size_t i = 0; i < 4; i++) {
		const struct metric_node *n = t->kind == MODEL_KIND_SLOTS ? metric_tree_find(t, level1_keys[i]) : NULL;

		jput(l1, level1_keys[i], n ? num(n->value) : json_null(), failed);
	}
	if (t->kind == MODEL_KIND_CYCLE_ACCOUNTING && !(cycles = json_object()))
		*failed = true;
	for (size_t i = 0; i < t->nr; i++) {
		const struct metric_node *n = &t->v[i];

		if (n->level == 1 && t->kind == MODEL_KIND_CYCLE_ACCOUNTING) {
			jput(cycles, n->key, num(n->value), failed);
		} else if (n->level == 1 && n->extra) {
			jput(l1, n->key, num(n->value), failed);
			jappend(extra, json_string(n->key), failed);
		} else if (n->level == 2) {
			json_t *p = json_object_get(l2, n->parent);

			if (!p) {
				p = json_object();
				jput(l2, n->parent, p, failed);
			}
			if (p)
				jput(p, n->key, num(n->value), failed);
		}
		if (!isnan(n->threshold))
			jput(thr, n->key, json_real(n->threshold), failed);
		if (n->flagged)
			jappend(flagged, json_string(n->key), failed);
		jappend(nodes, node_object(n, failed), failed);
	}
	jput(o, "level1", l1, failed);
	jput(o, "extra", extra, failed);
	if (cycles)
		jput(o, "cycle_accounting", cycles, failed);
	jput(o, "level1_sum", num(t->level1_sum), failed);
	jput(o, "level1_sum_off", json_boolean(t->sum_off), failed);
	jput(o, "level2", l2, failed);
	jput(o, "thresholds", thr, failed);
	jput(o, "flagged", flagged, failed);
	jput(verdict, "category", jstr_or_null(v->category), failed);
	jput(verdict, "node", jstr_or_null(v->node), failed);
	jput(verdict, "value", num(v->value), failed);
	jput(verdict, "node_value", num(v->node_value), failed);
	jput(verdict, "over_threshold", json_boolean(v->over_threshold), failed);
	jput(verdict, "next_step", jstr_or_null(v->next_step), failed);
	advice = v->category ? advice_summary(v->node ? v->node : v->category) : NULL;
	jput(verdict, "advice", jstr_or_null(advice), failed);
	jput(o, "verdict", verdict, failed);
	jput(o, "nodes", nodes, failed);
	topdown_json_extra(o, r, t, failed);
}

static json_t *groups_array(const struct countset *cs, bool *multiplexed, bool *failed)
{
	json_t *a = json_array();
	size_t ng = countset_nr_groups(cs), *start = NULL, *idx = NULL;
	bool ungrouped;

	*multiplexed = false;
	if (!a || countset_by_group(cs, &start, &idx)) {
		*failed = true;
		json_decref(a);
		return NULL;
	}
	ungrouped = start[ng + 1] > start[ng];
	for (size_t gi = 0; gi < ng + (ungrouped ? 1 : 0); gi++) {
		int g = gi < ng ? (int)gi : -1;
		json_t *o = json_object(), *ev = json_array(), *counts = json_array();
		double pct = -1;

		if (!o || !ev || !counts)
			*failed = true;
		for (size_t k = start[gi]; k < start[gi + 1]; k++) {
			const struct count *c = &cs->v[idx[k]];

			jappend(ev, json_string(c->name), failed);
			jappend(counts, c->status == COUNT_OK ? count_value(c->value) : json_null(), failed);
			if (c->status == COUNT_OK && c->running_pct >= 0 && (pct < 0 || c->running_pct < pct))
				pct = c->running_pct;
		}
		if (pct >= 0 && pct < 99.995)
			*multiplexed = true;
		jput(o, "group", g >= 0 ? json_integer(g) : json_null(), failed);
		jput(o, "events", ev, failed);
		jput(o, "counts", counts, failed);
		jput(o, "running_pct", pct >= 0 ? json_real(pct) : json_null(), failed);
		jappend(a, o, failed);
	}
	tdp_free(start);
	tdp_free(idx);
	return a;
}

int topdown_json_print(FILE *out, const struct topdown_report *r, struct tdp_err *err)
{
	json_t *doc = json_object(), *notes = json_array();
	bool failed = !doc || !notes, multiplexed = false;

	jput(doc, "backend", json_string(backend_name(r->backend)), &failed);
	jput(doc, "source", jstr_or_null(r->source), &failed);
	jput(doc, "level", json_integer(r->level), &failed);
	if (r->nr_trees)
		tree_keys(doc, r, r->trees[0], &failed);
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
			tree_keys(o, r, r->trees[i], &failed);
			jappend(cores, o, &failed);
		}
		jput(doc, "core_types", cores, &failed);
	}
	if (r->counts)
		jput(doc, "groups", groups_array(r->counts, &multiplexed, &failed), &failed);
	else
		jput(doc, "groups", json_array(), &failed);
	jput(doc, "multiplexed", json_boolean(multiplexed && !r->no_multiplex), &failed);
	jput(doc, "no_multiplex", json_boolean(r->no_multiplex), &failed);
	if (r->repeat && r->nr_trees)
		repeat_json_put(doc, r->repeat, r->trees[0], &failed);
	topdown_drill_json(doc, r, &failed);
	topdown_byfunc_json(doc, r, &failed);
	for (size_t i = 0; i < r->nr_notes; i++)
		jappend(notes, json_string(r->notes[i]), &failed);
	jput(doc, "notes", notes, &failed);
	return jfinish(doc, failed, out, 15, err);
}
