/*
 * simcore.h: the per-block pipeline model of the simulated backend (issue 19,
 * docs/sim-machine.md "The core model").
 *
 * From a callgrind profile (per-instruction execution counts, sim/profile.h):
 *   1. the hot basic blocks: runs of consecutive instructions executed equally
 *      often, the most executed first, until they hold SIMCORE_COVERAGE of the
 *      executed instructions (at most SIMCORE_MAX_BLOCKS);
 *   2. each block's instructions decoded from its ELF object (symbol/exe.h,
 *      capstone), its runtime addresses mapped to the file's by the page-aligned
 *      load offset of its hottest function;
 *   3. llvm-mca over all distinct blocks (a code region each; blocks that differ
 *      only in constants analysed once) on the machine's -mcpu, twice at once (2
 *      and n iterations, n from SIMCORE_BUDGET): the steady-state cycles per iteration
 *      (bounded by dependencies, ports, dividers and dispatch) from the
 *      difference, and µops per instruction, read by loop/'s llvm-mca parsers;
 *   4. each load's address dependence: a load whose address comes from a load of
 *      the same block (or of the previous iteration) is a pointer chase.
 * The result (struct sim_core, sim/cost.h) is what sim_estimate_core() combines.
 *
 * Nothing here fails the run: a missing llvm-mca, an unreadable object or a block
 * that does not decode leaves those instructions to the cost model's plain rule,
 * and why_not says why nothing was modelled.
 */
#ifndef TDPROF_SIMCORE_SIMCORE_H
#define TDPROF_SIMCORE_SIMCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/cost.h"

struct tdp_err;

#define SIMCORE_COVERAGE 0.99      /* fraction of executed instructions the hot blocks hold */
#define SIMCORE_MAX_BLOCKS 400u    /* hot blocks modelled at most (decoding is most of the cost) */
#define SIMCORE_MAX_BLOCK_INSNS 64u /* a longer run is cut (llvm-mca's region) */
#define SIMCORE_BUDGET 30000.0     /* instructions x iterations of the second llvm-mca run, about */
#define SIMCORE_ITER1 2            /* iterations of the first llvm-mca run */
#define SIMCORE_MIN_ITER2 6        /* of the second */
#define SIMCORE_MAX_ITER2 60
#define SIMCORE_MCA_TIMEOUT_S 120  /* llvm-mca is stopped after this long (a few seconds is usual;
				    * some llvm-mca 16 scheduling models never end on some blocks) */

struct simcore_opts {
	const char *tmpdir; /* where llvm-mca's input file is written; NULL: "/tmp" */
	const char *llvm_mca; /* the program (looked up in PATH); NULL: "llvm-mca" */
	bool sequential;      /* run llvm-mca's two runs one after the other, not at once (the tests compare) */
};

/**
 * Model p's hot blocks on machine m into *out (zeroed first; release with
 * sim_core_release()). Returns 0 (out->valid false and out->why_not set when
 * nothing could be modelled), TDP_ENOMEM, or TDP_ECHILD when SIGINT, SIGTERM or
 * SIGHUP came while llvm-mca ran (passed on to it, base/sigfwd.h). Runs llvm-mca's
 * two runs at once (posix_spawn; blocks until both end).
 */
int simcore_model(const struct sim_profile *p, const struct sim_machine *m, const struct simcore_opts *o,
		  struct sim_core *out, struct tdp_err *err) __attribute__((warn_unused_result));

/* ---- for the tests: the pure parts ---- */

/** One decoded instruction of a block, as capstone prints it ("mov rax, qword ptr [rax + 8]"). */
struct simcore_insn {
	char text[200];
	uint8_t branch_type; /* 0: not a branch */
};

/**
 * The load flags (SIM_INSN_CHASE, SIM_INSN_PREFETCHED, SIM_INSN_INDEP) of each
 * instruction of a block of n, into flags[0..n): the block is walked twice so that
 * a chase through the previous iteration (mov rax, [rax]) is seen. aarch64 says
 * whether the text is Arm's.
 */
void simcore_load_flags(const struct simcore_insn *v, size_t n, bool aarch64, uint32_t *flags);

/**
 * The fused-domain µops of a block of n instructions (top-down's slots count
 * these) from llvm-mca's unfused uops[] and its LOOP_MCA_MAY_* flags mem[] (loop.h),
 * into fused[0..n): an x86 instruction that loads or stores one µop less (its
 * load micro-fused with its operation, a store's address with its data), push
 * and pop one, a conditional jump macro-fused with the compare, test, and, add,
 * sub, inc or dec before it (0: the pair counted on the first). A 0 of
 * llvm-mca's counts one.
 * Arm's counts are kept. See fused.c for the rules and their sources.
 */
void simcore_fused_uops(const struct simcore_insn *v, size_t n, const unsigned *uops, const uint8_t *mem,
			bool aarch64, unsigned *fused);

/**
 * The text llvm-mca is given for one instruction: direct branch targets (an
 * address, which llvm-mca rejects) replaced by the label ".Lt"; calls and returns
 * given as jumps (llvm-mca gives a call 100 cycles and chains them through the
 * stack pointer). Into buf.
 */
void simcore_mca_text(const struct simcore_insn *in, bool aarch64, char *buf, size_t size);

#endif
