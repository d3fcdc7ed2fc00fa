/*
 * byfunc-pmu-internal.h: the state of a per-function group-read analysis, shared by
 * byfunc-pmu.c (reading, naming, summing per function and line) and byfunc-pmu-eval.c
 * (the model over each function, the ranking, the guilty line). Not a contract for
 * others: byfunc-pmu.h is.
 */
#ifndef TDPROF_DIAGNOSE_BYFUNC_PMU_INTERNAL_H
#define TDPROF_DIAGNOSE_BYFUNC_PMU_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/countset.h"
#include "diagnose/byfunc-pmu.h"
#include "diagnose/groupread.h"

#define E BYFUNC_MAX_EVENTS

struct symbol_session;

/* One source line of a function: its counts. */
struct bline {
	const char *file;
	uint32_t line;
	uint64_t v[E];     /* per compact event */
};

/* One function (as perf report --sort symbol groups them): its counts and its lines. */
struct bfn {
	char *name;        /* owned */
	const char *dso;   /* the session's */
	bool kernel;
	uint64_t v[E];
	uint64_t samples;
	size_t first, nr;  /* its lines: lines[first .. first + nr) */
};

struct byfunc_pmu {
	struct symbol_session *sym;
	struct groupread gr;
	char *cpuid;
	size_t ev[E];      /* compact event k -> attr index */
	size_t nr_ev;
	size_t leader;     /* compact index of the leader */
	struct bfn *fns;
	size_t nr_fns;
	struct bline *lines;
	size_t nr_lines;
};

/** The name of compact event k (never NULL). */
const char *bfp_ev_name(const struct byfunc_pmu *bp, size_t k);

/** Counts v (per compact event) appended to cs as one group (group 0). Returns 0 or TDP_ENOMEM. */
int bfp_as_counts(const struct byfunc_pmu *bp, const uint64_t *v, struct countset *cs, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** strcmp() with NULL before any string. */
int bfp_strcmp_null(const char *a, const char *b);

#endif
