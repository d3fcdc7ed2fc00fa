/* branches-json.c: `tdprof branches report --json` (keys in branches.h). */
#include "report/branches.h"
#include "base/err.h"
#include "base/strbuf.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

/* A builder that remembers the first failure (jansson returns NULL or -1). */
struct jb {
	bool failed;
};

static void put(struct jb *b, json_t *obj, const char *key, json_t *v)
{
	if (!obj) {
		json_decref(v);
		b->failed = true;
	} else if (!v || json_object_set_new(obj, key, v)) {
		b->failed = true;
	}
}

static void append(struct jb *b, json_t *arr, json_t *v)
{
	if (!arr) {
		json_decref(v);
		b->failed = true;
	} else if (!v || json_array_append_new(arr, v)) {
		b->failed = true;
	}
}

static json_t *addr(uint64_t a)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, a);
	return json_string(buf);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *count(uint64_t v)
{
	return json_integer((json_int_t)v);
}

static json_t *loc_fields(struct jb *b, json_t *o, const struct branch_loc *l)
{
	json_t *inl = json_array();

	put(b, o, "function", str_or_null(l && l->resolved ? l->function : NULL));
	put(b, o, "offset", l && l->resolved ? count(l->offset) : json_null());
	put(b, o, "dso", str_or_null(l ? l->dso : NULL));
	put(b, o, "file", str_or_null(l ? l->file : NULL));
	put(b, o, "line", l && l->file && l->line ? count(l->line) : json_null());
	for (size_t i = 0; l && i < l->nr_inlines; i++) {
		json_t *f = json_object();

		put(b, f, "function", str_or_null(l->inlines[i].function));
		put(b, f, "file", str_or_null(l->inlines[i].file));
		put(b, f, "line", l->inlines[i].line ? count(l->inlines[i].line) : json_null());
		append(b, inl, f);
	}
	return inl;
}

static size_t limit(const struct branches_report *r, size_t nr)
{
	return r->top && r->top < nr ? r->top : nr;
}

static const char *const type_sources[] = { "none", "recorded", "disassembly" };

static json_t *sites_json(struct jb *b, const struct branches_report *r)
{
	const struct branch_result *res = r->res;
	json_t *a = json_array();

	for (size_t i = 0; i < limit(r, res->nr_sites); i++) {
		const struct branch_site *s = &res->sites[i];
		const struct branch_loc *l = branch_symbols_find(r->syms, s->addr);
		json_t *o = json_object();

		put(b, o, "rank", count(i + 1));
		put(b, o, "address", addr(s->addr));
		put(b, o, "inline", loc_fields(b, o, l));
		put(b, o, "symbol", str_or_null(l ? l->perf_text : NULL));
		put(b, o, "executions", count(s->executions));
		put(b, o, "mispredicts", count(s->mispredicts));
		put(b, o, "rate", json_real(branch_site_rate(s)));
		put(b, o, "share", json_real(branch_site_share(s, &res->counts)));
		put(b, o, "type", s->type ? json_string(branch_type_name(s->type, s->new_type)) : json_null());
		put(b, o, "type_source", json_string(type_sources[s->type_source < 3 ? s->type_source : 0]));
		put(b, o, "targets", count(s->nr_targets));
		append(b, a, o);
	}
	return a;
}

static json_t *edges_json(struct jb *b, const struct branches_report *r)
{
	const struct branch_result *res = r->res;
	json_t *a = json_array();

	for (size_t i = 0; i < limit(r, res->nr_edges); i++) {
		const struct branch_edge *e = &res->edges[i];
		const struct branch_loc *f = branch_symbols_edge(r->syms, i, false);
		const struct branch_loc *t = branch_symbols_edge(r->syms, i, true);
		json_t *o = json_object();

		put(b, o, "from", addr(e->from));
		put(b, o, "to", addr(e->to));
		put(b, o, "from_symbol", str_or_null(f ? f->perf_text : NULL));
		put(b, o, "to_symbol", str_or_null(t ? t->perf_text : NULL));
		put(b, o, "count", count(e->count));
		put(b, o, "mispredicts", count(e->mispredicts));
		put(b, o, "predicted", count(e->predicted));
		put(b, o, "type", e->type ? json_string(branch_type_name(e->type, e->new_type)) : json_null());
		append(b, a, o);
	}
	return a;
}

static json_t *sym_edges_json(struct jb *b, const struct branches_report *r)
{
	static const char *const flags[] = { "N", "Y", "N/A" };
	const struct branch_symbols *sy = r->syms;
	uint64_t total = r->res->counts.branch_entries;
	json_t *a = json_array();

	for (size_t i = 0; i < limit(r, sy->nr_sym_edges); i++) {
		const struct branch_sym_edge *e = &sy->sym_edges[i];
		json_t *o = json_object();

		put(b, o, "from_symbol", json_string(e->from->perf_text));
		put(b, o, "to_symbol", json_string(e->to->perf_text));
		put(b, o, "mispredicted", json_string(flags[e->flag < 3 ? e->flag : 2]));
		put(b, o, "count", count(e->count));
		put(b, o, "overhead", json_real(total ? 100.0 * (double)e->count / (double)total : 0.0));
		append(b, a, o);
	}
	return a;
}

static json_t *types_json(struct jb *b, const struct branches_report *r)
{
	const struct branch_result *res = r->res;
	json_t *a = json_array();

	for (size_t i = 0; i < res->nr_types; i++) {
		const struct branch_type_row *t = &res->types[i];
		json_t *o = json_object();

		put(b, o, "type", json_string(branch_type_name(t->type, t->new_type)));
		put(b, o, "sites", count(t->sites));
		put(b, o, "executions", count(t->executions));
		put(b, o, "mispredicts", count(t->mispredicts));
		put(b, o, "rate", json_real(t->executions ? (double)t->mispredicts / (double)t->executions : 0.0));
		put(b, o, "share", json_real(res->counts.mispredicted_entries
						     ? (double)t->mispredicts / (double)res->counts.mispredicted_entries
						     : 0.0));
		append(b, a, o);
	}
	return a;
}

