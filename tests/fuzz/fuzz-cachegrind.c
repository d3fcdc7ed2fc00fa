/*
 * fuzz-cachegrind.c: valgrind's cachegrind.out files (sim/profile.h:
 * sim_cachegrind_parse), parsed once and then merged into themselves.
 */
#include "fuzz-sim-profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_sim_profile(sim_cachegrind_parse, data, size, "cachegrind.out.fuzz");
}
