/*
 * mach.h: the machine tdprof's valgrind tool simulates (vgtool/, docs/sim-machine.md
 * "The tool"), driven by the program's instruction fetches, loads, stores and
 * branches as they run:
 *   - L1 instruction and data caches, a unified L2 and L3 (lru.h: LRU, any set
 *     count), filled on every miss on the way in; the instruction side also looks
 *     up a µop cache (fetch windows) when the machine has one;
 *   - the hardware prefetchers as detectors (pf.h) and the interval model of
 *     overlapping misses (ivl.h), which give each load its exposed cycles per level;
 *   - the branch predictor (bpred.h: conditional, indirect, returns) and a BTB of
 *     taken-branch addresses.
 * Every event is counted on the instruction that caused it: the caller passes
 * that instruction's counters (uint64_t ev[SIM_MEV_NR]).
 *
 * Freestanding C: compiled into the valgrind tool (no C library) and into the
 * unit tests. The caller gives one block of memory of sim_mach_bytes() bytes.
 */
#ifndef TDPROF_SIM_MACH_H
#define TDPROF_SIM_MACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/bpred.h"
#include "sim/ivl.h"
#include "sim/lru.h"
#include "sim/pf.h"

/*
 * Per-instruction events, in the order the tool writes them (their names,
 * sim_mev_name(), are what the cost-file parser reads: profile.h).
 */
enum sim_mev {
	SIM_MEV_IR = 0, /* instructions executed */
	SIM_MEV_DR,     /* data reads (loads) */
	SIM_MEV_DW,     /* data writes */
	SIM_MEV_I1MR,   /* instruction fetches missing L1I (charged to the line's first instruction) */
	SIM_MEV_I2MR,   /* ... missing L2 too */
	SIM_MEV_ILMR,   /* ... missing L3 too (DRAM) */
	SIM_MEV_D1MR,   /* loads missing L1D */
	SIM_MEV_D2MR,   /* ... and L2 */
	SIM_MEV_DLMR,   /* ... and L3 */
	SIM_MEV_D1MW,   /* stores missing L1D */
	SIM_MEV_D2MW,
	SIM_MEV_DLMW,
	SIM_MEV_BC,     /* conditional branches */
	SIM_MEV_BCM,    /* ... mispredicted */
	SIM_MEV_BI,     /* indirect jumps and calls (not returns) */
	SIM_MEV_BIM,    /* ... whose target was mispredicted */
	SIM_MEV_BR,     /* returns */
	SIM_MEV_BRM,    /* ... mispredicted */
	SIM_MEV_BTK,    /* taken branches of every kind */
	SIM_MEV_BTBM,   /* taken branches predicted right but missing the BTB (a decode-time resteer) */
	SIM_MEV_DPF,    /* load misses a hardware prefetcher covers */
	SIM_MEV_DSW,    /* software prefetches that missed L1D */
	SIM_MEV_DDEP,   /* load misses that waited for a load in flight (chases) */
	SIM_MEV_DCY2,   /* exposed cycles of loads served by L2 (×SIM_IVL_TICKS in memory) */
	SIM_MEV_DCY3,   /* ... by L3 */
	SIM_MEV_DCYM,   /* ... by DRAM */
	SIM_MEV_IDSBM,  /* fetch windows missing the µop cache */
	SIM_MEV_IMITE,  /* instructions of those windows (decoded by the legacy decoders) */
	SIM_MEV_NR
};

/** The event's name in the cost file ("Ir", "Dcy2", ...); "?" when out of range. */
const char *sim_mev_name(unsigned e);

/** True when the event is kept in ticks (SIM_IVL_TICKS per cycle) and written in cycles. */
bool sim_mev_in_ticks(unsigned e);

struct sim_mach_cache {
	uint64_t size;
	uint32_t assoc;
	uint32_t line;   /* the same on every level; a power of two */
};

