/* pmu.c: a counted run of a workload with this CPU's top-down model (see run.h). */
#include "measure/run.h"

#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"
#include "cpu/cpu.h"
#include "model/groups.h"
#include "model/live.h"
#include "pmu/event.h"

void measure_pmu_init(struct measure_pmu *p)
{
	memset(p, 0, sizeof(*p));
	p->res = (struct pmu_session_result)PMU_SESSION_RESULT_INIT;
}

void measure_pmu_release(struct measure_pmu *p)
{
	pmu_session_result_release(&p->res);
	measure_pmu_init(p);
}

/* The triage events counted beside the model's groups. */
const char measure_triage_events[] = "cycles,instructions,branches,branch-misses,L1-icache-load-misses,"
					"LLC-load-misses";

/* The events of model m as one event-list string (its groups, then the triage events). */
static int pmu_spec(const struct model *m, const struct groups_budget *b, struct model_eval_opts *eo,
		    struct strbuf *spec, struct tdp_err *err)
{
	struct model_compiled *mc = NULL;
	struct groups_plan plan = GROUPS_PLAN_INIT;
	int ret;

	ret = model_compile(m, &mc, err);
	if (!ret)
		ret = model_plan(mc, eo, b, &plan, err);
	if (!ret) {
		model_plan_spec(m, &plan, 0, plan.nr, spec);
		strbuf_addf(spec, ",%s", measure_triage_events);
		if (strbuf_failed(spec))
			ret = tdp_err_oom(err);
	}
	groups_plan_release(&plan);
	model_compiled_free(mc);
	return ret;
}

int measure_pmu_run(char *const *argv, int level, struct measure_pmu *p, const struct measure_notify *n,
		    struct tdp_err *err)
{
	struct cpu_system sys;
	struct tdp_err why_none = TDP_ERR_INIT;
	struct groups_budget budget;
	struct model_eval_opts eo = MODEL_EVAL_OPTS_INIT;
	struct strbuf spec = STRBUF_INIT, line = STRBUF_INIT;
	struct pmu_event_list list = PMU_EVENT_LIST_INIT;
	struct pmu_env penv = PMU_ENV_INIT;
	struct pmu_session_opts so = PMU_SESSION_OPTS_INIT;
	int ret;

	ret = cpu_system_detect(&sys, NULL, err);
	if (ret)
		return ret;
	/* the same choice as 'tdprof topdown' (model/live.h) */
	if (model_live_setup(&sys, p->chosen, 0, &p->model, &eo, &budget, &why_none)) {
		p->model = NULL;
		snprintf(p->no_model, sizeof(p->no_model), "%s", why_none.msg);
		if (!p->allow_no_model) {
			if (err)
				*err = why_none;
			ret = TDP_EUSAGE;
			goto out;
		}
		if (n->warning) {
			strbuf_addf(&line, "%s; counting the triage events only", p->no_model);
			n->warning(line.buf, NULL);
		}
	}
	eo.max_level = level;
	if (p->model) {
		if (n->progress) {
			strbuf_reset(&line);
			strbuf_addf(&line, "counting the top-down events of model '%s' over '%s'", p->model->name, argv[0]);
			n->progress(line.buf);
		}
		ret = pmu_spec(p->model, &budget, &eo, &spec, err);
	} else {
		strbuf_adds(&spec, measure_triage_events);
		ret = strbuf_failed(&spec) ? tdp_err_oom(err) : 0;
	}
	if (!ret)
		ret = pmu_event_list_parse(&list, spec.buf, &penv, err);
	so.argv = argv;
	if (!ret)
		ret = pmu_session_run(&list, &so, &p->res, err);
	if (!ret && p->model)
		ret = model_evaluate(p->model, &p->res.counts, &eo, &p->tree, err);
	if (!ret)
		p->res.counts.backend = BACKEND_PMU;
out:
	pmu_event_list_release(&list);
	strbuf_release(&spec);
	strbuf_release(&line);
	cpu_system_release(&sys);
	return ret;
}
