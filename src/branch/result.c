/* result.c: from the aggregator's tables to ranked arrays (branch.h). */
#include "branch/branch-internal.h"
#include "base/alloc.h"
#include "base/err.h"

#include <stdlib.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

/* Buckets of the view by type: types 0..14, then EXTEND_ABI + new_type 0..15. */
#define TYPE_BUCKETS 32

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int block_by_cycles(const void *pa, const void *pb)
{
	const struct branch_block *a = pa, *b = pb;

	if (a->cycles != b->cycles)
		return a->cycles > b->cycles ? -1 : 1;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return a->start != b->start ? cmp_u64(a->start, b->start) : cmp_u64(a->end, b->end);
}

static int site_by_mispredicts(const void *pa, const void *pb)
{
	const struct branch_site *a = pa, *b = pb;

	if (a->mispredicts != b->mispredicts)
		return a->mispredicts > b->mispredicts ? -1 : 1;
	if (a->executions != b->executions)
		return a->executions > b->executions ? -1 : 1;
	return cmp_u64(a->addr, b->addr);
}

static int site_by_executions(const void *pa, const void *pb)
{
	const struct branch_site *a = pa, *b = pb;

	if (a->executions != b->executions)
		return a->executions > b->executions ? -1 : 1;
	if (a->mispredicts != b->mispredicts)
		return a->mispredicts > b->mispredicts ? -1 : 1;
	return cmp_u64(a->addr, b->addr);
}

static int site_by_rate(const void *pa, const void *pb)
{
	const struct branch_site *a = pa, *b = pb;
	/* compare a.m/a.e with b.m/b.e exactly: a.m*b.e vs b.m*a.e in 128 bits */
	u128 l = (u128)a->mispredicts * b->executions;
	u128 r = (u128)b->mispredicts * a->executions;

	if (l != r)
		return l > r ? -1 : 1;
	return site_by_mispredicts(pa, pb);
}

void branch_sites_sort(struct branch_site *sites, size_t nr, enum branch_sort by)
{
	int (*cmp)(const void *, const void *) = site_by_mispredicts;

	if (by == BRANCH_SORT_EXECUTIONS)
		cmp = site_by_executions;
	else if (by == BRANCH_SORT_RATE)
		cmp = site_by_rate;
	if (nr > 1)
		qsort(sites, nr, sizeof(*sites), cmp);
}

bool branch_sort_parse(const char *s, enum branch_sort *out)
{
	if (!strcmp(s, "mispredicts"))
		*out = BRANCH_SORT_MISPREDICTS;
	else if (!strcmp(s, "executions"))
		*out = BRANCH_SORT_EXECUTIONS;
	else if (!strcmp(s, "rate"))
		*out = BRANCH_SORT_RATE;
	else
		return false;
	return true;
}

double branch_site_rate(const struct branch_site *s)
{
	return s->executions ? (double)s->mispredicts / (double)s->executions : 0.0;
}

double branch_site_share(const struct branch_site *s, const struct branch_counts *c)
{
	return c->mispredicted_entries ? (double)s->mispredicts / (double)c->mispredicted_entries : 0.0;
}

double branch_block_avg_cycles(const struct branch_block *b)
{
	return b->timed ? (double)b->cycles / (double)b->timed : 0.0;
}

double branch_block_ipc(const struct branch_block *b, int64_t insns)
{
	double avg = branch_block_avg_cycles(b);

	return insns < 0 || avg <= 0 ? -1.0 : (double)insns / avg;
}

const char *branch_type_name(unsigned type, unsigned new_type)
{
	const char *n = perfdata_branch_type_name(type, new_type);

	return *n ? n : "UNKNOWN";
}

static unsigned type_bucket(unsigned type, unsigned new_type)
{
	if (type < BRANCH_TYPE_EXTEND_ABI)
		return type;
	return BRANCH_TYPE_EXTEND_ABI + (new_type & 15);
}

