/*
 * drill-pmu.c: the PMU drill-down over a recording (diag_pmu_drill(), see
 * drill-pmu.h): IP samples or branch records, symbolized (symbol/symbol.h),
 * merged per source line, ranked, and copied into the diagnosis as sites with the
 * disassembly around the top branch. The findings, the footprint and the loop
 * command are made in drill-pmu-findings.c.
 */
#include "diagnose/drill-pmu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "branch/branch.h"
#include "diagnose/diagnose-internal.h"
#include "diagnose/drill-pmu-internal.h"
#include "perfdata/perfdata.h"
#include "symbol/symbol.h"

#define DPMU_CHUNK 16384       /* addresses symbolized at once (the results array) */
#define DPMU_TYPED_SITES 4096  /* branch sites of unknown type decoded from the binary */
#define DPMU_DISASM_CONTEXT 8  /* instructions before and after the top branch */

/* ---------------------------------------------------------------------------
 * Lines: sort, merge, rank
 * ------------------------------------------------------------------------- */

static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static int cmp_key(const void *pa, const void *pb)
{
	const struct dpmu_line *a = pa, *b = pb;
	int c;

	if (a->kernel != b->kernel)
		return a->kernel ? 1 : -1;
	if ((c = cmp_str(a->dso, b->dso)) || (c = cmp_str(a->function, b->function)) ||
	    (c = cmp_str(a->file, b->file)))
		return c;
	return a->line < b->line ? -1 : a->line > b->line;
}

/* Sort by key and merge equal keys (sums; the heaviest address wins). */
static void merge_lines(struct dpmu_line *v, size_t *nr)
{
	size_t w = 0;

	qsort(v, *nr, sizeof(*v), cmp_key);
	for (size_t i = 0; i < *nr; i++) {
		struct dpmu_line *o;

		if (!w || cmp_key(&v[w - 1], &v[i])) {
			v[w++] = v[i];
			continue;
		}
		o = &v[w - 1];
		o->samples += v[i].samples;
		o->executions += v[i].executions;
		o->mispredicts += v[i].mispredicts;
		o->cond += v[i].cond;
		o->cond_mis += v[i].cond_mis;
		o->ind += v[i].ind;
		o->ind_mis += v[i].ind_mis;
		if (v[i].func_size > o->func_size)
			o->func_size = v[i].func_size;
		if (v[i].top_weight > o->top_weight) {
			o->top_weight = v[i].top_weight;
			o->top_addr = v[i].top_addr;
			o->top_vaddr = v[i].top_vaddr;
			o->top_pid = v[i].top_pid;
		}
	}
	*nr = w;
}

/* Ranked: most samples (IP) or branch records first, then the key (a stable order for equals). */
static int cmp_rank(const void *pa, const void *pb)
{
	const struct dpmu_line *a = pa, *b = pb;

	if (a->samples != b->samples)
		return a->samples < b->samples ? 1 : -1;
	return cmp_key(a, b);
}

/* Ranked: most mispredicted records first, then as cmp_rank(). */
static int cmp_rank_mispredicts(const void *pa, const void *pb)
{
	const struct dpmu_line *a = pa, *b = pb;

	if (a->mispredicts != b->mispredicts)
		return a->mispredicts < b->mispredicts ? 1 : -1;
	return cmp_rank(pa, pb);
}

/* Append the lines of nr resolved addresses and merge. */
static int add_lines(struct dpmu *s, size_t *alloc, const struct symbol_result *res, const struct dpmu_line *w,
		     size_t nr, struct tdp_err *err)
{
	if (TDP_GROW(s->lines, *alloc, s->nr_lines + nr))
		return tdp_err_oom(err);
	for (size_t i = 0; i < nr; i++) {
		struct dpmu_line *l = &s->lines[s->nr_lines++];
		const struct symbol_result *r = &res[i];

		*l = w[i];
		l->kernel = r->kernel;
		l->dso = r->dso;
		l->function = r->status == SYMBOL_OK ? r->function : NULL;
		l->file = r->status == SYMBOL_OK ? r->file : NULL;
		l->line = l->file ? r->line : 0;
		l->func_size = r->status == SYMBOL_OK ? r->func_size : 0;
		l->top_vaddr = r->vaddr;
	}
	merge_lines(s->lines, &s->nr_lines);
	return 0;
}

