/* sites.c: valgrind's entries grouped by source line, with the model's cycles (see cost.h). */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "sim/cost.h"
#include "sim/sim-internal.h"

/* A data-miss cost divided by how many misses overlap (cost.h gives the formulas). */
static double miss_cycles(const uint64_t *v, const struct sim_machine *m, double overlap)
{
	double d1_hit = v[SIM_D1MR] > v[SIM_DLMR] ? (double)(v[SIM_D1MR] - v[SIM_DLMR]) : 0;

	return (d1_hit * m->ll_latency + (double)v[SIM_DLMR] * m->mem_latency) / overlap;
}

/* The part of the model that is charged per line (cost.h gives the formulas);
 * with_memory false leaves Backend to the per-instruction pass (block model). */
static void site_cycles(struct sim_site *s, const struct sim_machine *m, bool with_memory)
{
	const uint64_t *v = s->cost.v;
	double i1_hit = v[SIM_I1MR] > v[SIM_ILMR] ? (double)(v[SIM_I1MR] - v[SIM_ILMR]) : 0;
	double mispredicts = (double)(v[SIM_BCM] + v[SIM_BIM]);

	/* A line that misses on at most one read in 1/stream_ratio is walking memory in
	 * order (a 4-byte array misses once per 16 reads with 64-byte lines): hardware
	 * prefetchers and out-of-order execution overlap those misses. */
	s->stream = m->stream_ratio > 0 && v[SIM_D1MR] > 0 &&
		    (double)v[SIM_D1MR] <= m->stream_ratio * (double)v[SIM_DR];
	s->cycles.v[SIM_RETIRING] = (double)v[SIM_IR] * m->uops_per_insn / m->width;
	/* A mispredict's penalty is split: the wrong-path issue until the flush (Bad
	 * Speculation) and the refill after it, in which the front end delivers nothing
	 * (Frontend Bound, branch resteers), as real top-down splits it. Every indirect
	 * jump, call or return also costs a redirect bubble in the front end. */
	s->cycles.v[SIM_BAD_SPECULATION] = mispredicts * (m->branch_penalty - m->resteer_latency);
	s->resteer = mispredicts * m->resteer_latency + (double)v[SIM_BI] * m->indirect_resteer;
	s->cycles.v[SIM_FRONTEND_BOUND] = i1_hit * m->i1_latency + (double)v[SIM_ILMR] * m->mem_latency + s->resteer;
	s->cycles.v[SIM_BACKEND_BOUND] = with_memory ? miss_cycles(v, m, s->stream ? m->stream_mlp : m->mlp) : 0;
}

/*
 * The same with tdprof's tool (cost.h, docs/sim-machine.md "With the tool"): the
 * tool's exposed cycles per level are Memory Bound as they are; returns are
 * predicted apart (Br, Brm), a BTB miss resteers at decode, the i-cache has three
 * levels, and windows fetched past the µop cache cost their switch and the
 * narrower legacy decode.
 */
static void site_cycles_tool(struct sim_site *s, const struct sim_machine *m)
{
	const uint64_t *v = s->cost.v;
	double mispredicts = (double)(v[SIM_BCM] + v[SIM_BIM] + v[SIM_BRM]);
	double i2 = v[SIM_I1MR] > v[SIM_I2MR] ? (double)(v[SIM_I1MR] - v[SIM_I2MR]) : 0;
	double i3 = v[SIM_I2MR] > v[SIM_ILMR] ? (double)(v[SIM_I2MR] - v[SIM_ILMR]) : 0;
	double narrow = m->decode_width < m->width ? 1.0 / m->decode_width - 1.0 / m->width : 0;

	s->tool = true;
	s->stream = v[SIM_D1MR] > 0 && 2 * v[SIM_DPF] > v[SIM_D1MR];
	s->chase = v[SIM_D1MR] > 0 && 2 * v[SIM_DDEP] > v[SIM_D1MR];
	s->cycles.v[SIM_RETIRING] = (double)v[SIM_IR] * m->uops_per_insn / m->width;
	s->cycles.v[SIM_BAD_SPECULATION] = mispredicts * (m->branch_penalty - m->resteer_latency);
	/* a return the return stack predicted costs no redirect: only indirect jumps and calls do */
	s->resteer = mispredicts * m->resteer_latency + (double)v[SIM_BI] * m->indirect_resteer +
		     (double)v[SIM_BTBM] * m->btb_penalty;
	s->icache = i2 * m->i1_latency + i3 * m->l3_latency + (double)v[SIM_ILMR] * m->mem_latency;
	s->mite = (double)v[SIM_IDSBM] * m->dsb_switch + (double)v[SIM_IMITE] * narrow;
	s->fetch_bw = s->mite;
	s->cycles.v[SIM_FRONTEND_BOUND] = s->icache + s->resteer + s->mite;
	s->mem[1] = (double)v[SIM_DCY2];
	s->mem[2] = (double)v[SIM_DCY3];
	s->mem[3] = (double)v[SIM_DCYM];
	s->cycles.v[SIM_BACKEND_BOUND] = s->mem[1] + s->mem[2] + s->mem[3];
}