int branch_result_retype(struct branch_result *r, struct tdp_err *err)
{
	struct branch_type_row rows[TYPE_BUCKETS], *out;
	size_t nr = 0;

	memset(rows, 0, sizeof(rows));
	for (size_t i = 0; i < r->nr_sites; i++) {
		const struct branch_site *s = &r->sites[i];
		struct branch_type_row *t = &rows[type_bucket(s->type, s->new_type)];

		t->type = s->type;
		t->new_type = s->type == BRANCH_TYPE_EXTEND_ABI ? s->new_type : 0;
		t->sites++;
		t->executions += s->executions;
		t->mispredicts += s->mispredicts;
	}
	for (size_t i = 0; i < TYPE_BUCKETS; i++)
		nr += rows[i].sites != 0;
	out = tdp_calloc(nr ? nr : 1, sizeof(*out));
	if (!out)
		return tdp_err_oom(err);
	nr = 0;
	for (size_t i = 0; i < TYPE_BUCKETS; i++)
		if (rows[i].sites) {
			struct branch_type_row *t = &out[nr++];

			*t = rows[i];
			t->rate = t->executions ? (double)t->mispredicts / (double)t->executions : 0.0;
			t->share = r->counts.mispredicted_entries
					   ? (double)t->mispredicts / (double)r->counts.mispredicted_entries
					   : 0.0;
		}
	/* by mispredicts, then executions; stable on the type number */
	for (size_t i = 1; i < nr; i++) {
		struct branch_type_row t = out[i];
		size_t j = i;

		while (j > 0 && (out[j - 1].mispredicts < t.mispredicts ||
				 (out[j - 1].mispredicts == t.mispredicts && out[j - 1].executions < t.executions))) {
			out[j] = out[j - 1];
			j--;
		}
		out[j] = t;
	}
	tdp_free(r->types);
	r->types = out;
	r->nr_types = nr;
	return 0;
}

/* Sort keys: small, so that sorting moves 16 or 32 bytes instead of an edge. */
struct from_key {
	uint64_t from;
	uint64_t idx;
};

struct count_key {
	uint64_t count, from, to, idx;
};

static int from_key_cmp(const void *pa, const void *pb)
{
	const struct from_key *a = pa, *b = pb;

	return a->from != b->from ? cmp_u64(a->from, b->from) : cmp_u64(a->idx, b->idx);
}

/* perf's order: overhead descending, then the sort keys (source, target) ascending */
static int count_key_cmp(const void *pa, const void *pb)
{
	const struct count_key *a = pa, *b = pb;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return a->from != b->from ? cmp_u64(a->from, b->from) : cmp_u64(a->to, b->to);
}

/* Group the edges by source into sites. */
static int make_sites(struct branch_result *r, struct tdp_err *err)
{
	struct from_key *k = tdp_calloc(r->nr_edges + 1, sizeof(*k));
	size_t nr = 0;

	if (!k)
		return tdp_err_oom(err);
	for (size_t i = 0; i < r->nr_edges; i++)
		k[i] = (struct from_key){ r->edges[i].from, i };
	if (r->nr_edges > 1)
		qsort(k, r->nr_edges, sizeof(*k), from_key_cmp);
	for (size_t i = 0; i < r->nr_edges; i++)
		nr += i == 0 || k[i].from != k[i - 1].from;
	r->sites = tdp_calloc(nr ? nr : 1, sizeof(*r->sites));
	if (!r->sites) {
		tdp_free(k);
		return tdp_err_oom(err);
	}
	for (size_t i = 0, n = 0; i < r->nr_edges; n++) {
		struct branch_site *s = &r->sites[n];
		uint64_t best = 0, best_typed = 0;

		s->addr = k[i].from;
		for (; i < r->nr_edges && k[i].from == s->addr; i++) {
			const struct branch_edge *e = &r->edges[k[i].idx];

			s->executions += e->count;
			s->mispredicts += e->mispredicts;
			s->predicted += e->predicted;
			s->not_taken += e->not_taken;
			s->nr_targets++;
			if (e->count > best) {
				best = e->count;
				s->pid = e->pid;
			}
			if (e->type && e->count > best_typed) {
				best_typed = e->count;
				s->type = e->type;
				s->new_type = e->new_type;
				s->type_source = BRANCH_TYPE_FROM_RECORD;
			}
		}
		r->nr_sites = n + 1;
	}
	tdp_free(k);
	branch_sites_sort(r->sites, r->nr_sites, BRANCH_SORT_MISPREDICTS);
	return 0;
}

