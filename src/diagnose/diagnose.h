/*
 * diagnose.h: the workflow of `tdprof why` as one analysis: triage (CPI and
 * MPKIs), the top-down tree and its verdict, the drill-down into the dominant
 * bucket (sites with their source lines, the disassembly around the top branch,
 * the hot code footprint, the hot loop and its `tdprof loop` command) and a ranked
 * diagnosis whose every finding has its evidence, its site and a fix from the
 * knowledge base (model/advice.h).
 *
 * Sits above model, sim and symbol (it uses them all) and below report (which
 * renders a struct diag) and cli (which runs the workload and reads options).
 * Nothing here prints, exits or reads the environment.
 *
 * The category is the verdict of model_classify(), the one rule `topdown` prints
 * too: the level-1 bucket over its threshold (design.md: Retiring > 80 %, Bad
 * Speculation > 15 %, Frontend Bound > 20 %, Backend Bound > 40 %) with the
 * largest share of slots; when none is over its threshold, the largest stall (not
 * Retiring), said to be under its threshold: the slots not retired are where the
 * time goes, and that stall is where a fix starts.
 *
 * The scope (simulated backend). valgrind counts every instruction of the process,
 * the dynamic loader's and the C library's start-up included. In a short program
 * (under ~10 M instructions) the loader's first, cold misses would dominate the
 * estimate. So the costs are attributed by object: an entry belongs to the program
 * when its function is a function symbol of the workload's executable (and its
 * source file, when valgrind names one, is in the executable's line tables). When
 * the program's own code executed at least DIAG_SCOPE_MIN_PCT % of the
 * instructions, the tree, the verdict, the sites and the findings describe the
 * program's own code (scope "program") and the whole run is reported beside it;
 * otherwise (the work is in shared libraries: memcpy-bound code, an interpreter
 * such as python, or no executable was found) they describe the whole run (scope
 * "whole_run"). Either way the output says which.
 *
 * The disassembly of a branch site. The line's instructions come from the
 * executable's DWARF line table. When the profile has per-instruction counts
 * (callgrind, which `why` runs: docs/sim-machine.md), each branch of the top line
 * gets its own counts (d->branches) and the most mispredicted one is marked; a line
 * often holds several (a loop test and the data-dependent test). With per-line
 * counts only (cachegrind), the line's only branch of the dominant kind is marked,
 * and none when it holds several (the counts cannot tell them apart).
 *
 * Lifecycle:
 *   struct diag d; diag_init(&d);
 *   diag_from_sim(&d, &profile, &machine, &est, &opts, &err);   (simulated backend)
 *   or diag_from_counts(&d, &counts, &tree, &opts, &err);      (PMU: no sites)
 *      then, for the sites, diag_pmu_drill() over a second, sampled run (drill-pmu.h);
 *   report/why.h renders d; diag_release(&d).
 * Every pointer in a struct diag is owned by it (or static) unless said otherwise.
 */
#ifndef TDPROF_DIAGNOSE_DIAGNOSE_H
#define TDPROF_DIAGNOSE_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/countset.h"
#include "base/err.h"
#include "diagnose/byfunc.h"
#include "model/model.h"
#include "model/triage.h"
#include "symbol/exe.h"

struct tdp_err;
struct drill_info;
struct sim_profile;
struct sim_machine;
struct sim_estimate;

#define DIAG_SCOPE_MIN_PCT 50.0 /* program scope when its code ran this share of instructions */
#define DIAG_MAX_SITES 100      /* sites kept (-n) */
#define DIAG_MAX_FINDINGS 8
#define DIAG_MAX_FUNCS 12       /* functions listed in the code footprint */
#define DIAG_MAX_NOTES 8
#define DIAG_MAX_BOTTLENECKS 16 /* Intel's Bottlenecks view has 12 */

enum diag_scope {
	DIAG_SCOPE_WHOLE_RUN = 0, /* every instruction of the run */
	DIAG_SCOPE_PROGRAM,       /* the executable's own code */
};

enum diag_drill {
	DIAG_DRILL_NONE = 0,
	DIAG_DRILL_BRANCHES,  /* Bad Speculation: mispredicting branch sites and their disassembly */
	DIAG_DRILL_ICACHE,    /* Frontend: i-cache evidence and the code footprint */
	DIAG_DRILL_MEMORY,    /* Backend: memory versus core evidence and the miss sites */
	DIAG_DRILL_HOT_LOOP,  /* Retiring: the hot loop and the tdprof loop command */
};

/* The counts of the scope, as valgrind counted them (estimates: simulated). */
struct diag_counts {
	uint64_t instructions, loads, l1d_misses, ll_misses, l1i_misses, ll_i_misses;
	uint64_t cond_branches, cond_mispredicts, ind_branches, ind_mispredicts;
	double cycles;                    /* the cost model's */
};

