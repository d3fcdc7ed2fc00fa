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
	double total;
	size_t nr;         /* its sites */
	size_t first;      /* its sites' indices: idx[first .. first + nr) */
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

/*
 * One function's top-down: the estimate of its own sites (sim_estimate_sites(), the
 * block model's level 2 with core), its tree and its dominant node as the whole
 * program's are chosen.
 */
static void classify(struct byfunc_fn *f, const struct sim_site *v, size_t nr, const struct sim_machine *m,
		     const struct sim_core *core, struct metric_tree *t)
{
	struct sim_estimate est;

	sim_estimate_sites(v, nr, m, core, &est);
	f->level1 = est.topdown;
	model_tree_from_sim(&est.topdown, m->width, 2, t);
	model_classify(t);
	for (size_t i = 0; i < BYFUNC_L2_NR; i++) {
		const struct metric_node *n = metric_tree_find(t, l2_keys[i]);

		f->level2[i] = n ? n->value : NAN;
	}
	/* the tree's keys are static (the sim model's table) */
	f->dominant = t->verdict.category;
	f->dominant_node = t->verdict.node && !isnan(t->verdict.node_value) ? t->verdict.node : NULL;
}

/* A site's cycles in the function's dominant node (its level-2 node where the estimate splits it). */
static double weight(const struct sim_site *s, const char *bucket, const char *node)
{
	if (!bucket)
		return 0;
	if (!strcmp(bucket, "bad_speculation"))
		return s->cycles.v[SIM_BAD_SPECULATION];
	if (!strcmp(bucket, "frontend_bound"))
		return !node ? s->cycles.v[SIM_FRONTEND_BOUND]
		       : !strcmp(node, "fetch_bandwidth") ? s->fetch_bw
							  : s->cycles.v[SIM_FRONTEND_BOUND] - s->fetch_bw;
	if (!strcmp(bucket, "backend_bound") && node && !strcmp(node, "core_bound")) {
		/* the block model shares a block's stall evenly among its instructions; the loop's own compare
		 * and branch are not what a dependency chain waits on: a line's branches do not count */
		double ir = (double)s->cost.v[SIM_IR];

		return ir > 0 ? s->core * (1 - (double)sim_site_branches(s) / ir) : s->core;
	}
	if (!strcmp(bucket, "backend_bound"))
		return !node ? s->cycles.v[SIM_BACKEND_BOUND] : s->cycles.v[SIM_BACKEND_BOUND] - s->core;
	return !node ? s->cycles.v[SIM_RETIRING]
	       : !strcmp(node, "heavy_operations") ? s->heavy : s->cycles.v[SIM_RETIRING] - s->heavy;
}

