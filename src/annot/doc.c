/* doc.c: a document's storage, columns, notes and counts (annot.h). */
#include "annot/annot.h"

#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"

void annot_doc_init(struct annot_doc *d)
{
	memset(d, 0, sizeof(*d));
	d->col_exec = d->col_misp = d->col_rate_den = d->col_primary = ANNOT_NONE;
	d->hottest_line = d->hottest_insn = ANNOT_NONE;
	d->rate = d->ipc = d->coverage_pct = NAN;
}

void annot_doc_release(struct annot_doc *d)
{
	for (size_t i = 0; i < d->nr_strs; i++)
		tdp_free(d->strs[i]);
	tdp_free(d->strs);
	tdp_free(d->intern);
	tdp_free(d->frames);
	tdp_free(d->insns);
	tdp_free(d->lines);
	tdp_free(d->blocks);
	annot_doc_init(d);
}

const char *annot_str(struct annot_doc *d, const char *s)
{
	char *c;

	if (!s || TDP_GROW(d->strs, d->alloc_strs, d->nr_strs + 1) || !(c = tdp_strdup(s)))
		return NULL;
	d->strs[d->nr_strs++] = c;
	return c;
}

size_t annot_col_add(struct annot_doc *d, const char *key, const char *label, const char *description,
		     enum annot_agg agg)
{
	if (d->nr_cols >= ANNOT_MAX_COLS)
		return ANNOT_NONE;
	d->cols[d->nr_cols] = (struct annot_col){ key, label, description, agg };
	return d->nr_cols++;
}

size_t annot_col_find(const struct annot_doc *d, const char *key)
{
	for (size_t i = 0; key && i < d->nr_cols; i++)
		if (!strcmp(d->cols[i].key, key))
			return i;
	return ANNOT_NONE;
}

void annot_note(struct annot_doc *d, const char *note)
{
	if (note && d->nr_notes < ANNOT_MAX_NOTES)
		d->notes[d->nr_notes++] = note;
}

size_t annot_insn_at(const struct annot_doc *d, uint64_t vaddr)
{
	size_t lo = 0, hi = d->nr_insns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->insns[mid].addr < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nr_insns && d->insns[lo].addr == vaddr ? lo : ANNOT_NONE;
}

bool annot_count(struct annot_doc *d, uint64_t vaddr, size_t col, uint64_t v)
{
	size_t i = annot_insn_at(d, vaddr);

	if (col >= d->nr_cols)
		return false;
	if (i == ANNOT_NONE) {
		if (col == d->sort_col)
			d->unplaced += v;
		return false;
	}
	d->insns[i].v[col] = d->insns[i].v[col] + v < v ? UINT64_MAX : d->insns[i].v[col] + v;
	return true;
}

int annot_block(struct annot_doc *d, uint64_t start, uint64_t end, uint64_t count, uint64_t timed,
		uint64_t cycles)
{
	size_t first = annot_insn_at(d, start), last = annot_insn_at(d, end);

	if (first == ANNOT_NONE || last == ANNOT_NONE || first > last)
		return 1;
	for (size_t i = 0; i < d->nr_blocks; i++) {
		struct annot_block *b = &d->blocks[i];

		if (b->first == first && b->last == last) {
			b->count += count;
			b->timed += timed;
			b->cycles += cycles;
			return 0;
		}
	}
	if (TDP_GROW(d->blocks, d->alloc_blocks, d->nr_blocks + 1))
		return TDP_ENOMEM;
	d->blocks[d->nr_blocks++] = (struct annot_block){ first, last, count, timed, cycles };
	return 0;
}

static size_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)h;
}

static int intern_grow(struct annot_doc *d)
{
	size_t cap = d->intern_cap ? d->intern_cap * 2 : 256;
	const char **t = tdp_calloc(cap, sizeof(*t));

	if (!t)
		return TDP_ENOMEM;
	for (size_t i = 0; i < d->intern_cap; i++) {
		size_t j;

		if (!d->intern[i])
			continue;
		for (j = str_hash(d->intern[i]) & (cap - 1); t[j]; j = (j + 1) & (cap - 1))
			;
		t[j] = d->intern[i];
	}
	tdp_free(d->intern);
	d->intern = t;
	d->intern_cap = cap;
	return 0;
}

const char *annot_intern(struct annot_doc *d, const char *s)
{
	size_t j;
	const char *c;

	if (!s || ((d->nr_intern + 1) * 2 > d->intern_cap && intern_grow(d)))
		return NULL;
	for (j = str_hash(s) & (d->intern_cap - 1); d->intern[j]; j = (j + 1) & (d->intern_cap - 1))
		if (!strcmp(d->intern[j], s))
			return d->intern[j];
	if (!(c = annot_str(d, s)))
		return NULL;
	d->intern[j] = c;
	d->nr_intern++;
	return c;
}
