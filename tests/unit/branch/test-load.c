/*
 * test-load.c: branch_load() over a perf.data written here (perfdata-write.h):
 * the threaded mode (stacks handed in chunks to an aggregating thread) and the
 * prefault helper (pages mapped ahead, released behind) give exactly what one
 * thread gives; LOST, LOST_SAMPLES and samples without a stack are counted; an
 * allocation failing on the aggregating thread comes back as TDP_ENOMEM, without
 * a hang.
 *
 * The recording: 20,000 samples of 32 entries (640,000 entries: 40 chunks of
 * BRANCH_CHUNK_ENTRIES, so the ring of chunks wraps), made by a deterministic
 * generator over 3,000 distinct edges with timed entries, one sample in 97
 * without a branch stack (a second event), a LOST record of 5 and a
 * LOST_SAMPLES record of 7. Hand-computed: samples 20,000 + 207 (the samples
 * i % 97 == 0 of 20,000 get an extra stackless sample: i = 0, 97, ..., 19982 =
 * 97 x 206, that is 207 of them), entries 640,000, lost 5 + 7.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"
#include "branch/branch.h"
#include "perfdata/perfdata-write.h"
#include "perfdata/perfdata.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SAMPLES 20000
#define ENTRIES 32

static char path[64];

static size_t put_u64(uint8_t *b, size_t at, uint64_t v)
{
	memcpy(b + at, &v, 8);
	return at + 8;
}

static void header(uint8_t *b, uint32_t type, size_t size)
{
	uint16_t misc = PERFDATA_MISC_USER, sz = (uint16_t)size;

	memcpy(b, &type, 4);
	memcpy(b + 4, &misc, 2);
	memcpy(b + 6, &sz, 2);
}

static int write_file(struct tdp_err *err)
{
	struct perfdata_writer *w = NULL;
	uint8_t attr[128], rec[1024];
	uint64_t x = 12345, ids[2] = { 1, 2 };
	size_t at;
	int rc;

	memset(attr, 0, sizeof(attr));
	attr[4] = sizeof(attr);
	put_u64(attr, 24, PERFDATA_SAMPLE_IDENTIFIER | PERFDATA_SAMPLE_IP | PERFDATA_SAMPLE_TID |
				  PERFDATA_SAMPLE_BRANCH_STACK);
	put_u64(attr, 72, PERFDATA_BRANCH_ANY);
	rc = perfdata_writer_open(&w, path, err);
	if (!rc)
		rc = perfdata_writer_add_attr(w, attr, sizeof(attr), &ids[0], 1, "cycles", err);
	put_u64(attr, 24, PERFDATA_SAMPLE_IDENTIFIER | PERFDATA_SAMPLE_IP | PERFDATA_SAMPLE_TID);
	if (!rc)
		rc = perfdata_writer_add_attr(w, attr, sizeof(attr), &ids[1], 1, "instructions", err);
	/* LOST {id, lost} and LOST_SAMPLES {lost} */
	at = put_u64(rec, 8, 1);
	at = put_u64(rec, at, 5);
	header(rec, PERFDATA_RECORD_LOST, at);
	if (!rc)
		rc = perfdata_writer_add_record(w, rec, at, err);
	at = put_u64(rec, 8, 7);
	header(rec, PERFDATA_RECORD_LOST_SAMPLES, at);
	if (!rc)
		rc = perfdata_writer_add_record(w, rec, at, err);
	for (uint64_t i = 0; !rc && i < SAMPLES; i++) {
		at = put_u64(rec, 8, 1);             /* IDENTIFIER */
		at = put_u64(rec, at, 0x400000 + i);  /* IP */
		at = put_u64(rec, at, 77 | 77ull << 32); /* pid, tid */
		at = put_u64(rec, at, ENTRIES);
		for (int k = 0; k < ENTRIES; k++) {
			struct branch_entry e;
			uint64_t edge;

			x = x * 6364136223846793005ull + 1442695040888963407ull;
			edge = (x >> 33) % 3000;
			memset(&e, 0, sizeof(e));
			e.mispred = (x >> 20) % 13 == 0;
			e.predicted = !e.mispred;
			e.cycles = (uint16_t)((x >> 40) % 50);
			at = put_u64(rec, at, 0x401000 + edge * 16);
			at = put_u64(rec, at, 0x401000 + edge * 16 + 8 + (edge % 5) * 2);
			at = put_u64(rec, at, perfdata_branch_flags_encode(&e));
		}
		header(rec, PERFDATA_RECORD_SAMPLE, at);
		rc = perfdata_writer_add_record(w, rec, at, err);
		if (!rc && i % 97 == 0) {
			at = put_u64(rec, 8, 2);
			at = put_u64(rec, at, 0x400000);
			at = put_u64(rec, at, 77 | 77ull << 32);
			header(rec, PERFDATA_RECORD_SAMPLE, at);
			rc = perfdata_writer_add_record(w, rec, at, err);
		}
	}
	if (rc) {
		perfdata_writer_free(w);
		return rc;
	}
	return perfdata_writer_close(w, err);
}

