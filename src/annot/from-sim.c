/*
 * from-sim.c: a simulated run's counts by function and by instruction
 * (annot_sim_funcs(), annot_sim_build(), annot.h), from valgrind's
 * per-instruction costs. The columns are the profile's events, by name, and
 * the branch figures `why --backend=sim` gives a site (sim/cost.h's
 * sim_site_branches() and sim_site_mispredicts() of the same costs).
 */
#include "annot/annot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "sim/sim.h"
#include "symbol/exe.h"
#include "symbol/symbol.h"

/* valgrind's process, as the session knows it */
#define SIM_PID 1

static uint64_t branches_of(const struct sim_cost *c)
{
	struct sim_site s;

	memset(&s, 0, sizeof(s));
	s.cost = *c;
	return sim_site_branches(&s);
}

static uint64_t mispredicts_of(const struct sim_cost *c)
{
	struct sim_site s;

	memset(&s, 0, sizeof(s));
	s.cost = *c;
	return sim_site_mispredicts(&s);
}

static void columns(struct annot_doc *d, const struct sim_profile *p)
{
	d->col_exec = annot_col_add(d, "executions", "Execs",
				    "times the instruction ran (its Ir); a line's: its most executed instruction's, as "
				    "why counts a site",
				    ANNOT_AGG_MAX);
	d->col_rate_den = annot_col_add(d, "branches", "Branches",
					"conditional and indirect branches executed (Bc + Bi)", ANNOT_AGG_SUM);
	d->col_misp = annot_col_add(d, "mispredicts", "Misp", "of those, mispredicted (Bcm + Bim)", ANNOT_AGG_SUM);
	for (unsigned e = 0; e < SIM_NR_EVENTS; e++) {
		size_t c;

		if (!sim_profile_has(p, 1u << e))
			continue;
		c = annot_col_add(d, sim_event_name((enum sim_event)e), sim_event_name((enum sim_event)e),
				  "valgrind's count of this event", ANNOT_AGG_SUM);
		if (e == SIM_IR)
			d->col_primary = c;
	}
	if (d->col_primary == ANNOT_NONE) /* a profile without Ir: executions say how hot */
		d->col_primary = d->col_exec;
	d->estimate = true;
}

struct fn_key {
	uint64_t key; /* obj << 32 | fn */
	uint64_t ir, misp;
};

static int key_cmp(const void *x, const void *y)
{
	const struct fn_key *a = x, *b = y;

	return a->key < b->key ? -1 : a->key > b->key;
}

int annot_sim_funcs(struct annot_doc *d, const struct annot_sim_in *in, struct annot_func **out, size_t *nr,
		    struct tdp_err *err)
{
	const struct sim_profile *p = in->p;
	struct fn_key *k = tdp_calloc(p->nr + 1, sizeof(*k));
	struct annot_func *v = NULL;
	size_t n = 0, m = 0;

	*out = NULL;
	*nr = 0;
	columns(d, p);
	if (!k)
		return tdp_err_oom(err);
	for (size_t i = 0; i < p->nr; i++) {
		const struct sim_entry *e = &p->v[i];

		if (e->obj != SIM_NO_NAME && e->fn != SIM_NO_NAME)
			k[n++] = (struct fn_key){ (uint64_t)e->obj << 32 | e->fn, e->cost.v[SIM_IR],
						  mispredicts_of(&e->cost) };
	}
	qsort(k, n, sizeof(*k), key_cmp);
	for (size_t i = 0; i < n; i++) {
		if (m && k[m - 1].key == k[i].key) {
			k[m - 1].ir += k[i].ir;
			k[m - 1].misp += k[i].misp;
		} else {
			k[m++] = k[i];
		}
	}
	v = tdp_calloc(m + 1, sizeof(*v));
	if (!v) {
		tdp_free(k);
		return tdp_err_oom(err);
	}
	for (size_t i = 0; i < m; i++) {
		uint32_t obj = (uint32_t)(k[i].key >> 32), fn = (uint32_t)k[i].key;
		const char *o = sim_profile_name(p, obj);

		v[i] = (struct annot_func){ .name = sim_profile_name(p, fn), .dso = o, .count = k[i].ir,
					    .mispredicts = k[i].misp, .preferred = in->exe && !strcmp(o, in->exe),
					    .pid = SIM_PID, .obj = obj, .fn = fn };
	}
	tdp_free(k);
	annot_funcs_rank(v, m, false);
	*out = v;
	*nr = m;
	return 0;
}

/* The lowest and highest instruction addresses of f's entries (its first byte, which every call runs); 0 when none. */
static uint64_t lowest(const struct sim_profile *p, const struct annot_func *f, uint64_t *hi, size_t *with_addr)
{
	uint64_t lo = UINT64_MAX;

	*with_addr = 0;
	*hi = 0;
	for (size_t i = 0; i < p->nr; i++) {
		const struct sim_entry *e = &p->v[i];

		if (e->obj != f->obj || e->fn != f->fn || !e->addr)
			continue;
		(*with_addr)++;
		lo = e->addr < lo ? e->addr : lo;
		*hi = e->addr > *hi ? e->addr : *hi;
	}
	return lo == UINT64_MAX ? 0 : lo;
}

