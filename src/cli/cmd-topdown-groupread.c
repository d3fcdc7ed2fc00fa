/*
 * cmd-topdown-groupread.c: `tdprof topdown [--by function] -i FILE.data`: a perf.data
 * whose samples read their group (perf record -e '{cycles,instructions,...}:S'), the
 * whole recording's tree from the group's totals and, with --by function, each
 * function's own top-down (diagnose/byfunc-pmu.h). The live `--by function -- CMD`
 * (cmd-topdown-sample.c) records such a file and comes here with it.
 */
#include "cli/cmd.h"
#include "cli/cmd-topdown.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "base/alloc.h"
#include "base/countset.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "cpu/cpu.h"
#include "base/file.h"
#include "diagnose/byfunc-pmu.h"
#include "import/import.h"
#include "model/groups.h"
#include "model/model.h"
#include "report/topdown.h"
#include "symbol/symbol.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool topdown_is_perfdata(const uint8_t *data, size_t size)
{
	return size >= 8 && !memcmp(data, "PERFILE2", 8);
}

static bool regular_file(const char *path)
{
	struct stat st;

	return strcmp(path, "-") && !stat(path, &st) && S_ISREG(st.st_mode);
}

int topdown_open_import(const char *path, struct tdp_file *f, struct tdp_err *err)
{
	/* a mapped perf.data (group reads) may be larger than perf stat output is allowed to be */
	int ret = tdp_file_open_checked(f, path, regular_file(path) ? 0 : IMPORT_MAX_INPUT, import_stream_check,
					&(struct import_stream){ .name = path }, err);

	if (!ret && !topdown_is_perfdata(f->data, f->size) && f->size > IMPORT_MAX_INPUT) {
		tdp_file_close(f);
		ret = tdp_file_open_checked(f, path, IMPORT_MAX_INPUT, import_stream_check,
					    &(struct import_stream){ .name = path }, err);
	}
	return ret;
}

/*
 * The model: --cpu; else the one the events fit (as an import of perf stat output);
 * else the CPU the recording was made on (its CPUID feature). *how says which.
 */
static int choose_model(const struct topdown_opts *to, const struct countset *cs, const char *cpuid,
			const char *path, const struct model **out, const char **how)
{
	const struct model *fit[MODEL_INFER_MAX];
	struct cpu_perf_cpuid id;

	if (to->cpu) {
		*how = NULL;
		if (!(*out = model_find(to->cpu)))
			return topdown_unknown_model(to->cpu);
		return EXIT_OK;
	}
	if (model_infer_import(cs, fit) == 1) {
		*out = fit[0];
		*how = "inferred from the group's events (give --cpu to choose)";
		return EXIT_OK;
	}
	if (cpuid && !cpu_uarch_from_perf_cpuid(cpuid, strlen(cpuid), &id, NULL) && id.uarch &&
	    (*out = model_for_uarch(id.uarch))) {
		*how = "of the CPU the recording was made on (its CPUID; give --cpu to choose)";
		return EXIT_OK;
	}
	msg_error("cannot tell which top-down model to evaluate '%s' with: its events fit none, and its CPU (%s) has "
		  "no model", path, cpuid ? cpuid : "not recorded");
	msg_hint("give the CPU it was recorded on: 'tdprof topdown -i %s --cpu MODEL' ('tdprof list models')", path);
	return EXIT_USAGE;
}

/* The symbol session's options: --symfs, --kallsyms, perf's build-id cache ($HOME/.debug, in dir), perf's
 * spelling of names. */
static void symbol_options(const struct topdown_opts *to, struct strbuf *dir, const char **bid_dirs,
			   struct symbol_opts *so)
{
	const char *home = getenv("HOME");

	symbol_opts_init(so);
	so->symfs = to->symfs;
	so->kallsyms = to->kallsyms;
	so->flags |= SYMBOL_DEMANGLE_NO_PARAMS; /* "ns::f" as perf report prints it */
	if (home && *home) {
		strbuf_addf(dir, "%s/.debug", home);
		if (!strbuf_failed(dir)) {
			bid_dirs[0] = dir->buf;
			so->buildid_dirs = bid_dirs;
		}
	}
}

/* When the model's level 1 is not measurable from the group: how to record a group it is. */
static void note_level1(const struct metric_tree *t, const struct model_compiled *mc,
			const struct model_eval_opts *o, struct strbuf *note, struct topdown_report *r)
{
	struct groups_plan p = GROUPS_PLAN_INIT;
	struct groups_budget b;
	struct model_eval_opts l1 = *o;
	bool any = false;

	for (size_t i = 0; i < t->nr; i++)
		any |= t->v[i].level == 1 && !isnan(t->v[i].value);
	if (any || r->nr_notes >= TOPDOWN_MAX_NOTES)
		return;
	l1.max_level = 1;
	model_default_budget(t->model, &b);
	strbuf_addf(note, "the group's events are not the events of the %s model's level 1, so no node is "
		    "measurable: record them as the group", t->model->name);
	if (!model_plan(mc, &l1, &b, &p, NULL) && p.nr) {
		struct strbuf spec = STRBUF_INIT;

		model_plan_spec(t->model, &p, 0, 1, &spec);
		strbuf_addf(note, ", e.g. perf record -e '%s:S'%s", spec.buf ? spec.buf : "",
			    p.nr > 1 ? " (the first of its groups)" : "");
		strbuf_release(&spec);
	}
	groups_plan_release(&p);
	r->notes[r->nr_notes++] = note->buf;
}

