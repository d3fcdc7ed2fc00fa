/*
 * fuzz-branch-load.c: a perf.data through what 'tdprof branches report' does
 * before symbolization (branch/branch.h: perfdata_open, branch_load with its
 * Arm SPE decoding, branch_agg_finish).
 */
#include "fuzz.h"

#include "base/err.h"
#include "branch/branch.h"
#include "perfdata/perfdata.h"

static int on_record(void *ctx, const struct perfdata_record *rec, struct tdp_err *err)
{
	(void)err;
	FUZZ_CHECK(rec->type != PERFDATA_RECORD_SAMPLE);
	++*(uint64_t *)ctx;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfdata *p = NULL;
	struct branch_agg *a = NULL;
	struct branch_load_info info;
	struct branch_result r = BRANCH_RESULT_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	uint64_t others = 0;
	int ret = fuzz_check_ret(perfdata_open(&p, data, size, "fuzz.data", PERFDATA_OPEN_UNFINISHED, &err), &err);

	if (!ret)
		ret = fuzz_check_ret(branch_agg_new(&a, &err), &err);
	if (!ret)
		ret = fuzz_check_ret(branch_load(p, a, on_record, &others, &info, &err), &err);
	if (!ret) {
		FUZZ_CHECK(info.nr_branch_attrs <= info.nr_attrs);
		FUZZ_CHECK(info.spe.branch_records <= info.spe.records);
		ret = fuzz_check_ret(branch_agg_finish(a, &r, &err), &err);
		for (size_t i = 0; !ret && i < r.nr_sites; i++)
			FUZZ_CHECK(branch_site_rate(&r.sites[i]) >= 0 && branch_site_rate(&r.sites[i]) <= 1);
		branch_result_release(&r);
	}
	branch_agg_free(a);
	perfdata_close(p);
	return 0;
}
