/* table.c: the aggregator's open-addressing hash tables (branch-internal.h). */
#include "branch/branch-internal.h"
#include "base/alloc.h"
#include "base/err.h"

#include <string.h>

static unsigned shift_for(size_t cap)
{
	return 64u - (unsigned)__builtin_ctzll((unsigned long long)cap);
}

int bt_init(struct branch_agg *a, struct tdp_err *err)
{
	a->edges = tdp_calloc(BT_INITIAL_SLOTS, sizeof(*a->edges));
	a->edges_cold = tdp_calloc(BT_INITIAL_SLOTS, sizeof(*a->edges_cold));
	a->blocks = tdp_calloc(BT_INITIAL_SLOTS, sizeof(*a->blocks));
	if (!a->edges || !a->edges_cold || !a->blocks)
		return tdp_err_oom(err);
	a->edge_cap = a->block_cap = BT_INITIAL_SLOTS;
	a->edge_shift = a->block_shift = shift_for(BT_INITIAL_SLOTS);
	return 0;
}

/* Double the edge table, re-inserting every used slot. Returns 0, TDP_ENOMEM or TDP_ELIMIT. */
static int edges_grow(struct branch_agg *a, struct tdp_err *err)
{
	size_t cap = a->edge_cap * 2;
	unsigned shift = shift_for(cap);
	struct bt_edge *t;
	struct bt_edge_cold *tc;

	if (a->edge_nr >= BRANCH_MAX_EDGES)
		return tdp_err_set(err, TDP_ELIMIT, "more than %u distinct branch edges", BRANCH_MAX_EDGES);
	t = tdp_calloc(cap, sizeof(*t));
	tc = tdp_calloc(cap, sizeof(*tc));
	if (!t || !tc) {
		tdp_free(t);
		tdp_free(tc);
		return tdp_err_oom(err);
	}
	for (size_t i = 0; i < a->edge_cap; i++) {
		const struct bt_edge *s = &a->edges[i];
		size_t j;

		if (!s->count)
			continue;
		for (j = bt_slot(s->from, s->to, shift); t[j].count; j = (j + 1) & (cap - 1))
			;
		t[j] = *s;
		tc[j] = a->edges_cold[i];
	}
	tdp_free(a->edges);
	tdp_free(a->edges_cold);
	a->edges = t;
	a->edges_cold = tc;
	a->edge_cap = cap;
	a->edge_shift = shift;
	return 0;
}

struct bt_edge *bt_edge_insert(struct branch_agg *a, uint64_t from, uint64_t to, uint32_t pid, int *rc,
			       struct tdp_err *err)
{
	size_t j;

	if ((a->edge_nr + 1) * 2 > a->edge_cap) {
		*rc = edges_grow(a, err);
		if (*rc)
			return NULL;
	}
	for (j = bt_slot(from, to, a->edge_shift); a->edges[j].count; j = (j + 1) & (a->edge_cap - 1))
		;
	a->edge_nr++;
	memset(&a->edges[j], 0, sizeof(a->edges[j]));
	memset(&a->edges_cold[j], 0, sizeof(a->edges_cold[j]));
	a->edges[j].from = from;
	a->edges[j].to = to;
	a->edges_cold[j].pid = pid;
	return &a->edges[j];
}

static int blocks_grow(struct branch_agg *a, struct tdp_err *err)
{
	size_t cap = a->block_cap * 2;
	unsigned shift = shift_for(cap);
	struct bt_block *t;

	if (a->block_nr >= BRANCH_MAX_BLOCKS)
		return tdp_err_set(err, TDP_ELIMIT, "more than %u distinct timed blocks", BRANCH_MAX_BLOCKS);
	t = tdp_calloc(cap, sizeof(*t));
	if (!t)
		return tdp_err_oom(err);
	for (size_t i = 0; i < a->block_cap; i++) {
		const struct bt_block *s = &a->blocks[i];
		size_t j;

		if (!s->count)
			continue;
		for (j = bt_slot(s->start, s->end, shift); t[j].count; j = (j + 1) & (cap - 1))
			;
		t[j] = *s;
	}
	tdp_free(a->blocks);
	a->blocks = t;
	a->block_cap = cap;
	a->block_shift = shift;
	return 0;
}

struct bt_block *bt_block_insert(struct branch_agg *a, uint64_t start, uint64_t end, uint32_t pid, int *rc,
				 struct tdp_err *err)
{
	size_t j;

	if ((a->block_nr + 1) * 2 > a->block_cap) {
		*rc = blocks_grow(a, err);
		if (*rc)
			return NULL;
	}
	for (j = bt_slot(start, end, a->block_shift); a->blocks[j].count; j = (j + 1) & (a->block_cap - 1))
		;
	a->block_nr++;
	memset(&a->blocks[j], 0, sizeof(a->blocks[j]));
	a->blocks[j].start = start;
	a->blocks[j].end = end;
	a->blocks[j].pid = pid;
	return &a->blocks[j];
}
