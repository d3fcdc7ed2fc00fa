/*
 * test-perfdata-write: the writer makes files our reader reads back value for
 * value (attrs, ids, names, records, AUXTRACE payloads, every typed feature),
 * with mode 0600, attr sizes perf 6.1 accepts, an unfinished header until
 * perfdata_writer_close(), a clear TDP_EIO on a full disk (/dev/full), TDP_EINVAL
 * for calls out of order, and TDP_ENOMEM on every allocation failure.
 * (That Debian's perf reads the files too is tests/e2e/test_perfdata_roundtrip.py.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "base/err.h"
#include "perfdata/perfdata-write.h"
#include "perfdata/perfdata.h"
#include "pdtest.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

struct tmp {
	char dir[256];
	char path[300];
};

static int tmp_setup(void **state)
{
	struct tmp *t = tdp_calloc(1, sizeof(*t));
	const char *base = getenv("TMPDIR");

	if (!t)
		return -1;
	snprintf(t->dir, sizeof(t->dir), "%s/perfdata-write-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(t->dir))
		return -1;
	snprintf(t->path, sizeof(t->path), "%s/out.data", t->dir);
	*state = t;
	return 0;
}

static int tmp_teardown(void **state)
{
	struct tmp *t = *state;

	unlink(t->path);
	rmdir(t->dir);
	tdp_free(t);
	return 0;
}

/* A perf_event_attr of `size` bytes: type, config, sample_type, flags, branch_sample_type. */
static void make_attr(uint8_t *a, uint32_t size, uint32_t type, uint64_t config, uint64_t st,
		      uint64_t bst)
{
	uint64_t flags = PERFDATA_ATTR_FLAG_SAMPLE_ID_ALL;

	memset(a, 0, 256);
	memcpy(a, &type, 4);
	memcpy(a + 4, &size, 4);
	memcpy(a + 8, &config, 8);
	memcpy(a + 24, &st, 8);
	memcpy(a + 40, &flags, 8);
	memcpy(a + 72, &bst, 8);
}

static size_t rec_hdr(uint8_t *r, uint32_t type, uint16_t misc, uint16_t size)
{
	memcpy(r, &type, 4);
	memcpy(r + 4, &misc, 2);
	memcpy(r + 6, &size, 2);
	return 8;
}

#define ST_A (PERFDATA_SAMPLE_IDENTIFIER | PERFDATA_SAMPLE_IP | PERFDATA_SAMPLE_TID)
#define ST_B (PERFDATA_SAMPLE_IDENTIFIER | PERFDATA_SAMPLE_IP | PERFDATA_SAMPLE_TID | \
	      PERFDATA_SAMPLE_BRANCH_STACK)

/*
 * Write a file: two events, a COMM, a sample with a 2-entry branch stack, an
 * AUXTRACE with 16 bytes of payload, and every typed feature. Returns the first
 * error (and closes or abandons the writer as `finish` says).
 */
