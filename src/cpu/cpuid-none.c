/* cpuid-none.c: builds for CPUs without the CPUID instruction (arm64, ...). */
#include "cpu/cpu-internal.h"

#include <string.h>

bool cpu_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
	(void)leaf;
	(void)subleaf;
	memset(r, 0, 4 * sizeof(r[0]));
	return false;
}
