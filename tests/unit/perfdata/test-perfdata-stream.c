/*
 * test-perfdata-stream: a pipe-mode perf.data read as it arrives
 * (perfdata_open_stream) decodes to what the same bytes decode to in memory
 * (perfdata_open), however the reads split it; a stream far longer than any
 * buffer is decoded with the buffer bounded by the largest record (the reader's
 * own accounting, perfdata_stats()->buffer_peak); damaged and cut streams fail
 * (or, with PERFDATA_OPEN_PARTIAL, stop) where and as the in-memory reader does.
 * The stream is tests/data/perfdata/cpu-clock.pipe (perf 6.1's perf record -o -),
 * its event records repeated to make it long.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "base/err.h"
#include "perfdata/perfdata.h"
#include "pdtest.h"

#include <errno.h>
#include <inttypes.h>

/* The bound the reader promises: two of the largest records (one being decoded, one arriving). */
#define BOUND (2 * ((size_t)PERFDATA_MAX_RECORD + 1))

static uint8_t *fixture;
static size_t fixture_len;
static size_t events_at; /* offset of the first record that is not a header record */

/*
 * A generator of stream bytes: head[0..head_len), then body[0..body_len) `repeat`
 * times, then tail[0..tail_len); each read returns at most the next of chunks[].
 * Nothing is stored: the stream may be as long as wanted.
 */
struct gen {
	const uint8_t *head, *body, *tail;
	size_t head_len, body_len, tail_len;
	uint64_t repeat;
	uint64_t at;        /* bytes handed out */
	const size_t *chunks;
	size_t nr_chunks, next_chunk;
	uint64_t fail_at;   /* return -EIO once at reaches it (0: never) */
};

static uint64_t gen_total(const struct gen *g)
{
	return g->head_len + g->repeat * g->body_len + g->tail_len;
}

static long gen_read(void *ctx, uint8_t *buf, size_t len)
{
	struct gen *g = ctx;
	size_t n = 0, want = g->nr_chunks ? g->chunks[g->next_chunk++ % g->nr_chunks] : len;

	if (g->fail_at && g->at >= g->fail_at)
		return -EIO;
	if (want > len)
		want = len;
	while (n < want && g->at < gen_total(g)) {
		const uint8_t *src;
		uint64_t off = g->at, room;

		if (off < g->head_len) {
			src = g->head + off;
			room = g->head_len - off;
		} else if (off < g->head_len + g->repeat * g->body_len) {
			uint64_t in = (off - g->head_len) % g->body_len;

			src = g->body + in;
			room = g->body_len - in;
		} else {
			uint64_t in = off - g->head_len - g->repeat * g->body_len;

			src = g->tail + in;
			room = g->tail_len - in;
		}
		if (room > want - n)
			room = want - n;
		memcpy(buf + n, src, (size_t)room);
		n += (size_t)room;
		g->at += room;
	}
	return (long)n;
}

/* What a reader yields, summed up. */
struct tally {
	int ret;
	uint64_t records, samples, ip_sum, off_sum, bytes;
	uint64_t tail, tail_bytes, peak;
	char msg[TDP_ERR_MSG_MAX];
};

static void drain(struct perfdata *p, struct tally *t)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct perfdata_record r;

	while ((t->ret = perfdata_next(p, &r, &err)) > 0) {
		t->records++;
		t->off_sum += r.offset;
		t->bytes += r.raw_len;
		if (r.type == PERFDATA_RECORD_SAMPLE && r.attr) {
			t->samples++;
			t->ip_sum += r.u.sample.ip;
		}
	}
	snprintf(t->msg, sizeof(t->msg), "%s", err.msg);
	t->tail = perfdata_stats(p)->unfinished_tail;
	t->tail_bytes = perfdata_stats(p)->tail_bytes;
	t->peak = perfdata_stats(p)->buffer_peak;
}

static struct tally read_image(const uint8_t *img, size_t len, unsigned flags)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct perfdata *p = NULL;
	struct tally t = { 0 };

	t.ret = perfdata_open(&p, img, len, "s.data", flags, &err);
	if (t.ret) {
		snprintf(t.msg, sizeof(t.msg), "%s", err.msg);
		return t;
	}
	drain(p, &t);
	perfdata_close(p);
	return t;
}

static struct tally read_stream(struct gen *g, unsigned flags)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct perfdata *p = NULL;
	struct tally t = { 0 };

	t.ret = perfdata_open_stream(&p, gen_read, g, "s.data", flags, &err);
	if (t.ret) {
		snprintf(t.msg, sizeof(t.msg), "%s", err.msg);
		return t;
	}
	drain(p, &t);
	perfdata_close(p);
	return t;
}

static void expect_same(const struct tally *a, const struct tally *b)
{
	assert_int_equal(a->ret, b->ret);
	assert_string_equal(a->msg, b->msg);
	assert_int_equal(a->records, b->records);
	assert_int_equal(a->samples, b->samples);
	assert_int_equal(a->ip_sum, b->ip_sum);
	assert_int_equal(a->off_sum, b->off_sum);
	assert_int_equal(a->bytes, b->bytes);
	assert_int_equal(a->tail, b->tail);
	assert_int_equal(a->tail_bytes, b->tail_bytes);
}

