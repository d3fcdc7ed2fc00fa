/*
 * drill-pmu.h: the drill-down of `tdprof why` on the PMU backend: a second run of
 * the workload, sampled the way the dominant bucket asks, turned into the same
 * ranked sites, disassembly, code footprint, loop command and findings that the
 * simulated backend fills (diagnose.h), so that one renderer serves both.
 *
 *   Bad Speculation  branch stacks where the machine records them (cpu.h's
 *                    facility: Intel LBR, AMD LbrExtV2, AMD BRS with its rules:
 *                    event 0xC4 at a fixed period, Arm BRBE), else Arm SPE's
 *                    sampled branches; aggregated by branch/branch.h into
 *                    mispredicting sites, merged per source line, the
 *                    disassembly around the worst one. Without any facility:
 *                    IP samples of cycles (the hot lines, whose branches are the
 *                    suspects), and a finding that says why.
 *   Frontend Bound   IP samples of cycles grouped per function: the hot code
 *                    footprint (functions, their bytes, the distinct 64-byte
 *                    lines the samples touched).
 *   Backend Bound,   IP samples of cycles: the hot lines and functions; the
 *   Retiring, none   `tdprof loop FILE.c --function NAME -- CFLAGS` command for
 *                    the hottest function whose source file exists.
 *   any but Bad      where the tree's dominant leaf (model/locate.h) has a
 *   Speculation      Locate-with event in the vendor's data: IP samples of that
 *                    event (":pp" where caps/max_precise >= 2) instead of cycles,
 *                    ranking the lines and functions where the leaf's own events
 *                    happen; each finding names the leaf it located. A leaf
 *                    under Memory Bound sampled precisely records each sample's
 *                    data address too (PEBS, perf record -d): the data cache
 *                    lines touched most, with the mapping each is in and the
 *                    code line that touched it (drill-pmu-data.c). On a
 *                    machine with Arm SPE, a memory leaf (under Memory Bound,
 *                    or Backend Bound itself in Arm's one-level trees) is
 *                    sampled by SPE's load records instead: each load's PC,
 *                    data address and latency.
 *
 * Three steps, so that cli/ can say what happens between them (progress lines,
 * the workload's stdout) while nothing here prints:
 *   1. diag_pmu_plan(&plan, &in, &err): what to sample (pure: uses only its
 *      arguments, so tests give it any machine);
 *   2. diag_pmu_record(&plan, argv, tmpdir, &rec, &err): run the workload once
 *      under pmu/sampling.h and write the records as a perf.data into memory (a
 *      memfd), or, where memfd_create() is missing, into a private directory of
 *      tmpdir (mode 0700, the file 0600) that is removed before the call returns;
 *      never into the user's directory;
 *   3. diag_pmu_drill(d, rec.data, rec.size, &opts, &err): read that perf.data
 *      (any perf.data image: the tests write theirs with perfdata-write.h) into d,
 *      which diag_from_counts() filled before;
 *   diag_pmu_recording_release(&rec).
 *
 * What diag_pmu_drill() changes in d: drill, ranked_by, sites (d must have none),
 * disasm/disasm_why, footprint, loop_command, sampling (has_sampling); the fix of
 * the category's finding (diag_from_counts() told the user to trace the branches
 * with `tdprof branches record`: this is that trace) and the notes (its note about
 * the missing trace is replaced); new findings, re-sorted. Every string it adds is
 * owned by d.
 *
 * Shares. A site's share_pct is its part of what it is ranked by: of all
 * mispredicted branch records (taken branch records for AMD BRS, which has no
 * mispredict flag), or of all samples (IP). A finding's share_pct is the
 * category's percent of slots times its site's share: the part of the slots the
 * site accounts for if the samples are representative.
 */
#ifndef TDPROF_DIAGNOSE_DRILL_PMU_H
#define TDPROF_DIAGNOSE_DRILL_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu/cpu.h"
#include "diagnose/diagnose.h"
#include "pmu/sampling.h"

struct tdp_err;
struct symbol_opts;

