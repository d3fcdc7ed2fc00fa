/*
 * annotate.h: the renderers of `tdprof annotate` (text, JSON, HTML) over one
 * annotated function (annot/annot.h). They format what the document holds:
 * per-line sums, rates, percentages, the hottest lines and the block IPC are
 * the document's (annot_finish()).
 *
 * Text: a header (function, binary and build-id, addresses, backend, totals,
 * timing, what the percentages are of), the source view (the function's lines
 * in source order with their sums, the hottest marked ">>", lines without code
 * as context, "..." where lines are left out) and the disassembly view
 * (address order, each run of instructions under its source line, branch
 * targets named <func+off>). Columns: executions, branches, mispredicts, the
 * rate, samples, the simulated miss events (valgrind's names ending in "mr" or
 * "mw") with counts, and block cycles and IPC when timed; the JSON has every
 * column. Colour marks the hottest lines only with a palette (`pal`).
 *
 * JSON (one object; addresses are "0x..." ELF virtual addresses):
 *   backend ("import" | "pmu" | "sim"), estimate, input, command, machine,
 *   function {name, dso, binary, build_id, address, size, file, instructions},
 *   selected ("named" | "hottest"), hottest_by, scope,
 *   columns [{key, description, line_value ("sum" | "max")}], sort (the
 *   percentages' column), totals {KEY: count}, rate,
 *   timing {cycles, ipc, coverage_pct} or null,
 *   disassembled, no_disassembly (why, or null), truncated, unplaced,
 *   hottest_line (a line as below, or null), hottest_instruction (address or null),
 *   lines [{file, line, text, function, inlined, has_code, instructions,
 *     counts {KEY: count}, rate, percent, cycles, hot (rank or null)}] in source
 *     order,
 *   instructions [{address, size, bytes, text, target, branch_type, file, line,
 *     inline [{function, file, line}], counts {KEY: count}, rate, percent,
 *     block_cycles, block_timed, avg_cycles, ipc}],
 *   notes [text].
 */
#ifndef TDPROF_REPORT_ANNOTATE_H
#define TDPROF_REPORT_ANNOTATE_H

#include <stdbool.h>

#include "annot/annot.h"

struct palette;

struct strbuf;
struct tdp_err;

struct annotate_report {
	const struct annot_doc *d;
	bool source_view;        /* the source lines with their sums (not --asm-only) */
	bool asm_view;           /* the instructions (not --source-only) */
	bool interleave;         /* source lines above their instructions (not --no-source) */
	bool bytes;              /* the instructions' bytes (--show-bytes) */
	const struct palette *pal; /* colours (report/palette.h; cli's ctx.palette), NULL: none */
	unsigned columns;        /* the terminal's width (0: 80) */
};

int report_annotate_text(struct strbuf *out, const void *report, struct tdp_err *err);
int report_annotate_json(struct strbuf *out, const void *report, struct tdp_err *err);
int report_annotate_html(struct strbuf *out, const void *report, struct tdp_err *err);

#endif
