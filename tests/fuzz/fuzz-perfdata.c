/*
 * fuzz-perfdata.c: a whole perf.data image, file or pipe mode
 * (perfdata/perfdata.h: perfdata_open, then every record with perfdata_next),
 * read as finished and as an unfinished recording; and the input as the records
 * of a pipe-mode stream (a pipe header put in front of it), read strictly and
 * with PERFDATA_OPEN_PARTIAL: the strict read fails where the partial read stops
 * early, and both yield the same records up to there.
 */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "perfdata/perfdata.h"

static volatile uint64_t sink; /* keeps the reads of decoded arrays */

struct outcome {
	int ret;                 /* of perfdata_open(), else of the last perfdata_next() */
	uint64_t records, tail, tail_bytes;
};

static struct outcome read_all(const uint8_t *data, size_t size, unsigned flags)
{
	struct outcome o = { 0, 0, 0, 0 };
	struct perfdata *p = NULL;
	struct perfdata_record rec;
	struct tdp_err err = TDP_ERR_INIT;
	const uint8_t *blob;
	size_t len;
	int ret = fuzz_check_ret(perfdata_open(&p, data, size, "fuzz.data", flags, &err), &err);

	if (ret) {
		FUZZ_CHECK(p == NULL);
		o.ret = ret;
		return o;
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
	o.ret = ret;
	o.records = perfdata_stats(p)->records;
	o.tail = perfdata_stats(p)->unfinished_tail;
	o.tail_bytes = perfdata_stats(p)->tail_bytes;
	if (o.tail)
		FUZZ_CHECK(o.tail + o.tail_bytes == size && ret == 0);
	perfdata_close(p);
	return o;
}

/* The input as the records of a pipe stream. */
static void read_pipe(const uint8_t *data, size_t size)
{
	static const uint8_t hdr[16] = { 'P', 'E', 'R', 'F', 'I', 'L', 'E', '2', 16 };
	uint8_t *img = malloc(size + sizeof(hdr));
	struct outcome strict, partial;

	if (!img)
		return;
	memcpy(img, hdr, sizeof(hdr));
	if (size)
		memcpy(img + sizeof(hdr), data, size);
	strict = read_all(img, size + sizeof(hdr), 0);
	{
		/* the checks made as a stream arrives (13 bytes at a time) refuse nothing the reader reads */
		struct perfdata_stream st = PERFDATA_STREAM_INIT;
		struct tdp_err err = TDP_ERR_INIT;
		size_t n = size + sizeof(hdr);
		int ret = 0;

		for (size_t got = 13; !ret; got += 13) {
			ret = perfdata_stream_check(&st, img, got < n ? got : n, n, got >= n, "fuzz.data", 0, &err);
			if (got >= n)
				break;
		}
		if (ret && ret != TDP_ENOMEM)
			FUZZ_CHECK(strict.ret < 0 && err.msg[0]);
	}
	partial = read_all(img, size + sizeof(hdr), PERFDATA_OPEN_PARTIAL);
	if (partial.ret == 0 && partial.tail) {
		/* what the partial read skipped, the strict read refuses */
		FUZZ_CHECK(strict.ret < 0 && strict.records <= partial.records);
	} else if (strict.ret == 0 && partial.ret != TDP_ENOMEM) {
		FUZZ_CHECK(partial.ret == 0 && partial.records == strict.records);
	}
	free(img);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	read_all(data, size, 0);
	read_all(data, size, PERFDATA_OPEN_UNFINISHED);
	read_all(data, size, PERFDATA_OPEN_PARTIAL);
	read_pipe(data, size);
	return 0;
}
