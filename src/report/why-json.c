/* why-json.c: `tdprof why --json` (see why.h for the keys). */
#include "report/why.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "diagnose/drill-pmu.h"
#include "model/triage.h"
#include "report/repeat.h"
#include "report/json-util.h"
#include "report/topdown.h"

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Both steal v (freed when o or a could not be made). */
static json_t *level1(const struct metric_tree *t, bool *failed)
{
	static const char *const keys[] = { "retiring", "bad_speculation", "frontend_bound", "backend_bound" };
	json_t *o = json_object();

	for (size_t i = 0; i < 4; i++) {
		const struct metric_node *n = metric_tree_find(t, keys[i]);

		jput(o, keys[i], n ? num(n->value) : json_null(), failed);
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
			jput(o, n->parent, p, failed);
		}
		jput(p, n->key, num(n->value), failed);
	}
	return o;
}

static json_t *triage(const struct diag *d, bool *failed)
{
	const struct triage_metrics *m = &d->triage;
	json_t *o = json_object();

	jput(o, "cpi", num(m->cpi), failed);
	jput(o, "ipc", num(m->ipc), failed);
	jput(o, "branch_miss_rate", num(m->branch_miss_rate), failed);
	jput(o, "branch_mpki", num(m->branch_mpki), failed);
	jput(o, "l1i_mpki", num(m->l1i_mpki), failed);
	jput(o, "llc_mpki", num(m->llc_mpki), failed);
	jput(o, "next", d->route.next == TRIAGE_UNKNOWN ? json_null() : json_string(triage_next_name(d->route.next)),
	     failed);
	jput(o, "reason", d->route.reason[0] ? json_string(d->route.reason) : json_null(), failed);
	return o;
}

static json_t *counts(const struct diag *d, bool *failed)
{
	const struct diag_counts *c = &d->totals;
	json_t *o;

	if (d->backend != BACKEND_SIM)
		return json_null();
	o = json_object();
	jput(o, "instructions", jcount(c->instructions), failed);
	jput(o, "cycles", num(round(c->cycles)), failed);
	jput(o, "branches", jcount(c->cond_branches + c->ind_branches), failed);
	jput(o, "branch_misses", jcount(c->cond_mispredicts + c->ind_mispredicts), failed);
	jput(o, "l1i_misses", jcount(c->l1i_misses), failed);
	jput(o, "l1d_loads", jcount(c->loads), failed);
	jput(o, "l1d_misses", jcount(c->l1d_misses), failed);
	jput(o, "ll_misses", jcount(c->ll_misses), failed);
	return o;
}

/* A count the drill-down measured, or null: the PMU's sampled sites have no instruction or miss counts. */
static json_t *measured(bool known, uint64_t v)
{
	return known ? jcount(v) : json_null();
}

static json_t *site(const struct diag *d, const struct diag_site *s, size_t rank, bool *failed)
{
	json_t *o = json_object();
	const struct diag_counts *c = &s->c;
	bool sim = !d->has_sampling, br = sim || d->sampling.method != DIAG_SAMPLE_IP;

	jput(o, "rank", jcount(rank), failed);
	jput(o, "file", jstr_or_null(s->file), failed);
	jput(o, "line", s->line ? jcount(s->line) : json_null(), failed);
	jput(o, "function", jstr_or_null(s->function), failed);
	jput(o, "address", s->address ? jaddr(s->address) : json_null(), failed);
	jput(o, "in_program", json_boolean(s->in_program), failed);
	jput(o, "share_pct", num(s->share), failed);
	jput(o, "executions", s->executions ? jcount(s->executions) : json_null(), failed);
	jput(o, "samples", sim ? json_null() : jcount(s->samples), failed);
	jput(o, "instructions", measured(sim, c->instructions), failed);
	jput(o, "branches", measured(br, c->cond_branches + c->ind_branches), failed);
	jput(o, "mispredicts", measured(sim || (br && d->sampling.has_flags), c->cond_mispredicts + c->ind_mispredicts),
	     failed);
	jput(o, "cond_branches", measured(br, c->cond_branches), failed);
	jput(o, "cond_mispredicts", measured(sim || (br && d->sampling.has_flags), c->cond_mispredicts), failed);
	jput(o, "indirect_branches", measured(br, c->ind_branches), failed);
	jput(o, "indirect_mispredicts", measured(sim || (br && d->sampling.has_flags), c->ind_mispredicts), failed);
	jput(o, "loads", measured(sim, c->loads), failed);
	jput(o, "l1d_misses", measured(sim, c->l1d_misses), failed);
	jput(o, "ll_misses", measured(sim, c->ll_misses), failed);
	jput(o, "l1i_misses", measured(sim, c->l1i_misses), failed);
	jput(o, "ll_i_misses", measured(sim, c->ll_i_misses), failed);
	jput(o, "stream", json_boolean(s->stream), failed);
	return o;
}

