/* byfunc-pmu.c: per-function group reads read, named and summed per function and line (byfunc-pmu.h). */
#include "diagnose/byfunc-pmu-internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "perfdata/perfdata.h"
#include "symbol/symbol.h"

#define CHUNK 65536 /* addresses resolved per symbol_resolve() call */

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

int bfp_strcmp_null(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

/* The order perf's rows have no say in: by function (kernel, binary, start, name), then line. */
static int cmp_loc(const void *pa, const void *pb)
{
	const struct loc *a = pa, *b = pb;
	int c;

	if (a->kernel != b->kernel)
		return a->kernel ? 1 : -1;
	if ((c = bfp_strcmp_null(a->dso, b->dso)))
		return c;
	if (!a->fn != !b->fn)
		return a->fn ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if ((c = bfp_strcmp_null(a->fn, b->fn)))
		return c;
	if ((c = bfp_strcmp_null(a->file, b->file)))
		return c;
	return a->line < b->line ? -1 : a->line > b->line;
}

static bool same_fn(const struct loc *a, const struct loc *b)
{
	return a->kernel == b->kernel && !bfp_strcmp_null(a->dso, b->dso) && !a->fn == !b->fn && a->key == b->key &&
	       !bfp_strcmp_null(a->fn, b->fn);
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
		if (!f->nr || bfp_strcmp_null(l->file, bp->lines[bp->nr_lines - 1].file) ||
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

const char *bfp_ev_name(const struct byfunc_pmu *bp, size_t k)
{
	const char *n = bp->gr.names[bp->ev[k]];

	return n ? n : "?";
}

int bfp_as_counts(const struct byfunc_pmu *bp, const uint64_t *v, struct countset *cs, struct tdp_err *err)
{
	cs->backend = BACKEND_IMPORT;
	for (size_t k = 0; k < bp->nr_ev; k++)
		if (!countset_add(cs, bfp_ev_name(bp, k), "", (double)v[k], 0))
			return tdp_err_oom(err);
	return 0;
}

int byfunc_pmu_totals(const struct byfunc_pmu *bp, struct countset *out, struct tdp_err *err)
{
	uint64_t v[E];

	for (size_t k = 0; k < bp->nr_ev; k++)
		v[k] = bp->gr.totals[bp->ev[k]];
	return bfp_as_counts(bp, v, out, err);
}

