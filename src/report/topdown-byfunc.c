/* topdown-byfunc.c: the functions section of `tdprof topdown --by function` (see topdown.h). */
#include "report/topdown.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "base/strbuf.h"
#include "diagnose/byfunc.h"
#include "model/model.h"
#include "report/fit.h"
#include "report/json-util.h"

static void pct(FILE *out, double v)
{
	if (isnan(v))
		fprintf(out, " %6s", "-");
	else
		fprintf(out, " %6.1f", v);
}

/* A name from a recording or a binary, control characters and bad UTF-8 escaped, fitted to w columns. */
static const char *safe_fit(const char *s, size_t w, char *buf, size_t size, bool path)
{
	struct strbuf sb = STRBUF_INIT;
	const char *r;

	strbuf_add_name(&sb, s ? s : "");
	r = strbuf_failed(&sb) ? "?" : sb.buf;
	r = path ? fit_path(r, w, buf, size) : fit_name(r, w, buf, size);
	strbuf_release(&sb);
	return r;
}

void topdown_byfunc_text(FILE *out, const struct topdown_report *r)
{
	byfunc_text(out, r->functions);
}

/* Whether every function's level 1 is unmeasurable for one reason (said once, in the heading). */
static bool same_why(const struct byfunc_result *f)
{
	for (size_t i = 0; i < f->nr; i++)
		if (f->v[i].dominant || strcmp(f->v[i].why, f->v[0].why))
			return false;
	return f->nr > 0 && f->v[0].why[0];
}

/* What the shares are of, and in which model, as the section's first line says it. */
static void heading(FILE *out, const struct byfunc_result *f, size_t width)
{
	char ev[64];

	if (f->source == BYFUNC_SIM) {
		fprintf(out, "\nfunctions holding %.0f %% of cycles (%zu of %zu), each in percent of its own slots:\n",
			BYFUNC_COVER, f->nr, f->nr_functions);
		return;
	}
	fprintf(out, "\nfunctions holding %.0f %% of %s (%zu of %zu; %llu samples with group reads),\neach in percent "
		"of its own slots (model %s):\n",
		BYFUNC_COVER, safe_fit(f->events[f->leader], 40, ev, sizeof(ev), false), f->nr, f->nr_functions,
		(unsigned long long)f->samples, f->model ? f->model : "none");
	if (same_why(f))
		fprintf(out, "  (level 1 is not measurable from these events: %s)\n",
			safe_fit(f->v[0].why, width > 60 ? width - 46 : 14, ev, sizeof(ev), false));
}

/* The second line of a function: its dominant node and guilty line, or why it has none. */
static void second_line(FILE *out, const struct byfunc_result *f, const struct byfunc_fn *fn, size_t width)
{
	char where[128], at[160], why[160];
	int used;

	if (fn->dominant)
		used = fprintf(out, "         %s%s%s", model_node_label(fn->dominant), fn->dominant_node ? " > " : "",
			       fn->dominant_node ? model_node_label(fn->dominant_node) : "");
	else if (f->source == BYFUNC_GROUP_READ && fn->why[0] && !same_why(f))
		used = fprintf(out, "         not measurable: %s",
			       safe_fit(fn->why, width > 60 ? width - 50 : 10, why, sizeof(why), false));
	else
		used = fprintf(out, "         -");
	if (fn->file && fn->line) {
		/* ", at " + path + ":line (NNN %)" within the line's width */
		int tail = snprintf(at, sizeof(at), ":%llu (%.0f %%)", (unsigned long long)fn->line, fn->line_pct);
		size_t room = width > (size_t)used + 5 + (size_t)tail + 1 ? width - used - 5 - tail - 1 : 12;

		fprintf(out, ", at %s%s", safe_fit(fn->file, room < 12 ? 12 : room, where, sizeof(where), true), at);
	}
	fputc('\n', out);
}

/* Group reads: each function's share of each event's total, as `perf report --group` prints them. Event
 * names longer than a column are numbered, with a legend. */
static void counts_table(FILE *out, const struct byfunc_result *f, size_t width)
{
	char name[128];
	bool legend = false;
	size_t used = 2;

	for (size_t e = 0; e < f->nr_events; e++)
		legend |= !f->events[e] || strlen(f->events[e]) > 10;
	fputs("\neach event's counts by function, in percent of its total (perf report --group):\n", out);
	for (size_t e = 0; legend && e < f->nr_events; e++)
		fprintf(out, "  [%zu] %s\n", e + 1, safe_fit(f->events[e], width - 8, name, sizeof(name), false));
	fputs("  ", out);
	for (size_t e = 0; e < f->nr_events; e++) {
		if (legend)
			snprintf(name, sizeof(name), "[%zu]", e + 1);
		else
			safe_fit(f->events[e], 10, name, sizeof(name), false);
		fprintf(out, " %7s", name);
		used += 1 + (strlen(name) > 7 ? strlen(name) : 7);
	}
	fputc('\n', out);
	for (size_t i = 0; i < f->nr; i++) {
		const struct byfunc_fn *fn = &f->v[i];
		size_t w = used + 4 < width ? width - used - 4 : 12;

		fputs("  ", out);
		for (size_t e = 0; e < f->nr_events; e++) {
			int cw = legend || !f->events[e] || strlen(f->events[e]) <= 7 ? 7 : (int)strlen(f->events[e]);

			if (f->totals[e])
				fprintf(out, " %*.2f%%", cw - 1, 100.0 * (double)fn->counts[e] / (double)f->totals[e]);
			else
				fprintf(out, " %*s", cw, "-");
		}
		fprintf(out, "  %s%s\n", fn->kernel ? "[k] " : "", safe_fit(fn->name, w < 12 ? 12 : w, name, sizeof(name), false));
	}
}

