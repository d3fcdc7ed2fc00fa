/*
 * triage.h: mode 1 of the workflow. From the counts of `tdprof stat` (any backend)
 * compute the triage metrics (CPI, IPC, branch-miss rate and MPKI, L1i MPKI, LLC
 * MPKI) and decide where to go next; also the per-event annotations that perf stat
 * prints in its `#` column (CPUs utilized, GHz, insn per cycle, K/sec, % of all
 * branches), so that renderers print metrics without computing any.
 *
 * Everything here is a pure function over a struct countset: no I/O, no allocation.
 *
 * Thresholds, and where they come from (each is "high" when strictly above):
 *
 *   CPI > 1.0 -> `tdprof topdown` (classify the bottleneck).
 *       design.md's routing rule. Brendan Gregg, "CPU Utilization is Wrong" (2017):
 *       an IPC below 1 (CPI above 1) likely means the core is stalled, typically on
 *       memory; above 1, likely instruction bound. Modern cores retire 4-8 per cycle.
 *
 *   branch MPKI > 5 -> `tdprof branches` (trace the mispredicting branches).
 *       Intel TMA metrics 5.2 (TMA_Metrics-full.csv, shared/reference): Info.Bad_Spec
 *       IpMispredict (instructions per mispredicted branch) is flagged below 200,
 *       i.e. more than 1000/200 = 5 mispredicts per kilo-instruction. At the ~15-20
 *       cycle penalty of current x86 cores (Agner Fog, "The microarchitecture of
 *       Intel, AMD and VIA CPUs") that is 75-100 cycles lost per 1000 instructions.
 *
 *   L1i MPKI > 4 -> frontend advice (code layout, PGO, huge pages for text).
 *       Intel TMA 5.2: FE ICache_Misses is flagged above 5% of cycles. An L1i miss
 *       served by L2 costs about 12-14 cycles (Intel Optimization Reference Manual,
 *       Skylake L2 latency; AMD Software Optimization Guide for Zen 4: 14 cycles); at
 *       CPI 1.0, 5% of 1000 cycles / 12.5 cycles = 4 misses per kilo-instruction.
 *
 *   LLC MPKI > 1 -> memory advice (locality, blocking, prefetch, data layout).
 *       Intel TMA 5.2: BE/Mem Memory_Bound is flagged above 20% of slots. A
 *       last-level miss costs about 200 cycles or more (DRAM at ~60-80 ns on a 3+ GHz
 *       core); one miss per kilo-instruction is then ~200 cycles per 1000
 *       instructions: 20% of the time at CPI 1.0 when misses do not overlap.
 *       LLC MPKI uses LLC-load-misses when counted, else cache-misses.
 *
 * Routing: every signal above that fires is reported (struct triage_verdict.signals),
 * each specific one (branches, frontend, memory) with its estimated cost in cycles
 * per 1000 instructions: its MPKI times the penalty of one event (struct
 * triage_costs; the defaults are the figures above: 17.5 cycles per mispredict,
 * 12.5 per L1i miss, 200 per LLC miss; the simulated backend passes its machine's).
 * `next` is the costliest specific signal, so that a program whose i-cache misses
 * cost four times its mispredicts goes to frontend advice, not to the branch trace;
 * with only CPI high, `next` is topdown (classify the stall). With none firing,
 * `next` is "done" (the core retires efficiently; look at the algorithm or isolate a
 * hot loop with `tdprof loop`). Without the counts a signal needs (no PMU), `next` is
 * "unknown".
 */
#ifndef TDPROF_MODEL_TRIAGE_H
#define TDPROF_MODEL_TRIAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/countset.h"

#define TRIAGE_CPI_HIGH 1.0
#define TRIAGE_BRANCH_MPKI_HIGH 5.0
#define TRIAGE_L1I_MPKI_HIGH 4.0
#define TRIAGE_LLC_MPKI_HIGH 1.0

/* The triage metrics; NAN when an input is missing or zero. */
struct triage_metrics {
	double cpi;              /* cycles / instructions */
	double ipc;              /* instructions / cycles */
	double branch_miss_rate; /* 100 * branch-misses / branches, percent */
	double branch_mpki;      /* 1000 * branch-misses / instructions */
	double l1i_mpki;         /* 1000 * L1-icache-load-misses / instructions */
	double llc_mpki;         /* 1000 * (LLC-load-misses or cache-misses) / instructions */
	const char *llc_event;   /* static: the event llc_mpki used, NULL when none */
};