/* ---------------------------------------------------------------------------
 * IP samples
 * ------------------------------------------------------------------------- */

struct ip_slot {
	uint64_t ip;
	uint32_t pid;
	bool used;
	uint64_t samples;
};

struct ip_tab {
	struct ip_slot *v;
	size_t cap, nr;
};

static size_t ip_hash(uint64_t ip, uint32_t pid, size_t mask)
{
	uint64_t h = (ip ^ ((uint64_t)pid << 40)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 17) & mask;
}

static int ip_grow(struct ip_tab *t, struct tdp_err *err)
{
	size_t cap = t->cap ? t->cap * 2 : 4096;
	struct ip_slot *v = tdp_calloc(cap, sizeof(*v));

	if (!v)
		return tdp_err_oom(err);
	for (size_t i = 0; i < t->cap; i++) {
		size_t j;

		if (!t->v[i].used)
			continue;
		for (j = ip_hash(t->v[i].ip, t->v[i].pid, cap - 1); v[j].used; j = (j + 1) & (cap - 1))
			;
		v[j] = t->v[i];
	}
	tdp_free(t->v);
	t->v = v;
	t->cap = cap;
	return 0;
}

static int ip_add(struct ip_tab *t, uint32_t pid, uint64_t ip, struct tdp_err *err)
{
	size_t j;

	if (2 * (t->nr + 1) > t->cap) {
		if (t->nr >= DIAG_PMU_MAX_ADDRS)
			return tdp_err_set(err, TDP_ELIMIT, "the drill-down's recording has more than %u distinct "
					   "sampled addresses", DIAG_PMU_MAX_ADDRS);
		if (ip_grow(t, err))
			return TDP_ENOMEM;
	}
	for (j = ip_hash(ip, pid, t->cap - 1); t->v[j].used; j = (j + 1) & (t->cap - 1))
		if (t->v[j].ip == ip && t->v[j].pid == pid) {
			t->v[j].samples++;
			return 0;
		}
	t->v[j] = (struct ip_slot){ ip, pid, true, 1 };
	t->nr++;
	return 0;
}

static int cmp_slot(const void *pa, const void *pb)
{
	const struct ip_slot *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->ip < b->ip ? -1 : a->ip > b->ip;
}

/* dpmu_data_spe()'s callback: an SPE load's PC, counted as an IP sample. */
static int spe_ip(void *arg, uint32_t pid, uint64_t ip, struct tdp_err *err)
{
	return ip_add(arg, pid, ip, err);
}

