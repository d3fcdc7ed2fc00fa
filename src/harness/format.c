/*
 * format.c: a result as text for people or as one JSON object for programs
 * (tdprof loop reads it). Both write into a caller's buffer with snprintf's
 * contract: always NUL-terminated, returning the length the whole text needs.
 * Unmeasured values are "not counted" in text and null in JSON, never 0.
 */
#include "harness-internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

struct out {
	char *buf;
	size_t size;
	size_t len;
};

static void outf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void outf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	if (o->len < o->size)
		n = vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
	else
		n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

const char *tdp_harness_method_name(enum tdp_harness_method m)
{
	switch (m) {
	case TDP_HARNESS_METHOD_CLOCK:
		return "clock";
	case TDP_HARNESS_METHOD_READ:
		return "read";
	case TDP_HARNESS_METHOD_RDPMC:
		return "rdpmc";
	}
	return "unknown";
}

const char *tdp_harness_clock_name(enum tdp_harness_clock c)
{
	switch (c) {
	case TDP_HARNESS_CLOCK_MONOTONIC_RAW:
		return "monotonic_raw";
	case TDP_HARNESS_CLOCK_TSC:
		return "tsc";
	}
	return "unknown";
}

static const char *const counter_names[TDP_HARNESS_NR_COUNTERS] = { "cycles", "instructions", "branch_misses" };

/* A duration with a unit that keeps 4 significant digits readable. */
static void out_time(struct out *o, double ns)
{
	double a = fabs(ns);

	if (isnan(ns))
		outf(o, "-");
	else if (a < 1e3)
		outf(o, "%.4g ns", ns);
	else if (a < 1e6)
		outf(o, "%.4g us", ns / 1e3);
	else if (a < 1e9)
		outf(o, "%.4g ms", ns / 1e6);
	else
		outf(o, "%.4g s", ns / 1e9);
}

size_t tdp_harness_format_text(const struct tdp_harness_result *r, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };

	if (size)
		buf[0] = '\0';
	outf(&o, "kernel '%s': ", r->kernel ? r->kernel : "(unnamed)");
	out_time(&o, r->ns.median);
	outf(&o, " per iteration (median of %u kept of %u repetitions; min ", r->kept, r->repetitions);
	out_time(&o, r->ns.min);
	outf(&o, ", MAD ");
	out_time(&o, r->ns.mad);
	if (isnan(r->ns.spread))
		outf(&o, ", spread -)\n");
	else
		outf(&o, ", spread %.2f %%)\n", 100 * r->ns.spread);
	outf(&o, "  iterations     N = %llu per measurement, and 2N; fixed cost ",
	     (unsigned long long)r->iterations);
	out_time(&o, r->fixed_cost_ns);
	outf(&o, " per measurement (removed)\n");
	if (r->remeasured)
		outf(&o, "  discarded      %u attempts (%u preempted, %u migrated, %u with t(2N) <= t(N), %u with 2N "
		     "not twice N), measured again\n", r->remeasured, r->discarded_preempted, r->discarded_migrated,
		     r->discarded_nonpositive, r->discarded_inconsistent);
	outf(&o, "  method         %s, time from %s", tdp_harness_method_name(r->method),
	     tdp_harness_clock_name(r->clock));
	if (r->cpu >= 0)
		outf(&o, " on CPU %d\n", r->cpu);
	else
		outf(&o, ", not pinned\n");
	for (int i = 0; i < TDP_HARNESS_NR_COUNTERS; i++) {
		outf(&o, "  %-14s ", counter_names[i]);
		if (r->has_counter[i])
			outf(&o, "%.4g per iteration (min %.4g, spread %.2f %%)\n", r->counter[i].median, r->counter[i].min,
			     100 * r->counter[i].spread);
		else
			outf(&o, "not counted\n");
	}
	if (!isnan(r->ipc))
		outf(&o, "  IPC            %.3g\n", r->ipc);
	if (r->has_topdown) {
		outf(&o, "  top-down       retiring %.1f %%, bad speculation %.1f %%, frontend bound %.1f %%, backend "
		     "bound %.1f %%", r->retiring, r->bad_speculation, r->frontend_bound, r->backend_bound);
		if (!isnan(r->smt_contention))
			outf(&o, ", smt contention %.1f %%", r->smt_contention);
		outf(&o, "\n");
	}
	if (r->note[0])
		outf(&o, "  note: %s\n", r->note);
	if (r->warning[0])
		outf(&o, "  warning: %s\n", r->warning);
	return o.len;
}

static void json_str(struct out *o, const char *s)
{
	outf(o, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			outf(o, "\\%c", *p);
		else if (*p < 0x20)
			outf(o, "\\u%04x", *p);
		else
			outf(o, "%c", *p);
	}
	outf(o, "\"");
}

