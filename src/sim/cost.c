/* cost.c: estimated cycles, level-1 top-down and perf-named counts from valgrind's counts (see cost.h). */
#include "sim/cost.h"

#include <math.h>
#include <string.h>

#include "base/countset.h"
#include "base/err.h"

static const char *const bucket_names[SIM_NR_BUCKETS] = {
	[SIM_RETIRING] = "retiring",
	[SIM_BAD_SPECULATION] = "bad_speculation",
	[SIM_FRONTEND_BOUND] = "frontend_bound",
	[SIM_BACKEND_BOUND] = "backend_bound",
};

const char *sim_bucket_name(enum sim_bucket b)
{
	return (unsigned)b < SIM_NR_BUCKETS ? bucket_names[b] : "unknown";
}

static int missing_events(const struct sim_profile *p, struct tdp_err *err)
{
	for (int e = 0; e < SIM_NR_EVENTS; e++) {
		if (!(SIM_NEEDED_EVENTS & (1u << e)) || (p->have & (1u << e)))
			continue;
		tdp_err_set(err, TDP_EANALYSIS, "cannot estimate: the profile has no '%s' counts",
			    sim_event_name((enum sim_event)e));
		tdp_err_hint(err, "record it with valgrind's --cache-sim=yes --branch-sim=yes");
		break;
	}
	return TDP_EANALYSIS;
}

int sim_estimate(const struct sim_profile *p, const struct sim_machine *m, struct sim_estimate *out,
		 struct tdp_err *err)
{
	return sim_estimate_core(p, m, NULL, out, err);
}

void sim_estimate_sites(const struct sim_site *v, size_t nr, const struct sim_machine *m,
			const struct sim_core *core, struct sim_estimate *out)
{
	struct sim_estimate est = { 0 };
	double core_c = 0, heavy = 0, fetch_bw = 0, mem[4] = { 0 }, icache = 0, mite = 0;
	bool modelled = core && core->valid, tool = false;
	struct sim_topdown *td = &est.topdown;

	/* The terms are sums over lines: backend's overlap is decided line by line. */
	for (size_t i = 0; i < nr; i++) {
		for (int e = 0; e < SIM_NR_EVENTS; e++)
			est.counts.v[e] += v[i].cost.v[e];
		for (int b = 0; b < SIM_NR_BUCKETS; b++)
			est.cycles_by.v[b] += v[i].cycles.v[b];
		core_c += v[i].core;
		heavy += v[i].heavy;
		fetch_bw += v[i].fetch_bw;
		tool |= v[i].tool;
		for (int l = 0; l < 4; l++)
			mem[l] += v[i].mem[l];
		icache += v[i].icache;
		mite += v[i].mite;
	}
	est.core = modelled ? core : NULL;
	/* Retiring cycles are µops / width: the µops follow from them. */
	est.uops = est.cycles_by.v[SIM_RETIRING] * m->width;
	for (int b = 0; b < SIM_NR_BUCKETS; b++)
		est.cycles += est.cycles_by.v[b];
	est.slots = est.cycles * m->width;
	if (est.cycles <= 0) {
		*out = est;
		return;
	}
	td->retiring = 100.0 * est.cycles_by.v[SIM_RETIRING] / est.cycles;
	td->bad_speculation = 100.0 * est.cycles_by.v[SIM_BAD_SPECULATION] / est.cycles;
	td->frontend_bound = 100.0 * est.cycles_by.v[SIM_FRONTEND_BOUND] / est.cycles;
	/* The remainder rule: Backend takes what the other three leave, so the four add
	 * up to 100 exactly (it equals backend cycles / cycles up to rounding). */
	td->backend_bound = fmax(0.0, 100.0 - td->retiring - td->bad_speculation - td->frontend_bound);
	/* Level 2: every parent is the sum of its estimated children (the remainder
	 * again takes the rounding). */
	td->level2 = true;
	td->branch_mispredicts = td->bad_speculation;
	td->machine_clears = NAN;
	td->fetch_latency = td->frontend_bound;
	td->fetch_bandwidth = NAN;
	if (modelled || tool) {
		/* the tool's µop-cache misses are fetch bandwidth too, with or without the block model */
		td->fetch_bandwidth = fmin(td->frontend_bound, 100.0 * fetch_bw / est.cycles);
		td->fetch_latency = td->frontend_bound - td->fetch_bandwidth;
	}
	if (modelled) {
		td->core_bound = fmin(td->backend_bound, 100.0 * core_c / est.cycles);
		td->memory_bound = td->backend_bound - td->core_bound;
		td->heavy_operations = fmin(td->retiring, 100.0 * heavy / est.cycles);
		td->light_operations = td->retiring - td->heavy_operations;
	} else {
		td->core_bound = NAN;
		td->memory_bound = td->backend_bound;
		td->heavy_operations = NAN;
		td->light_operations = td->retiring;
	}
	/* Level 3 with the tool: each parent again the sum of its children, the last
	 * child taking the remainder (L1 Bound, Branch Resteers, DSB). */
	td->level3 = tool;
	td->l1_bound = td->l2_bound = td->l3_bound = td->dram_bound = NAN;
	td->icache_misses = td->branch_resteers = td->mite = td->dsb = NAN;
	if (tool) {
		double left = td->memory_bound;

		td->dram_bound = fmin(left, 100.0 * mem[3] / est.cycles);
		left -= td->dram_bound;
		td->l3_bound = fmin(left, 100.0 * mem[2] / est.cycles);
		left -= td->l3_bound;
		td->l2_bound = fmin(left, 100.0 * mem[1] / est.cycles);
		td->l1_bound = fmax(0.0, left - td->l2_bound);
		td->icache_misses = fmin(td->fetch_latency, 100.0 * icache / est.cycles);
		td->branch_resteers = td->fetch_latency - td->icache_misses;
		td->mite = fmin(td->fetch_bandwidth, 100.0 * mite / est.cycles);
		td->dsb = td->fetch_bandwidth - td->mite;
	}
	est.dominant = SIM_RETIRING;
	for (int b = 1; b < SIM_NR_BUCKETS; b++)
		if (est.cycles_by.v[b] > est.cycles_by.v[est.dominant])
			est.dominant = (enum sim_bucket)b;
	*out = est;
}

