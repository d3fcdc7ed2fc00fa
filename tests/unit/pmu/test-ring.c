/*
 * Unit tests of pmu/ring: the perf_event ring buffer reader on synthetic buffers
 * laid out as the kernel lays them out (records in order, a record split at the
 * end of the data area, data_tail after a full and a partial read, impossible
 * headers), the AUX area protocol (two pieces when the new bytes wrap,
 * aux_tail), and one real ring of a cpu-clock event on this process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/err.h"
#include "pmu/ring.h"

#define DATA 64 /* bytes of the synthetic data area */

struct fake {
	struct perf_event_mmap_page pc;
	uint8_t data[DATA];
	uint8_t aux[32];
	struct pmu_ring r;
};

/* What the callback saw. */
struct seen {
	size_t nr;
	uint32_t type[16];
	size_t len[16];
	uint8_t bytes[16][64];
	int fail_at; /* 1-based record index that fails; 0 none */
};

static int on_record(void *arg, const void *rec, size_t len, struct tdp_err *err)
{
	struct seen *s = arg;
	struct perf_event_header h;

	memcpy(&h, rec, sizeof(h));
	if (s->fail_at && (int)s->nr + 1 == s->fail_at)
		return tdp_err_set(err, TDP_EIO, "callback failed");
	assert_true(s->nr < 16);
	s->type[s->nr] = h.type;
	s->len[s->nr] = len;
	memcpy(s->bytes[s->nr], rec, len < 64 ? len : 64);
	s->nr++;
	return 0;
}

/* Write a record of type t and size len at ring position pos (wrapping), its body a byte pattern. */
static void put(struct fake *f, uint64_t pos, uint32_t t, uint16_t len, uint8_t pattern, uint8_t *copy)
{
	uint8_t rec[64];
	struct perf_event_header h = { t, 0, len };

	memcpy(rec, &h, sizeof(h));
	for (size_t i = sizeof(h); i < len; i++)
		rec[i] = (uint8_t)(pattern + i);
	for (size_t i = 0; i < len; i++)
		f->data[(pos + i) % DATA] = rec[i];
	if (copy)
		memcpy(copy, rec, len);
}

static void setup(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	assert_int_equal(pmu_ring_init_mem(&f->r, &f->pc, f->data, DATA, f->aux, sizeof(f->aux), NULL), 0);
}

static void test_records_in_order_and_tail(void **state)
{
	struct fake f;
	struct seen s = { 0 };
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	setup(&f);
	put(&f, 0, PERF_RECORD_SAMPLE, 16, 0x10, NULL);
	put(&f, 16, PERF_RECORD_COMM, 24, 0x20, NULL);
	put(&f, 40, PERF_RECORD_EXIT, 8, 0x30, NULL);
	f.pc.data_head = 48;
	assert_int_equal(pmu_ring_read(&f.r, on_record, &s, &err), 3);
	assert_int_equal(s.nr, 3);
	assert_int_equal(s.type[0], PERF_RECORD_SAMPLE);
	assert_int_equal(s.type[1], PERF_RECORD_COMM);
	assert_int_equal(s.type[2], PERF_RECORD_EXIT);
	assert_int_equal(s.len[1], 24);
	assert_int_equal(s.bytes[1][8], 0x28); /* pattern 0x20 + offset 8 */
	/* everything up to data_head is consumed: the kernel may overwrite it */
	assert_int_equal(f.pc.data_tail, 48);
	/* nothing new: nothing handed out, tail unchanged */
	assert_int_equal(pmu_ring_read(&f.r, on_record, &s, &err), 0);
	assert_int_equal(s.nr, 3);
	assert_int_equal(f.pc.data_tail, 48);
	assert_int_equal(f.r.records, 3);
	pmu_ring_unmap(&f.r);
}