/* Load the file; threaded and/or with the prefault helper; entries decoded by the reader or (raw) in the count. */
static int load_with(struct branch_result *r, bool threaded, bool prefault, bool raw, struct tdp_err *err)
{
	struct tdp_file f = TDP_FILE_INIT;
	struct perfdata *p = NULL;
	struct branch_agg *a = NULL;
	struct branch_prefault *pf = NULL;
	struct branch_load_opts o = { .threaded = threaded };
	int rc = tdp_file_open(&f, path, 0, err);

	if (!rc && prefault)
		rc = branch_prefault_start(&pf, f.data, f.size, err);
	o.pf = pf;
	if (!rc)
		rc = perfdata_open(&p, f.data, f.size, path, raw ? PERFDATA_OPEN_RAW_BRANCHES : 0, err);
	if (!rc)
		rc = branch_agg_new(&a, err);
	if (!rc)
		rc = branch_load(p, a, &o, NULL, err);
	branch_prefault_stop(pf);
	if (!rc)
		rc = branch_agg_finish(a, r, err);
	branch_agg_free(a);
	perfdata_close(p);
	tdp_file_close(&f);
	return rc;
}

static int load(struct branch_result *r, bool threaded, bool prefault, struct tdp_err *err)
{
	return load_with(r, threaded, prefault, false, err);
}

static void same(const struct branch_result *x, const struct branch_result *y)
{
	assert_memory_equal(&x->counts, &y->counts, sizeof(x->counts));
	assert_int_equal(x->nr_edges, y->nr_edges);
	assert_memory_equal(x->edges, y->edges, x->nr_edges * sizeof(*x->edges));
	assert_int_equal(x->nr_sites, y->nr_sites);
	assert_memory_equal(x->sites, y->sites, x->nr_sites * sizeof(*x->sites));
	assert_int_equal(x->nr_blocks, y->nr_blocks);
	assert_memory_equal(x->blocks, y->blocks, x->nr_blocks * sizeof(*x->blocks));
}

static void test_counts(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct branch_result r = BRANCH_RESULT_INIT;

	(void)state;
	assert_int_equal(load(&r, false, false, &err), 0);
	assert_int_equal(r.counts.samples, SAMPLES + 207);
	assert_int_equal(r.counts.samples_with_stack, SAMPLES);
	assert_int_equal(r.counts.branch_entries, SAMPLES * ENTRIES);
	assert_int_equal(r.counts.lost, 5);
	assert_int_equal(r.counts.lost_samples, 7);
	assert_int_equal(r.nr_edges, 3000);
	assert_true(r.has_timing);
	branch_result_release(&r);
}

static void test_threaded_same(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct branch_result one = BRANCH_RESULT_INIT, two = BRANCH_RESULT_INIT, three = BRANCH_RESULT_INIT;

	(void)state;
	assert_int_equal(load(&one, false, false, &err), 0);
	assert_int_equal(load(&two, true, false, &err), 0);
	assert_int_equal(load(&three, true, true, &err), 0);
	same(&one, &two);
	same(&one, &three);
	branch_result_release(&one);
	branch_result_release(&two);
	branch_result_release(&three);
}

/* Entries left in the record and decoded where they are counted: the same result, one thread or two. */
static void test_raw_same(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct branch_result one = BRANCH_RESULT_INIT, raw = BRANCH_RESULT_INIT, raw2 = BRANCH_RESULT_INIT;

	(void)state;
	assert_int_equal(load(&one, false, false, &err), 0);
	assert_int_equal(load_with(&raw, false, false, true, &err), 0);
	assert_int_equal(load_with(&raw2, true, true, true, &err), 0);
	assert_true(one.has_timing && one.nr_blocks > 0);
	same(&one, &raw);
	same(&one, &raw2);
	branch_result_release(&one);
	branch_result_release(&raw);
	branch_result_release(&raw2);
}

/* A memory stream handed out in pieces, so that the reader's buffer is reused. */
struct mem_stream {
	const uint8_t *buf;
	size_t len, pos;
};

