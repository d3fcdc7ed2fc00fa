/* live.c: the model of the machine being measured (see live.h). */
#include "model/live.h"
#include "base/err.h"
#include "cpu/cpu.h"

#include <string.h>

/* The P-core model of a hybrid (the E-core's companion), or NULL. */
static const struct model *hybrid_model(const struct cpu_info *c)
{
	const struct model *m;

	for (size_t i = 0; i < c->nr_core_types; i++)
		if (c->core_types[i].uarch && (m = model_for_uarch(c->core_types[i].uarch)) && m->core_type &&
		    !strcmp(m->core_type, "E-core") && m->companion)
			return m->companion;
	return NULL;
}

/* The generic Arm rule: the Arm slot model whose #slots comes from the PMU (sbsa), or NULL. */
static const struct model *generic_arm_model(void)
{
	size_t nr;
	const struct model *const *all = model_all(&nr);

	for (size_t i = 0; i < nr; i++)
		if (all[i]->vendor == MODEL_VENDOR_ARM && all[i]->kind == MODEL_KIND_SLOTS && all[i]->slots == 0)
			return all[i];
	return NULL;
}

int model_live_setup(const struct cpu_system *sys, const struct model *chosen, double slots,
		     const struct model **out, struct model_eval_opts *o, struct groups_budget *b,
		     struct tdp_err *err)
{
	const struct cpu_info *c = &sys->cpu;
	const struct cpu_pmu *core = cpu_pmu_list_first(&sys->pmus, CPU_PMU_CORE);
	long caps_slots = core ? cpu_pmu_cap_long(core, "slots") : -1;
	const struct model *m = chosen;

	if (!m && c->hybrid && c->nr_core_types)
		m = hybrid_model(c);
	if (!m && c->uarch_revision) /* a revision with its own definitions (Neoverse N2 r0p0-r0p2) */
		m = model_for_uarch(c->uarch_revision);
	if (!m && c->uarch)
		m = model_for_uarch(c->uarch);
	if (!m && c->is_arm && caps_slots > 0)
		m = generic_arm_model();
	if (!m && c->is_arm && core) {
		tdp_err_set(err, TDP_ENOTSUP,
			    "no top-down model for this CPU (%s): its PMU '%s' has no slot events (caps/slots is %s), "
			    "so slot-level top-down cannot be measured here",
			    c->uarch ? c->uarch : "not recognised", core->name, caps_slots == 0 ? "0" : "absent");
		return tdp_err_hint(err, "give a model with --cpu MODEL ('tdprof list models' shows them); cores "
					 "without slot events have cycle accounting (--cpu cortex-a76 or neoverse-n1: "
					 "STALL_FRONTEND, STALL_BACKEND)");
	}
	if (!m) {
		tdp_err_set(err, TDP_ENOTSUP, "no top-down model for this CPU (%s)",
			    c->uarch ? c->uarch : "not recognised");
		return tdp_err_hint(err, "give one with --cpu MODEL ('tdprof list models' shows them)");
	}
	*out = m;
	o->slots = slots > 0 ? slots : (caps_slots > 0 ? (double)caps_slots : 0);
	o->smt_on = c->smt == 1;
	o->core_wide = false; /* a command's threads, not every thread of its cores */
	model_default_budget(m, b);
	if (c->gp_counters > 0)
		b->gp = (unsigned)c->gp_counters;
	if (c->fixed_counters >= 0 && c->gp_counters > 0)
		b->fixed = (unsigned)c->fixed_counters;
	b->nmi_watchdog = sys->perms.nmi_watchdog == 1;
	return 0;
}