static void test_record_split_at_the_end_is_copied_whole(void **state)
{
	struct fake f;
	struct seen s = { 0 };
	uint8_t want[64];

	(void)state;
	setup(&f);
	/* the reader consumed 40 bytes before; a 32-byte record runs from 40 to 72: 24 bytes at the end, 8 at the start */
	f.pc.data_tail = 40;
	put(&f, 40, PERF_RECORD_MMAP2, 32, 0x40, want);
	f.pc.data_head = 72;
	assert_int_equal(pmu_ring_read(&f.r, on_record, &s, NULL), 1);
	assert_int_equal(s.len[0], 32);
	assert_memory_equal(s.bytes[0], want, 32);
	assert_int_equal(f.pc.data_tail, 72);
	/* the positions keep growing past the size: the next record at 72 is at offset 8 */
	put(&f, 72, PERF_RECORD_FORK, 16, 0x50, want);
	f.pc.data_head = 88;
	assert_int_equal(pmu_ring_read(&f.r, on_record, &s, NULL), 1);
	assert_memory_equal(s.bytes[1], want, 16);
	assert_int_equal(f.pc.data_tail, 88);
	pmu_ring_unmap(&f.r);
}

static void test_record_ending_exactly_at_the_end(void **state)
{
	struct fake f;
	struct seen s = { 0 };

	(void)state;
	setup(&f);
	f.pc.data_tail = 48;
	put(&f, 48, PERF_RECORD_LOST, 16, 0x60, NULL);
	put(&f, 64, PERF_RECORD_LOST, 8, 0x70, NULL);
	f.pc.data_head = 72;
	assert_int_equal(pmu_ring_read(&f.r, on_record, &s, NULL), 2);
	/* no wrap: no copy buffer was needed */
	assert_null(f.r.copy);
	assert_int_equal(f.pc.data_tail, 72);
	pmu_ring_unmap(&f.r);
}

static void test_large_positions(void **state)
{
	struct fake f;
	struct seen s = { 0 };
	uint8_t want[64];
	uint64_t base = (1ull << 40) + 56; /* offset 56 in the area */

	(void)state;
	setup(&f);
	f.pc.data_tail = base;
	put(&f, base, PERF_RECORD_SAMPLE, 24, 0x11, want);
	f.pc.data_head = base + 24;
	assert_int_equal(pmu_ring_read(&f.r, on_record, &s, NULL), 1);
	assert_memory_equal(s.bytes[0], want, 24);
	assert_int_equal(f.pc.data_tail, base + 24);
	pmu_ring_unmap(&f.r);
}

static void test_impossible_headers(void **state)
{
	struct fake f;
	struct seen s = { 0 };
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	setup(&f);
	/* size 0 would loop forever */
	put(&f, 0, PERF_RECORD_SAMPLE, 16, 0, NULL);
	memset(f.data + 16, 0, 8);
	f.pc.data_head = 32;
	assert_int_equal(pmu_ring_read(&f.r, on_record, &s, &err), TDP_EFORMAT);
	assert_int_equal(s.nr, 1);
	assert_non_null(strstr(err.msg, "record at position 16 has size 0"));
	/* the rest is skipped so that reading can go on */
	assert_int_equal(f.pc.data_tail, 32);

	/* a size beyond data_head */
	tdp_err_clear(&err);
	put(&f, 32, PERF_RECORD_SAMPLE, 40, 0, NULL);
	f.pc.data_head = 48;
	assert_int_equal(pmu_ring_read(&f.r, on_record, &s, &err), TDP_EFORMAT);
	assert_non_null(strstr(err.msg, "has size 40 (16 bytes available)"));
	assert_int_equal(f.pc.data_tail, 48);

	/* fewer bytes than a header */
	tdp_err_clear(&err);
	f.pc.data_head = 52;
	assert_int_equal(pmu_ring_read(&f.r, on_record, &s, &err), TDP_EFORMAT);
	assert_int_equal(f.pc.data_tail, 52);
	pmu_ring_unmap(&f.r);
}

static void test_callback_error_keeps_what_was_read(void **state)
{
	struct fake f;
	struct seen s = { .fail_at = 2 };
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	setup(&f);
	put(&f, 0, PERF_RECORD_SAMPLE, 16, 0, NULL);
	put(&f, 16, PERF_RECORD_SAMPLE, 16, 0, NULL);
	f.pc.data_head = 32;
	assert_int_equal(pmu_ring_read(&f.r, on_record, &s, &err), TDP_EIO);
	assert_string_equal(err.msg, "callback failed");
	/* the first record was taken, the second is still there */
	assert_int_equal(f.pc.data_tail, 16);
	s.fail_at = 0;
	assert_int_equal(pmu_ring_read(&f.r, on_record, &s, NULL), 1);
	assert_int_equal(f.pc.data_tail, 32);
	pmu_ring_unmap(&f.r);
}

