/* topdown.c: the counted runs of `tdprof topdown` (see topdown.h). */
#include "measure/topdown.h"

#include <stdint.h>
#include <string.h>

#include "base/strbuf.h"
#include "measure/series.h"

void measure_topdown_init(struct measure_topdown *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t k = 0; k < MEASURE_TOPDOWN_MAX_MODELS; k++)
		t->plans[k] = (struct groups_plan)GROUPS_PLAN_INIT;
	for (size_t i = 0; i < MEASURE_TOPDOWN_MAX_SETS; i++)
		t->lists[i] = (struct pmu_event_list)PMU_EVENT_LIST_INIT;
	t->res = (struct pmu_session_result)PMU_SESSION_RESULT_INIT;
	t->runs = (struct model_runs)MODEL_RUNS_INIT;
}

void measure_topdown_release(struct measure_topdown *t)
{
	for (size_t i = 0; i < MEASURE_TOPDOWN_MAX_SETS; i++)
		pmu_event_list_release(&t->lists[i]);
	for (size_t k = 0; k < MEASURE_TOPDOWN_MAX_MODELS; k++)
		groups_plan_release(&t->plans[k]);
	pmu_session_result_release(&t->res);
	model_runs_release(&t->runs);
	measure_topdown_init(t);
}

/* The groups of a live run of model m. */
static int plan_events(const struct model *m, const struct model_eval_opts *o, const unsigned char *nodes,
		       const struct groups_budget *b, struct groups_plan *plan, struct tdp_err *err)
{
	struct model_compiled *mc;
	int ret = model_compile(m, &mc, err);

	if (!ret)
		ret = model_plan_nodes(mc, o, nodes, b, plan, err);
	model_compiled_free(mc);
	return ret;
}

/* Parse the event list of groups [first, first + nr) of a plan (all of them with nr = SIZE_MAX). */
static int parse_groups(const struct model *m, const struct groups_plan *p, size_t first, size_t nr,
			struct strbuf *spec, struct pmu_event_list *out, struct tdp_err *err)
{
	struct pmu_env penv = PMU_ENV_INIT;

	strbuf_reset(spec);
	model_plan_spec(m, p, first, nr, spec);
	if (strbuf_failed(spec))
		return tdp_err_oom(err);
	return pmu_event_list_parse(out, spec->buf, &penv, err);
}

/* The event lists: one per group with no_multiplex, else every group of every model in lists[0]. */
static int parse_sets(const struct measure_topdown_opts *o, struct measure_topdown *t, struct tdp_err *err)
{
	struct strbuf spec = STRBUF_INIT;
	struct pmu_env penv = PMU_ENV_INIT;
	int ret = 0;

	if (!o->no_multiplex) {
		for (size_t k = 0; k < o->nr_models && !ret; k++)
			ret = parse_groups(o->models[k], &t->plans[k], 0, t->plans[k].nr, &spec, &t->lists[0], err);
		t->nr_sets = 1;
	}
	for (size_t k = 0; o->no_multiplex && k < o->nr_models && !ret; k++)
		for (size_t g = 0; g < t->plans[k].nr && !ret; g++) {
			if (t->nr_sets >= MEASURE_TOPDOWN_MAX_SETS) {
				ret = tdp_err_set(err, TDP_ELIMIT, "the '%s' model needs more than %d groups",
						  o->models[0]->name, MEASURE_TOPDOWN_MAX_SETS);
				break;
			}
			ret = parse_groups(o->models[k], &t->plans[k], g, 1, &spec, &t->lists[t->nr_sets], err);
			t->nr_sets++;
		}
	/* the extra events in a run of their own: beside the groups they would take counters from them */
	if (o->extra && !ret) {
		if (t->nr_sets >= MEASURE_TOPDOWN_MAX_SETS)
			ret = tdp_err_set(err, TDP_ELIMIT, "the '%s' model needs more than %d groups", o->models[0]->name,
					  MEASURE_TOPDOWN_MAX_SETS);
		else
			ret = pmu_event_list_parse(&t->lists[t->nr_sets++], o->extra, &penv, err);
	}
	strbuf_release(&spec);
	return ret;
}

/*
 * Count the sets over the workload once, or -r N times keeping each run's tree of
 * models[0] (t->res then holds the last run's counts, for the groups section).
 */
static int run_sessions(const struct measure_topdown_opts *o, struct measure_topdown *t,
			const struct measure_notify *n, struct tdp_err *err)
{
	const struct pmu_event_list *sets[MEASURE_TOPDOWN_MAX_SETS];
	struct pmu_session_opts so = PMU_SESSION_OPTS_INIT;
	struct measure_series ser;
	struct strbuf line = STRBUF_INIT;
	int ret = 0;

	for (size_t i = 0; i < t->nr_sets; i++)
		sets[i] = &t->lists[i];
	so.argv = o->argv;
	measure_series_init(&ser, o->repeat, false, &t->runs);
	for (size_t i = 0; i < ser.n && !ret; i++) {
		struct metric_tree tree;
		bool stop = false;

		if (i) {
			pmu_session_result_release(&t->res);
			if (n->progress) {
				strbuf_reset(&line);
				strbuf_addf(&line, "run %zu of %zu", i + 1, ser.n);
				n->progress(line.buf);
			}
		}
		ret = t->nr_sets > 1 ? pmu_session_run_sets(sets, t->nr_sets, &so, &t->res, err)
				     : pmu_session_run(sets[0], &so, &t->res, err);
		if (ret || ser.n == 1)
			break;
		t->res.counts.backend = BACKEND_PMU;
		ret = model_evaluate(o->models[0], &t->res.counts, o->eo, &tree, err);
		if (!ret)
			ret = measure_series_add(&ser, &tree, &stop, err);
		if (stop || t->res.signal)
			break;
	}
	strbuf_release(&line);
	return ret;
}

int measure_topdown_run(const struct measure_topdown_opts *o, struct measure_topdown *t,
			const struct measure_notify *n, struct tdp_err *err)
{
	int ret = 0;

	for (size_t k = 0; k < o->nr_models && !ret; k++)
		ret = plan_events(o->models[k], o->eo, k ? NULL : o->nodes, o->budget, &t->plans[k], err);
	t->split = t->plans[0].nr_split || t->plans[1].nr_split;
	if (!ret)
		ret = parse_sets(o, t, err);
	if (!ret)
		ret = run_sessions(o, t, n, err);
	if (!ret)
		t->res.counts.backend = BACKEND_PMU;
	return ret;
}