/* Rank the edges by count (then source, target) through small keys and one permutation. */
static int rank_edges(struct branch_result *r, struct tdp_err *err)
{
	struct count_key *k;
	struct branch_edge *sorted;

	if (r->nr_edges < 2)
		return 0;
	k = tdp_calloc(r->nr_edges, sizeof(*k));
	sorted = tdp_calloc(r->nr_edges, sizeof(*sorted));
	if (!k || !sorted) {
		tdp_free(k);
		tdp_free(sorted);
		return tdp_err_oom(err);
	}
	for (size_t i = 0; i < r->nr_edges; i++)
		k[i] = (struct count_key){ r->edges[i].count, r->edges[i].from, r->edges[i].to, i };
	qsort(k, r->nr_edges, sizeof(*k), count_key_cmp);
	for (size_t i = 0; i < r->nr_edges; i++)
		sorted[i] = r->edges[k[i].idx];
	tdp_free(k);
	tdp_free(r->edges);
	r->edges = sorted;
	return 0;
}

int branch_agg_finish(const struct branch_agg *a, struct branch_result *out, struct tdp_err *err)
{
	struct branch_result r = BRANCH_RESULT_INIT;
	int rc;

	r.counts = a->counts;
	r.has_timing = a->has_timing;
	r.edges = tdp_calloc(a->edge_nr ? a->edge_nr : 1, sizeof(*r.edges));
	r.blocks = tdp_calloc(a->block_nr ? a->block_nr : 1, sizeof(*r.blocks));
	if (!r.edges || !r.blocks) {
		rc = tdp_err_oom(err);
		goto fail;
	}
	for (size_t i = 0; i < a->edge_cap; i++) {
		const struct bt_edge *s = &a->edges[i];
		const struct bt_edge_cold *c = &a->edges_cold[i];
		uint64_t misp = c->mispred_hi + s->mispred;

		if (!s->count)
			continue;
		/* counted here, once per edge, rather than once per entry */
		if (!s->from || !s->to)
			r.counts.zero_entries += s->count;
		r.counts.mispredicted_entries += misp;
		r.counts.predicted_entries += s->count - misp - c->flagless;
		r.counts.flagless_entries += c->flagless;
		if (s->type)
			r.counts.typed_entries += s->count;
		r.edges[r.nr_edges++] = (struct branch_edge){
			.from = s->from, .to = s->to, .count = s->count, .mispredicts = misp,
			.predicted = s->count - misp - c->flagless, .not_taken = c->not_taken, .pid = c->pid,
			.type = s->type, .new_type = s->new_type,
		};
	}
	for (size_t i = 0; i < a->block_cap; i++) {
		const struct bt_block *s = &a->blocks[i];

		if (!s->count)
			continue;
		r.blocks[r.nr_blocks++] = (struct branch_block){
			.start = s->start, .end = s->end, .count = s->count, .timed = s->timed,
			.cycles = s->cycles, .pid = s->pid,
		};
	}
	r.has_mispred_flags = r.counts.mispredicted_entries + r.counts.predicted_entries > 0;
	r.has_types = r.counts.typed_entries > 0;
	rc = make_sites(&r, err);
	if (!rc)
		rc = rank_edges(&r, err);
	if (rc)
		goto fail;
	if (r.nr_blocks > 1)
		qsort(r.blocks, r.nr_blocks, sizeof(*r.blocks), block_by_cycles);
	rc = branch_result_retype(&r, err);
	if (rc)
		goto fail;
	*out = r;
	return 0;
fail:
	branch_result_release(&r);
	*out = (struct branch_result)BRANCH_RESULT_INIT;
	return rc;
}

void branch_result_release(struct branch_result *r)
{
	tdp_free(r->sites);
	tdp_free(r->edges);
	tdp_free(r->blocks);
	tdp_free(r->types);
	*r = (struct branch_result)BRANCH_RESULT_INIT;
}