static int setup(void **state)
{
	char path[4096];
	struct tdp_err err = TDP_ERR_INIT;
	struct perfdata *p = NULL;
	struct perfdata_record r;

	(void)state;
	fixture = pdtest_read(pdtest_local(path, sizeof(path), "cpu-clock.pipe"), &fixture_len);
	if (!fixture || perfdata_open(&p, fixture, fixture_len, path, 0, &err))
		return -1;
	while (perfdata_next(p, &r, &err) > 0)
		if (!events_at && r.type < PERFDATA_RECORD_USER_TYPE_START)
			events_at = r.offset;
	perfdata_close(p);
	return events_at ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	tdp_free(fixture);
	return 0;
}

/* The fixture read in reads of 1, 7, 13, 4096 and 70000 bytes: as in memory. */
static void stream_equals_image(void **state)
{
	static const size_t chunks[][3] = { { 1, 1, 1 }, { 7, 1, 13 }, { 4096, 4096, 4096 }, { 70000, 3, 70000 } };
	struct tally want = read_image(fixture, fixture_len, 0);

	(void)state;
	assert_int_equal(want.ret, 0);
	assert_int_equal(want.samples, 124);
	for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		struct gen g = { .head = fixture, .head_len = fixture_len, .chunks = chunks[i], .nr_chunks = 3 };
		struct tally got = read_stream(&g, 0);

		expect_same(&got, &want);
		assert_int_equal(g.at, fixture_len);
		assert_true(got.peak > 0 && got.peak <= BOUND);
	}
}

/* Some 100 MB of records (the event records repeated 20,000 times): every one decoded, the buffer bounded. */
static void long_stream_bounded(void **state)
{
	static const size_t chunks[] = { 65536, 100, 65536 * 3 };
	struct gen g = { .head = fixture, .head_len = events_at, .body = fixture + events_at,
			 .body_len = fixture_len - events_at, .repeat = 20000, .chunks = chunks, .nr_chunks = 3 };
	struct tally once = read_image(fixture, fixture_len, 0), got;
	uint64_t header_records;
	struct tally head = read_image(fixture, events_at, 0);

	(void)state;
	header_records = head.records;
	got = read_stream(&g, 0);
	assert_int_equal(got.ret, 0);
	assert_int_equal(g.at, gen_total(&g));
	assert_true(gen_total(&g) > 250 * BOUND);
	assert_int_equal(got.samples, once.samples * g.repeat);
	assert_int_equal(got.ip_sum, once.ip_sum * g.repeat);
	assert_int_equal(got.records, header_records + (once.records - header_records) * g.repeat);
	assert_int_equal(got.bytes, gen_total(&g) - 16);
	assert_true(got.peak <= BOUND);
}

/* Cut at and inside every record, and a zero size at every record: the in-memory reader's errors and tails. */
static void damaged_like_image(void **state)
{
	static const size_t chunks[] = { 5, 4096, 1 };
	uint8_t *img = tdp_malloc(fixture_len);
	struct tdp_err err = TDP_ERR_INIT;
	struct perfdata *p = NULL;
	struct perfdata_record r;
	uint64_t offs[512];
	size_t nr = 0;

	(void)state;
	assert_non_null(img);
	assert_int_equal(perfdata_open(&p, fixture, fixture_len, "f", 0, &err), 0);
	while (nr < 512 && perfdata_next(p, &r, &err) > 0)
		offs[nr++] = r.offset;
	perfdata_close(p);
	for (size_t i = 0; i < nr; i++) {
		size_t cuts[] = { (size_t)offs[i] + 3, (size_t)offs[i] + 9 };

		for (size_t c = 0; c < 2; c++) {
			for (unsigned flags = 0; flags <= PERFDATA_OPEN_PARTIAL; flags += PERFDATA_OPEN_PARTIAL) {
				struct gen g = { .head = fixture, .head_len = cuts[c], .chunks = chunks, .nr_chunks = 3 };
				struct tally want = read_image(fixture, cuts[c], flags);
				struct tally got = read_stream(&g, flags);

				expect_same(&got, &want);
				if (!flags && want.ret < 0)
					assert_non_null(strstr(got.msg, "offset 0x"));
			}
		}
		/* size 0 at record i, then 64 KiB more of the stream */
		memcpy(img, fixture, fixture_len);
		memset(img + offs[i] + 6, 0, 2);
		for (unsigned flags = 0; flags <= PERFDATA_OPEN_PARTIAL; flags += PERFDATA_OPEN_PARTIAL) {
			struct gen g = { .head = img, .head_len = fixture_len, .chunks = chunks, .nr_chunks = 3 };
			struct tally want = read_image(img, fixture_len, flags);
			struct tally got = read_stream(&g, flags);

			expect_same(&got, &want);
			assert_true(flags ? got.tail == offs[i] : got.ret < 0);
		}
	}
	tdp_free(img);
}

