/*
 * finish.c: a document's derived figures (annot_finish(), annot.h): totals,
 * rates and percentages, per-line values, the hottest lines, the runs of
 * instructions per line, and the IPC of timed blocks. Pure: reads only the
 * document.
 */
#include "annot/annot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static void agg(const struct annot_doc *d, uint64_t *into, const uint64_t *v)
{
	for (size_t c = 0; c < d->nr_cols; c++)
		into[c] = d->cols[c].agg == ANNOT_AGG_MAX ? (v[c] > into[c] ? v[c] : into[c]) : add_sat(into[c], v[c]);
}

static double rate_of(const struct annot_doc *d, const uint64_t *v)
{
	if (d->col_misp == ANNOT_NONE || d->col_rate_den == ANNOT_NONE || !v[d->col_rate_den])
		return NAN;
	return (double)v[d->col_misp] / (double)v[d->col_rate_den];
}

static double pct_of(const struct annot_doc *d, const uint64_t *v)
{
	uint64_t total = d->sort_col < d->nr_cols ? d->totals[d->sort_col] : 0;

	return total ? 100.0 * (double)v[d->sort_col] / (double)total : NAN;
}

/* Blocks by cycles, most first (then by position), so the hottest block covering an instruction gives its IPC. */
static int block_cmp(const void *x, const void *y)
{
	const struct annot_block *a = x, *b = y;

	if (a->cycles != b->cycles)
		return a->cycles > b->cycles ? -1 : 1;
	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	return a->last < b->last ? -1 : a->last > b->last;
}

static void timing(struct annot_doc *d)
{
	double insns = 0, cycles = 0;
	size_t covered = 0;

	if (d->nr_blocks > 1)
		qsort(d->blocks, d->nr_blocks, sizeof(*d->blocks), block_cmp);
	d->cycles = 0;
	for (size_t i = 0; i < d->nr_blocks; i++) {
		const struct annot_block *b = &d->blocks[i];
		size_t n = b->last - b->first + 1;
		struct annot_insn *end = &d->insns[b->last];

		end->blk_cycles = add_sat(end->blk_cycles, b->cycles);
		end->blk_timed = add_sat(end->blk_timed, b->timed);
		d->cycles = add_sat(d->cycles, b->cycles);
		if (!b->timed || !b->cycles)
			continue;
		insns += (double)n * (double)b->timed;
		cycles += (double)b->cycles;
		for (size_t k = b->first; k <= b->last; k++) {
			if (isnan(d->insns[k].ipc)) {
				d->insns[k].ipc = (double)n * (double)b->timed / (double)b->cycles;
				covered++;
			}
		}
	}
	for (size_t i = 0; i < d->nr_insns; i++)
		if (d->insns[i].blk_timed)
			d->insns[i].avg_cycles = (double)d->insns[i].blk_cycles / (double)d->insns[i].blk_timed;
	d->ipc = cycles > 0 ? insns / cycles : NAN;
	d->coverage_pct = d->has_timing && d->nr_insns ? 100.0 * (double)covered / (double)d->nr_insns : NAN;
}

/* The order of the source view: the first instruction's file, the others as the code meets them; then by line. */
struct line_order {
	size_t file_rank;
	uint32_t line;
	size_t index;
};

