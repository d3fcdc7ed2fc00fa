/* byfunc.c: the simulation's sites summed per function, each with its own top-down (byfunc.h). */
#include "diagnose/byfunc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/str.h"
#include "model/model.h"

struct acc {
	uint32_t fn;
	struct sim_cycles cycles;
	double total;
	uint64_t ir;
	size_t best[SIM_NR_BUCKETS]; /* per bucket: the site with the most of its cycles */
	bool have;
};

static int by_cycles(const void *a, const void *b)
{
	const struct acc *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->fn < y->fn ? -1 : x->fn > y->fn;
}

static const char *const l2_keys[BYFUNC_L2_NR] = {
	"fetch_latency", "fetch_bandwidth", "branch_mispredicts", "machine_clears",
	"memory_bound", "core_bound", "light_operations", "heavy_operations",
};

const char *byfunc_l2_key(size_t i)
{
	return i < BYFUNC_L2_NR ? l2_keys[i] : NULL;
}

void byfunc_release(struct byfunc_result *r)
{
	for (size_t i = 0; r->v && i < r->nr; i++) {
		tdp_free(r->v[i].name);
		tdp_free(r->v[i].dso);
		tdp_free(r->v[i].file);
	}
	for (size_t i = 0; i < BYFUNC_MAX_EVENTS; i++)
		tdp_free(r->events[i]);
	tdp_free(r->v);
	memset(r, 0, sizeof(*r));
}

/* Level 1 of one function, its level 2 and its dominant node as the whole program's are chosen. */
static void classify(struct byfunc_fn *f, const struct acc *a, double width, struct metric_tree *t)
{
	double c = a->total;
	const char *key;

	f->level1.retiring = 100 * a->cycles.v[SIM_RETIRING] / c;
	f->level1.bad_speculation = 100 * a->cycles.v[SIM_BAD_SPECULATION] / c;
	f->level1.frontend_bound = 100 * a->cycles.v[SIM_FRONTEND_BOUND] / c;
	f->level1.backend_bound = 100 * a->cycles.v[SIM_BACKEND_BOUND] / c;
	model_tree_from_sim(&f->level1, width, 2, t);
	model_classify(t);
	for (size_t i = 0; i < BYFUNC_L2_NR; i++) {
		const struct metric_node *n = metric_tree_find(t, l2_keys[i]);

		f->level2[i] = n ? n->value : NAN;
	}
	/* the tree's keys are static (the sim model's table) */
	key = t->verdict.category;
	f->dominant = key;
	f->dominant_node = t->verdict.node && !isnan(t->verdict.node_value) ? t->verdict.node : NULL;
}

static enum sim_bucket bucket_of(const char *key)
{
	for (int b = 0; b < SIM_NR_BUCKETS; b++)
		if (key && !strcmp(key, sim_bucket_name((enum sim_bucket)b)))
			return (enum sim_bucket)b;
	return SIM_RETIRING;
}

int byfunc_from_sites(const struct sim_site *sites, size_t nr, const struct sim_profile *p, double width,
		      struct byfunc_result *out, struct tdp_err *err)
{
	struct acc *acc = NULL;
	struct metric_tree *t = NULL;
	size_t *slot = tdp_calloc(p->names_nr + 1, sizeof(*slot)); /* name index + 1 -> accumulator + 1 */
	size_t nacc = 0, cap = 0;
	double total = 0, kept = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->source = BYFUNC_SIM;
	out->model = model_sim()->name;
	out->level = 2;
	if (!slot)
		return tdp_err_oom(err);
	/* one accumulator per function name index (SIM_NO_NAME and bad indices share the last slot) */
	for (size_t i = 0; i < nr; i++) {
		const struct sim_site *s = &sites[i];
		double c = 0;
		size_t k;

		for (int b = 0; b < SIM_NR_BUCKETS; b++)
			c += s->cycles.v[b];
		if (!(c > 0))
			continue;
		size_t si = s->fn < p->names_nr ? s->fn : p->names_nr;

		k = slot[si] ? slot[si] - 1 : nacc;
		if (k == nacc) {
			if (nacc == cap) {
				size_t ncap = cap ? 2 * cap : 64;
				struct acc *n = tdp_reallocarray(acc, ncap, sizeof(*acc));

				if (!n) {
					rc = tdp_err_oom(err);
					goto out;
				}
				acc = n;
				cap = ncap;
			}
			memset(&acc[nacc], 0, sizeof(acc[nacc]));
			acc[nacc].fn = s->fn < p->names_nr ? s->fn : SIM_NO_NAME;
			slot[si] = ++nacc;
		}
		for (int b = 0; b < SIM_NR_BUCKETS; b++) {
			if (!acc[k].have || s->cycles.v[b] > sites[acc[k].best[b]].cycles.v[b])
				acc[k].best[b] = i;
			acc[k].cycles.v[b] += s->cycles.v[b];
		}
		acc[k].have = true;
		acc[k].total += c;
		acc[k].ir += s->cost.v[SIM_IR];
		total += c;
	}
	if (!nacc) {
		rc = tdp_err_set(err, TDP_EANALYSIS, "the simulation charged no cycles to any function");
		goto out;
	}
	qsort(acc, nacc, sizeof(*acc), by_cycles);
	out->nr_functions = nacc;
	out->total_cycles = total;
	out->v = tdp_calloc(nacc < BYFUNC_MAX ? nacc : BYFUNC_MAX, sizeof(*out->v));
	t = tdp_calloc(1, sizeof(*t));
	if (!out->v || !t) {
		rc = tdp_err_oom(err);
		goto out;
	}
	for (size_t k = 0; k < nacc && out->nr < BYFUNC_MAX && (out->nr == 0 || kept < BYFUNC_COVER); k++) {
		struct byfunc_fn *f = &out->v[out->nr];
		const struct sim_site *g;
		enum sim_bucket b;

		f->name = tdp_strdup(sim_profile_name(p, acc[k].fn));
		if (!f->name) {
			rc = tdp_err_oom(err);
			goto out;
		}
		out->nr++;
		f->cycles = acc[k].total;
		f->share_pct = 100 * acc[k].total / total;
		f->instructions = acc[k].ir;
		f->has_instructions = true;
		classify(f, &acc[k], width, t);
		b = bucket_of(f->dominant);
		g = &sites[acc[k].best[b]];
		f->line = g->line;
		f->line_pct = acc[k].cycles.v[b] > 0 ? 100 * g->cycles.v[b] / acc[k].cycles.v[b] : 0;
		if (g->file != SIM_NO_NAME && !(f->file = tdp_strdup(sim_profile_name(p, g->file)))) {
			rc = tdp_err_oom(err);
			goto out;
		}
		kept += f->share_pct;
	}
	out->rest_pct = kept < 100 ? 100 - kept : 0;
out:
	if (rc)
		byfunc_release(out);
	tdp_free(acc);
	tdp_free(t);
	tdp_free(slot);
	return rc;
}