static json_t *blocks_json(struct jb *b, const struct branches_report *r)
{
	const struct branch_result *res = r->res;
	const struct branch_symbols *sy = r->syms;
	json_t *a = json_array();

	for (size_t i = 0; i < limit(r, res->nr_blocks); i++) {
		const struct branch_block *k = &res->blocks[i];
		const struct branch_loc *l = branch_symbols_find(sy, k->start);
		int64_t insns = i < sy->nr_block_insns ? sy->block_insns[i] : -1;
		double ipc = branch_block_ipc(k, insns);
		json_t *o = json_object();

		put(b, o, "start", addr(k->start));
		put(b, o, "end", addr(k->end));
		put(b, o, "function", str_or_null(l && l->resolved ? l->function : NULL));
		put(b, o, "file", str_or_null(l ? l->file : NULL));
		put(b, o, "line", l && l->file && l->line ? count(l->line) : json_null());
		put(b, o, "count", count(k->count));
		put(b, o, "timed", count(k->timed));
		put(b, o, "avg_cycles", k->timed ? json_real(branch_block_avg_cycles(k)) : json_null());
		put(b, o, "instructions", insns >= 0 ? json_integer(insns) : json_null());
		put(b, o, "ipc", ipc >= 0 ? json_real(ipc) : json_null());
		append(b, a, o);
	}
	return a;
}

static json_t *disasm_json(struct jb *b, const struct branches_report *r)
{
	const struct branch_symbols *sy = r->syms;
	json_t *a = json_array();

	for (size_t i = 0; i < sy->nr_disasm; i++) {
		const struct branch_site_disasm *d = &sy->disasm[i];
		json_t *o = json_object(), *lines = json_array();

		put(b, o, "address", addr(d->addr));
		put(b, o, "function", str_or_null(d->function));
		put(b, o, "error", str_or_null(d->error));
		for (size_t k = 0; k < d->nr_lines; k++) {
			json_t *ln = json_object();

			put(b, ln, "address", addr(d->lines[k].addr));
			put(b, ln, "text", json_string(d->lines[k].text));
			put(b, ln, "target", json_boolean(d->lines[k].target));
			append(b, lines, ln);
		}
		put(b, o, "lines", lines);
		append(b, a, o);
	}
	return a;
}

static json_t *spe_json(struct jb *b, const struct branch_spe_stats *s)
{
	json_t *o;

	if (!s->present)
		return json_null();
	o = json_object();
	put(b, o, "records", count(s->records));
	put(b, o, "branch_records", count(s->branch_records));
	put(b, o, "auxtrace_bytes", count(s->auxtrace_bytes));
	put(b, o, "bad_bytes", count(s->bad_bytes));
	put(b, o, "truncated", count(s->truncated));
	return o;
}

int report_branches_json(struct strbuf *out, const struct branches_report *r, struct tdp_err *err)
{
	const struct branch_counts *c = &r->res->counts;
	struct jb b = { false };
	json_t *o = json_object(), *lost = json_object(), *timing;
	char *text = NULL;

	put(&b, o, "backend", json_string(r->backend));
	put(&b, o, "file", json_string(r->file));
	put(&b, o, "recorded_by", str_or_null(r->recorded_by));
	put(&b, o, "cpu", str_or_null(r->cpu));
	put(&b, o, "event", str_or_null(r->event));
	put(&b, o, "branch_source", json_string(r->load->spe.present ? "arm_spe" : "branch_stack"));
	put(&b, o, "symbolizer", json_string(r->syms->symbolizer));
	put(&b, o, "sort", json_string(r->sort));
	put(&b, o, "samples", count(c->samples));
	put(&b, o, "samples_with_branches", count(c->samples_with_stack));
	put(&b, o, "branch_entries", count(c->branch_entries));
	put(&b, o, "mispredicted_entries", count(c->mispredicted_entries));
	put(&b, o, "predicted_entries", count(c->predicted_entries));
	put(&b, o, "lost_samples", count(c->lost + c->lost_samples));
	put(&b, lost, "lost_records", count(c->lost));
	put(&b, lost, "lost_samples_records", count(c->lost_samples));
	put(&b, o, "lost", lost);
	put(&b, o, "mispredict_flags", json_boolean(r->res->has_mispred_flags));
	put(&b, o, "sites", sites_json(&b, r));
	put(&b, o, "edges", edges_json(&b, r));
	put(&b, o, "symbol_edges", sym_edges_json(&b, r));
	put(&b, o, "types", types_json(&b, r));
	if (r->res->has_timing) {
		timing = json_object();
		put(&b, timing, "timed_entries", count(c->timed_entries));
		put(&b, timing, "blocks_seen", count(c->blocks_seen));
		put(&b, timing, "blocks_skipped", count(c->blocks_skipped));
		put(&b, o, "timing", timing);
		put(&b, o, "timing_reason", json_null());
	} else {
		put(&b, o, "timing", json_null());
		put(&b, o, "timing_reason",
		    json_string(r->timing_reason ? r->timing_reason : "no timing in this recording"));
	}
	put(&b, o, "blocks", blocks_json(&b, r));
	put(&b, o, "disassembly", disasm_json(&b, r));
	put(&b, o, "spe", spe_json(&b, &r->load->spe));
	if (!b.failed)
		text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!text)
		return tdp_err_oom(err);
	strbuf_adds(out, text);
	strbuf_addch(out, '\n');
	free(text);
	return 0;
}
