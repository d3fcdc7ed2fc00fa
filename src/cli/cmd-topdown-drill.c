/*
 * cmd-topdown-drill.c: `tdprof topdown --drilldown -- CMD`: level 1, then a rerun of
 * the workload per step of model/drilldown.h (the children of the nodes that
 * crossed, else of the largest), down to the leaves or -l N; each node says which
 * run measured it and its running fraction, and a value out of bounds is shown as
 * mismeasured, not as a fact.
 */
#include "cli/cmd.h"
#include "cli/cmd-topdown.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/progress.h"
#include "base/alloc.h"
#include "base/countset.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "cpu/cpu.h"
#include "measure/topdown.h"
#include "model/drilldown.h"
#include "model/groups.h"
#include "model/live.h"
#include "model/model.h"
#include "report/topdown.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define DRILL_NOTE_MAX 320

static void note_progress(const char *line)
{
	msg_progress("%s", line);
}

/* Per group of a step's counts: its run (1-based) and its lowest running percentage. */
static void group_origins(const struct countset *cs, bool no_multiplex, int *run, double *running, size_t nr)
{
	for (size_t g = 0; g < nr; g++) {
		run[g] = no_multiplex ? (int)g + 1 : 1;
		running[g] = -1;
	}
	for (size_t i = 0; i < cs->nr; i++) {
		int g = cs->v[i].group;

		if (g < 0 || (size_t)g >= nr || cs->v[i].running_pct < 0)
			continue;
		if (running[g] < 0 || cs->v[i].running_pct < running[g])
			running[g] = cs->v[i].running_pct;
	}
}

/* One step: count its groups over the workload, evaluate them and merge into the tree. */
static int drill_run_step(const struct model *m, const struct model_compiled *mc, const struct model_eval_opts *o,
			  const struct groups_budget *b, bool no_multiplex, char *const *argv, struct drill_step *s,
			  struct metric_tree *merged, struct drill_node *info, int *wstatus, bool *ran)
{
	static const struct measure_notify notify = { note_progress, NULL };
	struct model_eval_opts so = *o;
	struct measure_topdown_opts mo = { .nr_models = 1, .eo = &so, .budget = b, .argv = argv,
					   .no_multiplex = no_multiplex, .nodes = s->nodes };
	struct measure_topdown t;
	struct metric_tree *step = tdp_calloc(1, sizeof(*step));
	struct tdp_err err = TDP_ERR_INIT;
	int run[MEASURE_TOPDOWN_MAX_SETS];
	double running[MEASURE_TOPDOWN_MAX_SETS];
	int ret;

	if (!step) {
		msg_error("out of memory");
		return EXIT_ANALYSIS;
	}
	so.max_level = s->level;
	ret = drill_step_plan(mc, &so, b, no_multiplex, s, &err);
	if (!ret) {
		msg_progress("drill-down step %d: %s (%zu group%s, %zu run%s)", s->index, s->why, s->groups.nr,
			     s->groups.nr == 1 ? "" : "s", s->nr_runs, s->nr_runs == 1 ? "" : "s");
		mo.models[0] = m;
		measure_topdown_init(&t);
		fflush(stdout); /* the workload shares it */
		progress_begin(true, "drill-down step %d: running %s", s->index, argv[0]);
		ret = measure_topdown_run(&mo, &t, &notify, &err);
		progress_end();
		if (!ret && (ret = model_evaluate(m, &t.res.counts, &so, step, &err)) == TDP_EANALYSIS && s->index > 1)
			ret = 0; /* a step below level 1 measures no level-1 node */
		if (!ret) {
			group_origins(&t.res.counts, no_multiplex, run, running, MEASURE_TOPDOWN_MAX_SETS);
			drill_merge(m, s, step, run, running, MEASURE_TOPDOWN_MAX_SETS,
				    t.res.counts.elapsed_ns > 0 ? t.res.counts.elapsed_ns / 1e9 : -1, merged, info);
			model_classify(merged);
			*ran = t.res.workload_ran;
			*wstatus = t.res.wstatus;
		}
		measure_topdown_release(&t);
	}
	tdp_free(step);
	if (ret) {
		msg_err(&err);
		return exitcode_from_err(ret);
	}
	return EXIT_OK;
}

