/*
 * annotate-html.c: `tdprof annotate --format html`: one self-contained page
 * (report/html.h's style: no script, no network) with the header's facts, the
 * totals, the source view and the disassembly. Every row carries its numbers
 * as the JSON has them (data-line, data-address, data-hot) so a test can check
 * the page against the JSON.
 */
#include "report/annotate.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "base/str.h"
#include "report/html-internal.h"
#include "report/render.h"

static void cell_count(FILE *out, uint64_t v)
{
	char buf[STR_GROUPED_U64_MAX];

	fprintf(out, "<td class=\"num\">%s</td>", v ? str_grouped_u64(v, buf, sizeof(buf)) : "");
}

static void cell_pct(FILE *out, double p, bool rate)
{
	if (isnan(p) || (!rate && p <= 0))
		fputs("<td class=\"num\"></td>", out);
	else
		fprintf(out, "<td class=\"num\">%.2f%%</td>", rate ? 100.0 * p : p);
}

static void head_cells(FILE *out, const struct annot_doc *d)
{
	fputs("<th class=\"num\">Pct</th>", out);
	for (size_t c = 0; c < d->nr_cols; c++) {
		fputs("<th class=\"num\">", out);
		html_esc(out, d->cols[c].key);
		fputs("</th>", out);
	}
	if (d->col_misp != ANNOT_NONE && d->col_rate_den != ANNOT_NONE)
		fputs("<th class=\"num\">Rate</th>", out);
}

static void count_cells(FILE *out, const struct annot_doc *d, const uint64_t *v, double pct, double rate)
{
	cell_pct(out, pct, false);
	for (size_t c = 0; c < d->nr_cols; c++)
		cell_count(out, v[c]);
	if (d->col_misp != ANNOT_NONE && d->col_rate_den != ANNOT_NONE)
		cell_pct(out, rate, true);
}

static void meta(FILE *out, const struct annot_doc *d)
{
	fputs("<dl class=\"meta\"><dt>binary</dt><dd>", out);
	html_esc(out, d->binary ? d->binary : d->dso);
	if (d->build_id[0])
		fprintf(out, " (build-id %s)", d->build_id);
	fprintf(out, "</dd><dt>address</dt><dd>%#" PRIx64 ", %" PRIu64 " bytes, %zu instructions</dd>", d->addr,
		d->size, d->nr_insns);
	fputs("<dt>backend</dt><dd><span class=\"backend\">", out);
	html_esc(out, d->backend);
	fputs("</span>", out);
	if (d->estimate)
		fputs(" <span class=\"estimate\">estimate (simulated)</span>", out);
	fputs(" ", out);
	html_esc(out, d->estimate ? d->command : d->input);
	fputs("</dd>", out);
	if (d->hottest) {
		fputs("<dt>chosen</dt><dd>the hottest function by ", out);
		html_esc(out, d->hottest_by);
		fputs("</dd>", out);
	}
	if (d->sort_col < d->nr_cols) {
		fputs("<dt>percent</dt><dd>of ", out);
		html_esc(out, d->cols[d->sort_col].key);
		fputs("</dd>", out);
	}
	fputs("</dl></header>\n<main>\n", out);
}

static void totals(FILE *out, const struct annot_doc *d)
{
	fputs("<section id=\"totals\"><h2>Totals</h2><table><tr>", out);
	head_cells(out, d);
	fputs("</tr><tr>", out);
	count_cells(out, d, d->totals, NAN, d->rate);
	fputs("</tr></table>", out);
	if (d->has_timing)
		fprintf(out, "<p>%" PRIu64 " cycles in the timed blocks inside the function; IPC %.2f over %.1f%% of its "
			"instructions.</p>", d->cycles, isnan(d->ipc) ? 0.0 : d->ipc,
			isnan(d->coverage_pct) ? 0.0 : d->coverage_pct);
	fputs("</section>\n", out);
}

