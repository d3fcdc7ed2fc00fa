/*
 * countset.h: the one structure that carries counts from a backend (pmu: live
 * counters; import: a perf stat output; sim: valgrind's estimate) to the analysis
 * (model/, report/). Every backend fills a countset; nothing after it cares which.
 *
 * Lifecycle:
 *   1. struct countset cs = COUNTSET_INIT;   cs.backend = ...;
 *   2. countset_add() per event read (the same name may appear several times, once
 *      per group it was counted in: perf prints `ls_not_halted_cyc` once per metric
 *      group and each metric uses its own group's copy);
 *   3. analysis looks counts up with countset_find() / countset_get();
 *   4. countset_release().
 *
 * Units: `value` is in the kernel's unit for the event: nanoseconds for the clock
 * events (task-clock, cpu-clock, duration_time), plain counts otherwise. Importers
 * convert perf's printed "msec" to ns; renderers print msec like perf.
 *
 * Invariants: a count with status != COUNT_OK has value 0 and must never be shown
 * as 0 (it prints `<not counted>`/`<not supported>`, JSON null).
 */
#ifndef TDPROF_BASE_COUNTSET_H
#define TDPROF_BASE_COUNTSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum count_status {
	COUNT_OK = 0,
	COUNT_NOT_COUNTED,   /* opened but never scheduled (or the run ended first) */
	COUNT_NOT_SUPPORTED, /* cannot be opened here, or the source did not measure it */
};

enum tdp_backend {
	BACKEND_PMU = 0, /* perf_event_open on this machine */
	BACKEND_SIM,     /* valgrind-based estimate: every figure is an estimate */
	BACKEND_IMPORT,  /* counts read from a file recorded elsewhere */
};

struct count {
	char *name;          /* event as spelled by the user, the model or the file */
	char *unit;          /* perf's unit column ("msec", ""); never NULL */
	enum count_status status;
	double value;        /* scaled value: raw * enabled / running (see Units) */
	double raw;          /* value before multiplexing scale (imports: as printed) */
	uint64_t enabled_ns; /* time enabled; 0 when the source does not say */
	uint64_t running_ns; /* time running; 0 when the source does not say */
	double running_pct;  /* 100 * running / enabled; 100 when not multiplexed; <0 unknown */
	double stddev_pct;   /* relative stddev across -r runs, in percent; <0 when one run */
	int group;           /* group it was counted in (0, 1, ...); -1 when alone/unknown */
	bool estimate;       /* produced by the simulation model, not a counter */
};

struct countset {
	struct count *v;
	size_t nr;
	size_t alloc;
	enum tdp_backend backend;
	double elapsed_ns;   /* wall time of the measured run; <0 when unknown */
};

#define COUNTSET_INIT { NULL, 0, 0, BACKEND_PMU, -1.0 }

/** Name of a backend as JSON and text print it: "pmu", "sim", "import". */
const char *backend_name(enum tdp_backend b);

/**
 * Append a count named `name` (copied) with `unit` (copied; NULL means "").
 * The new count has status COUNT_OK, value/raw `value`, running_pct 100,
 * stddev_pct -1, group `group`, times 0; the caller adjusts the other fields.
 * Returns the new count (owned by cs, valid until the next countset_add), or NULL
 * on allocation failure (cs unchanged).
 */
struct count *countset_add(struct countset *cs, const char *name, const char *unit, double value, int group);

/**
 * Find the count for `name` (matched with str_event_name_eq) in `group`, or in
 * any group when group < 0 (the first one added). Returns NULL when absent.
 */
const struct count *countset_find(const struct countset *cs, const char *name, int group);

/**
 * The value of `name` (any group) when it was counted: returns true and writes
 * *out; false when absent or not counted/supported.
 */
bool countset_get(const struct countset *cs, const char *name, double *out);

/** Number of distinct groups (max group + 1; 0 when no count has a group). */
size_t countset_nr_groups(const struct countset *cs);

/**
 * The counts by group, in one pass (renderers list groups of imports with
 * thousands of them): for group g < ng (countset_nr_groups()), its counts are
 * idx[start[g]..start[g + 1]) in countset order; the ungrouped ones (group -1)
 * are idx[start[ng]..start[ng + 1]). On success *start (ng + 2 entries) and *idx
 * (cs->nr entries) are the caller's (tdp_free). Returns 0 or TDP_ENOMEM.
 */
int countset_by_group(const struct countset *cs, size_t **start, size_t **idx) __attribute__((warn_unused_result));

/** Free every count; cs is left as after COUNTSET_INIT (keeping backend). */
void countset_release(struct countset *cs);

/**
 * Scale a raw reading by its enabled/running times as perf does:
 * value = raw * enabled / running; running == 0 means it never ran.
 * Writes the scaled value and the running percentage; returns false when the
 * counter never ran (COUNT_NOT_COUNTED).
 */
bool count_scale(uint64_t raw, uint64_t enabled, uint64_t running, double *value, double *running_pct);

#endif