static int order_cmp(const void *x, const void *y)
{
	const struct line_order *a = x, *b = y;

	if (a->file_rank != b->file_rank)
		return a->file_rank < b->file_rank ? -1 : 1;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

static size_t file_rank(const char **files, size_t *nr, const char *f)
{
	for (size_t i = 0; i < *nr; i++)
		if (files[i] == f)
			return i;
	files[*nr] = f;
	return (*nr)++;
}

/* Sort the lines into source order and renumber the instructions' line indices. */
static int sort_lines(struct annot_doc *d)
{
	struct line_order *o = tdp_calloc(d->nr_lines + 1, sizeof(*o));
	const char **files = tdp_calloc(d->nr_lines + 1, sizeof(*files));
	size_t *remap = tdp_calloc(d->nr_lines + 1, sizeof(*remap)), nr_files = 0;
	struct annot_line *sorted = tdp_calloc(d->nr_lines + 1, sizeof(*sorted));
	int rc = -1;

	if (!o || !files || !remap || !sorted)
		goto out;
	for (size_t i = 0; i < d->nr_insns; i++)
		if (d->insns[i].line != ANNOT_NONE)
			file_rank(files, &nr_files, d->lines[d->insns[i].line].file);
	for (size_t i = 0; i < d->nr_lines; i++)
		o[i] = (struct line_order){ file_rank(files, &nr_files, d->lines[i].file), d->lines[i].line, i };
	qsort(o, d->nr_lines, sizeof(*o), order_cmp);
	for (size_t i = 0; i < d->nr_lines; i++) {
		sorted[i] = d->lines[o[i].index];
		remap[o[i].index] = i;
	}
	for (size_t i = 0; i < d->nr_insns; i++)
		if (d->insns[i].line != ANNOT_NONE)
			d->insns[i].line = remap[d->insns[i].line];
	tdp_free(d->lines);
	d->lines = sorted;
	sorted = NULL;
	rc = 0;
out:
	tdp_free(o);
	tdp_free(files);
	tdp_free(remap);
	tdp_free(sorted);
	return rc;
}

static void hot_lines(struct annot_doc *d)
{
	for (unsigned rank = 1; rank <= ANNOT_MAX_HOT && d->sort_col < d->nr_cols; rank++) {
		size_t best = ANNOT_NONE;

		for (size_t i = 0; i < d->nr_lines; i++) {
			const struct annot_line *l = &d->lines[i];

			if (l->hot || !l->v[d->sort_col])
				continue;
			if (best == ANNOT_NONE || l->v[d->sort_col] > d->lines[best].v[d->sort_col])
				best = i;
		}
		if (best == ANNOT_NONE || (rank > 1 && !(d->lines[best].pct >= ANNOT_HOT_PCT)))
			break;
		d->lines[best].hot = rank;
		if (rank == 1)
			d->hottest_line = best;
	}
}

int annot_finish(struct annot_doc *d)
{
	bool *seen;

	if (sort_lines(d) || !(seen = tdp_calloc(d->nr_lines + 1, sizeof(*seen))))
		return TDP_ENOMEM;
	timing(d);
	memset(d->totals, 0, sizeof(d->totals));
	for (size_t i = 0; i < d->nr_insns; i++)
		agg(d, d->totals, d->insns[i].v);
	d->rate = rate_of(d, d->totals);
	d->hottest_insn = ANNOT_NONE;
	for (size_t i = 0; i < d->nr_lines; i++) {
		memset(d->lines[i].v, 0, sizeof(d->lines[i].v));
		d->lines[i].nr_insns = 0;
		d->lines[i].cycles = 0;
		d->lines[i].hot = 0;
	}
	for (size_t i = 0; i < d->nr_insns; i++) {
		struct annot_insn *in = &d->insns[i];

		in->rate = rate_of(d, in->v);
		in->pct = pct_of(d, in->v);
		if (d->sort_col < d->nr_cols && in->v[d->sort_col] &&
		    (d->hottest_insn == ANNOT_NONE || in->v[d->sort_col] > d->insns[d->hottest_insn].v[d->sort_col]))
			d->hottest_insn = i;
		in->chunk_start = !i || in->line != d->insns[i - 1].line;
		in->first_chunk = in->chunk_start && in->line != ANNOT_NONE && !seen[in->line];
		if (in->line == ANNOT_NONE)
			continue;
		seen[in->line] = true;
		agg(d, d->lines[in->line].v, in->v);
		d->lines[in->line].nr_insns++;
		d->lines[in->line].cycles = add_sat(d->lines[in->line].cycles, in->blk_cycles);
	}
	tdp_free(seen);
	for (size_t i = 0; i < d->nr_lines; i++) {
		d->lines[i].rate = rate_of(d, d->lines[i].v);
		d->lines[i].pct = pct_of(d, d->lines[i].v);
	}
	d->hottest_line = ANNOT_NONE;
	hot_lines(d);
	if (!d->file && d->nr_insns && d->insns[0].line != ANNOT_NONE)
		d->file = d->lines[d->insns[0].line].file;
	return 0;
}
