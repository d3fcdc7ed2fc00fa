/* diff-json.c: `tdprof diff --json` (see report/diff.h for the keys). */
#include "report/diff.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "report/json-util.h"

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *doc_object(const struct tdoc *d, bool *failed)
{
	json_t *o = json_object();

	jput(o, "file", json_string(d->name), failed);
	jput(o, "backend", jstr_or_null(d->backend), failed);
	jput(o, "cpu", jstr_or_null(d->cpu), failed);
	jput(o, "model_kind", jstr_or_null(d->model_kind), failed);
	jput(o, "source", jstr_or_null(d->source), failed);
	jput(o, "runs", json_integer((json_int_t)d->runs), failed);
	jput(o, "runs_requested", json_integer((json_int_t)d->runs_requested), failed);
	jput(o, "deterministic", json_boolean(d->deterministic), failed);
	jput(o, "scope", jstr_or_null(d->scope), failed);
	jput(o, "cycles", num(d->cycles), failed);
	return o;
}

static json_t *interval(const struct tdoc_node *n, bool *failed)
{
	json_t *a;

	if (!n || n->s.n < 2 || isnan(n->s.lo))
		return json_null();
	a = json_array();
	jappend(a, json_real(n->s.lo), failed);
	jappend(a, json_real(n->s.hi), failed);
	return a;
}

static json_t *nodes_array(const struct diff_result *r, bool *failed)
{
	json_t *a = json_array();

	for (size_t i = 0; i < r->nr_nodes; i++) {
		const struct diff_node *n = &r->nodes[i];
		json_t *o = json_object();

		jput(o, "key", json_string(n->key), failed);
		jput(o, "parent", jstr_or_null(n->parent), failed);
		jput(o, "level", json_integer(n->level), failed);
		jput(o, "label", json_string(n->label), failed);
		jput(o, "a", n->a ? num(n->a->value) : json_null(), failed);
		jput(o, "b", n->b ? num(n->b->value) : json_null(), failed);
		jput(o, "delta", num(n->delta), failed);
		jput(o, "half", num(n->half), failed);
		jput(o, "a_ci95", interval(n->a, failed), failed);
		jput(o, "b_ci95", interval(n->b, failed), failed);
		jput(o, "rule", json_string(diff_rule_name(n->rule)), failed);
		jput(o, "flagged", json_boolean(n->flagged), failed);
		jput(o, "cycles_a", num(n->cycles_a), failed);
		jput(o, "cycles_b", num(n->cycles_b), failed);
		jput(o, "cycles_delta", num(n->cycles_delta), failed);
		jappend(a, o, failed);
	}
	return a;
}

static json_t *site_side(const struct tdoc_site *s, double v, bool *failed)
{
	json_t *o;

	if (!s)
		return json_null();
	o = json_object();
	jput(o, "rank", json_integer((json_int_t)s->rank), failed);
	jput(o, "address", s->has_address ? jaddr(s->address) : json_null(), failed);
	jput(o, "value", num(v), failed);
	return o;
}

static json_t *sites_array(const struct diff_result *r, bool *failed)
{
	json_t *a = json_array();
	struct strbuf name = STRBUF_INIT;

	for (size_t i = 0; i < r->nr_sites_nonzero && i < r->opts.top; i++) {
		const struct diff_site *s = &r->sites[i];
		const struct tdoc_site *any = s->b ? s->b : s->a;
		json_t *o = json_object();

		strbuf_reset(&name);
		diff_site_name(any, &name);
		if (strbuf_failed(&name))
			*failed = true;
		jput(o, "match", json_string(diff_match_name(s->how)), failed);
		jput(o, "name", json_string(name.buf), failed);
		jput(o, "function", jstr_or_null(any->function), failed);
		jput(o, "file", jstr_or_null(any->file), failed);
		jput(o, "line", any->line ? json_integer((json_int_t)any->line) : json_null(), failed);
		jput(o, "a", site_side(s->a, s->va, failed), failed);
		jput(o, "b", site_side(s->b, s->vb, failed), failed);
		jput(o, "delta", num(s->delta), failed);
		jput(o, "change_pct", num(s->pct), failed);
		jappend(a, o, failed);
	}
	strbuf_release(&name);
	return a;
}

static json_t *edge_side(const struct tdoc_edge *e, double v, bool *failed)
{
	json_t *o;

	if (!e)
		return json_null();
	o = json_object();
	jput(o, "from", e->has_from ? jaddr(e->from) : json_null(), failed);
	jput(o, "to", e->has_to ? jaddr(e->to) : json_null(), failed);
	jput(o, "value", num(v), failed);
	return o;
}