/* Every IP sample (or SPE load record) into lines; the other records into the symbol session. */
static int load_ip(struct dpmu *s, struct perfdata *pd, struct tdp_err *err)
{
	struct ip_tab t = { NULL, 0, 0 };
	struct perfdata_record rec;
	struct symbol_addr *addrs = NULL;
	struct symbol_result *res = NULL;
	struct dpmu_line *w = NULL;
	struct diag_sampling *smp = &s->d->sampling;
	size_t n = 0, alloc = 0;
	bool addrs_in = false;
	int ret;

	for (size_t i = 0; i < perfdata_nr_attrs(pd); i++) /* perf record -d: the data mappings are needed */
		addrs_in |= (perfdata_attr(pd, i)->sample_type & PERFDATA_SAMPLE_ADDR) != 0;
	addrs_in |= s->plan->spe_loads;
	while ((ret = perfdata_next(pd, &rec, err)) > 0) {
		if (s->plan->spe_loads && (rec.type == PERFDATA_RECORD_AUXTRACE ||
					   rec.type == PERFDATA_RECORD_COMM || rec.type == PERFDATA_RECORD_FORK) &&
		    (ret = dpmu_data_spe(s, &rec, spe_ip, &t, err)))
			goto out;
		if (rec.type == PERFDATA_RECORD_SAMPLE) {
			const struct perfdata_sample *sm = &rec.u.sample;

			uint32_t pid = (sm->fields & PERFDATA_SAMPLE_TID) ? sm->pid : SYMBOL_PID_NONE;

			if (!rec.attr || !(sm->fields & PERFDATA_SAMPLE_IP))
				continue;
			smp->samples++;
			if ((ret = ip_add(&t, pid, sm->ip, err)) ||
			    ((sm->fields & PERFDATA_SAMPLE_ADDR) && (ret = dpmu_data_sample(s, pid, sm->ip, sm->addr, -1, err))))
				goto out;
		} else if (rec.type == PERFDATA_RECORD_LOST || rec.type == PERFDATA_RECORD_LOST_SAMPLES) {
			smp->lost += rec.u.lost.lost;
		} else if ((ret = symbol_session_add_record(s->sym, &rec, err)) ||
			   (addrs_in && (rec.type == PERFDATA_RECORD_MMAP || rec.type == PERFDATA_RECORD_MMAP2) &&
			    (ret = dpmu_data_mmap(s, &rec.u.mmap, err)))) {
			goto out;
		}
	}
	if (ret < 0)
		goto out;
	/* the distinct addresses, by process and address: the touched lines of code are runs of equal ip / 64 */
	for (size_t i = 0; i < t.cap; i++)
		if (t.v[i].used)
			t.v[n++] = t.v[i];
	if (n) /* a recording without samples has no table */
		qsort(t.v, n, sizeof(*t.v), cmp_slot);
	for (size_t i = 0; i < n; i++)
		s->touched_lines += !i || t.v[i].pid != t.v[i - 1].pid ||
				    t.v[i].ip / DIAG_PMU_CACHE_LINE != t.v[i - 1].ip / DIAG_PMU_CACHE_LINE;
	s->total = smp->samples;
	addrs = tdp_calloc(DPMU_CHUNK, sizeof(*addrs));
	res = tdp_calloc(DPMU_CHUNK, sizeof(*res));
	w = tdp_calloc(DPMU_CHUNK, sizeof(*w));
	if (!addrs || !res || !w) {
		ret = tdp_err_oom(err);
		goto out;
	}
	for (size_t at = 0; at < n; at += DPMU_CHUNK) {
		size_t k = n - at < DPMU_CHUNK ? n - at : DPMU_CHUNK;

		for (size_t i = 0; i < k; i++) {
			const struct ip_slot *sl = &t.v[at + i];

			addrs[i] = (struct symbol_addr){ sl->ip, sl->pid };
			w[i] = (struct dpmu_line){ .samples = sl->samples, .top_addr = sl->ip, .top_pid = sl->pid,
						   .top_weight = sl->samples };
		}
		if ((ret = symbol_resolve(s->sym, addrs, k, res, err)) || (ret = add_lines(s, &alloc, res, w, k, err)))
			goto out;
	}
	if (s->nr_lines)
		qsort(s->lines, s->nr_lines, sizeof(*s->lines), cmp_rank);
	ret = 0;
out:
	tdp_free(t.v);
	tdp_free(addrs);
	tdp_free(res);
	tdp_free(w);
	return ret;
}

/* ---------------------------------------------------------------------------
 * Branch records (branch stacks, SPE)
 * ------------------------------------------------------------------------- */

static int on_record(void *ctx, const struct perfdata_record *rec, struct tdp_err *err)
{
	return symbol_session_add_record(ctx, rec, err);
}

/* Conditional (and other direct) branches versus indirect ones (returns included: predicted by target). */
static bool type_indirect(unsigned type)
{
	return type == BRANCH_TYPE_IND || type == BRANCH_TYPE_IND_CALL || type == BRANCH_TYPE_RET;
}

