/*
 * match.c: sites and edges of two builds paired without their addresses (see
 * diff.h for the passes). Each pass gives every unmatched item a key string,
 * sorts both sides by (key, rank) and merges them: equal keys pair up in rank
 * order. O(n log n) per pass.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "diff/diff-internal.h"

#define NO_MATCH SIZE_MAX

struct keyed {
	char *key;
	size_t idx;
};

static int cmp_keyed(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;
	int c = strcmp(a->key, b->key);

	return c ? c : (a->idx > b->idx) - (a->idx < b->idx);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* A site's key in a pass; false when it has none there. */
static bool site_key(const struct tdoc_site *s, enum diff_match pass, struct strbuf *sb)
{
	strbuf_reset(sb);
	switch (pass) {
	case DIFF_MATCH_LOCATION:
		if (!s->file || !s->line)
			return false;
		strbuf_addf(sb, "%s\x1f%" PRIu64 "\x1f%s", base_name(s->file), s->line, s->function ? s->function : "");
		return true;
	case DIFF_MATCH_OFFSET:
		if (!s->function || !s->has_offset)
			return false;
		strbuf_addf(sb, "%s\x1f%" PRIx64, s->function, s->offset);
		return true;
	case DIFF_MATCH_ADDRESS:
		if (s->function || s->file || !s->has_address)
			return false;
		strbuf_addf(sb, "%" PRIx64, s->address);
		return true;
	default:
		return false;
	}
}

/*
 * One end of an edge: "f" function+offset; "F" the function alone when no site
 * says where it starts (a call's target: its entry, usually); else "a" the
 * address of unresolved code.
 */
static bool edge_end_key(const char *fn, bool has_off, uint64_t off, bool has_addr, uint64_t addr, bool *by_fn,
			 struct strbuf *sb)
{
	if (fn && has_off) {
		strbuf_addf(sb, "f%s+%" PRIx64, fn, off);
		return true;
	}
	if (fn) {
		strbuf_addf(sb, "F%s", fn);
		return true;
	}
	if (!fn && has_addr) {
		strbuf_addf(sb, "a%" PRIx64, addr);
		*by_fn = false;
		return true;
	}
	return false;
}

static bool edge_key(const struct tdoc_edge *e, bool *by_fn, struct strbuf *sb)
{
	strbuf_reset(sb);
	*by_fn = true;
	if (!edge_end_key(e->from_function, e->has_from_offset, e->from_offset, e->has_from, e->from, by_fn, sb))
		return false;
	strbuf_addch(sb, '\x1e');
	return edge_end_key(e->to_function, e->has_to_offset, e->to_offset, e->has_to, e->to, by_fn, sb);
}

/* The keys of the unmatched items of one side (ks[i].key heap). */
struct side {
	struct keyed *ks;
	size_t nr;
};

/* Forget the keys, keeping the array for the next pass. */
static void side_clear(struct side *s)
{
	for (size_t i = 0; i < s->nr; i++)
		tdp_free(s->ks[i].key);
	s->nr = 0;
}

static void side_release(struct side *s)
{
	side_clear(s);
	tdp_free(s->ks);
	s->ks = NULL;
}

static int side_add(struct side *s, size_t idx, struct strbuf *sb, struct tdp_err *err)
{
	char *k = strbuf_failed(sb) ? NULL : tdp_strdup(sb->buf);

	if (!k)
		return tdp_err_oom(err);
	s->ks[s->nr].key = k;
	s->ks[s->nr++].idx = idx;
	return 0;
}

/* Merge two sorted sides: match_a[a] = b and match_b[b] = a for equal keys, in rank order. */
static void merge(const struct side *a, const struct side *b, size_t *match_a, size_t *match_b)
{
	size_t i = 0, j = 0;

	while (i < a->nr && j < b->nr) {
		int c = strcmp(a->ks[i].key, b->ks[j].key);

		if (c < 0) {
			i++;
		} else if (c > 0) {
			j++;
		} else {
			match_a[a->ks[i].idx] = b->ks[j].idx;
			match_b[b->ks[j].idx] = a->ks[i].idx;
			i++;
			j++;
		}
	}
}

static double measure_of(const struct tdoc_site *s, const char *measure)
{
	double v = s && measure ? tdoc_site_count(s, measure) : NAN;

	return isnan(v) ? 0 : v;
}

static void fill_change(double va, double vb, double *delta, double *pct)
{
	*delta = vb - va;
	*pct = va != 0 ? 100.0 * (vb - va) / va : NAN;
}

