/*
 * test-perfdata-corrupt: truncated and corrupted perf.data files never crash or
 * hang the reader: they give TDP_EFORMAT or TDP_ELIMIT with a message naming the
 * file and a byte offset (or, for a corruption that keeps the file well formed,
 * read to the end). Run under ASan+UBSan this is the memory-safety check.
 *
 * Inputs: the committed pipe-mode recording (always) and the real file-mode
 * recordings in ../shared/data/perfdata/ (when present).
 *   - truncation at every length of a small file, and for the larger ones at every
 *     record boundary, one byte either side of it and in the middle of each record;
 *   - many random byte changes, half of them aimed at the structure (header,
 *     attrs, feature index, record headers);
 *   - allocation failure at every allocation of perfdata_open() and the iteration.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "base/err.h"
#include "perfdata/perfdata.h"
#include "pdtest.h"

#include <inttypes.h>

#define FLIPS 4000
#define MAX_CUT_RECORDS 1500 /* records cut per file: all of them, or evenly spaced ones */

struct input {
	const char *label;     /* the name given to the reader, checked in messages */
	uint8_t *buf;
	size_t len;
	bool pipe;
	uint64_t *recs;        /* record offsets of the clean file */
	size_t nr_recs;
	uint64_t data_off;
};

/* Read everything; at most one pass over the records, so it cannot hang. */
static int read_all(const uint8_t *buf, size_t len, const char *name, struct tdp_err *err,
		    size_t *records)
{
	struct perfdata *p = NULL;
	struct perfdata_record r;
	size_t guard = len / 8 + 2, n = 0;
	int ret = perfdata_open(&p, buf, len, name, 0, err);

	while (!ret && (ret = perfdata_next(p, &r, err)) > 0) {
		ret = 0;
		if (++n > guard)
			fail_msg("%s: more records than bytes allow (a loop?)", name);
	}
	perfdata_close(p);
	if (records)
		*records = n;
	return ret;
}

static void expect_clean_error(int ret, const struct tdp_err *err, const char *name, size_t at)
{
	char quoted[256];

	if (ret != TDP_EFORMAT && ret != TDP_ELIMIT)
		fail_msg("%s (cut/changed at %zu): got %d '%s'", name, at, ret, err->msg);
	snprintf(quoted, sizeof(quoted), "'%s': ", name);
	if (strncmp(err->msg, quoted, strlen(quoted)) || !strstr(err->msg, "offset 0x"))
		fail_msg("%s (at %zu): message lacks the file or the offset: '%s'", name, at, err->msg);
}

static bool load(struct input *in, const char *path, const char *label)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct perfdata *p = NULL;
	struct perfdata_record r;
	size_t alloc = 0;

	memset(in, 0, sizeof(*in));
	in->label = label;
	in->buf = pdtest_read(path, &in->len);
	if (!in->buf)
		return false;
	if (perfdata_open(&p, in->buf, in->len, label, 0, &err))
		fail_msg("%s", err.msg);
	in->pipe = perfdata_is_pipe(p);
	in->data_off = perfdata_data_offset(p);
	while (perfdata_next(p, &r, &err) > 0) {
		if (TDP_GROW(in->recs, alloc, in->nr_recs + 1))
			fail_msg("out of memory");
		in->recs[in->nr_recs++] = r.offset;
	}
	assert_int_equal(err.code, 0);
	perfdata_close(p);
	return true;
}

static void unload(struct input *in)
{
	tdp_free(in->buf);
	tdp_free(in->recs);
}

/*
 * A cut file-mode file always fails (its features end at the end of the file).
 * A cut pipe stream is a shorter valid stream when cut at a record boundary (perf
 * reads it too) and fails when cut inside a record.
 */
static void truncate_at(const struct input *in, size_t cut)
{
	struct tdp_err err = TDP_ERR_INIT;
	size_t records = 0;
	bool boundary = false;
	int ret;

	for (size_t i = 0; i < in->nr_recs; i++)
		boundary |= in->recs[i] == cut;
	boundary |= in->pipe && cut == in->len;
	ret = read_all(in->buf, cut, in->label, &err, &records);
	if (in->pipe && (boundary || cut == 16)) {
		if (ret)
			fail_msg("%s cut at record boundary %zu: %s", in->label, cut, err.msg);
		return;
	}
	expect_clean_error(ret, &err, in->label, cut);
}

/*
 * File mode, cut inside the data section with a header that agrees (data size
 * shortened, no features): the records decide. A cut at a record boundary is a
 * shorter valid file; a cut inside a record names that record's offset.
 */
static void cut_data_at(const struct input *in, uint8_t *copy, size_t cut)
{
	struct tdp_err err = TDP_ERR_INIT;
	uint64_t dsize = cut - in->data_off;
	bool boundary = false;
	int ret;

	for (size_t i = 0; i < in->nr_recs; i++)
		boundary |= in->recs[i] == cut;
	memcpy(copy + 48, &dsize, 8);
	ret = read_all(copy, cut, in->label, &err, NULL);
	if (boundary && ret)
		fail_msg("%s: data cut at record boundary %zu: %s", in->label, cut, err.msg);
	if (!boundary)
		expect_clean_error(ret, &err, in->label, cut);
}