static int load_branches(struct dpmu *s, struct perfdata *pd, struct tdp_err *err)
{
	struct branch_agg *a = NULL;
	struct branch_result r = BRANCH_RESULT_INIT;
	struct branch_load_opts lo = { .on_record = on_record, .ctx = s->sym };
	struct diag_sampling *smp = &s->d->sampling;
	struct symbol_addr *addrs = NULL;
	struct symbol_result *res = NULL;
	struct dpmu_line *w = NULL;
	size_t n = 0, alloc = 0;
	int ret;

	if ((ret = branch_agg_new(&a, err)) || (ret = branch_load(pd, a, &lo, NULL, err)) ||
	    (ret = branch_agg_finish(a, &r, err)))
		goto out;
	smp->samples = r.counts.samples;
	smp->branch_records = r.counts.branch_entries - r.counts.zero_entries;
	smp->mispredicted = r.counts.mispredicted_entries;
	smp->has_flags = r.has_mispred_flags;
	smp->lost += r.counts.lost + r.counts.lost_samples;
	branch_sites_sort(r.sites, r.nr_sites, r.has_mispred_flags ? BRANCH_SORT_MISPREDICTS : BRANCH_SORT_EXECUTIONS);
	/* the padding of short stacks (address 0) is no site */
	for (size_t i = 0; i < r.nr_sites; i++)
		if (r.sites[i].addr)
			r.sites[n++] = r.sites[i];
	s->total = r.has_mispred_flags ? smp->mispredicted : smp->branch_records;
	if (n > DIAG_PMU_MAX_BRANCH_SITES)
		n = DIAG_PMU_MAX_BRANCH_SITES;
	for (size_t i = 0; i < n && i < DPMU_TYPED_SITES; i++) {
		struct tdp_err terr = TDP_ERR_INIT;
		unsigned t;

		if (r.sites[i].type == BRANCH_TYPE_UNKNOWN &&
		    symbol_branch_type(s->sym, r.sites[i].pid, r.sites[i].addr, &t, &terr) == 0)
			r.sites[i].type = (uint8_t)t;
	}
	addrs = tdp_calloc(DPMU_CHUNK, sizeof(*addrs));
	res = tdp_calloc(DPMU_CHUNK, sizeof(*res));
	w = tdp_calloc(DPMU_CHUNK, sizeof(*w));
	if (!addrs || !res || !w) {
		ret = tdp_err_oom(err);
		goto out;
	}
	for (size_t at = 0; at < n; at += DPMU_CHUNK) {
		size_t k = n - at < DPMU_CHUNK ? n - at : DPMU_CHUNK;

		for (size_t i = 0; i < k; i++) {
			const struct branch_site *b = &r.sites[at + i];
			bool ind = type_indirect(b->type);

			addrs[i] = (struct symbol_addr){ b->addr, b->pid };
			w[i] = (struct dpmu_line){ .samples = b->executions, .executions = b->executions,
						   .mispredicts = b->mispredicts, .cond = ind ? 0 : b->executions,
						   .cond_mis = ind ? 0 : b->mispredicts, .ind = ind ? b->executions : 0,
						   .ind_mis = ind ? b->mispredicts : 0, .top_addr = b->addr,
						   .top_pid = b->pid,
						   .top_weight = r.has_mispred_flags ? b->mispredicts : b->executions };
		}
		if ((ret = symbol_resolve(s->sym, addrs, k, res, err)) || (ret = add_lines(s, &alloc, res, w, k, err)))
			goto out;
	}
	if (s->nr_lines)
		qsort(s->lines, s->nr_lines, sizeof(*s->lines), r.has_mispred_flags ? cmp_rank_mispredicts : cmp_rank);
out:
	tdp_free(addrs);
	tdp_free(res);
	tdp_free(w);
	branch_result_release(&r);
	branch_agg_free(a);
	return ret;
}

/* ---------------------------------------------------------------------------
 * Sites and the disassembly
 * ------------------------------------------------------------------------- */

const char *dpmu_source(const struct dpmu *s, const struct dpmu_line *l, char *buf, size_t size)
{
	char joined[SYMBOL_EXE_MAX_PATH];
	const char *dir;

	if (!l->file)
		return NULL;
	if (l->file[0] == '/')
		return symbol_path_normalise(l->file, buf, size) ? buf : l->file;
	if (!s->have_exe || !dpmu_in_program(s, l) || !(dir = symbol_exe_comp_dir(&s->x, l->top_vaddr)) ||
	    (size_t)snprintf(joined, sizeof(joined), "%s/%s", dir, l->file) >= sizeof(joined) ||
	    !symbol_path_normalise(joined, buf, size))
		return l->file;
	return buf;
}

char *dpmu_display_file(const struct dpmu *s, const struct dpmu_line *l)
{
	char buf[SYMBOL_EXE_MAX_PATH];
	const char *file = dpmu_source(s, l, buf, sizeof(buf));
	size_t n = s->o->cwd ? strlen(s->o->cwd) : 0;

	if (!file)
		return NULL;
	if (n > 1 && !strncmp(file, s->o->cwd, n) && file[n] == '/' && file[n + 1])
		return tdp_strdup(file + n + 1);
	return tdp_strdup(file);
}

