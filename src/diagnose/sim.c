/*
 * sim.c: the diagnosis of a simulated run (diag_from_sim(), see diagnose.h): the
 * scope (the program's own code or the whole run), its estimate, the verdict, the
 * ranked sites and the drill-down into the dominant bucket. The findings are made
 * in sim-findings.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "diagnose/diagnose-internal.h"
#include "diagnose/sim-internal.h"
#include "perfdata/perfdata.h"
#include "sim/sim.h"

/* The normalised path of file name index `idx` (cached per index), or NULL when unknown. */
const char *dsim_abs_file(struct dsim *s, uint32_t idx)
{
	char buf[SYMBOL_EXE_MAX_PATH];
	const char *name;

	if (idx == SIM_NO_NAME || idx >= s->p->names_nr)
		return NULL;
	if (s->files[idx])
		return s->files[idx];
	name = sim_profile_name(s->p, idx);
	if (!strcmp(name, "???") || !symbol_path_normalise(name, buf, sizeof(buf)))
		return NULL;
	s->files[idx] = tdp_strdup(buf);
	return s->files[idx];
}

const char *dsim_fn(const struct dsim *s, uint32_t idx)
{
	const char *name = idx == SIM_NO_NAME ? NULL : sim_profile_name(s->p, idx);

	return name && strcmp(name, "???") ? name : NULL;
}

/* The path shown for a source file: relative to cwd when under it. */
char *dsim_display_file(const struct dsim *s, const char *abs)
{
	size_t n = s->o->cwd ? strlen(s->o->cwd) : 0;

	if (!abs)
		return NULL;
	if (n > 1 && !strncmp(abs, s->o->cwd, n) && abs[n] == '/' && abs[n + 1])
		return tdp_strdup(abs + n + 1);
	return tdp_strdup(abs);
}

void dsim_fe_add(struct dsim_fe *f, const struct sim_site *ss)
{
	f->resteer += ss->resteer;
	f->bandwidth += ss->fetch_bw;
	f->icache += fmax(0.0, ss->cycles.v[SIM_FRONTEND_BOUND] - ss->resteer - ss->fetch_bw);
	f->mispredicts += ss->cost.v[SIM_BCM] + ss->cost.v[SIM_BIM];
	f->indirect += ss->cost.v[SIM_BI];
}

void dsim_counts(const struct sim_cost *c, double cycles, struct diag_counts *out)
{
	out->instructions = c->v[SIM_IR];
	out->loads = c->v[SIM_DR];
	out->l1d_misses = c->v[SIM_D1MR];
	out->ll_misses = c->v[SIM_DLMR];
	out->l1i_misses = c->v[SIM_I1MR];
	out->ll_i_misses = c->v[SIM_ILMR];
	out->cond_branches = c->v[SIM_BC];
	out->cond_mispredicts = c->v[SIM_BCM];
	out->ind_branches = c->v[SIM_BI];
	out->ind_mispredicts = c->v[SIM_BIM];
	out->cycles = cycles;
}

static double site_cycles(const struct sim_site *s)
{
	double c = 0;

	for (int b = 0; b < SIM_NR_BUCKETS; b++)
		c += s->cycles.v[b];
	return c;
}

/* Is site s the executable's own code? */
static bool site_in_exe(const struct dsim *s, const struct sim_site *site);

static bool site_in_program(struct dsim *s, const struct sim_site *site)
{
	const char *fn = dsim_fn(s, site->fn), *file;

	if (site_in_exe(s, site)) /* callgrind names the object: a stripped program is still its own code */
		return true;
	if (!s->have_exe || !fn || !symbol_exe_find_func(&s->x, fn))
		return false;
	file = dsim_abs_file(s, site->file);
	return !file || !s->x.nr_files || symbol_exe_has_file(&s->x, file);
}