static void json_num(struct out *o, double v)
{
	if (isnan(v) || isinf(v))
		outf(o, "null");
	else
		outf(o, "%.9g", v);
}

static void json_stat(struct out *o, const struct tdp_harness_stat *s)
{
	outf(o, "{\"median\": ");
	json_num(o, s->median);
	outf(o, ", \"min\": ");
	json_num(o, s->min);
	outf(o, ", \"max\": ");
	json_num(o, s->max);
	outf(o, ", \"mad\": ");
	json_num(o, s->mad);
	outf(o, ", \"spread_pct\": ");
	json_num(o, 100 * s->spread);
	outf(o, "}");
}

static bool any_counter(const struct tdp_harness_result *r)
{
	for (int i = 0; i < TDP_HARNESS_NR_COUNTERS; i++)
		if (r->has_counter[i])
			return true;
	return false;
}

size_t tdp_harness_format_json(const struct tdp_harness_result *r, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };

	if (size)
		buf[0] = '\0';
	outf(&o, "{\"kernel\": ");
	if (r->kernel)
		json_str(&o, r->kernel);
	else
		outf(&o, "null");
	outf(&o, ", \"method\": \"%s\", \"clock\": \"%s\", \"cpu\": ", tdp_harness_method_name(r->method),
	     tdp_harness_clock_name(r->clock));
	if (r->cpu >= 0)
		outf(&o, "%d", r->cpu);
	else
		outf(&o, "null");
	outf(&o, ", \"iterations\": %llu, \"repetitions\": %u", (unsigned long long)r->iterations, r->repetitions);
	outf(&o, ", \"median_ns_per_iteration\": ");
	json_num(&o, r->ns.median);
	outf(&o, ", \"min_ns_per_iteration\": ");
	json_num(&o, r->ns.min);
	outf(&o, ", \"max_ns_per_iteration\": ");
	json_num(&o, r->ns.max);
	outf(&o, ", \"mad_ns_per_iteration\": ");
	json_num(&o, r->ns.mad);
	outf(&o, ", \"spread_pct\": ");
	json_num(&o, 100 * r->ns.spread);
	outf(&o, ", \"fixed_cost_ns\": ");
	json_num(&o, r->fixed_cost_ns);
	outf(&o, ", \"seconds\": ");
	json_num(&o, r->seconds);
	outf(&o, ", \"counters\": ");
	if (any_counter(r)) {
		outf(&o, "{");
		for (int i = 0; i < TDP_HARNESS_NR_COUNTERS; i++) {
			outf(&o, "%s\"%s\": ", i ? ", " : "", counter_names[i]);
			if (r->has_counter[i])
				json_stat(&o, &r->counter[i]);
			else
				outf(&o, "null");
		}
		outf(&o, ", \"ipc\": ");
		json_num(&o, r->ipc);
		outf(&o, ", \"ghz\": ");
		json_num(&o, r->ghz);
		outf(&o, "}");
	} else {
		outf(&o, "null");
	}
	outf(&o, ", \"level1\": ");
	if (r->has_topdown) {
		outf(&o, "{\"retiring\": ");
		json_num(&o, r->retiring);
		outf(&o, ", \"bad_speculation\": ");
		json_num(&o, r->bad_speculation);
		outf(&o, ", \"frontend_bound\": ");
		json_num(&o, r->frontend_bound);
		outf(&o, ", \"backend_bound\": ");
		json_num(&o, r->backend_bound);
		if (!isnan(r->smt_contention)) {
			outf(&o, ", \"smt_contention\": ");
			json_num(&o, r->smt_contention);
		}
		outf(&o, "}");
	} else {
		outf(&o, "null");
	}
	/* the vendor's extra level-1 nodes, named as such (design.md), as topdown does */
	outf(&o, ", \"extra\": [%s]", r->has_topdown && !isnan(r->smt_contention) ? "\"smt_contention\"" : "");
	outf(&o, ", \"context_switches\": %llu, \"migrations\": %llu, \"page_faults\": %llu, \"remeasured\": %u, "
	     "\"kept_repetitions\": %u, \"discarded\": {\"preempted\": %u, \"migrated\": %u, \"nonpositive\": %u, "
	     "\"inconsistent\": %u}, \"steal_ms\": ",
	     (unsigned long long)r->context_switches, (unsigned long long)r->migrations,
	     (unsigned long long)r->page_faults, r->remeasured, r->kept, r->discarded_preempted,
	     r->discarded_migrated, r->discarded_nonpositive, r->discarded_inconsistent);
	json_num(&o, r->steal_ms);
	outf(&o, ", \"notes\": [");
	if (r->note[0])
		json_str(&o, r->note);
	outf(&o, "], \"warnings\": [");
	if (r->warning[0])
		json_str(&o, r->warning);
	outf(&o, "]}\n");
	return o.len;
}
