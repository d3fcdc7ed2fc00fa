/*
 * fuzz-branch-load.c: a perf.data through what 'tdprof branches report' does
 * before symbolization (branch/branch.h: perfdata_open, branch_load with its
 * Arm SPE decoding, branch_agg_finish), on one thread with the entries decoded
 * by the reader and, where branch_load() can aggregate on a second one, on two
 * with the entries left in the record (PERFDATA_OPEN_RAW_BRANCHES, decoded by
 * branch_agg_add_raw(), as the command does): when both succeed their counts agree.
 */
#include "fuzz.h"

#include <string.h>

#include "base/err.h"
#include "branch/branch.h"
#include "perfdata/perfdata.h"

#ifdef BRANCH_CHUNK_ENTRIES /* branch_load() takes options */
#define LOAD(p, a, threaded, info, err) \
	branch_load(p, a, &(struct branch_load_opts){ .threaded = threaded }, info, err)
#define LOAD_MODES 2
#else
#define LOAD(p, a, threaded, info, err) ((void)(threaded), branch_load(p, a, NULL, NULL, info, err))
#define LOAD_MODES 1
#endif

/* Load data into *c; returns 0 or the failure. */
static int load(const uint8_t *data, size_t size, bool threaded, bool raw, struct branch_counts *c)
{
	struct perfdata *p = NULL;
	struct branch_agg *a = NULL;
	struct branch_load_info info;
	struct branch_result r = BRANCH_RESULT_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	int ret = fuzz_check_ret(perfdata_open(&p, data, size, "fuzz.data",
						   PERFDATA_OPEN_UNFINISHED | (raw ? PERFDATA_OPEN_RAW_BRANCHES : 0), &err),
				 &err);

	if (!ret)
		ret = fuzz_check_ret(branch_agg_new(&a, &err), &err);
	if (!ret)
		ret = fuzz_check_ret(LOAD(p, a, threaded, &info, &err), &err);
	if (!ret) {
		FUZZ_CHECK(info.nr_branch_attrs <= info.nr_attrs && info.spe.branch_records <= info.spe.records);
		ret = fuzz_check_ret(branch_agg_finish(a, &r, &err), &err);
		for (size_t i = 0; !ret && i < r.nr_sites; i++)
			FUZZ_CHECK(branch_site_rate(&r.sites[i]) >= 0 && branch_site_rate(&r.sites[i]) <= 1);
		*c = r.counts;
		branch_result_release(&r);
	}
	branch_agg_free(a);
	perfdata_close(p);
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct branch_counts one, two;

	if (!load(data, size, false, false, &one) && !load(data, size, LOAD_MODES > 1, true, &two))
		FUZZ_CHECK(memcmp(&one, &two, sizeof(one)) == 0);
	return 0;
}
