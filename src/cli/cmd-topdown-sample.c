/*
 * cmd-topdown-sample.c: `tdprof topdown --by function -- CMD` on a PMU: one sampling
 * run with a group read by every sample (PERF_SAMPLE_READ + PERF_FORMAT_GROUP, as
 * `perf record -e '{...}:S'`): the model's level-1 events led by slots (Intel's
 * PERF_METRICS) or by the core clock, or the group -e gives; the recording (memory,
 * or --save-data FILE) is then read as an import is (cmd-topdown-groupread.c).
 */
#include "cli/backend.h"
#include "cli/cmd.h"
#include "cli/cmd-topdown.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"
#include "base/strbuf.h"
#include "cpu/cpu.h"
#include "measure/record.h"
#include "model/groups.h"
#include "model/live.h"
#include "model/model.h"
#include "pmu/event.h"
#include "pmu/sampling.h"

#include <stdio.h>
#include <string.h>

/*
 * The model's level-1 events as one group spec, its leader first: the slots event
 * where the model has one (PERF_METRICS needs it to lead), else its core clock, else
 * "cycles" added to lead. Only the plan's first group: a level-1 node whose events
 * are in another group is not measurable, and the output says so.
 */
static int model_group(const struct topdown_opts *to, const struct cpu_system *sys, struct strbuf *spec,
		       size_t *nr_groups, const char **names, size_t *nr_names)
{
	const struct model *m = NULL;
	struct model_compiled *mc = NULL;
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct groups_budget b;
	struct groups_plan p = GROUPS_PLAN_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	size_t lead = SIZE_MAX;
	int ret;

	if (to->cpu && !(m = model_find(to->cpu)))
		return topdown_unknown_model(to->cpu);
	o.max_level = 1;
	if ((ret = model_live_setup(sys, m, (double)to->slots, &m, &o, &b, &err)) || (ret = model_compile(m, &mc, &err)) ||
	    (ret = model_plan(mc, &o, &b, &p, &err))) {
		msg_err(&err);
		model_compiled_free(mc);
		return ret == TDP_ENOTSUP ? EXIT_USAGE : exitcode_from_err(ret);
	}
	*nr_groups = p.nr;
	for (size_t i = 0; p.nr && i < p.v[0].nr && lead == SIZE_MAX; i++)
		if (m->events[p.v[0].ev[i]].leader)
			lead = i;
	for (size_t i = 0; p.nr && i < p.v[0].nr && lead == SIZE_MAX; i++)
		if (m->events[p.v[0].ev[i]].clock)
			lead = i;
	strbuf_addch(spec, '{');
	*nr_names = 0;
	if (lead == SIZE_MAX) {
		strbuf_adds(spec, "cycles");
		names[(*nr_names)++] = "cycles";
	}
	for (size_t k = 0; p.nr && k < p.v[0].nr; k++) {
		size_t i = k == 0 && lead != SIZE_MAX ? lead : k <= lead && lead != SIZE_MAX ? k - 1 : k;
		const struct model_event *ev = &m->events[p.v[0].ev[i]];

		strbuf_addf(spec, "%s%s", k || lead == SIZE_MAX ? "," : "", ev->spec ? ev->spec : ev->name);
		if (*nr_names <= PMU_SAMPLING_MAX_MEMBERS)
			names[(*nr_names)++] = ev->name; /* static: the model's */
	}
	strbuf_addch(spec, '}');
	groups_plan_release(&p);
	model_compiled_free(mc);
	return EXIT_OK;
}