static long mem_read(void *ctx, uint8_t *buf, size_t len)
{
	struct mem_stream *m = ctx;
	size_t n = m->len - m->pos < len ? m->len - m->pos : len;

	if (n > 3000)
		n = 3000;
	memcpy(buf, m->buf + m->pos, n);
	m->pos += n;
	return (long)n;
}

/*
 * The test recording as a pipe-mode stream (perf record -o -): the 16-byte
 * header, a HEADER_ATTR record per attr (the attr's bytes, then its ids), then
 * the data records as they are. Returns the bytes (tdp_free) and their length.
 */
static uint8_t *as_pipe(size_t *len)
{
	struct tdp_file f = TDP_FILE_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	struct perfdata *p = NULL;
	struct perfdata_record rec;
	uint8_t *out;
	size_t at = 16;
	int rc;

	assert_int_equal(tdp_file_open(&f, path, 0, &err), 0);
	assert_int_equal(perfdata_open(&p, f.data, f.size, path, 0, &err), 0);
	out = tdp_malloc(f.size + 4096);
	assert_non_null(out);
	memcpy(out, "PERFILE2", 8);
	put_u64(out, 8, 16);
	for (size_t i = 0; i < perfdata_nr_attrs(p); i++) {
		const struct perfdata_attr *a = perfdata_attr(p, i);
		size_t start = at;

		memcpy(out + at + 8, a->raw, a->raw_size);
		at += 8 + a->raw_size;
		for (size_t k = 0; k < a->nr_ids; k++)
			at = put_u64(out, at, a->ids[k]);
		header(out + start, PERFDATA_RECORD_HEADER_ATTR, at - start);
	}
	while ((rc = perfdata_next(p, &rec, &err)) > 0) {
		assert_true(at + rec.raw_len <= f.size + 4096);
		memcpy(out + at, rec.raw, rec.raw_len);
		at += rec.raw_len;
	}
	assert_int_equal(rc, 0);
	perfdata_close(p);
	tdp_file_close(&f);
	*len = at;
	return out;
}

/*
 * Read from a stream, whose records do not outlive the next one
 * (perfdata_records_stable() false), raw stacks are copied to the aggregating
 * thread rather than left in place: the same result as the file read on one thread.
 */
static void test_stream_threaded_same(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct branch_result one = BRANCH_RESULT_INIT, two = BRANCH_RESULT_INIT;
	struct branch_load_opts o = { .threaded = true };
	struct mem_stream m = { 0 };
	struct perfdata *p = NULL;
	struct branch_agg *a = NULL;

	(void)state;
	m.buf = as_pipe(&m.len);
	assert_int_equal(load(&one, false, false, &err), 0);
	assert_int_equal(perfdata_open_stream(&p, mem_read, &m, "stream", PERFDATA_OPEN_RAW_BRANCHES, &err), 0);
	assert_false(perfdata_records_stable(p));
	assert_int_equal(branch_agg_new(&a, &err), 0);
	assert_int_equal(branch_load(p, a, &o, NULL, &err), 0);
	assert_int_equal(branch_agg_finish(a, &two, &err), 0);
	same(&one, &two);
	branch_agg_free(a);
	perfdata_close(p);
	tdp_free((void *)m.buf);
	branch_result_release(&one);
	branch_result_release(&two);
}

/* Fail each of the first allocations in turn, threaded: an error, never a hang or a leak. */
static void test_threaded_alloc_failures(void **state)
{
	(void)state;
	for (long n = 0; n < 40; n++) {
		struct tdp_err err = TDP_ERR_INIT;
		struct branch_result r = BRANCH_RESULT_INIT;
		int rc;

		tdp_alloc_fail_after(n);
		rc = load(&r, true, true, &err);
		tdp_alloc_fail_after(-1);
		branch_result_release(&r);
		if (!rc)
			break;
		assert_int_equal(rc, TDP_ENOMEM);
	}
}

/*
 * Arm SPE through perf.data: an AUXTRACE_INFO of type 4 (ARM_SPE), then one
 * AUXTRACE record whose payload holds three SPE records (formats.md 3.4):
 *   1. a load (OP-TYPE class 1): a sample, no branch;
 *   2. B COND at PC 0x400100 (EL0) to TGT 0x400180, EV RETIRED MISPRED;
 *   3. B COND at PC 0x400100 to TGT 0x400104, EV RETIRED NOT-TAKEN;
 * each closed by a timestamp. Expected: samples 3, branch entries 2 (edges
 * 0x400100->0x400180 mispredicted, 0x400100->0x400104 not taken), mispredicted
 * 1, site 0x400100 executed twice with type COND (from OP-TYPE), no timing.
 */
