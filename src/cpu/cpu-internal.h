/*
 * cpu-internal.h: helpers shared by the files of src/cpu/ only (not part of the
 * module's contract, cpu.h).
 */
#ifndef TDPROF_CPU_CPU_INTERNAL_H
#define TDPROF_CPU_CPU_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu/cpu.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The env to use when a caller passes NULL: the running machine. */
const struct cpu_env *cpu_env_or_default(const struct cpu_env *env);

/**
 * Execute CPUID leaf/subleaf on the calling CPU into r[0..3] = eax, ebx, ecx, edx.
 * Returns false on a CPU without CPUID (non-x86 builds: cpuid-none.c) and for a
 * basic or extended leaf above the CPU's maximum (r is zeroed then). Leaves in
 * the hypervisor range 0x40000000-0x400000FF are not range-checked: call them
 * only when CPUID.1:ECX[31] is set.
 */
bool cpu_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t r[4]);

/**
 * Build "<root>/<fmt...>" into buf. Returns false when root is NULL or the path
 * does not fit.
 */
bool cpu_path(char *buf, size_t size, const char *root, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/**
 * Read the small file "<root>/<fmt...>" (a sysfs attribute) into buf, trailing
 * newline removed and NUL-terminated. Returns its length, or -1 when root is NULL
 * or the file cannot be read. Longer contents are truncated to size - 1.
 */
long cpu_read_attr(char *buf, size_t size, const char *root, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/**
 * Read a whole text file of at most max bytes (procfs files report size 0, so
 * this reads rather than maps). On success *out is a heap NUL-terminated copy
 * the caller frees with tdp_free(). Returns 0, TDP_ENOENT, TDP_EPERM, TDP_EIO,
 * TDP_ELIMIT or TDP_ENOMEM with the path in the message.
 */
int cpu_read_file(const char *path, size_t max, char **out, size_t *len, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** Copy at most max bytes of buf[0..len) into out (size max + 1) as printable ASCII. */
void cpu_printable(const char *buf, size_t len, char *out, size_t max);

/** Copy the NUL-terminated src into dst[size], truncating. */
void cpu_strlcpy(char *dst, const char *src, size_t size);

#endif