static int cmp_site(const void *x, const void *y)
{
	const struct diff_site *a = x, *b = y;
	double da = fabs(a->delta), db = fabs(b->delta);
	size_t ra = a->b ? a->b->rank : SIZE_MAX, rb = b->b ? b->b->rank : SIZE_MAX;

	if (da != db)
		return da < db ? 1 : -1;
	if (a->vb != b->vb)
		return a->vb < b->vb ? 1 : -1;
	if (ra != rb)
		return ra < rb ? -1 : 1;
	ra = a->a ? a->a->rank : SIZE_MAX;
	rb = b->a ? b->a->rank : SIZE_MAX;
	return (ra > rb) - (ra < rb);
}

int diff_match_sites(struct diff_result *r, struct tdp_err *err)
{
	static const enum diff_match passes[] = { DIFF_MATCH_LOCATION, DIFF_MATCH_OFFSET, DIFF_MATCH_ADDRESS };
	const struct tdoc *a = r->a, *b = r->b;
	size_t *ma = NULL, *mb = NULL, n = 0;
	enum diff_match *ha = NULL;
	struct side sa = { NULL, 0 }, sb = { NULL, 0 };
	struct strbuf key = STRBUF_INIT;
	int ret = 0;

	if (!a->nr_sites && !b->nr_sites)
		return 0;
	ma = tdp_calloc(a->nr_sites + 1, sizeof(*ma));
	mb = tdp_calloc(b->nr_sites + 1, sizeof(*mb));
	ha = tdp_calloc(a->nr_sites + 1, sizeof(*ha));
	sa.ks = tdp_calloc(a->nr_sites + 1, sizeof(*sa.ks));
	sb.ks = tdp_calloc(b->nr_sites + 1, sizeof(*sb.ks));
	r->sites = tdp_calloc(a->nr_sites + b->nr_sites, sizeof(*r->sites));
	if (!ma || !mb || !ha || !sa.ks || !sb.ks || !r->sites) {
		ret = tdp_err_oom(err);
		goto out;
	}
	for (size_t i = 0; i < a->nr_sites; i++) {
		ma[i] = NO_MATCH;
		ha[i] = DIFF_ONLY_A;
	}
	for (size_t i = 0; i < b->nr_sites; i++)
		mb[i] = NO_MATCH;
	for (size_t p = 0; p < sizeof(passes) / sizeof(passes[0]) && !ret; p++) {
		for (size_t i = 0; i < a->nr_sites && !ret; i++)
			if (ma[i] == NO_MATCH && site_key(&a->sites[i], passes[p], &key))
				ret = side_add(&sa, i, &key, err);
		for (size_t i = 0; i < b->nr_sites && !ret; i++)
			if (mb[i] == NO_MATCH && site_key(&b->sites[i], passes[p], &key))
				ret = side_add(&sb, i, &key, err);
		if (ret)
			break;
		qsort(sa.ks, sa.nr, sizeof(*sa.ks), cmp_keyed);
		qsort(sb.ks, sb.nr, sizeof(*sb.ks), cmp_keyed);
		merge(&sa, &sb, ma, mb);
		for (size_t i = 0; i < a->nr_sites; i++)
			if (ma[i] != NO_MATCH && ha[i] == DIFF_ONLY_A)
				ha[i] = passes[p];
		side_clear(&sa);
		side_clear(&sb);
	}
	if (ret)
		goto out;
	for (size_t i = 0; i < a->nr_sites; i++) {
		struct diff_site *s = &r->sites[n++];

		s->a = &a->sites[i];
		s->b = ma[i] != NO_MATCH ? &b->sites[ma[i]] : NULL;
		s->how = s->b ? ha[i] : DIFF_ONLY_A;
		r->sites_matched += s->b != NULL;
		r->sites_only_a += s->b == NULL;
	}
	for (size_t i = 0; i < b->nr_sites; i++) {
		struct diff_site *s;

		if (mb[i] != NO_MATCH)
			continue;
		s = &r->sites[n++];
		s->b = &b->sites[i];
		s->how = DIFF_ONLY_B;
		r->sites_only_b++;
	}
	for (size_t i = 0; i < n; i++) {
		struct diff_site *s = &r->sites[i];

		s->va = measure_of(s->a, r->measure);
		s->vb = measure_of(s->b, r->measure);
		fill_change(s->va, s->vb, &s->delta, &s->pct);
	}
	r->nr_sites = n;
	qsort(r->sites, n, sizeof(*r->sites), cmp_site);
	while (r->nr_sites_nonzero < n && (r->sites[r->nr_sites_nonzero].va != 0 || r->sites[r->nr_sites_nonzero].vb != 0))
		r->nr_sites_nonzero++;
out:
	side_release(&sa);
	side_release(&sb);
	strbuf_release(&key);
	tdp_free(ma);
	tdp_free(mb);
	tdp_free(ha);
	return ret;
}

