/*
 * samples-text.c: the text report of plain samples (samples.h).
 */
#include "report/samples.h"
#include "report/branches.h"
#include "base/strbuf.h"

#include <inttypes.h>

static size_t cut(size_t n, size_t top)
{
	return top && top < n ? top : n;
}

static void header(struct strbuf *sb, const struct samples_report *r)
{
	const struct ips_result *res = r->res;

	report_recording_head(sb, r->file, r->recorded_by, r->cpu, r->backend, r->event);
	strbuf_adds(sb, ")\n");
	strbuf_addf(sb, "plain samples %" PRIu64 " (no branch stacks: hot code by instruction pointer), lost samples %"
		    PRIu64, res->samples, r->lost_samples);
	if (res->other_samples)
		strbuf_addf(sb, ", %" PRIu64 " samples of other events not counted", res->other_samples);
	strbuf_addch(sb, '\n');
	if (res->callchains)
		strbuf_addf(sb, "call chains: %" PRIu64 " samples have one\n", res->with_callchain);
	else
		strbuf_adds(sb, "call chains: not recorded (perf record -g records them)\n");
	if (r->stopped_at)
		strbuf_addf(sb, "the data stops at offset 0x%" PRIx64 ": %" PRIu64 " bytes were not read\n",
			    r->stopped_at, r->unread_bytes);
	strbuf_addf(sb, "symbols: %zu of %zu addresses resolved (%s)\n", res->nr_resolved, res->nr_addrs,
		    res->symbolizer ? res->symbolizer : "none");
}

static void functions(struct strbuf *sb, const struct samples_report *r)
{
	const struct ips_result *res = r->res;
	size_t n = cut(res->nr_functions, r->top);

	strbuf_addf(sb, "\nHot functions (%zu of %zu)%s\n", n, res->nr_functions,
		    res->callchains ? ": self samples, and total with the functions they called" : "");
	if (res->callchains)
		strbuf_addf(sb, "%10s  %7s  %10s  %7s  %s\n", "self", "share", "total", "share", "function");
	else
		strbuf_addf(sb, "%10s  %7s  %s\n", "samples", "share", "function");
	for (size_t i = 0; i < n; i++) {
		const struct ips_function *f = &res->functions[i];

		strbuf_addf(sb, "%10" PRIu64 "  %6.2f%%  ", f->self, 100 * f->self_share);
		if (res->callchains)
			strbuf_addf(sb, "%10" PRIu64 "  %6.2f%%  ", f->total, 100 * f->total_share);
		strbuf_add_name(sb, f->perf_text);
		if (f->dso) {
			strbuf_adds(sb, "  (");
			strbuf_add_name(sb, f->dso);
			strbuf_addch(sb, ')');
		}
		strbuf_addch(sb, '\n');
	}
}

static void lines(struct strbuf *sb, const struct samples_report *r)
{
	const struct ips_result *res = r->res;
	size_t n = cut(res->nr_lines, r->top);

	if (!res->nr_lines) {
		strbuf_adds(sb, "\nHot source lines: none (no debug info for the sampled code)\n");
		return;
	}
	strbuf_addf(sb, "\nHot source lines (%zu of %zu; %" PRIu64 " samples have a line)\n", n, res->nr_lines,
		    res->lines_known);
	strbuf_addf(sb, "%10s  %7s  %s\n", "samples", "share", "line");
	for (size_t i = 0; i < n; i++) {
		const struct ips_line *l = &res->lines[i];

		strbuf_addf(sb, "%10" PRIu64 "  %6.2f%%  ", l->samples, 100 * l->share);
		strbuf_add_name(sb, l->file);
		strbuf_addf(sb, ":%u", l->line);
		if (l->function) {
			strbuf_adds(sb, "  ");
			strbuf_add_name(sb, l->function);
		}
		strbuf_addch(sb, '\n');
	}
}

static void stacks(struct strbuf *sb, const struct samples_report *r)
{
	const struct ips_result *res = r->res;
	size_t n = cut(res->nr_stacks, r->top);

	if (!res->callchains)
		return;
	strbuf_addf(sb, "\nHot call chains (%zu of %zu; outermost first; --folded for a flame graph)\n", n,
		    res->nr_stacks);
	strbuf_addf(sb, "%10s  %7s  %s\n", "samples", "share", "chain");
	for (size_t i = 0; i < n; i++) {
		const struct ips_stack *s = &res->stacks[i];

		strbuf_addf(sb, "%10" PRIu64 "  %6.2f%%  ", s->samples, 100 * s->share);
		strbuf_add_name(sb, s->comm);
		for (size_t k = 0; k < s->nr_frames; k++) {
			strbuf_adds(sb, k ? " > " : ": ");
			strbuf_add_name(sb, s->frames[k]);
		}
		strbuf_addch(sb, '\n');
	}
}

void report_samples_text(struct strbuf *out, const struct samples_report *r)
{
	header(out, r);
	functions(out, r);
	lines(out, r);
	stacks(out, r);
}
