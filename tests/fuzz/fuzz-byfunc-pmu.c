/*
 * fuzz-byfunc-pmu.c: a perf.data image read for its per-function group reads
 * (diagnose/byfunc-pmu.h): named (binaries looked up under a --symfs that does not
 * exist, so nothing of this machine is read), summed per function and ranked. On
 * success the functions are ranked by the leader's counts, their shares add up to at
 * most 100 and no function counts more of an event than the recording's total; on
 * failure nothing is left.
 */
#include "fuzz.h"

#include <math.h>

#include "base/countset.h"
#include "base/err.h"
#include "diagnose/byfunc-pmu.h"
#include "symbol/symbol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct symbol_opts so;
	struct byfunc_pmu *bp = NULL;
	struct byfunc_result r;
	struct countset cs = COUNTSET_INIT;
	double sum = 0;
	int ret;

	symbol_opts_init(&so);
	so.symfs = "/nonexistent-tdprof-fuzz";
	so.debug_dirs = NULL;
	so.running_kallsyms = NULL;
	so.running_notes = NULL;
	ret = fuzz_check_ret(byfunc_pmu_load(data, size, "fuzz.data", &so, &bp, &err), &err);
	if (ret) {
		FUZZ_CHECK(bp == NULL);
		return 0;
	}
	if (!fuzz_check_ret(byfunc_pmu_totals(bp, &cs, &err), &err))
		FUZZ_CHECK(cs.nr <= BYFUNC_MAX_EVENTS);
	countset_release(&cs);
	ret = fuzz_check_ret(byfunc_pmu_result(bp, NULL, NULL, &r, &err), &err);
	if (!ret) {
		FUZZ_CHECK(r.nr >= 1 && r.nr <= BYFUNC_MAX && r.nr <= r.nr_functions && r.leader < r.nr_events);
		for (size_t i = 0; i < r.nr; i++) {
			FUZZ_CHECK(r.v[i].name != NULL && !(r.v[i].share_pct < 0));
			FUZZ_CHECK(i == 0 || r.v[i].counts[r.leader] <= r.v[i - 1].counts[r.leader]);
			for (size_t e = 0; e < r.nr_events; e++)
				FUZZ_CHECK(r.v[i].counts[e] <= r.totals[e] || r.nr > 1); /* u64 sums may wrap */
			FUZZ_CHECK(r.v[i].dominant == NULL && isnan(r.v[i].level1.retiring)); /* no model: no node */
			sum += r.v[i].share_pct;
		}
		FUZZ_CHECK(sum <= 100.0 + 1e-6 || r.nr > 1);
		byfunc_release(&r);
	} else {
		FUZZ_CHECK(r.v == NULL && r.nr == 0);
	}
	byfunc_pmu_free(bp);
	return 0;
}