struct diag_site {
	char *file;         /* normalised source path as the user sees it; NULL: unknown */
	char *function;     /* NULL: unknown */
	uint64_t line;      /* 0: unknown */
	bool in_program;    /* the executable's own code */
	struct diag_counts c;
	uint64_t executions; /* times the line ran; 0: unknown (cachegrind) */
	double share;       /* percent of the scope's slots the model charges to this line in the
			     * bucket the sites are ranked by; PMU: its part of what the sites are
			     * ranked by (drill-pmu.h) */
	bool stream;        /* its data misses were costed as a sequential stream */
	uint64_t samples;   /* PMU: IP samples at this line, or branch records from it; 0 (sim) */
	uint64_t address;   /* sim, a site without a source line: its branch's ELF virtual address
			     * (the top site, from callgrind's addresses); 0: unknown */
	/* derived (diag_site_derive()), for the renderers */
	uint64_t branches;      /* conditional and indirect branches executed (or sampled) */
	uint64_t mispredicts;   /* of those, mispredicted */
	double mispredict_rate; /* percent of branches mispredicted; 0 without branches */
	double insn_share;      /* percent of the scope's instructions (d->totals); 0 when unknown */
};

/* One branch instruction of the top branch site's line (Bad Speculation). */
struct diag_branch {
	uint64_t addr;          /* ELF virtual address */
	char text[200];         /* "jns 0x12c4" */
	uint8_t branch_type;    /* enum branch_type (perfdata.h) */
	uint64_t executions;    /* times it ran (sim: callgrind's per-instruction Bc/Bi) */
	uint64_t mispredicts;   /* of those, mispredicted */
};

#define DIAG_MAX_BRANCHES 16

/* One function of the hot code footprint (Frontend). */
struct diag_func {
	char *name;
	char *file;          /* NULL: unknown */
	uint64_t bytes;      /* size of its code (symbol table); 0: unknown */
	uint64_t instructions, l1i_misses;
	uint64_t samples;    /* PMU: IP samples in it; 0 (sim) */
};

struct diag_footprint {
	uint64_t functions;      /* functions of the scope that executed */
	uint64_t bytes;          /* their code, in bytes (those with a known size) */
	uint64_t files;          /* source files they come from */
	uint64_t i1_bytes;       /* the simulated L1 i-cache, for comparison; 0 when unknown */
	struct diag_func v[DIAG_MAX_FUNCS]; /* most i-cache misses first */
	size_t nr;
};

/* How the PMU drill-down sampled its second run (drill-pmu.h). */
enum diag_sample_method {
	DIAG_SAMPLE_IP = 0,        /* instruction pointers of a cycles event */
	DIAG_SAMPLE_BRANCH_STACK,  /* branch stacks: LBR, LbrExtV2, BRS, BRBE */
	DIAG_SAMPLE_SPE,           /* Arm SPE's sampled branches */
};

struct diag_sampling {
	enum diag_sample_method method;
	char event[256];           /* the event sampled, as specified */
	uint64_t freq, period;     /* samples per second, or events per sample (the other is 0) */
	const char *facility;      /* this machine's branch recording ("lbr", ...), NULL: none (static) */
	char facility_reason[320]; /* why that facility, or why none */
	char reason[400];          /* why this method for the category */
	uint64_t samples;          /* samples read */
	uint64_t branch_records;   /* branch entries in them (branch stacks, SPE); 0 for IP */
	uint64_t mispredicted;     /* of which flagged mispredicted */
	bool has_flags;            /* the records carry mispredict flags (not AMD BRS) */
	uint64_t lost;             /* samples the kernel or the recording dropped */
	const char *located;       /* the dominant leaf its event locates (the vendor's Locate-with, model/locate.h;
	                              static key), NULL: cycles or branches were sampled */
	char locate_event[128];    /* located: the vendor's event ("MEM_LOAD_RETIRED.L3_MISS_PS"); "" */
	bool data_addr;            /* the samples carry data addresses (PERF_SAMPLE_ADDR: perf record -d; SPE loads) */
	bool loads;                /* method SPE: the records are SPE's load records (not branches) */
	uint64_t with_addr;        /* data_addr: the samples whose address is not 0 (the event gave one) */
};

#define DIAG_MAX_DATA 8         /* data cache lines listed (drill-pmu.h) */

/* A data cache line the sampled loads or stores touched (PEBS data addresses). */
struct diag_data {
	uint64_t addr;             /* its first byte (a DIAG_PMU_CACHE_LINE-byte line) */
	char region[96];           /* the mapping it is in: "[heap]", "[stack]", a file's base name, "anonymous";
	                              "" when no recorded mapping holds it */
	uint64_t offset;           /* in a file mapping: the line's offset in the file; 0 otherwise */
	uint64_t samples;          /* samples whose address fell in it */
	double share;              /* percent of the samples with an address */
	double latency;            /* Arm SPE: its loads' mean total latency (cycles); < 0 unknown */
	char *file;                /* the code that touched it most (its most sampled instruction): source */
	char *function;            /*   file, function and line; NULL / 0 when unknown */
	uint64_t line;
};