/* One instruction's share with the block model: its µops, its core stall and its
 * misses at the overlap its load flags give (with the tool, its misses are already
 * in the line's exposed cycles). */
static void entry_cycles(struct sim_site *s, const struct sim_entry *e, const struct sim_core_insn *in,
			 const struct sim_machine *m)
{
	double overlap = s->stream ? m->stream_mlp : m->mlp, ir = (double)e->cost.v[SIM_IR];

	if (in) {
		double retire = ir * in->uops / m->width;

		s->cycles.v[SIM_RETIRING] += retire - ir * m->uops_per_insn / m->width;
		if (in->uops >= 2 || (in->flags & SIM_INSN_MICROCODE))
			s->heavy += retire;
		s->fetch_bw += ir * in->fetch;
		s->cycles.v[SIM_FRONTEND_BOUND] += ir * in->fetch;
		if (!(in->flags & SIM_INSN_LOAD_CHAIN)) {
			s->core += ir * in->stall;
			if (in->flags & SIM_INSN_PORT_BOUND)
				s->core_ports += ir * in->stall;
		}
		else if (s->tool)
			s->mem[0] += ir * in->stall; /* a chain of L1 hits: L1 Bound */
		s->cycles.v[SIM_BACKEND_BOUND] += ir * in->stall;
		if (in->flags & SIM_INSN_CHASE) {
			overlap = m->mlp;
			if (e->cost.v[SIM_D1MR])
				s->chase = true;
		} else if (in->flags & SIM_INSN_PREFETCHED) {
			overlap = m->stream_mlp;
		} else if (in->flags & SIM_INSN_INDEP) {
			overlap = s->stream ? m->stream_mlp : m->indep_mlp;
		}
	}
	if (e->cost.v[SIM_D1MR] && !s->tool)
		s->cycles.v[SIM_BACKEND_BOUND] += miss_cycles(e->cost.v, m, overlap);
}

struct group {
	struct sim_hashtab t;
	struct sim_site *v;
	size_t nr;
	size_t alloc;
};

/* One multiply per field and a finaliser: every entry of the profile is grouped here. */
static inline uint64_t site_key(uint32_t file, uint32_t fn, uint64_t line)
{
	uint64_t h = (((uint64_t)file << 32) | fn) * 0x9e3779b97f4a7c15ull ^ line * 0xc2b2ae3d27d4eb4full;

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}

static uint64_t site_hash(const void *ctx, uint32_t value)
{
	const struct sim_site *s = &((const struct group *)ctx)->v[value];

	return site_key(s->file, s->fn, s->line);
}

static struct sim_site *group_get(struct group *g, const struct sim_entry *e, bool *created)
{
	uint64_t h = site_key(e->file, e->fn, e->line);
	struct sim_site *s;
	size_t j;

	if (g->t.cap) {
		for (j = (size_t)h & (g->t.cap - 1); g->t.slot[j]; j = (j + 1) & (g->t.cap - 1)) {
			s = &g->v[g->t.slot[j] - 1];
			if (s->file == e->file && s->fn == e->fn && s->line == e->line) {
				*created = false;
				return s;
			}
		}
	}
	if (sim_hashtab_reserve(&g->t, site_hash, g) || (g->nr == g->alloc && TDP_GROW(g->v, g->alloc, g->nr + 1)))
		return NULL;
	s = &g->v[g->nr];
	memset(s, 0, sizeof(*s));
	s->file = e->file;
	s->fn = e->fn;
	s->obj = e->obj;
	s->line = e->line;
	for (j = (size_t)h & (g->t.cap - 1); g->t.slot[j]; j = (j + 1) & (g->t.cap - 1))
		;
	g->t.slot[j] = (uint32_t)g->nr + 1;
	g->t.nr++;
	g->nr++;
	*created = true;
	return s;
}

/* Per site, what the instructions chosen for branch_addr and miss_addr had. */
struct best {
	uint64_t mispredicts; /* Bcm + Bim */
	uint64_t branches;    /* Bc + Bi */
	uint64_t misses;      /* D1mr */
};

/* The entry (instruction) that best stands for the line's branch: most mispredicts, then most executed. */
static bool better_branch(const struct sim_cost *c, const struct best *best)
{
	uint64_t cm = c->v[SIM_BCM] + c->v[SIM_BIM];

	if (cm != best->mispredicts)
		return cm > best->mispredicts;
	return c->v[SIM_BC] + c->v[SIM_BI] > best->branches;
}

