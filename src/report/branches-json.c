/*
 * branches-json.c: `tdprof branches report --json` (keys in branches.h).
 *
 * Written straight into the output buffer rather than through a jansson tree: a
 * recording of a large program has hundreds of thousands of edges, and a tree of
 * them costs gigabytes and seconds. The layout is jansson's JSON_INDENT(2).
 * Strings are escaped as RFC 8259 asks; bytes that are not UTF-8 (a file name
 * in another encoding) become U+FFFD, so the document always parses.
 */
#include "report/branches.h"
#include "base/err.h"
#include "base/strbuf.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Nesting of the document: 4 levels are used. */
#define JW_MAX_DEPTH 8

struct jw {
	struct strbuf *sb;
	int depth;                 /* of the members being written */
	bool first[JW_MAX_DEPTH];  /* no member written yet at this level */
	bool started;              /* the root is open */
};

static void indent(struct jw *w)
{
	strbuf_addch(w->sb, '\n');
	for (int i = 0; i < w->depth; i++)
		strbuf_add(w->sb, "  ", 2);
}

/* The length of the UTF-8 sequence at s (1..4), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;

	if (n == 2 && s[0] < 0xc2)
		return 0; /* overlong */
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

static void str(struct jw *w, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	strbuf_addch(w->sb, '"');
	while (*p) {
		const unsigned char *run = p;
		size_t n;

		/* the common case: a run of printable ASCII, appended at once */
		while (*p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
			p++;
		if (p > run)
			strbuf_add(w->sb, run, (size_t)(p - run));
		if (!*p)
			break;
		if (*p == '"' || *p == '\\') {
			strbuf_addch(w->sb, '\\');
			strbuf_addch(w->sb, (char)*p++);
		} else if (*p < 0x20) {
			strbuf_addf(w->sb, "\\u%04x", *p++);
		} else if ((n = utf8_len(p)) > 0) {
			strbuf_add(w->sb, p, n);
			p += n;
		} else {
			strbuf_adds(w->sb, "\xef\xbf\xbd"); /* U+FFFD */
			p++;
		}
	}
	strbuf_addch(w->sb, '"');
}

/* Start a member (key may be NULL inside an array). */
static void member(struct jw *w, const char *key)
{
	if (!w->first[w->depth])
		strbuf_addch(w->sb, ',');
	w->first[w->depth] = false;
	indent(w);
	if (key) {
		str(w, key);
		strbuf_add(w->sb, ": ", 2);
	}
}

static void open_(struct jw *w, const char *key, char c)
{
	if (w->started)
		member(w, key);
	w->started = true;
	strbuf_addch(w->sb, c);
	w->depth++;
	w->first[w->depth] = true;
}

static void close_(struct jw *w, char c)
{
	bool empty = w->first[w->depth];

	w->depth--;
	if (!empty)
		indent(w);
	strbuf_addch(w->sb, c);
}

static void obj(struct jw *w, const char *key)
{
	open_(w, key, '{');
}

static void obj_end(struct jw *w)
{
	close_(w, '}');
}

static void arr(struct jw *w, const char *key)
{
	open_(w, key, '[');
}

static void arr_end(struct jw *w)
{
	close_(w, ']');
}

static void kstr(struct jw *w, const char *key, const char *s)
{
	member(w, key);
	if (s)
		str(w, s);
	else
		strbuf_adds(w->sb, "null");
}

/* Numbers without printf: hundreds of thousands of rows are written. */
static void u64_digits(struct strbuf *sb, uint64_t v, unsigned base)
{
	char buf[24];
	size_t n = sizeof(buf);

	do {
		buf[--n] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	strbuf_add(sb, buf + n, sizeof(buf) - n);
}

static void kaddr(struct jw *w, const char *key, uint64_t a)
{
	member(w, key);
	strbuf_add(w->sb, "\"0x", 3);
	u64_digits(w->sb, a, 16);
	strbuf_addch(w->sb, '"');
}

static void ku64(struct jw *w, const char *key, uint64_t v)
{
	member(w, key);
	u64_digits(w->sb, v, 10);
}

static void ki64(struct jw *w, const char *key, int64_t v)
{
	member(w, key);
	strbuf_addf(w->sb, "%" PRId64, v);
}

static void kreal(struct jw *w, const char *key, double v)
{
	member(w, key);
	if (!isfinite(v))
		strbuf_adds(w->sb, "null");
	else if (v == floor(v) && fabs(v) < 1e15)
		strbuf_addf(w->sb, "%.1f", v);
	else {
		/* the shortest of 15 or 17 digits that reads back as the same double */
		char buf[32];

		snprintf(buf, sizeof(buf), "%.15g", v);
		if (strtod(buf, NULL) != v)
			snprintf(buf, sizeof(buf), "%.17g", v);
		strbuf_adds(w->sb, buf);
	}
}

static void knull(struct jw *w, const char *key)
{
	member(w, key);
	strbuf_adds(w->sb, "null");
}

static void kbool(struct jw *w, const char *key, bool b)
{
	member(w, key);
	strbuf_adds(w->sb, b ? "true" : "false");
}

/*
 * A mispredict figure, or null when the recording carries no mispredict flags
 * (AMD Zen 3 BRS sets neither mispred nor predicted): unmeasured, never 0.
 */
static void kmisp(struct jw *w, const struct branches_report *r, const char *key, uint64_t v)
{
	if (r->res->has_mispred_flags)
		ku64(w, key, v);
	else
		knull(w, key);
}

static void kmisp_real(struct jw *w, const struct branches_report *r, const char *key, double v)
{
	if (r->res->has_mispred_flags)
		kreal(w, key, v);
	else
		knull(w, key);
}

static size_t limit(const struct branches_report *r, size_t nr)
{
	return r->top && r->top < nr ? r->top : nr;
}

static const char *const type_sources[] = { "none", "recorded", "disassembly" };

/* function, offset, dso, file, line, inline of a location */
static void loc_fields(struct jw *w, const struct branch_loc *l)
{
	kstr(w, "function", l && l->resolved ? l->function : NULL);
	if (l && l->resolved)
		ku64(w, "offset", l->offset);
	else
		knull(w, "offset");
	kstr(w, "dso", l ? l->dso : NULL);
	kstr(w, "file", l ? l->file : NULL);
	if (l && l->file && l->line)
		ku64(w, "line", l->line);
	else
		knull(w, "line");
	arr(w, "inline");
	for (size_t i = 0; l && i < l->nr_inlines; i++) {
		obj(w, NULL);
		kstr(w, "function", l->inlines[i].function);
		kstr(w, "file", l->inlines[i].file);
		if (l->inlines[i].line)
			ku64(w, "line", l->inlines[i].line);
		else
			knull(w, "line");
		obj_end(w);
	}
	arr_end(w);
}

static void sites(struct jw *w, const struct branches_report *r)
{
	const struct branch_result *res = r->res;

	arr(w, "sites");
	for (size_t i = 0; i < limit(r, res->nr_sites); i++) {
		const struct branch_site *s = &res->sites[i];
		const struct branch_loc *l = branch_symbols_find(r->syms, s->addr);

		obj(w, NULL);
		ku64(w, "rank", i + 1);
		kaddr(w, "address", s->addr);
		loc_fields(w, l);
		kstr(w, "symbol", l ? l->perf_text : NULL);
		ku64(w, "executions", s->executions);
		kmisp(w, r, "mispredicts", s->mispredicts);
		kmisp_real(w, r, "rate", branch_site_rate(s));
		kmisp_real(w, r, "share", branch_site_share(s, &res->counts));
		kstr(w, "type", s->type ? branch_type_name(s->type, s->new_type) : NULL);
		kstr(w, "type_source", type_sources[s->type_source < 3 ? s->type_source : 0]);
		ku64(w, "targets", s->nr_targets);
		obj_end(w);
	}
	arr_end(w);
}

static void edges(struct jw *w, const struct branches_report *r)
{
	const struct branch_result *res = r->res;

	arr(w, "edges");
	for (size_t i = 0; i < limit(r, res->nr_edges); i++) {
		const struct branch_edge *e = &res->edges[i];
		const struct branch_loc *f = branch_symbols_edge(r->syms, i, false);
		const struct branch_loc *t = branch_symbols_edge(r->syms, i, true);

		obj(w, NULL);
		kaddr(w, "from", e->from);
		kaddr(w, "to", e->to);
		kstr(w, "from_symbol", f ? f->perf_text : NULL);
		kstr(w, "to_symbol", t ? t->perf_text : NULL);
		ku64(w, "count", e->count);
		kmisp(w, r, "mispredicts", e->mispredicts);
		kmisp(w, r, "predicted", e->predicted);
		kstr(w, "type", e->type ? branch_type_name(e->type, e->new_type) : NULL);
		obj_end(w);
	}
	arr_end(w);
}

static void sym_edges(struct jw *w, const struct branches_report *r)
{
	static const char *const flags[] = { "N", "Y", "N/A" };
	const struct branch_symbols *sy = r->syms;
	uint64_t total = r->res->counts.branch_entries;

	arr(w, "symbol_edges");
	for (size_t i = 0; i < limit(r, sy->nr_sym_edges); i++) {
		const struct branch_sym_edge *e = &sy->sym_edges[i];

		obj(w, NULL);
		kstr(w, "from_symbol", e->from->perf_text);
		kstr(w, "to_symbol", e->to->perf_text);
		kstr(w, "mispredicted", flags[e->flag < 3 ? e->flag : 2]);
		ku64(w, "count", e->count);
		kreal(w, "overhead", total ? 100.0 * (double)e->count / (double)total : 0.0);
		obj_end(w);
	}
	arr_end(w);
}

static void types(struct jw *w, const struct branches_report *r)
{
	const struct branch_result *res = r->res;

	arr(w, "types");
	for (size_t i = 0; i < res->nr_types; i++) {
		const struct branch_type_row *t = &res->types[i];

		obj(w, NULL);
		kstr(w, "type", branch_type_name(t->type, t->new_type));
		ku64(w, "sites", t->sites);
		ku64(w, "executions", t->executions);
		kmisp(w, r, "mispredicts", t->mispredicts);
		kmisp_real(w, r, "rate", t->rate);
		kmisp_real(w, r, "share", t->share);
		obj_end(w);
	}
	arr_end(w);
}

static void blocks(struct jw *w, const struct branches_report *r)
{
	const struct branch_result *res = r->res;
	const struct branch_symbols *sy = r->syms;

	arr(w, "blocks");
	for (size_t i = 0; i < limit(r, res->nr_blocks); i++) {
		const struct branch_block *k = &res->blocks[i];
		const struct branch_loc *l = branch_symbols_find(sy, k->start);
		int64_t insns = i < sy->nr_block_insns ? sy->block_insns[i] : -1;
		double ipc = branch_block_ipc(k, insns);

		obj(w, NULL);
		kaddr(w, "start", k->start);
		kaddr(w, "end", k->end);
		kstr(w, "function", l && l->resolved ? l->function : NULL);
		kstr(w, "file", l ? l->file : NULL);
		if (l && l->file && l->line)
			ku64(w, "line", l->line);
		else
			knull(w, "line");
		ku64(w, "count", k->count);
		ku64(w, "timed", k->timed);
		if (k->timed)
			kreal(w, "avg_cycles", branch_block_avg_cycles(k));
		else
			knull(w, "avg_cycles");
		if (insns >= 0)
			ki64(w, "instructions", insns);
		else
			knull(w, "instructions");
		if (ipc >= 0)
			kreal(w, "ipc", ipc);
		else
			knull(w, "ipc");
		obj_end(w);
	}
	arr_end(w);
}

static void disasm(struct jw *w, const struct branches_report *r)
{
	const struct branch_symbols *sy = r->syms;

	arr(w, "disassembly");
	for (size_t i = 0; i < sy->nr_disasm; i++) {
		const struct branch_site_disasm *d = &sy->disasm[i];

		obj(w, NULL);
		kaddr(w, "address", d->addr);
		kstr(w, "function", d->function);
		kstr(w, "error", d->error);
		arr(w, "lines");
		for (size_t k = 0; k < d->nr_lines; k++) {
			obj(w, NULL);
			kaddr(w, "address", d->lines[k].addr);
			kstr(w, "text", d->lines[k].text);
			kbool(w, "target", d->lines[k].target);
			obj_end(w);
		}
		arr_end(w);
		obj_end(w);
	}
	arr_end(w);
}

int report_branches_json(struct strbuf *out, const struct branches_report *r, struct tdp_err *err)
{
	const struct branch_counts *c = &r->res->counts;
	const struct branch_spe_stats *spe = &r->load->spe;
	struct jw w = { .sb = out };

	obj(&w, NULL);
	kstr(&w, "backend", r->backend);
	kstr(&w, "file", r->file);
	kstr(&w, "recorded_by", r->recorded_by);
	kstr(&w, "cpu", r->cpu);
	kstr(&w, "event", r->event);
	kstr(&w, "branch_source", spe->present ? "arm_spe" : "branch_stack");
	kstr(&w, "symbolizer", r->syms->symbolizer);
	kstr(&w, "sort", r->sort);
	ku64(&w, "samples", c->samples);
	ku64(&w, "samples_with_branches", c->samples_with_stack);
	ku64(&w, "samples_with_branch_records", c->samples_with_stack - c->samples_empty_stack);
	ku64(&w, "branch_entries", c->branch_entries);
	kmisp(&w, r, "mispredicted_entries", c->mispredicted_entries);
	kmisp(&w, r, "predicted_entries", c->predicted_entries);
	ku64(&w, "lost_samples", c->lost + c->lost_samples);
	obj(&w, "lost");
	ku64(&w, "lost_records", c->lost);
	ku64(&w, "lost_samples_records", c->lost_samples);
	obj_end(&w);
	kbool(&w, "mispredict_flags", r->res->has_mispred_flags);
	if (r->stopped_at) {
		obj(&w, "data_stopped");
		ku64(&w, "offset", r->stopped_at);
		ku64(&w, "unread_bytes", r->unread_bytes);
		obj_end(&w);
	} else {
		knull(&w, "data_stopped");
	}
	sites(&w, r);
	edges(&w, r);
	sym_edges(&w, r);
	types(&w, r);
	if (r->res->has_timing) {
		obj(&w, "timing");
		ku64(&w, "timed_entries", c->timed_entries);
		ku64(&w, "blocks_seen", c->blocks_seen);
		ku64(&w, "blocks_skipped", c->blocks_skipped);
		obj_end(&w);
		knull(&w, "timing_reason");
	} else {
		knull(&w, "timing");
		kstr(&w, "timing_reason", r->timing_reason ? r->timing_reason : "no timing in this recording");
	}
	blocks(&w, r);
	disasm(&w, r);
	/* the ranked tables are cut at top like the text (--all: none cut): say what was left out */
	if (r->top)
		ku64(&w, "top", r->top);
	else
		knull(&w, "top");
	obj(&w, "rows_left_out");
	ku64(&w, "sites", r->res->nr_sites - limit(r, r->res->nr_sites));
	ku64(&w, "edges", r->res->nr_edges - limit(r, r->res->nr_edges));
	ku64(&w, "symbol_edges", r->syms->nr_sym_edges - limit(r, r->syms->nr_sym_edges));
	ku64(&w, "blocks", r->res->nr_blocks - limit(r, r->res->nr_blocks));
	obj_end(&w);
	if (spe->present) {
		obj(&w, "spe");
		ku64(&w, "records", spe->records);
		ku64(&w, "branch_records", spe->branch_records);
		ku64(&w, "auxtrace_bytes", spe->auxtrace_bytes);
		ku64(&w, "bad_bytes", spe->bad_bytes);
		ku64(&w, "truncated", spe->truncated);
		kbool(&w, "mispredicted_only", spe->mispred_only);
		obj_end(&w);
	} else {
		knull(&w, "spe");
	}
	obj_end(&w);
	strbuf_addch(out, '\n');
	return strbuf_failed(out) ? tdp_err_oom(err) : 0;
}
