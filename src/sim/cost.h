/*
 * cost.h: the cost model: valgrind's simulated counts (a sim_profile) and a machine
 * (sim_machine) in, estimated cycles, an estimated level-1 top-down and
 * per-source-line sites out. Every figure it makes is an estimate (simulated), and
 * the model's limits are stated in docs/sim-machine.md.
 *
 * The model charges every event a number of cycles and adds them (no overlap
 * between kinds of stall); docs/sim-machine.md section 4 has the formulas:
 *
 *   retire   = µops / width (llvm-mca's µops in the block model's blocks, else
 *              Ir * uops_per_insn)
 *   bad_spec = (Bcm + Bim) * (branch_penalty - resteer_latency)
 *   frontend = (I1mr - ILmr) * i1_latency + ILmr * mem_latency
 *              + (Bcm + Bim) * resteer_latency + Bi * indirect_resteer + fetch (block model)
 *   backend  = sum over instructions of ((D1mr - DLmr) * ll_latency + DLmr * mem_latency) / overlap
 *              + core (block model); overlap = mlp for a chasing load, stream_mlp for a
 *              prefetched one or a line with D1mr <= stream_ratio * Dr, indep_mlp for other
 *              loads of modelled blocks, mlp otherwise
 *   cycles   = retire + bad_spec + frontend + backend;  slots = width * cycles
 *
 * and level 1 in percent of slots: Retiring = 100 * retire / cycles, Bad Speculation
 * = 100 * bad_spec / cycles, Frontend Bound = 100 * frontend / cycles, Backend Bound
 * = the remainder, 100 - the other three (which equals 100 * backend / cycles); level 2
 * is the split of each term (struct sim_topdown). Writes (D1mw, DLmw) cost nothing:
 * the store buffer absorbs them.
 *
 * Lifecycle: sim_estimate() (pure), sim_estimate_countset() (adds counts),
 * sim_sites_build() + sim_sites_sort(), sim_sites_free().
 */
#ifndef TDPROF_SIM_COST_H
#define TDPROF_SIM_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/machine.h"
#include "sim/profile.h"

struct countset;
struct sim_site;
struct tdp_err;

/* The events the cost model needs: a profile without them cannot be estimated. */
#define SIM_NEEDED_EVENTS                                                                                   \
	((1u << SIM_IR) | (1u << SIM_I1MR) | (1u << SIM_ILMR) | (1u << SIM_DR) | (1u << SIM_D1MR) |         \
	 (1u << SIM_DLMR) | (1u << SIM_BC) | (1u << SIM_BCM) | (1u << SIM_BI) | (1u << SIM_BIM))

/* The four level-1 buckets, in percent of slots (they add up to 100), and level 2:
 * each level-1 bucket is the sum of its children that are not NAN (by
 * construction: the children are the terms of the parent's cycles). */
struct sim_topdown {
	double retiring;
	double bad_speculation;
	double frontend_bound;
	double backend_bound;
	bool level2;               /* the fields below are set (sim_estimate_core) */
	double fetch_latency;      /* i-cache misses + branch resteers */
	double fetch_bandwidth;    /* the block model's taken-branch limit; NAN without it */
	double branch_mispredicts; /* = bad_speculation (wasted issue after mispredicts) */
	double machine_clears;     /* NAN: not simulated */
	double memory_bound;       /* data misses */
	double core_bound;         /* the block model's cycles beyond issue at full width; NAN without it */
	double light_operations;   /* µops of 1-µop instructions (all of Retiring without the block model) */
	double heavy_operations;   /* µops of instructions of 2 or more µops; NAN without the block model */
	bool level3;               /* the fields below are set: tdprof's tool ran (sim_profile_from_tool) */
	double l1_bound;           /* of memory_bound: load-latency chains through L1 hits (block model) */
	double l2_bound;           /* ... loads served by L2 (the tool's exposed cycles) */
	double l3_bound;           /* ... by L3 */
	double dram_bound;         /* ... by DRAM (latency and bandwidth) */
	double icache_misses;      /* of fetch_latency: instruction-cache misses */
	double branch_resteers;    /* ... the rest: resteers after mispredicts, indirect branches, BTB misses */
	double mite;               /* of fetch_bandwidth: code fetched past the µop cache (legacy decode) */
	double dsb;                /* ... the rest: the taken-branch limit of the block model */
};

