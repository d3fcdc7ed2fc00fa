/* diff-json.c: `tdprof diff --json` (see report/diff.h for the keys). */
#include "report/diff.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>

#include "base/err.h"
#include "base/strbuf.h"

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static void put(json_t *o, const char *key, json_t *v, bool *failed)
{
	if (!o || !v || json_object_set_new(o, key, v))
		*failed = true;
}

static void append(json_t *a, json_t *v, bool *failed)
{
	if (!a || !v || json_array_append_new(a, v))
		*failed = true;
}

static json_t *hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	return json_string(buf);
}

static json_t *doc_object(const struct tdoc *d, bool *failed)
{
	json_t *o = json_object();

	put(o, "file", json_string(d->name), failed);
	put(o, "backend", str_or_null(d->backend), failed);
	put(o, "cpu", str_or_null(d->cpu), failed);
	put(o, "model_kind", str_or_null(d->model_kind), failed);
	put(o, "source", str_or_null(d->source), failed);
	put(o, "runs", json_integer((json_int_t)d->runs), failed);
	put(o, "runs_requested", json_integer((json_int_t)d->runs_requested), failed);
	put(o, "deterministic", json_boolean(d->deterministic), failed);
	return o;
}

static json_t *interval(const struct tdoc_node *n, bool *failed)
{
	json_t *a;

	if (!n || n->s.n < 2 || isnan(n->s.lo))
		return json_null();
	a = json_array();
	append(a, json_real(n->s.lo), failed);
	append(a, json_real(n->s.hi), failed);
	return a;
}

static json_t *nodes_array(const struct diff_result *r, bool *failed)
{
	json_t *a = json_array();

	for (size_t i = 0; i < r->nr_nodes; i++) {
		const struct diff_node *n = &r->nodes[i];
		json_t *o = json_object();

		put(o, "key", json_string(n->key), failed);
		put(o, "parent", str_or_null(n->parent), failed);
		put(o, "level", json_integer(n->level), failed);
		put(o, "label", json_string(n->label), failed);
		put(o, "a", n->a ? num(n->a->value) : json_null(), failed);
		put(o, "b", n->b ? num(n->b->value) : json_null(), failed);
		put(o, "delta", num(n->delta), failed);
		put(o, "half", num(n->half), failed);
		put(o, "a_ci95", interval(n->a, failed), failed);
		put(o, "b_ci95", interval(n->b, failed), failed);
		put(o, "rule", json_string(diff_rule_name(n->rule)), failed);
		put(o, "flagged", json_boolean(n->flagged), failed);
		append(a, o, failed);
	}
	return a;
}

static json_t *site_side(const struct tdoc_site *s, double v, bool *failed)
{
	json_t *o;

	if (!s)
		return json_null();
	o = json_object();
	put(o, "rank", json_integer((json_int_t)s->rank), failed);
	put(o, "address", s->has_address ? hex(s->address) : json_null(), failed);
	put(o, "value", num(v), failed);
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
		put(o, "match", json_string(diff_match_name(s->how)), failed);
		put(o, "name", json_string(name.buf), failed);
		put(o, "function", str_or_null(any->function), failed);
		put(o, "file", str_or_null(any->file), failed);
		put(o, "line", any->line ? json_integer((json_int_t)any->line) : json_null(), failed);
		put(o, "a", site_side(s->a, s->va, failed), failed);
		put(o, "b", site_side(s->b, s->vb, failed), failed);
		put(o, "delta", num(s->delta), failed);
		put(o, "change_pct", num(s->pct), failed);
		append(a, o, failed);
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
	put(o, "from", e->has_from ? hex(e->from) : json_null(), failed);
	put(o, "to", e->has_to ? hex(e->to) : json_null(), failed);
	put(o, "value", num(v), failed);
	return o;
}

