/*
 * bpred.h: a modern branch predictor model (TAGE, ITTAGE, a loop predictor and a
 * return address stack) for the simulated backend (docs/sim-machine.md §5).
 *
 * It decides, branch by branch, whether a core of the chosen machine preset would
 * have mispredicted: conditional branches by a TAGE predictor (Seznec and Michaud,
 * "A case for (partially) TAgged GEometric history length branch prediction", JILP
 * 2006) with a loop predictor beside it (the L of Seznec's TAGE-SC-L, CBP 2014 and
 * 2016), indirect jumps and calls by ITTAGE (Seznec, "A 64-Kbytes ITTAGE indirect
 * branch predictor", JWAC-2 2011), returns by a return address stack. The tables are
 * sized per preset (bpred_preset()); the sizes are data with their sources in
 * bpred-presets.c.
 *
 * Freestanding by contract: bpred.c and bpred-presets.c include only this header
 * (as "bpred.h", so that no include path is needed), which includes only
 * <stdbool.h>, <stddef.h> and <stdint.h>. They call no library function (not even
 * memset: the test sim-bpred-freestanding checks the objects' undefined symbols),
 * use no floating point and no global state, so that a valgrind tool
 * (vgtool/) compiles them by path. All memory is one block the caller gives:
 *
 *   size_t n = bpred_size(&cfg);          (0: invalid config, bpred_config_check() says why)
 *   void *mem = <n bytes, any alignment to 8>;
 *   struct bpred *p = bpred_init(mem, n, &cfg);
 *   for each executed branch, in program order, one call:
 *     conditional         bpred_cond(p, pc, taken)               -> mispredicted?
 *     direct jump         bpred_uncond(p, pc, target)
 *     indirect jump       bpred_indirect(p, pc, target)          -> mispredicted?
 *     direct call         bpred_call(p, pc, return_addr)
 *     indirect call       bpred_indirect(p, pc, target), then bpred_call(p, pc, return_addr)
 *     return              bpred_return(p, pc, target)            -> mispredicted?
 *   nothing to free: the state lives in mem (free mem when done).
 *
 * Every call updates the global and path histories as the branch would on a real
 * core: a conditional branch shifts in its direction, an indirect branch three
 * bits of its target, a direct jump, call or return one bit of its target (or of the
 * call's address); every branch shifts a bit of its address into the path history.
 * The model is deterministic: allocation choices come from a fixed-seed generator
 * kept in the state, so the same branch sequence always gives the same counts.
 *
 * Cost: a call is a few hundred instructions at most (bench/bpred-speed.py: 125 to
 * 260 per conditional branch with zen4's 12 tables, ~35 per direct jump, call or
 * return); the history costs O(1) per bit, a tagged table a load and a
 * multiplication, whatever their number and lengths (bpred.c says how).
 *
 * What it does not model: the statistical corrector of TAGE-SC-L, local histories,
 * the BTB (a taken branch whose target the BTB lacks), speculative history update
 * and its repair, the delay between prediction and update (this model updates at
 * once, which is what a trace-driven simulator does and slightly favours it), and
 * tag aliasing in the tables longer than any a branch has allocated in (bpred.c,
 * "the reach").
 */
#ifndef TDPROF_SIM_BPRED_H
#define TDPROF_SIM_BPRED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Limits of a configuration (bpred_config_check()); they also keep bpred_size()'s
 * arithmetic far from overflow on 32-bit hosts. */
#define BPRED_MAX_LOG_BIMODAL 22u
#define BPRED_MAX_TAGGED 16u
#define BPRED_MAX_LOG_TAGGED 20u
#define BPRED_MIN_TAG_BITS 4u
#define BPRED_MAX_TAG_BITS 16u
#define BPRED_MAX_HIST 2000u      /* bits of global history the longest table may use */
#define BPRED_MAX_ITTAGE 16u
#define BPRED_MAX_LOG_ITTAGE 18u
#define BPRED_MAX_RAS 1024u
#define BPRED_MAX_LOG_LOOP 10u
#define BPRED_MAX_LOG_U_RESET 30u

struct bpred_config {
	unsigned log_bimodal;   /* base predictor: 2-bit counters, log2 of their number (1..22) */
	unsigned nr_tagged;     /* TAGE tagged tables (0..16; 0 = the bimodal table alone) */
	unsigned log_tagged;    /* entries per tagged table, log2 (1..20; ignored when nr_tagged = 0) */
	unsigned tag_bits;      /* tag width of the tagged tables (4..16) */
	unsigned min_hist;      /* history length of the shortest tagged table (>= 1; ignored,
				 * as max_hist, when nr_tagged = 0) */
	unsigned max_hist;      /* of the longest (> min_hist when more than one table, <= 2000);
				 * the others in geometric progression between them */
	unsigned log_ittage;    /* ITTAGE: entries per table, log2; also its base target table (1..18) */
	unsigned nr_ittage;     /* ITTAGE tagged tables (0..nr_tagged; 0 = last-target table
				 * alone); they use the history lengths of nr_ittage TAGE
				 * tables spread from the shortest history to the longest */
	unsigned ras_depth;     /* return address stack entries (1..1024); a deeper call chain
				 * wraps and overwrites the oldest entries */
	unsigned log_loop;      /* loop predictor entries, log2 (0 = no loop predictor; <= 10) */
	unsigned log_u_reset;   /* the useful bits of TAGE are halved every 2^log_u_reset
				 * conditional branches (Seznec's 2006 TAGE: 18; 0 = the default 18) */
};

struct bpred;

/* NULL when c is a valid configuration, else why not (a static string). */
const char *bpred_config_check(const struct bpred_config *c);

/* Bytes of state for configuration c; 0 for an invalid configuration. */
size_t bpred_size(const struct bpred_config *c);

/* The predictor in mem (len bytes, aligned to 8), every table cleared: NULL when c
 * is invalid, mem is NULL or misaligned, or len < bpred_size(c). */
struct bpred *bpred_init(void *mem, size_t len, const struct bpred_config *c);

/* A conditional branch at pc went `taken`: predict, update; true when mispredicted. */
bool bpred_cond(struct bpred *p, uint64_t pc, bool taken);

/* An indirect jump or call at pc went to target; true when mispredicted. */
bool bpred_indirect(struct bpred *p, uint64_t pc, uint64_t target);

/* Any call at pc (direct, or indirect after bpred_indirect()): pushes return_addr. */
void bpred_call(struct bpred *p, uint64_t pc, uint64_t return_addr);

/* A return at pc went to target; true when the popped return address differs. */
bool bpred_return(struct bpred *p, uint64_t pc, uint64_t target);

/* A direct unconditional jump (always predicted): histories only. */
void bpred_uncond(struct bpred *p, uint64_t pc, uint64_t target);

/* The storage a hardware predictor of configuration c would have, in bits (counters,
 * tags, useful bits, targets as 32-bit region offsets, histories): the figure the
 * presets are sized by. 0 for an invalid configuration. */
uint64_t bpred_budget_bits(const struct bpred_config *c);

/* A named preset: the machines of --sim-machine (src/sim/machine-presets.c). */
struct bpred_preset {
	const char *name;          /* a --sim-machine preset name */
	struct bpred_config config;
	const char *sources;       /* where the sizes come from (and what is assumed) */
};

/* The preset called name, or NULL. */
const struct bpred_preset *bpred_preset(const char *name);

/* The i-th preset (0..), NULL past the last: for listing them all. */
const struct bpred_preset *bpred_preset_at(size_t i);

#endif
