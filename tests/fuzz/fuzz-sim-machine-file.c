/*
 * fuzz-sim-machine-file.c: a --sim-machine file of KEY=VAL lines
 * (sim/machine.h: sim_machine_parse_file).
 */
#include "fuzz.h"

#include <string.h>

#include "base/err.h"
#include "sim/machine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_machine m;
	struct tdp_err err = TDP_ERR_INIT;
	char i1[SIM_VG_ARG_MAX], d1[SIM_VG_ARG_MAX], ll[SIM_VG_ARG_MAX];
	int ret = fuzz_check_ret(sim_machine_parse_file(&m, data, size, "fuzz.machine", &err), &err);

	FUZZ_CHECK(ret == 0 || ret == TDP_EUSAGE || ret == TDP_ELIMIT || ret == TDP_ENOMEM);
	FUZZ_CHECK(size <= SIM_MACHINE_MAX_FILE || ret == TDP_ELIMIT);
	if (!ret) {
		tdp_err_clear(&err);
		FUZZ_CHECK(sim_machine_validate(&m, &err) == 0);
		FUZZ_CHECK(memchr(m.name, '\0', sizeof(m.name)) != NULL);
		sim_machine_valgrind_args(&m, i1, d1, ll);
	}
	return 0;
}
