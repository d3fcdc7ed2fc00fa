/*
 * pf.h: the hardware prefetchers of the machine model (mach.h), as detectors
 * that say whether a data-cache miss is one a prefetcher would have covered:
 *
 *   stride   per load instruction (its address hashed into SIM_PF_STRIDE_ENTRIES
 *            entries): the distance between its successive misses. The same
 *            non-zero distance, of at most max_stride bytes, seen twice in a row
 *            makes the entry confident, and from then on a miss at the next
 *            multiple is covered (Intel's L1 IP-based stride prefetcher; any
 *            fixed stride, not a miss ratio);
 *   stream   per 4 KiB page (SIM_PF_STREAMS pages, one slot per page hash):
 *            misses on lines one or two apart in one direction; the third such
 *            line and the ones after it are covered (Intel's L2 streamer, AMD's
 *            and Arm's next-line and stream prefetchers). Streams do not cross
 *            pages: each page trains again, as the hardware does.
 *
 * Both are trained on demand-load misses only (a hit tells the prefetcher
 * nothing it acts on here). Freestanding C; the structure is the whole state (no
 * memory of its own).
 */
#ifndef TDPROF_SIM_PF_H
#define TDPROF_SIM_PF_H

#include <stdbool.h>
#include <stdint.h>

#define SIM_PF_STRIDE_ENTRIES 256u
#define SIM_PF_STREAMS 64u /* a power of two */
#define SIM_PF_PAGE_SHIFT 12u

struct sim_pf_stride {
	uint64_t pc;     /* the load's address + 1 (0: free) */
	uint64_t last;   /* its last miss address */
	int64_t stride;  /* the last distance */
	uint32_t conf;   /* times in a row that distance repeated (saturates at 3) */
};

struct sim_pf_stream {
	uint64_t page;   /* page number + 1 (0: free) */
	int64_t last;    /* the line (within the page) of the last miss */
	int dir;         /* +1, -1 or 0 (not yet known) */
	uint32_t conf;
};

struct sim_pf {
	bool stride_on, stream_on;
	uint32_t max_stride;   /* bytes: a longer stride is not prefetched (Intel: 2 KiB) */
	uint32_t line_shift;   /* log2 of the line size */
	struct sim_pf_stride stride[SIM_PF_STRIDE_ENTRIES];
	struct sim_pf_stream stream[SIM_PF_STREAMS];
};

/* Which detector covered a miss (bits). */
#define SIM_PF_BY_STRIDE 1u
#define SIM_PF_BY_STREAM 2u

/** Reset pf: both detectors empty, switched on or off, with the given limits. */
void sim_pf_init(struct sim_pf *pf, bool stride_on, bool stream_on, uint32_t max_stride, uint32_t line_shift);

/**
 * A demand load by the instruction at `pc` missed the L1 data cache at `addr`:
 * train the detectors and return which of them covered this miss (0: none).
 */
unsigned sim_pf_miss(struct sim_pf *pf, uint64_t pc, uint64_t addr);

#endif