static int add_counts(struct annot_doc *d, const struct sim_profile *p, const struct annot_func *f, uint64_t bias)
{
	for (size_t i = 0; i < p->nr; i++) {
		const struct sim_entry *e = &p->v[i];
		uint64_t va = e->addr - bias;

		if (e->obj != f->obj || e->fn != f->fn || !e->addr || e->addr < bias)
			continue;
		annot_count(d, va, d->col_exec, e->cost.v[SIM_IR]);
		annot_count(d, va, d->col_rate_den, branches_of(&e->cost));
		annot_count(d, va, d->col_misp, mispredicts_of(&e->cost));
		for (unsigned ev = 0; ev < SIM_NR_EVENTS; ev++) {
			size_t c = annot_col_find(d, sim_event_name((enum sim_event)ev));

			if (c != ANNOT_NONE && e->cost.v[ev])
				annot_count(d, va, c, e->cost.v[ev]);
		}
	}
	return 0;
}

static int counted(const struct sim_profile *p, const struct annot_func *f, uint64_t bias, uint64_t **out,
		   size_t *nr)
{
	*nr = 0;
	*out = tdp_calloc(p->nr + 1, sizeof(**out));
	if (!*out)
		return TDP_ENOMEM;
	for (size_t i = 0; i < p->nr; i++)
		if (p->v[i].obj == f->obj && p->v[i].fn == f->fn && p->v[i].addr >= bias && p->v[i].addr)
			(*out)[(*nr)++] = p->v[i].addr - bias;
	return 0;
}

/* The header's facts from the symbol that holds the function's first byte. */
static int facts(struct annot_doc *d, const struct symbol_result *r, const char *obj)
{
	uint8_t id[20];
	size_t n;

	d->function = annot_intern(d, r->function);
	d->dso = annot_intern(d, obj);
	d->binary = annot_intern(d, r->binary ? r->binary : obj);
	d->addr = r->func_vaddr;
	d->size = r->func_size;
	if (!d->function || !d->dso || !d->binary)
		return TDP_ENOMEM;
	n = symbol_file_build_id(d->binary, id);
	for (size_t i = 0; i < n; i++)
		snprintf(d->build_id + 2 * i, sizeof(d->build_id) - 2 * i, "%02x", id[i]);
	return 0;
}

/*
 * valgrind gives an object's addresses as the file's virtual addresses (callgrind
 * subtracts the load address) or as loaded: the bias is the one under which the
 * function's first instruction is its symbol's start.
 */
static uint64_t find_bias(struct symbol_exe *x, bool have_exe, const char *fn, uint64_t lo)
{
	const struct symbol_exe_func *sf = have_exe ? symbol_exe_find_func(x, fn) : NULL;

	if (sf && lo > sf->addr && !((lo - sf->addr) & 0xfff))
		return lo - sf->addr;
	return 0;
}

/*
 * No symbol names the code (a stripped binary: valgrind names it by its address):
 * the listing runs from its first to its last executed instruction.
 */
static void unnamed(struct annot_doc *d, struct symbol_result *r, const char *fn, const char *obj, uint64_t lo,
		    uint64_t hi)
{
	const char *bin = r->binary;

	memset(r, 0, sizeof(*r));
	r->status = SYMBOL_OK;
	r->function = fn;
	r->binary = bin ? bin : obj;
	r->func_vaddr = lo;
	r->func_size = hi - lo + 1;
	annot_note(d, "no symbol names this code (a stripped binary): it is listed from its first to its last "
		      "executed instruction");
}

int annot_sim_build(struct annot_doc *d, const struct annot_sim_in *in, const struct annot_func *f,
		    const char **comp_dir, struct tdp_err *err)
{
	const char *obj = sim_profile_name(in->p, f->obj), *fn = sim_profile_name(in->p, f->fn);
	struct symbol_session *s = NULL;
	struct symbol_exe x;
	struct symbol_result r;
	uint64_t *v = NULL, lo, hi, bias;
	size_t nv = 0, with_addr;
	bool have_exe;
	int rc;

	*comp_dir = NULL;
	lo = lowest(in->p, f, &hi, &with_addr);
	if (!with_addr)
		return tdp_err_set(err, TDP_EANALYSIS, "the profile of '%s' has no instruction addresses: annotating needs "
				   "valgrind's per-instruction counts (callgrind --dump-instr=yes)", fn);
	have_exe = !symbol_exe_open(&x, obj, NULL);
	bias = find_bias(&x, have_exe, fn, lo);
	rc = symbol_session_new(&s, NULL, err);
	if (!rc)
		rc = symbol_session_add_elf(s, SIM_PID, obj, bias, err);
	if (!rc)
		rc = symbol_resolve(s, &(struct symbol_addr){ lo, SIM_PID }, 1, &r, err);
	if (!rc && (r.status != SYMBOL_OK || !r.function))
		unnamed(d, &r, fn, obj, lo - bias, hi - bias);
	if (!rc && (facts(d, &r, obj) || counted(in->p, f, bias, &v, &nv)))
		rc = tdp_err_oom(err);
	if (!rc)
		rc = annot_listing(d, &(struct annot_where){ s, SIM_PID, r.func_vaddr + bias, r.func_vaddr, r.func_size,
							   v, nv }, err);
	if (!rc)
		rc = add_counts(d, in->p, f, bias);
	if (!rc && have_exe)
		*comp_dir = annot_str(d, symbol_exe_comp_dir(&x, r.func_vaddr));
	tdp_free(v);
	symbol_exe_close(&x);
	symbol_session_free(s);
	return rc;
}