/* Choose the scope and collect its sites into s->scope. */
static int choose_scope(struct dsim *s, struct diag *d, const struct sim_estimate *est, struct tdp_err *err)
{
	uint64_t prog_ir = 0, total = est->counts.v[SIM_IR];

	s->in_prog = tdp_calloc(s->nr_all ? s->nr_all : 1, sizeof(*s->in_prog));
	/* filled below before it is read: not zeroed (18,000 sites of 424 bytes on a large program) */
	s->scope = tdp_reallocarray(NULL, s->nr_all ? s->nr_all : 1, sizeof(*s->scope));
	if (!s->in_prog || !s->scope)
		return tdp_err_oom(err);
	for (size_t i = 0; i < s->nr_all; i++) {
		s->in_prog[i] = site_in_program(s, &s->all[i]);
		if (s->in_prog[i])
			prog_ir += s->all[i].cost.v[SIM_IR];
	}
	d->scope_insn_pct = total ? 100.0 * (double)prog_ir / (double)total : NAN;
	if (!s->have_exe) {
		d->scope = DIAG_SCOPE_WHOLE_RUN;
		snprintf(d->scope_reason, sizeof(d->scope_reason),
			 "the whole run: the executable could not be read, so its own code cannot be told apart");
	} else if (prog_ir && d->scope_insn_pct >= DIAG_SCOPE_MIN_PCT) {
		d->scope = DIAG_SCOPE_PROGRAM;
		snprintf(d->scope_reason, sizeof(d->scope_reason),
			 "the program's own code (%.1f %% of the instructions run); the dynamic loader's start-up "
			 "and the libraries are left out",
			 d->scope_insn_pct);
	} else {
		d->scope = DIAG_SCOPE_WHOLE_RUN;
		snprintf(d->scope_reason, sizeof(d->scope_reason),
			 "the whole run: the program's own code ran only %.1f %% of the instructions (the work is in "
			 "libraries or child processes)",
			 isnan(d->scope_insn_pct) ? 0.0 : d->scope_insn_pct);
	}
	if (d->scope == DIAG_SCOPE_PROGRAM && !(d->scope_object = tdp_strdup(s->o->exe)))
		return tdp_err_oom(err);
	for (size_t i = 0; i < s->nr_all; i++)
		if (d->scope == DIAG_SCOPE_WHOLE_RUN || s->in_prog[i])
			s->scope[s->nr_scope++] = s->all[i];
	return 0;
}

/* Add site z's counts and cycles to site into. */
static void merge_site(struct sim_site *into, const struct sim_site *z)
{
	sim_site_merge(into, z);
}

/*
 * Valgrind charges code with line 0 in the line table (clang's jump-table
 * dispatch of a switch) to no line at all, so a mispredicted dispatch would have
 * no site. Give each such line-0 site with branches of the executable's own code
 * to the line that owns it (symbol_exe_line0_owner), merged with that line's site.
 */
static void own_line0(struct dsim *s, struct diag *d)
{
	size_t owned = 0;

	if (!s->have_exe)
		return;
	for (size_t i = 0; i < s->nr_scope; i++) {
		struct sim_site *z = &s->scope[i];
		const char *fn = dsim_fn(s, z->fn), *file = dsim_abs_file(s, z->file);
		uint64_t owner;
		size_t j;

		if (z->line || !fn || !file || !sim_site_branches(z) || !site_in_program(s, z))
			continue;
		owner = symbol_exe_line0_owner(&s->x, file, fn, z->cost.v[SIM_BI] > z->cost.v[SIM_BC]);
		if (!owner)
			continue;
		for (j = 0; j < s->nr_scope; j++)
			if (j != i && s->scope[j].file == z->file && s->scope[j].fn == z->fn &&
			    s->scope[j].line == owner)
				break;
		if (!owned++) {
			char *shown = dsim_display_file(s, file);

			/* d->notes borrows: the text lives in d */
			snprintf(d->line0_note, sizeof(d->line0_note),
				 "%s:%llu includes the code of %s that has line 0 in the line table (compiler-made, "
				 "such as a switch's jump-table dispatch), which valgrind charges to no line",
				 shown ? shown : file, (unsigned long long)owner, fn);
			tdp_free(shown);
			diag_add_note(d, d->line0_note);
		}
		if (j == s->nr_scope) {
			z->line = owner;
			continue;
		}
		merge_site(&s->scope[j], z);
		s->scope[i--] = s->scope[--s->nr_scope];
	}
}

