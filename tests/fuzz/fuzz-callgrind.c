/*
 * fuzz-callgrind.c: valgrind's callgrind.out files (sim/profile.h:
 * sim_callgrind_parse), parsed once and then merged into themselves.
 */
#include "fuzz-sim-profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_sim_profile(sim_callgrind_parse, data, size, "callgrind.out.fuzz");
}
