/*
 * branches.h: the renderers of `tdprof branches report`: text for a person,
 * one JSON document, CSV (one table), and folded stacks for flame graphs.
 *
 * The command (cli/cmd-branches-report.c) loads and aggregates the recording
 * (branch/branch.h), names the addresses (branch/annotate.h) and passes all of
 * it here in one struct. A renderer formats: rates, shares, averages and IPC come
 * from branch/branch.h's helpers, rows are ranked by branch/, and nothing is
 * looked up here.
 *
 * Lifecycle:
 *   1. struct branches_report r = { .res = &res, .syms = syms, ... };
 *   2. report_branches_text(&sb, &r), report_branches_json(&sb, &r, &err),
 *      report_branches_csv(&sb, &r) or report_branches_folded(&sb, &r);
 *   3. write sb.buf to stdout or the -o file; strbuf_release(&sb).
 * Every renderer appends to a strbuf; check strbuf_failed() afterwards.
 *
 * JSON (one object; addresses are "0x..." strings, unknown values null):
 *   backend ("import": a perf.data recorded by another program, perf itself
 *     included; "pmu": recorded by `tdprof branches record` on this tool's PMU
 *     backend, told by the recording's command line), file, recorded_by, cpu,
 *     event, branch_source ("branch_stack" | "arm_spe"), symbolizer, sort,
 *   samples, samples_with_branches, branch_entries, mispredicted_entries,
 *   predicted_entries, lost_samples (LOST + LOST_SAMPLES), lost {lost_records,
 *   lost_samples_records}, mispredict_flags (false when the hardware records none:
 *   AMD BRS),
 *   sites [{rank, address, function, offset, dso, file, line, inline [{function,
 *     file, line}], executions, mispredicts, rate, share, type, type_source,
 *     targets}] ranked by `sort`,
 *   edges [{from, to, from_symbol, to_symbol, count, mispredicts, predicted,
 *     type}] ranked by count,
 *   symbol_edges [{from_symbol, to_symbol, mispredicted ("Y"|"N"|"N/A"), count,
 *     overhead (percent of branch_entries)}]: perf's `--sort
 *     symbol_from,symbol_to,mispredict` rows,
 *   types [{type, sites, executions, mispredicts, rate, share}],
 *   timing {timed_entries, blocks_seen, blocks_skipped} or null, timing_reason
 *     (null when timed), blocks [{start, end, function, file, line, count, timed,
 *     avg_cycles, instructions, ipc}] ranked by total cycles,
 *   disassembly [{address, function, error, lines [{address, text, target}]}],
 *   spe {records, branch_records, auxtrace_bytes, bad_bytes, truncated} or null.
 *
 * pprof: see report_branches_pprof().
 *
 * CSV: one table chosen by `view` (sites by default), with a header line.
 *
 * Folded stacks (flamegraph.pl, inferno): one line per (source function, target
 * function) pair, "FROM;TO N", where FROM and TO are the functions (perf's
 * symbol text without its "[k] "/"[.] " prefix, so unresolved addresses print as
 * perf prints them) and N the mispredicted entries of those edges
 * (--sort executions: all entries). A flame graph of it shows which functions
 * mispredict most (the first level) and where those branches go (the second).
 */
#ifndef TDPROF_REPORT_BRANCHES_H
#define TDPROF_REPORT_BRANCHES_H

#include <stdbool.h>
#include <stddef.h>

#include "branch/annotate.h"
#include "branch/branch.h"

struct perfdata_features;
struct strbuf;
struct tdp_err;

/** Which table(s) a report shows. */
enum branches_view {
	BRANCHES_VIEW_ALL = 0, /* text: every section; CSV: sites */
	BRANCHES_VIEW_SITE,
	BRANCHES_VIEW_EDGE,
	BRANCHES_VIEW_TYPE,
	BRANCHES_VIEW_BLOCK,
};

struct palette;

struct branches_report {
	const char *file;                      /* the input as given; required */
	const char *backend;                   /* "import" or "pmu"; required */
	const char *recorded_by;               /* "perf 6.1.0", "tdprof 0.1.0", or NULL */
	const char *cpu;                       /* the recording machine's CPU, or NULL */
	const char *event;                     /* the sampling event, or NULL */
	const struct branch_result *res;       /* required */
	const struct branch_load_info *load;   /* required */
	const struct branch_symbols *syms;     /* required (symbolizer "none" without names) */
	const char *sort;                      /* "mispredicts", "executions" or "rate" */
	bool sort_executions;                  /* folded weights are executions */
	size_t top;                            /* rows per table; 0: all */
	unsigned columns;                      /* text: the terminal's width (0: 80; report/fit.h) */
	enum branches_view view;
	const char *timing_reason;             /* why there is no timing (when !res->has_timing) */
	uint64_t stopped_at, unread_bytes;     /* --partial or an unfinished file: where the data
	                                          stopped early and what was not read (0: it did not) */
	const struct perfdata_features *features; /* the recording's (build-ids for pprof), or NULL */
	const struct palette *pal;             /* text: colours (report/palette.h); NULL: none */
};

/** Append the human-readable report. */
void report_branches_text(struct strbuf *out, const struct branches_report *r);

/**
 * The head of a recording's text report, as branches and plain-samples reports
 * both start: "tdprof branches report: 'FILE', recorded by R on CPU (backend B,
 * event E" (each part only when given; names escaped), the parenthesis left open.
 */
void report_recording_head(struct strbuf *sb, const char *file, const char *recorded_by, const char *cpu,
			   const char *backend, const char *event);

/**
 * Append the JSON document (two-space indented, final newline). Returns 0, or
 * TDP_ENOMEM (out may then hold a partial document and must be discarded).
 */
int report_branches_json(struct strbuf *out, const struct branches_report *r, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** Append the CSV table of r->view (sites for BRANCHES_VIEW_ALL). */
void report_branches_csv(struct strbuf *out, const struct branches_report *r);

/** Append folded stacks (see above). */
void report_branches_folded(struct strbuf *out, const struct branches_report *r);

/**
 * Append a gzipped pprof profile (pprof-branches.c): one sample per site (every
 * site, not only the top), its location the branch's address with function,
 * file, line and inline frames, values `branches` (executions) and `mispredicts`;
 * mappings with the recording's build-ids. Returns 0, TDP_ENOMEM or TDP_EIO.
 */
int report_branches_pprof(struct strbuf *out, const struct branches_report *r, struct tdp_err *err)
	__attribute__((warn_unused_result));

#endif
