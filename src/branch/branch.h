/*
 * branch.h: aggregation of branch records (Intel LBR, AMD LbrExtV2/BRS, Arm
 * BRBE, decoded Arm SPE) into the figures `tdprof branches report` ranks: counts,
 * branch sites, edges, timed basic blocks and a view by branch type.
 *
 * What is counted (the same rules as perf 6.1's `perf report --branch-stack`,
 * whose "Samples" line is the number of branch entries, each entry weighing 1):
 *   - every branch entry of every sample is one execution of its edge
 *     (from, to), entries with a 0 address included (perf counts the 0x0/0x0
 *     padding of short LBR stacks too: derived/...report-mispredict.txt of
 *     raw_callgraph_branch-3.4 has a "0000000000000000" row of 15 entries);
 *   - a site is a source address: executions and mispredicts are the sums over
 *     its edges. Sites and edges are keyed by address alone, as perf's
 *     symbol_from/symbol_to keys compare unresolved addresses: the same address
 *     in two processes is one site (its pid is the first one seen, used to
 *     symbolize it);
 *   - mispredict rate = mispredicts / executions; share = mispredicts / all
 *     mispredicted entries of the recording.
 *
 * Timed basic blocks. Intel's LBR (and Arm BRBE) record in entry i the cycles
 * elapsed since the previous LBR update, i.e. since the older branch i+1 retired.
 * So the straight-line code from entry[i+1].to (where the older branch landed)
 * to entry[i].from (the newer branch) ran in entry[i].cycles cycles. This is the
 * convention of perf itself: tools/perf/builtin-script.c
 * perf_sample__fprintf_brstackinsn() prints the block start = entries[i + 1].to,
 * end = entries[i].from and closes it with ip__fprintf_jump(&entries[i]), which
 * prints entries[i].flags.cycles and IPC = instructions / cycles; and
 * tools/perf/util/hist.c hist__account_cycles() walks i from nr-1 down to 0
 * crediting bi[i].flags.cycles to the block starting at bi[i+1].to (prev). Ahmad
 * Yasin's aayasin/perf-tools lbr/lbr.py reads the same brstackinsn text.
 * A block is counted only when both addresses are non-zero (0x0/0x0 padding
 * entries are skipped), start <= end and the range is at most
 * BRANCH_MAX_BLOCK_BYTES long (otherwise the two entries are not consecutive in
 * program order: an interrupt, a filtered ring). Only stacks with at least one
 * non-zero cycles field contribute; a recording where every cycles field is 0
 * (AMD LbrExtV2 and BRS, SPE, no timed LBR) has no timing at all.
 *
 * Lifecycle:
 *   1. branch_agg_new(&a, &err);
 *   2. branch_agg_add_sample() per sample (or branch_agg_add_stack() for stacks
 *      from elsewhere: SPE, tests), branch_agg_add_lost() per LOST or
 *      LOST_SAMPLES record; branch_load() does all of it over a perf.data;
 *   3. branch_agg_finish(a, &res, &err): the sites, edges, blocks and types as
 *      arrays, ranked;
 *   4. branch_result_release(&res); branch_agg_free(a).
 *
 * Memory: the hash tables are open-addressing arrays on u64 keys that double
 * when half full; adding an entry never allocates otherwise. The tables hold at
 * most BRANCH_MAX_EDGES edges and BRANCH_MAX_BLOCKS blocks (TDP_ELIMIT beyond).
 * Not thread-safe: one aggregator per thread.
 */
#ifndef TDPROF_BRANCH_BRANCH_H
#define TDPROF_BRANCH_BRANCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfdata/perfdata.h"

struct tdp_err;

/** Most distinct (from, to) edges kept. */
#define BRANCH_MAX_EDGES (1u << 22)
/** Most distinct (start, end) timed blocks kept. */
#define BRANCH_MAX_BLOCKS (1u << 22)
/** Longest straight-line block accepted, in bytes (larger: not consecutive entries). */
#define BRANCH_MAX_BLOCK_BYTES 65536u

/** "No process" (the pid of a sample without PERF_SAMPLE_TID). */
#define BRANCH_PID_NONE UINT32_MAX