static void source(FILE *out, const struct annot_doc *d)
{
	fputs("<section id=\"source\"><h2>Source</h2><table><tr><th></th>", out);
	head_cells(out, d);
	fputs("<th class=\"num\">Line</th><th>Source</th></tr>\n", out);
	for (size_t i = 0; i < d->nr_lines; i++) {
		const struct annot_line *l = &d->lines[i], *p = i ? &d->lines[i - 1] : NULL;

		if (!p || p->file != l->file) {
			fprintf(out, "<tr><th colspan=\"%zu\">", d->nr_cols + 5);
			html_esc(out, l->file);
			fputs("</th></tr>\n", out);
		} else if (l->line > p->line + 1) {
			fprintf(out, "<tr><td colspan=\"%zu\" class=\"muted\">&hellip;</td></tr>\n", d->nr_cols + 5);
		}
		fprintf(out, "<tr data-line=\"%" PRIu32 "\"", l->line);
		if (l->hot)
			fprintf(out, " data-hot=\"%u\" class=\"flagged moved\"", l->hot);
		fprintf(out, "><td>%s</td>", l->hot ? "&gt;&gt;" : "");
		count_cells(out, d, l->v, l->pct, l->rate);
		fprintf(out, "<td class=\"num\">%" PRIu32 "</td><td><code>", l->line);
		html_esc(out, l->text);
		fputs("</code>", out);
		if (l->inlined && l->function) {
			fputs(" <span class=\"tag\">inlined: ", out);
			html_esc(out, l->function);
			fputs("</span>", out);
		}
		fputs("</td></tr>\n", out);
	}
	fputs("</table></section>\n", out);
}

static void disassembly(FILE *out, const struct annot_doc *d)
{
	fputs("<section id=\"disassembly\"><h2>Disassembly</h2>", out);
	if (!d->disassembled) {
		fputs("<p class=\"muted\">No disassembly: ", out);
		html_esc(out, d->no_disasm);
		fputs("</p>", out);
	}
	fputs("<table><tr>", out);
	head_cells(out, d);
	fputs(d->has_timing ? "<th class=\"num\">Avg cycles</th><th class=\"num\">IPC</th>" : "", out);
	fputs("<th>Address</th><th>Instruction</th></tr>\n", out);
	for (size_t i = 0; i < d->nr_insns; i++) {
		const struct annot_insn *in = &d->insns[i];

		if (in->chunk_start && in->line != ANNOT_NONE) {
			fprintf(out, "<tr><td colspan=\"%zu\" class=\"muted\"><code>", d->nr_cols + 6);
			html_esc(out, d->lines[in->line].file);
			fprintf(out, ":%" PRIu32 "  ", d->lines[in->line].line);
			html_esc(out, d->lines[in->line].text);
			fputs("</code></td></tr>\n", out);
		}
		fprintf(out, "<tr data-address=\"0x%" PRIx64 "\"%s>", in->addr,
			i == d->hottest_insn ? " class=\"flagged moved\"" : "");
		count_cells(out, d, in->v, in->pct, in->rate);
		if (d->has_timing) {
			fprintf(out, isnan(in->avg_cycles) ? "<td></td>" : "<td class=\"num\">%.1f</td>", in->avg_cycles);
			fprintf(out, isnan(in->ipc) ? "<td></td>" : "<td class=\"num\">%.2f</td>", in->ipc);
		}
		fprintf(out, "<td><code>%" PRIx64 "</code></td><td><code>", in->addr);
		html_esc(out, in->size ? in->text : "(not decoded)");
		if (in->target) {
			fputs(" &lt;", out);
			html_esc(out, in->target);
			fputs("&gt;", out);
		}
		fputs("</code></td></tr>\n", out);
	}
	fputs("</table></section>\n", out);
}

static int page(FILE *out, const void *report, struct tdp_err *err)
{
	const struct annotate_report *r = report;
	const struct annot_doc *d = r->d;
	char title[512];


	snprintf(title, sizeof(title), "tdprof annotate: %s", d->function ? d->function : "?");
	html_page_start(out, title, d->file);
	meta(out, d);
	totals(out, d);
	if (r->source_view && d->nr_lines)
		source(out, d);
	if (r->asm_view)
		disassembly(out, d);
	if (d->nr_notes) {
		fputs("<section id=\"notes\"><h2>Notes</h2><ul>", out);
		for (size_t i = 0; i < d->nr_notes; i++) {
			fputs("<li>", out);
			html_esc(out, d->notes[i]);
			fputs("</li>", out);
		}
		fputs("</ul></section>\n", out);
	}
	html_page_end(out);
	return ferror(out) ? tdp_err_set(err, TDP_EIO, "cannot write the page") : 0;
}

int report_annotate_html(struct strbuf *out, const void *report, struct tdp_err *err)
{
	return render_capture(out, page, report, err);
}
