/*
 * samples.h: the report of a recording of plain samples (`tdprof branches
 * report` on a recording without branch stacks, such as `branches record -e
 * cpu-clock`): hot functions, hot source lines and, with call chains, the hot
 * stacks; as text, JSON, CSV (the functions) and folded stacks for flamegraph.pl.
 * The figures are branch/ips.h's; renderers only format them.
 *
 * JSON keys: file, backend ("pmu" or "import"), recorded_by, cpu, event, mode
 * ("samples": plain samples, no branch stacks), samples, other_event_samples,
 * lost_samples, callchains (bool), samples_with_callchain, symbolizer,
 * addresses, resolved_addresses, top (null: no cut), functions [{symbol (perf's
 * text, "[.] main"), function (null when unresolved), dso, kernel, addr ("0x..."),
 * self, self_share, total, total_share}], lines [{file, line, function, samples,
 * share}], lines_samples (samples with a source line), stacks [{comm, frames
 * (outermost first), samples, share}] (null without call chains), rows_left_out
 * {functions, lines, stacks}, data_stopped (null, or {offset, unread_bytes} when
 * the data stopped early, as in the branch document).
 */
#ifndef TDPROF_REPORT_SAMPLES_H
#define TDPROF_REPORT_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

#include "branch/ips.h"

struct strbuf;
struct tdp_err;

struct samples_report {
	const char *file;            /* the input as given; required */
	const char *backend;         /* "import" or "pmu"; required */
	const char *recorded_by;     /* or NULL */
	const char *cpu;             /* or NULL */
	const char *event;           /* the event's name, or NULL */
	const struct ips_result *res; /* required */
	uint64_t lost_samples;
	size_t top;                  /* rows per table (text, JSON); 0: all */
	uint64_t stopped_at, unread_bytes; /* the data stopped early there (0: it did not) */
};

/** Append the human-readable report. */
void report_samples_text(struct strbuf *out, const struct samples_report *r);

/** Append the JSON document. Returns 0 or TDP_ENOMEM. */
int report_samples_json(struct strbuf *out, const struct samples_report *r, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** Append the functions as CSV: symbol,function,dso,self,self_share,total,total_share. */
void report_samples_csv(struct strbuf *out, const struct samples_report *r);

/**
 * Append folded stacks, "comm;outer;...;inner N" per line (all of them, heaviest
 * first), as stackcollapse-perf.pl folds `perf script`: the input of flamegraph.pl.
 */
void report_samples_folded(struct strbuf *out, const struct samples_report *r);

#endif