#define DIAG_PMU_FREQ 4000            /* samples per second (perf record's default) */
#define DIAG_PMU_MIN_SAMPLES 2000     /* a short run (its first run's time) is sampled faster, to get these */
#define DIAG_PMU_MAX_FREQ 20000       /* but never faster than this (nor the kernel's limit) */
#define DIAG_PMU_BRS_PERIOD 100003    /* AMD BRS: retired taken branches per sample (a prime, above the depth) */
#define DIAG_PMU_SPE_INTERVAL 4096    /* Arm SPE: operations per sample when the PMU gives no minimum */
#define DIAG_PMU_MAX_BYTES (256u << 20) /* recording kept in memory; samples past it are dropped (counted) */
#define DIAG_PMU_MAX_ADDRS (1u << 22) /* distinct sampled (pid, IP) kept */
#define DIAG_PMU_MAX_BRANCH_SITES 65536 /* branch sites resolved, the most guilty first */
#define DIAG_PMU_SITE_FINDINGS 3      /* sites turned into findings */
#define DIAG_PMU_MIN_SHARE 1.0        /* a site below this share (percent) makes no finding */
#define DIAG_PMU_CACHE_LINE 64        /* bytes of code per line in the touched-footprint count */

/** What to sample (diag_pmu_plan()). */
struct diag_pmu_plan {
	enum diag_drill drill;           /* the drill-down the sites feed */
	enum diag_sample_method method;
	enum cpu_branch_facility facility; /* this machine's branch recording (NONE: none) */
	const char *facility_name;       /* cpu_branch_facility_name(); NULL for none (static) */
	char facility_reason[320];       /* cpu.h's reason: why that facility, or why none */
	char reason[400];                /* why this method for this category, one sentence */
	char event[256];                 /* the event spec given to the parser ("cycles", "r0c4", "arm_spe_0/.../") */
	uint64_t freq;                   /* samples per second, or 0 with period */
	uint64_t period;                 /* events per sample, or 0 with freq */
	uint64_t branch_sample_type;     /* branch stacks: the filter (PERF_SAMPLE_BRANCH_ANY); 0 otherwise */
	uint32_t spe_pmu_type;           /* SPE: the PMU's type */
	int depth;                       /* branch stack depth, -1 unknown (BRS's period rule) */
	long core_type;                  /* the core PMU's type, -1 unknown (BRS's event rule) */
	long branch_counters;            /* caps/branch_counter_nr of the core PMU, -1 absent */
	const char *locate_leaf;         /* IP samples of the dominant leaf's Locate-with event (model/locate.h): the
	                                    leaf (static key); NULL: cycles */
	char locate_event[128];          /* with locate_leaf: the vendor's event as its data spells it */
	bool data_addr;                  /* with locate_leaf under Memory Bound sampled precisely (PEBS): each
	                                    sample's data address too (perf record -d) */
	bool spe_loads;                  /* method SPE: load records (a memory leaf on a machine with Arm SPE)
	                                    instead of branch records */
};

/** The inputs of the plan. */
struct diag_pmu_plan_in {
	const char *category;            /* the verdict's level-1 key; NULL: no verdict (no model) */
	const struct cpu_branch *branch; /* cpu_system.branch (borrowed) */
	const struct cpu_pmu_list *pmus; /* cpu_system.pmus (borrowed; the SPE and core PMUs) */
	double run_seconds;              /* the first run's wall time; <= 0 unknown */
	uint64_t max_rate;               /* kernel.perf_event_max_sample_rate; 0 unknown */
	const struct metric_tree *tree;  /* the classified tree, for the dominant leaf's Locate-with; NULL: none */
	int max_precise;                 /* the core PMU's caps/max_precise (":pp" from 2); -1 unknown */
};

/**
 * Decide what the second run samples (see the top of this file): method, event,
 * frequency or period, branch filter; `reason` says why in one sentence naming the
 * facility, or that there is none and why. A facility that cannot be used as
 * planned (an SPE PMU without a branch_filter format) falls back to IP samples
 * with the reason. Pure. Returns 0 or TDP_ENOMEM.
 */
