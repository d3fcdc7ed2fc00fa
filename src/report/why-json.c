/* why-json.c: `tdprof why --json` (see why.h for the keys). */
#include "report/why.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "model/triage.h"
#include "report/repeat.h"

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *u64(uint64_t v)
{
	return json_integer((json_int_t)v);
}

/* Both steal v (freed when o or a could not be made). */
static void put(json_t *o, const char *key, json_t *v, bool *failed)
{
	if (!o) {
		json_decref(v);
		*failed = true;
	} else if (!v || json_object_set_new(o, key, v)) {
		*failed = true;
	}
}

static void append(json_t *a, json_t *v, bool *failed)
{
	if (!a) {
		json_decref(v);
		*failed = true;
	} else if (!v || json_array_append_new(a, v)) {
		*failed = true;
	}
}

static json_t *level1(const struct metric_tree *t, bool *failed)
{
	static const char *const keys[] = { "retiring", "bad_speculation", "frontend_bound", "backend_bound" };
	json_t *o = json_object();

	for (size_t i = 0; i < 4; i++) {
		const struct metric_node *n = metric_tree_find(t, keys[i]);

		put(o, keys[i], n ? num(n->value) : json_null(), failed);
	}
	return o;
}

static json_t *level2(const struct metric_tree *t, bool *failed)
{
	json_t *o = json_object();

	for (size_t i = 0; i < t->nr; i++) {
		const struct metric_node *n = &t->v[i];
		json_t *p;

		if (n->level != 2 || !n->parent)
			continue;
		p = json_object_get(o, n->parent);
		if (!p) {
			p = json_object();
			put(o, n->parent, p, failed);
		}
		put(p, n->key, num(n->value), failed);
	}
	return o;
}

static json_t *triage(const struct diag *d, bool *failed)
{
	const struct triage_metrics *m = &d->triage;
	json_t *o = json_object();

	put(o, "cpi", num(m->cpi), failed);
	put(o, "ipc", num(m->ipc), failed);
	put(o, "branch_miss_rate", num(m->branch_miss_rate), failed);
	put(o, "branch_mpki", num(m->branch_mpki), failed);
	put(o, "l1i_mpki", num(m->l1i_mpki), failed);
	put(o, "llc_mpki", num(m->llc_mpki), failed);
	put(o, "next", json_string(triage_next_name(d->route.next)), failed);
	put(o, "reason", d->route.reason[0] ? json_string(d->route.reason) : json_null(), failed);
	return o;
}

static json_t *counts(const struct diag *d, bool *failed)
{
	const struct diag_counts *c = &d->totals;
	json_t *o;

	if (d->backend != BACKEND_SIM)
		return json_null();
	o = json_object();
	put(o, "instructions", u64(c->instructions), failed);
	put(o, "cycles", num(round(c->cycles)), failed);
	put(o, "branches", u64(c->cond_branches + c->ind_branches), failed);
	put(o, "branch_misses", u64(c->cond_mispredicts + c->ind_mispredicts), failed);
	put(o, "l1i_misses", u64(c->l1i_misses), failed);
	put(o, "l1d_loads", u64(c->loads), failed);
	put(o, "l1d_misses", u64(c->l1d_misses), failed);
	put(o, "ll_misses", u64(c->ll_misses), failed);
	return o;
}

static json_t *site(const struct diag_site *s, size_t rank, bool *failed)
{
	json_t *o = json_object();
	const struct diag_counts *c = &s->c;

	put(o, "rank", u64(rank), failed);
	put(o, "file", str_or_null(s->file), failed);
	put(o, "line", s->line ? u64(s->line) : json_null(), failed);
	put(o, "function", str_or_null(s->function), failed);
	put(o, "in_program", json_boolean(s->in_program), failed);
	put(o, "share_pct", num(s->share), failed);
	put(o, "executions", s->executions ? u64(s->executions) : json_null(), failed);
	put(o, "instructions", u64(c->instructions), failed);
	put(o, "branches", u64(c->cond_branches + c->ind_branches), failed);
	put(o, "mispredicts", u64(c->cond_mispredicts + c->ind_mispredicts), failed);
	put(o, "cond_branches", u64(c->cond_branches), failed);
	put(o, "cond_mispredicts", u64(c->cond_mispredicts), failed);
	put(o, "indirect_branches", u64(c->ind_branches), failed);
	put(o, "indirect_mispredicts", u64(c->ind_mispredicts), failed);
	put(o, "loads", u64(c->loads), failed);
	put(o, "l1d_misses", u64(c->l1d_misses), failed);
	put(o, "ll_misses", u64(c->ll_misses), failed);
	put(o, "l1i_misses", u64(c->l1i_misses), failed);
	put(o, "ll_i_misses", u64(c->ll_i_misses), failed);
	put(o, "stream", json_boolean(s->stream), failed);
	return o;
}

