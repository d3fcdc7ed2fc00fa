/*
 * drill-pmu-findings.c: what the PMU drill-down concludes from its ranked lines
 * (see drill-pmu.h): the hot code footprint per function (Frontend), the
 * `tdprof loop` command for the hottest function whose source exists (Backend,
 * Retiring), and the findings: each guilty site with the sampled figures behind
 * it and a fix from the knowledge base, or, without branch records, why the
 * branches could not be traced.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "diagnose/diagnose-internal.h"
#include "diagnose/drill-pmu-internal.h"
#include "model/advice.h"
#include "diagnose/sim-internal.h"
#include "model/model.h"

/* One function of the samples. */
struct dpmu_func {
	const struct dpmu_line *first; /* its heaviest line (name, file, binary) */
	uint64_t samples;
	uint64_t size;
};

/* A line and its rank, for sorting by function while keeping the rank order within one. */
struct ranked_line {
	const struct dpmu_line *l;
	size_t rank;
};

static int cmp_func_key(const struct dpmu_line *a, const struct dpmu_line *b)
{
	int c;

	if (a->kernel != b->kernel)
		return a->kernel ? 1 : -1;
	if (!a->dso || !b->dso)
		c = (a->dso != NULL) - (b->dso != NULL);
	else
		c = strcmp(a->dso, b->dso);
	if (c)
		return c;
	if (!a->function || !b->function)
		return (a->function != NULL) - (b->function != NULL);
	return strcmp(a->function, b->function);
}

static int cmp_ranked(const void *pa, const void *pb)
{
	const struct ranked_line *a = pa, *b = pb;
	int c = cmp_func_key(a->l, b->l);

	return c ? c : a->rank < b->rank ? -1 : a->rank > b->rank;
}

static int cmp_func_samples(const void *pa, const void *pb)
{
	const struct dpmu_func *a = pa, *b = pb;

	if (a->samples != b->samples)
		return a->samples < b->samples ? 1 : -1;
	return cmp_func_key(a->first, b->first);
}