struct diag_finding {
	char *title;
	const char *category;    /* level-1 key (static) */
	const char *node;        /* the knowledge-base node of its fix (static) */
	char *evidence;          /* the numbers behind it, one sentence */
	int site;                /* index into sites, -1: not one of them */
	char *file;              /* where: the site's source file, function and line; */
	char *function;          /*   NULL / 0 when unknown or when the finding has no site */
	uint64_t line;
	char *fix;               /* what to change (the knowledge base's first fix, made specific) */
	double share;            /* percent of slots it accounts for (NAN: unknown) */
};

/*
 * One cost of the vendor's Bottlenecks view (Intel TMA: Mispredictions, Big_Code,
 * Data_Cache_Memory_Latency, ...), which `why` leads with (diag_bottlenecks()).
 */
struct diag_bottleneck {
	const char *name;        /* the vendor's metric (static, the model's) */
	const char *description; /* static; NULL */
	double value;            /* percent of slots */
	double threshold;        /* NAN: none */
	bool flagged;            /* above its threshold */
	const char *leaf;        /* of the tree nodes it covers (its "Bv" metric group), the measurable one of
	                            largest value (static key); NULL when none is measurable */
	const char *leaf_label;  /* static; NULL with leaf */
	double leaf_value;       /* percent; NAN */
	const char *node;        /* the knowledge-base node of its fix: leaf's (or, none measurable, its first
	                            covered node's) nearest ancestor with an entry (static); NULL none */
	char *fix;               /* the knowledge base's first fix for node, one sentence (owned); NULL */
	const char *hint;        /* the vendor's tuning hint of leaf (static); NULL */
	int site;                /* index into sites of its located code (the drill-down's top site when
	                            leaf is under the category it drilled into); -1: not located */
	char locate_with[128];   /* the event that locates leaf (its or its nearest ancestor's Locate-with,
	                            the vendor's spelling); "" none */
	bool branches;           /* leaf is under Bad Speculation: located by branch records (the branch-stack
	                            path of `tdprof branches`), not by its Locate-with event */
};

struct diag {
	enum tdp_backend backend;
	bool estimate;                /* every figure is simulated */
	char machine_name[32];        /* sim: the preset ("generic"); "" otherwise */
	char machine[256];            /* sim: sim_machine_describe(); "" otherwise */
	double width;                 /* slots per cycle; NAN unknown */
	enum diag_scope scope;
	char *scope_object;           /* the executable the scope is; NULL for the whole run */
	double scope_insn_pct;        /* its share of the run's instructions; NAN unknown */
	char scope_reason[256];
	struct countset counts;       /* triage counts of the scope (perf's names) */
	struct triage_metrics triage;
	struct triage_verdict route;
	struct diag_counts totals;    /* the scope's counts (sim) */
	struct metric_tree tree;      /* the scope's tree, classified; has_tree */
	bool has_tree;
	struct drill_info *tree_drill; /* PMU: the drill-down's reruns that measured tree (model/drilldown.h:
	                                  each node's step, run, running fraction and mismeasured verdict, in
	                                  tree.v's order, and the steps); owned (tdp_free); NULL: the tree was
	                                  counted in one run */
	char tree_drill_stopped[TDP_ERR_MSG_MAX]; /* why the drill-down stopped before the leaves (a step
	                                  that could not be counted); "" */
	struct metric_tree whole;     /* the whole run's tree (sim, scope program only); has_whole */
	bool has_whole;
	const char *category;         /* the verdict (see the rule above); NULL: none */
	const char *node;             /* its largest level-2 node, NULL: none */
	double category_value;
	bool over_threshold;
	const char *next_step;        /* static text (model_classify's for the category) */
	char reason[256];
	enum diag_drill drill;
	const char *ranked_by;        /* "mispredicts", "front-end slots lost", "data misses", "instructions" */
	struct diag_site *sites;      /* ranked, most guilty first */
	size_t nr_sites;
	struct diag_branch branches[DIAG_MAX_BRANCHES]; /* the top site's branches, most mispredicts
							 * first, with per-instruction counts; nr_branches
							 * 0 when the run counted per line only */
	size_t nr_branches;
	struct symbol_listing disasm;    /* around the top branch site; has_disasm */
	bool has_disasm;
	char disasm_why[TDP_ERR_MSG_MAX];         /* why there is none, "" otherwise */
	char line0_note[TDP_ERR_MSG_MAX];         /* which line got line-0 code (a note); "" otherwise */
	char short_note[TDP_ERR_MSG_MAX];         /* the run is too short to mean much (a note); "" otherwise */
	char lines_note[TDP_ERR_MSG_MAX];         /* sites without source lines: why, and how to get them; "" */
	char ended_note[TDP_ERR_MSG_MAX];         /* the workload died of a signal (a note); "" otherwise */
	struct diag_footprint footprint; /* Frontend */
	bool has_footprint;
	char *loop_command;           /* Retiring: "tdprof loop FILE.c --function NAME -- FLAGS", only when it
				       * would run (a C function of no arguments; C++ with CC=g++); NULL */
	char loop_note[TDP_ERR_MSG_MAX]; /* when no command would run as is: what to write; "" */
	struct diag_sampling sampling; /* PMU: the drill-down's sampled run; has_sampling */
	bool has_sampling;
	struct diag_data data[DIAG_MAX_DATA]; /* PMU, samples with data addresses: the hottest data lines, most
	                                  samples first */
	size_t nr_data;
	struct diag_finding findings[DIAG_MAX_FINDINGS]; /* ranked */
	size_t nr_findings;
	const char *notes[DIAG_MAX_NOTES]; /* static lines said with the result */
	size_t nr_notes;
	struct byfunc_result functions; /* sim: each function of the scope's own top-down (byfunc.h);
	                                   has_functions */
	bool has_functions;
	struct diag_bottleneck bottlenecks[DIAG_MAX_BOTTLENECKS]; /* the vendor's view, most costly first,
	                                   measured ones only (diag_bottlenecks()) */
	size_t nr_bottlenecks;
};

