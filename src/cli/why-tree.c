/* why-tree.c: the drill-down's counted runs of `tdprof why` on a PMU (see why-tree.h). */
#include "cli/why-tree.h"

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "cli/backend.h"
#include "cli/drill-run.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cpu/cpu.h"
#include "measure/run.h"
#include "model/drilldown.h"
#include "model/live.h"

bool why_tree_wanted(const struct why_opts *wo)
{
	return !wo->no_drill && wo->repeat <= 1;
}

/* The model to drill with into *m, its options and budget; WHY_TREE_NONE when none applies here. */
static int choose_model(const struct why_opts *wo, const struct model **m, struct model_eval_opts *eo,
			struct groups_budget *b)
{
	struct cpu_system sys;
	struct tdp_err err = TDP_ERR_INIT;
	const struct model *chosen = NULL;
	int ret, rc = EXIT_OK;

	if (wo->cpu && !(chosen = model_find(wo->cpu)))
		return backend_unknown_model(wo->cpu);
	if ((ret = cpu_system_detect(&sys, NULL, &err))) {
		msg_err(&err);
		return exitcode_from_err(ret);
	}
	if (!sys.probe.opened) {
		rc = WHY_TREE_NONE; /* the one counted run says why */
	} else if (model_live_setup(&sys, chosen, 0, m, eo, b, &err)) {
		if (chosen) {
			msg_err(&err);
			rc = EXIT_USAGE;
		} else {
			rc = WHY_TREE_NONE;
		}
	}
	cpu_system_release(&sys);
	return rc;
}

int why_tree_pmu(const struct why_opts *wo, char *const *argv, const struct diag_opts *o, struct diag *d,
		 struct why_tree_run *out)
{
	const struct model *m = NULL;
	struct model_eval_opts eo = MODEL_EVAL_OPTS_INIT;
	struct groups_budget b;
	struct metric_tree *merged = NULL;
	struct drill_info *info = NULL;
	struct cli_drill c = { .o = &eo, .b = &b, .no_multiplex = wo->no_multiplex, .argv = argv,
			       .first_extra = measure_triage_events, .divert = why_divert(wo), .keep_partial = true };
	struct tdp_err err = TDP_ERR_INIT;
	int rc, depth;

	memset(out, 0, sizeof(*out));
	if ((rc = choose_model(wo, &m, &eo, &b)))
		return rc;
	depth = model_depth(m);
	eo.max_level = wo->level > 0 && wo->level < depth ? (int)wo->level : depth;
	if (wo->level > depth)
		msg_note("the '%s' model's tree is %d level%s deep: the drill-down stops there", m->name, depth,
			 depth == 1 ? "" : "s");
	merged = tdp_calloc(1, sizeof(*merged));
	info = tdp_calloc(1, sizeof(*info));
	if (!merged || !info) {
		msg_error("out of memory");
		rc = EXIT_ANALYSIS;
		goto out;
	}
	c.m = m;
	msg_progress("counting the top-down tree of model '%s' over '%s', drilling down to level %d", m->name,
		     argv[0], eo.max_level);
	if ((rc = cli_drill_run(&c, merged, info)))
		goto out;
	out->ran = c.ran;
	out->status = c.first_status;
	out->seconds = c.first.elapsed_ns > 0 ? c.first.elapsed_ns / 1e9 : -1;
	out->signal = c.signal;
	if (c.ran && c.last_status != c.first_status)
		msg_warning("the drill-down's runs of '%s' exited with status %d, the first with %d: the deeper nodes "
			    "may not describe the first run",
			    argv[0], c.last_status, c.first_status);
	c.first.backend = BACKEND_PMU;
	if (diag_from_counts(d, BACKEND_PMU, &c.first, merged, o, &err)) {
		msg_err(&err);
		rc = EXIT_ANALYSIS;
		goto out;
	}
	d->tree_drill = info;
	info = NULL;
	snprintf(d->tree_drill_stopped, sizeof(d->tree_drill_stopped), "%s", c.stopped);
out:
	cli_drill_release(&c);
	tdp_free(merged);
	tdp_free(info);
	return rc;
}