int byfunc_from_sites(const struct sim_site *sites, size_t nr, const struct sim_profile *p, const struct sim_machine *m,
		      const struct sim_core *core, struct byfunc_result *out, struct tdp_err *err)
{
	struct acc *acc = NULL;
	struct metric_tree *t = NULL;
	struct sim_site *mine = NULL;  /* one function's sites, for its estimate */
	size_t *slot = tdp_calloc(p->names_nr + 1, sizeof(*slot)); /* name index + 1 -> accumulator + 1 */
	size_t *fn_of = tdp_calloc(nr ? nr : 1, sizeof(*fn_of));  /* site -> accumulator + 1 (0: no cycles) */
	size_t *idx = tdp_calloc(nr ? nr : 1, sizeof(*idx));
	size_t nacc = 0, cap = 0;
	double total = 0, kept = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->source = BYFUNC_SIM;
	out->model = model_sim()->name;
	out->level = 2;
	if (!slot || !fn_of || !idx) {
		rc = tdp_err_oom(err);
		goto out;
	}
	/* one accumulator per function name index (SIM_NO_NAME and bad indices share the last slot) */
	for (size_t i = 0; i < nr; i++) {
		const struct sim_site *s = &sites[i];
		double c = 0;
		size_t k, si = s->fn < p->names_nr ? s->fn : p->names_nr;

		for (int b = 0; b < SIM_NR_BUCKETS; b++)
			c += s->cycles.v[b];
		if (!(c > 0))
			continue;
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
		acc[k].have = true;
		acc[k].total += c;
		acc[k].nr++;
		fn_of[i] = k + 1;
		total += c;
	}
	if (!nacc) {
		rc = tdp_err_set(err, TDP_EANALYSIS, "the simulation charged no cycles to any function");
		goto out;
	}
	/* the sites of each function, together (acc[k].first, before the sort reorders acc) */
	for (size_t k = 0, at = 0; k < nacc; at += acc[k].nr, k++)
		acc[k].first = at;
	{
		size_t *fill = tdp_calloc(nacc, sizeof(*fill));

		if (!fill) {
			rc = tdp_err_oom(err);
			goto out;
		}
		for (size_t i = 0; i < nr; i++)
			if (fn_of[i]) {
				size_t k = fn_of[i] - 1;

				idx[acc[k].first + fill[k]++] = i;
			}
		tdp_free(fill);
	}
	qsort(acc, nacc, sizeof(*acc), by_cycles);
	out->nr_functions = nacc;
	out->total_cycles = total;
	out->v = tdp_calloc(nacc < BYFUNC_MAX ? nacc : BYFUNC_MAX, sizeof(*out->v));
	t = tdp_calloc(1, sizeof(*t));
	{
		size_t most = 1; /* the sites of the function with the most: mine holds one function's */

		for (size_t k = 0; k < nacc; k++)
			most = acc[k].nr > most ? acc[k].nr : most;
		mine = tdp_reallocarray(NULL, most, sizeof(*mine)); /* each filled before it is read */
	}
	if (!out->v || !t || !mine) {
		rc = tdp_err_oom(err);
		goto out;
	}
	for (size_t k = 0; k < nacc && out->nr < BYFUNC_MAX && (out->nr == 0 || kept < BYFUNC_COVER); k++) {
		struct byfunc_fn *f = &out->v[out->nr];
		const struct sim_site *g = NULL;
		double wsum = 0, wbest = -1;

		f->name = tdp_strdup(sim_profile_name(p, acc[k].fn));
		if (!f->name) {
			rc = tdp_err_oom(err);
			goto out;
		}
		out->nr++;
		f->cycles = acc[k].total;
		f->share_pct = 100 * acc[k].total / total;
		f->has_instructions = true;
		for (size_t j = 0; j < acc[k].nr; j++) {
			mine[j] = sites[idx[acc[k].first + j]];
			f->instructions += mine[j].cost.v[SIM_IR];
		}
		classify(f, mine, acc[k].nr, m, core, t);
		/*
		 * The guilty line: the most cycles of the dominant node. The block model shares a block's
		 * stall evenly among its instructions, so lines of one block can tie: the line without a
		 * branch (the chain, not the loop's control), then with the heavier instructions (a
		 * divide's µops), is then the one that holds the chain up.
		 */
		for (size_t j = 0; j < acc[k].nr; j++) {
			double w = weight(&mine[j], f->dominant, f->dominant_node);
			bool tie = g && fabs(w - wbest) <= 1e-9 * fabs(wbest);

			wsum += w > 0 ? w : 0;
			if ((!tie && w > wbest) ||
			    (tie && (sim_site_branches(&mine[j]) < sim_site_branches(g) ||
				     (sim_site_branches(&mine[j]) == sim_site_branches(g) && mine[j].heavy > g->heavy)))) {
				wbest = w;
				g = &sites[idx[acc[k].first + j]];
			}
		}
		f->line = g ? g->line : 0;
		f->line_pct = wsum > 0 ? 100 * wbest / wsum : 0;
		if (g && g->file != SIM_NO_NAME && !(f->file = tdp_strdup(sim_profile_name(p, g->file)))) {
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
	tdp_free(mine);
	tdp_free(slot);
	tdp_free(fn_of);
	tdp_free(idx);
	return rc;
}
