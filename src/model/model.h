/*
 * model.h: top-down models as data, one evaluator, and the metric tree they
 * produce.
 *
 * A model is a table (src/model/tables/<family>.c, one per micro-architecture
 * family, each opening with its sources; the Intel ones are generated at build
 * time from Intel's TMA data, data/intel/, by src/model/gen/gen-intel.py): the
 * events it needs, with every spelling perf prints for them; named formulas
 * written in the expression language of expr.h (perf's MetricExpr syntax), each
 * with the source it was copied from; and the nodes of the tree, each computed
 * by one formula, in the shared vocabulary of design.md:
 *
 *   level 1  retiring, bad_speculation, frontend_bound, backend_bound
 *            (+ vendor extras named as such, e.g. AMD's smt_contention)
 *   level 2  frontend_bound:  fetch_latency, fetch_bandwidth
 *            bad_speculation: branch_mispredicts, machine_clears
 *            backend_bound:   memory_bound, core_bound
 *            retiring:        light_operations, heavy_operations
 *   levels 3-6 (Intel's TMA) and vendor level-2 nodes outside the vocabulary
 *            under the vendor's own names (icache_misses, resource_bound), each
 *            with its level, parent, label, description, hint and threshold
 *
 * Models of kind MODEL_KIND_CYCLE_ACCOUNTING (AMD Zen 2/3, Arm Neoverse N1 and
 * Cortex-A76-class cores) have no slot-level top-down: their nodes are
 * percentages of cycles under their own names (frontend_stalled_cycles, ...),
 * never the four names, and model.note says so in words.
 *
 * Evaluation is one function over a struct countset (base/countset.h) from any
 * backend. A formula may list alternatives (variants) in order of preference:
 * the first whose events were all measured is used, so one table reads perf
 * 6.x output (TOPDOWN.SLOTS + topdown-* + the UOP_DROPPING correction) and the
 * older shapes (perf 5.x --topdown's generic events) alike. When the counts came
 * in groups (perf prints an event once per metric group), every node takes all
 * of its events from the one group that holds them, as perf computes each metric
 * from its own group's copies.
 *
 * Lifecycle:
 *   1. const struct model *m = model_find("zen4");      (static; never freed)
 *   2. struct model_compiled *mc; model_compile(m, &mc, &err);   (parses once)
 *   3. struct metric_tree t; model_eval(mc, &counts, &opts, &t, &err);  (any number of times)
 *      model_classify(&t);    (thresholds and the verdict: classify.c)
 *   4. model_compiled_free(mc).
 *
 * Values are percentages (0-100 of slots, or of cycles for cycle accounting);
 * NAN means not measurable here (JSON null), never 0.
 */
#ifndef TDPROF_MODEL_MODEL_H
#define TDPROF_MODEL_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/countset.h"

struct tdp_err;
struct strbuf;

#define MODEL_MAX_VARIANTS 4  /* alternatives of one formula */
#define MODEL_MAX_ALIASES 12  /* other spellings of one event, or other names of a model */
#define MODEL_MAX_EVENTS 256  /* events of one model (Intel's TMA at level 6: ~220) */
#define MODEL_MAX_FORMULAS 384 /* formulas of one model (Intel's TMA: ~290 with Info and Aux) */
#define MODEL_MAX_NODES 160   /* nodes of one tree (Intel's TMA has ~110 at levels 1-6) */
#define MODEL_MAX_METRICS 192 /* Info, bottleneck and stage-2 metrics of one model */
#define MODEL_MAX_LEVEL 6     /* deepest tree level any vendor defines (Intel TMA) */
#define MODEL_EVKEY_MAX 256   /* bytes of a canonical event name (model_event_key) */
#define METRIC_WHY_MAX 192    /* bytes of the reason a node is not measurable */

enum model_kind {
	MODEL_KIND_SLOTS = 0,         /* slot-level top-down: the four level-1 names */
	MODEL_KIND_CYCLE_ACCOUNTING,  /* stalled-cycle buckets: no four-way split exists */
};

enum model_vendor {
	MODEL_VENDOR_INTEL = 0,
	MODEL_VENDOR_AMD,
	MODEL_VENDOR_ARM,
	MODEL_VENDOR_SIM,   /* no vendor: the simulated machine (model_tree_from_sim) */
};

