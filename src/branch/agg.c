/* agg.c: counting branch entries into edges and timed blocks (branch.h). */
#include "branch/branch-internal.h"
#include "base/alloc.h"
#include "base/err.h"

#include <string.h>

int branch_agg_new(struct branch_agg **out, struct tdp_err *err)
{
	struct branch_agg *a = tdp_calloc(1, sizeof(*a));
	int rc;

	if (!a)
		return tdp_err_oom(err);
	rc = bt_init(a, err);
	if (rc) {
		branch_agg_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

void branch_agg_free(struct branch_agg *a)
{
	if (!a)
		return;
	tdp_free(a->edges);
	tdp_free(a->edges_cold);
	tdp_free(a->blocks);
	tdp_free(a);
}

/*
 * One entry, as both entry points decode it. The caller keeps *memo, the slot
 * of its previous entry: a loop's back edge fills most of a stack, and the
 * previous slot, when it is the one, saves the hashing and the probe.
 */
struct entry {
	uint64_t from, to;
	bool mispred, predicted, not_taken;
	uint8_t type, new_type;
	uint16_t cycles;
};

static inline int count_edge(struct branch_agg *a, struct bt_edge **memo, const struct entry *x, uint32_t pid,
			     struct tdp_err *err)
{
	struct bt_edge *s = *memo;
	int rc = 0;

	if (!s || s->from != x->from || s->to != x->to) {
		s = bt_edge_find(a, x->from, x->to);
		if (!s && !(s = bt_edge_insert(a, x->from, x->to, pid, &rc, err)))
			return rc;
		*memo = s;
	}
	s->count++;
	if (x->mispred && !++s->mispred)
		a->edges_cold[s - a->edges].mispred_hi += 1ull << 32;
	if (x->type && !s->type) {
		s->type = x->type;
		s->new_type = x->new_type;
	}
	/* rare cases: the hardware set neither flag (AMD BRS), SPE not-taken */
	if ((!x->mispred && !x->predicted) || x->not_taken) {
		struct bt_edge_cold *c = &a->edges_cold[s - a->edges];

		c->flagless += !x->mispred && !x->predicted;
		c->not_taken += x->not_taken;
	}
	return 0;
}

/*
 * The timed block [start, end] closed by an entry with `cycles` (see branch.h):
 * entry i+1 is older than entry i, so [e[i+1].to, e[i].from] ran in e[i].cycles.
 */
static inline int count_block(struct branch_agg *a, struct bt_block **memo, uint64_t start, uint64_t end,
			      uint16_t cycles, uint32_t pid, struct tdp_err *err)
{
	struct bt_block *b = *memo;
	int rc = 0;

	if (!start || !end || start > end || end - start >= BRANCH_MAX_BLOCK_BYTES) {
		a->counts.blocks_skipped++;
		return 0;
	}
	if (!b || b->start != start || b->end != end) {
		b = bt_block_find(a, start, end);
		if (!b && !(b = bt_block_insert(a, start, end, pid, &rc, err)))
			return rc;
		*memo = b;
	}
	b->count++;
	if (cycles) {
		b->timed++;
		b->cycles += cycles;
	}
	return 0;
}

/* Entries whose slots are prefetched before they are counted (see below). */
#define PREFETCH_BATCH 32
/* Prefetch only from tables past an L2 cache's worth of slots (32 bytes each). */
#define PREFETCH_MIN_SLOTS (1u << 15)

/* The stack's totals, once its entries are counted; the blocks too when some entry was timed. */
static void count_stack(struct branch_agg *a, size_t nr, uint64_t timed)
{
	/* the flag and type counts are summed over the edges by branch_agg_finish() */
	a->counts.branch_entries += nr;
	a->counts.timed_entries += timed;
	if (timed) {
		a->has_timing = true;
		a->counts.blocks_seen += nr ? nr - 1 : 0;
	}
}

int branch_agg_add_stack(struct branch_agg *a, const struct branch_entry *e, size_t nr, uint32_t pid,
			 struct tdp_err *err)
{
	bool prefetch = a->edge_cap >= PREFETCH_MIN_SLOTS;
	struct bt_edge *memo = NULL;
	struct bt_block *bmemo = NULL;
	uint64_t timed = 0;
	int rc = 0;

	for (size_t i = 0; i < nr; i++) {
		const struct branch_entry *y = &e[i];
		struct entry x = { y->from, y->to, y->mispred, y->predicted, y->not_taken, y->type, y->new_type,
				   y->cycles };

		/*
		 * Each entry's slot is a cache miss once the table outgrows the caches
		 * (a few hundred thousand edges): ask for the slots of a batch ahead so
		 * that the misses overlap instead of following one another.
		 */
		if (prefetch && i % PREFETCH_BATCH == 0)
			for (size_t k = i; k < nr && k < i + PREFETCH_BATCH; k++)
				__builtin_prefetch(&a->edges[bt_slot(e[k].from, e[k].to, a->edge_shift)], 1);
		if ((rc = count_edge(a, &memo, &x, pid, err)) != 0)
			return rc;
		timed += x.cycles != 0;
	}
	count_stack(a, nr, timed);
	for (size_t i = 0; timed && i + 1 < nr; i++)
		if ((rc = count_block(a, &bmemo, e[i + 1].to, e[i].from, e[i].cycles, pid, err)) != 0)
			return rc;
	return 0;
}

/* Little-endian u64 at p (perf.data of the other byte order is refused by the reader). */
static inline uint64_t raw_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * struct perf_branch_entry {u64 from, to, flags} decoded in the loop that counts
 * it: flags bit 0 mispred, 1 predicted, 4-19 cycles, 20-23 type, 26-29 new_type
 * (perfdata_branch_flags_decode() for the whole word).
 */
static inline void raw_entry(const uint8_t *r, struct entry *x)
{
	uint64_t f = raw_u64(r + 16);

	x->from = raw_u64(r);
	x->to = raw_u64(r + 8);
	x->mispred = f & 1;
	x->predicted = (f >> 1) & 1;
	x->not_taken = false;
	x->cycles = (uint16_t)(f >> 4);
	x->type = (f >> 20) & 0xf;
	x->new_type = (f >> 26) & 0xf;
}

int branch_agg_add_raw(struct branch_agg *a, const uint8_t *raw, size_t nr, uint32_t pid, struct tdp_err *err)
{
	bool prefetch = a->edge_cap >= PREFETCH_MIN_SLOTS;
	struct bt_edge *memo = NULL;
	struct bt_block *bmemo = NULL;
	uint64_t timed = 0;
	int rc = 0;

	for (size_t i = 0; i < nr; i++) {
		struct entry x;

		if (prefetch && i % PREFETCH_BATCH == 0)
			for (size_t k = i; k < nr && k < i + PREFETCH_BATCH; k++)
				__builtin_prefetch(&a->edges[bt_slot(raw_u64(raw + 24 * k), raw_u64(raw + 24 * k + 8),
								     a->edge_shift)], 1);
		raw_entry(raw + 24 * i, &x);
		if ((rc = count_edge(a, &memo, &x, pid, err)) != 0)
			return rc;
		timed += x.cycles != 0;
	}
	count_stack(a, nr, timed);
	for (size_t i = 0; timed && i + 1 < nr; i++) {
		const uint8_t *r = raw + 24 * i;

		rc = count_block(a, &bmemo, raw_u64(r + 24 + 8), raw_u64(r), (uint16_t)(raw_u64(r + 16) >> 4), pid,
				 err);
		if (rc)
			return rc;
	}
	return 0;
}

int branch_agg_add_sample(struct branch_agg *a, const struct perfdata_sample *s, struct tdp_err *err)
{
	uint32_t pid = (s->fields & PERFDATA_SAMPLE_TID) ? s->pid : BRANCH_PID_NONE;

	a->counts.samples++;
	if (!(s->fields & PERFDATA_SAMPLE_BRANCH_STACK))
		return 0;
	a->counts.samples_with_stack++;
	a->counts.samples_empty_stack += s->nr_branches == 0;
	return branch_agg_add_stack(a, s->branches, s->nr_branches, pid, err);
}

void branch_agg_count_samples(struct branch_agg *a, uint64_t nr)
{
	a->counts.samples += nr;
}

void branch_agg_add_lost(struct branch_agg *a, uint64_t lost, uint64_t lost_samples)
{
	a->counts.lost += lost;
	a->counts.lost_samples += lost_samples;
}

const struct branch_counts *branch_agg_counts(const struct branch_agg *a)
{
	return &a->counts;
}
