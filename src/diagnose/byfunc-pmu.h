/*
 * byfunc-pmu.h: per-function top-down from a sampling group's reads (`tdprof topdown
 * --by function -i FILE.data`, and the live `--by function -- CMD`, which records such a
 * file first): the counts groupread.h charges to each (IP, process) are named by a
 * symbol session (symbol.h: the recording's maps, build-ids, --symfs, demangled as
 * perf prints them) and summed per function as `perf report --group --sort symbol`
 * sums them (one row per function symbol of a binary; an address no symbol holds is
 * its own row, named as perf names it, "0x0000000000001139"). Each function's sums
 * are a countset of the recording's event names (groupread.h), over which the model
 * is evaluated like an import of perf stat output: level 1 (level 2 and below
 * wherever the group's events allow), the verdict's node, and the source line where
 * that node weighs most.
 *
 * The line: each line of the function (the most counted BYFUNC_PMU_MAX_LINES of the
 * leader's counts) is evaluated too; its weight is its value of the dominant node
 * (its level-2 node when measurable, else the level-1 one) times its count of the
 * leader. The line of largest weight is the guilty one and line_pct its part of the
 * weights. Without a model or a measurable node: the line with the most of the
 * leader's counts and its part of them.
 *
 * Lifecycle:
 *   1. byfunc_pmu_load(buf, len, name, &sym_opts, &bp, &err): reads and names;
 *   2. byfunc_pmu_totals(bp, &cs, &err) and byfunc_pmu_cpuid(bp): what the caller
 *      chooses the model by (and the whole recording's tree);
 *   3. byfunc_pmu_result(bp, mc, &eo, &r, &err) (any number of times, r owns its strings);
 *   4. byfunc_pmu_free(bp); byfunc_release(&r).
 * Input is hostile (groupread.h, perfdata.h, symbol.h say how each part is checked).
 */
#ifndef TDPROF_DIAGNOSE_BYFUNC_PMU_H
#define TDPROF_DIAGNOSE_BYFUNC_PMU_H

#include <stddef.h>
#include <stdint.h>

#include "base/countset.h"
#include "diagnose/byfunc.h"
#include "model/model.h"

struct tdp_err;
struct symbol_opts;
struct byfunc_pmu;

#define BYFUNC_PMU_MAX_LINES 64      /* lines of one function evaluated for its guilty line */
#define BYFUNC_PMU_MAX_FUNCTIONS (1u << 20) /* distinct functions of one recording */

/**
 * Read the perf.data image buf[0..len) (borrowed until byfunc_pmu_free(); name for
 * messages) and name its sampled addresses (sym: NULL for symbol_opts_init()'s
 * defaults; borrowed until byfunc_pmu_free()). Returns 0 with *out new;
 * groupread_read()'s errors (TDP_EANALYSIS: no group reads, with a hint);
 * TDP_ELIMIT past BYFUNC_PMU_MAX_FUNCTIONS; TDP_ENOMEM. *out untouched on failure.
 */
int byfunc_pmu_load(const uint8_t *buf, size_t len, const char *name, const struct symbol_opts *sym,
		    struct byfunc_pmu **out, struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * The group's events (those some group read holds) with their counts over the whole
 * recording, appended to out as one group (group 0), named as recorded. Returns 0 or
 * TDP_ENOMEM.
 */
int byfunc_pmu_totals(const struct byfunc_pmu *bp, struct countset *out, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** The recording's CPUID feature ("GenuineIntel,6,85,4", arm64 "0x00000000410fd490"), or NULL. */
const char *byfunc_pmu_cpuid(const struct byfunc_pmu *bp);

/**
 * The functions holding BYFUNC_COVER percent of the leader's counts into out
 * (overwritten; source BYFUNC_GROUP_READ), each evaluated with mc (borrowed; NULL:
 * counts only, every node NAN) at eo's level. Returns 0, TDP_EANALYSIS when the
 * leader counted nothing, or TDP_ENOMEM (out released).
 */
int byfunc_pmu_result(const struct byfunc_pmu *bp, const struct model_compiled *mc, const struct model_eval_opts *eo,
		      struct byfunc_result *out, struct tdp_err *err) __attribute__((warn_unused_result));

/** Free bp (NULL does nothing). */
void byfunc_pmu_free(struct byfunc_pmu *bp);

#endif
