/*
 * branch-internal.h: the aggregator's state and its hash tables, shared by the
 * files of src/branch/ only. Not part of the contract (branch.h is).
 *
 * The tables use open addressing with linear probing on u64 key pairs. A slot
 * is free while its count is 0 (an entry is inserted with its first count), so
 * the key (0, 0) needs no sentinel. Capacities are powers of two and a table
 * doubles when it would become more than half full.
 */
#ifndef TDPROF_BRANCH_BRANCH_INTERNAL_H
#define TDPROF_BRANCH_BRANCH_INTERNAL_H

#include "branch/branch.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* First capacity of each table (slots). */
#define BT_INITIAL_SLOTS 1024u

/*
 * An edge's slot is 32 bytes, two per cache line, so that the few thousand
 * edges of a typical recording stay in L1/L2: what every entry updates is here,
 * what only some entries touch is in the parallel struct bt_edge_cold. The
 * mispredict count is 32 bits here; each wrap adds 2^32 to the cold part.
 */
struct bt_edge {
	uint64_t from, to;
	uint64_t count;        /* 0: free slot */
	uint32_t mispred;      /* low 32 bits (see bt_edge_cold.mispred_hi) */
	uint8_t type, new_type; /* the first recorded type */
	uint16_t pad;
};

struct bt_edge_cold {
	uint64_t mispred_hi;   /* 2^32 per wrap of bt_edge.mispred */
	uint64_t flagless;     /* entries with neither mispred nor predicted */
	uint64_t not_taken;    /* SPE not-taken entries */
	uint32_t pid;
};

struct bt_block {
	uint64_t start, end;
	uint64_t count;        /* 0: free slot */
	uint64_t timed;
	uint64_t cycles;
	uint32_t pid;
};

struct branch_agg {
	struct branch_counts counts;
	struct bt_edge *edges;
	struct bt_edge_cold *edges_cold; /* parallel to edges */
	size_t edge_cap, edge_nr;  /* cap: power of two (never 0); nr: used slots */
	unsigned edge_shift;       /* 64 - log2(edge_cap) */
	struct bt_block *blocks;
	size_t block_cap, block_nr;
	unsigned block_shift;
	bool has_timing;
};

/*
 * The home slot of a key pair in a table of 2^(64 - shift) slots: Fibonacci
 * hashing (the top bits of a multiplication) of the two addresses mixed.
 */
static inline size_t bt_slot(uint64_t a, uint64_t b, unsigned shift)
{
	return (size_t)(((a ^ (b * 0x9e3779b97f4a7c15ull) ^ (b >> 29)) * 0xd6e8feb86659fd93ull) >> shift);
}

/* The slot of (from, to), or NULL when absent. Inline: it runs once per branch entry. */
static inline struct bt_edge *bt_edge_find(const struct branch_agg *a, uint64_t from, uint64_t to)
{
	size_t mask = a->edge_cap - 1;

	for (size_t j = bt_slot(from, to, a->edge_shift);; j = (j + 1) & mask) {
		struct bt_edge *s = &a->edges[j];

		if (!s->count)
			return NULL;
		if (s->from == from && s->to == to)
			return s;
	}
}

/* The slot of (start, end), or NULL when absent. */
static inline struct bt_block *bt_block_find(const struct branch_agg *a, uint64_t start, uint64_t end)
{
	size_t mask = a->block_cap - 1;

	for (size_t j = bt_slot(start, end, a->block_shift);; j = (j + 1) & mask) {
		struct bt_block *s = &a->blocks[j];

		if (!s->count)
			return NULL;
		if (s->start == start && s->end == end)
			return s;
	}
}

/* Allocate both tables at BT_INITIAL_SLOTS. Returns 0 or TDP_ENOMEM. */
int bt_init(struct branch_agg *a, struct tdp_err *err) __attribute__((warn_unused_result));

/*
 * Insert (from, to), absent from the table, as a fresh slot (count 0, keys and
 * pid set), growing the table first when it would pass half full. Returns NULL
 * on TDP_ENOMEM/TDP_ELIMIT (*rc holds the code, err the message). Growing moves
 * the table: earlier slot pointers are stale.
 */
struct bt_edge *bt_edge_insert(struct branch_agg *a, uint64_t from, uint64_t to, uint32_t pid, int *rc,
			       struct tdp_err *err);

/* As bt_edge_insert() for the block table. */
struct bt_block *bt_block_insert(struct branch_agg *a, uint64_t start, uint64_t end, uint32_t pid, int *rc,
				 struct tdp_err *err);

#endif
