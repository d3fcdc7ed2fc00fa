/*
 * fuzz-perfdata.c: a whole perf.data image, file or pipe mode
 * (perfdata/perfdata.h: perfdata_open, then every record with perfdata_next),
 * read as finished and as an unfinished recording.
 */
#include "fuzz.h"

#include "base/err.h"
#include "perfdata/perfdata.h"

static volatile uint64_t sink; /* keeps the reads of decoded arrays */

static void read_all(const uint8_t *data, size_t size, unsigned flags)
{
	struct perfdata *p = NULL;
	struct perfdata_record rec;
	struct tdp_err err = TDP_ERR_INIT;
	const uint8_t *blob;
	size_t len;
	int ret = fuzz_check_ret(perfdata_open(&p, data, size, "fuzz.data", flags, &err), &err);

	if (ret) {
		FUZZ_CHECK(p == NULL);
		return;
	}
	for (size_t i = 0; i < perfdata_nr_attrs(p); i++)
		FUZZ_CHECK(perfdata_attr(p, i) && perfdata_attr(p, i)->raw_size >= 64);
	for (unsigned f = 0; f < PERFDATA_FEAT_BITS; f++)
		if (perfdata_feature_raw(p, f, &blob, &len))
			FUZZ_CHECK(blob >= data && len <= size && blob + len <= data + size);
	while ((ret = perfdata_next(p, &rec, &err)) > 0) {
		const struct perfdata_sample *s = &rec.u.sample;

		FUZZ_CHECK(rec.raw >= data && rec.raw_len <= size && rec.raw + rec.raw_len <= data + size);
		if (rec.type != PERFDATA_RECORD_SAMPLE || !rec.attr)
			continue;
		FUZZ_CHECK(s->nr_branches <= BRSTACK_MAX_NR && s->nr_callchain <= PERFDATA_MAX_CALLCHAIN);
		for (size_t i = 0; i < s->nr_branches; i++)
			sink += s->branches[i].from ^ s->branches[i].to ^ s->branches[i].cycles;
		for (size_t i = 0; i < s->nr_callchain; i++)
			sink += s->callchain[i];
	}
	fuzz_check_ret(ret < 0 ? ret : 0, &err);
	FUZZ_CHECK(ret == 0 || perfdata_next(p, &rec, &err) == ret); /* errors stick */
	FUZZ_CHECK(perfdata_features(p) && perfdata_stats(p));
	FUZZ_CHECK(perfdata_stats(p)->samples <= perfdata_stats(p)->records);
	perfdata_close(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	read_all(data, size, 0);
	read_all(data, size, PERFDATA_OPEN_UNFINISHED);
	return 0;
}
