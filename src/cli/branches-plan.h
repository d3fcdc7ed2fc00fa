/*
 * branches-plan.h: what `tdprof branches record` samples, decided from its
 * options and the machine: the event, the branch filter (checked against the
 * facility: LBR, LbrExtV2, BRS, BRBE, or Arm SPE), the period or frequency. In
 * cli/ because each refusal is a message with its remedy; the recording itself is
 * measure/record.h.
 *
 * Usage (cmd-branches-record.c):
 *   struct branches_plan p = BRANCHES_PLAN_INIT;
 *   rc = branches_plan(&ro, &sys, &p);     -1: go on; else the exit status (printed)
 *   ... record with p.so ...; branches_plan_release(&p);
 */
#ifndef TDPROF_CLI_BRANCHES_PLAN_H
#define TDPROF_CLI_BRANCHES_PLAN_H

#include <stdbool.h>

#include "base/strbuf.h"
#include "cpu/cpu.h"
#include "pmu/event.h"
#include "pmu/sampling.h"

#define BRANCHES_RECORD "branches record" /* the command's name in messages */

struct tdp_err;

/* The options of `branches record`. */
struct branches_record_opts {
	char *event;
	const char *filter, *out, *pid_s, *spe_filter;
	long period, freq, pages;
	bool spe, no_branch_stack, no_inherit;
	bool branch_any;  /* -b: perf record's --branch-any, the default here (refused where it means nothing) */
};

struct branches_plan {
	struct pmu_event_list events;
	struct strbuf spec;         /* the event spec */
	struct pmu_sampling_opts so;
	bool branch;                /* branch stacks */
	bool note_software;         /* say once that a software event has no branch stack */
};

#define BRANCHES_PLAN_INIT { PMU_EVENT_LIST_INIT, STRBUF_INIT, PMU_SAMPLING_OPTS_INIT, false, false }

/** Print err; the exit status for it (2 for TDP_EUSAGE). */
int branches_fail(struct tdp_err *err);

/** Choose the event, the filter and the sampling rate. Returns -1 to go on, or the exit status (printed). */
int branches_plan(const struct branches_record_opts *ro, const struct cpu_system *sys, struct branches_plan *p);

/** perf's default frequency, lowered to the kernel's limit with a warning, as perf does. */
void branches_cap_freq(struct pmu_sampling_opts *so);

/** Free what p owns. */
void branches_plan_release(struct branches_plan *p);

#endif
