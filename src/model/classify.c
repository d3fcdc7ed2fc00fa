/*
 * classify.c: thresholds and the verdict of a metric tree (see model.h).
 *
 * Thresholds are data in the model tables (model_node_def.threshold). The level-1
 * seeds are the workflow's (design.md): Retiring > 80 %, Bad Speculation > 15 %,
 * Frontend Bound > 20 %, Backend Bound > 40 %. Level 2 uses Intel's TMA
 * thresholds (intel-TMA_Metrics-full.csv 5.2, Threshold column: Fetch_Latency
 * > 0.1, Fetch_Bandwidth > 0.2, Branch_Mispredicts > 0.1, Machine_Clears > 0.1,
 * Memory_Bound > 0.2, Core_Bound > 0.1, Heavy_Operations > 0.1,
 * Light_Operations > 0.6), with Intel's "& P" rule: a child is flagged only when
 * its parent is flagged too. Generated tables carry each node's own TMA threshold
 * at every level, and own_threshold where TMA's has no "& P".
 */
#include <math.h>
#include <string.h>

#include "model/model.h"

static const struct {
	const char *key;
	const char *label;
} labels[] = {
	{ "retiring", "Retiring" },
	{ "bad_speculation", "Bad Speculation" },
	{ "frontend_bound", "Frontend Bound" },
	{ "backend_bound", "Backend Bound" },
	{ "fetch_latency", "Fetch Latency" },
	{ "fetch_bandwidth", "Fetch Bandwidth" },
	{ "branch_mispredicts", "Branch Mispredicts" },
	{ "machine_clears", "Machine Clears" },
	{ "memory_bound", "Memory Bound" },
	{ "core_bound", "Core Bound" },
	{ "light_operations", "Light Operations" },
	{ "heavy_operations", "Heavy Operations" },
	{ "smt_contention", "SMT Contention" },
	{ "frontend_stalled_cycles", "Frontend Stalled Cycles" },
	{ "backend_stalled_cycles", "Backend Stalled Cycles" },
};

const char *model_node_label(const char *key)
{
	for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
		if (!strcmp(labels[i].key, key))
			return labels[i].label;
	return key;
}

/*
 * The next step for a category and, when known, its dominant child. A simulated
 * tree's steps must work where there is no PMU: the branch trace needs one, `why`
 * names the branches from the simulation.
 */
static const char *next_step(const char *category, const char *child, bool simulated)
{
	if (!strcmp(category, "bad_speculation") && simulated)
		return "find the mispredicting branches: 'tdprof why -- CMD' names them from the simulation "
		       "(a branch trace, 'tdprof branches record', needs a hardware PMU); make them predictable "
		       "or branchless";
	if (!strcmp(category, "bad_speculation"))
		return "find the mispredicting branches: 'tdprof branches record -o br.data -- CMD', then "
		       "'tdprof branches report -i br.data'; make them predictable or branchless";
	if (!strcmp(category, "frontend_bound") || !strcmp(category, "frontend_stalled_cycles")) {
		if (child && !strcmp(child, "fetch_bandwidth"))
			return "decode bandwidth: the instruction supply is steady but narrow; shorten the hot code "
			       "(fewer, simpler instructions, better alignment) so the uop cache holds it";
		return "instruction supply: i-cache and i-TLB misses and decode; shrink and lay out the hot code "
		       "(PGO, BOLT, fewer inlined cold paths); 'tdprof stat' shows the i-cache misses";
	}
	if (!strcmp(category, "backend_stalled_cycles"))
		return "memory or execution ports (cycle accounting cannot tell which): 'tdprof stat' shows the "
		       "cache misses per kilo-instruction (many: memory; few: execution ports and dependency chains)";
	if (!strcmp(category, "backend_bound")) {
		if (!child)
			return "memory or execution ports: level 2 tells which (memory: data layout, locality, "
			       "prefetching; ports: shorter dependency chains, cheaper instructions)";
		if (!strcmp(child, "core_bound"))
			return "execution ports: break long dependency chains, use cheaper instructions, vectorise; "
			       "isolate the loop with 'tdprof loop'";
		return "memory: cache and TLB misses; improve data layout and locality, prefetch, shrink the "
		       "working set; 'tdprof stat' shows the cache misses per kilo-instruction";
	}
	if (!strcmp(category, "retiring"))
		return "near peak: do less work per result (fewer uops: vectorise, strength-reduce, avoid "
		       "microcoded instructions); measure the hot loop alone with 'tdprof loop'";
	return "no next step is known for this node";
}

void model_classify(struct metric_tree *t)
{
	struct metric_verdict *v = &t->verdict;
	const struct metric_node *best = NULL, *stall = NULL, *child = NULL;

	for (size_t i = 0; i < t->nr; i++) {
		struct metric_node *n = &t->v[i];

		n->flagged = !isnan(n->value) && !isnan(n->threshold) && n->value > n->threshold;
		if (n->flagged && n->parent && !(n->def && n->def->own_threshold)) {
			const struct metric_node *p = metric_tree_find(t, n->parent);

			n->flagged = p && p->flagged;
		}
	}
	memset(v, 0, sizeof(*v));
	v->value = NAN;
	v->node_value = NAN;
	for (size_t i = 0; i < t->nr; i++) {
		const struct metric_node *n = &t->v[i];

		if (n->level != 1 || n->extra || isnan(n->value))
			continue;
		if (n->flagged && (!best || n->value > best->value))
			best = n;
		if (strcmp(n->key, "retiring") && (!stall || n->value > stall->value))
			stall = n;
	}
	if (!best)
		best = stall;
	if (!best)
		return;
	for (size_t i = 0; i < t->nr; i++) {
		const struct metric_node *n = &t->v[i];

		if (n->parent && !strcmp(n->parent, best->key) && !isnan(n->value) &&
		    (!child || n->value > child->value))
			child = n;
	}
	v->category = best->key;
	v->value = best->value;
	v->over_threshold = best->flagged;
	if (child) {
		v->node = child->key;
		v->node_value = child->value;
	}
	v->next_step = next_step(best->key, child ? child->key : NULL, t->simulated);
}