static double edge_measure(const struct tdoc_edge *e, bool mispredicts)
{
	double v;

	if (!e)
		return 0;
	v = mispredicts ? e->mispredicts : e->count;
	return isnan(v) ? 0 : v;
}

static int cmp_edge(const void *x, const void *y)
{
	const struct diff_edge *a = x, *b = y;
	double da = fabs(a->delta), db = fabs(b->delta);

	if (da != db)
		return da < db ? 1 : -1;
	if (a->vb != b->vb)
		return a->vb < b->vb ? 1 : -1;
	return (a->va < b->va) - (a->va > b->va);
}

int diff_match_edges(struct diff_result *r, struct tdp_err *err)
{
	const struct tdoc *a = r->a, *b = r->b;
	size_t *ma = NULL, *mb = NULL, n = 0;
	enum diff_match *ha = NULL;
	struct side sa = { NULL, 0 }, sb = { NULL, 0 };
	struct strbuf key = STRBUF_INIT;
	/*
	 * Edges are compared by mispredicts only when both documents recorded them
	 * (a recording without mispredict flags has null ones), else by count.
	 */
	bool a_misp = !a->nr_edges, b_misp = !b->nr_edges, mispredicts, by_fn;
	int ret = 0;

	if (!a->nr_edges && !b->nr_edges)
		return 0;
	ma = tdp_calloc(a->nr_edges + 1, sizeof(*ma));
	mb = tdp_calloc(b->nr_edges + 1, sizeof(*mb));
	ha = tdp_calloc(a->nr_edges + 1, sizeof(*ha));
	sa.ks = tdp_calloc(a->nr_edges + 1, sizeof(*sa.ks));
	sb.ks = tdp_calloc(b->nr_edges + 1, sizeof(*sb.ks));
	r->edges = tdp_calloc(a->nr_edges + b->nr_edges, sizeof(*r->edges));
	if (!ma || !mb || !ha || !sa.ks || !sb.ks || !r->edges) {
		ret = tdp_err_oom(err);
		goto out;
	}
	for (size_t i = 0; i < a->nr_edges; i++) {
		ma[i] = NO_MATCH;
		a_misp |= !isnan(a->edges[i].mispredicts);
		if (edge_key(&a->edges[i], &by_fn, &key)) {
			ha[i] = by_fn ? DIFF_MATCH_OFFSET : DIFF_MATCH_ADDRESS;
			if ((ret = side_add(&sa, i, &key, err)))
				goto out;
		}
	}
	for (size_t i = 0; i < b->nr_edges; i++) {
		mb[i] = NO_MATCH;
		b_misp |= !isnan(b->edges[i].mispredicts);
		if (edge_key(&b->edges[i], &by_fn, &key) && (ret = side_add(&sb, i, &key, err)))
			goto out;
	}
	mispredicts = a_misp && b_misp;
	r->edge_measure = mispredicts ? "mispredicts" : "count";
	qsort(sa.ks, sa.nr, sizeof(*sa.ks), cmp_keyed);
	qsort(sb.ks, sb.nr, sizeof(*sb.ks), cmp_keyed);
	merge(&sa, &sb, ma, mb);
	for (size_t i = 0; i < a->nr_edges; i++) {
		struct diff_edge *e = &r->edges[n++];

		e->a = &a->edges[i];
		e->b = ma[i] != NO_MATCH ? &b->edges[ma[i]] : NULL;
		e->how = e->b ? ha[i] : DIFF_ONLY_A;
		r->edges_matched += e->b != NULL;
	}
	for (size_t i = 0; i < b->nr_edges; i++)
		if (mb[i] == NO_MATCH) {
			r->edges[n].b = &b->edges[i];
			r->edges[n++].how = DIFF_ONLY_B;
		}
	for (size_t i = 0; i < n; i++) {
		struct diff_edge *e = &r->edges[i];

		e->va = edge_measure(e->a, mispredicts);
		e->vb = edge_measure(e->b, mispredicts);
		fill_change(e->va, e->vb, &e->delta, &e->pct);
	}
	r->nr_edges = n;
	qsort(r->edges, n, sizeof(*r->edges), cmp_edge);
	while (r->nr_edges_nonzero < n && (r->edges[r->nr_edges_nonzero].va != 0 || r->edges[r->nr_edges_nonzero].vb != 0))
		r->nr_edges_nonzero++;
out:
	side_release(&sa);
	side_release(&sb);
	strbuf_release(&key);
	tdp_free(ma);
	tdp_free(mb);
	tdp_free(ha);
	return ret;
}
