/* annotate-text.c: `tdprof annotate` for a person (annotate.h). */
#include "report/annotate.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "base/str.h"
#include "base/strbuf.h"
#include "branch/branch.h"
#include "report/palette.h"

#define TAB_STOP 8

/* The count columns a person sees: the JSON has them all. */
struct view {
	size_t col[ANNOT_MAX_COLS];
	size_t width[ANNOT_MAX_COLS];
	size_t nr;
	bool rate, timing;
};

static bool miss_event(const char *key)
{
	return str_ends_with(key, "mr") || str_ends_with(key, "mw");
}

static size_t grouped_width(uint64_t v)
{
	char buf[STR_GROUPED_U64_MAX];

	return strlen(str_grouped_u64(v, buf, sizeof(buf)));
}

static void view_init(const struct annot_doc *d, struct view *v)
{
	memset(v, 0, sizeof(*v));
	for (size_t c = 0; c < d->nr_cols; c++) {
		const char *k = d->cols[c].key;
		uint64_t max = 0;

		if (c != d->col_exec && c != d->col_misp && c != d->col_rate_den && strcmp(k, "samples") &&
		    !(miss_event(k) && d->totals[c]))
			continue;
		for (size_t i = 0; i < d->nr_lines; i++)
			max = d->lines[i].v[c] > max ? d->lines[i].v[c] : max;
		for (size_t i = 0; i < d->nr_insns; i++)
			max = d->insns[i].v[c] > max ? d->insns[i].v[c] : max;
		v->width[v->nr] = grouped_width(max) > strlen(d->cols[c].label) ? grouped_width(max)
										 : strlen(d->cols[c].label);
		v->col[v->nr++] = c;
	}
	v->rate = d->col_misp != ANNOT_NONE && d->col_rate_den != ANNOT_NONE;
	v->timing = d->has_timing;
}

static void count(struct strbuf *sb, uint64_t v, size_t width, bool blank_zero)
{
	char buf[STR_GROUPED_U64_MAX];

	strbuf_addf(sb, " %*s", (int)width, v || !blank_zero ? str_grouped_u64(v, buf, sizeof(buf)) : "");
}

static void pct(struct strbuf *sb, double p)
{
	if (isnan(p) || p <= 0)
		strbuf_addf(sb, " %7s", "");
	else
		strbuf_addf(sb, " %6.2f%%", p);
}

static void rate(struct strbuf *sb, const struct view *v, double r)
{
	if (!v->rate)
		return;
	if (isnan(r))
		strbuf_addf(sb, " %7s", "");
	else
		strbuf_addf(sb, " %6.2f%%", 100.0 * r);
}

static void head(struct strbuf *sb, const struct annot_doc *d, const struct view *v, bool source)
{
	strbuf_addf(sb, "   %7s", "Pct");
	for (size_t i = 0; i < v->nr; i++)
		strbuf_addf(sb, " %*s", (int)v->width[i], d->cols[v->col[i]].label);
	if (v->rate)
		strbuf_addf(sb, " %7s", "Rate");
	if (v->timing && source)
		strbuf_addf(sb, " %12s", "Cycles");
	if (v->timing && !source)
		strbuf_addf(sb, " %8s %5s", "AvgCyc", "IPC");
	strbuf_adds(sb, source ? "   Line  Source\n" : "   Address  Instruction\n");
}

/* Source text with tabs expanded (as an editor shows it), escaped. */
static void source_text(struct strbuf *sb, const char *s)
{
	char buf[ANNOT_MAX_SOURCE_LINE * TAB_STOP + 1];
	size_t n = 0;

	for (; s && *s && n + TAB_STOP < sizeof(buf); s++) {
		if (*s == '\t') {
			do
				buf[n++] = ' ';
			while (n % TAB_STOP);
		} else {
			buf[n++] = *s;
		}
	}
	buf[n] = 0;
	strbuf_add_name(sb, buf);
}