/* "'FILE' (perf.data: group reads of {a,b,c})" */
static void source_of(const char *path, const struct countset *cs, bool live, struct strbuf *sb)
{
	strbuf_adds(sb, "'");
	strbuf_add_name(sb, path);
	strbuf_addf(sb, "' (%s group reads of {", live ? "sampled with" : "perf.data:");
	for (size_t i = 0; i < cs->nr; i++) {
		strbuf_adds(sb, i ? "," : "");
		strbuf_add_name(sb, cs->v[i].name);
	}
	strbuf_adds(sb, "})");
}

int topdown_run_groupread(const struct topdown_opts *to, const uint8_t *data, size_t size, const char *path,
			  const char *live_cmd, struct tdp_ctx *ctx)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct byfunc_pmu *bp = NULL;
	struct byfunc_result fr = { 0 };
	struct countset totals = COUNTSET_INIT;
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct model_compiled *mc = NULL;
	struct metric_tree *tree = tdp_calloc(1, sizeof(*tree));
	struct topdown_report r = { 0 };
	struct strbuf src = STRBUF_INIT, how = STRBUF_INIT, l1note = STRBUF_INIT, dir = STRBUF_INIT;
	struct symbol_opts so;
	const char *bid_dirs[2] = { NULL, NULL }, *model_how = NULL;
	const struct model *m = NULL;
	int ret, rc = EXIT_ANALYSIS;

	symbol_options(to, &dir, bid_dirs, &so);
	if (!tree) {
		msg_error("out of memory");
		goto out;
	}
	if (!topdown_is_perfdata(data, size)) {
		msg_error("'--by function' reads a perf.data whose samples read their group, and '%s' is perf stat "
			  "output", path);
		msg_hint("record one with: perf record -e '{cycles,instructions}:S' -o FILE.data -- CMD");
		rc = EXIT_USAGE;
		goto out;
	}
	if ((ret = byfunc_pmu_load(data, size, path, &so, &bp, &err)) || (ret = byfunc_pmu_totals(bp, &totals, &err))) {
		msg_err(&err);
		rc = exitcode_from_err(ret);
		goto out;
	}
	if ((rc = choose_model(to, &totals, byfunc_pmu_cpuid(bp), path, &m, &model_how)) ||
	    (rc = topdown_choose_level(to, m, 2, &o.max_level)))
		goto out;
	rc = EXIT_ANALYSIS;
	o.slots = (double)to->slots;
	o.infer_smt = true;
	if ((ret = model_compile(m, &mc, &err)) ||
	    ((ret = model_eval(mc, &totals, &o, tree, &err)) && ret != TDP_EANALYSIS) ||
	    (to->by && (ret = byfunc_pmu_result(bp, mc, &o, &fr, &err)))) {
		msg_err(&err);
		rc = exitcode_from_err(ret);
		goto out;
	}
	model_classify(tree);
	r.trees[0] = tree;
	r.nr_trees = 1;
	source_of(live_cmd ? live_cmd : path, &totals, live_cmd != NULL, &src);
	r.source = src.buf;
	r.backend = live_cmd ? BACKEND_PMU : BACKEND_IMPORT;
	r.level = o.max_level;
	r.counts = &totals;
	r.functions = to->by ? &fr : NULL;
	if (model_how) {
		strbuf_addf(&how, "model '%s' %s", m->name, model_how);
		r.notes[r.nr_notes++] = how.buf;
	}
	r.notes[r.nr_notes++] = "the counts are the group's reads summed over the recording's samples (perf's "
				"deliver_sample_value), the tree is evaluated from their totals";
	if (to->by)
		r.notes[r.nr_notes++] = "each function's top-down is of the counts its own samples read (self, not "
					"its callees); a function with few samples has noisy ratios";
	note_level1(tree, mc, &o, &l1note, &r);
	rc = topdown_render(to, &r, ctx);
out:
	byfunc_release(&fr);
	byfunc_pmu_free(bp);
	model_compiled_free(mc);
	countset_release(&totals);
	strbuf_release(&src);
	strbuf_release(&how);
	strbuf_release(&l1note);
	strbuf_release(&dir);
	tdp_free(tree);
	return rc;
}
