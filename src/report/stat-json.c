/* stat-json.c: `tdprof stat --json` (see stat.h). */
#include "report/stat.h"
#include "base/alloc.h"
#include "base/err.h"
#include "model/stats.h"
#include "report/json-util.h"

#include <jansson.h>
#include <math.h>

/* A JSON number, or null for NaN and infinities (JSON has neither). */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static const char *status_name(enum count_status s)
{
	switch (s) {
	case COUNT_OK: return "counted";
	case COUNT_NOT_COUNTED: return "not counted";
	case COUNT_NOT_SUPPORTED: return "not supported";
	}
	return "unknown";
}

/* json_object_set_new that remembers a failure instead of returning it each time. */
/*
 * Every run's value of c in its display unit and the 95 % interval of their mean
 * (Student's t, model/stats.h), as issue 9 asks of -r N: "keeps every run's
 * figures and reports each metric's mean and a 95 % confidence interval".
 */
static void put_runs(json_t *e, const struct stat_report *r, const struct count *c, bool *failed)
{
	const struct count *src = r->run_counts ? countset_find(r->run_counts, c->name, c->group) : NULL;
	json_t *vals = json_array();
	struct stats_summary sum;
	double *x;
	size_t n = 0;

	if (!src || !r->run_values || r->nr_runs < 2) {
		json_decref(vals);
		return;
	}
	x = tdp_calloc(r->nr_runs, sizeof(*x));
	if (!x) {
		json_decref(vals);
		*failed = true;
		return;
	}
	for (unsigned k = 0; k < r->nr_runs; k++) {
		struct count one = *src;

		one.value = r->run_values[(size_t)(src - r->run_counts->v) * r->nr_runs + k];
		if (isnan(one.value)) {
			jappend(vals, json_null(), failed);
			continue;
		}
		x[n++] = stat_display_value(&one);
		jappend(vals, num(x[n - 1]), failed);
	}
	stats_summarize(x, n, &sum);
	jput(e, "run_values", vals, failed);
	if (n >= 2) {
		json_t *ci = json_array();

		jappend(ci, num(sum.lo), failed);
		jappend(ci, num(sum.hi), failed);
		jput(e, "ci95", ci, failed);
	} else {
		jput(e, "ci95", json_null(), failed);
	}
	tdp_free(x);
}

static json_t *events_array(const struct stat_report *r, const struct countset *cs, bool *failed)
{
	json_t *a = json_array();

	if (!a) {
		*failed = true;
		return NULL;
	}
	for (size_t i = 0; i < cs->nr; i++) {
		const struct count *c = &cs->v[i];
		json_t *e = json_object();
		bool ok = c->status == COUNT_OK;

		if (!e) {
			*failed = true;
			break;
		}
		jput(e, "event", json_string(c->name), failed);
		jput(e, "value", ok ? num(stat_display_value(c)) : json_null(), failed);
		jput(e, "unit", json_string(c->unit), failed);
		jput(e, "status", json_string(status_name(c->status)), failed);
		jput(e, "running_pct", ok && c->running_pct >= 0 ? num(c->running_pct) : json_null(), failed);
		jput(e, "scaled", json_boolean(ok && c->running_pct < 100.0), failed);
		jput(e, "stddev_pct", ok && c->stddev_pct >= 0 ? num(c->stddev_pct) : json_null(), failed);
		if (ok && r)
			put_runs(e, r, c, failed);
		jappend(a, e, failed);
	}
	return a;
}

static json_t *metrics_object(const struct triage_metrics *m, bool *failed)
{
	json_t *o = json_object();

	if (!o) {
		*failed = true;
		return NULL;
	}
	jput(o, "cpi", num(m->cpi), failed);
	jput(o, "ipc", num(m->ipc), failed);
	jput(o, "branch_miss_rate", num(m->branch_miss_rate), failed);
	jput(o, "branch_mpki", num(m->branch_mpki), failed);
	jput(o, "l1i_mpki", num(m->l1i_mpki), failed);
	jput(o, "llc_mpki", num(m->llc_mpki), failed);
	jput(o, "llc_event", m->llc_event ? json_string(m->llc_event) : json_null(), failed);
	return o;
}

