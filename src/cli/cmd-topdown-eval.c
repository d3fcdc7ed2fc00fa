/* cmd-topdown-eval.c: `tdprof topdown`: the model, the level, and the tree of an import (see cmd-topdown.h). */
#include "cli/backend.h"
#include "cli/cmd.h"
#include "cli/cmd-topdown.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/opts.h"
#include "cli/output.h"
#include "base/alloc.h"
#include "base/countset.h"
#include "base/err.h"
#include "base/file.h"
#include "base/str.h"
#include "base/strbuf.h"
#include "cpu/cpu.h"
#include "import/import.h"
#include "measure/series.h"
#include "measure/topdown.h"
#include "model/groups.h"
#include "model/live.h"
#include "model/model.h"
#include "model/stats.h"
#include "report/topdown.h"

#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The usage error for an unknown model, with the closest names. */
int topdown_unknown_model(const char *name)
{
	return backend_unknown_model(name);
}

/* --midr 0x410fd493: the model its implementer, part and revision select, as --cpu would name it. */
int topdown_midr_model(struct topdown_opts *to)
{
	uint64_t midr;
	const char *name;

	if (to->cpu)
		return msg_usage("topdown", "give the model with '--cpu' or the CPU with '--midr', not both");
	if (!str_to_u64(to->midr, &midr) || midr > UINT32_MAX)
		return msg_usage("topdown", "'--midr %s': expected a MIDR_EL1 value such as 0x410fd493", to->midr);
	name = cpu_uarch_from_midr(midr);
	if (!name || !model_for_uarch(name)) {
		msg_error("MIDR %s (%s) has no top-down model", to->midr, name ? name : "not a known core");
		msg_hint("'tdprof list models' shows them; '--cpu MODEL' picks one");
		return EXIT_USAGE;
	}
	to->cpu = model_for_uarch(name)->name;
	return 0;
}

/*
 * Whether cs holds the counts of two core types of a hybrid: events prefixed by
 * two different core PMUs that models name (cpu_core/, cpu_atom/). A model of one
 * core type would read both types' events as one CPU's (issue 15).
 */
static bool hybrid_counts(const struct countset *cs)
{
	size_t nr;
	const struct model *const *all = model_all(&nr);
	const char *first = NULL;
	char key[MODEL_EVKEY_MAX], pmu[64];

	for (size_t i = 0; i < cs->nr; i++) {
		if (model_event_key(cs->v[i].name, key, sizeof(key), pmu, sizeof(pmu)) || !pmu[0])
			continue;
		for (size_t k = 0; k < nr; k++)
			if (all[k]->pmu && !strcmp(all[k]->pmu, pmu)) {
				if (!first)
					first = all[k]->pmu;
				else if (strcmp(first, pmu))
					return true;
				break;
			}
	}
	return false;
}

/*
 * The model of an import: --cpu, or the one model_infer_import() finds; the usage
 * error when none or several, or when --cpu names a model of one core type for
 * the counts of a hybrid's two (refused rather than mixing them: the hint names
 * the hybrid models, whose P-core and E-core models each read their own PMU's).
 */
static int import_model(const struct countset *cs, const char *cpu, const char *path, const struct model **out)
{
	size_t nr, nbest;
	const struct model *const *all = model_all(&nr);
	const struct model *fit[MODEL_INFER_MAX];
	struct strbuf names = STRBUF_INIT;

	if (cpu) {
		*out = model_find(cpu);
		if (!*out)
			return topdown_unknown_model(cpu);
		if ((*out)->companion || !hybrid_counts(cs))
			return 0;
		for (size_t i = 0; i < nr; i++)
			if (all[i]->companion && all[i]->core_type && !strcmp(all[i]->core_type, "P-core"))
				strbuf_addf(&names, "%s%s", names.len ? ", " : "", all[i]->name);
		msg_error("'%s' holds the counts of a hybrid CPU's two core types (cpu_core/ and cpu_atom/ events): "
			  "'--cpu %s' is a model of one core type and would mix them", path, (*out)->name);
		msg_hint("give a hybrid model (%s), or leave --cpu out: the import recognises them", names.buf);
		strbuf_release(&names);
		return EXIT_USAGE;
	}
	nbest = model_infer_import(cs, fit);
	if (nbest == 1) {
		*out = fit[0];
		return 0;
	}
	for (size_t i = 0; i < (nbest ? nbest : nr); i++)
		strbuf_addf(&names, "%s%s", i ? ", " : "", nbest ? fit[i]->name : all[i]->name);
	if (nbest)
		msg_error("cannot tell the model from the events in '%s': they fit %s", path, names.buf);
	else
		msg_error("the events in '%s' fit no top-down model's level 1 (models: %s)", path, names.buf);
	msg_hint("give the CPU the counts come from: 'tdprof topdown --import %s --cpu %s'", path,
		 nbest ? fit[0]->name : "MODEL");
	strbuf_release(&names);
	return EXIT_USAGE;
}

/*
 * The level to evaluate for model m: -l, or the default; the usage error when m's
 * tree is not that deep (saying what it offers instead of printing less).
 */