/* The estimate of the scope's sites: the sums sim_estimate() makes, over these lines only. */
static void scope_estimate(const struct dsim *s, const struct sim_machine *m, const struct sim_core *core,
			   struct sim_estimate *out)
{
	sim_estimate_sites(s->scope, s->nr_scope, m, core, out);
}

enum sim_bucket dsim_bucket(const char *category)
{
	if (category && !strcmp(category, "bad_speculation"))
		return SIM_BAD_SPECULATION;
	if (category && !strcmp(category, "frontend_bound"))
		return SIM_FRONTEND_BOUND;
	if (category && !strcmp(category, "backend_bound"))
		return SIM_BACKEND_BOUND;
	return SIM_RETIRING;
}

/* The ranked sites of the category's bucket into d->sites (the top o->top). */
/*
 * Frontend's next step by its largest cause over the scope's lines: resteers (after
 * mispredicts, at indirect branches), the taken-branch fetch limit, or i-cache misses
 * (the default step, diag_next_step()).
 */
static void frontend_next_step(const struct dsim *s, struct diag *d)
{
	struct dsim_fe f = { 0 };

	for (size_t i = 0; i < s->nr_scope; i++)
		dsim_fe_add(&f, &s->scope[i]);
	if (f.resteer > f.icache && f.resteer >= f.bandwidth)
		d->next_step = f.mispredicts >= f.indirect ? "the front end refills after the mispredicts: make the branches ranked below "
					    "predictable or branchless first, then run 'tdprof why' again"
					  : "the front end is redirected at every indirect call or jump ranked below: call "
					    "the usual target directly (devirtualise), inline it, or take the dispatch out of "
					    "the hot loop";
	else if (f.bandwidth > f.icache)
		d->next_step = "the front end delivers too few µops: take taken branches out of the hot loops ranked "
			       "below (the common case as the fall-through, small conditionals as selects, calls "
			       "inlined) and measure them with 'tdprof loop'";
}

static int rank_sites(struct dsim *s, struct diag *d, enum sim_bucket b, struct tdp_err *err)
{
	size_t n = 0;

	sim_sites_sort(s->scope, s->nr_scope, b);
	/* the sites the bucket charges anything to (Retiring: every line that ran) */
	while (n < s->nr_scope && n < s->o->top &&
	       (b == SIM_RETIRING ? s->scope[n].cost.v[SIM_IR] > 0 : s->scope[n].cycles.v[b] > 0))
		n++;
	d->sites = tdp_calloc(n ? n : 1, sizeof(*d->sites));
	if (!d->sites)
		return tdp_err_oom(err);
	for (size_t i = 0; i < n; i++) {
		const struct sim_site *ss = &s->scope[i];
		struct diag_site *ds = &d->sites[d->nr_sites++];
		const char *fn = dsim_fn(s, ss->fn), *file = dsim_abs_file(s, ss->file);

		ds->file = dsim_display_file(s, file);
		ds->function = fn ? tdp_strdup(fn) : NULL;
		if ((file && !ds->file) || (fn && !ds->function))
			return tdp_err_oom(err);
		ds->line = ss->line;
		ds->in_program = d->scope == DIAG_SCOPE_PROGRAM || site_in_program(s, ss);
		dsim_counts(&ss->cost, site_cycles(ss), &ds->c);
		ds->executions = ss->execs;
		ds->share = s->est.cycles > 0 ? 100.0 * ss->cycles.v[b] / s->est.cycles : NAN;
		ds->stream = ss->stream;
		diag_site_derive(d, ds);
	}
	return 0;
}

/* The executed branch instructions valgrind counted at one line (callgrind: per address). */
struct line_insn {
	uint64_t addr, branches, mispredicts;
};

#define MAX_LINE_INSNS 64