static json_t *edges_array(const struct diff_result *r, bool *failed)
{
	json_t *a = json_array();

	for (size_t i = 0; i < r->nr_edges_nonzero && i < r->opts.top; i++) {
		const struct diff_edge *e = &r->edges[i];
		const struct tdoc_edge *any = e->b ? e->b : e->a;
		json_t *o = json_object();

		put(o, "match", json_string(diff_match_name(e->how)), failed);
		put(o, "from_symbol", str_or_null(any->from_symbol), failed);
		put(o, "to_symbol", str_or_null(any->to_symbol), failed);
		put(o, "a", edge_side(e->a, e->va, failed), failed);
		put(o, "b", edge_side(e->b, e->vb, failed), failed);
		put(o, "delta", num(e->delta), failed);
		put(o, "change_pct", num(e->pct), failed);
		append(a, o, failed);
	}
	return a;
}

static json_t *verdict_object(const struct diff_result *r, bool *failed)
{
	const struct diff_verdict *v = &r->verdict;
	json_t *o = json_object(), *top = json_null();
	struct strbuf name = STRBUF_INIT;

	put(o, "text", json_string(v->text ? v->text : ""), failed);
	put(o, "node", v->node ? json_string(v->node->key) : json_null(), failed);
	put(o, "delta", v->node ? num(v->node->delta) : json_null(), failed);
	put(o, "half", v->node ? num(v->node->half) : json_null(), failed);
	put(o, "child", v->child ? json_string(v->child->key) : json_null(), failed);
	put(o, "child_delta", v->child ? num(v->child->delta) : json_null(), failed);
	put(o, "largest", v->largest ? json_string(v->largest->key) : json_null(), failed);
	if (v->top) {
		top = json_object();
		diff_site_name(v->top->b, &name);
		if (strbuf_failed(&name))
			*failed = true;
		put(top, "name", json_string(name.buf), failed);
		put(top, "function", str_or_null(v->top->b->function), failed);
		put(top, "file", str_or_null(v->top->b->file), failed);
		put(top, "line", v->top->b->line ? json_integer((json_int_t)v->top->b->line) : json_null(), failed);
		put(top, "match", json_string(diff_match_name(v->top->how)), failed);
		put(top, "a", num(v->top->a ? v->top->va : NAN), failed);
		put(top, "b", num(v->top->vb), failed);
		put(top, "change_pct", num(v->top->pct), failed);
	}
	put(o, "top_site", top, failed);
	put(o, "top_is_new", json_boolean(v->top && v->top_is_new), failed);
	strbuf_release(&name);
	return o;
}

int diff_json_print(FILE *out, const struct diff_result *r, struct tdp_err *err)
{
	json_t *doc = json_object(), *rank = json_array();
	bool failed = !doc || !rank;
	int rc = 0;

	put(doc, "kind", json_string("diff"), &failed);
	put(doc, "of", json_string(tdoc_kind_name(r->kind)), &failed);
	put(doc, "backend", str_or_null(r->a->backend), &failed); /* both documents': diff_check() */
	put(doc, "a", doc_object(r->a, &failed), &failed);
	put(doc, "b", doc_object(r->b, &failed), &failed);
	put(doc, "rule", json_string(diff_rule_name(r->rule)), &failed);
	put(doc, "noise_floor", json_real(r->opts.noise_floor), &failed);
	put(doc, "verdict", verdict_object(r, &failed), &failed);
	put(doc, "nodes", nodes_array(r, &failed), &failed);
	for (size_t i = 0; i < r->nr_rank; i++)
		append(rank, json_string(r->nodes[r->rank[i]].key), &failed);
	put(doc, "delta_rank", rank, &failed);
	put(doc, "measure", str_or_null(r->measure), &failed);
	put(doc, "sites", sites_array(r, &failed), &failed);
	put(doc, "sites_matched", json_integer((json_int_t)r->sites_matched), &failed);
	put(doc, "sites_only_a", json_integer((json_int_t)r->sites_only_a), &failed);
	put(doc, "sites_only_b", json_integer((json_int_t)r->sites_only_b), &failed);
	put(doc, "edges", edges_array(r, &failed), &failed);
	put(doc, "edges_matched", json_integer((json_int_t)r->edges_matched), &failed);
	if (failed)
		rc = tdp_err_oom(err);
	else if (json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) ||
		 fputc('\n', out) == EOF)
		rc = tdp_err_set(err, TDP_EIO, "cannot write the JSON document: %s", "write error");
	json_decref(doc);
	return rc;
}