static void test_copy_buffer_allocation_failure(void **state)
{
	struct fake f;
	struct seen s = { 0 };
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	setup(&f);
	f.pc.data_tail = 56;
	put(&f, 56, PERF_RECORD_SAMPLE, 16, 0, NULL);
	f.pc.data_head = 72;
	tdp_alloc_fail_after(0);
	assert_int_equal(pmu_ring_read(&f.r, on_record, &s, &err), TDP_ENOMEM);
	tdp_alloc_fail_after(-1);
	assert_int_equal(f.pc.data_tail, 56);
	assert_int_equal(pmu_ring_read(&f.r, on_record, &s, NULL), 1);
	pmu_ring_unmap(&f.r);
}

/* ---- AUX -------------------------------------------------------------------------- */

struct aux_seen {
	uint64_t offset;
	uint8_t bytes[64];
	size_t len, alen, blen;
	bool fail;
};

static int on_aux(void *arg, uint64_t offset, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
		  struct tdp_err *err)
{
	struct aux_seen *s = arg;

	if (s->fail)
		return tdp_err_set(err, TDP_EIO, "aux callback failed");
	s->offset = offset;
	s->alen = alen;
	s->blen = blen;
	memcpy(s->bytes, a, alen);
	memcpy(s->bytes + alen, b, blen);
	s->len = alen + blen;
	return 0;
}

static void test_aux_wraps_in_two_pieces(void **state)
{
	struct fake f;
	struct aux_seen s = { 0 };
	uint8_t want[16];

	(void)state;
	setup(&f);
	for (int i = 0; i < 32; i++)
		f.aux[i] = (uint8_t)i;
	/* 16 new bytes from position 24 of a 32-byte area: 24..31 then 0..7 */
	f.pc.aux_tail = 24;
	f.pc.aux_head = 40;
	for (int i = 0; i < 16; i++)
		want[i] = (uint8_t)((24 + i) % 32);
	assert_int_equal(pmu_ring_read_aux(&f.r, on_aux, &s, NULL), 16);
	assert_int_equal(s.offset, 24);
	assert_int_equal(s.alen, 8);
	assert_int_equal(s.blen, 8);
	assert_memory_equal(s.bytes, want, 16);
	assert_int_equal(f.pc.aux_tail, 40);
	/* nothing new */
	assert_int_equal(pmu_ring_read_aux(&f.r, on_aux, &s, NULL), 0);
	/* a whole area's worth without a wrap */
	f.pc.aux_head = 72;
	assert_int_equal(pmu_ring_read_aux(&f.r, on_aux, &s, NULL), 32);
	assert_int_equal(s.alen, 24); /* 40 % 32 = 8: 24 bytes to the end, then 8 */
	assert_int_equal(s.blen, 8);
	assert_int_equal(f.pc.aux_tail, 72);
	pmu_ring_unmap(&f.r);
}

static void test_aux_errors(void **state)
{
	struct fake f;
	struct aux_seen s = { .fail = true };
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	setup(&f);
	f.pc.aux_tail = 8;
	f.pc.aux_head = 16;
	assert_int_equal(pmu_ring_read_aux(&f.r, on_aux, &s, &err), TDP_EIO);
	/* not consumed: the callback did not take it */
	assert_int_equal(f.pc.aux_tail, 8);
	s.fail = false;
	tdp_err_clear(&err);
	f.pc.aux_head = 4; /* behind the tail */
	assert_int_equal(pmu_ring_read_aux(&f.r, on_aux, &s, &err), TDP_EFORMAT);
	tdp_err_clear(&err);
	f.pc.aux_head = 8 + 33; /* more than the area */
	assert_int_equal(pmu_ring_read_aux(&f.r, on_aux, &s, &err), TDP_EFORMAT);
	assert_non_null(strstr(err.msg, "AUX area"));
	/* a ring without an AUX area has nothing to read */
	assert_int_equal(pmu_ring_init_mem(&f.r, &f.pc, f.data, DATA, NULL, 0, NULL), 0);
	assert_int_equal(pmu_ring_read_aux(&f.r, on_aux, &s, NULL), 0);
	pmu_ring_unmap(&f.r);
}