void byfunc_text(FILE *out, const struct byfunc_result *f)
{
	const size_t width = FIT_DEFAULT_COLUMNS;

	if (!f)
		return;
	heading(out, f, width);
	fprintf(out, "  %6s %6s %6s %6s %6s  %s\n", f->source == BYFUNC_SIM ? "cycles" : "share", "Ret", "BadSp", "FE",
		"BE", f->source == BYFUNC_SIM ? "function; dominant node, guilty line"
					      : "function; dominant node, guilty line");
	for (size_t i = 0; i < f->nr; i++) {
		const struct byfunc_fn *fn = &f->v[i];
		char name[128];

		fprintf(out, "  %5.1f%%", fn->share_pct);
		pct(out, fn->level1.retiring);
		pct(out, fn->level1.bad_speculation);
		pct(out, fn->level1.frontend_bound);
		pct(out, fn->level1.backend_bound);
		fprintf(out, "  %s%s\n", fn->kernel ? "[k] " : "", safe_fit(fn->name, width - 38, name, sizeof(name), false));
		second_line(out, f, fn, width);
	}
	if (f->rest_pct > 0)
		fprintf(out, "  %5.1f%% in %zu other functions\n", f->rest_pct, f->nr_functions - f->nr);
	if (f->source == BYFUNC_GROUP_READ)
		counts_table(out, f, width);
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* A name from a recording as a JSON string: invalid UTF-8 escaped as strbuf_add_name() does. */
static json_t *jname(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *v;

	if (!s)
		return json_null();
	if ((v = json_string(s)))
		return v;
	strbuf_add_name(&sb, s);
	v = strbuf_failed(&sb) ? NULL : json_string(sb.buf);
	strbuf_release(&sb);
	return v;
}

/* jput() with a key from a recording (escaped the same way). */
static void jput_name(json_t *o, const char *key, json_t *v, bool *failed)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_add_name(&sb, key);
	if (strbuf_failed(&sb)) {
		json_decref(v);
		*failed = true;
	} else {
		jput(o, sb.buf, v, failed);
	}
	strbuf_release(&sb);
}

void topdown_byfunc_json(json_t *doc, const struct topdown_report *r, bool *failed)
{
	byfunc_json(doc, r->functions, failed);
}

/* Group reads: the function's counts of each event, by the event's name. */
static json_t *counts_object(const struct byfunc_result *f, const uint64_t *v, bool *failed)
{
	json_t *o = json_object();

	if (!o) {
		*failed = true;
		return NULL;
	}
	for (size_t e = 0; e < f->nr_events; e++)
		if (f->events[e])
			jput_name(o, f->events[e], jcount(v[e]), failed);
	return o;
}

static json_t *fn_object(const struct byfunc_result *f, const struct byfunc_fn *fn, bool *failed)
{
	json_t *o = json_object(), *l1 = json_object(), *l2 = json_object();

	if (!o || !l1 || !l2) {
		json_decref(o);
		json_decref(l1);
		json_decref(l2);
		*failed = true;
		return NULL;
	}
	jput(o, "function", jname(fn->name), failed);
	jput(o, "dso", jname(fn->dso), failed);
	jput(o, "kernel", json_boolean(fn->kernel), failed);
	jput(o, "cycles", num(fn->cycles), failed);
	jput(o, "share_pct", num(fn->share_pct), failed);
	jput(o, "instructions", fn->has_instructions ? jcount(fn->instructions) : json_null(), failed);
	jput(l1, "retiring", num(fn->level1.retiring), failed);
	jput(l1, "bad_speculation", num(fn->level1.bad_speculation), failed);
	jput(l1, "frontend_bound", num(fn->level1.frontend_bound), failed);
	jput(l1, "backend_bound", num(fn->level1.backend_bound), failed);
	jput(o, "level1", l1, failed);
	if (fn->nr_extra) {
		json_t *x = json_object();

		for (size_t i = 0; x && i < fn->nr_extra; i++)
			jput(x, fn->extra_key[i], num(fn->extra[i]), failed);
		jput(o, "level1_extra", x ? x : json_null(), failed);
		if (!x)
			*failed = true;
	} else {
		jput(o, "level1_extra", json_null(), failed);
	}
	for (size_t i = 0; i < BYFUNC_L2_NR; i++)
		jput(l2, byfunc_l2_key(i), num(fn->level2[i]), failed);
	jput(o, "level2", l2, failed);
	jput(o, "dominant", jstr_or_null(fn->dominant), failed);
	jput(o, "dominant_node", jstr_or_null(fn->dominant_node), failed);
	jput(o, "why", fn->why[0] ? jname(fn->why) : json_null(), failed);
	jput(o, "file", jname(fn->file), failed);
	jput(o, "line", fn->line ? json_integer((json_int_t)fn->line) : json_null(), failed);
	jput(o, "line_share_pct", fn->line ? num(fn->line_pct) : json_null(), failed);
	if (f->source == BYFUNC_GROUP_READ) {
		jput(o, "samples", jcount(fn->samples), failed);
		jput(o, "counts", counts_object(f, fn->counts, failed), failed);
	} else {
		jput(o, "samples", json_null(), failed);
		jput(o, "counts", json_null(), failed);
	}
	return o;
}