static json_t *edges_array(const struct diff_result *r, bool *failed)
{
	json_t *a = json_array();

	for (size_t i = 0; i < r->nr_edges_nonzero && i < r->opts.top; i++) {
		const struct diff_edge *e = &r->edges[i];
		const struct tdoc_edge *any = e->b ? e->b : e->a;
		json_t *o = json_object();

		jput(o, "match", json_string(diff_match_name(e->how)), failed);
		jput(o, "from_symbol", jstr_or_null(any->from_symbol), failed);
		jput(o, "to_symbol", jstr_or_null(any->to_symbol), failed);
		jput(o, "a", edge_side(e->a, e->va, failed), failed);
		jput(o, "b", edge_side(e->b, e->vb, failed), failed);
		jput(o, "delta", num(e->delta), failed);
		jput(o, "change_pct", num(e->pct), failed);
		jappend(a, o, failed);
	}
	return a;
}

static json_t *verdict_object(const struct diff_result *r, bool *failed)
{
	const struct diff_verdict *v = &r->verdict;
	json_t *o = json_object(), *top = json_null();
	struct strbuf name = STRBUF_INIT;

	jput(o, "text", json_string(v->text ? v->text : ""), failed);
	jput(o, "node", v->node ? json_string(v->node->key) : json_null(), failed);
	jput(o, "delta", v->node ? num(v->node->delta) : json_null(), failed);
	jput(o, "half", v->node ? num(v->node->half) : json_null(), failed);
	jput(o, "child", v->child ? json_string(v->child->key) : json_null(), failed);
	jput(o, "child_delta", v->child ? num(v->child->delta) : json_null(), failed);
	jput(o, "largest", v->largest ? json_string(v->largest->key) : json_null(), failed);
	jput(o, "by_cycles", json_boolean(v->by_cycles), failed);
	jput(o, "scopes_differ", json_boolean(v->scopes_differ), failed);
	if (v->top) {
		top = json_object();
		diff_site_name(v->top->b, &name);
		if (strbuf_failed(&name))
			*failed = true;
		jput(top, "name", json_string(name.buf), failed);
		jput(top, "function", jstr_or_null(v->top->b->function), failed);
		jput(top, "file", jstr_or_null(v->top->b->file), failed);
		jput(top, "line", v->top->b->line ? json_integer((json_int_t)v->top->b->line) : json_null(), failed);
		jput(top, "match", json_string(diff_match_name(v->top->how)), failed);
		jput(top, "a", num(v->top->a ? v->top->va : NAN), failed);
		jput(top, "b", num(v->top->vb), failed);
		jput(top, "change_pct", num(v->top->pct), failed);
	}
	jput(o, "top_site", top, failed);
	jput(o, "top_is_new", json_boolean(v->top && v->top_is_new), failed);
	strbuf_release(&name);
	return o;
}

int diff_json_print(FILE *out, const struct diff_result *r, struct tdp_err *err)
{
	json_t *doc = json_object(), *rank = json_array();
	bool failed = !doc || !rank;

	jput(doc, "kind", json_string("diff"), &failed);
	jput(doc, "of", json_string(tdoc_kind_name(r->kind)), &failed);
	jput(doc, "backend", jstr_or_null(r->a->backend), &failed); /* both documents': diff_check() */
	jput(doc, "a", doc_object(r->a, &failed), &failed);
	jput(doc, "b", doc_object(r->b, &failed), &failed);
	jput(doc, "rule", json_string(diff_rule_name(r->rule)), &failed);
	jput(doc, "noise_floor", json_real(r->opts.noise_floor), &failed);
	jput(doc, "verdict", verdict_object(r, &failed), &failed);
	jput(doc, "nodes", nodes_array(r, &failed), &failed);
	for (size_t i = 0; i < r->nr_rank; i++)
		jappend(rank, json_string(r->nodes[r->rank[i]].key), &failed);
	jput(doc, "delta_rank", rank, &failed);
	jput(doc, "measure", jstr_or_null(r->measure), &failed);
	jput(doc, "sites", sites_array(r, &failed), &failed);
	jput(doc, "sites_matched", json_integer((json_int_t)r->sites_matched), &failed);
	jput(doc, "sites_only_a", json_integer((json_int_t)r->sites_only_a), &failed);
	jput(doc, "sites_only_b", json_integer((json_int_t)r->sites_only_b), &failed);
	jput(doc, "edges", edges_array(r, &failed), &failed);
	jput(doc, "edges_matched", json_integer((json_int_t)r->edges_matched), &failed);
	jput(doc, "edge_measure", jstr_or_null(r->edge_measure), &failed);
	return jfinish(doc, failed, out, 15, err);
}