struct diag_opts {
	const char *exe;       /* the workload's executable (resolved path); NULL: unknown */
	const char *cwd;       /* source paths under it are shown relative; NULL: absolute */
	const char *command;   /* the workload as one line, for the commands suggested; NULL: "CMD" */
	int level;             /* deepest level of the tree (sim: 1 to 3; PMU: the drill-down's) */
	size_t top;            /* sites kept (1..DIAG_MAX_SITES) */
};

/** Make d empty. */
void diag_init(struct diag *d);

/** Free what d owns; d is left as after diag_init(). */
void diag_release(struct diag *d);

/**
 * The diagnosis of a simulated run: p (valgrind's costs, borrowed), m (the
 * machine, borrowed), est (sim_estimate() of p on m: the whole run; the sites it
 * kept, sim_estimate_core_keep(), are read instead of built again). Reads o->exe (ELF
 * and DWARF) for the scope, the disassembly and the compiler flags; a missing or
 * unreadable executable only narrows the result (scope whole_run, no disassembly,
 * a note). Returns 0, TDP_EANALYSIS (p cannot be estimated) or TDP_ENOMEM, with
 * err set; d is to be released either way.
 */
int diag_from_sim(struct diag *d, const struct sim_profile *p, const struct sim_machine *m,
		  const struct sim_estimate *est, const struct diag_opts *o, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * The diagnosis of counts from the PMU (or a file): triage over cs, the verdict of
 * tree (evaluated, borrowed: copied into d and classified), findings without sites
 * whose next step names the tdprof command that traces them. cs is copied.
 * Returns 0 or TDP_ENOMEM.
 */
int diag_from_counts(struct diag *d, enum tdp_backend backend, const struct countset *cs,
		     const struct metric_tree *tree, const struct diag_opts *o, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Fill d->bottlenecks from d->tree's Bottlenecks view (Intel's; other models have
 * none): the measured costs, most first, each with the covered node it comes from,
 * its fix from the knowledge base, the vendor's hint, and its located code: the
 * drill-down's top site when that node is under d->category (the drill-down located
 * it; call again after diag_pmu_drill()), else the event that would locate it.
 * Replaces what an earlier call filled. Returns 0 or TDP_ENOMEM (d keeps the costs
 * filled so far).
 */
int diag_bottlenecks(struct diag *d, struct tdp_err *err) __attribute__((warn_unused_result));

/** "program" or "whole_run". */
const char *diag_scope_name(enum diag_scope s);

/** "branches", "icache", "memory", "hot_loop" or "none". */
const char *diag_drill_name(enum diag_drill k);

/**
 * The verdict of a classified tree (model_classify(): the flagged level-1 node
 * with the largest value, else the largest stall); the largest level-1 node when
 * the tree has no verdict (nothing but Retiring measurable). Returns its key
 * (static) or NULL when no level-1 node is measurable.
 */
const char *diag_category(const struct metric_tree *t);

/**
 * Say with the result that the workload did not finish: exit_status is the
 * workload's as a shell reports it (128+N: killed by signal N). The figures then
 * cover only what ran. Does nothing for other statuses.
 */
void diag_note_exit(struct diag *d, int exit_status);

#endif