/* What an event occupies when it is counted (groups.c fits them to the PMU). */
enum model_counter {
	MODEL_CTR_GP = 0,   /* a general-purpose counter */
	MODEL_CTR_FIXED,    /* fixed counter number fixed_idx (Intel), or the Arm cycle counter */
	MODEL_CTR_METRICS,  /* Intel PERF_METRICS pseudo-event: no counter, but only in a group
	                       led by the slots event (tools/perf/Documentation/topdown.txt) */
};

/*
 * When a variant may be chosen for a live run (model_plan). An import or an
 * evaluation ignores these and takes the first variant whose events are there.
 */
enum model_when {
	MODEL_WHEN_ANY = 0,
	MODEL_WHEN_SMT = 1u << 0,           /* only when SMT is on */
	MODEL_WHEN_NO_SMT = 1u << 1,        /* only when SMT is off */
	MODEL_WHEN_CORE_WIDE = 1u << 2,     /* only when all threads of each core are counted */
	MODEL_WHEN_NOT_CORE_WIDE = 1u << 3, /* only when they are not (a process, not -a) */
	MODEL_WHEN_IMPORT = 1u << 4,        /* never live: how older perf spelled the data */
};

struct model_event {
	const char *name;                       /* as formulas refer to it (perf's spelling) */
	const char *aliases[MODEL_MAX_ALIASES]; /* other spellings of the same count; NULL-ended */
	const char *spec;                       /* live: pmu/event.h spelling; NULL: name */
	enum model_counter counter;
	int fixed_idx;                          /* MODEL_CTR_FIXED: which fixed counter */
	bool leader;                            /* must lead its group (Intel's slots) */
	bool clock;                             /* the core clock: 0 of it means nothing ran */
};

struct model_formula {
	const char *name;                       /* perf's MetricName where perf has one */
	const char *expr[MODEL_MAX_VARIANTS];   /* alternatives, preferred first; NULL-ended */
	unsigned when[MODEL_MAX_VARIANTS];      /* enum model_when bits per alternative */
	const char *source;                     /* document and version it was copied from */
	const char *vsource[MODEL_MAX_VARIANTS]; /* per alternative: its own source when it is not
	                                           `source` (older perf formulas); NULL: source */
};

struct model_node_def {
	const char *key;      /* vocabulary key ("fetch_latency") or the node's own name */
	const char *parent;   /* parent key; NULL at level 1 */
	const char *formula;  /* the formula giving the node as a fraction (0..1) */
	const char *vendor;   /* the vendor's name for it ("frontend_bound_latency"); NULL: formula */
	double threshold;     /* flagged above this percentage; NAN: never flagged */
	bool extra;           /* a vendor extra node (not one of the four), named as such */
	bool approx_children; /* its children are measured separately and add up to it
	                         only approximately (model_validate does not check the sum) */
	/* From the vendor data (generated tables); NULL / 0 in hand-written ones. */
	int level;               /* 1..MODEL_MAX_LEVEL; 0: 1 without a parent, else 2 */
	const char *label;       /* display name ("Fetch Latency"); NULL: model_node_label(key) */
	const char *description; /* the vendor's description of the node */
	const char *hint;        /* the vendor's tuning hint ("Tuning Hint" column) */
	const char *locate_with; /* the event to sample to find its code (TMA "Locate-with") */
	const char *groups;      /* the vendor's metric groups, ';'-separated ("BvMP;TopdownL2") */
	bool own_threshold;      /* flagged above its threshold whatever its parent (TMA's threshold
	                            without "& P"); false: only when the parent is flagged too */
};

/*
 * A metric beside the tree: Intel's Info.* metrics (IPC, CPI, MPKIs, latencies)
 * and Bottleneck rows, Arm's stage-2 metric groups (Branch_Effectiveness, ...).
 * Its formula gives the value in its own unit (not scaled to percent).
 */
enum model_metric_kind {
	MODEL_METRIC_INFO = 0,   /* Intel Info.* and other ratios shown on request (--info) */
	MODEL_METRIC_BOTTLENECK, /* Intel's Bottlenecks view: a cost in percent of slots */
	MODEL_METRIC_STAGE2,     /* Arm's methodology stage 2: explored under a level-1 node */
};

