/*
 * fuzz-import.c: perf stat output in any of its shapes (import/import.h:
 * import_perf_stat_result: CSV with any separator, JSON lines, text).
 */
#include "fuzz.h"

#include <math.h>

#include "base/err.h"
#include "import/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct import_result r = IMPORT_RESULT_INIT;
	struct countset cs = COUNTSET_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	char sep = 0;
	enum import_format fmt = import_detect(data, size, &sep);
	int ret;

	FUZZ_CHECK(fmt != IMPORT_FMT_CSV || sep != 0);
	ret = fuzz_check_ret(import_perf_stat_result(data, size, "fuzz.txt", &r, &err), &err);
	if (ret) {
		/* on failure r is left as after import_result_init() */
		FUZZ_CHECK(r.counts.nr == 0 && r.nr_metrics == 0 && r.nr_notes == 0);
	} else {
		FUZZ_CHECK(r.format == fmt);
		for (size_t i = 0; i < r.nr_metrics; i++) {
			FUZZ_CHECK(r.metrics[i].count < r.counts.nr);
			FUZZ_CHECK(r.metrics[i].name && r.metrics[i].unit);
			FUZZ_CHECK(r.metrics[i].group == r.counts.v[r.metrics[i].count].group);
		}
		for (size_t i = 0; i < r.counts.nr; i++) {
			FUZZ_CHECK(r.counts.v[i].group >= 0);
			FUZZ_CHECK(!isnan(r.counts.v[i].value) && r.counts.v[i].value >= 0);
		}
	}
	import_result_release(&r);
	import_result_release(&r); /* "r may be released twice" */

	/* the countset entry point appends, shifting groups past those it holds */
	tdp_err_clear(&err);
	ret = fuzz_check_ret(import_perf_stat(data, size, "fuzz.txt", &cs, &err), &err);
	FUZZ_CHECK(ret ? cs.nr == 0 && cs.backend == BACKEND_PMU : cs.backend == BACKEND_IMPORT);
	countset_release(&cs);
	return 0;
}
