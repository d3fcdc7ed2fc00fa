/*
 * ivl.h: the interval model of the machine model (mach.h): how many cycles each
 * load's miss costs once misses overlap, a first-order model after Karkhanis and
 * Smith ("A First-Order Superscalar Processor Model", ISCA 2004) and the interval
 * simulation of Genbrugge, Eyerman and Eeckhout (HPCA 2010; Sniper).
 *
 * The clock: instruction `seq` is dispatched at seq × tick_per_insn + the stalls
 * so far (in ticks, SIM_IVL_TICKS a cycle), the machine's width and nothing
 * else. A load is issued when it is dispatched, or when the load whose value its
 * address comes from completes (dependence, below), and completes its level's
 * latency later (lat[]: load-to-use cycles of an L1, L2, L3 hit and of DRAM).
 * Loads that take longer than an L1 hit are in flight; dispatch goes on behind
 * them until the reorder buffer (rob instructions) is full: then it stalls until
 * the oldest completes, and those cycles (its completion − the time the ROB
 * filled) are its **exposed cycles**, charged to its instruction and level. So:
 *   - misses issued within a ROB of one another overlap; an isolated miss costs
 *     its latency less the ROB fill time (an L2 hit costs nothing, a DRAM miss
 *     most of its latency);
 *   - a load that depends on a miss in flight (its address is within dep_range
 *     bytes above a value such a load returned: a pointer chase; or it is
 *     base + 4 or 8 × that value, twice from the same instruction: an index
 *     chase) is issued when that miss completes: a chase exposes every latency;
 *   - at most mshr misses are in flight (L1 fill buffers): the next waits for
 *     the oldest;
 *   - each level (L2, L3, DRAM) is one channel that moves a line every
 *     line_ticks[level] (the core's bandwidth from it; 0: unlimited): lines
 *     queue for it;
 *   - a miss a hardware prefetcher covers (pf.h) was requested its latency
 *     ahead: it costs nothing unless its level's channel is behind
 *     (bandwidth-bound streams);
 *   - a software prefetch requests its line when it runs; a load of that line
 *     before it arrives waits for it.
 * Stores cost nothing (the store buffer) but move their lines over the channel.
 *
 * Freestanding C: the structure is the whole state.
 */
#ifndef TDPROF_SIM_IVL_H
#define TDPROF_SIM_IVL_H

#include <stdbool.h>
#include <stdint.h>

#define SIM_IVL_TICKS 1000u        /* ticks per cycle */
#define SIM_IVL_MAX_INFLIGHT 64u   /* loads tracked in flight (>= mshr) */
#define SIM_IVL_DEP_SLOTS 512u     /* recent slow loads' values, for dependence */
#define SIM_IVL_INDEX_SLOTS 256u   /* per-instruction index-chase detectors */
#define SIM_IVL_SWPF_SLOTS 256u    /* software-prefetched lines in flight */

/* Where a load was served. */
enum sim_level { SIM_LVL_L1 = 0, SIM_LVL_L2, SIM_LVL_L3, SIM_LVL_MEM, SIM_NR_LVL };

struct sim_ivl_config {
	uint32_t tick_per_insn;    /* SIM_IVL_TICKS / width */
	uint32_t rob;              /* reorder buffer, instructions */
	uint32_t mshr;             /* misses in flight at most (1..SIM_IVL_MAX_INFLIGHT) */
	uint32_t lat[SIM_NR_LVL];  /* load-to-use cycles */
	uint32_t line_ticks[SIM_NR_LVL]; /* ticks per line of each level's channel (L1: unused); 0: no limit */
	uint32_t dep_range;        /* bytes above a loaded pointer that depend on it */
};

struct sim_ivl_miss {
	uint64_t seq;
	uint64_t done;   /* completion, ticks */
	uint64_t *cyc;   /* its instruction's exposed-ticks counter for its level */
};

struct sim_ivl_dep {
	uint64_t value;  /* a slow load's value + 1 (0: free) */
	uint64_t done;
};

struct sim_ivl_index {
	uint64_t pc;     /* + 1 */
	uint64_t base[2];/* address − 4 × and − 8 × the last slow value, at its last miss */
};

struct sim_ivl_swpf {
	uint64_t line;   /* + 1 */
	uint64_t done;
	unsigned level;
};

struct sim_ivl {
	struct sim_ivl_config c;
	uint64_t stall;        /* ticks the dispatch has stalled so far */
	unsigned dep_shift;    /* log2 of the dependence table's granule (>= dep_range) */
	uint64_t dep_until;    /* the latest completion in the dependence table (none later) */
	uint64_t swpf_until;   /* the latest arrival of a software prefetch */
	uint64_t last_seq;
	uint64_t chan_free[SIM_NR_LVL]; /* when each level's channel is free */
	uint64_t last_value;   /* the newest slow load's value and completion (index chases) */
	uint64_t last_done;
	struct sim_ivl_miss ring[SIM_IVL_MAX_INFLIGHT]; /* in flight, oldest first */
	uint32_t head, nr;
	struct sim_ivl_dep dep[SIM_IVL_DEP_SLOTS];
	struct sim_ivl_index index[SIM_IVL_INDEX_SLOTS];
	struct sim_ivl_swpf swpf[SIM_IVL_SWPF_SLOTS];
};

/* sim_ivl_load()'s result bits. */
#define SIM_IVL_DEPENDENT 1u  /* it waited for a load in flight (a chase) */
#define SIM_IVL_LATE_PF 2u    /* it waited for a prefetch still in flight */

/**
 * Reset v with configuration c (c->mshr is clamped to 1..SIM_IVL_MAX_INFLIGHT,
 * c->rob to at least 1, c->tick_per_insn to at least 1).
 */
void sim_ivl_init(struct sim_ivl *v, const struct sim_ivl_config *c);

/**
 * The load of instruction number `seq` (never smaller than the last one given)
 * by the instruction at `pc` read `addr` (cache line `line`) and returned
 * `value` (0 when not a scalar); it was served at `level`, and `covered` says a
 * hardware prefetcher covered the miss. cyc[SIM_LVL_L2 .. SIM_LVL_MEM] are the
 * instruction's exposed-ticks counters per level (cyc[0] is never touched): the
 * ticks are added when they become known, possibly at a later call or at
 * sim_ivl_finish(). Returns SIM_IVL_* bits.
 */
unsigned sim_ivl_load(struct sim_ivl *v, uint64_t seq, uint64_t pc, uint64_t addr, uint64_t line, uint64_t value,
		      unsigned level, bool covered, uint64_t *cyc);

/** A software prefetch of `line`, found at `level`, by instruction `seq`. */
void sim_ivl_prefetch(struct sim_ivl *v, uint64_t seq, uint64_t line, unsigned level);

/** A store by instruction `seq` missed L1 and was served by `level`: its line (and, from DRAM, its write-back) use the channel. */
void sim_ivl_store_miss(struct sim_ivl *v, uint64_t seq, unsigned level);

/**
 * A mispredicted branch at instruction `seq`: when the newest load in flight
 * is within a few instructions of it, the branch was waiting for its value and
 * resolves only when it completes: dispatch stalls until then (the miss is
 * exposed whatever the ROB).
 */
void sim_ivl_mispredict(struct sim_ivl *v, uint64_t seq);

/** The end of the run at instruction `seq`: charge what is still in flight. */
void sim_ivl_finish(struct sim_ivl *v, uint64_t seq);

/** Ticks since instruction 0 at instruction `seq`: the model's cycle count × SIM_IVL_TICKS. */
uint64_t sim_ivl_now(struct sim_ivl *v, uint64_t seq);

#endif
