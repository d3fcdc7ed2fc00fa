/*
 * record.h: a sampled run of a workload written as a perf.data (`tdprof branches
 * record`): the sampling engine (pmu/sampling.h) feeding the writer
 * (perfdata/perfdata-write.h), with the attrs, the header features perf writes
 * about the machine and the command, and the build-ids of the binaries hit.
 *
 * The steps are apart so that the command can speak between them and map each
 * failure to its exit status (opening: bad arguments or no PMU; running: the
 * workload or a write; finishing: the file). Nothing here prints.
 *
 * Lifecycle:
 *   struct measure_record r; measure_record_init(&r);
 *   ret = measure_record_open(&r, path, &so, sys, cmdline, n, &err);  the file exists, unfinished
 *     (or measure_record_open_memory(): an anonymous memory file, read back with
 *     measure_record_map() once finished)
 *   ret = measure_record_run(&r, &err);      the workload ran (measure_record_stats(&r))
 *   ret = measure_record_finish(&r, &err);   the header written: a perf.data perf reads
 *   measure_record_release(&r);              (before finish: leaves the file unfinished)
 */
#ifndef TDPROF_MEASURE_RECORD_H
#define TDPROF_MEASURE_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "cpu/cpu.h"
#include "pmu/sampling.h"

struct tdp_err;
struct perfdata_writer;

struct measure_record {
	struct perfdata_writer *w;
	struct pmu_sampling *s;
	int memfd;             /* measure_record_open_memory(): the file; -1 none */
	const void *map;       /* measure_record_map(): its image; NULL none */
	size_t map_size;
};

/** Make r empty. */
void measure_record_init(struct measure_record *r);

/**
 * Create path (perfdata_writer_open(): mode 0600, perf's .old convention), open
 * the engine for so (borrowed until release) and write the attrs and the
 * features of sys and cmdline[0..n) (the command line perf shows). Returns 0, or
 * the error of the writer or the engine (TDP_ENOTSUP for plain samples with no
 * PMU comes with a hint to the simulation), with err set.
 */
int measure_record_open(struct measure_record *r, const char *path, const struct pmu_sampling_opts *so,
			const struct cpu_system *sys, const char *const *cmdline, size_t n, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * measure_record_open() into an anonymous memory file (memfd_create(): no name in any
 * directory) instead of a path. Returns as measure_record_open(), or TDP_EIO when
 * the memory file cannot be made or reopened by its /proc/self/fd path.
 */
int measure_record_open_memory(struct measure_record *r, const struct pmu_sampling_opts *so,
			       const struct cpu_system *sys, const char *const *cmdline, size_t n, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * After measure_record_finish() of a memory file: its perf.data image, mapped read-only
 * (*data, *size valid until measure_record_release()). Returns 0, or TDP_EIO.
 */
int measure_record_map(struct measure_record *r, const uint8_t **data, size_t *size, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Run the workload and write its records, then the build-ids. Returns 0 (a
 * signal that ended the recording is in the stats), TDP_ENOCMD / TDP_ENOEXEC
 * (the workload could not be run), or another error of the run or a write.
 */
int measure_record_run(struct measure_record *r, struct tdp_err *err) __attribute__((warn_unused_result));

/** The run's counts (samples, lost, the workload's status); valid until release. */
const struct pmu_sampling_stats *measure_record_stats(const struct measure_record *r);

/** Finish the file (features, then the final header). Returns 0 or the writer's error. */
int measure_record_finish(struct measure_record *r, struct tdp_err *err) __attribute__((warn_unused_result));

/** Close the engine (killing a workload still running) and abandon an unfinished file. */
void measure_record_release(struct measure_record *r);

#endif