static size_t spe_branch(uint8_t *b, size_t at, uint64_t pc, uint64_t tgt, uint8_t ev)
{
	b[at++] = 0xb0;
	at = put_u64(b, at, pc | 1ull << 63);
	b[at++] = 0x4a; /* B COND */
	b[at++] = 0x01;
	b[at++] = 0x42; /* EVENTS, 1 byte */
	b[at++] = ev;
	b[at++] = 0xb1;
	at = put_u64(b, at, tgt | 1ull << 63);
	b[at++] = 0x71;
	return put_u64(b, at, 42);
}

/* config1: the SPE event filter of the recording's event (bit 7: mispredicted branches only) */
static void spe_case(uint64_t config1, bool want_mispred_only)
{
	char spe_path[64];
	struct tdp_err err = TDP_ERR_INIT;
	struct perfdata_writer *w = NULL;
	struct tdp_file f = TDP_FILE_INIT;
	struct perfdata *p = NULL;
	struct branch_agg *a = NULL;
	struct branch_result r = BRANCH_RESULT_INIT;
	struct branch_load_info li;
	uint8_t attr[128], rec[512], *trace = rec + 48;
	size_t n = 0, at;
	int fd;

	snprintf(spe_path, sizeof(spe_path), "/tmp/tdprof-spe-XXXXXX");
	fd = mkstemp(spe_path);
	assert_true(fd >= 0);
	close(fd);
	memset(attr, 0, sizeof(attr));
	attr[0] = 9; /* a dynamic PMU type, as arm_spe_0 has */
	attr[4] = sizeof(attr);
	put_u64(attr, 24, PERFDATA_SAMPLE_IP | PERFDATA_SAMPLE_TID);
	put_u64(attr, 56, config1);
	assert_int_equal(perfdata_writer_open(&w, spe_path, &err), 0);
	assert_int_equal(perfdata_writer_add_attr(w, attr, sizeof(attr), NULL, 0, "arm_spe_0//", &err), 0);
	/* AUXTRACE_INFO {u32 type = 4, u32 reserved, u64 priv[1]} */
	memset(rec, 0, sizeof(rec));
	rec[8] = 4;
	put_u64(rec, 16, 9);
	header(rec, PERFDATA_RECORD_AUXTRACE_INFO, 24);
	assert_int_equal(perfdata_writer_add_record(w, rec, 24, &err), 0);
	/* the payload: a load record, then the two branches */
	trace[n++] = 0xb0;
	n = put_u64(trace, n, 0x400000 | 1ull << 63);
	trace[n++] = 0x49; /* LD */
	trace[n++] = 0x00;
	trace[n++] = 0x71;
	n = put_u64(trace, n, 41);
	n = spe_branch(trace, n, 0x400100, 0x400180, 0x82);
	n = spe_branch(trace, n, 0x400100, 0x400104, 0x42);
	while (n % 8)
		trace[n++] = 0; /* PAD */
	/* AUXTRACE {u64 size, offset, reference; u32 idx, tid, cpu, reserved} + payload */
	at = put_u64(rec, 8, n);
	at = put_u64(rec, at, 0);
	at = put_u64(rec, at, 0);
	at = put_u64(rec, at, 77ull << 32); /* idx 0, tid 77 */
	put_u64(rec, at, 0);                 /* cpu 0, reserved */
	header(rec, PERFDATA_RECORD_AUXTRACE, 48);
	assert_int_equal(perfdata_writer_add_record(w, rec, 48 + n, &err), 0);
	assert_int_equal(perfdata_writer_close(w, &err), 0);

	assert_int_equal(tdp_file_open(&f, spe_path, 0, &err), 0);
	assert_int_equal(perfdata_open(&p, f.data, f.size, spe_path, 0, &err), 0);
	assert_int_equal(branch_agg_new(&a, &err), 0);
	assert_int_equal(branch_load(p, a, NULL, &li, &err), 0);
	assert_int_equal(branch_agg_finish(a, &r, &err), 0);
	assert_true(li.spe.present);
	assert_int_equal(li.spe.mispred_only, want_mispred_only);
	assert_int_equal(li.spe.records, 3);
	assert_int_equal(li.spe.branch_records, 2);
	assert_int_equal(li.spe.bad_bytes, 0);
	assert_int_equal(li.spe.truncated, 0);
	assert_int_equal(r.counts.samples, 3);
	assert_int_equal(r.counts.branch_entries, 2);
	assert_int_equal(r.counts.mispredicted_entries, 1);
	assert_false(r.has_timing);
	assert_int_equal(r.nr_sites, 1);
	assert_int_equal(r.sites[0].addr, 0x400100);
	assert_int_equal(r.sites[0].executions, 2);
	assert_int_equal(r.sites[0].not_taken, 1);
	assert_int_equal(r.sites[0].type, BRANCH_TYPE_COND);
	assert_int_equal(r.sites[0].pid, 77);
	assert_int_equal(r.nr_edges, 2);
	branch_result_release(&r);
	branch_agg_free(a);
	perfdata_close(p);
	tdp_file_close(&f);
	unlink(spe_path);
}

