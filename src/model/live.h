/*
 * live.h: which top-down model applies to the machine being measured, with the
 * evaluation options and the counter budget of a live run on it. `tdprof topdown`
 * and `tdprof why --backend=pmu` both ask here, so they always agree.
 *
 * The choice, in order: the model the user named (--cpu); on a hybrid, the P-core
 * model (its E-core companion is evaluated beside it); the model of the CPU's
 * micro-architecture; on Arm, the generic SBSA model when the core PMU reports its
 * slots (caps/slots, PMMIR_EL1.SLOTS). #slots comes from an override, else from
 * caps/slots; the budget from the counters CPUID or sysfs report, less the one the
 * NMI watchdog holds.
 */
#ifndef TDPROF_MODEL_LIVE_H
#define TDPROF_MODEL_LIVE_H

#include "model/groups.h"
#include "model/model.h"

struct cpu_system;
struct tdp_err;

/**
 * Choose the model for `sys` (borrowed) and fill the options and budget of a live
 * run. chosen: a model the user named, or NULL. slots: > 0 overrides caps/slots.
 * Writes *out, *o (slots, smt_on, core_wide; max_level untouched) and *b.
 * Returns 0, or TDP_ENOTSUP when no model applies, with a message saying why (on
 * Arm: the core PMU has no slot events) and a hint naming --cpu; outputs untouched.
 */
int model_live_setup(const struct cpu_system *sys, const struct model *chosen, double slots,
		     const struct model **out, struct model_eval_opts *o, struct groups_budget *b,
		     struct tdp_err *err) __attribute__((warn_unused_result));

#endif
