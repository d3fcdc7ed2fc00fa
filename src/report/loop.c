/* loop.c: the result of `tdprof loop` as text or JSON (see report/loop.h). */
#include "report/loop.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "report/json-util.h"

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void fmt_time(struct strbuf *sb, double ns)
{
	double a = fabs(ns);

	if (isnan(ns))
		strbuf_adds(sb, "-");
	else if (a < 1e3)
		strbuf_addf(sb, "%.4g ns", ns);
	else if (a < 1e6)
		strbuf_addf(sb, "%.4g us", ns / 1e3);
	else if (a < 1e9)
		strbuf_addf(sb, "%.4g ms", ns / 1e6);
	else
		strbuf_addf(sb, "%.4g s", ns / 1e9);
}

static json_t *mca_json(const struct loop_mca *m)
{
	if (!m->ok)
		return json_null();
	return json_pack("{s:s, s:I, s:s, s:f, s:f, s:f, s:f, s:f}", "block", m->what, "instructions",
			 (json_int_t)m->nr_insns, "mcpu", m->mcpu, "block_rthroughput", m->block_rthroughput,
			 "cycles_per_iteration", m->cycles_per_iter, "ipc", m->ipc, "uops_per_cycle",
			 m->uops_per_cycle, "dispatch_width", m->dispatch_width);
}

/* The document of --json: ours first, then the harness's result, then llvm-mca's prediction. */
static json_t *build_json(const struct loop_job *j, json_t *res, const struct loop_mca *m)
{
	json_t *root = json_object(), *flags = json_array(), *cc = json_array(), *v;
	const char *key;

	for (size_t i = 0; i < j->nr_cflags; i++)
		json_array_append_new(flags, json_string(j->cflags[i]));
	for (size_t i = 0; i < j->nr_cc; i++)
		json_array_append_new(cc, json_string(j->cc_argv[i]));
	/* "pmu" when the hardware counted; measured with the clock alone, the document says so
	 * by its "method" and claims no backend (issue 16) */
	v = json_object_get(res, "method");
	if (!json_is_string(v) || strcmp(json_string_value(v), "clock"))
		json_object_set_new(root, "backend", json_string("pmu"));
	json_object_set_new(root, "file", json_string(j->file));
	json_object_set_new(root, "function", json_string(j->function));
	json_object_set_new(root, "compiler", cc);
	json_object_set_new(root, "cflags", flags);
	json_object_foreach(res, key, v)
		if (strcmp(key, "kernel"))
			json_object_set(root, key, v);
	json_object_set_new(root, "llvm_mca", mca_json(m));
	if (!m->ok && m->why_not[0]) {
		json_t *notes = json_object_get(root, "notes");
		char line[320];

		snprintf(line, sizeof(line), "llvm-mca: %s", m->why_not);
		if (json_is_array(notes))
			json_array_append_new(notes, json_string(line));
	}
	return root;
}

static void counter_line(struct strbuf *sb, json_t *counters, const char *key, const char *label)
{
	json_t *c = json_object_get(counters, key);

	if (json_is_object(c))
		strbuf_addf(sb, "  %-13s %.4g per call (min %.4g)\n", label, num(c, "median"), num(c, "min"));
	else
		strbuf_addf(sb, "  %-13s not counted\n", label);
}

static void build_text(struct strbuf *sb, const struct loop_job *j, json_t *res, const struct loop_mca *m)
{
	json_t *counters = json_object_get(res, "counters"), *l1 = json_object_get(res, "level1");
	json_t *notes = json_object_get(res, "notes"), *cpu = json_object_get(res, "cpu");
	size_t i;
	json_t *v;

	strbuf_addf(sb, "%s() in %s,", j->function, j->file);
	for (i = 0; i < j->nr_cc; i++)
		strbuf_addf(sb, " %s", j->cc_argv[i]);
	for (i = 0; i < j->nr_cflags; i++)
		strbuf_addf(sb, " %s", j->cflags[i]);
	if (json_is_integer(cpu))
		strbuf_addf(sb, ", pinned to CPU %lld\n", (long long)json_integer_value(cpu));
	else
		strbuf_addf(sb, ", not pinned\n");
	strbuf_adds(sb, "  per call      ");
	fmt_time(sb, num(res, "median_ns_per_iteration"));
	strbuf_addf(sb, "  (median of %lld kept of %lld repetitions; min ",
		    (long long)json_integer_value(json_object_get(res, "kept_repetitions")),
		    (long long)json_integer_value(json_object_get(res, "repetitions")));
	fmt_time(sb, num(res, "min_ns_per_iteration"));
	if (isnan(num(res, "spread_pct")))
		strbuf_adds(sb, "; spread -)\n");
	else
		strbuf_addf(sb, "; spread %.2f %%)\n", num(res, "spread_pct"));
	strbuf_addf(sb, "  iterations    N = %lld calls per measurement, and 2N; fixed cost ",
		    (long long)json_integer_value(json_object_get(res, "iterations")));
	fmt_time(sb, num(res, "fixed_cost_ns"));
	strbuf_addf(sb, " per measurement (removed)\n");
	if (num(res, "remeasured") > 0) {
		json_t *d = json_object_get(res, "discarded");

		strbuf_addf(sb, "  discarded     %.0f attempts, measured again (%.0f preempted, %.0f migrated, %.0f with "
				"t(2N) <= t(N), %.0f with 2N not twice N)\n",
			    num(res, "remeasured"), num(d, "preempted"), num(d, "migrated"), num(d, "nonpositive"),
			    num(d, "inconsistent"));
	}
	strbuf_addf(sb, "  method        %s\n", json_string_value(json_object_get(res, "method")));
	counter_line(sb, counters, "cycles", "cycles");
	counter_line(sb, counters, "instructions", "instructions");
	counter_line(sb, counters, "branch_misses", "branch-misses");
	if (json_is_object(counters) && !isnan(num(counters, "ipc")))
		strbuf_addf(sb, "  IPC           %.3g\n", num(counters, "ipc"));
	if (json_is_object(l1))
		strbuf_addf(sb, "  top-down      retiring %.1f %%, bad speculation %.1f %%, frontend bound %.1f %%, "
				"backend bound %.1f %%\n",
			    num(l1, "retiring"), num(l1, "bad_speculation"), num(l1, "frontend_bound"),
			    num(l1, "backend_bound"));
	if (m->ok)
		strbuf_addf(sb, "  llvm-mca      %s (%zu instruction%s) on %s: Block RThroughput %.2f cycles, "
				"%.2f cycles per iteration simulated, IPC %.2f (a prediction)\n",
			    m->what, m->nr_insns, m->nr_insns == 1 ? "" : "s", m->mcpu, m->block_rthroughput,
			    m->cycles_per_iter, m->ipc);
	else if (m->why_not[0])
		strbuf_addf(sb, "  llvm-mca      none: %s\n", m->why_not);
	json_array_foreach(notes, i, v)
		if (json_is_string(v))
			strbuf_addf(sb, "  note: %s\n", json_string_value(v));
}

int loop_text_render(struct strbuf *out, const struct loop_report *r, struct tdp_err *err)
{
	build_text(out, r->job, r->result, r->mca);
	return strbuf_failed(out) ? tdp_err_oom(err) : 0;
}

int loop_json_render(struct strbuf *out, const struct loop_report *r, struct tdp_err *err)
{
	json_t *doc = build_json(r->job, r->result, r->mca);
	int ret = jdumps(out, doc, JSON_INDENT(2), err);

	json_decref(doc);
	return ret;
}