/* The functions of the lines, most samples first, into *out (tdp_free); *nr of them. */
static int functions(const struct dpmu *s, struct dpmu_func **out, size_t *nr, struct tdp_err *err)
{
	struct ranked_line *v = tdp_calloc(s->nr_lines ? s->nr_lines : 1, sizeof(*v));
	struct dpmu_func *f = tdp_calloc(s->nr_lines ? s->nr_lines : 1, sizeof(*f));
	size_t n = 0;

	if (!v || !f) {
		tdp_free(v);
		tdp_free(f);
		return tdp_err_oom(err);
	}
	/* the lines are ranked: the first line of a function, by rank, is its heaviest */
	for (size_t i = 0; i < s->nr_lines; i++)
		v[i] = (struct ranked_line){ &s->lines[i], i };
	qsort(v, s->nr_lines, sizeof(*v), cmp_ranked);
	for (size_t i = 0; i < s->nr_lines; i++) {
		if (!n || cmp_func_key(f[n - 1].first, v[i].l))
			f[n++] = (struct dpmu_func){ v[i].l, 0, 0 };
		f[n - 1].samples += v[i].l->samples;
		if (v[i].l->func_size > f[n - 1].size)
			f[n - 1].size = v[i].l->func_size;
	}
	qsort(f, n, sizeof(*f), cmp_func_samples);
	tdp_free(v);
	*out = f;
	*nr = n;
	return 0;
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int dpmu_footprint(struct dpmu *s, struct tdp_err *err)
{
	struct diag_footprint *fp = &s->d->footprint;
	struct dpmu_func *f = NULL;
	const char **files = NULL;
	size_t nf = 0, n = 0;
	int ret = functions(s, &f, &n, err);

	if (ret)
		return ret;
	files = tdp_calloc(s->nr_lines ? s->nr_lines : 1, sizeof(*files));
	if (!files) {
		ret = tdp_err_oom(err);
		goto out;
	}
	for (size_t i = 0; i < s->nr_lines; i++)
		if (s->lines[i].file)
			files[nf++] = s->lines[i].file;
	qsort(files, nf, sizeof(*files), cmp_cstr);
	for (size_t i = 0; i < nf; i++)
		fp->files += !i || strcmp(files[i], files[i - 1]);
	fp->functions = n;
	for (size_t i = 0; i < n; i++)
		fp->bytes += f[i].size;
	for (size_t i = 0; i < n && fp->nr < DIAG_MAX_FUNCS; i++) {
		struct diag_func *df = &fp->v[fp->nr];

		df->name = dpmu_function_label(f[i].first);
		df->file = dpmu_display_file(s, f[i].first);
		if (!df->name || (f[i].first->file && !df->file)) {
			tdp_free(df->name);
			tdp_free(df->file);
			ret = tdp_err_oom(err);
			goto out;
		}
		df->bytes = f[i].size;
		df->samples = f[i].samples;
		fp->nr++;
	}
	s->d->has_footprint = true;
out:
	tdp_free(files);
	tdp_free(f);
	return ret;
}

int dpmu_loop_command(struct dpmu *s, struct tdp_err *err)
{
	struct dpmu_func *f = NULL;
	struct strbuf sb = STRBUF_INIT;
	size_t n = 0;
	int ret = functions(s, &f, &n, err);

	for (size_t i = 0; !ret && i < n; i++) {
		const struct dpmu_line *l = f[i].first;
		char abs[SYMBOL_EXE_MAX_PATH];
		const char *src = dpmu_source(s, l, abs, sizeof(abs));
		char *shown;

		/* the hottest function of the program whose source file is here */
		if (!l->function || !src || src[0] != '/' || !dpmu_in_program(s, l) || access(src, R_OK))
			continue;
		if (!(shown = dpmu_display_file(s, l))) {
			ret = tdp_err_oom(err);
			break;
		}
		ret = diag_suggest_loop(s->d, s->have_exe ? &s->x : NULL, src, shown, l->function, err);
		tdp_free(shown);
		break;
	}
	strbuf_release(&sb);
	tdp_free(f);
	return ret;
}

/* ---------------------------------------------------------------------------
 * Findings
 * ------------------------------------------------------------------------- */

/* The share of slots a site accounts for: the category's times the site's part. */
static double slots_share(const struct diag *d, const struct diag_site *ds)
{
	return isnan(d->category_value) ? NAN : d->category_value * ds->share / 100.0;
}

static const char *method_words(const struct diag *d)
{
	static const struct {
		const char *name, *label;
	} labels[] = { { "lbr", "Intel LBR" }, { "lbr_ext_v2", "AMD LbrExtV2" }, { "brs", "AMD BRS" },
		       { "brbe", "Arm BRBE" }, { "spe", "Arm SPE" } };

	if (d->sampling.method == DIAG_SAMPLE_SPE)
		return "Arm SPE";
	for (size_t i = 0; d->sampling.facility && i < sizeof(labels) / sizeof(labels[0]); i++)
		if (!strcmp(d->sampling.facility, labels[i].name))
			return labels[i].label;
	return "branch stacks";
}

/* The knowledge-base node of key in t: key or its nearest ancestor with an entry; fallback when none. */
static const char *kb_node_of(const struct metric_tree *t, const char *key, const char *fallback)
{
	const struct metric_node *n = metric_tree_find(t, key);

	for (int i = 0; n && i <= MODEL_MAX_LEVEL; i++, n = n->parent ? metric_tree_find(t, n->parent) : NULL)
		if (advice_find(n->key))
			return advice_find(n->key)->key;
	return fallback;
}

/* A site of the dominant leaf's Locate-with samples: the leaf located there, and the fix of its node. */
static void located(const struct dpmu *s, size_t i, struct strbuf *title, struct strbuf *ev, struct strbuf *fix,
		    const char **node)
{
	const struct diag *d = s->d;
	const struct diag_site *ds = &d->sites[i];
	const struct diag_sampling *smp = &d->sampling;
	const struct metric_node *leaf = metric_tree_find(&d->tree, smp->located);
	const char *label = leaf && leaf->label ? leaf->label : model_node_label(smp->located);

	*node = kb_node_of(&d->tree, smp->located, d->category);
	strbuf_addf(title, "%s located at ", label);
	diag_add_where(title, ds->file, ds->line, ds->function);
	if (smp->loads)
		strbuf_addf(ev, "%.1f %% of the loads Arm SPE sampled (", ds->share);
	else
		strbuf_addf(ev, "%.1f %% of the %s samples (", ds->share, smp->event);
	diag_add_grouped(ev, ds->samples);
	strbuf_adds(ev, " of ");
	diag_add_grouped(ev, smp->samples);
	if (smp->loads)
		strbuf_adds(ev, ") are on this line");
	else
		strbuf_addf(ev, "), the vendor's Locate-with event for %s, land on this line", label);
	if (leaf && !isnan(leaf->value))
		strbuf_addf(ev, "; %s is %.1f %% of slots", label, leaf->value);
	/* PEBS data addresses: the data line this code touched most */
	for (size_t k = 0; k < d->nr_data; k++) {
		const struct diag_data *dd = &d->data[k];

		if (dd->line != ds->line || !dd->file || !ds->file || strcmp(dd->file, ds->file))
			continue;
		strbuf_addf(ev, "; its hottest data is the line at 0x%llx", (unsigned long long)dd->addr);
		if (dd->region[0])
			strbuf_addf(ev, " (%s%s)", dd->region, dd->offset ? ", a file mapping" : "");
		strbuf_addf(ev, ", %.1f %% of the samples with a data address", dd->share);
		if (dd->latency >= 0)
			strbuf_addf(ev, ", its loads waiting %.0f cycles on average", dd->latency);
		break;
	}
	diag_kb_fix(*node, NULL, fix);
	if (leaf && leaf->def && leaf->def->hint)
		strbuf_addf(fix, " The vendor's hint: %s", leaf->def->hint);
	if (d->loop_command)
		strbuf_addf(fix, " Measure the loop alone: '%s'.", d->loop_command);
}

/* Title, evidence, fix and node of the finding of site i. */
static void describe(const struct dpmu *s, size_t i, struct strbuf *title, struct strbuf *ev, struct strbuf *fix,
		     const char **node)
{
	const struct diag *d = s->d;
	const struct diag_site *ds = &d->sites[i];
	const struct diag_counts *c = &ds->c;
	const struct diag_sampling *smp = &d->sampling;
	uint64_t br = c->cond_branches + c->ind_branches, mis = c->cond_mispredicts + c->ind_mispredicts;
	bool ind = c->ind_mispredicts > c->cond_mispredicts || (!smp->has_flags && c->ind_branches > c->cond_branches);

	if (d->drill == DIAG_DRILL_BRANCHES && smp->method != DIAG_SAMPLE_IP) {
		*node = "branch_mispredicts";
		if (smp->has_flags) {
			strbuf_adds(title, ind ? "unpredictable indirect branch at " : "unpredictable branch at ");
			diag_add_where(title, ds->file, ds->line, ds->function);
			diag_add_grouped(ev, mis);
			strbuf_adds(ev, " of ");
			diag_add_grouped(ev, br);
			strbuf_addf(ev, " sampled executions of this line's branches mispredicted (%.1f %%); they are "
					"%.1f %% of the recording's ",
				    diag_pct(mis, br), ds->share);
			diag_add_grouped(ev, smp->mispredicted);
			strbuf_addf(ev, " mispredicted branch records (%s, ", method_words(d));
		} else {
			strbuf_adds(title, "most taken branch at ");
			diag_add_where(title, ds->file, ds->line, ds->function);
			strbuf_adds(title, " (a candidate)");
			diag_add_grouped(ev, br);
			strbuf_addf(ev, " taken branch records from this line, %.1f %% of the recording's ", ds->share);
			diag_add_grouped(ev, smp->branch_records);
			strbuf_adds(ev, "; AMD BRS records no mispredict flag, so how often they mispredict is unknown (");
		}
		diag_add_grouped(ev, smp->samples);
		strbuf_adds(ev, " samples)");
		if (ind) {
			diag_kb_fix(*node, "Group objects by type", fix);
		} else {
			diag_kb_fix(*node, "data dependency", fix);
			strbuf_addch(fix, ' ');
			diag_kb_fix(*node, "Sort or partition", fix);
		}
		return;
	}
	if (smp->located) {
		located(s, i, title, ev, fix, node);
		return;
	}
	strbuf_adds(title, d->drill == DIAG_DRILL_HOT_LOOP ? "hot loop at " : "hot line at ");
	diag_add_where(title, ds->file, ds->line, ds->function);
	strbuf_addf(ev, "%.1f %% of the cycles samples (", ds->share);
	diag_add_grouped(ev, ds->samples);
	strbuf_adds(ev, " of ");
	diag_add_grouped(ev, smp->samples);
	strbuf_adds(ev, ") land on this line");
	if (d->category && !isnan(d->category_value))
		strbuf_addf(ev, "; %s is %.1f %% of slots", model_node_label(d->category), d->category_value);
	if (d->drill == DIAG_DRILL_MEMORY) {
		const struct metric_node *n = d->node ? metric_tree_find(&d->tree, d->node) : NULL;

		*node = d->node ? d->node : "backend_bound";
		if (n && !isnan(n->value))
			strbuf_addf(ev, ", mostly %s (%.1f %%)", model_node_label(n->key), n->value);
		diag_kb_fix(*node, !strcmp(*node, "memory_bound") ? "linked structures" : NULL, fix);
	} else {
		*node = "light_operations";
		diag_kb_fix("retiring", "algorithm", fix);
		strbuf_addch(fix, ' ');
		diag_kb_fix(*node, "vectorise", fix);
	}
	if (d->loop_command)
		strbuf_addf(fix, " Measure the loop alone: '%s'.", d->loop_command);
	else if (d->loop_note[0])
		strbuf_addf(fix, " To measure it alone: %s.", d->loop_note);
}

static int add(struct diag *d, const struct strbuf *title, const struct strbuf *ev, const struct strbuf *fix,
	       const char *node, int site, double share, struct tdp_err *err)
{
	const struct diag_site *ds = site >= 0 ? &d->sites[site] : NULL;

	if (strbuf_failed(title) || strbuf_failed(ev) || strbuf_failed(fix) ||
	    diag_add_finding(d, &(struct diag_finding){ .title = title->buf, .category = d->category, .node = node,
							 .evidence = ev->buf, .site = site, .fix = fix->buf,
							 .file = ds ? ds->file : NULL,
							 .function = ds ? ds->function : NULL,
							 .line = ds ? ds->line : 0, .share = share }))
		return tdp_err_oom(err);
	return 0;
}

/* Bad Speculation without branch records: why, and the hottest line as the suspect. */
static int untraced(struct dpmu *s, struct tdp_err *err)
{
	struct diag *d = s->d;
	struct strbuf title = STRBUF_INIT, ev = STRBUF_INIT, fix = STRBUF_INIT;
	const struct diag_site *top = d->nr_sites ? &d->sites[0] : NULL;
	int ret;

	strbuf_adds(&title, "the mispredicting branches cannot be traced on this machine");
	strbuf_addf(&ev, "%s", s->plan->reason);
	if (top) {
		strbuf_adds(&ev, "; the hottest line is ");
		diag_add_where(&ev, top->file, top->line, top->function);
		strbuf_addf(&ev, " with %.1f %% of the cycles samples", top->share);
	}
	strbuf_addf(&fix, "Simulate the branches with 'tdprof why --backend=sim -- %s' (valgrind's branch predictor "
			  "names the mispredicting lines), or run this on a machine with Intel LBR, AMD LbrExtV2, Arm "
			  "BRBE or SPE. Meanwhile, for the branches of the hottest lines: ",
		    s->o->command ? s->o->command : "CMD");
	diag_kb_fix("branch_mispredicts", "data dependency", &fix);
	ret = add(d, &title, &ev, &fix, "branch_mispredicts", top ? 0 : -1, NAN, err);
	strbuf_release(&title);
	strbuf_release(&ev);
	strbuf_release(&fix);
	return ret;
}

/* Frontend: the footprint as a whole. */
static int footprint(struct dpmu *s, struct tdp_err *err)
{
	struct diag *d = s->d;
	const struct diag_footprint *f = &d->footprint;
	struct strbuf title = STRBUF_INIT, ev = STRBUF_INIT, fix = STRBUF_INIT;
	uint64_t touched = s->touched_lines * DIAG_PMU_CACHE_LINE;
	int ret;

	strbuf_addf(&title, "hot code footprint: %llu functions", (unsigned long long)f->functions);
	if (f->bytes)
		strbuf_addf(&title, ", %.1f KiB of code", (double)f->bytes / 1024.0);
	strbuf_adds(&ev, "the cycles samples touched ");
	diag_add_grouped(&ev, s->touched_lines);
	strbuf_addf(&ev, " distinct %d-byte lines of code (%.1f KiB at least) in %llu functions from %llu source "
			 "files",
		    DIAG_PMU_CACHE_LINE, (double)touched / 1024.0, (unsigned long long)f->functions,
		    (unsigned long long)f->files);
	if (f->nr)
		strbuf_addf(&ev, "; the hottest, %s, has %.1f %% of them", f->v[0].name,
			    diag_pct(f->v[0].samples, d->sampling.samples));
	if (!isnan(d->triage.l1i_mpki))
		strbuf_addf(&ev, "; %.2f L1i misses per 1000 instructions", d->triage.l1i_mpki);
	diag_kb_fix("frontend_bound", "profile", &fix);
	strbuf_addch(&fix, ' ');
	diag_kb_fix("fetch_latency", "over-inline", &fix);
	ret = add(d, &title, &ev, &fix, "frontend_bound", -1, d->category_value, err);
	strbuf_release(&title);
	strbuf_release(&ev);
	strbuf_release(&fix);
	return ret;
}

static const char *const note_sampled =
	"the sites come from a second run of the workload sampled by the PMU: their figures are samples, "
	"not totals, and the two runs may differ a little";
static const char *const note_lost =
	"some samples were lost (a full ring buffer, or the recording's size limit): the ranking holds, "
	"the counts are low";

/* diag_from_counts() sent the user to `tdprof branches record` for the sites: this is that trace. */
static int retarget(struct diag *d, struct tdp_err *err)
{
	struct strbuf fix = STRBUF_INIT;
	struct diag_finding *f = d->nr_findings ? &d->findings[0] : NULL;

	/* diag_from_counts()'s note says the sites need a trace: they have one now */
	for (size_t i = 0, w = 0, n = d->nr_notes; i < n; i++) {
		if (!strncmp(d->notes[i], "the PMU gives the tree;", 23)) {
			d->nr_notes--;
			continue;
		}
		d->notes[w++] = d->notes[i];
	}
	diag_add_note(d, note_sampled);
	if (d->sampling.lost)
		diag_add_note(d, note_lost);
	if (!f || f->site >= 0 || !d->category || strcmp(d->category, "bad_speculation") || !f->node)
		return 0;
	diag_kb_fix(f->node, NULL, &fix);
	if (strbuf_failed(&fix)) {
		strbuf_release(&fix);
		return tdp_err_oom(err);
	}
	tdp_free(f->fix);
	f->fix = strbuf_detach(&fix);
	return 0;
}

int dpmu_findings(struct dpmu *s, struct tdp_err *err)
{
	struct diag *d = s->d;
	int ret = retarget(d, err);

	/* a finding needs a category: without a verdict (no model) the sites speak alone */
	if (ret || !d->category)
		return ret;
	if (d->drill == DIAG_DRILL_BRANCHES && d->sampling.method == DIAG_SAMPLE_IP)
		return untraced(s, err);
	if (d->drill == DIAG_DRILL_ICACHE)
		return footprint(s, err);
	for (size_t i = 0; i < d->nr_sites && i < DIAG_PMU_SITE_FINDINGS; i++) {
		struct strbuf title = STRBUF_INIT, ev = STRBUF_INIT, fix = STRBUF_INIT;
		const char *node = NULL;

		if (d->sites[i].share < DIAG_PMU_MIN_SHARE || (i && d->sites[i].share <= 0))
			break;
		describe(s, i, &title, &ev, &fix, &node);
		ret = add(d, &title, &ev, &fix, node, (int)i, slots_share(d, &d->sites[i]), err);
		strbuf_release(&title);
		strbuf_release(&ev);
		strbuf_release(&fix);
		if (ret)
			return ret;
	}
	return 0;
}
