/*
 * ips.h: plain samples (issue 20, item 6): the SAMPLE records of a recording
 * whose events sample no branch stack (software events such as cpu-clock, or
 * --no-branch-stack) counted by instruction pointer and, when the recording has
 * them (PERF_SAMPLE_CALLCHAIN: perf record -g), by call chain; then named through
 * the branch annotator's symbol session (annotate.h) into hot functions, hot
 * source lines and folded stacks for flame graphs.
 *
 * What is counted, as perf 6.1 counts it:
 *   - the samples of the first event that has plain samples (perf report shows
 *     one event at a time); samples of other events are counted in other_samples;
 *   - a function's self samples are the samples whose IP it holds, grouped as
 *     `perf report --sort sym` groups them (one row per symbol; an unresolved
 *     address is its own row), with perf's text for the symbol ("[.] main",
 *     "[k] do_idle", "[.] 0x0000000000001139");
 *   - with call chains, a function's total (perf's "Children") counts each sample
 *     once when any frame of its chain is in the function;
 *   - a stack is the sample's call chain with the PERF_CONTEXT_* markers left
 *     out (the IP alone without one), prefixed by the thread's command name
 *     (from COMM records, inherited at FORK; file order is not time order
 *     across CPUs, so a sample read before its thread's first COMM takes that
 *     one),
 *     as `perf script | stackcollapse-perf.pl` folds it: "comm;outer;...;inner N"
 *     (an unresolved frame is "[unknown]", as perf script prints it);
 *   - a source line is the file:line of the sample's IP (the innermost inlined
 *     function's line, as the line table gives it).
 *
 * Lifecycle:
 *   1. ips_agg_new(&a, &err);
 *   2. branch_load() with opts.on_plain_sample = ips_agg_sample, sample_ctx = a,
 *      and opts.on_record = ips_agg_record, ctx = a, after
 *      ips_agg_chain(a, branch_annot_record, an) so that the maps still reach the
 *      annotator (ips_agg_record keeps the threads' names and passes every record on);
 *   3. ips_agg_finish(a, an, &res, &err): resolves every distinct address once
 *      (branch_annot_run() over them) and builds the ranked tables;
 *   4. ips_result_release(&res); ips_agg_free(a); the strings of res belong to
 *      a and to the annotator: free them after the result.
 *
 * Memory: hash tables on u64 keys that double when half full, and one arena of
 * frames; bounded by the named limits (TDP_ELIMIT beyond).
 */
#ifndef TDPROF_BRANCH_IPS_H
#define TDPROF_BRANCH_IPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "branch/branch.h"

struct tdp_err;
struct branch_annot;
struct perfdata_attr;
struct perfdata_record;

/** Most distinct sampled addresses (IPs and call-chain frames). */
#define IPS_MAX_ADDRS (1u << 22)
/** Most distinct stacks. */
#define IPS_MAX_STACKS (1u << 22)
/** Most frames kept over all distinct stacks. */
#define IPS_MAX_FRAMES (1u << 25)
/** Most distinct thread names. */
#define IPS_MAX_COMMS 65536
/** Most threads whose names are kept (others stay "[unknown]"). */
#define IPS_MAX_THREADS (1u << 20)

/** One row of the hot functions. */
struct ips_function {
	const char *perf_text;   /* perf's symbol column: "[.] wl_hot_loop" */
	const char *function;    /* demangled name; NULL when unresolved */
	const char *dso;         /* the mapped file as recorded; NULL when unmapped */
	bool kernel;
	uint64_t addr;           /* the lowest sampled address of the row */
	uint64_t self;           /* samples whose IP it holds */
	uint64_t total;          /* samples with it anywhere in their chain (= self without chains) */
	double self_share;       /* self / samples */
	double total_share;      /* total / samples */
};

/** One row of the hot source lines. */
struct ips_line {
	const char *file;
	uint32_t line;
	const char *function;    /* the function the line's code is in (innermost inline) */
	uint64_t samples;
	double share;            /* samples / all samples */
};

/** One folded stack. frames[0] is the outermost frame, frames[nr_frames - 1] the IP's. */
struct ips_stack {
	const char *comm;        /* the thread's name, "[unknown]" when never named */
	const char *const *frames;
	size_t nr_frames;
	uint64_t samples;
	double share;            /* samples / all samples */
};

struct ips_result {
	const struct perfdata_attr *attr; /* the event counted (the reader's: valid while it is open) */
	uint64_t samples;                 /* its samples */
	uint64_t other_samples;           /* plain samples of other events, not counted */
	uint64_t with_callchain;          /* samples that had a call chain */
	uint64_t lines_known;             /* samples whose IP has a source line */
	bool callchains;                  /* the event records call chains */
	struct ips_function *functions;   /* by self samples, then total, then text */
	size_t nr_functions;
	struct ips_line *lines;           /* by samples, then file and line */
	size_t nr_lines;
	struct ips_stack *stacks;         /* by samples, then frames */
	size_t nr_stacks;
	const char **frame_names;         /* storage behind stacks[].frames */
	const char *symbolizer;           /* "elfutils" or "none" (annotate.h) */
	size_t nr_addrs, nr_resolved;     /* distinct addresses, of which named */
};

#define IPS_RESULT_INIT { 0 }

struct ips_agg;

/** Make an aggregator. Returns 0, TDP_ENOMEM. */
int ips_agg_new(struct ips_agg **out, struct tdp_err *err) __attribute__((warn_unused_result));

/** Free it (and the thread names it handed out). NULL is fine. */
void ips_agg_free(struct ips_agg *a);

/** Records that ips_agg_record() passes on, to fn(ctx, ...) (e.g. branch_annot_record). */
void ips_agg_chain(struct ips_agg *a, branch_record_fn *fn, void *ctx);

/** branch_record_fn for on_record: keeps COMM and FORK names, then passes rec on. */
int ips_agg_record(void *a, const struct perfdata_record *rec, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** branch_record_fn for on_plain_sample: counts one SAMPLE without a branch stack. */
int ips_agg_sample(void *a, const struct perfdata_record *rec, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** Samples counted so far (0: the recording has no plain samples). */
uint64_t ips_agg_samples(const struct ips_agg *a);

/** One sampled instruction pointer and its self samples (ips_agg_ips()). */
struct ips_ip {
	uint64_t addr;           /* runtime address, as recorded */
	uint32_t pid;            /* BRANCH_PID_NONE: unknown */
	uint64_t samples;        /* samples whose IP it is */
};

/**
 * The self samples of every distinct (pid, ip), sorted by address then pid, into
 * *out (heap, tdp_free(); NULL when nr is 0), for an annotation by instruction.
 * Their sum is ips_agg_samples(). Returns 0 or TDP_ENOMEM.
 */
int ips_agg_ips(const struct ips_agg *a, struct ips_ip **out, size_t *nr, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Name the addresses with an (branch_annot_new(), fed the recording's maps) and
 * fill *out. Returns 0, TDP_ENOMEM, or the annotator's error.
 */
int ips_agg_finish(struct ips_agg *a, struct branch_annot *an, struct ips_result *out, struct tdp_err *err)
	__attribute__((warn_unused_result));

void ips_result_release(struct ips_result *r);

#endif