static size_t line_insns(const struct sim_profile *p, const struct sim_site *top, struct line_insn *v, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nr; i++) {
		const struct sim_entry *e = &p->v[i];
		size_t k;

		if (e->file != top->file || e->fn != top->fn || e->line != top->line || !e->addr ||
		    !(e->cost.v[SIM_BC] + e->cost.v[SIM_BI]))
			continue;
		for (k = 0; k < n && v[k].addr != e->addr; k++)
			;
		if (k == n) {
			if (n == max)
				continue;
			memset(&v[n++], 0, sizeof(v[0]));
			v[k].addr = e->addr;
		}
		v[k].branches += e->cost.v[SIM_BC] + e->cost.v[SIM_BI];
		v[k].mispredicts += e->cost.v[SIM_BCM] + e->cost.v[SIM_BIM];
	}
	return n;
}

/*
 * The runtime-minus-link-time offset of the executable's code in valgrind's
 * addresses (a PIE is loaded at a page-aligned base; 0 otherwise): the page-aligned
 * offset under which the most of the line's executed branches land on its branch
 * instructions. Returns false when none fits.
 */
static bool branch_delta(const struct line_insn *v, size_t nv, const struct symbol_exe_branch *b, size_t nb,
			 uint64_t *delta)
{
	size_t best = 0;

	for (size_t i = 0; i < nv; i++) {
		for (size_t k = 0; k < nb; k++) {
			uint64_t cand;
			size_t hits = 0;

			if (v[i].addr < b[k].addr || ((v[i].addr - b[k].addr) & 0xfff))
				continue;
			cand = v[i].addr - b[k].addr;
			for (size_t j = 0; j < nv; j++)
				for (size_t m = 0; m < nb; m++)
					hits += v[j].addr - cand == b[m].addr;
			if (hits > best) {
				best = hits;
				*delta = cand;
			}
		}
	}
	return best > 0;
}

