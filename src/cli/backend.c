/* backend.c: --backend selection and the simulated run of a workload (see backend.h). */
#include "cli/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cpu/cpu.h"
#include "model/groups.h"
#include "model/live.h"
#include "pmu/event.h"

int backend_select(const char *cmd, const char *choice, const struct backend_select_opts *o,
		   enum tdp_backend *out)
{
	struct cpu_probe probe;
	bool want_pmu;

	if (!choice)
		choice = "auto";
	if (!strcmp(choice, "import")) {
		if (!o->can_import)
			return msg_usage(cmd, "'--backend=import' is not available here: 'tdprof %s' runs the "
					      "workload; read recorded counts with 'tdprof topdown --import FILE'", cmd);
		if (!o->has_import)
			return msg_usage(cmd, "'--backend=import' needs the file: '--import FILE'");
		*out = BACKEND_IMPORT;
		return EXIT_OK;
	}
	if (o->has_import) {
		if (strcmp(choice, "auto"))
			return msg_usage(cmd, "'--import' reads counts from a file: it cannot be used with "
					      "'--backend=%s'", choice);
		*out = BACKEND_IMPORT;
		return EXIT_OK;
	}
	if (!strcmp(choice, "sim")) {
		if (!o->can_sim)
			return msg_usage(cmd, "%s", o->no_sim_why ? o->no_sim_why
								   : "the simulation runs a command with the default events: it "
								     "cannot watch a running process, CPUs or custom events "
								     "('-e')");
		*out = BACKEND_SIM;
		return EXIT_OK;
	}
	want_pmu = !strcmp(choice, "pmu");
	if (!want_pmu && strcmp(choice, "auto"))
		return msg_usage(cmd, "unknown backend '%s' (auto, pmu, sim or import)", choice);
	if (!want_pmu && (o->auto_pmu || !o->can_sim)) {
		/* auto keeps the PMU path whatever a probe would say: do not pay for one */
		*out = BACKEND_PMU;
		return EXIT_OK;
	}
	if (cpu_probe_hw_events(NULL, &probe, NULL) == 0) {
		*out = BACKEND_PMU;
		return EXIT_OK;
	}
	if (want_pmu) {
		msg_error("hardware counters are unavailable: %s", probe.msg[0] ? probe.msg : "no PMU");
		msg_hint("%s", probe.hint[0] ? probe.hint : "use '--backend=sim' for a simulated estimate");
		return EXIT_ANALYSIS;
	}
	/* the probe's message says why already ("no hardware PMU is exposed to this machine (...)") */
	msg_note("%s: simulating with valgrind instead, every figure is an estimate",
		 probe.msg[0] ? probe.msg : "no hardware PMU here: hardware events do not open");
	*out = BACKEND_SIM;
	return EXIT_OK;
}

const char *backend_auto_name(void)
{
	struct cpu_probe probe;

	return cpu_probe_hw_events(NULL, &probe, NULL) == 0 ? "pmu" : "sim";
}

void backend_sim_init(struct backend_sim *s)
{
	memset(s, 0, sizeof(*s));
	sim_profile_init(&s->profile);
	if (sim_machine_preset(&s->machine, "generic", NULL))
		memset(&s->machine, 0, sizeof(s->machine));
}

void backend_sim_release(struct backend_sim *s)
{
	sim_profile_release(&s->profile);
	s->have_est = false;
}

int backend_sim_machine(const char *cmd, const char *spec, struct sim_machine *m)
{
	struct tdp_err err = TDP_ERR_INIT;
	int ret = sim_machine_load(m, spec ? spec : "generic", &err);

	if (!ret)
		return EXIT_OK;
	(void)cmd;
	msg_err(&err);
	return ret == TDP_EUSAGE ? EXIT_USAGE : exitcode_from_err(ret);
}

int backend_divert_stdout(bool divert)
{
	int saved;

	if (!divert)
		return -1;
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	if (saved >= 0 && dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		close(saved);
		saved = -1;
	}
	return saved;
}

void backend_restore_stdout(int saved)
{
	if (saved < 0)
		return;
	dup2(saved, STDOUT_FILENO);
	close(saved);
}

