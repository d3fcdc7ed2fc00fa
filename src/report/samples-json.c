/*
 * samples-json.c: the JSON document of plain samples (keys in samples.h).
 */
#include "report/samples.h"
#include "report/json-util.h"
#include "base/err.h"
#include "base/strbuf.h"

#include <jansson.h>

static size_t cut(size_t n, size_t top)
{
	return top && top < n ? top : n;
}

static json_t *functions(const struct samples_report *r, bool *failed)
{
	json_t *a = json_array();

	for (size_t i = 0; i < cut(r->res->nr_functions, r->top); i++) {
		const struct ips_function *f = &r->res->functions[i];
		json_t *o = json_object();

		jput(o, "symbol", json_string(f->perf_text), failed);
		jput(o, "function", jstr_or_null(f->function), failed);
		jput(o, "dso", jstr_or_null(f->dso), failed);
		jput(o, "kernel", json_boolean(f->kernel), failed);
		jput(o, "addr", jaddr(f->addr), failed);
		jput(o, "self", jcount(f->self), failed);
		jput(o, "self_share", json_real(f->self_share), failed);
		jput(o, "total", jcount(f->total), failed);
		jput(o, "total_share", json_real(f->total_share), failed);
		jappend(a, o, failed);
	}
	return a;
}

static json_t *lines(const struct samples_report *r, bool *failed)
{
	json_t *a = json_array();

	for (size_t i = 0; i < cut(r->res->nr_lines, r->top); i++) {
		const struct ips_line *l = &r->res->lines[i];
		json_t *o = json_object();

		jput(o, "file", json_string(l->file), failed);
		jput(o, "line", json_integer(l->line), failed);
		jput(o, "function", jstr_or_null(l->function), failed);
		jput(o, "samples", jcount(l->samples), failed);
		jput(o, "share", json_real(l->share), failed);
		jappend(a, o, failed);
	}
	return a;
}

static json_t *stacks(const struct samples_report *r, bool *failed)
{
	json_t *a;

	if (!r->res->callchains)
		return json_null();
	a = json_array();
	for (size_t i = 0; i < cut(r->res->nr_stacks, r->top); i++) {
		const struct ips_stack *s = &r->res->stacks[i];
		json_t *o = json_object(), *fr = json_array();

		for (size_t k = 0; k < s->nr_frames; k++)
			jappend(fr, json_string(s->frames[k]), failed);
		jput(o, "comm", json_string(s->comm), failed);
		jput(o, "frames", fr, failed);
		jput(o, "samples", jcount(s->samples), failed);
		jput(o, "share", json_real(s->share), failed);
		jappend(a, o, failed);
	}
	return a;
}

int report_samples_json(struct strbuf *out, const struct samples_report *r, struct tdp_err *err)
{
	const struct ips_result *res = r->res;
	json_t *doc = json_object(), *left = json_object();
	bool failed = false;
	int ret;

	jput(doc, "file", json_string(r->file), &failed);
	jput(doc, "backend", json_string(r->backend), &failed);
	jput(doc, "recorded_by", jstr_or_null(r->recorded_by), &failed);
	jput(doc, "cpu", jstr_or_null(r->cpu), &failed);
	jput(doc, "event", jstr_or_null(r->event), &failed);
	jput(doc, "mode", json_string("samples"), &failed);
	jput(doc, "samples", jcount(res->samples), &failed);
	jput(doc, "other_event_samples", jcount(res->other_samples), &failed);
	jput(doc, "lost_samples", jcount(r->lost_samples), &failed);
	jput(doc, "callchains", json_boolean(res->callchains), &failed);
	jput(doc, "samples_with_callchain", jcount(res->with_callchain), &failed);
	jput(doc, "symbolizer", jstr_or_null(res->symbolizer), &failed);
	jput(doc, "addresses", jcount(res->nr_addrs), &failed);
	jput(doc, "resolved_addresses", jcount(res->nr_resolved), &failed);
	jput(doc, "top", r->top ? jcount(r->top) : json_null(), &failed);
	jput(doc, "functions", functions(r, &failed), &failed);
	jput(doc, "lines", lines(r, &failed), &failed);
	jput(doc, "lines_samples", jcount(res->lines_known), &failed);
	jput(doc, "stacks", stacks(r, &failed), &failed);
	jput(left, "functions", jcount(res->nr_functions - cut(res->nr_functions, r->top)), &failed);
	jput(left, "lines", jcount(res->nr_lines - cut(res->nr_lines, r->top)), &failed);
	jput(left, "stacks", jcount(res->nr_stacks - cut(res->nr_stacks, r->top)), &failed);
	jput(doc, "rows_left_out", left, &failed);
	if (r->stopped_at) {
		json_t *ds = json_object();

		jput(ds, "offset", jcount(r->stopped_at), &failed);
		jput(ds, "unread_bytes", jcount(r->unread_bytes), &failed);
		jput(doc, "data_stopped", ds, &failed);
	} else {
		jput(doc, "data_stopped", json_null(), &failed);
	}
	ret = failed || !doc ? tdp_err_oom(err) : jdumps(out, doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER, err);
	json_decref(doc);
	return ret;
}
