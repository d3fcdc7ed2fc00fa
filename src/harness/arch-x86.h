/* arch-x86.h: rdtsc, rdpmc and CPUID for x86 (included only by arch.h). */
#ifndef TDPROF_HARNESS_ARCH_X86_H
#define TDPROF_HARNESS_ARCH_X86_H

#include <cpuid.h>
#include <stddef.h>

#define HARNESS_ARCH_NAME "x86"

static inline bool harness_arch_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	unsigned a, b, c, d;
	/* The highest leaf of the range leaf is in (basic or extended); its type differs between gcc and clang. */
	uint32_t max = (uint32_t)__get_cpuid_max(leaf & 0x80000000u, NULL);

	if (max < leaf)
		return false;
	__cpuid_count(leaf, sub, a, b, c, d);
	r[0] = a;
	r[1] = b;
	r[2] = c;
	r[3] = d;
	return true;
}

/* Invariant TSC: CPUID 8000_0007h EDX bit 8 (Intel SDM vol. 3B 18.17.1; AMD APM vol. 2 13.2.4). */
static inline bool harness_arch_has_tsc(void)
{
	uint32_t r[4];

	return harness_arch_cpuid(0x80000007u, 0, r) && (r[3] & (1u << 8));
}

/*
 * lfence first: rdtsc is not ordered with earlier instructions, so without it the
 * stamp could be taken before the kernel's last iterations retire. Linux makes
 * lfence dispatch-serialising on AMD too (X86_FEATURE_LFENCE_RDTSC).
 */
static inline uint64_t harness_arch_tsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t harness_arch_user_time(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline bool harness_arch_has_user_pmc(void)
{
	return true;
}

static inline uint64_t harness_arch_read_pmc(uint32_t idx)
{
	uint32_t lo, hi;

	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx));
	return ((uint64_t)hi << 32) | lo;
}

#endif