static json_t *drilldown(const struct diag *d, bool *failed)
{
	json_t *o = json_object();

	put(o, "kind", json_string(diag_drill_name(d->drill)), failed);
	put(o, "ranked_by", str_or_null(d->ranked_by), failed);
	if (d->drill == DIAG_DRILL_BRANCHES) {
		json_t *dis = json_object(), *insns = json_array();

		put(dis, "function", d->has_disasm && d->disasm.function[0] ? json_string(d->disasm.function)
									     : json_null(), failed);
		put(dis, "target", d->has_disasm && d->disasm.target ? u64(d->disasm.target) : json_null(), failed);
		put(dis, "why", d->has_disasm ? json_null() : json_string(d->disasm_why), failed);
		for (size_t i = 0; d->has_disasm && i < d->disasm.nr; i++) {
			const struct diag_insn *in = &d->disasm.v[i];
			json_t *io = json_object();

			put(io, "address", u64(in->addr), failed);
			put(io, "text", json_string(in->text), failed);
			put(io, "branch", json_boolean(in->branch_type != 0), failed);
			put(io, "in_line", json_boolean(in->in_line), failed);
			put(io, "target", json_boolean(in->target), failed);
			append(insns, io, failed);
		}
		put(dis, "instructions", insns, failed);
		put(o, "disassembly", dis, failed);
	}
	if (d->drill == DIAG_DRILL_ICACHE && d->has_footprint) {
		const struct diag_footprint *f = &d->footprint;
		json_t *fp = json_object(), *top = json_array();

		put(fp, "functions", u64(f->functions), failed);
		put(fp, "bytes", f->bytes ? u64(f->bytes) : json_null(), failed);
		put(fp, "files", u64(f->files), failed);
		put(fp, "l1i_bytes", f->i1_bytes ? u64(f->i1_bytes) : json_null(), failed);
		for (size_t i = 0; i < f->nr; i++) {
			json_t *fo = json_object();

			put(fo, "function", json_string(f->v[i].name), failed);
			put(fo, "file", str_or_null(f->v[i].file), failed);
			put(fo, "bytes", f->v[i].bytes ? u64(f->v[i].bytes) : json_null(), failed);
			put(fo, "instructions", u64(f->v[i].instructions), failed);
			put(fo, "l1i_misses", u64(f->v[i].l1i_misses), failed);
			append(top, fo, failed);
		}
		put(fp, "top", top, failed);
		put(o, "footprint", fp, failed);
	}
	if (d->drill == DIAG_DRILL_HOT_LOOP)
		put(o, "loop_command", str_or_null(d->loop_command), failed);
	return o;
}

static json_t *finding(const struct diag_finding *f, size_t rank, bool *failed)
{
	json_t *o = json_object(), *where = json_null();
	char explain[96];

	put(o, "rank", u64(rank), failed);
	put(o, "title", json_string(f->title), failed);
	put(o, "category", json_string(f->category), failed);
	put(o, "node", str_or_null(f->node), failed);
	put(o, "evidence", json_string(f->evidence), failed);
	if (f->file || f->function || f->line) {
		where = json_object();
		put(where, "file", str_or_null(f->file), failed);
		put(where, "line", f->line ? u64(f->line) : json_null(), failed);
		put(where, "function", str_or_null(f->function), failed);
		put(where, "rank", f->site >= 0 ? u64((uint64_t)f->site + 1) : json_null(), failed);
	}
	put(o, "site", where, failed);
	put(o, "fix", json_string(f->fix), failed);
	snprintf(explain, sizeof(explain), "tdprof explain %s", f->node ? f->node : f->category);
	put(o, "explain", json_string(explain), failed);
	put(o, "share_pct", num(f->share), failed);
	return o;
}