static int cmp_branch_guilt(const void *a, const void *b)
{
	const struct diag_branch *x = a, *y = b;

	if (x->mispredicts != y->mispredicts)
		return x->mispredicts < y->mispredicts ? 1 : -1;
	if (x->executions != y->executions)
		return x->executions < y->executions ? 1 : -1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * The top site's branches with their own counts, when the run counted per
 * instruction (callgrind): one source line may hold several branches (a loop's
 * exit test and the data-dependent test), and the line's rate averages them.
 */
static void top_branches(struct dsim *s, struct diag *d, const struct sim_site *top, const char *file)
{
	struct symbol_exe_branch b[SYMBOL_EXE_MAX_LINE_BRANCHES];
	struct line_insn v[MAX_LINE_INSNS];
	size_t nb, nv;
	uint64_t delta = 0;

	if (!s->p->has_addr || !(nv = line_insns(s->p, top, v, MAX_LINE_INSNS)) ||
	    !(nb = symbol_exe_line_branches(&s->x, file, top->line, b, SYMBOL_EXE_MAX_LINE_BRANCHES)) ||
	    !branch_delta(v, nv, b, nb, &delta))
		return;
	for (size_t k = 0; k < nb && d->nr_branches < DIAG_MAX_BRANCHES; k++) {
		struct diag_branch *o = &d->branches[d->nr_branches];

		if (b[k].branch_type != BRANCH_TYPE_COND && b[k].branch_type != BRANCH_TYPE_IND &&
		    b[k].branch_type != BRANCH_TYPE_IND_CALL)
			continue; /* valgrind simulates only these */
		memset(o, 0, sizeof(*o));
		o->addr = b[k].addr;
		o->branch_type = b[k].branch_type;
		snprintf(o->text, sizeof(o->text), "%s", b[k].text);
		for (size_t i = 0; i < nv; i++) {
			if (v[i].addr - delta == b[k].addr) {
				o->executions = v[i].branches;
				o->mispredicts = v[i].mispredicts;
			}
		}
		d->nr_branches++;
	}
	qsort(d->branches, d->nr_branches, sizeof(d->branches[0]), cmp_branch_guilt);
}

/* Say why the executable's sites have no source line, and how to get them. */
static void note_lines(struct dsim *s, struct diag *d)
{
	size_t n = 0, lineless = 0;

	for (size_t i = 0; i < s->nr_all; i++) {
		const struct sim_site *ss = &s->all[i];

		if (!ss->cost.v[SIM_IR] || !(site_in_exe(s, ss) || (s->in_prog && s->in_prog[i])))
			continue;
		n++;
		lineless += !ss->line || ss->file == SIM_NO_NAME;
	}
	if (!n || !lineless || !s->have_exe)
		return;
	snprintf(d->lines_note, sizeof(d->lines_note),
		 "%zu of the %zu sites in '%s' have no source line: it has %s. Rebuild with -g (or install its "
		 "debug info: a -dbgsym/-debuginfo package, or debuginfod) to see lines; until then sites show "
		 "as function and address%s", lineless, n, s->o->exe,
		 s->x.dwarf ? "no line table for them"
		 : s->x.nr_funcs ? "no debug info (built without -g)"
				 : "no debug info and no symbol table (stripped)",
		 s->p->has_addr ? ", with the disassembly around the top branch" : "");
	diag_add_note(d, d->lines_note);
}

/* The site's code is the executable's (valgrind's object name is its path). */
static bool site_in_exe(const struct dsim *s, const struct sim_site *site)
{
	const char *obj = site->obj == SIM_NO_NAME ? NULL : sim_profile_name(s->p, site->obj);

	return s->have_exe && obj && s->o->exe && !strcmp(obj, s->o->exe);
}

/* valgrind names a function no symbol names by its address, "0x0000000000001152": that address, else 0. */
static uint64_t stripped_start(const char *fn)
{
	char *end = NULL;
	unsigned long long v;

	if (!fn || strncmp(fn, "0x", 2))
		return 0;
	v = strtoull(fn + 2, &end, 16);
	return end && !*end ? (uint64_t)v : 0;
}

/*
 * A top site without a source line (no -g, or stripped) whose branch callgrind
 * located: its ELF virtual address, and the disassembly around it. valgrind gives
 * the executable's addresses as loaded; the offset is 0, or where the site's
 * function starts (its first instruction, which ran, against the symbol's address):
 * the one under which the address is a branch instruction. Returns true when done.
 */
static bool lineless_branch(struct dsim *s, struct diag *d, const struct sim_site *top)
{
	const char *fn = dsim_fn(s, top->fn);
	const struct symbol_exe_func *f = s->have_exe && fn ? symbol_exe_find_func(&s->x, fn) : NULL;
	struct tdp_err err = TDP_ERR_INIT;
	uint64_t cand[2] = { 0, 0 }, lowest = UINT64_MAX, v = 0;
	size_t nc = 1;

	if (!top->branch_addr || !site_in_exe(s, top))
		return false;
	for (size_t i = 0; f && i < s->p->nr; i++) {
		const struct sim_entry *e = &s->p->v[i];

		if (e->fn == top->fn && e->obj == top->obj && e->addr && e->addr < lowest)
			lowest = e->addr;
	}
	if (f && lowest != UINT64_MAX && lowest > f->addr && !((lowest - f->addr) & 0xfff))
		cand[nc++] = lowest - f->addr;
	for (size_t i = 0; i < nc && !v; i++)
		if (top->branch_addr >= cand[i] && symbol_exe_branch_at(&s->x, top->branch_addr - cand[i]))
			v = top->branch_addr - cand[i];
	if (!v)
		return false;
	if (d->nr_sites)
		d->sites[0].address = v;
	if (symbol_exe_disasm_addr(&s->x, v, stripped_start(fn), 8, &d->disasm, &err)) {
		snprintf(d->disasm_why, sizeof(d->disasm_why), "%s", err.msg);
		return true;
	}
	d->has_disasm = true;
	return true;
}

/* Bad Speculation: the disassembly around the top site's branch. */
static void drill_branches(struct dsim *s, struct diag *d)
{
	const struct sim_site *top = s->nr_scope ? &s->scope[0] : NULL;
	const char *file = top ? dsim_abs_file(s, top->file) : NULL;
	struct tdp_err err = TDP_ERR_INIT;
	uint64_t want;

	if (top && (!file || !top->line) && lineless_branch(s, d, top))
		return;
	if (!top || !file || !top->line) {
		snprintf(d->disasm_why, sizeof(d->disasm_why), "the top site has no source line (no debug info)");
		return;
	}
	if (!s->have_exe || !s->in_prog_top) {
		snprintf(d->disasm_why, sizeof(d->disasm_why), "the top site is not in the executable");
		return;
	}
	top_branches(s, d, top, file);
	want = d->nr_branches && d->branches[0].mispredicts ? d->branches[0].addr : 0;
	if (symbol_exe_disasm(&s->x, file, top->line, top->cost.v[SIM_BIM] > top->cost.v[SIM_BCM], want, 8,
			      &d->disasm, &err)) {
		snprintf(d->disasm_why, sizeof(d->disasm_why), "%s", err.msg);
		return;
	}
	d->has_disasm = true;
}

struct fn_agg {
	uint32_t fn, file;
	uint64_t ir, i1mr;
};

static int cmp_agg_fn(const void *a, const void *b)
{
	const struct fn_agg *x = a, *y = b;

	return x->fn < y->fn ? -1 : x->fn > y->fn;
}

static int cmp_agg_i1(const void *a, const void *b)
{
	const struct fn_agg *x = a, *y = b;

	if (x->i1mr != y->i1mr)
		return x->i1mr < y->i1mr ? 1 : -1;
	return x->ir < y->ir ? 1 : x->ir > y->ir ? -1 : 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Frontend: the hot code footprint, per function, most i-cache misses first. */
static int drill_footprint(struct dsim *s, struct diag *d, const struct sim_machine *m, struct tdp_err *err)
{
	struct fn_agg *a = tdp_calloc(s->nr_scope ? s->nr_scope : 1, sizeof(*a));
	uint32_t *files = tdp_calloc(s->nr_scope ? s->nr_scope : 1, sizeof(*files));
	size_t n = 0, nf = 0;
	int ret = 0;

	if (!a || !files) {
		ret = tdp_err_oom(err);
		goto out;
	}
	for (size_t i = 0; i < s->nr_scope; i++)
		if (s->scope[i].cost.v[SIM_IR])
			a[n++] = (struct fn_agg){ s->scope[i].fn, s->scope[i].file, s->scope[i].cost.v[SIM_IR],
						  s->scope[i].cost.v[SIM_I1MR] };
	qsort(a, n, sizeof(*a), cmp_agg_fn);
	{
		size_t w = 0;

		for (size_t i = 0; i < n; i++) {
			if (w && a[w - 1].fn == a[i].fn) {
				a[w - 1].ir += a[i].ir;
				a[w - 1].i1mr += a[i].i1mr;
				continue;
			}
			a[w++] = a[i];
		}
		n = w;
	}
	d->footprint.functions = n;
	d->footprint.i1_bytes = m->i1.size;
	for (size_t i = 0; i < n; i++) {
		const char *fn = dsim_fn(s, a[i].fn);
		const struct symbol_exe_func *f = s->have_exe && fn ? symbol_exe_find_func(&s->x, fn) : NULL;

		if (f)
			d->footprint.bytes += f->size;
		if (a[i].file != SIM_NO_NAME)
			files[nf++] = a[i].file;
	}
	qsort(files, nf, sizeof(*files), cmp_u32);
	for (size_t i = 0; i < nf; i++)
		d->footprint.files += !i || files[i] != files[i - 1];
	qsort(a, n, sizeof(*a), cmp_agg_i1);
	for (size_t i = 0; i < n && d->footprint.nr < DIAG_MAX_FUNCS; i++) {
		struct diag_func *df = &d->footprint.v[d->footprint.nr];
		const char *fn = dsim_fn(s, a[i].fn);
		const struct symbol_exe_func *f = s->have_exe && fn ? symbol_exe_find_func(&s->x, fn) : NULL;

		df->name = tdp_strdup(fn ? fn : "???");
		df->file = dsim_display_file(s, dsim_abs_file(s, a[i].file));
		if (!df->name) {
			tdp_free(df->file);
			ret = tdp_err_oom(err);
			goto out;
		}
		df->bytes = f ? f->size : 0;
		df->instructions = a[i].ir;
		df->l1i_misses = a[i].i1mr;
		d->footprint.nr++;
	}
	d->has_footprint = true;
out:
	tdp_free(a);
	tdp_free(files);
	return ret;
}

/* Retiring: the tdprof loop command for the hot function. */
static int drill_hot_loop(struct dsim *s, struct diag *d, struct tdp_err *err)
{
	const struct diag_site *top = d->nr_sites ? &d->sites[0] : NULL;
	const char *abs = s->nr_scope ? dsim_abs_file(s, s->scope[0].file) : NULL;

	if (!top || !top->function || !top->file)
		return 0;
	return diag_suggest_loop(d, s->have_exe ? &s->x : NULL, abs, top->file, top->function, err);
}

/*
 * The scope's functions, each with its own top-down (byfunc.h); on failure none.
 * Called when s->scope holds the scope's sites as choose_scope() collected them
 * (before own_line0() merges any): the sites of `all` in the scope, in order.
 */
static void by_function(struct dsim *s, struct diag *d, const struct sim_core *core)
{
	struct tdp_err err = TDP_ERR_INIT;

	d->has_functions = !byfunc_from_sites(s->scope, s->nr_scope, s->p, s->m, core, &d->functions, &err);
}

int diag_from_sim(struct diag *d, const struct sim_profile *p, const struct sim_machine *m,
		  const struct sim_estimate *est, const struct diag_opts *o, struct tdp_err *err)
{
	struct dsim s;
	struct sim_profile view;
	const struct metric_node *cat, *child;
	enum sim_bucket b;
	int ret;

	memset(&s, 0, sizeof(s));
	s.p = p;
	s.m = m;
	s.o = o;
	d->backend = BACKEND_SIM;
	d->estimate = true;
	snprintf(d->machine_name, sizeof(d->machine_name), "%s", m->name);
	if (sim_profile_from_tool(p))
		sim_machine_describe_tool(m, d->machine, sizeof(d->machine));
	else
		sim_machine_describe(m, d->machine, sizeof(d->machine));
	if (p->creator[0]) { /* which simulator ran: tdprof's tool or valgrind's */
		size_t len = strlen(d->machine);

		snprintf(d->machine + len, sizeof(d->machine) - len, "; simulated by %s", p->creator);
	}
	d->width = m->width;
	if (o->exe) {
		struct tdp_err xerr = TDP_ERR_INIT;

		s.have_exe = symbol_exe_open(&s.x, o->exe, &xerr) == 0;
		if (!s.have_exe)
			diag_add_note(d, "the executable could not be read: no scope, no disassembly");
	}
	s.files = tdp_calloc(p->names_nr ? p->names_nr : 1, sizeof(*s.files));
	if (!s.files) {
		ret = tdp_err_oom(err);
		goto out;
	}
	/* the sites the estimate was summed from, when its caller kept them (measure/): the same
	 * sim_sites_build_core() of p, m and est->core that would be made here */
	if (est->sites) {
		s.all = est->sites;
		s.nr_all = est->nr_sites;
	} else if ((ret = sim_sites_build_core(p, m, est->core, &s.built_all, &s.nr_all, err))) {
		goto out;
	} else {
		s.all = s.built_all;
	}
	if ((ret = choose_scope(&s, d, est, err)))
		goto out;
	/* each function of the scope with its own top-down (a diagnosis without it is still one);
	 * est->core is the scope estimate's core too (sim_estimate_sites() keeps a valid one) */
	by_function(&s, d, est->core);
	own_line0(&s, d);
	if (d->scope == DIAG_SCOPE_PROGRAM)
		scope_estimate(&s, m, est->core, &s.est);
	else
		s.est = *est;
	if (s.est.cycles <= 0) {
		ret = tdp_err_set(err, TDP_EANALYSIS, "cannot estimate: the simulated run costs no cycle");
		goto out;
	}
	dsim_counts(&s.est.counts, s.est.cycles, &d->totals);

	/* triage over the scope's counts, with perf's names */
	sim_profile_init(&view);
	view.have = p->have;
	view.totals = s.est.counts;
	if ((ret = sim_estimate_countset(&view, &s.est, &d->counts, err)))
		goto out;
	d->counts.elapsed_ns = -1;
	diag_note_short_run(d);
	triage_metrics_compute(&d->counts, &d->triage);
	{
		/* the signals ranked by what each event costs on the simulated machine */
		const struct triage_costs costs = { m->branch_penalty, m->i1_latency, m->mem_latency };

		triage_route_costs(&d->triage, &costs, &d->route);
	}

	/* the tree and the verdict */
	model_tree_from_sim(&s.est.topdown, m->width, o->level, &d->tree);
	model_classify(&d->tree);
	d->has_tree = true;
	if (d->scope == DIAG_SCOPE_PROGRAM) {
		model_tree_from_sim(&est->topdown, m->width, o->level, &d->whole);
		model_classify(&d->whole);
		d->has_whole = true;
	}
	d->category = diag_category(&d->tree);
	cat = metric_tree_find(&d->tree, d->category);
	child = diag_largest_child(&d->tree, d->category);
	d->category_value = cat ? cat->value : NAN;
	d->over_threshold = cat && cat->flagged;
	d->node = child ? child->key : NULL;
	d->next_step = diag_next_step(d->category);
	snprintf(d->reason, sizeof(d->reason), "%s is an estimated %.1f %% of slots (%s)",
		 model_node_label(d->category), d->category_value,
		 d->over_threshold ? "above its threshold" : "no stall is above its threshold: the largest stall");

	/* the drill-down into the category */
	b = dsim_bucket(d->category);
	if ((ret = rank_sites(&s, d, b, err)))
		goto out;
	s.in_prog_top = s.nr_scope && (d->scope == DIAG_SCOPE_PROGRAM || site_in_program(&s, &s.scope[0]));
	note_lines(&s, d);
	switch (b) {
	case SIM_BAD_SPECULATION:
		d->drill = DIAG_DRILL_BRANCHES;
		d->ranked_by = "mispredicts";
		drill_branches(&s, d);
		break;
	case SIM_FRONTEND_BOUND:
		d->drill = DIAG_DRILL_ICACHE;
		d->ranked_by = "front-end slots lost";
		frontend_next_step(&s, d);
		ret = drill_footprint(&s, d, m, err);
		break;
	case SIM_BACKEND_BOUND:
		if (!(d->node && !strcmp(d->node, "core_bound"))) {
			d->drill = DIAG_DRILL_MEMORY;
			d->ranked_by = "data misses";
			break;
		}
		/* Core Bound (the block model's dependency chains and ports): the hot loop
		 * and 'tdprof loop', whose llvm-mca view names the chain */
		d->next_step = "shorten the dependency chain or spread the work over more execution ports in the "
			       "hot loop below (independent accumulators, cheaper instructions than divides, "
			       "vectorisation) and measure it alone with 'tdprof loop'";
		/* fall through */
	default:
		if (b == SIM_RETIRING && d->node && !strcmp(d->node, "heavy_operations"))
			d->next_step = "replace the multi-µop and microcoded instructions of the hot loop below (a "
				       "repeated string instruction for short copies, x87, legacy forms) with "
				       "single-µop ones, and measure it alone with 'tdprof loop'";
		d->drill = DIAG_DRILL_HOT_LOOP;
		d->ranked_by = "instructions";
		ret = drill_hot_loop(&s, d, err);
		break;
	}
	if (!ret)
		ret = dsim_findings(&s, d, b, err);
	if (!ret)
		diag_sort_findings(d);
out:
	for (size_t i = 0; s.files && i < p->names_nr; i++)
		tdp_free(s.files[i]);
	tdp_free(s.files);
	tdp_free(s.in_prog);
	tdp_free(s.scope);
	sim_sites_free(s.built_all);
	symbol_exe_close(&s.x);
	return ret;
}
