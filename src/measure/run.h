/*
 * run.h: one run of a workload under a backend, for the commands that measure
 * (stat, topdown, why, selftest): the simulation (valgrind and the cost model,
 * src/sim/) or this CPU's PMU counting its top-down model and the triage events.
 *
 * Nothing here prints or reads the environment: progress lines and warnings go
 * to the caller's measure_notify, PATH and TMPDIR come in as arguments, errors
 * come back as a TDP_E* code with the message in err (cli/backend.c prints them
 * and turns them into exit statuses). The workload's own stdout is the caller's
 * to divert (cli/backend.c does, around these calls).
 *
 * Lifecycle:
 *   struct measure_sim s; measure_sim_init(&s); load s.machine (sim_machine_load);
 *   ret = measure_sim_run(argv, path, tmpdir, &s, &notify, &err);  ... s.profile, s.est ...
 *   measure_sim_release(&s);
 * and the same with measure_pmu / measure_pmu_run().
 */
#ifndef TDPROF_MEASURE_RUN_H
#define TDPROF_MEASURE_RUN_H

#include <stdbool.h>

#include "base/err.h"
#include "model/model.h"
#include "pmu/session.h"
#include "sim/sim.h"

/* Where a run's progress lines and warnings go (NULL members: nowhere). */
struct measure_notify {
	void (*progress)(const char *line);
	void (*warning)(const char *line, const char *hint); /* hint may be NULL */
};

/** The simulated run of a workload and what the sim module made of it. */
struct measure_sim {
	struct sim_machine machine;  /* the simulated machine (set before the run) */
	struct sim_profile profile;  /* valgrind's costs (owned) */
	struct sim_run_result run;   /* the workload's status (run.status) */
	struct sim_estimate est;     /* the whole run's estimate, when have_est */
	struct sim_core core;        /* the block model (simcore.h) used by est; core.valid when it ran */
	struct sim_site *sites;      /* the sites est was summed from (owned; est.sites borrows them) */
	size_t nr_sites;
	bool have_est;
	char machine_desc[256];      /* sim_machine_describe() */
	bool stdout_to_stderr;       /* for the caller's runner: the workload's stdout goes to stderr while it
				      * runs (a JSON document on stdout stays valid) */
	bool per_insn;               /* count per instruction (callgrind, ~2x slower): the branches of one
				      * source line told apart (set before the run) */
};

/** Make s empty (the machine is "generic"). */
void measure_sim_init(struct measure_sim *s);

/** Free what s owns; s is left as after measure_sim_init() but for the machine. */
void measure_sim_release(struct measure_sim *s);

/**
 * Run argv (NULL-terminated, borrowed) under valgrind on s->machine, looking
 * programs up in `path` and making the private directory in `tmpdir` (NULL:
 * the defaults), parse its cost files and estimate. Returns 0 when the workload
 * ran (its status in s->run.status; s->have_est false, with a warning told, when
 * the profile could not be estimated), or sim_run()'s error: TDP_ENOCMD,
 * TDP_ENOEXEC, TDP_EIO, TDP_EFORMAT, ... with err set.
 */
int measure_sim_run(char *const *argv, const char *path, const char *tmpdir, struct measure_sim *s,
		    const struct measure_notify *n, struct tdp_err *err) __attribute__((warn_unused_result));

/** A live run with the PMU: the counts of this CPU's top-down model and the triage events. */
struct measure_pmu {
	const struct model *chosen;       /* set by the caller: the model to count with (--cpu); NULL: this
	                                     CPU's (model/live.h) */
	const struct model *model;        /* this CPU's model (static); NULL: see allow_no_model */
	struct pmu_session_result res;    /* res.counts; res.wstatus when res.workload_ran */
	struct metric_tree tree;          /* evaluated (not classified); empty without a model */
	bool allow_no_model;              /* set by the caller before measure_pmu_run(): where no model
					   * applies, warn, count the triage events only and go on (model
					   * NULL, tree empty, no_model says why) instead of failing */
	char no_model[TDP_ERR_MSG_MAX];   /* why no model applies ("" when one does) */
};

/* The triage events counted beside the model's groups: cycles, instructions, branches, branch-misses,
 * L1-icache-load-misses, LLC-load-misses (an event list of pmu/event.h). */
extern const char measure_triage_events[];

/** Make p empty. */
void measure_pmu_init(struct measure_pmu *p);

/** Free what p owns. */
void measure_pmu_release(struct measure_pmu *p);

/**
 * Count the top-down events of this CPU's model (up to `level`) and the triage
 * events (cycles, instructions, branches, branch-misses, L1-icache-load-misses,
 * LLC-load-misses) over one run of argv, and evaluate the tree. Returns 0 when
 * the workload ran; TDP_EUSAGE with no_model set when no model applies to this
 * CPU and !allow_no_model; else the error of detection, counting (TDP_ENOCMD,
 * TDP_ENOEXEC: the workload was not found or cannot run) or evaluation.
 */
int measure_pmu_run(char *const *argv, int level, struct measure_pmu *p, const struct measure_notify *n,
		    struct tdp_err *err) __attribute__((warn_unused_result));

#endif