/*
 * The block model's instructions by (object, address), for the per-entry pass: an
 * open-addressing table of indices into core->insns (sim_core_find()'s binary
 * search, once per entry of the profile, was a third of the sites' cost).
 */
struct core_index {
	uint32_t *slot; /* index + 1; 0: empty */
	size_t mask;
	bool dups;      /* an (object, address) twice: lookups go to sim_core_find() (its choice) */
};

static inline uint64_t insn_key(uint32_t obj, uint64_t addr)
{
	uint64_t h = addr * 0x9e3779b97f4a7c15ull ^ (uint64_t)obj * 0xc2b2ae3d27d4eb4full;

	return h ^ (h >> 29);
}

static int core_index_make(struct core_index *x, const struct sim_core *core)
{
	size_t cap = 64;

	while (cap < 2 * core->nr_insns)
		cap *= 2;
	if (!(x->slot = tdp_calloc(cap, sizeof(*x->slot))))
		return TDP_ENOMEM;
	x->mask = cap - 1;
	for (size_t i = 0; i < core->nr_insns; i++) {
		size_t j = (size_t)insn_key(core->insns[i].obj, core->insns[i].addr) & x->mask;

		for (; x->slot[j]; j = (j + 1) & x->mask) {
			const struct sim_core_insn *in = &core->insns[x->slot[j] - 1];

			x->dups |= in->obj == core->insns[i].obj && in->addr == core->insns[i].addr;
		}
		x->slot[j] = (uint32_t)i + 1;
	}
	return 0;
}

/* sim_core_find(core, obj, addr), in constant time. */
static const struct sim_core_insn *core_index_find(const struct core_index *x, const struct sim_core *core,
						   uint32_t obj, uint64_t addr)
{
	if (x->dups)
		return sim_core_find(core, obj, addr);
	for (size_t j = (size_t)insn_key(obj, addr) & x->mask; x->slot[j]; j = (j + 1) & x->mask) {
		const struct sim_core_insn *in = &core->insns[x->slot[j] - 1];

		if (in->obj == obj && in->addr == addr)
			return in;
	}
	return NULL;
}

int sim_sites_build(const struct sim_profile *p, const struct sim_machine *m, struct sim_site **out,
		    size_t *nr, struct tdp_err *err)
{
	return sim_sites_build_core(p, m, NULL, out, nr, err);
}

int sim_sites_build_core(const struct sim_profile *p, const struct sim_machine *m, const struct sim_core *core,
			 struct sim_site **out, size_t *nr, struct tdp_err *err)
{
	bool per_insn = core && core->valid && p->has_addr;
	uint32_t *site_of = NULL;
	const struct sim_core_insn **insn_of = NULL; /* per entry: its block-model instruction, looked up once */
	struct group g;
	struct best *best = NULL; /* per site */
	struct core_index cx = { NULL, 0, false };
	size_t best_alloc = 0;
	int ret = 0;

