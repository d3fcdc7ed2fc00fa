/*
 * fuzz-cpulist.c: kernel CPU lists from sysfs ("0-3,8,10-11") (cpu/cpu.h:
 * cpu_list_parse), formatted back and parsed again.
 */
#include "fuzz.h"

#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "cpu/cpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct strbuf sb = STRBUF_INIT;
	unsigned *cpus = NULL, *again = NULL;
	size_t nr = 0, nr2 = 0;
	int ret = fuzz_check_ret(cpu_list_parse((const char *)data, size, "fuzz", &cpus, &nr, &err), &err);

	FUZZ_CHECK(ret == 0 || ret == TDP_EFORMAT || ret == TDP_ELIMIT || ret == TDP_ENOMEM);
	if (ret)
		return 0;
	for (size_t i = 1; i < nr; i++)
		FUZZ_CHECK(cpus[i - 1] < cpus[i]); /* sorted, no duplicates */
	/* the kernel form of the list reads back as the same list */
	cpu_list_format(cpus, nr, &sb);
	if (!strbuf_failed(&sb) &&
	    !cpu_list_parse(sb.buf, sb.len, "fuzz", &again, &nr2, &err)) {
		FUZZ_CHECK(nr2 == nr);
		for (size_t i = 0; i < nr; i++)
			FUZZ_CHECK(again[i] == cpus[i]);
	}
	strbuf_release(&sb);
	tdp_free(again);
	tdp_free(cpus);
	return 0;
}