struct model_metric_def {
	const char *key;         /* the vendor's metric name ("IPC", "Mispredictions", "branch_mpki") */
	const char *formula;     /* the formula giving the value */
	enum model_metric_kind kind;
	const char *group;       /* "Info.Core", "Branch_Effectiveness", ...; NULL: none */
	const char *unit;        /* "percent", "ratio", "per_kilo_instructions", "cycles", "percent_of_slots" */
	const char *description;
	double threshold;        /* flagged above it (in unit); NAN: never */
	const char *groups;      /* the vendor's metric groups, ';'-separated; an Intel bottleneck's "Bv.." group
	                            ("Bad;BadSpec;BrMispredicts;BvMP") is also on every tree node it covers
	                            (model_node_def.groups); NULL: none */
};

/* Arm's methodology: the stage-2 metric groups to explore under a level-1 node. */
struct model_explore {
	const char *node;        /* level-1 key ("frontend_bound") */
	const char *groups;      /* ';'-separated metric groups (model_metric_def.group) */
};

struct model {
	const char *name;                       /* design.md spelling: "skylake", "zen4", "neoverse-n2" */
	const char *aliases[MODEL_MAX_ALIASES]; /* other uarch names it serves; NULL-ended */
	const char *description;                /* one line: which CPUs */
	const char *sources;                    /* documents, versions, dates, errata applied */
	const char *note;                       /* said with every result, or NULL */
	enum model_vendor vendor;
	enum model_kind kind;
	const char *core_type;                  /* hybrids: "P-core" / "E-core"; NULL otherwise */
	const char *pmu;                        /* the core PMU of that core type ("cpu_core"); NULL: any */
	const struct model *companion;          /* hybrids: the model of the other core type */
	double slots;                           /* #slots; 0: must come from the PMU's caps/slots */
	unsigned gp_counters;                   /* general-purpose counters per logical CPU */
	unsigned fixed_counters;                /* fixed counters (Intel; 1 for Arm's cycle counter) */
	const struct model_event *events;
	size_t nr_events;
	const struct model_formula *formulas;
	size_t nr_formulas;
	const struct model_node_def *nodes;     /* level 1 first; each node after its parent */
	size_t nr_nodes;
	const struct model_metric_def *metrics; /* beside the tree; NULL: none */
	size_t nr_metrics;
	const struct model_explore *explore;    /* Arm stage-2 exploration; NULL: none */
	size_t nr_explore;
};

/* ---------------------------------------------------------------------------
 * The registry
 */

/** Every model, in `tdprof list models` order; *nr receives the count. Static. */
const struct model *const *model_all(size_t *nr);

/** The model called name or having it as an alias (case-insensitive), or NULL. */
const struct model *model_find(const char *name);

/**
 * The model for a micro-architecture name as src/cpu/cpu.h reports it ("zen4",
 * "icelakex", "cascadelake", and the hybrid core-type names "goldencove",
 * "gracemont", "redwoodcove", "crestmont"), or NULL when no model covers it.
 */
const struct model *model_for_uarch(const char *uarch);

/** The deepest level of m's tree (1..MODEL_MAX_LEVEL). */
int model_depth(const struct model *m);

/** Whether m has metrics of kind k (Arm's stage 2: MODEL_METRIC_STAGE2). */
bool model_has_metrics(const struct model *m, enum model_metric_kind k);

/** "slots" or "cycle_accounting" (the JSON model_kind). */
const char *model_kind_name(enum model_kind k);

/** "Intel", "AMD" or "Arm". */
const char *model_vendor_name(enum model_vendor v);

/* ---------------------------------------------------------------------------
 * Event names
 */

/**
 * The canonical form of an event name, so that every spelling of one event
 * compares equal: case-insensitive, '.', ':' and '_' alike (as
 * str_event_name_eq), the PMU prefix split off, modifiers (:u, /k) dropped, terms
 * sorted with their values in decimal and libpfm's short forms expanded:
 *   "cpu/INT_MISC.RECOVERY_CYCLES,cmask=1,edge/"   \
 *   "cpu/INT_MISC.RECOVERY_CYCLES,edge,cmask=0x1/u" |-> "int_misc_recovery_cycles,cmask=1,edge=1"
 *   "INT_MISC:RECOVERY_CYCLES:c1:e1"               /
 *   "cpu_core/TOPDOWN.SLOTS/"                     -> "topdown_slots", pmu "cpu_core"
 *   "cpu@INT_MISC.RECOVERY_CYCLES\,cmask\=1\,edge@" (perf's metric syntax) as the first.
 * key (size bytes) receives the key; pmu (may be NULL) the PMU prefix or "".
 * Returns 0, or -1 when the name is empty, malformed or longer than the buffers.
 */