static void line_row(struct strbuf *sb, const struct annotate_report *r, const struct view *v,
		     const struct annot_line *l)
{
	/* the marked lines in the hot colour; without a palette pal_on() is "" */
	const char *on = l->hot ? pal_on(r->pal, l->hot == 1 ? PAL_HOT : PAL_VERDICT) : "";

	strbuf_adds(sb, on);
	strbuf_adds(sb, l->hot ? ">>" : "  ");
	pct(sb, l->pct);
	for (size_t i = 0; i < v->nr; i++)
		count(sb, l->v[v->col[i]], v->width[i], true);
	rate(sb, v, l->rate);
	if (v->timing) {
		char buf[STR_GROUPED_U64_MAX];

		strbuf_addf(sb, " %12s", l->cycles ? str_grouped_u64(l->cycles, buf, sizeof(buf)) : "");
	}
	strbuf_addf(sb, "  %5" PRIu32 "  ", l->line);
	source_text(sb, l->text ? l->text : l->has_code ? "(source not found)" : "");
	if (l->inlined && l->function) {
		strbuf_adds(sb, "    [inlined: ");
		strbuf_add_name(sb, l->function);
		strbuf_addch(sb, ']');
	}
	if (*on)
		strbuf_adds(sb, pal_off(r->pal));
	strbuf_addch(sb, '\n');
}

static void source_view(struct strbuf *sb, const struct annotate_report *r, const struct view *v)
{
	const struct annot_doc *d = r->d;

	if (!d->nr_lines) {
		strbuf_adds(sb, "\nSource: no source lines (no debug info for this code: build with -g, or install its "
				"debug info)\n");
		return;
	}
	strbuf_adds(sb, "\nSource (the sums of each line's instructions; >> the hottest lines)\n");
	head(sb, d, v, true);
	for (size_t i = 0; i < d->nr_lines; i++) {
		const struct annot_line *l = &d->lines[i], *p = i ? &d->lines[i - 1] : NULL;

		if (!p || p->file != l->file) {
			strbuf_adds(sb, "  ");
			strbuf_add_name(sb, l->file);
			strbuf_adds(sb, ":\n");
		} else if (l->line > p->line + 1) {
			strbuf_adds(sb, "  ...\n");
		}
		line_row(sb, r, v, l);
	}
}

static void insn_row(struct strbuf *sb, const struct annotate_report *r, const struct view *v, size_t i)
{
	const struct annot_doc *d = r->d;
	const struct annot_insn *in = &d->insns[i];
	bool hot = i == d->hottest_insn;

	if (hot)
		strbuf_adds(sb, pal_on(r->pal, PAL_HOT));
	strbuf_adds(sb, hot ? "=>" : "  ");
	pct(sb, in->pct);
	for (size_t k = 0; k < v->nr; k++)
		count(sb, in->v[v->col[k]], v->width[k], true);
	rate(sb, v, in->rate);
	if (v->timing) {
		if (isnan(in->avg_cycles))
			strbuf_addf(sb, " %8s", "");
		else
			strbuf_addf(sb, " %8.1f", in->avg_cycles);
		if (isnan(in->ipc))
			strbuf_addf(sb, " %5s", "");
		else
			strbuf_addf(sb, " %5.2f", in->ipc);
	}
	strbuf_addf(sb, "  %8" PRIx64 ":  ", in->addr);
	if (r->bytes) {
		for (size_t k = 0; k < 10; k++)
			strbuf_addf(sb, k < in->size ? "%02x " : "   ", in->bytes[k < sizeof(in->bytes) ? k : 0]);
	}
	strbuf_add_name(sb, in->size ? in->text : "(not decoded)");
	if (in->target) {
		strbuf_adds(sb, " <");
		strbuf_add_name(sb, in->target);
		strbuf_addch(sb, '>');
	}
	if (hot)
		strbuf_adds(sb, pal_off(r->pal));
	strbuf_addch(sb, '\n');
}

static void asm_view(struct strbuf *sb, const struct annotate_report *r, const struct view *v)
{
	const struct annot_doc *d = r->d;

	strbuf_addf(sb, "\nDisassembly (the binary's addresses, as objdump prints them%s; => the hottest instruction)\n",
		    r->interleave ? "; each run of instructions under its source line" : "");
	if (!d->disassembled)
		strbuf_addf(sb, "  no disassembly: %s; the addresses with counts are listed\n",
			    d->no_disasm ? d->no_disasm : "the code could not be decoded");
	head(sb, d, v, false);
	for (size_t i = 0; i < d->nr_insns; i++) {
		const struct annot_insn *in = &d->insns[i];

		if (r->interleave && in->chunk_start && in->line != ANNOT_NONE) {
			const struct annot_line *l = &d->lines[in->line];

			strbuf_adds(sb, "  ");
			strbuf_add_name(sb, l->file);
			strbuf_addf(sb, ":%" PRIu32 "  ", l->line);
			source_text(sb, l->text ? l->text : "");
			if (l->inlined && l->function) {
				strbuf_adds(sb, "    [inlined: ");
				strbuf_add_name(sb, l->function);
				strbuf_addch(sb, ']');
			}
			strbuf_addch(sb, '\n');
		}
		insn_row(sb, r, v, i);
	}
}

