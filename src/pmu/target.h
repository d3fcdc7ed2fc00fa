/*
 * target.h: what a session counts, as the kernel names it: CPU lists ("0-3,6", as
 * -C takes them and /sys/devices/system/cpu/online prints them), the online CPUs,
 * the threads of a running process (/proc/PID/task), whether a task still exists.
 * Used by session.c; the parser is pure, the others read procfs/sysfs.
 */
#ifndef TDPROF_PMU_TARGET_H
#define TDPROF_PMU_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct tdp_err;

#define PMU_CPU_LIST_MAX 4096 /* bytes of a -C list or of the online file */

/**
 * Parse a CPU list ("0-3,6", as in /sys/devices/system/cpu/online) of len bytes
 * (untrusted, need not be NUL-terminated; a trailing newline is allowed) into a
 * new sorted array without duplicates (*out, caller frees with tdp_free).
 * Returns 0; TDP_EUSAGE when it does not parse (message quotes it and the offset);
 * TDP_ELIMIT beyond PMU_COUNTERS_MAX_SLOTS CPUs or PMU_CPU_LIST_MAX bytes; TDP_ENOMEM.
 */
int pmu_cpu_list_parse(const char *s, size_t len, int **out, size_t *nr, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * The online CPUs from /sys/devices/system/cpu/online into a new array (*out,
 * caller frees with tdp_free). Returns 0, TDP_EIO when the file cannot be read,
 * or an error of pmu_cpu_list_parse().
 */
int pmu_online_cpus(int **out, size_t *nr, struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Check that every CPU of want[0..nr) is online. Returns 0, TDP_ENOENT naming
 * the first offline CPU (hint: where the online list is), or an error of
 * pmu_online_cpus().
 */
int pmu_cpus_check_online(const int *want, size_t nr, struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * The threads of process pid from /proc/pid/task into a new array (*out, caller
 * frees with tdp_free). Returns 0, TDP_ENOENT when there is no such process,
 * TDP_ELIMIT beyond PMU_COUNTERS_MAX_SLOTS threads, TDP_ENOMEM.
 */
int pmu_process_threads(pid_t pid, pid_t **out, size_t *nr, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** True while a task (process or thread id) exists (kill(pid, 0) succeeds or says EPERM). */
bool pmu_task_alive(pid_t pid);

#endif