static json_t *build(const struct why_report *r, bool *failed)
{
	const struct diag *d = r->d;
	json_t *doc = json_object(), *scope = json_object(), *verdict = json_object();
	json_t *sites = json_array(), *findings = json_array(), *notes = json_array();
	json_t *thr = json_object(), *flagged = json_array();

	put(doc, "backend", json_string(backend_name(d->backend)), failed);
	put(doc, "estimate", json_boolean(d->estimate), failed);
	put(doc, "command", str_or_null(r->command), failed);
	put(doc, "exit_status", r->workload_ran ? json_integer(r->exit_status) : json_null(), failed);
	if (d->machine[0]) {
		json_t *m = json_object();

		put(m, "name", json_string(d->machine_name), failed);
		put(m, "description", json_string(d->machine), failed);
		put(m, "slots_per_cycle", num(d->width), failed);
		put(doc, "machine", m, failed);
	} else {
		put(doc, "machine", json_null(), failed);
	}
	put(scope, "kind", json_string(diag_scope_name(d->scope)), failed);
	put(scope, "object", str_or_null(d->scope_object), failed);
	put(scope, "instructions_pct", num(d->scope_insn_pct), failed);
	put(scope, "reason", d->scope_reason[0] ? json_string(d->scope_reason) : json_null(), failed);
	put(doc, "scope", scope, failed);
	put(doc, "triage", triage(d, failed), failed);
	put(doc, "counts", counts(d, failed), failed);
	put(doc, "level1", d->has_tree ? level1(&d->tree, failed) : json_null(), failed);
	put(doc, "level2", d->has_tree && d->tree.max_level >= 2 ? level2(&d->tree, failed) : json_null(), failed);
	if (r->repeat && d->has_tree)
		repeat_json_put(doc, r->repeat, &d->tree, failed);
	if (d->has_whole) {
		json_t *w = json_object();

		put(w, "level1", level1(&d->whole, failed), failed);
		put(doc, "whole_run", w, failed);
	} else {
		put(doc, "whole_run", json_null(), failed);
	}
	for (size_t i = 0; d->has_tree && i < d->tree.nr; i++) {
		const struct metric_node *n = &d->tree.v[i];

		if (!isnan(n->threshold))
			put(thr, n->key, json_real(n->threshold), failed);
		if (n->flagged)
			append(flagged, json_string(n->key), failed);
	}
	put(doc, "thresholds", thr, failed);
	put(doc, "flagged", flagged, failed);
	put(verdict, "category", str_or_null(d->category), failed);
	put(verdict, "node", str_or_null(d->node), failed);
	put(verdict, "value", num(d->category_value), failed);
	put(verdict, "over_threshold", json_boolean(d->over_threshold), failed);
	put(verdict, "reason", d->reason[0] ? json_string(d->reason) : json_null(), failed);
	put(verdict, "next_step", str_or_null(d->next_step), failed);
	put(doc, "verdict", verdict, failed);
	put(doc, "drilldown", drilldown(d, failed), failed);
	for (size_t i = 0; i < d->nr_sites; i++)
		append(sites, site(&d->sites[i], i + 1, failed), failed);
	put(doc, "sites", sites, failed);
	for (size_t i = 0; i < d->nr_findings; i++)
		append(findings, finding(&d->findings[i], i + 1, failed), failed);
	put(doc, "findings", findings, failed);
	for (size_t i = 0; i < d->nr_notes; i++)
		append(notes, json_string(d->notes[i]), failed);
	put(doc, "notes", notes, failed);
	return doc;
}

int why_json_print(FILE *out, const struct why_report *r, struct tdp_err *err)
{
	bool failed = false;
	json_t *doc = build(r, &failed);
	int ret = 0;

	if (failed || !doc)
		ret = tdp_err_oom(err);
	else if (json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6)) ||
		 fputc('\n', out) == EOF)
		ret = tdp_err_set(err, TDP_EIO, "cannot write the JSON document");
	json_decref(doc);
	return ret;
}
