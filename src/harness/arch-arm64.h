/*
 * arch-arm64.h: user-space counter reads for arm64 (included only by arch.h).
 *
 * With /proc/sys/kernel/perf_user_access = 1 and attr.config1 bit 1 set, the
 * kernel lets EL0 read the counters of the task's own events (Linux 5.17+,
 * arm_pmuv3 "rdpmc" format field). The mmap page's index is the hardware counter
 * number + 1; number 31 is the cycle counter PMCCNTR_EL0, the others are
 * PMEVCNTR<n>_EL0. Time comes from the virtual counter CNTVCT_EL0.
 */
#ifndef TDPROF_HARNESS_ARCH_ARM64_H
#define TDPROF_HARNESS_ARCH_ARM64_H

#define HARNESS_ARCH_NAME "arm64"

static inline bool harness_arch_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	(void)leaf;
	(void)sub;
	(void)r;
	return false;
}

static inline bool harness_arch_has_tsc(void)
{
	return false;
}

static inline uint64_t harness_arch_tsc(void)
{
	return 0;
}

static inline uint64_t harness_arch_user_time(void)
{
	uint64_t v;

	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}

static inline bool harness_arch_has_user_pmc(void)
{
	return true;
}

#define HARNESS_PMEV(n)                                                   \
	case n:                                                           \
		__asm__ volatile("mrs %0, pmevcntr" #n "_el0" : "=r"(v)); \
		break;

static inline uint64_t harness_arch_read_pmc(uint32_t idx)
{
	uint64_t v = 0;

	switch (idx) {
	HARNESS_PMEV(0) HARNESS_PMEV(1) HARNESS_PMEV(2) HARNESS_PMEV(3) HARNESS_PMEV(4)
	HARNESS_PMEV(5) HARNESS_PMEV(6) HARNESS_PMEV(7) HARNESS_PMEV(8) HARNESS_PMEV(9)
	HARNESS_PMEV(10) HARNESS_PMEV(11) HARNESS_PMEV(12) HARNESS_PMEV(13) HARNESS_PMEV(14)
	HARNESS_PMEV(15) HARNESS_PMEV(16) HARNESS_PMEV(17) HARNESS_PMEV(18) HARNESS_PMEV(19)
	HARNESS_PMEV(20) HARNESS_PMEV(21) HARNESS_PMEV(22) HARNESS_PMEV(23) HARNESS_PMEV(24)
	HARNESS_PMEV(25) HARNESS_PMEV(26) HARNESS_PMEV(27) HARNESS_PMEV(28) HARNESS_PMEV(29)
	HARNESS_PMEV(30)
	case 31:
		__asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v));
		break;
	default:
		break;
	}
	return v;
}

#undef HARNESS_PMEV

#endif