/* Record argv sampled with the group of list; the image into *data (from memory, or --save-data's file). */
static int record(const struct topdown_opts *to, const struct cpu_system *sys, char *const *argv,
		  const struct pmu_event_list *list, struct measure_record *r, struct tdp_file *f, const uint8_t **data,
		  size_t *size, int *wstatus)
{
	struct pmu_sampling_opts so = PMU_SAMPLING_OPTS_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	size_t n = 0;
	int ret, saved;

	while (argv[n])
		n++;
	so.argv = argv;
	so.event = &list->v[0];
	so.members = list->nr > 1 ? &list->v[1] : NULL;
	so.nr_members = list->nr - 1;
	so.freq = to->freq > 0 ? (uint64_t)to->freq : 0;
	/* the workload is forked when the engine opens: its stdout must not reach a document on ours */
	saved = backend_divert_stdout(strcmp(to->format, "text") && !to->out_path);
	ret = to->save_data ? measure_record_open(r, to->save_data, &so, sys, (const char *const *)argv, n, &err)
			    : measure_record_open_memory(r, &so, sys, (const char *const *)argv, n, &err);
	if (!ret)
		ret = measure_record_run(r, &err);
	backend_restore_stdout(saved);
	if (!ret)
		ret = measure_record_finish(r, &err);
	if (!ret)
		ret = to->save_data ? tdp_file_open(f, to->save_data, 0, &err) : measure_record_map(r, data, size, &err);
	if (!ret && to->save_data) {
		*data = f->data;
		*size = f->size;
	}
	if (ret) {
		msg_err(&err);
		return exitcode_from_err(ret);
	}
	if (measure_record_stats(r)->user_only)
		msg_note("perf_event_paranoid allows user space only: no kernel samples");
	*wstatus = measure_record_stats(r)->workload_ran ? measure_record_stats(r)->wstatus : 0;
	return EXIT_OK;
}

int topdown_run_byfunc_live(const struct topdown_opts *to, char *const *argv, struct tdp_ctx *ctx)
{
	struct cpu_env env = CPU_ENV_INIT;
	struct cpu_system sys;
	struct pmu_env penv = PMU_ENV_INIT;
	struct pmu_event_list list = PMU_EVENT_LIST_INIT;
	struct measure_record r;
	struct tdp_file f = TDP_FILE_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	struct strbuf spec = STRBUF_INIT, cmd = STRBUF_INIT;
	const uint8_t *data = NULL;
	size_t size = 0, nr_groups = 1, nr_names = 0;
	const char *names[PMU_SAMPLING_MAX_MEMBERS + 2];
	int rc, ret, wstatus = 0;

	measure_record_init(&r);
	if ((ret = cpu_system_detect(&sys, &env, &err))) {
		msg_err(&err);
		return exitcode_from_err(ret);
	}
	if (!to->events && !sys.probe.opened) {
		msg_error("--by function samples the model's events with group reads, and hardware counters are "
			  "unavailable here: %s", sys.probe.msg[0] ? sys.probe.msg : "no PMU");
		msg_hint("'-e {cpu-clock,task-clock}' samples software events the same way; '--backend=sim' gives each "
			 "function's simulated top-down");
		rc = EXIT_ANALYSIS;
		goto out;
	}
	if (to->events)
		strbuf_adds(&spec, to->events);
	else if ((rc = model_group(to, &sys, &spec, &nr_groups, names, &nr_names)))
		goto out;
	if ((ret = pmu_event_list_parse(&list, spec.buf, &penv, &err))) {
		msg_err(&err);
		rc = EXIT_USAGE;
		goto out;
	}
	/* the recording names the model's events as the model does (STALL_FRONTEND, not r23) */
	for (size_t i = 0; nr_names == list.nr && i < list.nr; i++) {
		char *n = tdp_strdup(names[i]);

		if (!n) {
			msg_error("out of memory");
			rc = EXIT_ANALYSIS;
			goto out;
		}
		tdp_free(list.v[i].name);
		list.v[i].name = n;
	}
	for (size_t i = 1; i < list.nr; i++)
		if (list.v[i].group != list.v[0].group) {
			rc = msg_usage("topdown", "'-e %s': --by function samples one group ('{leader,member,...}')",
				       to->events ? to->events : spec.buf);
			goto out;
		}
	msg_progress("sampling '%s' with group reads over '%s'", spec.buf, argv[0]);
	if (nr_groups > 1)
		msg_note("the model's level 1 needs %zu groups; one is sampled, the nodes of the others are not measured",
			 nr_groups);
	if ((rc = record(to, &sys, argv, &list, &r, &f, &data, &size, &wstatus)))
		goto out;
	strbuf_add_shell_words(&cmd, argv);
	rc = topdown_run_groupread(to, data, size, to->save_data ? to->save_data : "memory", cmd.buf, ctx);
	if (rc == EXIT_OK && measure_record_stats(&r)->workload_ran)
		rc = exitcode_from_wait(wstatus);
out:
	measure_record_release(&r);
	tdp_file_close(&f);
	pmu_event_list_release(&list);
	strbuf_release(&spec);
	strbuf_release(&cmd);
	cpu_system_release(&sys);
	return rc;
}