/* The PMU drill-down's sampled run (diagnose/drill-pmu.h). */
static json_t *sampling(const struct diag *d, bool *failed)
{
	const struct diag_sampling *m = &d->sampling;
	json_t *o = json_object();

	jput(o, "method", json_string(diag_sample_method_name(m->method)), failed);
	jput(o, "event", json_string(m->event), failed);
	jput(o, "frequency", m->freq ? jcount(m->freq) : json_null(), failed);
	jput(o, "period", m->period ? jcount(m->period) : json_null(), failed);
	jput(o, "samples", jcount(m->samples), failed);
	jput(o, "branch_records", m->method == DIAG_SAMPLE_IP || m->loads ? json_null() : jcount(m->branch_records),
	     failed);
	jput(o, "mispredicted", m->method != DIAG_SAMPLE_IP && m->has_flags ? jcount(m->mispredicted) : json_null(),
	     failed);
	jput(o, "lost", jcount(m->lost), failed);
	jput(o, "branch_facility", jstr_or_null(m->facility), failed);
	jput(o, "branch_facility_reason", m->facility_reason[0] ? json_string(m->facility_reason) : json_null(),
	     failed);
	jput(o, "reason", m->reason[0] ? json_string(m->reason) : json_null(), failed);
	jput(o, "located", jstr_or_null(m->located), failed);
	jput(o, "locate_event", m->locate_event[0] ? json_string(m->locate_event) : json_null(), failed);
	jput(o, "data_addresses", json_boolean(m->data_addr), failed);
	jput(o, "loads", json_boolean(m->loads), failed);
	jput(o, "with_address", m->data_addr ? jcount(m->with_addr) : json_null(), failed);
	return o;
}

/* The data cache lines the samples' addresses touched most (PEBS data addresses). */
static json_t *data_lines(const struct diag *d, bool *failed)
{
	json_t *a = json_array();

	for (size_t i = 0; i < d->nr_data; i++) {
		const struct diag_data *x = &d->data[i];
		json_t *o = json_object();

		jput(o, "rank", jcount(i + 1), failed);
		jput(o, "address", jaddr(x->addr), failed);
		jput(o, "region", x->region[0] ? json_string(x->region) : json_null(), failed);
		jput(o, "file_offset", x->offset ? jaddr(x->offset) : json_null(), failed);
		jput(o, "samples", jcount(x->samples), failed);
		jput(o, "share_pct", json_real(x->share), failed);
		jput(o, "latency", x->latency >= 0 ? json_real(x->latency) : json_null(), failed);
		jput(o, "file", jstr_or_null(x->file), failed);
		jput(o, "line", x->line ? jcount(x->line) : json_null(), failed);
		jput(o, "function", jstr_or_null(x->function), failed);
		jappend(a, o, failed);
	}
	return a;
}

/* The top line's branches with their own counts; null when the run counted per line only. */
static json_t *line_branches(const struct diag *d, bool *failed)
{
	json_t *a;

	if (!d->nr_branches)
		return json_null();
	a = json_array();
	for (size_t i = 0; i < d->nr_branches; i++) {
		const struct diag_branch *b = &d->branches[i];
		json_t *o = json_object();

		jput(o, "address", jaddr(b->addr), failed);
		jput(o, "text", json_string(b->text), failed);
		jput(o, "executions", jcount(b->executions), failed);
		jput(o, "mispredicts", jcount(b->mispredicts), failed);
		jput(o, "target", json_boolean(d->has_disasm && b->addr == d->disasm.target), failed);
		jappend(a, o, failed);
	}
	return a;
}

