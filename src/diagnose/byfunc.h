/*
 * byfunc.h: per-function top-down from the simulated backend (`tdprof topdown --by
 * function --backend=sim`, and a section of `why`): the simulation's per-line sites
 * (sim/cost.h: the cycles the cost model charges each line, per bucket) summed per
 * function, each function's level 1 in percent of its own slots, the level-2 nodes
 * the simulation determines (model_tree_from_sim), its dominant node and the line
 * that holds most of that node's cycles. Every figure is an estimate (simulated).
 *
 * Kept: the functions holding BYFUNC_COVER percent of all cycles, largest first
 * (at least one, at most BYFUNC_MAX); the rest are counted in `rest_pct`.
 *
 * Lifecycle: struct byfunc_result r; byfunc_from_sites(sites, nr, profile, width, &r, &err);
 * ... r.v[0..r.nr) ...; byfunc_release(&r). Pure: no I/O.
 */
#ifndef TDPROF_DIAGNOSE_BYFUNC_H
#define TDPROF_DIAGNOSE_BYFUNC_H

#include <stddef.h>
#include <stdint.h>

#include "sim/cost.h"
#include "sim/profile.h"

struct tdp_err;

#define BYFUNC_COVER 95.0 /* percent of cycles the kept functions hold */
#define BYFUNC_MAX 64     /* functions kept at most */

struct byfunc_fn {
	char *name;                 /* the function ("???" when valgrind had none); owned */
	char *file;                 /* its source file of the guilty line; owned, NULL when unknown */
	uint64_t line;              /* the guilty line: most cycles of the dominant node; 0 unknown */
	double line_pct;            /* that line's share of the function's cycles in the dominant bucket */
	double cycles;              /* estimated cycles in the function (self) */
	double share_pct;           /* of all cycles */
	uint64_t instructions;      /* Ir */
	struct sim_topdown level1;  /* percent of the function's slots (they add up to 100) */
	double branch_mispredicts;  /* level 2 the simulation determines (= their level-1 parent) */
	double fetch_latency;
	double memory_bound;
	const char *dominant;       /* level-1 key of the largest bucket (static) */
	const char *dominant_node;  /* its level-2 child the simulation models, or NULL (static) */
};

struct byfunc_result {
	struct byfunc_fn *v;
	size_t nr;
	size_t nr_functions;        /* functions with cycles, kept or not */
	double total_cycles;
	double rest_pct;            /* share of the functions not kept */
};

/**
 * Sum sites[0..nr) (borrowed; their name indices refer to p) per function into out
 * (overwritten) for a machine of `width` slots per cycle. Returns 0, TDP_EANALYSIS
 * when no site has cycles, or TDP_ENOMEM (out released).
 */
int byfunc_from_sites(const struct sim_site *sites, size_t nr, const struct sim_profile *p, double width,
		      struct byfunc_result *out, struct tdp_err *err) __attribute__((warn_unused_result));

/** Free what r owns; r is left empty. */
void byfunc_release(struct byfunc_result *r);

#endif