int diag_pmu_plan(struct diag_pmu_plan *p, const struct diag_pmu_plan_in *in, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Turn a plan that sampled the dominant leaf's Locate-with event, which did not
 * locate it, into IP samples of cycles, the reason saying so: what_happened is the
 * event's fate as a phrase ("did not open (the kernel said ENOENT)", "gave no sample:
 * ..."). Pure.
 */
void diag_pmu_plan_unlocate(struct diag_pmu_plan *p, const struct diag_pmu_plan_in *in, const char *what_happened);

/**
 * Turn a branch plan that could not be recorded (the kernel refused the branch
 * stack or SPE event: `why`, the engine's message) into IP samples of cycles, the
 * reason saying so. in: the inputs of the first plan. Pure.
 */
void diag_pmu_plan_fallback(struct diag_pmu_plan *p, const struct diag_pmu_plan_in *in, const char *why);

/** The recording of the second run. */
struct diag_pmu_recording {
	const uint8_t *data;             /* the perf.data image (read-only mapping), size bytes */
	size_t size;
	struct pmu_sampling_stats stats; /* the engine's counts and the workload's status */
	uint64_t dropped;                /* samples not kept past DIAG_PMU_MAX_BYTES */
	int fd;                          /* the memfd or file mapped; -1 none */
};

#define DIAG_PMU_RECORDING_INIT { NULL, 0, { 0 }, 0, -1 }

/**
 * Run argv (NULL-terminated, borrowed) once, sampled as p says, and keep the
 * records as a perf.data image in out (see the top of this file for where).
 * tmpdir: where to make the private directory when memfd_create() is missing
 * (NULL: "/tmp"). The workload's stdout is the caller's (divert it first when it
 * must not reach stdout). Returns 0 when the workload ran (its status in
 * out->stats; out is to be released); TDP_ENOCMD / TDP_ENOEXEC (cannot be run);
 * the engine's errors (TDP_ENOTSUP: the event or branch filter does not open here,
 * TDP_EPERM, TDP_EUSAGE when the event breaks a facility's rule); TDP_EIO;
 * TDP_ENOMEM. On failure out is released.
 */
int diag_pmu_record(const struct diag_pmu_plan *p, char *const *argv, const char *tmpdir,
		    struct diag_pmu_recording *out, struct tdp_err *err) __attribute__((warn_unused_result));

/** Unmap and close; r is left as DIAG_PMU_RECORDING_INIT. */
void diag_pmu_recording_release(struct diag_pmu_recording *r);

/** How diag_pmu_drill() reads a recording. */
struct diag_pmu_drill_opts {
	const struct diag_pmu_plan *plan; /* the method and the words about it (borrowed) */
	const struct diag_opts *o;       /* exe (in_program, compiler flags), cwd, command, top (borrowed) */
	const struct symbol_opts *sym;   /* NULL: symbol_opts_init()'s defaults */
	uint64_t dropped;                /* samples the recording dropped (diag_pmu_recording) */
};

/**
 * The drill-down of d (filled by diag_from_counts(), no sites yet) from the
 * perf.data image buf[0..len) (untrusted: the reader checks it). Returns 0;
 * TDP_EFORMAT / TDP_ELIMIT (a malformed recording, named "the drill-down's
 * recording" with the offset); TDP_ELIMIT (past DIAG_PMU_MAX_ADDRS); TDP_ENOMEM.
 * On failure d keeps what diag_from_counts() gave it plus any sites made so far;
 * it is to be released either way.
 */
int diag_pmu_drill(struct diag *d, const uint8_t *buf, size_t len, const struct diag_pmu_drill_opts *o,
		   struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * A PMU diagnosis where no top-down model applies to the CPU (diag_from_counts()
 * over an empty tree): no tree, no verdict; d->reason says why (`why`, copied)
 * and a note says what the output still holds (the triage counts, the hot code).
 */
void diag_pmu_no_model(struct diag *d, const char *why);

/** "ip", "branch_stack" or "spe". */
const char *diag_sample_method_name(enum diag_sample_method m);

#endif