static void test_init_mem_checks_sizes(void **state)
{
	struct fake f;

	(void)state;
	memset(&f, 0, sizeof(f));
	assert_int_equal(pmu_ring_init_mem(&f.r, &f.pc, f.data, 48, NULL, 0, NULL), TDP_EINVAL);
	assert_int_equal(pmu_ring_init_mem(&f.r, &f.pc, f.data, 64, f.aux, 24, NULL), TDP_EINVAL);
	assert_int_equal(pmu_ring_init_mem(&f.r, &f.pc, f.data, 64, NULL, 32, NULL), TDP_EINVAL);
	assert_true(pmu_ring_is_pow2(4096));
	assert_false(pmu_ring_is_pow2(0));
	assert_false(pmu_ring_is_pow2(96));
}

/* the loop writes here so that the compiler keeps it */
static volatile unsigned long ring_sink;

/* ---- a real ring ------------------------------------------------------------------ */

struct real_seen {
	size_t samples, other;
	pid_t pid;
	bool bad;
};

static int on_real(void *arg, const void *rec, size_t len, struct tdp_err *err)
{
	struct real_seen *s = arg;
	struct perf_event_header h;
	uint32_t pid;

	(void)err;
	memcpy(&h, rec, sizeof(h));
	if (h.size != len || len % 8)
		s->bad = true;
	if (h.type == PERF_RECORD_SAMPLE && len >= 16) {
		/* sample_type TID: {u32 pid, u32 tid} right after the header */
		memcpy(&pid, (const uint8_t *)rec + 8, 4);
		if ((pid_t)pid != s->pid)
			s->bad = true;
		s->samples++;
	} else {
		s->other++;
	}
	return 0;
}

static void test_real_ring_of_this_process(void **state)
{
	struct perf_event_attr a;
	struct pmu_ring r = PMU_RING_INIT;
	struct real_seen s = { .pid = getpid() };
	struct tdp_err err = TDP_ERR_INIT;
	struct timespec t0, t;
	int fd, n, total = 0;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = 100000; /* every 100 us of our CPU time */
	a.sample_type = PERF_SAMPLE_TID;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		skip();
	assert_int_equal(pmu_ring_map(&r, fd, 3, 0, &err), TDP_EUSAGE); /* not a power of two */
	tdp_err_clear(&err);
	assert_int_equal(pmu_ring_map(&r, fd, 4, 0, &err), 0);
	assert_int_equal(r.data_size, 4 * (uint64_t)sysconf(_SC_PAGESIZE));
	/* 30 ms of CPU: about 300 samples of 16 bytes, more than the 16 KiB ring holds at once */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 10000; i++)
			ring_sink += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
		n = pmu_ring_read(&r, on_real, &s, &err);
		assert_true(n >= 0);
		total += n;
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 30000000L);
	/* stop sampling first: a sample written after the last read would leave head
	 * ahead of tail (it did under valgrind, which runs this loop slowly) */
	assert_int_equal(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	n = pmu_ring_read(&r, on_real, &s, &err);
	assert_true(n >= 0);
	total += n;
	assert_false(s.bad);
	/* 30 ms / 100 us = 300 (the loop's own clock reads add a little) */
	assert_in_range(s.samples, 150, 600);
	assert_int_equal((size_t)total, s.samples + s.other);
	assert_int_equal(r.pc->data_tail, r.pc->data_head);
	pmu_ring_unmap(&r);
	assert_null(r.map);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_in_order_and_tail),
		cmocka_unit_test(test_record_split_at_the_end_is_copied_whole),
		cmocka_unit_test(test_record_ending_exactly_at_the_end),
		cmocka_unit_test(test_large_positions),
		cmocka_unit_test(test_impossible_headers),
		cmocka_unit_test(test_callback_error_keeps_what_was_read),
		cmocka_unit_test(test_copy_buffer_allocation_failure),
		cmocka_unit_test(test_aux_wraps_in_two_pieces),
		cmocka_unit_test(test_aux_errors),
		cmocka_unit_test(test_init_mem_checks_sizes),
		cmocka_unit_test(test_real_ring_of_this_process),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