/**
 * Counts over the whole recording. While aggregating, branch_agg_counts() keeps
 * samples, samples_with_stack, branch_entries, timed_entries, lost, lost_samples
 * and the block counts; the flag, type and zero-address counts are summed over
 * the edges by branch_agg_finish() (once per edge rather than once per entry).
 */
struct branch_counts {
	uint64_t samples;              /* SAMPLE records (all of them) plus decoded SPE records */
	uint64_t samples_with_stack;   /* of which carried a branch stack (nr may be 0) */
	uint64_t samples_empty_stack;  /* of those, with no entry (nr 0: system-wide recordings have many) */
	uint64_t branch_entries;       /* all entries, 0x0 padding included (perf's count) */
	uint64_t mispredicted_entries; /* entries flagged mispredicted */
	uint64_t predicted_entries;    /* entries flagged predicted */
	uint64_t flagless_entries;     /* neither flag (AMD BRS, synthesized stacks) */
	uint64_t zero_entries;         /* from or to is 0 */
	uint64_t typed_entries;        /* of edges whose type was recorded (-j save_type, SPE) */
	uint64_t timed_entries;        /* cycles != 0 */
	uint64_t lost;                 /* sum of LOST records' lost counts */
	uint64_t lost_samples;         /* sum of LOST_SAMPLES records' lost counts */
	uint64_t blocks_seen;          /* block candidates in timed stacks */
	uint64_t blocks_skipped;       /* of which rejected (0 address, not straight-line) */
};

/** One edge: a taken branch from `from` to `to`. */
struct branch_edge {
	uint64_t from, to;
	uint64_t count;        /* entries */
	uint64_t mispredicts;  /* entries flagged mispredicted */
	uint64_t predicted;    /* entries flagged predicted */
	uint64_t not_taken;    /* SPE: entries of not-taken branches */
	uint32_t pid;          /* first pid seen (BRANCH_PID_NONE: unknown) */
	uint8_t type;          /* enum branch_type as recorded (first non-zero seen) */
	uint8_t new_type;
};

/** Where a site's branch type came from. */
enum branch_type_source {
	BRANCH_TYPE_FROM_NONE = 0,     /* unknown */
	BRANCH_TYPE_FROM_RECORD,       /* the entries' type (save_type, SPE OP-TYPE) */
	BRANCH_TYPE_FROM_DISASM,       /* decoded from the binary (symbol module) */
};

/** One branch site: a source address. */
struct branch_site {
	uint64_t addr;
	uint64_t executions;   /* entries with this from */
	uint64_t mispredicts;
	uint64_t predicted;
	uint64_t not_taken;
	size_t nr_targets;     /* distinct targets */
	uint32_t pid;
	uint8_t type;          /* enum branch_type (BRANCH_TYPE_UNKNOWN when unknown) */
	uint8_t new_type;
	uint8_t type_source;   /* enum branch_type_source */
};

/** One timed straight-line block [start, end] (end is the closing branch's address). */
struct branch_block {
	uint64_t start, end;
	uint64_t count;        /* times seen in timed stacks */
	uint64_t timed;        /* of which with cycles != 0 */
	uint64_t cycles;       /* sum of their cycles */
	uint32_t pid;
};

/** The figures of one branch type (view by type). */
struct branch_type_row {
	uint8_t type;          /* enum branch_type */
	uint8_t new_type;
	uint64_t sites;
	uint64_t executions;
	uint64_t mispredicts;
	double rate;           /* mispredicts per execution (0 without executions) */
	double share;          /* its part of all mispredicted entries (0 without any) */
};

/** How sites are ranked. */
enum branch_sort {
	BRANCH_SORT_MISPREDICTS = 0, /* mispredicts, then executions */
	BRANCH_SORT_EXECUTIONS,      /* executions, then mispredicts */
	BRANCH_SORT_RATE,            /* mispredict rate, then mispredicts */
};

