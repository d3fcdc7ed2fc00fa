/* annotate-common.c: what both annotators share (annotate-internal.h). */
#include "branch/annotate-internal.h"
#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void branch_annot_opts_init(struct branch_annot_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->lines = true;
	o->disasm = true;
	o->disasm_sites = 5;
	o->disasm_before = 6;
	o->disasm_after = 3;
	o->block_insns = 20;
	o->types = true;
}

const struct branch_loc *branch_symbols_find(const struct branch_symbols *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nr_locs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->locs[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nr_locs && s->locs[lo].addr == addr ? &s->locs[lo] : NULL;
}

/* Distinct addresses, in first-seen order, with a hash index addr -> position. */
struct addr_set {
	uint64_t *addr;         /* by position */
	uint32_t *pid;
	size_t nr, alloc_addr, alloc_pid;
	uint32_t *slots;        /* positions + 1; 0: empty */
	size_t cap;
};

static size_t addr_slot(uint64_t a, size_t cap)
{
	return (size_t)((a * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

static int addr_set_grow(struct addr_set *s)
{
	size_t cap = s->cap ? s->cap * 2 : 4096;
	uint32_t *t = tdp_calloc(cap, sizeof(*t));

	if (!t)
		return TDP_ENOMEM;
	for (size_t i = 0; i < s->nr; i++) {
		size_t j = addr_slot(s->addr[i], cap);

		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = (uint32_t)(i + 1);
	}
	tdp_free(s->slots);
	s->slots = t;
	s->cap = cap;
	return 0;
}

/* The position of a (added with pid when new), or -1 on TDP_ENOMEM. */
static int64_t addr_set_add(struct addr_set *s, uint64_t a, uint32_t pid)
{
	size_t j;

	if ((s->nr + 1) * 2 > s->cap && addr_set_grow(s))
		return -1;
	for (j = addr_slot(a, s->cap); s->slots[j]; j = (j + 1) & (s->cap - 1))
		if (s->addr[s->slots[j] - 1] == a)
			return s->slots[j] - 1;
	if (TDP_GROW(s->addr, s->alloc_addr, s->nr + 1) || TDP_GROW(s->pid, s->alloc_pid, s->nr + 1))
		return -1;
	s->addr[s->nr] = a;
	s->pid[s->nr] = pid;
	s->slots[j] = (uint32_t)(s->nr + 1);
	return (int64_t)s->nr++;
}

struct addr_pos {
	uint64_t addr;
	uint32_t pos;
};

static int by_addr(const void *pa, const void *pb)
{
	const struct addr_pos *a = pa, *b = pb;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

int ba_locs_collect(const struct branch_result *r, struct branch_symbols *s, struct tdp_err *err)
{
	struct addr_set set = { 0 };
	struct addr_pos *order = NULL;
	uint32_t *remap = NULL, *edge_loc = NULL;
	struct branch_loc *l = NULL;
	int rc = TDP_ENOMEM;

	/* edges first, so that an address keeps the pid of the first edge naming it */
	edge_loc = tdp_calloc(r->nr_edges * 2 + 1, sizeof(*edge_loc));
	if (!edge_loc)
		goto out;
	for (size_t i = 0; i < r->nr_edges; i++) {
		int64_t f = addr_set_add(&set, r->edges[i].from, r->edges[i].pid);
		int64_t t = f < 0 ? -1 : addr_set_add(&set, r->edges[i].to, r->edges[i].pid);

		if (t < 0)
			goto out;
		edge_loc[2 * i] = (uint32_t)f;
		edge_loc[2 * i + 1] = (uint32_t)t;
	}
	for (size_t i = 0; i < r->nr_blocks; i++)
		if (addr_set_add(&set, r->blocks[i].start, r->blocks[i].pid) < 0 ||
		    addr_set_add(&set, r->blocks[i].end, r->blocks[i].pid) < 0)
			goto out;
	order = tdp_calloc(set.nr + 1, sizeof(*order));
	remap = tdp_calloc(set.nr + 1, sizeof(*remap));
	l = tdp_calloc(set.nr + 1, sizeof(*l));
	if (!order || !remap || !l)
		goto out;
	for (size_t i = 0; i < set.nr; i++)
		order[i] = (struct addr_pos){ set.addr[i], (uint32_t)i };
	if (set.nr > 1)
		qsort(order, set.nr, sizeof(*order), by_addr);
	for (size_t i = 0; i < set.nr; i++) {
		remap[order[i].pos] = (uint32_t)i;
		l[i].addr = order[i].addr;
		l[i].pid = set.pid[order[i].pos];
		l[i].group = (uint32_t)i;
	}
	for (size_t i = 0; i < r->nr_edges * 2; i++)
		edge_loc[i] = remap[edge_loc[i]];
	s->locs = l;
	s->nr_locs = set.nr;
	s->edge_loc = edge_loc;
	l = NULL;
	edge_loc = NULL;
	rc = 0;
out:
	tdp_free(set.addr);
	tdp_free(set.pid);
	tdp_free(set.slots);
	tdp_free(order);
	tdp_free(remap);
	tdp_free(l);
	tdp_free(edge_loc);
	return rc ? tdp_err_oom(err) : 0;
}

void ba_text_unresolved(uint64_t addr, uint64_t dso_addr, bool kernel, struct strbuf *sb)
{
	(void)addr;
	strbuf_addf(sb, "[%c] %#.16" PRIx64, kernel ? 'k' : '.', dso_addr);
}

static int str_cmp_null(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* A resolved address for grouping: its binary and function, and its position. */
struct named {
	const char *dso, *function;
	size_t i;
};

static int named_cmp(const void *pa, const void *pb)
{
	const struct named *a = pa, *b = pb;
	int c = str_cmp_null(a->dso, b->dso);

	if (!c)
		c = str_cmp_null(a->function, b->function);
	return c ? c : a->i < b->i ? -1 : a->i > b->i;
}

/* Group ids: resolved addresses of one (binary, function) share the id of the first. */
static int assign_groups(struct branch_symbols *s, struct tdp_err *err)
{
	struct named *v;
	size_t nr = 0;

	v = tdp_calloc(s->nr_locs ? s->nr_locs : 1, sizeof(*v));
	if (!v)
		return tdp_err_oom(err);
	for (size_t i = 0; i < s->nr_locs; i++) {
		s->locs[i].group = (uint32_t)i;
		if (s->locs[i].resolved && s->locs[i].function)
			v[nr++] = (struct named){ s->locs[i].dso, s->locs[i].function, i };
	}
	if (nr > 1)
		qsort(v, nr, sizeof(*v), named_cmp);
	for (size_t i = 1; i < nr; i++)
		if (!str_cmp_null(v[i - 1].dso, v[i].dso) && !str_cmp_null(v[i - 1].function, v[i].function))
			s->locs[v[i].i].group = s->locs[v[i - 1].i].group;
	tdp_free(v);
	return 0;
}

static int row_by_key(const void *pa, const void *pb)
{
	const struct branch_sym_edge *a = pa, *b = pb;

	if (a->from->group != b->from->group)
		return a->from->group < b->from->group ? -1 : 1;
	if (a->to->group != b->to->group)
		return a->to->group < b->to->group ? -1 : 1;
	if (a->flag != b->flag)
		return a->flag < b->flag ? -1 : 1;
	if (a->from->addr != b->from->addr)
		return a->from->addr < b->from->addr ? -1 : 1;
	return a->to->addr < b->to->addr ? -1 : a->to->addr > b->to->addr;
}

/* perf's output order: overhead descending, then source, target, flag */
static int row_by_count(const void *pa, const void *pb)
{
	const struct branch_sym_edge *a = pa, *b = pb;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if (a->from->addr != b->from->addr)
		return a->from->addr < b->from->addr ? -1 : 1;
	if (a->to->addr != b->to->addr)
		return a->to->addr < b->to->addr ? -1 : 1;
	return a->flag < b->flag ? -1 : a->flag > b->flag;
}

int ba_sym_edges(struct branch_symbols *s, const struct branch_result *r, struct tdp_err *err)
{
	struct branch_sym_edge *rows;
	size_t n = 0, k = 0;
	int rc;

	rc = assign_groups(s, err);
	if (rc)
		return rc;
	rows = tdp_calloc(r->nr_edges * 3 + 1, sizeof(*rows));
	if (!rows)
		return tdp_err_oom(err);
	for (size_t i = 0; i < r->nr_edges; i++) {
		const struct branch_edge *e = &r->edges[i];
		const struct branch_loc *f = &s->locs[s->edge_loc[2 * i]], *t = &s->locs[s->edge_loc[2 * i + 1]];
		uint64_t na = e->count - e->mispredicts - e->predicted;
		if (e->predicted)
			rows[n++] = (struct branch_sym_edge){ f, t, BRANCH_PRED_N, e->predicted };
		if (e->mispredicts)
			rows[n++] = (struct branch_sym_edge){ f, t, BRANCH_PRED_Y, e->mispredicts };
		if (na)
			rows[n++] = (struct branch_sym_edge){ f, t, BRANCH_PRED_NA, na };
	}
	if (n > 1)
		qsort(rows, n, sizeof(*rows), row_by_key);
	for (size_t i = 0; i < n; i++) {
		if (k && rows[k - 1].from->group == rows[i].from->group && rows[k - 1].to->group == rows[i].to->group &&
		    rows[k - 1].flag == rows[i].flag) {
			rows[k - 1].count += rows[i].count;
			continue;
		}
		rows[k++] = rows[i];
	}
	if (k > 1)
		qsort(rows, k, sizeof(*rows), row_by_count);
	s->sym_edges = rows;
	s->nr_sym_edges = k;
	return 0;
}

void ba_symbols_release(struct branch_symbols *s)
{
	tdp_free(s->locs);
	tdp_free(s->sym_edges);
	tdp_free(s->edge_loc);
	s->edge_loc = NULL;
	s->locs = NULL;
	s->nr_locs = 0;
	s->sym_edges = NULL;
	s->nr_sym_edges = 0;
}