static json_t *route_object(const struct stat_report *r, bool *failed)
{
	const struct triage_verdict *v = r->verdict;
	json_t *o = json_object(), *sig = json_array();
	char buf[512];

	if (!o || !sig) {
		json_decref(o);
		json_decref(sig);
		*failed = true;
		return NULL;
	}
	jput(o, "next", v->next == TRIAGE_UNKNOWN ? json_null() : json_string(triage_next_name(v->next)), failed);
	jput(o, "reason", json_string(v->reason), failed);
	jput(o, "command", json_string((r->simulated ? triage_next_text_sim : triage_next_text)(v->next, r->command,
												 buf, sizeof(buf))),
	     failed);
	for (size_t i = 0; i < v->nr_signals; i++) {
		json_t *s = json_object();

		if (!s) {
			*failed = true;
			break;
		}
		jput(s, "kind", json_string(triage_next_name(v->signals[i].kind)), failed);
		jput(s, "value", num(v->signals[i].value), failed);
		jput(s, "threshold", num(v->signals[i].threshold), failed);
		jput(s, "reason", json_string(v->signals[i].reason), failed);
		jappend(sig, s, failed);
	}
	jput(o, "signals", sig, failed);
	return o;
}

int stat_json_print(FILE *f, const struct stat_report *r, struct tdp_err *err)
{
	json_t *doc = json_object(), *hw = json_object();
	bool failed = !doc || !hw;

	if (failed) {
		json_decref(hw);
		return jfinish(doc, failed, f, 15, err);
	}
	jput(doc, "backend", json_string(backend_name(r->counts->backend)), &failed);
	jput(doc, "command", r->command ? json_string(r->command) : json_null(), &failed);
	jput(doc, "target", json_string(r->target ? r->target : ""), &failed);
	jput(doc, "runs", json_integer(r->runs), &failed);
	jput(doc, "events", events_array(r, r->counts, &failed), &failed);
	if (r->metrics)
		jput(doc, "metrics", metrics_object(r->metrics, &failed), &failed);
	if (r->verdict)
		jput(doc, "route", route_object(r, &failed), &failed);
	jput(hw, "available", json_boolean(!r->hw_note), &failed);
	jput(hw, "reason", r->hw_note ? json_string(r->hw_note) : json_null(), &failed);
	jput(hw, "hint", r->hw_hint ? json_string(r->hw_hint) : json_null(), &failed);
	jput(doc, "hardware", hw, &failed);
	jput(doc, "exit_status", json_integer(r->exit_status), &failed);
	jput(doc, "elapsed_ns", r->counts->elapsed_ns >= 0 ? json_integer((json_int_t)llround(r->counts->elapsed_ns))
							   : json_null(),
	    &failed);
	jput(doc, "elapsed_stddev_ns", r->runs > 1 ? num(r->elapsed_stddev_ns) : json_null(), &failed);
	if (r->run_elapsed_ns && r->nr_runs > 1) {
		json_t *a = json_array();

		for (unsigned k = 0; k < r->nr_runs; k++)
			jappend(a, isnan(r->run_elapsed_ns[k]) ? json_null() : num(r->run_elapsed_ns[k]), &failed);
		jput(doc, "run_elapsed_ns", a, &failed);
	}
	jput(doc, "user_ns", r->user_ns >= 0 ? json_integer((json_int_t)llround(r->user_ns)) : json_null(), &failed);
	jput(doc, "sys_ns", r->sys_ns >= 0 ? json_integer((json_int_t)llround(r->sys_ns)) : json_null(), &failed);
	if (r->intervals) {
		json_t *a = json_array();

		if (!a)
			failed = true;
		for (size_t i = 0; a && i < r->nr_intervals; i++) {
			json_t *iv = json_object();

			if (!iv) {
				failed = true;
				break;
			}
			jput(iv, "time", num((double)r->intervals[i].t_ns / 1e9), &failed);
			jput(iv, "time_ns", json_integer((json_int_t)r->intervals[i].t_ns), &failed);
			jput(iv, "events", events_array(NULL, r->intervals[i].counts, &failed), &failed);
			jappend(a, iv, &failed);
		}
		jput(doc, "intervals", a, &failed);
	}
	return jfinish(doc, failed, f, 15, err);
}
