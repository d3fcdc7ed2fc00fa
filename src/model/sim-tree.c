/*
 * sim-tree.c: the metric tree of the simulated backend (see model.h,
 * model_tree_from_sim()). The simulation's cost model (src/sim/cost.h,
 * docs/sim-machine.md) gives level 2 in struct sim_topdown (td->level2): every
 * level-1 bucket is the sum of its estimated children. With the per-block
 * pipeline model (src/simcore/) core_bound, fetch_bandwidth and heavy_operations
 * are estimated; without it they are NAN ("not simulated"); machine_clears is
 * never simulated. A sim_topdown without level 2 (made by
 * hand) maps as before: branch_mispredicts = Bad Speculation, fetch_latency =
 * Frontend Bound, memory_bound = Backend Bound, light_operations = NAN.
 * With tdprof's valgrind tool (td->level3) level 3 splits Memory Bound by the
 * level that served the loads, Fetch Latency into i-cache misses and resteers,
 * Fetch Bandwidth into the legacy decoders (MITE) and the rest (DSB); each parent
 * is again the sum of its children. Without the tool they are absent.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "sim/cost.h"

static const char sim_sources[] =
	"docs/sim-machine.md: valgrind's cache and branch simulation (cachegrind) and tdprof's cost model "
	"(src/sim/cost.h); level-1 thresholds from design.md, level-2 from Intel TMA metrics 5.2";

static const struct model sim_model = {
	.name = "sim",
	.description = "simulated machine: valgrind's counts and tdprof's cost model, every figure an estimate",
	.sources = sim_sources,
	.note = "estimate (simulated): not measured by counters; see docs/sim-machine.md for the model and "
		"its limits",
	.vendor = MODEL_VENDOR_SIM,
	.kind = MODEL_KIND_SLOTS,
};

const struct model *model_sim(void)
{
	return &sim_model;
}

#define L2(f) offsetof(struct sim_topdown, f)

struct sim_node {
	const char *key, *parent;
	int bucket;        /* enum sim_bucket whose value the node takes without level 2; -1: not simulated */
	size_t l2;         /* offsetof the level-2 field in struct sim_topdown; 0: a level-1 node */
	double threshold;  /* percent (classify.c gives the sources) */
	const char *why;   /* why a node without a bucket is not estimated */
};

/* Level 3 (the tool's): key, parent, label, field, TMA's threshold (Intel TMA metrics 5.2). */
static const struct {
	const char *key, *parent, *label;
	size_t field;
	double threshold;
} sim_l3[] = {
	{ "icache_misses", "fetch_latency", "ICache Misses", L2(icache_misses), 5 },
	{ "branch_resteers", "fetch_latency", "Branch Resteers", L2(branch_resteers), 5 },
	{ "mite", "fetch_bandwidth", "MITE", L2(mite), 10 },
	{ "dsb", "fetch_bandwidth", "DSB", L2(dsb), 15 },
	{ "l1_bound", "memory_bound", "L1 Bound", L2(l1_bound), 10 },
	{ "l2_bound", "memory_bound", "L2 Bound", L2(l2_bound), 5 },
	{ "l3_bound", "memory_bound", "L3 Bound", L2(l3_bound), 5 },
	{ "dram_bound", "memory_bound", "DRAM Bound", L2(dram_bound), 10 },
};

static const struct sim_node sim_nodes[] = {
	{ "retiring", NULL, SIM_RETIRING, 0, 80, NULL },
	{ "bad_speculation", NULL, SIM_BAD_SPECULATION, 0, 15, NULL },
	{ "frontend_bound", NULL, SIM_FRONTEND_BOUND, 0, 20, NULL },
	{ "backend_bound", NULL, SIM_BACKEND_BOUND, 0, 40, NULL },
	{ "fetch_latency", "frontend_bound", SIM_FRONTEND_BOUND, L2(fetch_latency), 10, NULL },
	{ "fetch_bandwidth", "frontend_bound", -1, L2(fetch_bandwidth), 20,
	  "no block model (llvm-mca missing, or no per-instruction counts): the taken-branch limit is not "
	  "modelled" },
	{ "branch_mispredicts", "bad_speculation", SIM_BAD_SPECULATION, L2(branch_mispredicts), 10, NULL },
	{ "machine_clears", "bad_speculation", -1, L2(machine_clears), 10,
	  "the simulation does not model memory-ordering or self-modifying-code clears" },
	{ "memory_bound", "backend_bound", SIM_BACKEND_BOUND, L2(memory_bound), 20, NULL },
	{ "core_bound", "backend_bound", -1, L2(core_bound), 10,
	  "no block model (llvm-mca missing, or no per-instruction counts): ports, dividers and dependency "
	  "chains are not modelled" },
	{ "light_operations", "retiring", -1, L2(light_operations), 60, NULL },
	{ "heavy_operations", "retiring", -1, L2(heavy_operations), 10,
	  "no block model (llvm-mca missing, or no per-instruction counts): every instruction is one uop" },
};

static double bucket_value(const struct sim_topdown *td, int bucket)
{
	switch (bucket) {
	case SIM_RETIRING: return td->retiring;
	case SIM_BAD_SPECULATION: return td->bad_speculation;
	case SIM_FRONTEND_BOUND: return td->frontend_bound;
	case SIM_BACKEND_BOUND: return td->backend_bound;
	default: return NAN;
	}
}

void model_tree_from_sim(const struct sim_topdown *td, double width, int max_level, struct metric_tree *out)
{
	double sum = 0;

	memset(out, 0, sizeof(*out));
	out->model = &sim_model;
	out->simulated = true;
	out->kind = MODEL_KIND_SLOTS;
	out->slots = width;
	out->max_level = max_level >= 3 && td->level2 && td->level3 ? 3 : max_level >= 2 ? 2 : 1;
	for (size_t i = 0; i < sizeof(sim_nodes) / sizeof(sim_nodes[0]) && out->nr < MODEL_MAX_NODES; i++) {
		const struct sim_node *d = &sim_nodes[i];
		struct metric_node *n;

		if (d->parent && out->max_level < 2)
			continue;
		n = &out->v[out->nr++];
		n->key = d->key;
		n->parent = d->parent;
		n->label = model_node_label(d->key);
		n->level = d->parent ? 2 : 1;
		if (d->l2 && td->level2)
			n->value = *(const double *)(const void *)((const char *)td + d->l2);
		else
			n->value = bucket_value(td, d->bucket);
		n->threshold = d->threshold;
		n->group = -1;
		n->formula = d->bucket >= 0 ? sim_bucket_name((enum sim_bucket)d->bucket) : d->l2 ? d->key : NULL;
		n->source = isnan(n->value) ? NULL : "src/sim/cost.h";
		if (d->why && isnan(n->value))
			snprintf(n->why, sizeof(n->why), "%s", d->why);
		if (!d->parent)
			sum += n->value;
	}
	for (size_t i = 0; out->max_level >= 3 && i < sizeof(sim_l3) / sizeof(sim_l3[0]) && out->nr < MODEL_MAX_NODES;
	     i++) {
		struct metric_node *n = &out->v[out->nr++];

		n->key = sim_l3[i].key;
		n->parent = sim_l3[i].parent;
		n->label = sim_l3[i].label;
		n->level = 3;
		n->value = *(const double *)(const void *)((const char *)td + sim_l3[i].field);
		n->threshold = sim_l3[i].threshold;
		n->group = -1;
		n->formula = sim_l3[i].key;
		n->source = isnan(n->value) ? NULL : "src/sim/cost.h";
	}
	out->level1_sum = sum;
	out->sum_off = fabs(sum - 100.0) > 1.0;
}