static int write_file(const char *path, bool finish, uint64_t config3, struct tdp_err *err)
{
	static const char *const argv[] = { "/usr/bin/tdprof", "branches", "record", "--", "./a.out" };
	static const uint64_t ids_a[] = { 11, 12 }, ids_b[] = { 21 };
	static const uint8_t bid[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
					 12, 13, 14, 15, 16 };
	struct perfdata_writer *w = NULL;
	uint8_t a[256], r[256];
	size_t n;
	int ret;

	ret = perfdata_writer_open(&w, path, err);
	if (ret)
		return ret;
	make_attr(a, 136, 1, 0, ST_A, 0);
	memcpy(a + 128, &config3, 8);
	ret = perfdata_writer_add_attr(w, a, 136, ids_a, 2, "cpu-clock", err);
	make_attr(a, 112, 4, 0xc4, ST_B, PERFDATA_BRANCH_ANY);
	if (!ret)
		ret = perfdata_writer_add_attr(w, a, 112, ids_b, 1, NULL, err); /* named r c4 */
	/* COMM {pid, tid, "app"} + trailer {pid,tid} {identifier} */
	n = rec_hdr(r, PERFDATA_RECORD_COMM, PERFDATA_MISC_COMM_EXEC, 40);
	memcpy(r + n, (uint32_t[]){ 7, 7 }, 8);
	memcpy(r + n + 8, "app\0\0\0\0\0", 8);
	memcpy(r + n + 16, (uint32_t[]){ 7, 7 }, 8);
	memcpy(r + n + 24, &(uint64_t){ 21 }, 8);
	if (!ret)
		ret = perfdata_writer_add_record(w, r, 40, err);
	/* SAMPLE of event b: id, ip, tid, nr 2, 2 x {from, to, flags} */
	n = rec_hdr(r, PERFDATA_RECORD_SAMPLE, PERFDATA_MISC_USER, 8 + 32 + 48);
	memcpy(r + n, (uint64_t[]){ 21, 0x401000, 7 | (7ull << 32), 2, 0x401100, 0x401200, 0x1,
				    0x401300, 0x401400, 0x2 | (9 << 4) },
	       80);
	if (!ret)
		ret = perfdata_writer_add_record(w, r, 88, err);
	/* AUXTRACE {size 16, offset, reference, idx, tid, cpu, reserved} + 16 bytes */
	n = rec_hdr(r, PERFDATA_RECORD_AUXTRACE, 0, 48);
	memcpy(r + n, (uint64_t[]){ 16, 0, 0x99 }, 24);
	memcpy(r + n + 24, (uint32_t[]){ 0, 7, 1, 0 }, 16);
	memcpy(r + 48, "0123456789abcdef", 16);
	if (!ret)
		ret = perfdata_writer_add_record(w, r, 64, err);
	if (!ret)
		ret = perfdata_writer_set_string(w, PERFDATA_FEAT_HOSTNAME, "builder", err);
	if (!ret)
		ret = perfdata_writer_set_string(w, PERFDATA_FEAT_OSRELEASE, "6.1.0-test", err);
	if (!ret)
		ret = perfdata_writer_set_string(w, PERFDATA_FEAT_VERSION, "tdprof 0.1.0", err);
	if (!ret)
		ret = perfdata_writer_set_string(w, PERFDATA_FEAT_ARCH, "x86_64", err);
	if (!ret)
		ret = perfdata_writer_set_string(w, PERFDATA_FEAT_CPUDESC, "AMD EPYC", err);
	if (!ret)
		ret = perfdata_writer_set_string(w, PERFDATA_FEAT_CPUID, "AuthenticAMD,25,17,1", err);
	if (!ret)
		ret = perfdata_writer_set_nrcpus(w, 4, 2, err);
	if (!ret)
		ret = perfdata_writer_set_total_mem(w, 16299868, err);
	if (!ret)
		ret = perfdata_writer_set_cmdline(w, argv, 5, err);
	if (!ret)
		ret = perfdata_writer_add_build_id(w, -1, PERFDATA_MISC_USER, bid, 20, "/tmp/a.out", err);
	if (!ret)
		ret = perfdata_writer_add_build_id(w, -1, PERFDATA_MISC_KERNEL, bid, 16, "[kernel.kallsyms]",
						   err);
	if (!ret)
		ret = perfdata_writer_set_feature_raw(w, PERFDATA_FEAT_CLOCKID, "\x01\0\0\0\0\0\0\0", 8, err);
	if (!ret && finish)
		return perfdata_writer_close(w, err);
	perfdata_writer_free(w);
	return ret;
}

