/*
 * cmd-topdown-byfunc.c: `tdprof topdown --by function --backend=sim -- CMD`: the
 * whole program's simulated tree and, beside it, each function's own top-down from
 * the simulation's per-line counts (diagnose/byfunc.h).
 */
#include "cli/backend.h"
#include "cli/cmd.h"
#include "cli/cmd-topdown.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "diagnose/byfunc.h"
#include "measure/run.h"
#include "model/model.h"
#include "report/topdown.h"
#include "sim/cost.h"

#include <stdio.h>
#include <string.h>

int topdown_run_byfunc_sim(const struct topdown_opts *to, char *const *argv, struct tdp_ctx *ctx)
{
	struct measure_sim s;
	struct metric_tree *tree = tdp_calloc(1, sizeof(*tree));
	struct topdown_report r = { 0 };
	struct strbuf src = STRBUF_INIT;
	struct byfunc_result fr = { 0 };
	struct sim_site *sites = NULL;
	struct tdp_err err = TDP_ERR_INIT;
	size_t nr = 0;
	int rc, ret;

	if (!tree) {
		msg_error("out of memory");
		return EXIT_ANALYSIS;
	}
	measure_sim_init(&s);
	rc = backend_sim_machine("topdown", to->sim_machine, &s.machine);
	s.stdout_to_stderr = strcmp(to->format, "text") && !to->out_path;
	s.per_insn = true; /* the block model (Core Bound, Heavy Operations) needs per-instruction counts */
	if (!rc)
		rc = backend_sim_run(argv, &s);
	if (!rc && !s.have_est)
		rc = EXIT_ANALYSIS;
	if (rc)
		goto out;
	if ((ret = sim_sites_build_core(&s.profile, &s.machine, s.est.core, &sites, &nr, &err)) ||
	    (ret = byfunc_from_sites(sites, nr, &s.profile, &s.machine, s.est.core, &fr, &err))) {
		msg_err(&err);
		rc = exitcode_from_err(ret);
		goto out;
	}
	model_tree_from_sim(&s.est.topdown, s.machine.width, to->level ? (int)to->level : 2, tree);
	model_classify(tree);
	r.trees[0] = tree;
	r.nr_trees = 1;
	strbuf_adds(&src, "'");
	strbuf_add_shell_words(&src, argv);
	strbuf_addf(&src, "', estimate (simulated) on machine %s", s.machine_desc);
	r.source = src.buf;
	r.backend = BACKEND_SIM;
	r.level = tree->max_level;
	r.functions = &fr;
	r.notes[r.nr_notes++] = "every figure is an estimate (simulated) by valgrind and the cost model of "
				"docs/sim-machine.md, not a measurement; each function's top-down is of the cycles "
				"charged to its own lines (self, not its callees)";
	rc = topdown_render(to, &r, ctx);
	if (rc == EXIT_OK)
		rc = s.run.status;
out:
	sim_sites_free(sites);
	byfunc_release(&fr);
	strbuf_release(&src);
	measure_sim_release(&s);
	tdp_free(tree);
	return rc;
}
