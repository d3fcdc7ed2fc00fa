/*
 * fuzz-branch-load.c: a perf.data through what 'tdprof branches report' does
 * before symbolization (branch/branch.h: perfdata_open, branch_load with its
 * Arm SPE decoding, branch_agg_finish), on one thread with the entries decoded
 * by the reader and, where branch_load() can aggregate on a second one, on two
 * with the entries left in the record (PERFDATA_OPEN_RAW_BRANCHES, decoded by
 * branch_agg_add_raw(), as the command does): when both succeed their counts agree.
 * The plain samples (events without branch stacks) go to branch/ips.h on the
 * first load and are ranked with an annotator that has no maps (so no binary the
 * input names is opened): every sample is counted once, each table adds up.
 */
#include "fuzz.h"

#include <string.h>

#include "base/err.h"
#include "branch/annotate.h"
#include "branch/branch.h"
#include "branch/ips.h"
#include "perfdata/perfdata.h"

#ifdef BRANCH_CHUNK_ENTRIES /* branch_load() takes options */
#define LOAD(p, a, threaded, info, err) \
	branch_load(p, a, &(struct branch_load_opts){ .threaded = threaded, .on_record = ips ? ips_agg_record : NULL, \
						      .ctx = ips, .on_plain_sample = ips ? ips_agg_sample : NULL, \
						      .sample_ctx = ips }, info, err)
#define LOAD_MODES 2
#else
#define LOAD(p, a, threaded, info, err) ((void)(threaded), branch_load(p, a, NULL, NULL, info, err))
#define LOAD_MODES 1
#endif

/* Rank the plain samples and check that the tables add up. */
static void plain(struct ips_agg *ips)
{
	struct branch_annot_opts ao;
	struct branch_annot *an = NULL;
	struct ips_result r = IPS_RESULT_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	uint64_t self = 0, folded = 0;

	branch_annot_opts_init(&ao);
	ao.lines = ao.disasm = ao.types = false;
	if (fuzz_check_ret(branch_annot_new(&an, &ao, &err), &err))
		return;
	if (!fuzz_check_ret(ips_agg_finish(ips, an, &r, &err), &err)) {
		for (size_t i = 0; i < r.nr_functions; i++) {
			FUZZ_CHECK(r.functions[i].self <= r.functions[i].total && r.functions[i].total <= r.samples);
			self += r.functions[i].self;
		}
		for (size_t i = 0; i < r.nr_stacks; i++)
			folded += r.stacks[i].samples;
		FUZZ_CHECK(self == r.samples && folded == r.samples && r.with_callchain <= r.samples);
		ips_result_release(&r);
	}
	branch_annot_free(an);
}

/* Load data into *c (plain samples into ips when not NULL); returns 0 or the failure. */
static int load(const uint8_t *data, size_t size, bool threaded, bool raw, struct branch_counts *c,
		struct ips_agg *ips)
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
		if (!ret && ips) {
			FUZZ_CHECK(ips_agg_samples(ips) <= c->samples);
			plain(ips); /* while the reader (which owns the attrs) is open */
		}
	}
	branch_agg_free(a);
	perfdata_close(p);
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct branch_counts one, two;
	struct ips_agg *ips = NULL;
	struct tdp_err err = TDP_ERR_INIT;

	if (fuzz_check_ret(ips_agg_new(&ips, &err), &err))
		return 0;
	if (!load(data, size, false, false, &one, ips)) {
		if (!load(data, size, LOAD_MODES > 1, true, &two, NULL))
			FUZZ_CHECK(memcmp(&one, &two, sizeof(one)) == 0);
	}
	ips_agg_free(ips);
	return 0;
}
