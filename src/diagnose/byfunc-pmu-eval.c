/* byfunc-pmu-eval.c: the model over each function's group reads, the ranking and the guilty line (byfunc-pmu.h). */
#include "diagnose/byfunc-pmu-internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"

/* Evaluate mc over v into t (classified). Returns 0 or TDP_ENOMEM. */
static int evaluate(const struct byfunc_pmu *bp, const struct model_compiled *mc, const struct model_eval_opts *eo,
		    const uint64_t *v, struct metric_tree *t, struct tdp_err *err)
{
	struct countset cs = COUNTSET_INIT;
	int ret = bfp_as_counts(bp, v, &cs, err);

	if (!ret && (ret = model_eval(mc, &cs, eo, t, NULL)) == TDP_EANALYSIS)
		ret = 0; /* nothing measurable: every node NAN with its reason */
	if (ret == TDP_ENOMEM)
		tdp_err_oom(err);
	if (!ret)
		model_classify(t);
	countset_release(&cs);
	return ret;
}

static int by_leader(const void *pa, const void *pb, void *arg)
{
	const struct bfn *a = *(const struct bfn *const *)pa, *b = *(const struct bfn *const *)pb;
	size_t l = *(const size_t *)arg;

	if (a->v[l] != b->v[l])
		return a->v[l] > b->v[l] ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int by_line_leader(const void *pa, const void *pb, void *arg)
{
	const struct bline *a = *(const struct bline *const *)pa, *b = *(const struct bline *const *)pb;
	size_t l = *(const size_t *)arg;

	if (a->v[l] != b->v[l])
		return a->v[l] > b->v[l] ? -1 : 1;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return bfp_strcmp_null(a->file, b->file);
}

/* The key of the node whose weight picks the line: the dominant level-2 node, else the level-1 one. */
static const char *weigh_by(const struct byfunc_fn *o)
{
	return o->dominant_node ? o->dominant_node : o->dominant;
}

/* The guilty line of f into o (see the top of byfunc-pmu.h). */
static int guilty_line(const struct byfunc_pmu *bp, const struct bfn *f, const struct model_compiled *mc,
		       const struct model_eval_opts *eo, struct metric_tree *t, struct byfunc_fn *o,
		       struct tdp_err *err)
{
	const struct bline *lines[BYFUNC_PMU_MAX_LINES], *best = NULL;
	size_t n = 0, l = bp->leader;
	double wbest = -1, wsum = 0;
	int ret = 0;

	/* the most counted known lines, most first */
	const struct bline **all = tdp_calloc(f->nr ? f->nr : 1, sizeof(*all));

	if (!all)
		return tdp_err_oom(err);
	for (size_t i = 0; i < f->nr; i++)
		if (bp->lines[f->first + i].file && bp->lines[f->first + i].line)
			all[n++] = &bp->lines[f->first + i];
	qsort_r(all, n, sizeof(*all), by_line_leader, &l);
	if (n > BYFUNC_PMU_MAX_LINES)
		n = BYFUNC_PMU_MAX_LINES;
	memcpy(lines, all, n * sizeof(*lines));
	tdp_free(all);
	for (size_t i = 0; mc && weigh_by(o) && i < n; i++) {
		const struct metric_node *nd;
		double w;

		if ((ret = evaluate(bp, mc, eo, lines[i]->v, t, err)))
			return ret;
		nd = metric_tree_find(t, weigh_by(o));
		w = nd && isfinite(nd->value) && nd->value > 0 ? nd->value / 100 * (double)lines[i]->v[l] : 0;
		wsum += w;
		if (w > wbest) {
			wbest = w;
			best = lines[i];
		}
	}
	if (best && wsum > 0) {
		o->line_pct = 100 * wbest / wsum;
	} else if (n) {
		best = lines[0];
		o->line_pct = f->v[l] ? 100.0 * (double)best->v[l] / (double)f->v[l] : 0;
	}
	if (best) {
		o->line = best->line;
		if (!(o->file = tdp_strdup(best->file)))
			return tdp_err_oom(err);
	}
	return 0;
}

/* The count of the generic event whose canonical key is one of keys in o, or false. */
static bool count_of(const struct byfunc_pmu *bp, const uint64_t *v, const char *const *keys, uint64_t *out)
{
	char key[MODEL_EVKEY_MAX];

	for (size_t k = 0; k < bp->nr_ev; k++) {
		if (model_event_key(bfp_ev_name(bp, k), key, sizeof(key), NULL, 0))
			continue;
		for (size_t i = 0; keys[i]; i++)
			if (!strcmp(key, keys[i])) {
				*out = v[k];
				return true;
			}
	}
	return false;
}

/* One function's figures: counts, the model's level 1 and 2, its verdict and its guilty line. */
static int one(const struct byfunc_pmu *bp, const struct bfn *f, const struct model_compiled *mc,
	       const struct model_eval_opts *eo, struct metric_tree *t, double total, struct byfunc_fn *o,
	       struct tdp_err *err)
{
	static const char *const cycles[] = { "cycles", "cpu_cycles", NULL };
	static const char *const insns[] = { "instructions", "inst_retired_any", NULL };
	const char *l1[4] = { "retiring", "bad_speculation", "frontend_bound", "backend_bound" };
	double *v1[4] = { &o->level1.retiring, &o->level1.bad_speculation, &o->level1.frontend_bound,
			  &o->level1.backend_bound };
	uint64_t c;
	int ret;

	if (!(o->name = tdp_strdup(f->name)) || (f->dso && !(o->dso = tdp_strdup(f->dso))))
		return tdp_err_oom(err);
	o->kernel = f->kernel;
	o->share_pct = 100.0 * (double)f->v[bp->leader] / total;
	o->cycles = count_of(bp, f->v, cycles, &c) ? (double)c : NAN;
	o->has_instructions = count_of(bp, f->v, insns, &o->instructions);
	o->samples = f->samples;
	for (size_t k = 0; k < bp->nr_ev; k++)
		o->counts[k] = f->v[k];
	for (size_t i = 0; i < 4; i++)
		*v1[i] = NAN;
	for (size_t i = 0; i < BYFUNC_L2_NR; i++)
		o->level2[i] = NAN;
	if (!mc) {
		snprintf(o->why, sizeof(o->why), "no top-down model was evaluated");
		return guilty_line(bp, f, NULL, eo, t, o, err);
	}
	if ((ret = evaluate(bp, mc, eo, f->v, t, err)))
		return ret;
	for (size_t i = 0; i < 4; i++) {
		const struct metric_node *n = metric_tree_find(t, l1[i]);

		*v1[i] = n ? n->value : NAN;
	}
	/* the other level-1 nodes (extras, cycle accounting); why none is measurable, when none is */
	for (size_t i = 0; i < t->nr; i++) {
		const struct metric_node *n = &t->v[i];
		bool four = false;

		if (n->level != 1)
			continue;
		for (size_t k = 0; k < 4; k++)
			four |= !strcmp(n->key, l1[k]);
		if (!four && o->nr_extra < BYFUNC_MAX_EXTRA) {
			o->extra_key[o->nr_extra] = n->key;
			o->extra[o->nr_extra++] = n->value;
		}
		if (isnan(n->value) && !o->why[0])
			snprintf(o->why, sizeof(o->why), "%s", n->why);
	}
	for (size_t i = 0; i < BYFUNC_L2_NR; i++) {
		const struct metric_node *n = metric_tree_find(t, byfunc_l2_key(i));

		o->level2[i] = n ? n->value : NAN;
	}
	o->dominant = t->verdict.category;
	o->dominant_node = t->verdict.node && !isnan(t->verdict.node_value) ? t->verdict.node : NULL;
	if (o->dominant)
		o->why[0] = '\0';
	return guilty_line(bp, f, mc, eo, t, o, err);
}

int byfunc_pmu_result(const struct byfunc_pmu *bp, const struct model_compiled *mc, const struct model_eval_opts *eo,
		      struct byfunc_result *out, struct tdp_err *err)
{
	const struct bfn **order = NULL;
	struct metric_tree *t = NULL;
	size_t l = bp->leader;
	double total = (double)bp->gr.totals[bp->ev[l]], kept = 0;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->source = BYFUNC_GROUP_READ;
	if (!(total > 0))
		return tdp_err_set(err, TDP_EANALYSIS, "the group's leader '%s' counted nothing", bfp_ev_name(bp, l));
	out->nr_events = bp->nr_ev;
	out->leader = l;
	out->samples = bp->gr.samples;
	out->total_cycles = total;
	out->nr_functions = bp->nr_fns;
	out->model = mc ? model_compiled_model(mc)->name : NULL;
	out->level = eo ? eo->max_level : 0;
	for (size_t k = 0; k < bp->nr_ev; k++) {
		out->totals[k] = bp->gr.totals[bp->ev[k]];
		if (!(out->events[k] = tdp_strdup(bfp_ev_name(bp, k)))) {
			ret = tdp_err_oom(err);
			goto out;
		}
	}
	order = tdp_calloc(bp->nr_fns ? bp->nr_fns : 1, sizeof(*order));
	out->v = tdp_calloc(bp->nr_fns < BYFUNC_MAX ? (bp->nr_fns ? bp->nr_fns : 1) : BYFUNC_MAX, sizeof(*out->v));
	t = tdp_calloc(1, sizeof(*t));
	if (!order || !out->v || !t) {
		ret = tdp_err_oom(err);
		goto out;
	}
	for (size_t i = 0; i < bp->nr_fns; i++)
		order[i] = &bp->fns[i];
	qsort_r(order, bp->nr_fns, sizeof(*order), by_leader, &l);
	for (size_t i = 0; i < bp->nr_fns && out->nr < BYFUNC_MAX && (out->nr == 0 || kept < BYFUNC_COVER); i++) {
		if (!order[i]->v[l])
			break;
		if ((ret = one(bp, order[i], mc, eo, t, total, &out->v[out->nr++], err)))
			goto out;
		kept += out->v[out->nr - 1].share_pct;
	}
	out->rest_pct = kept < 100 ? 100 - kept : 0;
out:
	tdp_free(order);
	tdp_free(t);
	if (ret)
		byfunc_release(out);
	return ret;
}