/* An AUXTRACE with a 3 MB payload amid the stream: read whole, the buffer grows for it only. */
static void payload_grows_the_buffer(void **state)
{
	static const size_t chunks[] = { 65536 };
	size_t pay = 3u << 20, mid = events_at;
	size_t len = fixture_len + 48 + pay;
	uint8_t *img = tdp_calloc(1, len);
	struct tally want, got;
	uint8_t hdr[48] = { 0 };

	(void)state;
	assert_non_null(img);
	hdr[0] = PERFDATA_RECORD_AUXTRACE;
	hdr[6] = 48;
	memcpy(hdr + 8, &(uint64_t){ pay }, 8);
	memcpy(img, fixture, mid);
	memcpy(img + mid, hdr, 48);
	memcpy(img + mid + 48 + pay, fixture + mid, fixture_len - mid);
	want = read_image(img, len, 0);
	{
		struct gen g = { .head = img, .head_len = len, .chunks = chunks, .nr_chunks = 1 };

		got = read_stream(&g, 0);
	}
	expect_same(&got, &want);
	assert_int_equal(got.ret, 0);
	assert_true(got.peak >= pay + 48 && got.peak <= pay + 48 + BOUND);
	tdp_free(img);
}

/* Zeros, a file-mode header, a read error: refused early, with the messages of perfdata_open(). */
static void bad_starts(void **state)
{
	static const uint8_t zeros[4096];
	struct gen z = { .body = zeros, .body_len = sizeof(zeros), .repeat = 1u << 20 };
	struct gen e = { .head = fixture, .head_len = fixture_len, .fail_at = events_at + 100,
			 .chunks = (const size_t[]){ 64 }, .nr_chunks = 1 };
	struct tally t;

	(void)state;
	t = read_stream(&z, 0);
	assert_int_equal(t.ret, TDP_EFORMAT);
	assert_non_null(strstr(t.msg, "not a perf.data file: bad magic at offset 0x0"));
	assert_true(z.at <= BOUND); /* one read, not the 4 GB on offer */
	t = read_stream(&e, 0);
	assert_int_equal(t.ret, TDP_EIO);
	assert_non_null(strstr(t.msg, "cannot read the stream at offset 0x"));
}

/* An AUXTRACE claiming 1 TiB: refused before it is read; with PERFDATA_OPEN_PARTIAL the data ends there. */
static void huge_payload(void **state)
{
	static const uint8_t zeros[4096];
	uint8_t head[16 + 48] = { 'P', 'E', 'R', 'F', 'I', 'L', 'E', '2', 16 };
	struct gen g = { .head = head, .head_len = sizeof(head), .body = zeros, .body_len = sizeof(zeros), .repeat = 100 };
	struct tally t;

	(void)state;
	head[16] = PERFDATA_RECORD_AUXTRACE;
	head[16 + 6] = 48;
	memcpy(head + 16 + 8, &(uint64_t){ 1ull << 40 }, 8);
	t = read_stream(&g, 0);
	assert_int_equal(t.ret, TDP_ELIMIT);
	assert_non_null(strstr(t.msg, "record at offset 0x10: AUXTRACE payload of 1099511627776 bytes runs past the limit"));
	assert_true(g.at <= BOUND);
	g.at = 0;
	t = read_stream(&g, PERFDATA_OPEN_PARTIAL);
	assert_int_equal(t.ret, 0);
	assert_int_equal(t.records, 0);
	assert_int_equal(t.tail, 16);
	assert_int_equal(t.tail_bytes, gen_total(&g) - 16);
	assert_true(t.peak <= BOUND);
}

/* A short stream whose TRACING_DATA claims 600 MB: memory follows the bytes that came, not the claim. */
static void claim_costs_nothing(void **state)
{
	/* a COMM first, so that perfdata_open() is done and perfdata_next() meets the claim */
	uint8_t img[16 + 16 + 12 + 280] = { 'P', 'E', 'R', 'F', 'I', 'L', 'E', '2', 16 };
	struct gen g = { .head = img, .head_len = sizeof(img) };
	struct tally t;

	(void)state;
	img[16] = PERFDATA_RECORD_COMM;
	img[16 + 6] = 16;
	img[32] = PERFDATA_RECORD_HEADER_TRACING_DATA;
	img[32 + 6] = 12;
	memcpy(img + 32 + 8, &(uint32_t){ 600u << 20 }, 4);
	t = read_stream(&g, 0);
	assert_int_equal(t.ret, TDP_EFORMAT);
	assert_int_equal(t.records, 1);
	assert_non_null(strstr(t.msg, "record at offset 0x20: TRACING_DATA payload of 629145600 bytes runs past the end"));
	assert_true(t.peak > 0 && t.peak <= 2 * BOUND); /* not 600 MB */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stream_equals_image),
		cmocka_unit_test(long_stream_bounded),
		cmocka_unit_test(damaged_like_image),
		cmocka_unit_test(payload_grows_the_buffer),
		cmocka_unit_test(bad_starts),
		cmocka_unit_test(huge_payload),
		cmocka_unit_test(claim_costs_nothing),
	};

	return cmocka_run_group_tests_name("perfdata-stream", tests, setup, teardown);
}
