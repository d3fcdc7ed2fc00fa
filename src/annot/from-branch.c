/*
 * from-branch.c: a recording's counts by function and by instruction
 * (annot_branch_funcs(), annot_branch_build(), annot.h): the sites and timed
 * blocks of branch/branch.h's aggregation and the plain samples of branch/ips.h,
 * every counted address resolved once to its function and ELF virtual address.
 */
#include "annot/annot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "branch/branch.h"
#include "branch/ips.h"
#include "symbol/exe.h"
#include "symbol/symbol.h"

struct annot_branch_state {
	struct symbol_addr *addrs; /* distinct (addr, pid), sorted */
	struct symbol_result *res; /* parallel */
	size_t nr;
};

static int addr_cmp(const void *x, const void *y)
{
	const struct symbol_addr *a = x, *b = y;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

static uint32_t sym_pid(uint32_t pid)
{
	return pid == BRANCH_PID_NONE ? SYMBOL_PID_NONE : pid;
}

static const struct symbol_result *find(const struct annot_branch_state *st, uint64_t addr, uint32_t pid)
{
	struct symbol_addr key = { addr, sym_pid(pid) };
	const struct symbol_addr *a = bsearch(&key, st->addrs, st->nr, sizeof(key), addr_cmp);

	return a ? &st->res[a - st->addrs] : NULL;
}

/* Every counted address, once, resolved. */
static int resolve_all(const struct annot_branch_in *in, struct annot_branch_state *st, struct tdp_err *err)
{
	const struct branch_result *r = in->res;
	size_t n = 0, m = 0, cap = in->nr_ips + (r ? r->nr_sites + 2 * r->nr_blocks : 0);

	st->addrs = tdp_calloc(cap + 1, sizeof(*st->addrs));
	if (!st->addrs)
		return tdp_err_oom(err);
	for (size_t i = 0; r && i < r->nr_sites; i++)
		st->addrs[n++] = (struct symbol_addr){ r->sites[i].addr, sym_pid(r->sites[i].pid) };
	for (size_t i = 0; r && r->has_timing && i < r->nr_blocks; i++) {
		st->addrs[n++] = (struct symbol_addr){ r->blocks[i].start, sym_pid(r->blocks[i].pid) };
		st->addrs[n++] = (struct symbol_addr){ r->blocks[i].end, sym_pid(r->blocks[i].pid) };
	}
	for (size_t i = 0; i < in->nr_ips; i++)
		st->addrs[n++] = (struct symbol_addr){ in->ips[i].addr, sym_pid(in->ips[i].pid) };
	qsort(st->addrs, n, sizeof(*st->addrs), addr_cmp);
	for (size_t i = 0; i < n; i++)
		if (!m || addr_cmp(&st->addrs[m - 1], &st->addrs[i]))
			st->addrs[m++] = st->addrs[i];
	st->nr = m;
	st->res = tdp_calloc(m + 1, sizeof(*st->res));
	if (!st->res)
		return tdp_err_oom(err);
	return symbol_resolve(in->sess, st->addrs, m, st->res, err);
}

static bool named(const struct symbol_result *r)
{
	return r && r->status == SYMBOL_OK && r->function;
}

/* The same function: binary, start and name. */
static bool same_func(const struct symbol_result *a, const struct symbol_result *b)
{
	return a->func_vaddr == b->func_vaddr && !strcmp(a->function, b->function) &&
	       !strcmp(a->dso ? a->dso : "", b->dso ? b->dso : "");
}

static int res_cmp(const void *x, const void *y)
{
	const struct symbol_result *a = *(const struct symbol_result *const *)x, *b = *(const struct symbol_result *const *)y;
	int c = strcmp(a->dso ? a->dso : "", b->dso ? b->dso : "");

	if (c)
		return c;
	if (a->func_vaddr != b->func_vaddr)
		return a->func_vaddr < b->func_vaddr ? -1 : 1;
	return strcmp(a->function, b->function);
}

/* The function holding r among v[0..nr) (sorted by res_cmp's key), or NULL. */
static struct annot_func *func_of(struct annot_func *v, size_t nr, const struct symbol_result **keys,
				  const struct symbol_result *r)
{
	size_t lo = 0, hi = nr;

	if (!named(r))
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = res_cmp(&keys[mid], &r);

		if (!c)
			return &v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void columns(struct annot_doc *d, const struct annot_branch_in *in)
{
	if (in->res) {
		d->col_exec = annot_col_add(d, "executions", "Execs",
					    "taken branches recorded from the instruction: the branch record entries that "
					    "name it as their source, as branches report counts a site",
					    ANNOT_AGG_SUM);
		d->col_primary = d->col_exec;
		d->col_rate_den = d->col_exec;
		if (in->res->has_mispred_flags)
			d->col_misp = annot_col_add(d, "mispredicts", "Misp",
						    "of those, the entries flagged mispredicted", ANNOT_AGG_SUM);
		d->has_timing = in->res->has_timing;
	}
	if (in->nr_ips) {
		size_t c = annot_col_add(d, "samples", "Samples", "samples whose instruction pointer it is",
					 ANNOT_AGG_SUM);

		if (d->col_primary == ANNOT_NONE)
			d->col_primary = c;
	}
}

/* Build the table: one row per named function, with the counts of its addresses. */
static int funcs(struct annot_doc *d, const struct annot_branch_in *in, const struct annot_branch_state *st,
		 struct annot_func **out, size_t *nr, struct tdp_err *err)
{
	const struct symbol_result **keys = tdp_calloc(st->nr + 1, sizeof(*keys));
	struct annot_func *v = tdp_calloc(st->nr + 1, sizeof(*v));
	size_t n = 0, m = 0;

	if (!keys || !v)
		goto oom;
	for (size_t i = 0; i < st->nr; i++)
		if (named(&st->res[i]))
			keys[n++] = &st->res[i];
	qsort(keys, n, sizeof(*keys), res_cmp);
	for (size_t i = 0; i < n; i++) {
		const struct symbol_result *r = keys[i];
		size_t at = (size_t)(r - st->res);

		if (m && same_func(keys[m - 1], r))
			continue;
		keys[m] = r;
		v[m] = (struct annot_func){ annot_intern(d, r->function), annot_intern(d, r->dso), r->func_vaddr,
					    0, 0, true, st->addrs[at].pid, st->addrs[at].addr - r->offset,
					    r->func_size, 0, 0 };
		if (!v[m].name || (r->dso && !v[m].dso))
			goto oom;
		m++;
	}
	for (size_t i = 0; in->res && i < in->res->nr_sites; i++) {
		const struct branch_site *s = &in->res->sites[i];
		struct annot_func *f = func_of(v, m, keys, find(st, s->addr, s->pid));

		if (f) {
			f->count += s->executions;
			f->mispredicts += s->mispredicts;
		}
	}
	for (size_t i = 0; i < in->nr_ips; i++) {
		struct annot_func *f = func_of(v, m, keys, find(st, in->ips[i].addr, in->ips[i].pid));

		if (f && !in->res)
			f->count += in->ips[i].samples;
	}
	tdp_free(keys);
	*out = v;
	*nr = m;
	return 0;
oom:
	tdp_free(keys);
	tdp_free(v);
	return tdp_err_oom(err);
}

int annot_branch_funcs(struct annot_doc *d, const struct annot_branch_in *in, struct annot_branch_state **st,
		       struct annot_func **out, size_t *nr, struct tdp_err *err)
{
	struct annot_branch_state *s = tdp_calloc(1, sizeof(*s));
	int rc;

	*out = NULL;
	*nr = 0;
	*st = s;
	if (!s)
		return tdp_err_oom(err);
	columns(d, in);
	rc = resolve_all(in, s, err);
	if (!rc)
		rc = funcs(d, in, s, out, nr, err);
	if (!rc)
		annot_funcs_rank(*out, *nr, in->res && in->res->counts.mispredicted_entries);
	return rc;
}

void annot_branch_state_free(struct annot_branch_state *st)
{
	if (!st)
		return;
	tdp_free(st->addrs);
	tdp_free(st->res);
	tdp_free(st);
}

/* r is an address of f: its binary, start and name. */
static bool in_func(const struct symbol_result *r, const struct annot_func *f)
{
	return named(r) && r->func_vaddr == f->addr && !strcmp(r->function, f->name) &&
	       !strcmp(r->dso ? r->dso : "", f->dso ? f->dso : "");
}

/* The header's facts: the file read, its build-id. */
static int facts(struct annot_doc *d, const struct annot_branch_state *st, const struct annot_func *f)
{
	uint8_t id[20];
	size_t n;

	for (size_t i = 0; i < st->nr && !d->binary; i++)
		if (in_func(&st->res[i], f) && st->res[i].binary && !(d->binary = annot_str(d, st->res[i].binary)))
			return TDP_ENOMEM;
	n = d->binary ? symbol_file_build_id(d->binary, id) : 0;
	for (size_t i = 0; i < n; i++)
		snprintf(d->build_id + 2 * i, sizeof(d->build_id) - 2 * i, "%02x", id[i]);
	d->function = f->name;
	d->dso = f->dso;
	d->addr = f->addr;
	d->size = f->size;
	return 0;
}

/* The addresses of f with counts, as ELF virtual addresses (the listing when there is no code). */
static int counted(const struct annot_branch_state *st, const struct annot_func *f, uint64_t **out, size_t *nr)
{
	*nr = 0;
	*out = tdp_calloc(st->nr + 1, sizeof(**out));
	if (!*out)
		return TDP_ENOMEM;
	for (size_t i = 0; i < st->nr; i++)
		if (in_func(&st->res[i], f))
			(*out)[(*nr)++] = st->res[i].vaddr;
	return 0;
}

static int add_counts(struct annot_doc *d, const struct annot_branch_in *in, const struct annot_branch_state *st,
		      const struct annot_func *f)
{
	const struct branch_result *r = in->res;
	size_t samples = annot_col_find(d, "samples");

	for (size_t i = 0; r && i < r->nr_sites; i++) {
		const struct symbol_result *x = find(st, r->sites[i].addr, r->sites[i].pid);

		if (!in_func(x, f))
			continue;
		annot_count(d, x->vaddr, d->col_exec, r->sites[i].executions);
		if (d->col_misp != ANNOT_NONE)
			annot_count(d, x->vaddr, d->col_misp, r->sites[i].mispredicts);
	}
	for (size_t i = 0; r && r->has_timing && i < r->nr_blocks; i++) {
		const struct branch_block *b = &r->blocks[i];
		const struct symbol_result *s = find(st, b->start, b->pid), *e = find(st, b->end, b->pid);

		if (in_func(s, f) && in_func(e, f) && annot_block(d, s->vaddr, e->vaddr, b->count, b->timed, b->cycles) < 0)
			return TDP_ENOMEM;
	}
	for (size_t i = 0; samples != ANNOT_NONE && i < in->nr_ips; i++) {
		const struct symbol_result *x = find(st, in->ips[i].addr, in->ips[i].pid);

		if (in_func(x, f))
			annot_count(d, x->vaddr, samples, in->ips[i].samples);
	}
	return 0;
}

/* The compilation directory of f's code, for source files named relative to it. */
static const char *comp_dir_of(struct annot_doc *d, uint64_t vaddr)
{
	struct symbol_exe x;
	const char *dir = NULL;
	bool relative = false;

	for (size_t i = 0; i < d->nr_lines && !relative; i++)
		relative = d->lines[i].file && d->lines[i].file[0] != '/';
	if (!relative || !d->binary)
		return NULL;
	if (!symbol_exe_open(&x, d->binary, NULL))
		dir = annot_str(d, symbol_exe_comp_dir(&x, vaddr));
	symbol_exe_close(&x);
	return dir;
}

int annot_branch_build(struct annot_doc *d, const struct annot_branch_in *in, struct annot_branch_state *st,
		       const struct annot_func *f, const char **comp_dir, struct tdp_err *err)
{
	uint64_t *v = NULL;
	size_t nv = 0;
	int rc;

	*comp_dir = NULL;
	if (facts(d, st, f) || counted(st, f, &v, &nv))
		return tdp_err_oom(err);
	rc = annot_listing(d, &(struct annot_where){ in->sess, f->pid, f->runtime, f->addr, f->size, v, nv }, err);
	tdp_free(v);
	if (!rc && add_counts(d, in, st, f))
		rc = tdp_err_oom(err);
	if (!rc)
		*comp_dir = comp_dir_of(d, f->addr);
	return rc;
}