	if (!sim_profile_has(p, SIM_NEEDED_EVENTS))
		return tdp_err_set(err, TDP_EANALYSIS, "the profile lacks cache or branch counts");
	memset(&g, 0, sizeof(g));
	if (per_insn && (!(site_of = tdp_calloc(p->nr ? p->nr : 1, sizeof(*site_of))) ||
			 !(insn_of = tdp_calloc(p->nr ? p->nr : 1, sizeof(*insn_of))) || core_index_make(&cx, core))) {
		ret = tdp_err_oom(err);
		goto out;
	}
	for (size_t i = 0; i < p->nr; i++) {
		const struct sim_entry *e = &p->v[i];
		bool created = false;
		struct sim_site *s = group_get(&g, e, &created);
		const struct sim_core_insn *in;
		bool rep;
		size_t k;

		if (!s || (g.nr > best_alloc && TDP_GROW(best, best_alloc, g.nr))) {
			ret = tdp_err_oom(err);
			goto out;
		}
		k = (size_t)(s - g.v);
		in = NULL;
		if (per_insn) {
			site_of[i] = (uint32_t)k;
			in = insn_of[i] = e->addr ? core_index_find(&cx, core, e->obj, e->addr) : NULL;
		}
		if (created)
			memset(&best[k], 0, sizeof(best[k]));
		/* a repeated string instruction's loop is microcode, not branches: valgrind's
		 * simulator counts each element as a conditional branch and the last as a mispredict */
		rep = in && (in->flags & SIM_INSN_MICROCODE);
		/* Sums cannot overflow: the profile's totals did not. */
		for (size_t ev = 0; ev < SIM_NR_EVENTS; ev++)
			s->cost.v[ev] += rep && (ev == SIM_BC || ev == SIM_BCM) ? 0 : e->cost.v[ev];
		if (!p->has_addr)
			continue;
		/* Per-instruction entries: Ir of one instruction is how often it ran. */
		if (e->cost.v[SIM_IR] > s->execs)
			s->execs = e->cost.v[SIM_IR];
		if (!rep && e->cost.v[SIM_BC] + e->cost.v[SIM_BI] && e->addr &&
		    (!s->branch_addr || better_branch(&e->cost, &best[k]))) {
			s->branch_addr = e->addr;
			best[k].mispredicts = e->cost.v[SIM_BCM] + e->cost.v[SIM_BIM];
			best[k].branches = e->cost.v[SIM_BC] + e->cost.v[SIM_BI];
		}
		if (e->cost.v[SIM_D1MR] > best[k].misses && e->addr) {
			s->miss_addr = e->addr;
			best[k].misses = e->cost.v[SIM_D1MR];
		}
	}
	for (size_t i = 0; i < g.nr; i++) {
		if (sim_profile_from_tool(p))
			site_cycles_tool(&g.v[i], m);
		else
			site_cycles(&g.v[i], m, !per_insn);
	}
	/* The block model's pass: the sites exist, so their stream rule is known. */
	for (size_t i = 0; per_insn && i < p->nr; i++) {
		const struct sim_entry *e = &p->v[i];

		entry_cycles(&g.v[site_of[i]], e, insn_of[i], m);
	}
	*out = g.v;
	*nr = g.nr;
	g.v = NULL;
out:
	sim_hashtab_release(&g.t);
	tdp_free(g.v);
	tdp_free(best);
	tdp_free(site_of);
	tdp_free(insn_of);
	tdp_free(cx.slot);
	return ret;
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

static int site_cmp(const struct sim_site *x, const struct sim_site *y, enum sim_bucket bucket)
{
	int c;

	if (bucket != SIM_RETIRING) {
		double cx = x->cycles.v[bucket], cy = y->cycles.v[bucket];

		if (cx != cy)
			return cx < cy ? 1 : -1;
	}
	if ((c = cmp_u64_desc(x->cost.v[SIM_IR], y->cost.v[SIM_IR])))
		return c;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->fn < y->fn ? -1 : x->fn > y->fn;
}

/* qsort has no context argument in C17: one comparator per bucket. */
#define SITE_CMP(b)                                                       \
	static int site_cmp_##b(const void *x, const void *y)             \
	{                                                                 \
		return site_cmp(x, y, b);                                 \
	}
SITE_CMP(SIM_RETIRING)
SITE_CMP(SIM_BAD_SPECULATION)
SITE_CMP(SIM_FRONTEND_BOUND)
SITE_CMP(SIM_BACKEND_BOUND)

void sim_sites_sort(struct sim_site *sites, size_t nr, enum sim_bucket bucket)
{
	static int (*const cmp[SIM_NR_BUCKETS])(const void *, const void *) = {
		[SIM_RETIRING] = site_cmp_SIM_RETIRING,
		[SIM_BAD_SPECULATION] = site_cmp_SIM_BAD_SPECULATION,
		[SIM_FRONTEND_BOUND] = site_cmp_SIM_FRONTEND_BOUND,
		[SIM_BACKEND_BOUND] = site_cmp_SIM_BACKEND_BOUND,
	};

	if (nr > 1)
		qsort(sites, nr, sizeof(*sites), cmp[(unsigned)bucket < SIM_NR_BUCKETS ? bucket : SIM_RETIRING]);
}

void sim_sites_free(struct sim_site *sites)
{
	tdp_free(sites);
}

void sim_core_release(struct sim_core *c)
{
	tdp_free(c->insns);
	memset(c, 0, sizeof(*c));
}

const struct sim_core_insn *sim_core_find(const struct sim_core *c, uint32_t obj, uint64_t addr)
{
	size_t lo = 0, hi = c ? c->nr_insns : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct sim_core_insn *in = &c->insns[mid];

		if (in->obj == obj && in->addr == addr)
			return in;
		if (in->obj < obj || (in->obj == obj && in->addr < addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void sim_site_merge(struct sim_site *into, const struct sim_site *z)
{
	for (int e = 0; e < SIM_NR_EVENTS; e++)
		into->cost.v[e] += z->cost.v[e];
	for (int b = 0; b < SIM_NR_BUCKETS; b++)
		into->cycles.v[b] += z->cycles.v[b];
	into->stream |= z->stream;
	into->chase |= z->chase;
	into->core += z->core;
	into->heavy += z->heavy;
	into->core_ports += z->core_ports;
	into->resteer += z->resteer;
	into->fetch_bw += z->fetch_bw;
	into->tool |= z->tool;
	for (int l = 0; l < 4; l++)
		into->mem[l] += z->mem[l];
	into->icache += z->icache;
	into->mite += z->mite;
}
