/*
 * fuzz-perfdata-stream.c: a perf.data arriving on a pipe (perfdata/perfdata.h:
 * perfdata_open_stream, then every record with perfdata_next), the input both as
 * given and as the records of a pipe-mode stream (a pipe header put in front),
 * read in pieces whose sizes the input's first byte chooses (1 byte to 64 KiB,
 * as a pipe delivers them). The streaming reader must agree with the in-memory
 * reader (perfdata_open on the same bytes): the same outcome and message, the
 * same records at the same offsets, the same place and tail for a damaged
 * stream with PERFDATA_OPEN_PARTIAL; and its buffer stays within two of the
 * largest records plus twice the bytes that arrived (never a size a record claims).
 */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "perfdata/perfdata.h"

struct outcome {
	int ret;
	uint64_t records, off_sum, len_sum, tail, tail_bytes, peak;
	char msg[TDP_ERR_MSG_MAX];
};

struct src {
	const uint8_t *data;
	size_t size, at, step;
};

static long src_read(void *ctx, uint8_t *buf, size_t len)
{
	struct src *s = ctx;
	size_t n = s->size - s->at;

	if (n > len)
		n = len;
	if (n > s->step)
		n = s->step;
	memcpy(buf, s->data + s->at, n);
	s->at += n;
	/* vary the piece sizes as a pipe does */
	s->step = s->step * 7 % 65537 + 1;
	return (long)n;
}

static void walk(struct perfdata *p, struct outcome *o)
{
	struct perfdata_record rec;
	struct tdp_err err = TDP_ERR_INIT;
	int ret;

	while ((ret = perfdata_next(p, &rec, &err)) > 0) {
		o->records++;
		o->off_sum += rec.offset;
		o->len_sum += rec.raw_len;
	}
	fuzz_check_ret(ret < 0 ? ret : 0, &err);
	o->ret = ret;
	snprintf(o->msg, sizeof(o->msg), "%s", ret ? err.msg : "");
	o->tail = perfdata_stats(p)->unfinished_tail;
	o->tail_bytes = perfdata_stats(p)->tail_bytes;
	o->peak = perfdata_stats(p)->buffer_peak;
}

static struct outcome read_mem(const uint8_t *data, size_t size, unsigned flags)
{
	struct outcome o = { 0 };
	struct perfdata *p = NULL;
	struct tdp_err err = TDP_ERR_INIT;

	o.ret = fuzz_check_ret(perfdata_open(&p, data, size, "fuzz.data", flags, &err), &err);
	if (o.ret) {
		snprintf(o.msg, sizeof(o.msg), "%s", err.msg);
		return o;
	}
	walk(p, &o);
	perfdata_close(p);
	return o;
}

static struct outcome read_stream(const uint8_t *data, size_t size, unsigned flags, size_t step)
{
	struct outcome o = { 0 };
	struct perfdata *p = NULL;
	struct tdp_err err = TDP_ERR_INIT;
	struct src s = { data, size, 0, step };

	o.ret = fuzz_check_ret(perfdata_open_stream(&p, src_read, &s, "fuzz.data", flags, &err), &err);
	if (o.ret) {
		FUZZ_CHECK(p == NULL);
		snprintf(o.msg, sizeof(o.msg), "%s", err.msg);
		return o;
	}
	walk(p, &o);
	/* memory follows the bytes that arrived, never a size the stream claims */
	if (perfdata_is_pipe(p))
		FUZZ_CHECK(o.peak <= 2 * (PERFDATA_MAX_RECORD + 1) + 2 * (uint64_t)size);
	perfdata_close(p);
	return o;
}

static void compare(const uint8_t *data, size_t size, size_t step)
{
	for (unsigned flags = 0; flags <= PERFDATA_OPEN_PARTIAL; flags += PERFDATA_OPEN_PARTIAL) {
		struct outcome m = read_mem(data, size, flags);
		struct outcome s = read_stream(data, size, flags, step);

		if (m.ret == TDP_ENOMEM || s.ret == TDP_ENOMEM)
			continue; /* an injected allocation failure hits the two readers at different places */
		if (s.ret == TDP_ELIMIT && strstr(s.msg, "PERFDATA_STREAM_MAX_PAYLOAD")) {
			/* a payload claimed larger than a stream may hold is refused before it is read;
			 * in memory the same record runs past the end of the data */
			FUZZ_CHECK(m.ret < 0 && m.records == s.records);
			continue;
		}
		/* a file-mode image on a pipe is read whole: the readers are the same then */
		FUZZ_CHECK(m.ret == s.ret);
		FUZZ_CHECK(!strcmp(m.msg, s.msg));
		FUZZ_CHECK(m.records == s.records && m.off_sum == s.off_sum && m.len_sum == s.len_sum);
		FUZZ_CHECK(m.tail == s.tail && m.tail_bytes == s.tail_bytes);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t hdr[16] = { 'P', 'E', 'R', 'F', 'I', 'L', 'E', '2', 16 };
	size_t step = size ? (size_t)data[0] * 257 % 65536 + 1 : 1;
	uint8_t *img;

	compare(data, size, step);
	img = malloc(size + sizeof(hdr));
	if (!img)
		return 0;
	memcpy(img, hdr, sizeof(hdr));
	if (size)
		memcpy(img + sizeof(hdr), data, size);
	compare(img, size + sizeof(hdr), step);
	free(img);
	return 0;
}
