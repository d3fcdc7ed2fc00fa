/*
 * arch.h: the few machine instructions the harness needs, per architecture:
 * a cycle-exact time stamp (rdtsc), user-space counter reads (rdpmc; mrs on
 * arm64), and CPUID. The per-architecture bodies live in arch-<name>.h; this file
 * only chooses one, so the logic elsewhere has no #ifdef.
 *
 * Every header defines:
 *   HARNESS_ARCH_NAME                   "x86", "arm64" or "none"
 *   bool     harness_arch_has_tsc(void)  an invariant time stamp counter exists
 *   uint64_t harness_arch_tsc(void)      read it (ordered after earlier instructions)
 *   uint64_t harness_arch_user_time(void) the counter perf's mmap page time_* fields
 *                                        convert (TSC on x86, CNTVCT_EL0 on arm64)
 *   bool     harness_arch_has_user_pmc(void) user-space counter reads are possible
 *   uint64_t harness_arch_read_pmc(uint32_t idx) read hardware counter idx (the mmap
 *                                        page's index - 1); only after checking
 *                                        cap_user_rdpmc, or it faults
 *   bool     harness_arch_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4]) x86 only
 */
#ifndef TDPROF_HARNESS_ARCH_H
#define TDPROF_HARNESS_ARCH_H

#include <stdbool.h>
#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#include "arch-x86.h"
#elif defined(__aarch64__)
#include "arch-arm64.h"
#else
#include "arch-none.h"
#endif

#endif