char *dpmu_function_label(const struct dpmu_line *l)
{
	struct strbuf sb = STRBUF_INIT;
	const char *base;

	if (l->function)
		return tdp_strdup(l->function);
	if (l->kernel)
		return tdp_strdup("[kernel]");
	if (!l->dso)
		return tdp_strdup("[unknown]");
	base = strrchr(l->dso, '/');
	strbuf_addf(&sb, "[%s]", base ? base + 1 : l->dso);
	if (strbuf_failed(&sb)) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

bool dpmu_in_program(const struct dpmu *s, const struct dpmu_line *l)
{
	return s->o->exe && l->dso && !l->kernel && !strcmp(l->dso, s->o->exe);
}

static int make_sites(struct dpmu *s, struct tdp_err *err)
{
	struct diag *d = s->d;
	size_t n = s->nr_lines < s->o->top ? s->nr_lines : s->o->top;
	bool branch = s->plan->method != DIAG_SAMPLE_IP;

	d->sites = tdp_calloc(n ? n : 1, sizeof(*d->sites));
	if (!d->sites)
		return tdp_err_oom(err);
	for (size_t i = 0; i < n; i++) {
		const struct dpmu_line *l = &s->lines[i];
		struct diag_site *ds = &d->sites[d->nr_sites++];
		uint64_t ranked = branch && s->d->sampling.has_flags ? l->mispredicts : l->samples;

		ds->file = dpmu_display_file(s, l);
		ds->function = dpmu_function_label(l);
		if ((l->file && !ds->file) || !ds->function)
			return tdp_err_oom(err);
		ds->line = l->line;
		ds->in_program = dpmu_in_program(s, l);
		ds->samples = l->samples;
		ds->share = s->total ? 100.0 * (double)ranked / (double)s->total : 0.0;
		ds->c.cond_branches = l->cond;
		ds->c.cond_mispredicts = l->cond_mis;
		ds->c.ind_branches = l->ind;
		ds->c.ind_mispredicts = l->ind_mis;
		diag_site_derive(d, ds);
	}
	return 0;
}

/* The disassembly around the top line's heaviest address; in_line: the instructions of the same line. */
static int disasm(struct dpmu *s, struct tdp_err *err)
{
	struct diag *d = s->d;
	const struct dpmu_line *top = s->nr_lines ? &s->lines[0] : NULL;
	struct symbol_disasm sd = SYMBOL_DISASM_INIT;
	struct symbol_addr addrs[SYMBOL_LISTING_MAX];
	struct symbol_result res[SYMBOL_LISTING_MAX];
	struct tdp_err derr = TDP_ERR_INIT;
	bool branch = s->plan->method != DIAG_SAMPLE_IP;
	size_t from, n;
	int ret;

	if (!top) {
		snprintf(d->disasm_why, sizeof(d->disasm_why), "no sample landed in any code");
		return 0;
	}
	ret = symbol_disasm(s->sym, top->top_pid, top->top_addr, DPMU_DISASM_CONTEXT, DPMU_DISASM_CONTEXT, &sd, &derr);
	if (ret == TDP_ENOMEM)
		return tdp_err_oom(err);
	if (ret) {
		snprintf(d->disasm_why, sizeof(d->disasm_why), "%s", derr.msg);
		return 0;
	}
	from = sd.nr > SYMBOL_LISTING_MAX && sd.target >= SYMBOL_LISTING_MAX / 2 ? sd.target - SYMBOL_LISTING_MAX / 2 : 0;
	n = sd.nr - from < SYMBOL_LISTING_MAX ? sd.nr - from : SYMBOL_LISTING_MAX;
	for (size_t i = 0; i < n; i++)
		addrs[i] = (struct symbol_addr){ sd.insns[from + i].addr, top->top_pid };
	ret = symbol_resolve(s->sym, addrs, n, res, err);
	for (size_t i = 0; !ret && i < n; i++) {
		const struct symbol_insn *in = &sd.insns[from + i];
		struct symbol_exe_insn *o = &d->disasm.v[d->disasm.nr++];

		o->addr = in->vaddr;
		snprintf(o->text, sizeof(o->text), "%s%s%s", in->mnemonic, in->operands[0] ? " " : "", in->operands);
		o->branch_type = in->branch_type;
		o->in_line = top->file && res[i].file && res[i].line == top->line && !strcmp(res[i].file, top->file);
		/* IP samples name no branch: the line's instructions are marked, not one of them */
		o->target = branch && in->target;
		if (o->target)
			d->disasm.target = in->vaddr;
	}
	if (!ret) {
		snprintf(d->disasm.function, sizeof(d->disasm.function), "%s", sd.function ? sd.function : "");
		d->has_disasm = true;
	}
	symbol_disasm_release(&sd);
	return ret;
}

/* ---------------------------------------------------------------------------
 * The drill-down
 * ------------------------------------------------------------------------- */

static const char *ranked_by(const struct dpmu *s)
{
	if (s->plan->spe_loads)
		return "SPE-sampled loads";
	if (s->plan->method == DIAG_SAMPLE_IP)
		return s->plan->locate_leaf ? "samples of the dominant leaf's Locate-with event" : "cycles samples";
	return s->d->sampling.has_flags ? "mispredicted branch records" : "taken branch records";
}

/* The sampling summary of d from the plan. */
static void describe(struct diag *d, const struct diag_pmu_plan *p, uint64_t dropped)
{
	struct diag_sampling *smp = &d->sampling;

	smp->method = p->method;
	snprintf(smp->event, sizeof(smp->event), "%s", p->event);
	smp->freq = p->freq;
	smp->period = p->period;
	smp->facility = p->facility_name;
	snprintf(smp->facility_reason, sizeof(smp->facility_reason), "%s", p->facility_reason);
	snprintf(smp->reason, sizeof(smp->reason), "%s", p->reason);
	smp->lost = dropped;
	smp->located = p->locate_leaf;
	smp->loads = p->spe_loads;
	snprintf(smp->locate_event, sizeof(smp->locate_event), "%s", p->locate_event);
	d->has_sampling = true;
}

void diag_pmu_no_model(struct diag *d, const char *why)
{
	d->has_tree = false;
	snprintf(d->reason, sizeof(d->reason), "no top-down model: %s", why);
	diag_add_note(d, "no top-down model applies to this CPU, so there is no tree and no verdict: the triage "
			 "counts are measured, and the drill-down ranks the hot code by cycles samples");
}

int diag_pmu_drill(struct diag *d, const uint8_t *buf, size_t len, const struct diag_pmu_drill_opts *opts,
		   struct tdp_err *err)
{
	struct dpmu s;
	struct perfdata *pd = NULL;
	int ret;

	memset(&s, 0, sizeof(s));
	s.d = d;
	s.opts = opts;
	s.o = opts->o;
	s.plan = opts->plan;
	describe(d, s.plan, opts->dropped);
	d->drill = s.plan->drill;
	if ((ret = symbol_session_new(&s.sym, opts->sym, err)) ||
	    (ret = perfdata_open(&pd, buf, len, "the drill-down's recording", 0, err)) ||
	    (ret = symbol_session_add_features(s.sym, perfdata_features(pd), err)))
		goto out;
	if (s.o->exe) {
		struct tdp_err xerr = TDP_ERR_INIT;

		s.have_exe = symbol_exe_open(&s.x, s.o->exe, &xerr) == 0;
	}
	ret = s.plan->method == DIAG_SAMPLE_IP || s.plan->spe_loads ? load_ip(&s, pd, err) : load_branches(&s, pd, err);
	if (ret)
		goto out;
	d->ranked_by = ranked_by(&s);
	if ((ret = make_sites(&s, err)) || (ret = dpmu_data_finish(&s, err)))
		goto out;
	if (d->drill == DIAG_DRILL_BRANCHES && (ret = disasm(&s, err)))
		goto out;
	if (d->drill == DIAG_DRILL_ICACHE && (ret = dpmu_footprint(&s, err)))
		goto out;
	if ((d->drill == DIAG_DRILL_HOT_LOOP || d->drill == DIAG_DRILL_MEMORY) && (ret = dpmu_loop_command(&s, err)))
		goto out;
	if ((ret = dpmu_findings(&s, err)))
		goto out;
	diag_sort_findings(d);
	ret = diag_bottlenecks(d, err); /* the lead's costs now point at the sites */
out:
	perfdata_close(pd);
	symbol_session_free(s.sym);
	symbol_exe_close(&s.x);
	tdp_free(s.lines);
	dpmu_data_free(&s);
	return ret;
}