/* The events only tdprof's tool (vgtool/) gives: a profile with them is costed by
 * its exposed cycles (docs/sim-machine.md section 4, "With the tool"). */
#define SIM_TOOL_EVENTS                                                                                    \
	((1u << SIM_DCY2) | (1u << SIM_DCY3) | (1u << SIM_DCYM) | (1u << SIM_BR) | (1u << SIM_BRM) |       \
	 (1u << SIM_BTBM) | (1u << SIM_I2MR) | (1u << SIM_D2MR))

/** True when p comes from tdprof's tool (it has every event of SIM_TOOL_EVENTS). */
static inline bool sim_profile_from_tool(const struct sim_profile *p)
{
	return sim_profile_has(p, SIM_TOOL_EVENTS);
}

/*
 * What the per-block pipeline model (src/simcore/, llvm-mca) found, for the cost
 * model: totals over the blocks it modelled, and per-instruction load flags that
 * change how a miss overlaps. Filled by simcore_model(); owned by the caller
 * (sim_core_release()). Instructions outside the modelled blocks keep the old rule
 * (uops_per_insn µops, issue at full width).
 */
#define SIM_INSN_CHASE 1u     /* a load whose address comes from a load (pointer chase): MLP 1 */
#define SIM_INSN_PREFETCHED 2u /* a load a software prefetch of the same block covers */
#define SIM_INSN_INDEP 4u     /* a load of a modelled block with an independent address */
#define SIM_INSN_LOAD_CHAIN 8u /* its block's dependency chain runs through a chasing load: the
				* stall is load latency (top-down's L1 Bound, in Memory Bound) */
#define SIM_INSN_PORT_BOUND 32u /* its block's stall is its ports' or dividers' throughput, not a chain */
#define SIM_INSN_MICROCODE 16u /* a microcode sequence (a repeated string instruction): all its µops heavy */

struct sim_core_insn {
	uint32_t obj;  /* the profile's object name index */
	uint64_t addr; /* the address valgrind gave */
	uint32_t flags; /* SIM_INSN_* */
	double uops;    /* µops of one execution (the scheduling model's) */
	double stall;   /* core-bound cycles charged to this instruction per execution */
	double fetch;   /* front-end bandwidth cycles (taken-branch limit) per execution */
};

struct sim_core {
	bool valid;            /* at least one block was modelled */
	char mcpu[24];         /* the llvm-mca CPU used */
	double covered_ir;     /* instructions executed in modelled blocks */
	double uops;           /* their µops */
	double heavy_uops;     /* of which in instructions of >= 2 µops */
	double core_cycles;    /* cycles beyond issuing their µops at full width (dependencies, ports) */
	double fetch_cycles;   /* cycles below one per block iteration its µops leave empty (blocks
				* ending in a branch: one taken branch a cycle) */
	size_t nr_blocks;      /* distinct blocks modelled (llvm-mca regions) */
	size_t nr_hot;         /* hot blocks selected */
	struct sim_core_insn *insns; /* sorted by (obj, addr); nr_insns of them */
	size_t nr_insns;
	char why_not[160];     /* !valid: why ("llvm-mca is not installed") */
};

/** Free c's arrays and zero it. */
void sim_core_release(struct sim_core *c);

/** The instruction (obj, addr) of c, or NULL. */
const struct sim_core_insn *sim_core_find(const struct sim_core *c, uint32_t obj, uint64_t addr);

enum sim_bucket {
	SIM_RETIRING = 0,
	SIM_BAD_SPECULATION,
	SIM_FRONTEND_BOUND,
	SIM_BACKEND_BOUND,
	SIM_NR_BUCKETS
};

/** The JSON name of a bucket: "retiring", "bad_speculation", ...; never NULL. */
const char *sim_bucket_name(enum sim_bucket b);

/* Cycles per bucket (the terms of the sum above). */
struct sim_cycles {
	double v[SIM_NR_BUCKETS];
};

struct sim_estimate {
	struct sim_cost counts;      /* valgrind's totals (the sum of the profile's entries) */
	double uops;                 /* Ir * uops_per_insn */
	struct sim_cycles cycles_by; /* cycles charged to each bucket */
	double cycles;               /* their sum */
	double slots;                /* width * cycles */
	struct sim_topdown topdown;  /* percent of slots */
	enum sim_bucket dominant;    /* the largest bucket (ties: the earlier one) */
	const struct sim_core *core; /* the block model it used (borrowed; NULL: none), so that a
				      * caller building sites again gives them the same model */
	const struct sim_site *sites; /* the sites it was summed from, when its caller kept them
				       * (sim_estimate_core_keep(); borrowed from that caller), else NULL */
	size_t nr_sites;
};

/**
 * Estimate cycles and level 1 for profile p on machine m (m valid, see
 * sim_machine_validate()). Returns 0; TDP_EANALYSIS when p lacks an event of
 * SIM_NEEDED_EVENTS (the message names it; the hint gives valgrind's options) or
 * executed no instruction; TDP_ENOMEM (it groups p into sites, freed before it
 * returns). out is written only on success.
 */
int sim_estimate(const struct sim_profile *p, const struct sim_machine *m, struct sim_estimate *out,
		 struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * sim_estimate() with the block model's results (core may be NULL or !valid: the
 * rule for uncovered code everywhere). Sets topdown.level2. With a core model:
 * Retiring = µops / width (heavy: those of >= 2-µop instructions), Core Bound =
 * core_cycles, and loads flagged SIM_INSN_CHASE overlap nothing while other loads
 * of modelled blocks overlap indep_mlp (docs/sim-machine.md). Returns as
 * sim_estimate().
 */
int sim_estimate_core(const struct sim_profile *p, const struct sim_machine *m, const struct sim_core *core,
		      struct sim_estimate *out, struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * sim_estimate_core() that hands the caller the sites it summed (*sites, *nr: what
 * sim_sites_build_core() gives for p, m and core; out->sites and out->nr_sites
 * borrow them): a diagnosis of the same run (diag_from_sim()) then does not build
 * them again. Free them with sim_sites_free() after the last use of out. On
 * failure *sites is NULL. Returns as sim_estimate_core().
 */
int sim_estimate_core_keep(const struct sim_profile *p, const struct sim_machine *m, const struct sim_core *core,
			   struct sim_estimate *out, struct sim_site **sites, size_t *nr, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * The estimate of nr sites (built by sim_sites_build_core() with `core`, or a
 * subset of them, or sites merged with sim_site_merge()) into *out, with
 * out->counts set to their counts' sum: the sums and level 2 of
 * sim_estimate_core(). out->cycles is 0 when they cost nothing (topdown then 0).
 */
void sim_estimate_sites(const struct sim_site *v, size_t nr, const struct sim_machine *m,
			const struct sim_core *core, struct sim_estimate *out);

/**
 * Add the estimate to cs with perf's event names, every count `estimate = true`:
 * instructions, cycles, branches (Bc + Bi), branch-misses (Bcm + Bim),
 * L1-icache-load-misses (I1mr), L1-dcache-loads (Dr), L1-dcache-load-misses (D1mr),
 * L1-dcache-stores (Dw), L1-dcache-store-misses (D1mw), LLC-loads (D1mr),
 * LLC-load-misses (DLmr), LLC-stores (D1mw), LLC-store-misses (DLmw). A count whose
 * events p lacks is added with status COUNT_NOT_SUPPORTED. Sets cs->backend to
 * BACKEND_SIM. est may be NULL when p cannot be estimated (cycles is then not
 * supported). Returns 0 or TDP_ENOMEM (cs keeps the counts added before).
 */
int sim_estimate_countset(const struct sim_profile *p, const struct sim_estimate *est, struct countset *cs,
			  struct tdp_err *err) __attribute__((warn_unused_result));

/* One source line: its counts and the cycles the model charges to it. */
struct sim_site {
	uint32_t file;        /* name indices into the profile (SIM_NO_NAME: unknown) */
	uint32_t fn;
	uint32_t obj;         /* ELF object (callgrind); SIM_NO_NAME with cachegrind */
	uint64_t line;        /* 0 when valgrind had no line information */
	struct sim_cost cost; /* the line's self counts (all its instructions) */
	uint64_t execs;       /* times the line ran: its most executed instruction's Ir
			       * (callgrind --dump-instr); 0 when unknown (cachegrind) */
	uint64_t branch_addr; /* the line's branch with the most mispredicts (else most
			       * executed), as an address in obj; 0 when unknown */
	uint64_t miss_addr;   /* the line's instruction with the most D1 read misses; 0: unknown */
	bool stream;          /* its data misses were costed as a sequential stream */
	struct sim_cycles cycles; /* cycles charged to each bucket at this line */
	double core;          /* of cycles.v[SIM_BACKEND_BOUND], the block model's core stall */
	double core_ports;    /* of core, in blocks bound by their ports or dividers (not a dependency chain) */
	double heavy;         /* of cycles.v[SIM_RETIRING], heavy operations (>= 2-µop instructions) */
	double resteer;       /* of cycles.v[SIM_FRONTEND_BOUND], branch resteers */
	double fetch_bw;      /* of cycles.v[SIM_FRONTEND_BOUND], fetch bandwidth (block model, µop cache) */
	bool chase;           /* its data misses come from a pointer chase (overlap 1) */
	/* with tdprof's tool (sim_profile_from_tool): the parts of the terms by level */
	bool tool;            /* the fields below are set */
	double mem[4];        /* of Backend: L1 (load chains), L2, L3, DRAM exposed cycles */
	double icache;        /* of Frontend: instruction-cache misses */
	double mite;          /* of fetch_bw: windows past the µop cache */
};

/** Branches executed at a site (Bc + Bi, + Br from tdprof's tool, which counts returns apart). */
static inline uint64_t sim_site_branches(const struct sim_site *s)
{
	return s->cost.v[SIM_BC] + s->cost.v[SIM_BI] + s->cost.v[SIM_BR];
}

/** Mispredicted branches at a site (Bcm + Bim, + Brm). */
static inline uint64_t sim_site_mispredicts(const struct sim_site *s)
{
	return s->cost.v[SIM_BCM] + s->cost.v[SIM_BIM] + s->cost.v[SIM_BRM];
}

/**
 * Group p's entries by (file, line, function) into sites with the model's cycles
 * for machine m (p must hold SIM_NEEDED_EVENTS). On success *out is a new array of
 * *nr sites in no particular order, the caller's (sim_sites_free); its name indices
 * refer to p, which must outlive it. Returns 0, TDP_EANALYSIS (missing events, as
 * sim_estimate) or TDP_ENOMEM (*out untouched).
 */
int sim_sites_build(const struct sim_profile *p, const struct sim_machine *m, struct sim_site **out,
		    size_t *nr, struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * sim_sites_build() with the block model (core may be NULL): a site's Retiring
 * cycles count its instructions' modelled µops, its Backend cycles add their core
 * stall (cycles.v[SIM_BACKEND_BOUND] = memory + core; core_cycles alone in the
 * site's `core` field) and its misses overlap by their load flags.
 */
int sim_sites_build_core(const struct sim_profile *p, const struct sim_machine *m, const struct sim_core *core,
			 struct sim_site **out, size_t *nr, struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Sort sites by what matters for `bucket`, most guilty first: Bad Speculation by
 * mispredict cycles, Frontend by i-cache miss cycles, Backend by data miss cycles,
 * Retiring by instructions; ties by instructions, then file, line, function index.
 */
void sim_sites_sort(struct sim_site *sites, size_t nr, enum sim_bucket bucket);

/** Add site z's counts and cycles (and their parts) to `into`. */
void sim_site_merge(struct sim_site *into, const struct sim_site *z);

/** Free a site array (NULL does nothing). */
void sim_sites_free(struct sim_site *sites);

#endif