struct sim_mach_config {
	struct sim_mach_cache l1i, l1d, l2, l3;
	uint32_t lat[SIM_NR_LVL];  /* load-to-use cycles: L1, L2, L3 hit, DRAM */
	uint32_t width_milli;      /* dispatch width × 1000 */
	uint32_t rob;              /* reorder buffer entries */
	uint32_t mshr;             /* L1D misses in flight */
	uint32_t bw_milli[SIM_NR_LVL]; /* bytes per cycle × 1000 one core moves from L2, L3, DRAM
					* ([SIM_LVL_L1] unused); 0: unlimited */
	uint32_t btb_entries, btb_assoc;  /* 0 entries: no BTB */
	uint32_t dsb_windows, dsb_assoc, dsb_window;  /* µop cache: windows of dsb_window bytes; 0: none */
	bool pf_stride, pf_stream; /* hardware prefetchers */
	uint32_t pf_max_stride;    /* bytes */
	uint32_t dep_range;        /* bytes above a loaded pointer that depend on it */
	const struct bpred_config *bpred; /* NULL: no predictor (every branch predicted) */
};

struct sim_mach;

/**
 * Bytes of memory the machine c needs (8-byte aligned); 0 when c is out of
 * range (a cache whose size is not assoc × line × sets, a line that is not a
 * power of two from 16 to 4096, or different lines).
 */
size_t sim_mach_bytes(const struct sim_mach_config *c);

/** Make the machine in mem[0..len) (len >= sim_mach_bytes(c)); NULL when it does not fit. */
struct sim_mach *sim_mach_init(void *mem, size_t len, const struct sim_mach_config *c);

/** The line size (bytes). */
uint32_t sim_mach_line(const struct sim_mach *m);

/*
 * The events. `seq` is the instruction's number in the run (non-decreasing from
 * call to call); ev is the instruction's counter array.
 */

/** Instruction fetch of the cache line at `addr` (the first instruction of the line's run owns ev). */
void sim_mach_fetch(struct sim_mach *m, uint64_t *ev, uint64_t addr);

/** The µop-cache lookup of the fetch window at `addr` holding n instructions (when the machine has one). */
void sim_mach_window(struct sim_mach *m, uint64_t *ev, uint64_t addr, uint32_t n);

/** A load of `size` bytes at addr returning `value` (0 when it is not a scalar) by the instruction at pc. */
void sim_mach_load(struct sim_mach *m, uint64_t *ev, uint64_t seq, uint64_t pc, uint64_t addr, uint32_t size,
		   uint64_t value);

/** A store of `size` bytes at addr. */
void sim_mach_store(struct sim_mach *m, uint64_t *ev, uint64_t seq, uint64_t addr, uint32_t size);

/** A software prefetch of the line at addr. */
void sim_mach_prefetch(struct sim_mach *m, uint64_t *ev, uint64_t seq, uint64_t addr);

/** A conditional branch at pc, taken or not (to `target` when taken). */
void sim_mach_cond(struct sim_mach *m, uint64_t *ev, uint64_t seq, uint64_t pc, bool taken, uint64_t target);

/** A direct unconditional jump at pc. */
void sim_mach_jump(struct sim_mach *m, uint64_t *ev, uint64_t pc, uint64_t target);

/** A call at pc to target, returning to ret; indirect when its target came from a register or memory. */
void sim_mach_call(struct sim_mach *m, uint64_t *ev, uint64_t seq, uint64_t pc, uint64_t target, uint64_t ret,
		   bool indirect);

/** An indirect jump at pc. */
void sim_mach_ijump(struct sim_mach *m, uint64_t *ev, uint64_t seq, uint64_t pc, uint64_t target);

/** A return at pc to target. */
void sim_mach_ret(struct sim_mach *m, uint64_t *ev, uint64_t seq, uint64_t pc, uint64_t target);

/** The end of the run (or of a process) at instruction seq: loads still in flight are charged. */
void sim_mach_finish(struct sim_mach *m, uint64_t seq);

/** The model's cycles at instruction seq (dispatch at full width plus the exposed stalls), ×SIM_IVL_TICKS. */
uint64_t sim_mach_ticks(struct sim_mach *m, uint64_t seq);

#endif