/* "by_function": where the functions' figures come from. */
static json_t *about(const struct byfunc_result *f, bool *failed)
{
	json_t *o = json_object(), *ev = json_array();
	bool group = f->source == BYFUNC_GROUP_READ;

	if (!o || !ev) {
		json_decref(o);
		json_decref(ev);
		*failed = true;
		return NULL;
	}
	jput(o, "source", json_string(group ? "group_read" : "sim"), failed);
	jput(o, "model", jstr_or_null(f->model), failed);
	jput(o, "level", json_integer(f->level), failed);
	jput(o, "cover_pct", json_real(BYFUNC_COVER), failed);
	jput(o, "nr_functions", json_integer((json_int_t)f->nr_functions), failed);
	for (size_t e = 0; e < f->nr_events; e++)
		jappend(ev, jname(f->events[e] ? f->events[e] : "?"), failed);
	jput(o, "events", ev, failed);
	jput(o, "leader", group ? jname(f->events[f->leader]) : json_null(), failed);
	jput(o, "totals", group ? counts_object(f, f->totals, failed) : json_null(), failed);
	jput(o, "samples", group ? jcount(f->samples) : json_null(), failed);
	return o;
}

void byfunc_json(json_t *doc, const struct byfunc_result *f, bool *failed)
{
	json_t *a;

	if (!f)
		return;
	if (!(a = json_array())) {
		*failed = true;
		return;
	}
	for (size_t i = 0; i < f->nr; i++)
		jappend(a, fn_object(f, &f->v[i], failed), failed);
	jput(doc, "functions", a, failed);
	jput(doc, "functions_other_pct", num(f->rest_pct), failed);
	jput(doc, "by_function", about(f, failed), failed);
}

void byfunc_csv(struct strbuf *out, const struct byfunc_result *f)
{
	if (!f)
		return;
	strbuf_adds(out, "function,dso,kernel,share_pct,retiring,bad_speculation,frontend_bound,backend_bound");
	for (size_t i = 0; i < BYFUNC_L2_NR; i++)
		strbuf_addf(out, ",%s", byfunc_l2_key(i));
	strbuf_adds(out, ",dominant,dominant_node,file,line,line_share_pct,samples");
	for (size_t e = 0; e < f->nr_events; e++) {
		strbuf_addch(out, ',');
		strbuf_add_csv_field(out, f->events[e] ? f->events[e] : "?");
	}
	strbuf_addch(out, '\n');
	for (size_t i = 0; i < f->nr; i++) {
		const struct byfunc_fn *fn = &f->v[i];
		const double l1[4] = { fn->level1.retiring, fn->level1.bad_speculation, fn->level1.frontend_bound,
				       fn->level1.backend_bound };

		strbuf_add_csv_field(out, fn->name);
		strbuf_addch(out, ',');
		strbuf_add_csv_field(out, fn->dso ? fn->dso : "");
		strbuf_addf(out, ",%d,%.4f", fn->kernel ? 1 : 0, fn->share_pct);
		for (size_t k = 0; k < 4 + BYFUNC_L2_NR; k++) {
			double v = k < 4 ? l1[k] : fn->level2[k - 4];

			if (isfinite(v))
				strbuf_addf(out, ",%.4f", v);
			else
				strbuf_addch(out, ',');
		}
		strbuf_addf(out, ",%s,%s,", fn->dominant ? fn->dominant : "", fn->dominant_node ? fn->dominant_node : "");
		strbuf_add_csv_field(out, fn->file ? fn->file : "");
		if (fn->line)
			strbuf_addf(out, ",%llu,%.2f", (unsigned long long)fn->line, fn->line_pct);
		else
			strbuf_adds(out, ",,");
		if (f->source == BYFUNC_GROUP_READ)
			strbuf_addf(out, ",%llu", (unsigned long long)fn->samples);
		else
			strbuf_addch(out, ',');
		for (size_t e = 0; e < f->nr_events; e++)
			strbuf_addf(out, ",%llu", (unsigned long long)fn->counts[e]);
		strbuf_addch(out, '\n');
	}
}
