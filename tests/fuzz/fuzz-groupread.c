/*
 * fuzz-groupread.c: a perf.data image read for its group reads
 * (diagnose/groupread.h: groupread_load): on success the rows are sorted by (IP, pid),
 * each once, and the totals are the sums of the rows; on failure the result is empty.
 */
#include "fuzz.h"

#include "base/err.h"
#include "diagnose/groupread.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct groupread r;
	int ret = fuzz_check_ret(groupread_load(data, size, "fuzz.data", &r, &err), &err);

	if (ret) {
		FUZZ_CHECK(r.v == NULL && r.nr == 0);
		return 0;
	}
	FUZZ_CHECK(r.samples > 0 && r.nr > 0 && r.nr <= r.samples);
	for (size_t e = 0; e < GROUPREAD_MAX_EVENTS; e++) {
		uint64_t sum = 0;

		for (size_t i = 0; i < r.nr; i++)
			sum += r.v[i].v[e];
		FUZZ_CHECK(sum == r.totals[e]); /* u64 sums wrap alike */
	}
	for (size_t i = 1; i < r.nr; i++)
		FUZZ_CHECK(r.v[i - 1].ip < r.v[i].ip || (r.v[i - 1].ip == r.v[i].ip && r.v[i - 1].pid < r.v[i].pid));
	groupread_release(&r);
	return 0;
}