/**
 * The finished aggregation. Arrays are heap (owned by the struct; released by
 * branch_result_release()). Sites are ranked by BRANCH_SORT_MISPREDICTS, edges by
 * count (then from, to ascending, as perf breaks ties), blocks by total cycles
 * (then count), types by mispredicts.
 */
struct branch_result {
	struct branch_counts counts;
	struct branch_site *sites;
	size_t nr_sites;
	struct branch_edge *edges;
	size_t nr_edges;
	struct branch_block *blocks;   /* empty when !has_timing */
	size_t nr_blocks;
	struct branch_type_row *types;
	size_t nr_types;
	bool has_timing;               /* some entry had cycles != 0 */
	bool has_mispred_flags;        /* some entry had the mispred or predicted flag */
	bool has_types;                /* some entry had a recorded type */
};

#define BRANCH_RESULT_INIT { { 0 }, NULL, 0, NULL, 0, NULL, 0, NULL, 0, false, false, false }

struct branch_agg;

/** Make an aggregator. Returns 0 and sets *out (free with branch_agg_free()), or TDP_ENOMEM. */
int branch_agg_new(struct branch_agg **out, struct tdp_err *err) __attribute__((warn_unused_result));

/** Free an aggregator. NULL is fine. */
void branch_agg_free(struct branch_agg *a);

/**
 * Add one stack: e[0..nr) newest first, from a process pid (BRANCH_PID_NONE when
 * unknown). Counts the entries, edges and, when some entry has cycles, the timed
 * blocks. Does not count a sample (see branch_agg_add_sample()).
 * Returns 0; TDP_ELIMIT (more than BRANCH_MAX_EDGES edges or BRANCH_MAX_BLOCKS
 * blocks); TDP_ENOMEM (growing a table). On failure the aggregator keeps what it
 * had before this call's failing entry and must not be finished.
 */