static void roundtrip(void **state)
{
	struct tmp *t = *state;
	struct tdp_err err = TDP_ERR_INIT;
	const struct perfdata_features *f;
	const struct perfdata_attr *a;
	struct perfdata_record r;
	struct perfdata *p = NULL;
	struct stat st;
	uint8_t *buf;
	size_t len;
	const uint8_t *raw;
	size_t raw_len;

	if (write_file(t->path, true, 0, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(stat(t->path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	buf = pdtest_read(t->path, &len);
	assert_non_null(buf);
	if (perfdata_open(&p, buf, len, t->path, 0, &err))
		fail_msg("%s", err.msg);
	assert_false(perfdata_is_unfinished(p));
	assert_int_equal(perfdata_data_size(p), 40 + 88 + 64);
	assert_int_equal(perfdata_nr_attrs(p), 2);
	a = perfdata_attr(p, 0);
	assert_int_equal(a->size, 128); /* 136 with config3 = 0 is written as 128 */
	assert_string_equal(a->name, "cpu-clock");
	assert_int_equal(a->nr_ids, 2);
	assert_int_equal(a->ids[1], 12);
	assert_int_equal(a->sample_type, ST_A);
	a = perfdata_attr(p, 1);
	assert_int_equal(a->size, 128); /* one size per file: 112 padded */
	assert_string_equal(a->name, "rc4");
	assert_int_equal(a->config, 0xc4);
	assert_int_equal(a->branch_sample_type, PERFDATA_BRANCH_ANY);

	f = perfdata_features(p);
	assert_string_equal(f->hostname, "builder");
	assert_string_equal(f->osrelease, "6.1.0-test");
	assert_string_equal(f->version, "tdprof 0.1.0");
	assert_string_equal(f->arch, "x86_64");
	assert_string_equal(f->cpudesc, "AMD EPYC");
	assert_string_equal(f->cpuid, "AuthenticAMD,25,17,1");
	assert_int_equal(f->nr_cpus_avail, 4);
	assert_int_equal(f->nr_cpus_online, 2);
	assert_int_equal(f->total_mem_kb, 16299868);
	assert_int_equal(f->nr_cmdline, 5);
	assert_string_equal(f->cmdline[4], "./a.out");
	assert_int_equal(f->nr_build_ids, 2);
	assert_int_equal(f->build_ids[0].pid, -1);
	assert_int_equal(f->build_ids[0].size, 20);
	assert_int_equal(f->build_ids[0].id[0], 0xde);
	assert_int_equal(f->build_ids[0].misc & PERFDATA_MISC_CPUMODE_MASK, PERFDATA_MISC_USER);
	assert_string_equal(f->build_ids[0].filename, "/tmp/a.out");
	assert_int_equal(f->build_ids[1].size, 16);
	assert_string_equal(f->build_ids[1].filename, "[kernel.kallsyms]");
	assert_true(f->branch_stack); /* set because event b samples branch stacks */
	assert_true(perfdata_feature_raw(p, PERFDATA_FEAT_CLOCKID, &raw, &raw_len));
	assert_int_equal(raw_len, 8);
	assert_int_equal(raw[0], 1);

	assert_int_equal(perfdata_next(p, &r, &err), 1);
	assert_int_equal(r.type, PERFDATA_RECORD_COMM);
	assert_ptr_equal(r.attr, perfdata_attr(p, 1)); /* by the trailer's identifier 21 */
	assert_memory_equal(r.u.comm.comm.s, "app", 3);
	assert_int_equal(perfdata_next(p, &r, &err), 1);
	assert_int_equal(r.type, PERFDATA_RECORD_SAMPLE);
	assert_ptr_equal(r.attr, perfdata_attr(p, 1));
	assert_int_equal(r.u.sample.nr_branches, 2);
	assert_true(r.u.sample.branches[0].mispred);
	assert_int_equal(r.u.sample.branches[1].cycles, 9);
	assert_int_equal(r.u.sample.branches[1].to, 0x401400);
	assert_int_equal(perfdata_next(p, &r, &err), 1);
	assert_int_equal(r.type, PERFDATA_RECORD_AUXTRACE);
	assert_memory_equal(r.u.auxtrace.data, "0123456789abcdef", 16);
	assert_int_equal(perfdata_next(p, &r, &err), 0);
	perfdata_close(p);
	tdp_free(buf);
}

/* An attr whose bytes past 128 are used keeps its size (136). */
static void attr_size_kept(void **state)
{
	struct tmp *t = *state;
	struct tdp_err err = TDP_ERR_INIT;
	struct perfdata *p = NULL;
	uint8_t *buf;
	size_t len;

	if (write_file(t->path, true, 0x1234, &err))
		fail_msg("%s", err.msg);
	buf = pdtest_read(t->path, &len);
	assert_non_null(buf);
	assert_int_equal(perfdata_open(&p, buf, len, t->path, 0, &err), 0);
	assert_int_equal(perfdata_attr(p, 0)->size, 136);
	assert_int_equal(perfdata_attr(p, 0)->config3, 0x1234);
	perfdata_close(p);
	tdp_free(buf);
}

/* A file that exists with mode 0644 is private after the writer opens it. */
static void mode_0600(void **state)
{
	struct tmp *t = *state;
	struct tdp_err err = TDP_ERR_INIT;
	struct perfdata_writer *w = NULL;
	struct stat st;
	int fd = open(t->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(fchmod(fd, 0644), 0);
	close(fd);
	assert_int_equal(perfdata_writer_open(&w, t->path, &err), 0);
	assert_int_equal(stat(t->path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	perfdata_writer_free(w);
}

static void full_disk(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct perfdata_writer *w = NULL;
	struct stat st;

	(void)state;
	if (stat("/dev/full", &st) != 0)
		skip();
	assert_int_equal(perfdata_writer_open(&w, "/dev/full", &err), TDP_EIO);
	assert_null(w);
	assert_string_equal(err.msg, "cannot write '/dev/full': No space left on device");
	assert_int_equal(stat("/dev/full", &st), 0);
	assert_true(S_ISCHR(st.st_mode)); /* not replaced or chmod-ed */

	tdp_err_clear(&err);
	/* a path that cannot be created is a bad -o (exit 2), as for every other output */
	assert_int_equal(perfdata_writer_open(&w, "/nonexistent-dir/x.data", &err), TDP_EUSAGE);
	assert_non_null(strstr(err.msg, "cannot open '/nonexistent-dir/x.data' for writing: "));
}

/* Abandoned: data size 0 in the header; refused, or read with PERFDATA_OPEN_UNFINISHED. */
static void unfinished(void **state)
{
	struct tmp *t = *state;
	struct tdp_err err = TDP_ERR_INIT;
	struct perfdata_record r;
	struct perfdata *p = NULL;
	uint8_t *buf;
	size_t len, n = 0;
	int ret;

	assert_int_equal(write_file(t->path, false, 0, &err), 0);
	buf = pdtest_read(t->path, &len);
	assert_non_null(buf);
	assert_int_equal(perfdata_open(&p, buf, len, "x.data", 0, &err), TDP_EFORMAT);
	assert_non_null(strstr(err.msg, "'x.data': the recording was not finished"));
	assert_true(err.hint[0] != '\0');
	tdp_err_clear(&err);
	assert_int_equal(perfdata_open(&p, buf, len, "x.data", PERFDATA_OPEN_UNFINISHED, &err), 0);
	assert_true(perfdata_is_unfinished(p));
	assert_null(perfdata_attr(p, 1)->name); /* EVENT_DESC is written at close */
	while ((ret = perfdata_next(p, &r, &err)) > 0)
		n++;
	assert_int_equal(ret, 0);
	assert_int_equal(n, 3);
	assert_int_equal(perfdata_stats(p)->unfinished_tail, 0);
	perfdata_close(p);

	/* killed in the middle of the last record (the AUXTRACE payload): two records */
	assert_int_equal(perfdata_open(&p, buf, len - 5, "x.data", PERFDATA_OPEN_UNFINISHED, &err), 0);
	n = 0;
	while ((ret = perfdata_next(p, &r, &err)) > 0)
		n++;
	assert_int_equal(ret, 0);
	assert_int_equal(n, 2);
	assert_int_equal(perfdata_stats(p)->unfinished_tail, perfdata_data_offset(p) + 40 + 88);
	perfdata_close(p);
	tdp_free(buf);
}

static void misuse(void **state)
{
	struct tmp *t = *state;
	struct tdp_err err = TDP_ERR_INIT;
	struct perfdata_writer *w = NULL;
	uint8_t a[256], r[16];

	assert_int_equal(perfdata_writer_open(&w, t->path, &err), 0);
	make_attr(a, 128, 1, 0, ST_A, 0);
	assert_int_equal(perfdata_writer_add_attr(w, a, 40, NULL, 0, "x", &err), TDP_EINVAL);
	tdp_err_clear(&err);
	assert_int_equal(perfdata_writer_add_attr(w, a, 128, NULL, 0, "x", &err), 0);
	rec_hdr(r, PERFDATA_RECORD_FINISHED_ROUND, 0, 8);
	assert_int_equal(perfdata_writer_add_record(w, r, 16, &err), TDP_EINVAL);
	assert_non_null(strstr(err.msg, "FINISHED_ROUND record of 8 bytes was given as 16"));
	tdp_err_clear(&err);
	assert_int_equal(perfdata_writer_add_record(w, r, 8, &err), 0);
	assert_int_equal(perfdata_writer_data_size(w), 8);
	assert_int_equal(perfdata_writer_add_attr(w, a, 128, NULL, 0, "late", &err), TDP_EINVAL);
	tdp_err_clear(&err);
	assert_int_equal(perfdata_writer_set_string(w, PERFDATA_FEAT_NRCPUS, "4", &err), TDP_EINVAL);
	tdp_err_clear(&err);
	assert_int_equal(perfdata_writer_set_feature_raw(w, PERFDATA_FEAT_EVENT_DESC, "x", 1, &err),
			 TDP_EINVAL);
	tdp_err_clear(&err);
	assert_int_equal(perfdata_writer_add_build_id(w, -1, 2, a, 21, "f", &err), TDP_EINVAL);
	assert_int_equal(perfdata_writer_close(w, NULL), 0);
}

static void alloc_failures(void **state)
{
	struct tmp *t = *state;
	long n;

	for (n = 0;; n++) {
		struct tdp_err err = TDP_ERR_INIT;
		int ret;

		tdp_alloc_fail_after(n);
		ret = write_file(t->path, true, 0, &err);
		tdp_alloc_fail_after(-1);
		if (!ret)
			break;
		if (ret != TDP_ENOMEM)
			fail_msg("allocation %ld failed gave %d '%s'", n, ret, err.msg);
		assert_true(n < 10000);
	}
	assert_true(n > 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(roundtrip, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(attr_size_kept, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(mode_0600, tmp_setup, tmp_teardown),
		cmocka_unit_test(full_disk),
		cmocka_unit_test_setup_teardown(unfinished, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(misuse, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(alloc_failures, tmp_setup, tmp_teardown),
	};

	return cmocka_run_group_tests_name("perfdata-write", tests, NULL, NULL);
}
