/* agg.c: counting branch entries into edges and timed blocks (branch.h). */
#include "branch/branch-internal.h"
#include "base/alloc.h"
#include "base/err.h"

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
 * The timed blocks of one stack (see branch.h): entry i+1 is older than entry i,
 * so [e[i+1].to, e[i].from] ran in e[i].cycles cycles. The oldest entry closes
 * a block whose start the stack does not hold, so nr entries give nr-1 blocks.
 */
static int add_blocks(struct branch_agg *a, const struct branch_entry *e, size_t nr, uint32_t pid,
		      struct tdp_err *err)
{
	struct bt_block *b;
	int rc = 0;

	for (size_t i = 0; i + 1 < nr; i++) {
		uint64_t start = e[i + 1].to, end = e[i].from;

		a->counts.blocks_seen++;
		if (!start || !end || start > end || end - start >= BRANCH_MAX_BLOCK_BYTES) {
			a->counts.blocks_skipped++;
			continue;
		}
		b = bt_block_find(a, start, end);
		if (!b && !(b = bt_block_insert(a, start, end, pid, &rc, err)))
			return rc;
		b->count++;
		if (e[i].cycles) {
			b->timed++;
			b->cycles += e[i].cycles;
		}
	}
	return 0;
}

/* Entries whose slots are prefetched before they are counted (see below). */
#define PREFETCH_BATCH 32
/* Prefetch only from tables past an L2 cache's worth of slots (32 bytes each). */
#define PREFETCH_MIN_SLOTS (1u << 15)

int branch_agg_add_stack(struct branch_agg *a, const struct branch_entry *e, size_t nr, uint32_t pid,
			 struct tdp_err *err)
{
	uint64_t timed = 0;
	bool prefetch = a->edge_cap >= PREFETCH_MIN_SLOTS;
	int rc = 0;

	for (size_t i = 0; i < nr; i++) {
		const struct branch_entry *x = &e[i];
		struct bt_edge *s;

		/*
		 * Each entry's slot is a cache miss once the table outgrows the caches
		 * (a few hundred thousand edges): ask for the slots of a batch ahead so
		 * that the misses overlap instead of following one another.
		 */
		if (prefetch && i % PREFETCH_BATCH == 0)
			for (size_t k = i; k < nr && k < i + PREFETCH_BATCH; k++)
				__builtin_prefetch(&a->edges[bt_slot(e[k].from, e[k].to, a->edge_shift)], 1);
		s = bt_edge_find(a, x->from, x->to);
		if (!s && !(s = bt_edge_insert(a, x->from, x->to, pid, &rc, err)))
			return rc;
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
		timed += x->cycles != 0;
	}
	/* the flag and type counts are summed over the edges by branch_agg_finish() */
	a->counts.branch_entries += nr;
	a->counts.timed_entries += timed;
	if (timed) {
		a->has_timing = true;
		rc = add_blocks(a, e, nr, pid, err);
	}
	return rc;
}

int branch_agg_add_sample(struct branch_agg *a, const struct perfdata_sample *s, struct tdp_err *err)
{
	uint32_t pid = (s->fields & PERFDATA_SAMPLE_TID) ? s->pid : BRANCH_PID_NONE;

	a->counts.samples++;
	if (!(s->fields & PERFDATA_SAMPLE_BRANCH_STACK))
		return 0;
	a->counts.samples_with_stack++;
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
