/*
 * fuzz-sim-machine.c: the --sim-machine argument (sim/machine.h:
 * sim_machine_parse: "PRESET", "KEY=VAL,...", "PRESET,KEY=VAL,...").
 */
#include "fuzz.h"

#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "sim/machine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_machine m;
	struct tdp_err err = TDP_ERR_INIT;
	char i1[SIM_VG_ARG_MAX], d1[SIM_VG_ARG_MAX], ll[SIM_VG_ARG_MAX], desc[512];
	char *spec;
	int ret;

	if (size > 4096 || !(spec = fuzz_cstr(data, size)))
		return 0;
	ret = fuzz_check_ret(sim_machine_parse(&m, spec, &err), &err);
	FUZZ_CHECK(ret == 0 || ret == TDP_EUSAGE || ret == TDP_ENOMEM);
	if (!ret) {
		/* a parsed machine is a valid one: valgrind takes its caches */
		tdp_err_clear(&err);
		FUZZ_CHECK(sim_machine_validate(&m, &err) == 0);
		FUZZ_CHECK(memchr(m.name, '\0', sizeof(m.name)) != NULL);
		FUZZ_CHECK(m.mlp >= 1 && m.width > 0);
		sim_machine_valgrind_args(&m, i1, d1, ll);
		sim_machine_describe(&m, desc, sizeof(desc));
		FUZZ_CHECK(memchr(desc, '\0', sizeof(desc)) != NULL);
	}
	tdp_free(spec);
	return 0;
}