int topdown_choose_level(const struct topdown_opts *to, const struct model *m, int dflt, int *out)
{
	int depth = model_depth(m), want = to->level ? (int)to->level : to->nodes ? depth : dflt;
	bool stage2 = model_has_metrics(m, MODEL_METRIC_STAGE2);

	if (m->companion && model_depth(m->companion) > depth)
		depth = model_depth(m->companion);
	if (!to->level && want > depth)
		want = depth;
	if (want <= depth || (want == 2 && stage2)) {
		*out = want;
		return EXIT_OK;
	}
	msg_error("the '%s' model's tree has %d level%s: there is no level %d", m->name, depth, depth == 1 ? "" : "s",
		  want);
	if (stage2)
		msg_hint("it offers level 1 and, with -l 2, the stage-2 metric groups of the vendor's methodology");
	else if (depth > 1)
		msg_hint("it offers -l 1 to -l %d", depth);
	else
		msg_hint("it offers level 1 only");
	return EXIT_USAGE;
}

/* Evaluate one model (and its hybrid companion when the counts hold its events). */
int topdown_evaluate(const struct model *m, const struct countset *cs, const struct model_eval_opts *o,
		    struct metric_tree *trees, size_t *nr_trees)
{
	struct tdp_err err = TDP_ERR_INIT;
	int ret = model_evaluate(m, cs, o, &trees[0], &err);

	if (ret) {
		msg_err(&err);
		return exitcode_from_err(ret);
	}
	model_classify(&trees[0]);
	*nr_trees = 1;
	if (m->companion && !model_evaluate(m->companion, cs, o, &trees[1], NULL)) {
		model_classify(&trees[1]);
		*nr_trees = 2;
	}
	return EXIT_OK;
}

/* A note when level 2 was asked for and none of it could be computed. */
static void note_level2(const struct metric_tree *t, struct topdown_report *r)
{
	bool any2 = false, l2 = false;

	for (size_t i = 0; i < t->nr; i++)
		if (t->v[i].level == 2) {
			l2 = true;
			any2 |= !isnan(t->v[i].value);
		}
	if (l2 && !any2 && r->nr_notes < TOPDOWN_MAX_NOTES)
		r->notes[r->nr_notes++] = "level 2 was not measured: the counts hold level-1 events only "
					  "(perf stat -M TopdownL2, or -M PipelineL2 on AMD, records them)";
}

int topdown_run_import(const struct topdown_opts *to, struct tdp_ctx *ctx)
{
	struct tdp_file f = TDP_FILE_INIT;
	struct import_result res = IMPORT_RESULT_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct metric_tree trees[TOPDOWN_MAX_TREES];
	struct topdown_report r = { 0 };
	struct strbuf src = STRBUF_INIT, inferred = STRBUF_INIT;
	const struct model *m = NULL;
	int ret, rc;

	ret = topdown_open_import(to->import, &f, &err);
	if (!ret && (topdown_is_perfdata(f.data, f.size) || to->by)) {
		rc = topdown_run_groupread(to, f.data, f.size, to->import, NULL, ctx);
		goto out;
	}
	if (!ret)
		ret = import_perf_stat_result(f.data, f.size, to->import, &res, &err);
	if (ret) {
		msg_err(&err);
		rc = exitcode_from_err(ret);
		goto out;
	}
	rc = import_model(&res.counts, to->cpu, to->import, &m);
	if (rc)
		goto out;
	rc = topdown_choose_level(to, m, 2, &o.max_level);
	if (rc)
		goto out;
	o.slots = (double)to->slots;
	o.infer_smt = true;
	rc = topdown_evaluate(m, &res.counts, &o, trees, &r.nr_trees);
	if (rc)
		goto out;
	for (size_t i = 0; i < r.nr_trees; i++)
		r.trees[i] = &trees[i];
	strbuf_addf(&src, "'%s' (perf stat %s)", to->import, import_format_name(res.format));
	r.source = src.buf;
	r.backend = BACKEND_IMPORT;
	r.level = o.max_level;
	r.counts = &res.counts;
	if (!to->cpu) {
		strbuf_addf(&inferred, "model '%s' inferred from the events (give --cpu to choose)", m->name);
		r.notes[r.nr_notes++] = inferred.buf;
	}
	if (o.max_level >= 2)
		note_level2(&trees[0], &r);
	for (size_t i = 0; i < res.nr_notes && r.nr_notes < TOPDOWN_MAX_NOTES; i++)
		r.notes[r.nr_notes++] = res.notes[i];
	rc = topdown_render(to, &r, ctx);
out:
	strbuf_release(&src);
	strbuf_release(&inferred);
	import_result_release(&res);
	tdp_file_close(&f);
	return rc;
}

/*
 * -r N: the tree of means of the runs in r->repeat into *mean, which then stands
 * for trees[0] (the last run's tree gives the labels and reasons).
 */
int topdown_use_means(struct model_runs *runs, struct metric_tree *mean, struct topdown_report *r)
{
	struct tdp_err err = TDP_ERR_INIT;
	bool have;

	if (measure_runs_mean(runs, r->trees[0], mean, &have, &err)) {
		msg_err(&err);
		return EXIT_ANALYSIS;
	}
	if (have) {
		r->trees[0] = mean;
		r->repeat = runs;
	}
	return EXIT_OK;
}
