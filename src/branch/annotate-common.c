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

static int loc_by_addr(const void *pa, const void *pb)
{
	const struct branch_loc *a = pa, *b = pb;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

int ba_locs_collect(const struct branch_result *r, struct branch_symbols *s, struct tdp_err *err)
{
	size_t n = 0, cap = r->nr_edges * 2 + r->nr_blocks * 2, k;
	struct branch_loc *l;

	/* sites are edge sources: the edges cover them. Edges come first, so that
	 * after the stable dedup below an address keeps an edge's pid. */
	l = tdp_calloc(cap ? cap : 1, sizeof(*l));
	if (!l)
		return tdp_err_oom(err);
	for (size_t i = 0; i < r->nr_edges; i++) {
		l[n].addr = r->edges[i].from;
		l[n++].pid = r->edges[i].pid;
		l[n].addr = r->edges[i].to;
		l[n++].pid = r->edges[i].pid;
	}
	for (size_t i = 0; i < r->nr_blocks; i++) {
		l[n].addr = r->blocks[i].start;
		l[n++].pid = r->blocks[i].pid;
		l[n].addr = r->blocks[i].end;
		l[n++].pid = r->blocks[i].pid;
	}
	/* qsort is not stable: order equal addresses by their position first */
	for (size_t i = 0; i < n; i++)
		l[i].group = (uint32_t)i;
	if (n > 1)
		qsort(l, n, sizeof(*l), loc_by_addr);
	k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && l[k - 1].addr == l[i].addr) {
			if (l[i].group < l[k - 1].group) {
				l[k - 1].pid = l[i].pid;
				l[k - 1].group = l[i].group;
			}
			continue;
		}
		l[k++] = l[i];
	}
	for (size_t i = 0; i < k; i++)
		l[i].group = (uint32_t)i;
	s->locs = l;
	s->nr_locs = k;
	return 0;
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
		const struct branch_loc *f = branch_symbols_find(s, e->from), *t = branch_symbols_find(s, e->to);
		uint64_t na = e->count - e->mispredicts - e->predicted;

		if (!f || !t)
			continue; /* cannot happen: ba_locs_collect() took every edge */
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
	s->locs = NULL;
	s->nr_locs = 0;
	s->sym_edges = NULL;
	s->nr_sym_edges = 0;
}