static void data_cuts(const struct input *in)
{
	uint8_t *copy = tdp_malloc(in->len);

	assert_non_null(copy);
	memcpy(copy, in->buf, in->len);
	memset(copy + 72, 0, 32); /* no features */
	for (size_t i = 0; i < in->nr_recs; i += in->nr_recs / MAX_CUT_RECORDS + 1) {
		uint64_t at = in->recs[i];
		uint64_t next = i + 1 < in->nr_recs ? in->recs[i + 1] : at + 8;

		if (at > in->data_off)
			cut_data_at(in, copy, (size_t)at);
		cut_data_at(in, copy, (size_t)at + 1);
		cut_data_at(in, copy, (size_t)at + 7);
		cut_data_at(in, copy, (size_t)(at + (next - at) / 2));
		if (next - at > 9)
			cut_data_at(in, copy, (size_t)next - 1);
	}
	tdp_free(copy);
}

static void truncations(const struct input *in, bool every_byte)
{
	if (!in->pipe)
		data_cuts(in);
	if (every_byte) {
		for (size_t cut = 0; cut < in->len; cut++)
			truncate_at(in, cut);
		return;
	}
	for (size_t cut = 0; cut <= in->data_off && cut < in->len; cut++)
		truncate_at(in, cut);
	for (size_t i = 0; i < in->nr_recs; i += in->nr_recs / MAX_CUT_RECORDS + 1) {
		uint64_t at = in->recs[i], next = i + 1 < in->nr_recs ? in->recs[i + 1] : at + 8;

		truncate_at(in, (size_t)at);
		truncate_at(in, (size_t)at + 1);
		truncate_at(in, (size_t)at - 1);
		truncate_at(in, (size_t)(at + (next - at) / 2));
	}
	for (size_t cut = in->len > 4096 ? in->len - 4096 : 0; cut < in->len; cut += 7)
		truncate_at(in, cut);
}

/* xorshift64: a fixed, seeded sequence so that a failure can be replayed */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void flips(const struct input *in, uint64_t seed)
{
	uint8_t *copy = tdp_malloc(in->len);
	size_t ok = 0, failed = 0;

	assert_non_null(copy);
	memcpy(copy, in->buf, in->len);
	for (int iter = 0; iter < FLIPS; iter++) {
		size_t pos[4];
		int n = 1 + (int)(rnd(&seed) % 4);
		struct tdp_err err = TDP_ERR_INIT;
		int ret;

		for (int k = 0; k < n; k++) {
			if (iter % 2 && in->nr_recs) {
				/* aim at structure: the header region or a record's first 16 bytes */
				uint64_t base = rnd(&seed) % 3 == 0 ? 0 : in->recs[rnd(&seed) % in->nr_recs];
				uint64_t span = base == 0 ? in->data_off + 16 : 16;

				pos[k] = (size_t)((base + rnd(&seed) % span) % in->len);
			} else {
				pos[k] = (size_t)(rnd(&seed) % in->len);
			}
			copy[pos[k]] = (uint8_t)rnd(&seed);
		}
		ret = read_all(copy, in->len, in->label, &err, NULL);
		if (ret) {
			expect_clean_error(ret, &err, in->label, pos[0]);
			failed++;
		} else {
			ok++;
		}
		for (int k = 0; k < n; k++)
			copy[pos[k]] = in->buf[pos[k]];
	}
	/* both outcomes must have happened, or the mutations did not reach the parser */
	assert_true(ok > 0);
	assert_true(failed > 0);
	tdp_free(copy);
}

static void alloc_failures(const struct input *in)
{
	long n;

	for (n = 0;; n++) {
		struct tdp_err err = TDP_ERR_INIT;
		int ret;

		tdp_alloc_fail_after(n);
		ret = read_all(in->buf, in->len, in->label, &err, NULL);
		tdp_alloc_fail_after(-1);
		if (!ret)
			break;
		if (ret != TDP_ENOMEM)
			fail_msg("%s: allocation %ld failed gave %d '%s'", in->label, n, ret, err.msg);
		assert_true(n < 100000);
	}
	assert_true(n > 0);
}

static void pipe_fixture(void **state)
{
	struct input in;
	char path[4096];

	(void)state;
	assert_true(load(&in, pdtest_local(path, sizeof(path), "cpu-clock.pipe"), "cpu-clock.pipe"));
	assert_true(in.pipe);
	truncations(&in, true);
	flips(&in, 0x9e3779b97f4a7c15ull);
	alloc_failures(&in);
	unload(&in);
}

static void shared_fixture(void **state)
{
	const char *name = *state;
	struct input in;
	char path[4096];
	bool small;

	if (!pdtest_have_shared())
		skip();
	assert_true(load(&in, pdtest_shared(path, sizeof(path), name), name));
	small = in.len < 64 * 1024;
	truncations(&in, small);
	flips(&in, 0x2545f4914f6cdd1dull ^ in.len);
	if (small)
		alloc_failures(&in);
	unload(&in);
}

int main(void)
{
	struct CMUnitTest tests[PDTEST_NR_FIXTURES + 1];
	size_t n = 0;

	tests[n++] = (struct CMUnitTest)cmocka_unit_test(pipe_fixture);
	for (size_t i = 0; i < PDTEST_NR_FIXTURES; i++) {
		struct CMUnitTest t = { pdtest_fixtures[i], shared_fixture, NULL, NULL,
					(void *)pdtest_fixtures[i] };

		tests[n++] = t;
	}
	return _cmocka_run_group_tests("perfdata-corrupt", tests, n, NULL, NULL);
}
