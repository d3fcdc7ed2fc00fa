/*
 * fuzz-cpuid.c: perf's CPUID strings from perf.data (cpu/cpu.h:
 * cpu_uarch_from_perf_cpuid: "GenuineIntel,6,78,3", "GenuineIntel-6-4E-3",
 * "0x00000000410fd490").
 */
#include "fuzz.h"

#include <string.h>

#include "base/err.h"
#include "cpu/cpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpu_perf_cpuid id;
	struct tdp_err err = TDP_ERR_INIT;
	int ret = fuzz_check_ret(cpu_uarch_from_perf_cpuid((const char *)data, size, &id, &err), &err);

	FUZZ_CHECK(ret == 0 || ret == TDP_EFORMAT);
	if (!ret) {
		FUZZ_CHECK(memchr(id.vendor_str, '\0', sizeof(id.vendor_str)) != NULL);
		FUZZ_CHECK(!id.uarch || strlen(id.uarch) > 0);
	}
	return 0;
}
