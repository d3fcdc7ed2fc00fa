/*
 * cmd-topdown-drill.c: `tdprof topdown --drilldown -- CMD`: level 1, then a rerun of
 * the workload per step of model/drilldown.h (the children of the nodes that
 * crossed, else of the largest), down to the leaves or -l N; each node says which
 * run measured it and its running fraction, and a value out of bounds is shown as
 * mismeasured, not as a fact.
 */
#include "cli/cmd.h"
#include "cli/cmd-topdown.h"
#include "cli/drill-run.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "base/alloc.h"
#include "base/countset.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "cpu/cpu.h"
#include "model/drilldown.h"
#include "model/groups.h"
#include "model/live.h"
#include "model/model.h"
#include "report/topdown.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int topdown_run_drill(const struct topdown_opts *to, char *const *argv, struct tdp_ctx *ctx)
{
	struct cpu_env env = CPU_ENV_INIT;
	struct cpu_system sys;
	struct tdp_err err = TDP_ERR_INIT;
	const struct model *m = NULL;
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct groups_budget b;
	struct metric_tree *merged = tdp_calloc(1, sizeof(*merged));
	struct drill_info *info = tdp_calloc(1, sizeof(*info));
	struct cli_drill c = { .o = &o, .b = &b, .no_multiplex = to->no_multiplex, .argv = argv };
	struct topdown_report r = { 0 };
	struct strbuf cmd = STRBUF_INIT;
	int ret, rc = EXIT_ANALYSIS;

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
	c.m = m;
	if ((rc = cli_drill_run(&c, merged, info)))
		goto out;
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
				"crossed their thresholds (else of the largest) and of the verdict's dominant node; the "
				"drill-down section says which run measured each node, and a value out of its bounds is "
				"marked mismeasured";
	rc = topdown_render(to, &r, ctx);
	if (rc == EXIT_OK && c.ran)
		rc = c.last_status;
out:
	cpu_system_release(&sys);
free:
	cli_drill_release(&c);
	strbuf_release(&cmd);
	tdp_free(merged);
	tdp_free(info);
	return rc;
}