int topdown_run_drill(const struct topdown_opts *to, char *const *argv, struct tdp_ctx *ctx)
{
	struct cpu_env env = CPU_ENV_INIT;
	struct cpu_system sys;
	struct tdp_err err = TDP_ERR_INIT;
	const struct model *m = NULL;
	struct model_compiled *mc = NULL;
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct groups_budget b;
	struct metric_tree *merged = tdp_calloc(1, sizeof(*merged));
	struct drill_node *info = tdp_calloc(MODEL_MAX_NODES, sizeof(*info));
	struct drill_step s, next;
	struct topdown_report r = { 0 };
	struct strbuf cmd = STRBUF_INIT;
	struct countset none = COUNTSET_INIT;
	int ret, rc = EXIT_ANALYSIS, wstatus = 0;
	bool ran = false;

	drill_step_init(&s);
	drill_step_init(&next);
	if (!merged || !info) {
		msg_error("out of memory");
		goto free;
	}
	ret = cpu_system_detect(&sys, &env, &err);
	if (ret) {
		msg_err(&err);
		rc = exitcode_from_err(ret);
		goto free;
	}
	if (!sys.probe.opened) {
		msg_error("--drilldown reruns CMD with hardware counters, and they are unavailable here: %s",
			  sys.probe.msg[0] ? sys.probe.msg : "no PMU");
		msg_hint("run it on a machine with a PMU; here, '--backend=sim' gives a simulated estimate "
			 "(level 2 where the simulation models it) and 'tdprof topdown --by function --backend=sim' "
			 "each function's");
		goto out;
	}
	if (to->cpu && !(m = model_find(to->cpu))) {
		rc = topdown_unknown_model(to->cpu);
		goto out;
	}
	if (model_live_setup(&sys, m, (double)to->slots, &m, &o, &b, &err)) {
		msg_err(&err);
		rc = EXIT_USAGE;
		goto out;
	}
	if ((rc = topdown_choose_level(to, m, model_depth(m), &o.max_level)))
		goto out;
	rc = EXIT_ANALYSIS;
	if ((ret = model_compile(m, &mc, &err))) {
		msg_err(&err);
		rc = exitcode_from_err(ret);
		goto out;
	}
	/* the tree's shape down to -l N, every node not measured until a step measures it */
	if (model_evaluate(m, &none, &o, merged, &err) && !merged->nr) {
		msg_err(&err);
		goto out;
	}
	drill_first(m, &s);
	for (;;) {
		rc = drill_run_step(m, mc, &o, &b, to->no_multiplex, argv, &s, merged, info, &wstatus, &ran);
		if (rc)
			goto out;
		r.drill_steps++;
		if (!drill_next(m, &s, merged, o.max_level, &next))
			break;
		drill_step_release(&s);
		s = next;
		drill_step_init(&next);
	}
	for (size_t i = 0; argv[i]; i++)
		strbuf_addf(&cmd, "%s%s", i ? " " : "'", argv[i]);
	strbuf_addch(&cmd, '\'');
	r.trees[0] = merged;
	r.nr_trees = 1;
	r.source = cmd.buf;
	r.backend = BACKEND_PMU;
	r.level = o.max_level;
	r.no_multiplex = to->no_multiplex;
	r.drill = info;
	r.notes[r.nr_notes++] = "--drilldown: each step reran CMD to count the children of the nodes that "
				"crossed their thresholds (else of the largest); the drill-down section says which "
				"run measured each node, and a value out of its bounds is marked mismeasured";
	rc = topdown_render(to, &r, ctx);
	if (rc == EXIT_OK && ran)
		rc = exitcode_from_wait(wstatus);
out:
	cpu_system_release(&sys);
free:
	model_compiled_free(mc);
	drill_step_release(&s);
	drill_step_release(&next);
	strbuf_release(&cmd);
	tdp_free(merged);
	tdp_free(info);
	return rc;
}