static void test_spe(void **state)
{
	(void)state;
	spe_case(0, false);
}

/* `branches record --spe` samples only mispredicted branches by default: the report must know (issue 16). */
static void test_spe_mispredicted_only(void **state)
{
	(void)state;
	spe_case(0x80, true);
	spe_case(0x2, false); /* retired operations only: every branch */
}

/*
 * The prefault helper's window, as pure arithmetic: whatever the interleaving of
 * the reader and a helper that may be starved of CPU, the helper maps only in
 * [reader's page, reader + BRANCH_PREFAULT_AHEAD) and within the image, and
 * releases only between keep and 1 MiB behind the reader, each page once.
 */
static void test_prefault_window(void **state)
{
	const size_t page = 4096;
	const uintptr_t start = 0x10000000, end = start + (200u << 20) + 123;
	uintptr_t from, to, reader = start, done = start, released = start, keep = start + 5000;
	uint64_t x = 88172645463325252ull, mapped_behind = 0, steps = 0;

	(void)state;
	/* a helper far behind a reader 100 MiB in: it skips to the reader, it does not map what was passed */
	branch_prefault_window(start, start + (100u << 20) + 77, end, page, &from, &to);
	assert_true(from == start + (100u << 20));
	assert_true(to == from + (1u << 20));
	/* a helper a full window ahead: nothing to map */
	branch_prefault_window(start + (16u << 20) + 4096, start + 4096, end, page, &from, &to);
	assert_true(from >= to);
	/* the end of the image bounds the last step */
	branch_prefault_window(end - 100, end - 200, end, page, &from, &to);
	assert_true(from == end - 100 && to == end);
	/* nothing released before the reader is 1 MiB past keep; never below keep's page */
	released = branch_prefault_claim(start, keep, start + 4096, start, page, &from, &to);
	assert_true(from == 0 && to == 0);
	released = branch_prefault_claim(released, keep, start + (3u << 20) + 10, start, page, &from, &to);
	assert_true(from == start + 8192 && to == start + (2u << 20));
	assert_true(released == to);
	/* random schedules: the reader moves 0 to 8 MiB at a time; the helper gets 0 to 3 turns */
	released = start;
	while (reader < end) {
		uintptr_t old = released;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		reader += x % (8u << 20);
		if (reader > end)
			reader = end;
		for (unsigned turn = 0; turn < (x >> 40) % 4; turn++) {
			branch_prefault_window(done, reader, end, page, &from, &to);
			if (from >= to)
				break;
			assert_true(from >= (reader & ~(uintptr_t)(page - 1)));
			assert_true(to <= reader + BRANCH_PREFAULT_AHEAD && to <= end);
			assert_true(to - from <= (1u << 20));
			/* madvise() needs a page-aligned start */
			assert_true(from % page == 0 && (to % page == 0 || to == end));
			mapped_behind += from < released;
			done = to;
			steps++;
		}
		released = branch_prefault_claim(released, keep, reader, start, page, &from, &to);
		if (to > from) {
			assert_true(from == old || from == ((keep + page - 1) & ~(uintptr_t)(page - 1)));
			assert_true(from >= keep && to + (1u << 20) <= reader && to % page == 0);
		}
		assert_true(released >= old);
	}
	assert_true(steps > 50);
	assert_true(mapped_behind == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_prefault_window),
		cmocka_unit_test(test_spe),
		cmocka_unit_test(test_spe_mispredicted_only),
		cmocka_unit_test(test_threaded_same),
		cmocka_unit_test(test_raw_same),
		cmocka_unit_test(test_stream_threaded_same),
		cmocka_unit_test(test_threaded_alloc_failures),
	};
	struct tdp_err err = TDP_ERR_INIT;
	int fd, rc;

	snprintf(path, sizeof(path), "/tmp/tdprof-load-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	if (write_file(&err)) {
		print_error("cannot write '%s': %s\n", path, err.msg);
		unlink(path);
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(path);
	return rc;
}