enum triage_next {
	TRIAGE_UNKNOWN = 0, /* the counts needed are missing (no PMU) */
	TRIAGE_DONE,        /* nothing above its threshold */
	TRIAGE_TOPDOWN,     /* CPI high: classify with tdprof topdown */
	TRIAGE_BRANCHES,    /* branch MPKI high: tdprof branches record */
	TRIAGE_FRONTEND,    /* L1i MPKI high: frontend advice */
	TRIAGE_MEMORY,      /* LLC MPKI high: memory advice */
};

#define TRIAGE_MAX_SIGNALS 4

struct triage_signal {
	enum triage_next kind;   /* TOPDOWN, BRANCHES, FRONTEND or MEMORY */
	double value;            /* the metric */
	double threshold;
	double cost_cpki;        /* estimated cycles lost per 1000 instructions; NAN for TOPDOWN */
	char reason[200];        /* "CPI 1.85 > 1.0: ..." */
};

/* Cycles one event costs, to rank the signals (see the header comment). */
struct triage_costs {
	double mispredict; /* per mispredicted branch */
	double l1i_miss;   /* per L1i miss served by L2 */
	double llc_miss;   /* per last-level miss served by DRAM */
};

#define TRIAGE_COSTS_DEFAULT { 17.5, 12.5, 200.0 }

struct triage_verdict {
	enum triage_next next;
	char reason[200];        /* why next was chosen, one sentence, lower case, no period */
	struct triage_signal signals[TRIAGE_MAX_SIGNALS];
	size_t nr_signals;
};

/**
 * Compute the metrics from cs (borrowed): counts found by name (perf's generic
 * names, matched as str_event_name_eq does, a trailing :u/:k modifier ignored).
 * Counts not COUNT_OK are missing. Always succeeds.
 */
void triage_metrics_compute(const struct countset *cs, struct triage_metrics *out);

/** Decide the next step from m (borrowed) with the default costs. Always succeeds. */
void triage_route(const struct triage_metrics *m, struct triage_verdict *out);

/** The same with the costs of a known machine (the simulated one). Always succeeds. */
void triage_route_costs(const struct triage_metrics *m, const struct triage_costs *costs,
			struct triage_verdict *out);

/** Stable name of a next step for JSON and CSV: "topdown", "branches", "frontend", "memory", "done", "unknown". */
const char *triage_next_name(enum triage_next n);

/**
 * The command or advice that follows a verdict, one line: "tdprof topdown -- CMD",
 * "tdprof branches record -o branches.data -- CMD", or frontend/memory advice.
 * cmd: the workload as one string (borrowed; NULL prints "CMD"). Returns a static
 * string for the advice kinds, or writes into buf (size bytes) and returns it.
 */
const char *triage_next_text(enum triage_next n, const char *cmd, char *buf, size_t size);

/**
 * The same for counts that were simulated (no PMU to record branch stacks with):
 * the branch step is `tdprof why -- CMD`, which names the branches from the
 * simulation, and says that the branch trace needs a hardware PMU.
 */
const char *triage_next_text_sim(enum triage_next n, const char *cmd, char *buf, size_t size);

/*
 * perf stat's `#` column for one count: which derived metric it shows.
 * fmt is a printf format for `value` ("%8.3f", "%7.2f%%", "%7.2f "), unit the
 * text after it ("CPUs utilized", "GHz", "insn per cycle", "K/sec",
 * "of all branches"). fmt NULL: nothing to show.
 */
struct triage_annotation {
	const char *fmt;
	double value;
	char unit[32];
};

/**
 * The annotation of cs->v[i] as perf stat 6.1 prints it: task-clock/cpu-clock ->
 * CPUs utilized (over elapsed_ns); cycles -> GHz (over task-clock); instructions ->
 * insn per cycle; branch-misses -> % of all branches; cache-misses -> % of all
 * cache refs; L1-icache-load-misses -> % of all L1-icache accesses; LLC-load-misses
 * -> % of all LL-cache accesses; other counts -> a rate per second of task-clock
 * ("K/sec", "M/sec", "G/sec", "/sec"). elapsed_ns < 0: unknown. Missing inputs
 * give fmt NULL.
 */
void triage_annotate(const struct countset *cs, size_t i, double elapsed_ns, struct triage_annotation *out);

#endif
