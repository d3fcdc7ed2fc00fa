/*
 * drill-fixture.h: synthetic recordings of drill-target (built -g by the test
 * build) for the PMU drill-down's tests: its marked lines, functions and
 * conditional branch, read independently of the code under test (libdw's line
 * table, libelf's symbol table, capstone through symbol_decode), and perf.data
 * files written with perfdata-write.h whose process maps it at FX_BASE.
 *
 * The recordings (every figure chosen here; the expectations follow from them):
 *   FX_IP   100 IP samples: 31 + 29 at two instructions of the HOT line (spin), 25 at
 *           the first address of the BRANCH line (pick), 10 at main's first
 *           instruction, 5 at a kernel address (FX_KADDR, kernel cpumode).
 *   FX_LBR  20 samples with branch stacks, mispredict flags set:
 *             10 x [jcc M, other P], 6 x [jcc P, other P], 4 x [jcc P, other M]
 *           where jcc is the BRANCH line's conditional branch (to its target) and
 *           other an edge from main's first instruction to main + 4: jcc 20 records,
 *           10 mispredicted; other 20 records, 4 mispredicted; 14 mispredicted in all.
 *   FX_BRS  20 samples, no flags: 12 x [jcc, other], 8 x [jcc]: jcc 20, other 12.
 *   FX_ADDR FX_IP's samples with data addresses (PERF_SAMPLE_ADDR, perf record -d) and
 *           MMAP2 records of a [heap] at FX_HEAP and a [stack] at FX_STACK (0x21000
 *           bytes each, read-write): hot[0]'s 31 in the heap line FX_HEAP + 0x40,
 *           hot[1]'s 29 in FX_HEAP + 0x1000, the BRANCH line's 25 in FX_STACK + 0x100
 *           (each spread over the line's 8-byte words), main's and the kernel's 0 (no
 *           address): 85 samples with an address.
 *   FX_SPE  an Arm SPE recording (AUXTRACE_INFO of type 4, one AUXTRACE): load records at
 *           FX_IP's user instructions with FX_ADDR's data addresses and total latencies
 *           300 (hot[0], 31), 40 (hot[1], 29), 4 (BRANCH line, 25), main's 10 loads
 *           without an address, and 5 stores and 3 branches (no loads): 95 loads, 85
 *           with an address.
 */
#ifndef TDPROF_TESTS_DRILL_FIXTURE_H
#define TDPROF_TESTS_DRILL_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "cpu/cpu.h"
#include "diagnose/diagnose.h"
#include "diagnose/drill-pmu.h"

#define FX_BASE 0x555555554000ull   /* where the PIE is "loaded" */
#define FX_PID 4242
#define FX_KADDR 0xffffffff81001000ull
#define FX_HEAP 0x555556000000ull
#define FX_STACK 0x7ffd00000000ull

struct fx_func {
	uint64_t addr, size;             /* ELF virtual address and bytes (symbol table) */
};

struct fx_target {
	char binary[4096];               /* realpath of drill-target */
	char source[4096];               /* realpath of drill-target.c */
	char srcdir[4096];               /* its directory */
	unsigned hot_line, branch_line;  /* the marked lines */
	uint64_t hot[2];                 /* its first two instructions (vaddr) */
	uint64_t branch_first;           /* the first address of the BRANCH line */
	uint64_t jcc, jcc_target;        /* its conditional branch and where it jumps */
	struct fx_func spin, pick, main;
	uint64_t seg_vaddr, seg_off, seg_len; /* the executable PT_LOAD, page-aligned */
};

enum fx_kind { FX_IP, FX_LBR, FX_BRS, FX_ADDR, FX_SPE };

extern struct fx_target fx;

/** Read binary and source into fx. Returns 0, or -1 with a message on stderr. */
int fx_init(const char *binary, const char *source);

/** Write recording `kind` to path. Returns 0 or a TDP_E* code (err set). */
int fx_write(const char *path, enum fx_kind kind, struct tdp_err *err);

/** The recording as a heap buffer (*buf, tdp_free; *len). Returns 0 or -1. */
int fx_recording(enum fx_kind kind, uint8_t **buf, size_t *len);

/**
 * d (initialised) as diag_from_counts() leaves it for a level-1 tree whose
 * dominant bucket is `category` at `pct` percent (the other three share the rest
 * evenly), or, with category NULL, as a run without a model (diag_pmu_no_model()).
 * o: the options (exe, cwd = fx.srcdir, command "drill-target", top 10). Returns 0 or -1.
 */
int fx_diag(struct diag *d, const char *category, double pct, struct diag_opts *o);

/*
 * Made-up counts for every event of model (its PERF_METRICS shares: ret retiring, bad bad
 * speculation, 0.10 frontend, the rest backend, 90 % of bad mispredicts, mem memory bound;
 * cycles slots / 6; every other event a small fraction of the cycles fixed by its name)
 * read through the import path (perf stat -j lines) into cs (appended) and evaluated to
 * the model's depth into t (classified). Returns 0 or -1.
 */
int fx_model_tree(const char *model, double ret, double bad, double mem, struct countset *cs, struct metric_tree *t);

/* fx_diag() over fx_model_tree()'s tree and counts (Intel's: a Bottlenecks view). */
int fx_diag_model(struct diag *d, const char *model, double ret, double bad, double mem, struct diag_opts *o);

/* A node and its value for fx_diag_path(). */
struct fx_node {
	const char *key;
	double value;
};

/*
 * d as diag_from_counts() leaves it for model's tree with only the nodes given measured
 * (level 1 and a path down to a leaf, every other node not measured), classified.
 * Returns 0 or -1.
 */
int fx_diag_path(struct diag *d, const char *model, const struct fx_node *nodes, size_t nr, struct diag_opts *o);

/** A plan for category on a machine whose branch facility is f (reason "test machine"). */
int fx_plan(struct diag_pmu_plan *p, const char *category, enum cpu_branch_facility f);

/** The same on a machine with Arm SPE ("arm_spe_0", type 9, min_interval 1024, branch and load filters). */
int fx_plan_spe(struct diag_pmu_plan *p, const struct diag *d);

/** The same for d's verdict and tree (its dominant leaf's Locate-with; max_precise as caps/max_precise). */
int fx_plan_tree(struct diag_pmu_plan *p, const struct diag *d, enum cpu_branch_facility f, int max_precise);

/*
 * A fault in the drill's counts (fx_drill_diag()): from step `step` on, `event`'s count is
 * multiplied by `factor` and every group ran `running` percent of the time.
 */
struct fx_fault {
	int step;
	const char *event;
	double factor;
	double running;
};

/*
 * d as `why` leaves it on a PMU (cli/why-tree.c): the drill-down of model (drilldown.h's
 * drill_run()) over fx_model_tree()'s made-up counts, which a counter gives each step's
 * planned groups (their events, group numbers and running times as a live run would,
 * 2 s per run), fault (NULL: none) applied; then diag_from_counts() over the merged tree and
 * step 1's counts, with d->tree_drill. Returns 0 or -1.
 */
int fx_drill_diag(struct diag *d, const char *model, double ret, double bad, double mem, const struct fx_fault *fault,
		  bool no_multiplex, struct diag_opts *o);

#endif
