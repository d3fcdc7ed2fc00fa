/* byfunc-pmu.c: per-function top-down from a sampling group's reads (byfunc-pmu.h). */
#include "diagnose/byfunc-pmu.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "diagnose/groupread.h"
#include "perfdata/perfdata.h"
#include "symbol/symbol.h"

#define CHUNK 65536 /* addresses resolved per symbol_resolve() call */
#define E BYFUNC_MAX_EVENTS

/* One (IP, process) of the group reads, named. */
struct loc {
	size_t row;        /* index into gr.v */
	const char *fn;    /* the session's: the function, NULL when no symbol holds it */
	const char *dso;   /* the session's: the binary as recorded, NULL when unmapped */
	const char *file;  /* the session's: the source file, NULL when unknown */
	uint64_t key;      /* the function's start, or the address perf prints when unresolved */
	uint32_t line;
	bool kernel;
};

struct bline {
	const char *file;
	uint32_t line;
	uint64_t v[E];     /* per compact event */
};

struct bfn {
	char *name;        /* owned */
	const char *dso;   /* the session's */
	bool kernel;
	uint64_t v[E];
	uint64_t samples;
	size_t first, nr;  /* its lines: lines[first .. first + nr) */
};

struct byfunc_pmu {
	struct symbol_session *sym;
	struct groupread gr;
	char *cpuid;
	size_t ev[E];      /* compact event k -> attr index */
	size_t nr_ev;
	size_t leader;     /* compact index of the leader */
	struct bfn *fns;
	size_t nr_fns;
	struct bline *lines;
	size_t nr_lines;
};

void byfunc_pmu_free(struct byfunc_pmu *bp)
{
	if (!bp)
		return;
	for (size_t i = 0; i < bp->nr_fns; i++)
		tdp_free(bp->fns[i].name);
	tdp_free(bp->fns);
	tdp_free(bp->lines);
	tdp_free(bp->cpuid);
	groupread_release(&bp->gr);
	symbol_session_free(bp->sym);
	tdp_free(bp);
}

static int strcmp_null(const char *a, const char *b)
{
	if (!a || !b)
		return !a - !b ? (a ? 1 : -1) : 0;
	return strcmp(a, b);
}

/* The order perf's rows have no say in: by function (kernel, binary, start, name), then line. */
static int cmp_loc(const void *pa, const void *pb)
{
	const struct loc *a = pa, *b = pb;
	int c;

	if (a->kernel != b->kernel)
		return a->kernel ? 1 : -1;
	if ((c = strcmp_null(a->dso, b->dso)))
		return c;
	if (!a->fn != !b->fn)
		return a->fn ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if ((c = strcmp_null(a->fn, b->fn)))
		return c;
	if ((c = strcmp_null(a->file, b->file)))
		return c;
	return a->line < b->line ? -1 : a->line > b->line;
}

static bool same_fn(const struct loc *a, const struct loc *b)
{
	return a->kernel == b->kernel && !strcmp_null(a->dso, b->dso) && !a->fn == !b->fn && a->key == b->key &&
	       !strcmp_null(a->fn, b->fn);
}

static int record(void *ctx, const struct perfdata_record *rec, struct tdp_err *err)
{
	return symbol_session_add_record(ctx, rec, err);
}

/* Name every distinct (IP, process) of the group reads into locs[0..gr.nr). */
static int resolve(struct byfunc_pmu *bp, struct loc *locs, struct tdp_err *err)
{
	struct symbol_addr *addrs = tdp_calloc(CHUNK, sizeof(*addrs));
	struct symbol_result *res = tdp_calloc(CHUNK, sizeof(*res));
	int ret = 0;

	if (!addrs || !res) {
		ret = tdp_err_oom(err);
		goto out;
	}
	for (size_t at = 0; at < bp->gr.nr && !ret; at += CHUNK) {
		size_t k = bp->gr.nr - at < CHUNK ? bp->gr.nr - at : CHUNK;

		for (size_t i = 0; i < k; i++)
			addrs[i] = (struct symbol_addr){ bp->gr.v[at + i].ip, bp->gr.v[at + i].pid };
		if ((ret = symbol_resolve(bp->sym, addrs, k, res, err)))
			break;
		for (size_t i = 0; i < k; i++) {
			const struct symbol_result *r = &res[i];
			bool named = r->status == SYMBOL_OK && r->function;

			locs[at + i] = (struct loc){ at + i, named ? r->function : NULL, r->dso, r->file,
						     named ? r->func_vaddr : r->dso_addr, r->line, r->kernel };
		}
	}
out:
	tdp_free(addrs);
	tdp_free(res);
	return ret;
}

static void add_counts(uint64_t *to, const struct byfunc_pmu *bp, const struct groupread_ip *g)
{
	for (size_t k = 0; k < bp->nr_ev; k++)
		to[k] += g->v[bp->ev[k]];
}

/* perf's text of an address no symbol holds ("%#.16llx" of its DSO-relative address). */
static char *unresolved_name(uint64_t addr)
{
	char buf[40];

	snprintf(buf, sizeof(buf), "%#.16" PRIx64, addr);
	return tdp_strdup(buf);
}