int branch_agg_add_stack(struct branch_agg *a, const struct branch_entry *e, size_t nr, uint32_t pid,
			 struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * As branch_agg_add_stack(), for nr entries in perf.data's own layout: raw holds
 * nr struct perf_branch_entry {u64 from, to, flags} (24 bytes each, little
 * endian), as perfdata_sample.branch_raw gives them. Decoded and counted in one
 * pass, with the same result as decoding them into struct branch_entry first.
 */
int branch_agg_add_raw(struct branch_agg *a, const uint8_t *raw, size_t nr, uint32_t pid, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Count one sample and add its branch stack, if it has one (s->fields has
 * PERFDATA_SAMPLE_BRANCH_STACK). The pid is s->pid when the sample has TID.
 * Returns as branch_agg_add_stack().
 */
int branch_agg_add_sample(struct branch_agg *a, const struct perfdata_sample *s, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** Count samples that carry no stack of their own (decoded SPE records). */
void branch_agg_count_samples(struct branch_agg *a, uint64_t nr);

/** Add lost counts: `lost` from a LOST record, `lost_samples` from LOST_SAMPLES. */
void branch_agg_add_lost(struct branch_agg *a, uint64_t lost, uint64_t lost_samples);

/** The counts so far (see struct branch_counts for which). Never NULL. */
const struct branch_counts *branch_agg_counts(const struct branch_agg *a);

/**
 * Produce the ranked result into *out (overwritten). The aggregator is unchanged
 * and can take more samples afterwards. Returns 0 or TDP_ENOMEM (then *out is as
 * after BRANCH_RESULT_INIT).
 */
int branch_agg_finish(const struct branch_agg *a, struct branch_result *out, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** Free the arrays of r and leave it as after BRANCH_RESULT_INIT. */
void branch_result_release(struct branch_result *r);

/** Rank sites[0..nr) by `by` (ties: executions or mispredicts, then address ascending). */
void branch_sites_sort(struct branch_site *sites, size_t nr, enum branch_sort by);

/**
 * Rebuild r->types from r->sites (after the types of sites were filled from
 * disassembly). Returns 0 or TDP_ENOMEM (r->types unchanged).
 */
int branch_result_retype(struct branch_result *r, struct tdp_err *err) __attribute__((warn_unused_result));

/** A site's mispredict rate in [0, 1]; 0 when it never executed. */
double branch_site_rate(const struct branch_site *s);

/** A site's share of all mispredicted entries in [0, 1]; 0 when there are none. */
double branch_site_share(const struct branch_site *s, const struct branch_counts *c);

/** A block's average cycles over its timed executions; 0 when it has none. */
double branch_block_avg_cycles(const struct branch_block *b);

/** Instructions per cycle of a block of insns instructions; -1 when unknown (insns < 0, untimed). */
double branch_block_ipc(const struct branch_block *b, int64_t insns);

/** perf's name of a branch type ("COND", "IND_CALL", ...), "UNKNOWN" for an unknown one. */
const char *branch_type_name(unsigned type, unsigned new_type);

/** Parse "mispredicts", "executions" or "rate". Returns true and sets *out on success. */
bool branch_sort_parse(const char *s, enum branch_sort *out);

/* ---------------------------------------------------------------------------
 * Loading a perf.data
 * ------------------------------------------------------------------------- */

/** Arm SPE figures of a recording (branch_load()). */
struct branch_spe_stats {
	bool present;              /* an AUXTRACE_INFO of type ARM_SPE was seen */
	uint64_t auxtrace_bytes;   /* trace bytes decoded */
	uint64_t records;          /* SPE records */
	uint64_t branch_records;   /* of which branches (become branch entries) */
	uint64_t bad_bytes;        /* bytes skipped as undecodable headers */
	uint64_t truncated;        /* packets or records cut short at a buffer's end */
	bool mispred_only;         /* the SPE event sampled only mispredicted branches (event_filter,
				    * config1, bit 7 of PMSEVFR_EL1): every record is a mispredict, so
				    * a rate of 100 % is the filter's, not the program's */
};

/** What branch_load() learnt about the recording besides the counts. */
struct branch_load_info {
	size_t nr_attrs;           /* events */
	size_t nr_branch_attrs;    /* of which sample branch stacks */
	uint64_t branch_sample_type; /* of the first branch-sampling attr */
	const char *event_name;    /* of the first branch-sampling attr (reader's), or NULL */
	uint64_t other_auxtrace;   /* AUXTRACE records of other tracers (Intel PT, CoreSight: not decoded) */
	struct branch_spe_stats spe;
};

/**
 * Called by branch_load() for every record that is not a SAMPLE, LOST,
 * LOST_SAMPLES or AUXTRACE (MMAP, COMM, FORK, ... for a symbol session), in file
 * order, on the caller's thread. A negative return stops the load with that code.
 */
typedef int branch_record_fn(void *ctx, const struct perfdata_record *rec, struct tdp_err *err);

struct branch_prefault;

/** How branch_load() reads. Zeroed: one thread, no callback, no helper. */
struct branch_load_opts {
	branch_record_fn *on_record;   /* may be NULL */
	void *ctx;                     /* passed to on_record */
	bool threaded;                 /* aggregate on a second thread while this one decodes
					* (stacks are handed to it in chunks of BRANCH_CHUNK_ENTRIES:
					* raw stacks of an image in memory as pointers into it,
					* others copied); the result is the same as without */
	struct branch_prefault *pf;    /* a prefault helper over the image being read, or NULL:
					* told how far reading went, it maps pages ahead and
					* releases those behind (see branch_prefault_start()) */
	branch_record_fn *on_plain_sample; /* every SAMPLE of an event without a branch stack
					* (plain IP samples: branch/ips.h), or NULL */
	void *sample_ctx;              /* passed to on_plain_sample */
};

/** Entries per chunk handed to the aggregating thread (512 KiB of struct branch_entry). */
#define BRANCH_CHUNK_ENTRIES (1u << 14)

/**
 * Read every record of the open reader p into a: samples, lost counts, and Arm
 * SPE trace (AUXTRACE payloads after an AUXTRACE_INFO of type ARM_SPE, decoded
 * with branch/spe.h into one-entry stacks). o may be NULL (as zeroed). info (may
 * be NULL) is filled. a must not be used by anyone else until it returns.
 * Returns 0; the reader's errors (TDP_EFORMAT, TDP_ELIMIT with the file and the
 * offset in err); the aggregator's; on_record's; TDP_ENOMEM. After an error a
 * holds part of the recording. Starts and joins a thread when o->threaded (falls
 * back to one thread when it cannot start one).
 */
int branch_load(struct perfdata *p, struct branch_agg *a, const struct branch_load_opts *o,
		struct branch_load_info *info, struct tdp_err *err) __attribute__((warn_unused_result));

/*
 * What a report says about a loaded recording (describe.c): who recorded it, and
 * why it has no timing when it has none.
 */

/**
 * True when `tdprof branches record` wrote the file: its own path first in the
 * CMDLINE feature, or "tdprof-VERSION" as the VERSION feature.
 */
bool branch_recorded_by_tdprof(const struct perfdata_features *f);

/**
 * Why res has no block timing (a static sentence), or NULL when it has: Arm SPE,
 * no branch entries, or cycles fields that are all 0 (AMD's LbrExtV2 and BRS
 * record none; elsewhere the hardware or the branch filter).
 */
const char *branch_timing_reason(const struct branch_result *res, const struct branch_load_info *li,
				 const struct perfdata_features *f);

/* ---------------------------------------------------------------------------
 * Prefaulting a large input
 * ------------------------------------------------------------------------- */

/** Inputs smaller than this are not prefaulted (the thread costs more than it saves). */
#define BRANCH_PREFAULT_MIN (8u << 20)
/** How far ahead of the reader the helper maps pages. */
#define BRANCH_PREFAULT_AHEAD (16u << 20)

/**
 * Start a helper thread over buf[0..len), a read-only file mapping of the input
 * (never a heap buffer: released pages are dropped, which a mapping of a file
 * survives and a heap buffer does not). The helper maps pages into memory
 * (MADV_POPULATE_READ, or a read per page on kernels without it) up to
 * BRANCH_PREFAULT_AHEAD bytes ahead of the position branch_prefault_progress()
 * reports, so that the reader finds them mapped, and progress releases the pages
 * the reader has passed (MADV_DONTNEED), so that the resident memory stays a
 * window rather than the whole file. buf is borrowed until branch_prefault_stop().
 * Sets *out to the helper, or to NULL when len < BRANCH_PREFAULT_MIN or no thread
 * could be started (nothing is lost but speed). Returns 0 or TDP_ENOMEM.
 */
int branch_prefault_start(struct branch_prefault **out, const uint8_t *buf, size_t len, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * The reader is done with buf[0..off): let the helper map further, and release the
 * pages before off, except those below keep_below (the file's header, attrs and
 * other sections read at any time; 0: none kept). Cheap when called often.
 */
void branch_prefault_progress(struct branch_prefault *pf, size_t off, size_t keep_below);

/** Stop the helper (it finishes its current chunk), join it and free it. NULL is fine. */
void branch_prefault_stop(struct branch_prefault *pf);

/*
 * The window arithmetic of the helper, pure so that tests can hold it to its
 * bounds (addresses as integers; page a power of two).
 */
/**
 * The next range [*from, *to) the helper maps, having mapped up to done, with
 * the reader at reader, of an image ending at end: it starts at done or at the
 * reader's page, whichever is later (never behind the reader), spans at most
 * 1 MiB, and never passes reader + BRANCH_PREFAULT_AHEAD nor end; it starts on
 * a page boundary (done is always the end of an earlier range). Empty
 * (*from >= *to) when the helper is that far ahead already.
 */
void branch_prefault_window(uintptr_t done, uintptr_t reader, uintptr_t end, size_t page, uintptr_t *from,
			   uintptr_t *to);

/**
 * The pages to release with the reader at reader, released so far up to
 * released, never below keep (rounded up to a page) nor closer than 1 MiB
 * behind the reader (rounded down to a page), of an image starting at start:
 * [*from, *to), empty when none. Returns the new released mark.
 */
uintptr_t branch_prefault_claim(uintptr_t released, uintptr_t keep, uintptr_t reader, uintptr_t start, size_t page,
				uintptr_t *from, uintptr_t *to);

#endif