int model_event_key(const char *name, char *key, size_t size, char *pmu, size_t pmu_size);

/* ---------------------------------------------------------------------------
 * Compiling and evaluating
 */

struct model_compiled;

/**
 * Parse every formula of m and bind its names to m's events and formulas.
 * m is borrowed (models are static). On success *out is new (free it with
 * model_compiled_free()). Returns 0, TDP_EFORMAT (a formula does not parse or
 * names something the model does not have: the message names the model, the
 * formula, the variant and the offset) or TDP_ENOMEM; *out is untouched on failure.
 */
int model_compile(const struct model *m, struct model_compiled **out, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** Free a compiled model; NULL does nothing. */
void model_compiled_free(struct model_compiled *mc);

/** The model mc was compiled from. */
const struct model *model_compiled_model(const struct model_compiled *mc);

struct model_eval_opts {
	double slots;   /* #slots; 0: the model's (an Arm PMU's caps/slots goes here) */
	bool smt_on;    /* #smt_on */
	bool core_wide; /* #core_wide */
	int max_level;  /* 1..MODEL_MAX_LEVEL */
	size_t *work;   /* when set: += the counts and groups the evaluation visited
	                   (tests check it grows linearly with the counts) */
	bool infer_smt; /* imports: #smt_on also when the counts hold the events of a formula's
	                   SMT-only variant (CPU_CLK_UNHALTED.THREAD_ANY, .DISTRIBUTED): perf
	                   counted them because SMT was on */
};

#define MODEL_EVAL_OPTS_INIT { 0, false, false, 2, NULL, false }

struct metric_node {
	const struct model_node_def *def; /* its definition (description, hint, ...); NULL: none */
	const char *key;         /* vocabulary key ("memory_bound") or own name for extras */
	const char *parent;      /* parent key; NULL at level 1 */
	const char *label;       /* "Memory Bound" */
	const char *vendor;      /* the vendor's metric name ("backend_bound_memory") */
	const char *formula;     /* the formula's name */
	const char *expr;        /* the variant used (text), or NULL when none could be */
	const char *source;      /* where the formula comes from */
	int level;               /* 1..MODEL_MAX_LEVEL */
	bool extra;              /* vendor extra node */
	bool older;              /* the variant used is, or reads, an older perf's formula
	                            (MODEL_WHEN_IMPORT with its own source): variant_source says which */
	const char *variant_source; /* the source of the variant used */
	double value;            /* percent (of slots, or of cycles); NAN: not measurable */
	double threshold;        /* percent; NAN: none */
	bool flagged;            /* above its threshold (classify.c); below level 1 only with its parent
	                            unless def->own_threshold */
	int group;               /* the group its counts came from; -1: none or ungrouped */
	bool split;              /* some of its events came from another group than `group` */
	char why[METRIC_WHY_MAX];/* why value is NAN; "" otherwise */
};

/* A metric_def's value (model_eval computes every metric of the model). */
struct metric_value {
	const struct model_metric_def *def;
	double value;            /* in def->unit; NAN: not measurable */
	bool flagged;            /* above def->threshold */
	char why[METRIC_WHY_MAX];/* why value is NAN; "" otherwise */
};

struct metric_verdict {
	const char *category;    /* key of the principal bottleneck; NULL when nothing is measurable */
	const char *node;        /* its largest level-2 child, or NULL */
	double value;            /* the category's value */
	double node_value;       /* the child's value, NAN when none */
	bool over_threshold;     /* the category is above its threshold */
	const char *next_step;   /* what to do next (static text) */
};

struct metric_tree {
	const struct model *model;
	enum model_kind kind;
	double slots;            /* #slots used */
	bool smt_on;             /* #smt_on used (model_eval_opts.smt_on, or inferred from the counts) */
	int max_level;
	size_t nr;
	struct metric_node v[MODEL_MAX_NODES]; /* level by level, each in the model's order */
	double level1_sum;       /* sum of the measurable level-1 nodes (extras too); NAN when none */
	bool sum_off;            /* slot models: level1_sum is more than 1 point away from 100 */
	bool simulated;          /* from the simulated backend: next steps must run without a PMU */
	struct metric_verdict verdict; /* filled by model_classify() */
	size_t nr_metrics;
	struct metric_value metrics[MODEL_MAX_METRICS]; /* the model's metrics, in its order */
};

/**
 * Evaluate the model over cs (borrowed) into out (overwritten). Nodes up to
 * o->max_level are computed; a node whose events were not measured, not counted
 * or not supported is NAN with the reason in why. Returns 0 when at least one
 * level-1 node is measurable; TDP_EANALYSIS when none is (the message names the
 * first event missing and the hint says which events the model needs); out is
 * filled either way. Does not allocate beyond a few small arrays (TDP_ENOMEM).
 */
int model_eval(const struct model_compiled *mc, const struct countset *cs, const struct model_eval_opts *o,
	       struct metric_tree *out, struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Compile and evaluate in one call (for tests and one-off use). Returns as
 * model_compile() and model_eval().
 */
int model_evaluate(const struct model *m, const struct countset *cs, const struct model_eval_opts *o,
		   struct metric_tree *out, struct tdp_err *err) __attribute__((warn_unused_result));

/** The node with key in t, or NULL. */
const struct metric_node *metric_tree_find(const struct metric_tree *t, const char *key);

/**
 * How many of the model's nodes up to max_level (extras not counted) can be
 * evaluated from cs's event names (statuses ignored): used to infer the model
 * of an import. Returns the count (at level 1 of a slot model: 0..4), or -1 on
 * allocation failure.
 */
int model_coverage(const struct model_compiled *mc, const struct countset *cs, int max_level);

#define MODEL_INFER_MAX 64 /* candidate models of one import */

/**
 * The models imported counts cs could come from: those whose level 1 the events
 * fit (a cycle-accounting model: both its buckets), keeping among them the ones
 * whose level 2 they fit best (Zen 4's cmask=0x6 against Zen 5's 0x8, ...); a
 * hybrid's E-core model goes with its P-core model and is not a candidate of its
 * own. Writes up to MODEL_INFER_MAX of them to fit and returns how many: 1 names
 * the model, 0 none fits, more cannot be told apart.
 */
size_t model_infer_import(const struct countset *cs, const struct model **fit);

/* ---------------------------------------------------------------------------
 * Classification (classify.c)
 */

/**
 * Flag the nodes above their thresholds (a node below level 1 only when its parent
 * is flagged too, as Intel's "& P", unless its def has own_threshold) and choose the verdict: the flagged level-1
 * node with the largest value, else the largest stall (not Retiring); then its
 * largest child; then the next step for it.
 */
void model_classify(struct metric_tree *t);

/** The human label of a vocabulary key ("Frontend Bound"); the key itself when unknown. */
const char *model_node_label(const char *key);

/* ---------------------------------------------------------------------------
 * The simulated backend's tree (sim-tree.c)
 */

struct sim_topdown;

/**
 * The model that trees of the simulated backend name (model_sim()->name "sim"):
 * a slot model whose numbers come from valgrind and the cost model of
 * docs/sim-machine.md, not from counters; its note says every figure is an
 * estimate. Static; not in model_all().
 */
const struct model *model_sim(void);

/**
 * Fill out with the simulation's level-1 estimate td (percent of slots, borrowed)
 * on a machine of `width` slots per cycle, and with max_level 2 the level-2 nodes
 * the cost model determines: branch_mispredicts = all of Bad Speculation (the
 * model charges only mispredicts there), fetch_latency = all of Frontend Bound
 * (i-cache misses), memory_bound = all of Backend Bound (data misses); the others
 * (machine_clears, fetch_bandwidth, core_bound, light/heavy_operations) are NAN
 * with the reason in why, never 0. Thresholds as the hardware models' (design.md
 * level 1, Intel TMA level 2). The tree is not classified: call model_classify().
 * Always succeeds; no allocation.
 */
void model_tree_from_sim(const struct sim_topdown *td, double width, int max_level, struct metric_tree *out);

/* ---------------------------------------------------------------------------
 * Validation (validate.c)
 */

/**
 * Check a model: names unique (events, their spellings, formulas, nodes); every
 * formula variant parses and names only the model's events and formulas, with no
 * formula depending on itself; every event is used; every node's formula and
 * parent exist, level-2 parents are level-1 nodes; thresholds lie within 0-100;
 * slot models have the four level-1 nodes; and children add up to their parent
 * (evaluated as an identity on made-up counts, unless approx_children).
 * Returns 0 or TDP_EFORMAT with a message naming the model and the fault.
 */
int model_validate(const struct model *m, struct tdp_err *err) __attribute__((warn_unused_result));

#endif