static json_t *drilldown(const struct diag *d, bool *failed)
{
	json_t *o = json_object();

	jput(o, "kind", json_string(diag_drill_name(d->drill)), failed);
	jput(o, "ranked_by", jstr_or_null(d->ranked_by), failed);
	jput(o, "sampling", d->has_sampling ? sampling(d, failed) : json_null(), failed);
	if (d->has_sampling && d->sampling.data_addr)
		jput(o, "data", data_lines(d, failed), failed);
	if (d->drill == DIAG_DRILL_BRANCHES) {
		json_t *dis = json_object(), *insns = json_array();

		jput(dis, "function", d->has_disasm && d->disasm.function[0] ? json_string(d->disasm.function)
									     : json_null(), failed);
		jput(dis, "target", d->has_disasm && d->disasm.target ? jaddr(d->disasm.target) : json_null(), failed);
		jput(dis, "why", d->has_disasm ? json_null() : json_string(d->disasm_why), failed);
		for (size_t i = 0; d->has_disasm && i < d->disasm.nr; i++) {
			const struct symbol_exe_insn *in = &d->disasm.v[i];
			json_t *io = json_object();

			jput(io, "address", jaddr(in->addr), failed);
			jput(io, "text", json_string(in->text), failed);
			jput(io, "branch", json_boolean(in->branch_type != 0), failed);
			jput(io, "in_line", json_boolean(in->in_line), failed);
			jput(io, "target", json_boolean(in->target), failed);
			jappend(insns, io, failed);
		}
		jput(dis, "instructions", insns, failed);
		jput(o, "disassembly", dis, failed);
		jput(o, "line_branches", line_branches(d, failed), failed);
	}
	if (d->drill == DIAG_DRILL_ICACHE && d->has_footprint) {
		const struct diag_footprint *f = &d->footprint;
		json_t *fp = json_object(), *top = json_array();

		jput(fp, "functions", jcount(f->functions), failed);
		jput(fp, "bytes", f->bytes ? jcount(f->bytes) : json_null(), failed);
		jput(fp, "files", jcount(f->files), failed);
		jput(fp, "l1i_bytes", f->i1_bytes ? jcount(f->i1_bytes) : json_null(), failed);
		for (size_t i = 0; i < f->nr; i++) {
			json_t *fo = json_object();

			jput(fo, "function", json_string(f->v[i].name), failed);
			jput(fo, "file", jstr_or_null(f->v[i].file), failed);
			jput(fo, "bytes", f->v[i].bytes ? jcount(f->v[i].bytes) : json_null(), failed);
			jput(fo, "instructions", measured(!d->has_sampling, f->v[i].instructions), failed);
			jput(fo, "l1i_misses", measured(!d->has_sampling, f->v[i].l1i_misses), failed);
			jput(fo, "samples", d->has_sampling ? jcount(f->v[i].samples) : json_null(), failed);
			jappend(top, fo, failed);
		}
		jput(fp, "top", top, failed);
		jput(o, "footprint", fp, failed);
	}
	if (d->drill == DIAG_DRILL_HOT_LOOP) {
		jput(o, "loop_command", jstr_or_null(d->loop_command), failed);
		jput(o, "loop_note", d->loop_note[0] ? json_string(d->loop_note) : json_null(), failed);
	}
	return o;
}

static json_t *finding(const struct diag_finding *f, size_t rank, bool *failed)
{
	json_t *o = json_object(), *where = json_null();
	char explain[96];

	jput(o, "rank", jcount(rank), failed);
	jput(o, "title", json_string(f->title), failed);
	jput(o, "category", json_string(f->category), failed);
	jput(o, "node", jstr_or_null(f->node), failed);
	jput(o, "evidence", json_string(f->evidence), failed);
	if (f->file || f->function || f->line) {
		where = json_object();
		jput(where, "file", jstr_or_null(f->file), failed);
		jput(where, "line", f->line ? jcount(f->line) : json_null(), failed);
		jput(where, "function", jstr_or_null(f->function), failed);
		jput(where, "rank", f->site >= 0 ? jcount((uint64_t)f->site + 1) : json_null(), failed);
	}
	jput(o, "site", where, failed);
	jput(o, "fix", json_string(f->fix), failed);
	snprintf(explain, sizeof(explain), "tdprof explain %s", f->node ? f->node : f->category);
	jput(o, "explain", json_string(explain), failed);
	jput(o, "share_pct", num(f->share), failed);
	return o;
}

