/* sim.c: the simulated run of a workload (see run.h). */
#include "measure/run.h"

#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"
#include "sim/runner.h"
#include "simcore/simcore.h"

void measure_sim_init(struct measure_sim *s)
{
	memset(s, 0, sizeof(*s));
	sim_profile_init(&s->profile);
	if (sim_machine_preset(&s->machine, "generic", NULL))
		memset(&s->machine, 0, sizeof(s->machine));
}

void measure_sim_release(struct measure_sim *s)
{
	sim_profile_release(&s->profile);
	sim_core_release(&s->core);
	sim_sites_free(s->sites);
	s->sites = NULL;
	s->nr_sites = 0;
	s->have_est = false;
}

int measure_sim_run(char *const *argv, const char *path, const char *tmpdir, struct measure_sim *s,
		    const struct measure_notify *n, struct tdp_err *err)
{
	struct sim_run_opts o = SIM_RUN_OPTS_INIT;
	struct tdp_err why = TDP_ERR_INIT;
	struct strbuf line = STRBUF_INIT;
	int ret;

	o.argv = argv;
	o.machine = &s->machine;
	o.path = path;
	o.tmpdir = tmpdir;
	o.tool = s->per_insn ? SIM_TOOL_CALLGRIND : SIM_TOOL_CACHEGRIND;
	sim_machine_describe(&s->machine, s->machine_desc, sizeof(s->machine_desc));
	if (n->progress) {
		/* tdprof's own tool (vgtool/) replaces cachegrind and callgrind where it was built */
		strbuf_addf(&line, "simulating '%s' under valgrind (%s, machine %s): expect 20-100x its normal "
			    "run time", argv[0],
			    sim_tdpsim_available() ? "tdpsim, tdprof's tool"
			    : s->per_insn	   ? "callgrind, per instruction"
						   : "cachegrind",
			    s->machine.name);
		n->progress(line.buf);
	}
	ret = sim_run(&o, &s->profile, &s->run, err);
	if (ret)
		goto out;
	if (n->progress) {
		strbuf_reset(&line);
		strbuf_addf(&line, "simulation done in %.1f s", s->run.wall_ns / 1e9);
		n->progress(line.buf);
	}
	{
		size_t len;

		/* the parameters of the simulator that ran, and which it was */
		if (s->run.tool == SIM_TOOL_TDPSIM)
			sim_machine_describe_tool(&s->machine, s->machine_desc, sizeof(s->machine_desc));
		len = strlen(s->machine_desc);
		snprintf(s->machine_desc + len, sizeof(s->machine_desc) - len, "; simulated by %s",
			 sim_tool_name(s->run.tool));
	}
	/* The per-block pipeline model needs per-instruction counts (callgrind, tdprof's
	 * tool); every command that simulates asks for them (per_insn), so that one program
	 * gets one estimate whichever command reads it. */
	if (s->per_insn && s->profile.has_addr) {
		struct simcore_opts co = { .tmpdir = tmpdir, .llvm_mca = NULL };

		sim_core_release(&s->core);
		if ((ret = simcore_model(&s->profile, &s->machine, &co, &s->core, err)))
			goto out;
		if (!s->core.valid && n->warning) {
			strbuf_reset(&line);
			strbuf_addf(&line, "no core model (Core Bound and Heavy Operations not estimated): %s",
				    s->core.why_not);
			n->warning(line.buf, NULL);
		}
	}
	/* the sites are kept: the diagnosis of this run reads them (est.sites) instead of building them again */
	sim_sites_free(s->sites);
	s->sites = NULL;
	s->nr_sites = 0;
	s->est.sites = NULL;
	s->est.nr_sites = 0;
	s->have_est = false;
	if (sim_estimate_core_keep(&s->profile, &s->machine, &s->core, &s->est, &s->sites, &s->nr_sites, &why)) {
		if (n->warning) {
			strbuf_reset(&line);
			strbuf_addf(&line, "no estimate: %s", why.msg);
			n->warning(line.buf, why.hint[0] ? why.hint : NULL);
		}
	} else {
		s->have_est = true;
	}
out:
	strbuf_release(&line);
	return ret;
}