/* Sum the named locations per function and per line. */
static int aggregate(struct byfunc_pmu *bp, struct loc *locs, struct tdp_err *err)
{
	size_t n = bp->gr.nr;

	qsort(locs, n, sizeof(*locs), cmp_loc);
	bp->fns = tdp_calloc(n ? n : 1, sizeof(*bp->fns));
	bp->lines = tdp_calloc(n ? n : 1, sizeof(*bp->lines));
	if (!bp->fns || !bp->lines)
		return tdp_err_oom(err);
	for (size_t i = 0; i < n; i++) {
		const struct loc *l = &locs[i];
		const struct groupread_ip *g = &bp->gr.v[l->row];
		struct bfn *f;
		struct bline *ln;

		if (!i || !same_fn(l, &locs[i - 1])) {
			if (bp->nr_fns >= BYFUNC_PMU_MAX_FUNCTIONS)
				return tdp_err_set(err, TDP_ELIMIT, "more than %u functions in the group reads",
						   BYFUNC_PMU_MAX_FUNCTIONS);
			f = &bp->fns[bp->nr_fns++];
			f->name = l->fn ? tdp_strdup(l->fn) : unresolved_name(l->key);
			if (!f->name)
				return tdp_err_oom(err);
			f->dso = l->dso;
			f->kernel = l->kernel;
			f->first = bp->nr_lines;
		}
		f = &bp->fns[bp->nr_fns - 1];
		add_counts(f->v, bp, g);
		f->samples += g->samples;
		if (!f->nr || strcmp_null(l->file, bp->lines[bp->nr_lines - 1].file) ||
		    l->line != bp->lines[bp->nr_lines - 1].line) {
			bp->lines[bp->nr_lines++] = (struct bline){ l->file, l->line, { 0 } };
			f->nr++;
		}
		ln = &bp->lines[bp->nr_lines - 1];
		add_counts(ln->v, bp, g);
	}
	return 0;
}

int byfunc_pmu_load(const uint8_t *buf, size_t len, const char *name, const struct symbol_opts *sym,
		    struct byfunc_pmu **out, struct tdp_err *err)
{
	struct byfunc_pmu *bp = tdp_calloc(1, sizeof(*bp));
	struct perfdata *p = NULL;
	struct loc *locs = NULL;
	const char *cpuid;
	int ret;

	if (!bp)
		return tdp_err_oom(err);
	if ((ret = perfdata_open(&p, buf, len, name, 0, err)) || (ret = symbol_session_new(&bp->sym, sym, err)) ||
	    (ret = symbol_session_add_features(bp->sym, perfdata_features(p), err)) ||
	    (ret = groupread_read(p, name, &(struct groupread_opts){ record, bp->sym }, &bp->gr, err)))
		goto out;
	cpuid = perfdata_features(p)->cpuid;
	if (cpuid && !(bp->cpuid = tdp_strdup(cpuid))) {
		ret = tdp_err_oom(err);
		goto out;
	}
	for (size_t i = 0; i < bp->gr.nr_events && i < E; i++)
		if (bp->gr.in_group[i]) {
			if (i == bp->gr.leader)
				bp->leader = bp->nr_ev;
			bp->ev[bp->nr_ev++] = i;
		}
	if (!(locs = tdp_calloc(bp->gr.nr ? bp->gr.nr : 1, sizeof(*locs)))) {
		ret = tdp_err_oom(err);
		goto out;
	}
	if (!(ret = resolve(bp, locs, err)))
		ret = aggregate(bp, locs, err);
out:
	tdp_free(locs);
	perfdata_close(p);
	if (ret) {
		byfunc_pmu_free(bp);
		return ret;
	}
	*out = bp;
	return 0;
}

const char *byfunc_pmu_cpuid(const struct byfunc_pmu *bp)
{
	return bp->cpuid;
}

static const char *ev_name(const struct byfunc_pmu *bp, size_t k)
{
	const char *n = bp->gr.names[bp->ev[k]];

	return n ? n : "?";
}

/* counts v (per compact event) as one group of a countset. */
static int as_counts(const struct byfunc_pmu *bp, const uint64_t *v, struct countset *cs, struct tdp_err *err)
{
	cs->backend = BACKEND_IMPORT;
	for (size_t k = 0; k < bp->nr_ev; k++)
		if (!countset_add(cs, ev_name(bp, k), "", (double)v[k], 0))
			return tdp_err_oom(err);
	return 0;
}

int byfunc_pmu_totals(const struct byfunc_pmu *bp, struct countset *out, struct tdp_err *err)
{
	uint64_t v[E];

	for (size_t k = 0; k < bp->nr_ev; k++)
		v[k] = bp->gr.totals[bp->ev[k]];
	return as_counts(bp, v, out, err);
}

/* Evaluate mc over v into t (classified). Returns 0 or TDP_ENOMEM. */
static int evaluate(const struct byfunc_pmu *bp, const struct model_compiled *mc, const struct model_eval_opts *eo,
		    const uint64_t *v, struct metric_tree *t, struct tdp_err *err)
{
	struct countset cs = COUNTSET_INIT;
	int ret = as_counts(bp, v, &cs, err);

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
	return strcmp_null(a->file, b->file);
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
		if (model_event_key(ev_name(bp, k), key, sizeof(key), NULL, 0))
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
		return tdp_err_set(err, TDP_EANALYSIS, "the group's leader '%s' counted nothing", ev_name(bp, l));
	out->nr_events = bp->nr_ev;
	out->leader = l;
	out->samples = bp->gr.samples;
	out->total_cycles = total;
	out->nr_functions = bp->nr_fns;
	out->model = mc ? model_compiled_model(mc)->name : NULL;
	out->level = eo ? eo->max_level : 0;
	for (size_t k = 0; k < bp->nr_ev; k++) {
		out->totals[k] = bp->gr.totals[bp->ev[k]];
		if (!(out->events[k] = tdp_strdup(ev_name(bp, k)))) {
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