int backend_sim_run(char *const *argv, struct backend_sim *s)
{
	struct sim_run_opts o = SIM_RUN_OPTS_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	int ret, saved;

	o.argv = argv;
	o.machine = &s->machine;
	o.path = getenv("PATH");
	o.tmpdir = getenv("TMPDIR");
	sim_machine_describe(&s->machine, s->machine_desc, sizeof(s->machine_desc));
	msg_progress("simulating '%s' under valgrind (cachegrind, machine %s): expect 20-100x its normal run time",
		     argv[0], s->machine.name);
	saved = backend_divert_stdout(s->stdout_to_stderr);
	ret = sim_run(&o, &s->profile, &s->run, &err);
	backend_restore_stdout(saved);
	if (ret) {
		msg_err(&err);
		switch (ret) {
		case TDP_ENOCMD: return EXIT_NOTFOUND;
		case TDP_ENOEXEC: return EXIT_NOEXEC;
		default: return EXIT_ANALYSIS;
		}
	}
	msg_progress("simulation done in %.1f s", s->run.wall_ns / 1e9);
	ret = sim_estimate(&s->profile, &s->machine, &s->est, &err);
	if (ret) {
		msg_warning("no estimate: %s", err.msg);
		if (err.hint[0])
			msg_hint("%s", err.hint);
		return EXIT_OK;
	}
	s->have_est = true;
	return EXIT_OK;
}

void backend_pmu_init(struct backend_pmu *p)
{
	memset(p, 0, sizeof(*p));
	p->res = (struct pmu_session_result)PMU_SESSION_RESULT_INIT;
}

void backend_pmu_release(struct backend_pmu *p)
{
	pmu_session_result_release(&p->res);
	backend_pmu_init(p);
}

/* The triage events counted beside the model's groups. */
static const char pmu_triage_events[] = "cycles,instructions,branches,branch-misses,L1-icache-load-misses,"
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
		strbuf_addf(spec, ",%s", pmu_triage_events);
		if (strbuf_failed(spec))
			ret = tdp_err_oom(err);
	}
	groups_plan_release(&plan);
	model_compiled_free(mc);
	return ret;
}

int backend_pmu_run(char *const *argv, int level, struct backend_pmu *p)
{
	struct cpu_system sys;
	struct tdp_err err = TDP_ERR_INIT, why_none = TDP_ERR_INIT;
	struct groups_budget budget;
	struct model_eval_opts eo = MODEL_EVAL_OPTS_INIT;
	struct strbuf spec = STRBUF_INIT;
	struct pmu_event_list list = PMU_EVENT_LIST_INIT;
	struct pmu_env penv = PMU_ENV_INIT;
	struct pmu_session_opts so = PMU_SESSION_OPTS_INIT;
	int ret, rc = EXIT_ANALYSIS;

	ret = cpu_system_detect(&sys, NULL, &err);
	if (ret) {
		msg_err(&err);
		return exitcode_from_err(ret);
	}
	/* the same choice as 'tdprof topdown' (model/live.h) */
	if (model_live_setup(&sys, NULL, 0, &p->model, &eo, &budget, &why_none)) {
		p->model = NULL;
		if (!p->allow_no_model) {
			msg_err(&why_none);
			msg_hint("use '--backend=sim' for a simulated estimate");
			rc = EXIT_USAGE;
			goto out;
		}
		snprintf(p->no_model, sizeof(p->no_model), "%s", why_none.msg);
		msg_warning("%s; counting the triage events only", p->no_model);
	}
	eo.max_level = level;
	if (p->model) {
		msg_progress("counting the top-down events of model '%s' over '%s'", p->model->name, argv[0]);
		ret = pmu_spec(p->model, &budget, &eo, &spec, &err);
	} else {
		strbuf_adds(&spec, pmu_triage_events);
		ret = strbuf_failed(&spec) ? tdp_err_oom(&err) : 0;
	}
	if (!ret)
		ret = pmu_event_list_parse(&list, spec.buf, &penv, &err);
	so.argv = argv;
	if (!ret)
		ret = pmu_session_run(&list, &so, &p->res, &err);
	if (!ret && p->model)
		ret = model_evaluate(p->model, &p->res.counts, &eo, &p->tree, &err);
	if (ret) {
		msg_err(&err);
		rc = exitcode_from_err(ret);
		if (ret == TDP_ENOCMD)
			rc = EXIT_NOTFOUND;
		else if (ret == TDP_ENOEXEC)
			rc = EXIT_NOEXEC;
		goto out;
	}
	p->res.counts.backend = BACKEND_PMU;
	rc = EXIT_OK;
out:
	pmu_event_list_release(&list);
	strbuf_release(&spec);
	cpu_system_release(&sys);
	return rc;
}
