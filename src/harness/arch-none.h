/* arch-none.h: architectures without user-space counters or a known TSC (included only by arch.h). */
#ifndef TDPROF_HARNESS_ARCH_NONE_H
#define TDPROF_HARNESS_ARCH_NONE_H

#define HARNESS_ARCH_NAME "none"

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
	return 0;
}

static inline bool harness_arch_has_user_pmc(void)
{
	return false;
}

static inline uint64_t harness_arch_read_pmc(uint32_t idx)
{
	(void)idx;
	return 0;
}

#endif
