/*
 * cpuid-x86.c: the CPUID instruction (x86 builds; other architectures link
 * cpuid-none.c instead, chosen in meson.build).
 */
#include "cpu/cpu-internal.h"

#include <cpuid.h>
#include <string.h>

bool cpu_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
	unsigned a, b, c, d;

	memset(r, 0, 4 * sizeof(r[0]));
	if (leaf < 0x40000000u || leaf >= 0x80000000u) {
		/*
		 * Above the maximum leaf Intel returns the data of the highest basic
		 * leaf (not zeros), so every leaf is checked against its range's max.
		 */
		unsigned max = __get_cpuid_max(leaf & 0x80000000u, NULL);

		if (max == 0 || leaf > max)
			return false;
	}
	__cpuid_count(leaf, subleaf, a, b, c, d);
	r[0] = a;
	r[1] = b;
	r[2] = c;
	r[3] = d;
	return true;
}
