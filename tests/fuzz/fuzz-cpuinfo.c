/*
 * fuzz-cpuinfo.c: /proc/cpuinfo text, x86 or arm64 (cpu/cpu.h:
 * cpu_cpuinfo_parse).
 */
#include "fuzz.h"

#include <string.h>

#include "base/err.h"
#include "cpu/cpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpu_cpuinfo ci;
	struct tdp_err err = TDP_ERR_INIT;
	int ret = fuzz_check_ret(cpu_cpuinfo_parse(data, size, &ci, &err), &err);

	FUZZ_CHECK(ret == 0 || ret == TDP_EFORMAT || ret == TDP_ENOENT || ret == TDP_ELIMIT);
	if (!ret) {
		FUZZ_CHECK(memchr(ci.vendor, '\0', sizeof(ci.vendor)) != NULL);
		FUZZ_CHECK(memchr(ci.brand, '\0', sizeof(ci.brand)) != NULL);
	}
	return 0;
}