int sim_estimate_core_keep(const struct sim_profile *p, const struct sim_machine *m, const struct sim_core *core,
			   struct sim_estimate *out, struct sim_site **sites, size_t *nr, struct tdp_err *err)
{
	bool modelled = core && core->valid && p->has_addr;
	int ret;

	*sites = NULL;
	*nr = 0;
	if (!sim_profile_has(p, SIM_NEEDED_EVENTS))
		return missing_events(p, err);
	if (p->totals.v[SIM_IR] == 0)
		return tdp_err_set(err, TDP_EANALYSIS, "cannot estimate: the profile counted no instruction");
	if ((ret = sim_sites_build_core(p, m, modelled ? core : NULL, sites, nr, err)))
		return ret;
	sim_estimate_sites(*sites, *nr, m, modelled ? core : NULL, out);
	out->counts = p->totals;
	out->sites = *sites;
	out->nr_sites = *nr;
	return 0;
}

int sim_estimate_core(const struct sim_profile *p, const struct sim_machine *m, const struct sim_core *core,
		      struct sim_estimate *out, struct tdp_err *err)
{
	struct sim_site *sites;
	size_t nr;
	int ret = sim_estimate_core_keep(p, m, core, out, &sites, &nr, err);

	sim_sites_free(sites);
	if (!ret) {
		out->sites = NULL;
		out->nr_sites = 0;
	}
	return ret;
}

struct perf_count {
	const char *name;
	uint32_t events; /* the profile must have these */
	enum sim_event a, b; /* value = a (+ b when b != a) */
};

static const struct perf_count perf_counts[] = {
	{ "instructions", 1u << SIM_IR, SIM_IR, SIM_IR },
	{ "branches", (1u << SIM_BC) | (1u << SIM_BI), SIM_BC, SIM_BI },
	{ "branch-misses", (1u << SIM_BCM) | (1u << SIM_BIM), SIM_BCM, SIM_BIM },
	{ "L1-icache-load-misses", 1u << SIM_I1MR, SIM_I1MR, SIM_I1MR },
	{ "L1-dcache-loads", 1u << SIM_DR, SIM_DR, SIM_DR },
	{ "L1-dcache-load-misses", 1u << SIM_D1MR, SIM_D1MR, SIM_D1MR },
	{ "L1-dcache-stores", 1u << SIM_DW, SIM_DW, SIM_DW },
	{ "L1-dcache-store-misses", 1u << SIM_D1MW, SIM_D1MW, SIM_D1MW },
	{ "LLC-loads", 1u << SIM_D1MR, SIM_D1MR, SIM_D1MR },
	{ "LLC-load-misses", 1u << SIM_DLMR, SIM_DLMR, SIM_DLMR },
	{ "LLC-stores", 1u << SIM_D1MW, SIM_D1MW, SIM_D1MW },
	{ "LLC-store-misses", 1u << SIM_DLMW, SIM_DLMW, SIM_DLMW },
};

static int add(struct countset *cs, const char *name, bool ok, double value, struct tdp_err *err)
{
	struct count *c = countset_add(cs, name, NULL, ok ? value : 0, -1);

	if (!c)
		return tdp_err_oom(err);
	c->estimate = true;
	if (!ok) {
		c->status = COUNT_NOT_SUPPORTED;
		c->raw = 0;
	}
	return 0;
}

int sim_estimate_countset(const struct sim_profile *p, const struct sim_estimate *est, struct countset *cs,
			  struct tdp_err *err)
{
	int ret;

	cs->backend = BACKEND_SIM;
	if ((ret = add(cs, "cycles", est != NULL, est ? round(est->cycles) : 0, err)))
		return ret;
	for (size_t i = 0; i < sizeof(perf_counts) / sizeof(perf_counts[0]); i++) {
		const struct perf_count *pc = &perf_counts[i];
		bool ok = sim_profile_has(p, pc->events);
		enum sim_event a = pc->a;
		double v;

		/* tdprof's tool has an L2: the LLC sees what misses it, and it counts returns apart */
		if (sim_profile_from_tool(p) && !strcmp(pc->name, "LLC-loads"))
			a = SIM_D2MR;
		if (sim_profile_from_tool(p) && !strcmp(pc->name, "LLC-stores"))
			a = SIM_D2MW;
		v = (double)p->totals.v[a];
		if (pc->b != pc->a)
			v += (double)p->totals.v[pc->b];
		if (sim_profile_from_tool(p) && !strcmp(pc->name, "branches"))
			v += (double)p->totals.v[SIM_BR];
		if (sim_profile_from_tool(p) && !strcmp(pc->name, "branch-misses"))
			v += (double)p->totals.v[SIM_BRM];
		if ((ret = add(cs, pc->name, ok, v, err)))
			return ret;
	}
	return 0;
}
