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
 * The same result comes from a real PMU's group reads (byfunc_pmu_*() below): each
 * function's counts of every event of the sampling group, the model evaluated over
 * them; then share_pct is of the group leader's counts and nothing is an estimate.
 *
 * Lifecycle: struct byfunc_result r; byfunc_from_sites(sites, nr, profile, machine, core, &r, &err);
 * ... r.v[0..r.nr) ...; byfunc_release(&r). Pure: no I/O.
 */
#ifndef TDPROF_DIAGNOSE_BYFUNC_H
#define TDPROF_DIAGNOSE_BYFUNC_H

#include <stddef.h>
#include <stdint.h>

#include "sim/cost.h"
#include "sim/machine.h"
#include "sim/profile.h"

struct tdp_err;

#define BYFUNC_COVER 95.0 /* percent of cycles the kept functions hold */
#define BYFUNC_MAX 64     /* functions kept at most */
#define BYFUNC_MAX_EVENTS 16 /* events of a sampling group (groupread.h's GROUPREAD_MAX_EVENTS) */
#define BYFUNC_L2_NR 8    /* design.md's level-2 vocabulary (byfunc_l2_key()) */
#define BYFUNC_WHY_MAX 192
#define BYFUNC_MAX_EXTRA 4 /* level-1 nodes beside the four */

enum byfunc_source {
	BYFUNC_SIM = 0,       /* the simulation's per-line cycles (estimates) */
	BYFUNC_GROUP_READ,    /* a sampling group's reads by IP (a PMU, or a perf.data) */
};

struct byfunc_fn {
	char *name;                 /* the function ("???" when valgrind had none; perf's "0x..." text
	                               for an address no symbol holds); owned */
	char *dso;                  /* group reads: the binary as recorded; owned, NULL (sim, unmapped) */
	bool kernel;                /* group reads: a kernel address (perf's [k]) */
	char *file;                 /* its source file of the guilty line; owned, NULL when unknown */
	uint64_t line;              /* the guilty line: most cycles of the dominant node; 0 unknown */
	double line_pct;            /* that line's share of the function's cycles in the dominant bucket
	                               (group reads: of the dominant node's counts weighted by the
	                               leader's, or without a node of the leader's counts) */
	double cycles;              /* cycles in the function (self): estimated (sim), or the count of
	                               the group's cycles event; NAN when the group has none */
	double share_pct;           /* of all cycles (sim), of the leader's counts (group reads) */
	uint64_t instructions;      /* Ir (sim), or the group's instructions event */
	bool has_instructions;      /* instructions is known */
	struct sim_topdown level1;  /* percent of the function's slots (they add up to 100); NAN: not
	                               measurable from the events the group has */
	double level2[BYFUNC_L2_NR]; /* design.md's level 2 in byfunc_l2_key() order; NAN: not measurable
	                               (the simulation determines branch_mispredicts, fetch_latency and
	                               memory_bound, each equal to its level-1 parent) */
	const char *dominant;       /* level-1 key of the largest bucket, NULL none (static) */
	const char *dominant_node;  /* its level-2 child, or NULL (static) */
	char why[BYFUNC_WHY_MAX];   /* why level 1 is not measurable ("" when it is) */
	const char *extra_key[BYFUNC_MAX_EXTRA]; /* level-1 nodes beside the four (AMD's smt_contention, the
	                               cycle accounting's frontend/backend_stalled_cycles; static) */
	double extra[BYFUNC_MAX_EXTRA]; /* their values (percent); NAN: not measurable */
	size_t nr_extra;
	uint64_t counts[BYFUNC_MAX_EVENTS]; /* group reads: per event of the result's events[] */
	uint64_t samples;           /* group reads: samples whose IP it holds */
};

struct byfunc_result {
	enum byfunc_source source;
	struct byfunc_fn *v;
	size_t nr;
	size_t nr_functions;        /* functions with cycles, kept or not */
	double total_cycles;        /* sim: all cycles; group reads: the leader's count over all IPs */
	double rest_pct;            /* share of the functions not kept */
	/* group reads */
	char *events[BYFUNC_MAX_EVENTS]; /* the group's events, as named in the recording; owned */
	size_t nr_events;
	size_t leader;              /* the sampling leader's index in events[] */
	uint64_t totals[BYFUNC_MAX_EVENTS]; /* each event's count over all IPs */
	uint64_t samples;           /* samples with a group read */
	const char *model;          /* the model evaluated per function (static); NULL: none (counts only) */
	int level;                  /* the deepest level evaluated */
};

/** The level-2 key of index i < BYFUNC_L2_NR ("fetch_latency", ...). Static. */
const char *byfunc_l2_key(size_t i);

/**
 * Sum sites[0..nr) (borrowed; their name indices refer to p) per function into out
 * (overwritten) for machine m, each function's top-down the estimate of its own
 * sites with the block model core (sim_estimate_sites(); core NULL: none, then
 * Core Bound, Fetch Bandwidth and Heavy Operations are NAN). Returns 0,
 * TDP_EANALYSIS when no site has cycles, or TDP_ENOMEM (out released).
 */
int byfunc_from_sites(const struct sim_site *sites, size_t nr, const struct sim_profile *p, const struct sim_machine *m,
		      const struct sim_core *core, struct byfunc_result *out, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** Free what r owns; r is left empty. */
void byfunc_release(struct byfunc_result *r);

#endif