static json_t *build(const struct why_report *r, bool *failed)
{
	const struct diag *d = r->d;
	json_t *doc = json_object(), *scope = json_object(), *verdict = json_object();
	json_t *sites = json_array(), *findings = json_array(), *notes = json_array();
	json_t *thr = json_object(), *flagged = json_array();

	jput(doc, "backend", json_string(backend_name(d->backend)), failed);
	jput(doc, "estimate", json_boolean(d->estimate), failed);
	jput(doc, "command", jstr_or_null(r->command), failed);
	jput(doc, "exit_status", r->workload_ran ? json_integer(r->exit_status) : json_null(), failed);
	if (d->machine[0]) {
		json_t *m = json_object();

		jput(m, "name", json_string(d->machine_name), failed);
		jput(m, "description", json_string(d->machine), failed);
		jput(m, "slots_per_cycle", num(d->width), failed);
		jput(doc, "machine", m, failed);
	} else {
		jput(doc, "machine", json_null(), failed);
	}
	jput(scope, "kind", json_string(diag_scope_name(d->scope)), failed);
	jput(scope, "object", jstr_or_null(d->scope_object), failed);
	jput(scope, "instructions_pct", num(d->scope_insn_pct), failed);
	jput(scope, "reason", d->scope_reason[0] ? json_string(d->scope_reason) : json_null(), failed);
	jput(doc, "scope", scope, failed);
	jput(doc, "triage", triage(d, failed), failed);
	jput(doc, "counts", counts(d, failed), failed);
	jput(doc, "level1", d->has_tree ? level1(&d->tree, failed) : json_null(), failed);
	jput(doc, "level2", d->has_tree && d->tree.max_level >= 2 ? level2(&d->tree, failed) : json_null(), failed);
	if (r->repeat && d->has_tree)
		repeat_json_put(doc, r->repeat, &d->tree, failed);
	if (d->has_whole) {
		json_t *w = json_object();

		jput(w, "level1", level1(&d->whole, failed), failed);
		jput(doc, "whole_run", w, failed);
	} else {
		jput(doc, "whole_run", json_null(), failed);
	}
	for (size_t i = 0; d->has_tree && i < d->tree.nr; i++) {
		const struct metric_node *n = &d->tree.v[i];

		if (!isnan(n->threshold))
			jput(thr, n->key, json_real(n->threshold), failed);
		if (n->flagged)
			jappend(flagged, json_string(n->key), failed);
	}
	jput(doc, "thresholds", thr, failed);
	jput(doc, "flagged", flagged, failed);
	jput(verdict, "category", jstr_or_null(d->category), failed);
	jput(verdict, "node", jstr_or_null(d->node), failed);
	jput(verdict, "value", num(d->category_value), failed);
	jput(verdict, "over_threshold", json_boolean(d->over_threshold), failed);
	jput(verdict, "reason", d->reason[0] ? json_string(d->reason) : json_null(), failed);
	jput(verdict, "next_step", jstr_or_null(d->next_step), failed);
	jput(doc, "verdict", verdict, failed);
	why_tree_json(doc, d, failed); /* "tree" and "tree_drilldown": each node with the run that measured it */
	jput(doc, "drilldown", drilldown(d, failed), failed);
	if (d->has_functions)
		byfunc_json(doc, &d->functions, failed); /* "functions": each function's own top-down */
	for (size_t i = 0; i < d->nr_sites; i++)
		jappend(sites, site(d, &d->sites[i], i + 1, failed), failed);
	jput(doc, "sites", sites, failed);
	for (size_t i = 0; i < d->nr_findings; i++)
		jappend(findings, finding(&d->findings[i], i + 1, failed), failed);
	jput(doc, "findings", findings, failed);
	why_lead_json(doc, d, failed); /* "bottlenecks": the vendor's view, with each cost's code and fix */
	for (size_t i = 0; i < d->nr_notes; i++)
		jappend(notes, json_string(d->notes[i]), failed);
	jput(doc, "notes", notes, failed);
	return doc;
}

int why_json_print(FILE *out, const struct why_report *r, struct tdp_err *err)
{
	bool failed = false;
	json_t *doc = build(r, &failed);

	return jfinish(doc, failed, out, 6, err);
}
