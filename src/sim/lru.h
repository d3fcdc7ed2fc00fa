/*
 * lru.h: one set-associative cache with LRU replacement, for the machine model of
 * tdprof's valgrind tool (mach.h): the L1, L2 and L3 caches, the BTB and the
 * µop cache are all one of these, keyed by a block number (an address shifted by
 * the line size, or a branch address).
 *
 * Freestanding C (stdint, stddef, stdbool only): it is compiled into the valgrind
 * tool, which runs without a C library, and into the unit tests. The caller gives
 * the memory (sim_lru_bytes() of it, 8-byte aligned) and keeps it for the cache's
 * life; nothing is allocated or freed here.
 *
 * Any number of sets works (a power of two is indexed by a mask, any other count
 * by a remainder: Alder Lake's 30 MiB 12-way L3 has 40,960 sets).
 */
#ifndef TDPROF_SIM_LRU_H
#define TDPROF_SIM_LRU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_LRU_MAX_ASSOC 64u
#define SIM_LRU_MAX_SETS (1u << 24)

struct sim_lru {
	uint32_t *tag;     /* sets * assoc tags (lru.c), most recent first in each set; 0: empty */
	uint32_t sets;
	uint32_t assoc;
	uint32_t mask;     /* sets - 1 when sets is a power of two */
	uint32_t shift;    /* log2(sets) then */
	bool pow2;
};

/**
 * Bytes of memory a cache of `sets` sets of `assoc` ways needs; 0 when the
 * geometry is out of range (sets 1..SIM_LRU_MAX_SETS, assoc 1..SIM_LRU_MAX_ASSOC).
 */
size_t sim_lru_bytes(uint32_t sets, uint32_t assoc);

/**
 * Make c an empty cache over mem[0..len) (len >= sim_lru_bytes(), mem 8-byte
 * aligned). Returns false (c untouched) when the geometry is out of range or len
 * is too small.
 */
bool sim_lru_init(struct sim_lru *c, void *mem, size_t len, uint32_t sets, uint32_t assoc);

/**
 * Access block `block`: true on a hit (it becomes the most recent of its set);
 * false on a miss, when it is installed as the most recent and the least recent
 * of its set is evicted.
 */
bool sim_lru_access(struct sim_lru *c, uint64_t block);

/** True when `block` is cached; the order of the set does not change. */
bool sim_lru_holds(const struct sim_lru *c, uint64_t block);

#endif
