/* lru.c: a set-associative LRU cache over caller memory (see lru.h). Freestanding. */
#include "sim/lru.h"

size_t sim_lru_bytes(uint32_t sets, uint32_t assoc)
{
	if (!sets || sets > SIM_LRU_MAX_SETS || !assoc || assoc > SIM_LRU_MAX_ASSOC)
		return 0;
	return (size_t)sets * assoc * sizeof(uint64_t);
}

bool sim_lru_init(struct sim_lru *c, void *mem, size_t len, uint32_t sets, uint32_t assoc)
{
	size_t need = sim_lru_bytes(sets, assoc);
	uint64_t *t = mem;

	if (!need || len < need || !mem || ((uintptr_t)mem & 7))
		return false;
	for (size_t i = 0; i < (size_t)sets * assoc; i++)
		t[i] = 0;
	c->tag = t;
	c->sets = sets;
	c->assoc = assoc;
	c->pow2 = !(sets & (sets - 1));
	c->mask = c->pow2 ? sets - 1 : 0;
	return true;
}

static uint64_t *set_of(const struct sim_lru *c, uint64_t block)
{
	uint64_t s = c->pow2 ? (block & c->mask) : block % c->sets;

	return c->tag + s * c->assoc;
}

bool sim_lru_access(struct sim_lru *c, uint64_t block)
{
	uint64_t *w = set_of(c, block), key = block + 1, prev;

	if (w[0] == key)
		return true;
	/* one pass: each way moves down one until the block is found (a hit) or the
	 * last way falls off (a miss); the block becomes the most recent */
	prev = w[0];
	for (uint32_t i = 1; i < c->assoc; i++) {
		uint64_t t = w[i];

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
	const uint64_t *w = set_of(c, block);

	for (uint32_t i = 0; i < c->assoc; i++)
		if (w[i] == block + 1)
			return true;
	return false;
}