static void totals(struct strbuf *sb, const struct annot_doc *d)
{
	char buf[STR_GROUPED_U64_MAX];

	strbuf_adds(sb, "  totals    ");
	for (size_t c = 0; c < d->nr_cols; c++) {
		strbuf_add_name(sb, d->cols[c].key);
		strbuf_addf(sb, " %s%s", str_grouped_u64(d->totals[c], buf, sizeof(buf)), c + 1 < d->nr_cols ? ", " : "");
	}
	if (!isnan(d->rate))
		strbuf_addf(sb, "; mispredict rate %.2f%%", 100.0 * d->rate);
	strbuf_addch(sb, '\n');
	if (d->has_timing) {
		strbuf_addf(sb, "  timing    %s cycles in the timed blocks inside the function",
			    str_grouped_u64(d->cycles, buf, sizeof(buf)));
		if (!isnan(d->ipc))
			strbuf_addf(sb, ", IPC %.2f, covering %.1f%% of its instructions", d->ipc, d->coverage_pct);
		strbuf_addch(sb, '\n');
	}
}

static void header(struct strbuf *sb, const struct annot_doc *d)
{
	strbuf_adds(sb, "tdprof annotate: ");
	strbuf_add_name(sb, d->function);
	if (d->file) {
		strbuf_adds(sb, "  (");
		strbuf_add_name(sb, d->file);
		strbuf_addch(sb, ')');
	}
	strbuf_adds(sb, "\n  binary    ");
	strbuf_add_name(sb, d->dso ? d->dso : d->binary ? d->binary : "?");
	if (d->build_id[0])
		strbuf_addf(sb, "  (build-id %s)", d->build_id);
	if (d->binary && d->dso && strcmp(d->binary, d->dso)) {
		strbuf_adds(sb, "  read from ");
		strbuf_add_name(sb, d->binary);
	}
	strbuf_addf(sb, "\n  address   %#" PRIx64 ", %" PRIu64 " bytes, %zu instructions%s\n", d->addr, d->size,
		    d->nr_insns, d->disassembled ? "" : " with counts (not decoded)");
	if (d->estimate) {
		strbuf_adds(sb, "  backend   sim: estimate (simulated) under valgrind");
		if (d->machine) {
			strbuf_adds(sb, " on ");
			strbuf_add_name(sb, d->machine);
		}
	} else {
		strbuf_addf(sb, "  backend   %s: the recording '", d->backend);
		strbuf_add_name(sb, d->input ? d->input : "?");
		strbuf_addch(sb, '\'');
	}
	strbuf_addch(sb, '\n');
	if (d->hottest)
		strbuf_addf(sb, "  chosen    the hottest function by %s%s%s (no FUNCTION given)\n", d->hottest_by,
			    d->scope ? ", in " : "", d->scope ? d->scope : "");
	totals(sb, d);
	if (d->sort_col < d->nr_cols)
		strbuf_addf(sb, "  percent   of %s (--sort)\n", d->cols[d->sort_col].key);
}

int report_annotate_text(struct strbuf *sb, const void *report, struct tdp_err *err)
{
	const struct annotate_report *r = report;
	const struct annot_doc *d = r->d;
	struct view v;

	view_init(d, &v);
	header(sb, d);
	if (r->source_view)
		source_view(sb, r, &v);
	if (r->asm_view)
		asm_view(sb, r, &v);
	if (d->unplaced)
		strbuf_addf(sb, "\nnote: %" PRIu64 " %s at addresses that are not instruction starts (left out)\n",
			    d->unplaced, d->cols[d->sort_col].key);
	for (size_t i = 0; i < d->nr_notes; i++) {
		strbuf_adds(sb, "note: ");
		strbuf_add_name(sb, d->notes[i]);
		strbuf_addch(sb, '\n');
	}
	if (d->estimate)
		strbuf_adds(sb, "every figure is an estimate (simulated): valgrind's model of the caches and the branch "
				"predictor, not this machine's counters\n");
	return strbuf_failed(sb) ? tdp_err_oom(err) : 0;
}
