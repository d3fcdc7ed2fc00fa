/* lru.c: a set-associative LRU cache over caller memory (see lru.h). Freestanding. */
#include "sim/lru.h"

size_t sim_lru_bytes(uint32_t sets, uint32_t assoc)
{
	if (!sets || sets > SIM_LRU_MAX_SETS || !assoc || assoc > SIM_LRU_MAX_ASSOC)
		return 0;
	return (size_t)sets * assoc * sizeof(uint32_t);
}

bool sim_lru_init(struct sim_lru *c, void *mem, size_t len, uint32_t sets, uint32_t assoc)
{
	size_t need = sim_lru_bytes(sets, assoc);
	uint32_t *t = mem;

	if (!need || len < need || !mem || ((uintptr_t)mem & 7))
		return false;
	for (size_t i = 0; i < (size_t)sets * assoc; i++)
		t[i] = 0;
	c->tag = t;
	c->sets = sets;
	c->assoc = assoc;
	c->pow2 = !(sets & (sets - 1));
	c->mask = c->pow2 ? sets - 1 : 0;
	c->shift = 0;
	while (c->pow2 && (1u << c->shift) < sets)
		c->shift++;
	return true;
}

/*
 * The set of a block and its tag within the set: the block number without the
 * set bits (block / sets), + 1 so that 0 marks an empty way. Kept in 32 bits,
 * which tells apart blocks closer than 2^32 x sets lines (256 GiB and more with
 * 64-byte lines): half the memory of full block numbers, for the host's caches.
 */
static uint32_t *set_of(const struct sim_lru *c, uint64_t block, uint32_t *tag)
{
	uint64_t s, t;

	if (c->pow2) {
		s = block & c->mask;
		t = block >> c->shift;
	} else {
		s = block % c->sets;
		t = block / c->sets;
	}
	*tag = (uint32_t)t + 1;
	if (!*tag)
		*tag = 1; /* (2^32 - 1) + 1 wraps to the empty mark: alias it with 0 */
	return c->tag + s * c->assoc;
}

bool sim_lru_access(struct sim_lru *c, uint64_t block)
{
	uint32_t key, prev, *w = set_of(c, block, &key);

	if (w[0] == key)
		return true;
	/* one pass: each way moves down one until the block is found (a hit) or the
	 * last way falls off (a miss); the block becomes the most recent */
	prev = w[0];
	for (uint32_t i = 1; i < c->assoc; i++) {
		uint32_t t = w[i];

		w[i] = prev;
		if (t == key) {
			w[0] = key;
			return true;
		}
		prev = t;
	}
	w[0] = key;
	return false;
}

bool sim_lru_holds(const struct sim_lru *c, uint64_t block)
{
	uint32_t key, *w = set_of(c, block, &key);

	for (uint32_t i = 0; i < c->assoc; i++)
		if (w[i] == key)
			return true;
	return false;
}
