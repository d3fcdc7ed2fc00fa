/*
 * Unit tests of the address spaces (symbol_session_add_record, symbol_map) on
 * hand-made records, with the arithmetic in comments: file offsets, overlapping
 * maps, FORK, exec, data maps, kernel maps (including perf 3.4's), and perf's
 * text for unresolved addresses. Then the shared recordings: every branch
 * address of every sample, formatted as perf's symbol_from/symbol_to columns,
 * must give exactly the rows perf 6.1 printed in derived/...-report-mispredict.txt
 * (no binary of those machines is here: as on the machine perf ran on, every
 * address stays unresolved and shows perf's DSO-relative number).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <inttypes.h>

#include "base/file.h"
#include "base/strbuf.h"
#include "perfdata/perfdata.h"
#include "symtest.h"

static struct perfdata_record mmap2(uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
				    const char *path, uint16_t misc)
{
	struct perfdata_record r;

	memset(&r, 0, sizeof(r));
	r.type = PERFDATA_RECORD_MMAP2;
	r.misc = misc ? misc : PERFDATA_MISC_USER;
	r.u.mmap.pid = r.u.mmap.tid = pid;
	r.u.mmap.start = start;
	r.u.mmap.len = len;
	r.u.mmap.pgoff = pgoff;
	r.u.mmap.prot = 5;
	r.u.mmap.filename.s = path;
	r.u.mmap.filename.len = strlen(path) + 1; /* as in the file: NUL and padding */
	return r;
}

static struct symbol_session *new_session(void)
{
	struct symbol_session *s;
	struct symbol_opts o;

	symbol_opts_init(&o);
	o.running_kallsyms = NULL;
	o.debug_dirs = NULL;
	assert_int_equal(symbol_session_new(&s, &o, NULL), 0);
	return s;
}

static void add(struct symbol_session *s, struct perfdata_record r)
{
	struct tdp_err err = TDP_ERR_INIT;

	assert_int_equal(symbol_session_add_record(s, &r, &err), 0);
}

/* Expect (pid, addr) in `path` at file offset `off`. */
static void expect(struct symbol_session *s, uint32_t pid, uint64_t addr, const char *path,
		   uint64_t off)
{
	struct symbol_loc loc;

	if (!symbol_map(s, pid, addr, &loc))
		fail_msg("pid %u %#" PRIx64 ": unmapped, want %s+%#" PRIx64, pid, addr, path, off);
	if (strcmp(loc.path, path) || loc.file_off != off)
		fail_msg("pid %u %#" PRIx64 ": %s+%#" PRIx64 ", want %s+%#" PRIx64, pid, addr, loc.path,
			 loc.file_off, path, off);
	assert_false(loc.kernel);
	assert_int_equal(loc.dso_addr, off);
}

static void expect_unmapped(struct symbol_session *s, uint32_t pid, uint64_t addr)
{
	struct symbol_loc loc;

	assert_false(symbol_map(s, pid, addr, &loc));
	assert_null(loc.dso);
}

static void test_offsets_and_overlaps(void **state)
{
	struct symbol_session *s = new_session();

	(void)state;
	/* libA at [0x10000, 0x15000) from file offset 0x2000 */
	add(s, mmap2(100, 0x10000, 0x5000, 0x2000, "/lib/libA.so", 0));
	/* 0x10800 - 0x10000 + 0x2000 = 0x2800 */
	expect(s, 100, 0x10800, "/lib/libA.so", 0x2800);
	/* the last byte: 0x14fff - 0x10000 + 0x2000 = 0x6fff */
	expect(s, 100, 0x14fff, "/lib/libA.so", 0x6fff);
	expect_unmapped(s, 100, 0x15000);
	expect_unmapped(s, 100, 0xffff);
	/* another process does not see it */
	expect_unmapped(s, 101, 0x10800);

	/* libB over the middle [0x12000, 0x13000), offset 0x40000: libA is cut in two */
	add(s, mmap2(100, 0x12000, 0x1000, 0x40000, "/lib/libB.so", 0));
	expect(s, 100, 0x11fff, "/lib/libA.so", 0x11fff - 0x10000 + 0x2000);
	/* 0x12010 - 0x12000 + 0x40000 */
	expect(s, 100, 0x12010, "/lib/libB.so", 0x40010);
	/* what is left of libA after libB starts at 0x13000 with pgoff
	 * 0x2000 + (0x13000 - 0x10000) = 0x5000: 0x13800 -> 0x5800, the same offset
	 * as before the split (0x13800 - 0x10000 + 0x2000) */
	expect(s, 100, 0x13800, "/lib/libA.so", 0x5800);

	/* a map covering several older ones replaces them all */
	add(s, mmap2(100, 0x11000, 0x3000, 0, "/lib/libC.so", 0));
	expect(s, 100, 0x10fff, "/lib/libA.so", 0x2fff);
	expect(s, 100, 0x11000, "/lib/libC.so", 0);
	expect(s, 100, 0x12010, "/lib/libC.so", 0x1010);
	expect(s, 100, 0x13fff, "/lib/libC.so", 0x2fff);
	expect(s, 100, 0x14000, "/lib/libA.so", 0x6000);

	/* maps added out of order are found all the same */
	add(s, mmap2(100, 0x1000, 0x1000, 0, "/bin/prog", 0));
	expect(s, 100, 0x1abc, "/bin/prog", 0xabc);
	expect(s, 100, 0x14000, "/lib/libA.so", 0x6000);

	/* data maps are not code: ignored */
	add(s, mmap2(100, 0x30000, 0x1000, 0, "/data/file", PERFDATA_MISC_USER | PERFDATA_MISC_MMAP_DATA));
	expect_unmapped(s, 100, 0x30000);

	/* a deleted file maps under its recorded name */
	add(s, mmap2(100, 0x40000, 0x1000, 0, "/tmp/x (deleted)", 0));
	expect(s, 100, 0x40004, "/tmp/x (deleted)", 4);
	symbol_session_free(s);
}

static void test_fork_and_exec(void **state)
{
	struct symbol_session *s = new_session();
	struct perfdata_record r;

	(void)state;
	add(s, mmap2(100, 0x400000, 0x1000, 0, "/bin/sh", 0));
	/* a thread of 100 (pid == ppid): shares 100's maps, nothing copied */
	memset(&r, 0, sizeof(r));
	r.type = PERFDATA_RECORD_FORK;
	r.u.fork = (struct perfdata_fork){ .pid = 100, .ppid = 100, .tid = 101, .ptid = 100 };
	add(s, r);
	/* a child process 200 starts with a copy */
	r.u.fork = (struct perfdata_fork){ .pid = 200, .ppid = 100, .tid = 200, .ptid = 100 };
	add(s, r);
	expect(s, 200, 0x400123, "/bin/sh", 0x123);
	/* ... that is its own: a map added to the child is not the parent's */
	add(s, mmap2(200, 0x500000, 0x1000, 0, "/lib/libz.so", 0));
	expect(s, 200, 0x500001, "/lib/libz.so", 1);
	expect_unmapped(s, 100, 0x500001);

	/* exec in 200: COMM with COMM_EXEC, then the new image's maps */
	memset(&r, 0, sizeof(r));
	r.type = PERFDATA_RECORD_COMM;
	r.misc = PERFDATA_MISC_USER | PERFDATA_MISC_COMM_EXEC;
	r.u.comm.pid = r.u.comm.tid = 200;
	r.u.comm.comm.s = "ls";
	r.u.comm.comm.len = 3;
	add(s, r);
	add(s, mmap2(200, 0x400000, 0x2000, 0x1000, "/bin/ls", 0));
	/* the new image wins where both had a map: 0x400123 - 0x400000 + 0x1000 */
	expect(s, 200, 0x400123, "/bin/ls", 0x1123);
	/* a sample from before the exec, resolved afterwards, still finds libz */
	expect(s, 200, 0x500001, "/lib/libz.so", 1);
	/* a plain COMM (prctl rename) changes nothing */
	r.misc = PERFDATA_MISC_USER;
	add(s, r);
	expect(s, 200, 0x400123, "/bin/ls", 0x1123);
	/* FORK from an unknown parent: nothing to copy, no error */
	memset(&r, 0, sizeof(r));
	r.type = PERFDATA_RECORD_FORK;
	r.u.fork = (struct perfdata_fork){ .pid = 300, .ppid = 299, .tid = 300, .ptid = 299 };
	add(s, r);
	expect_unmapped(s, 300, 0x400123);
	symbol_session_free(s);
}

static void format(struct symbol_session *s, uint32_t pid, uint64_t addr, const char *want)
{
	struct symbol_addr a = { addr, pid };
	struct symbol_result r;
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(symbol_resolve(s, &a, 1, &r, NULL), 0);
	symbol_format_perf(&r, &sb);
	if (strcmp(sb.buf, want))
		fail_msg("pid %u %#" PRIx64 ": '%s', want '%s'", pid, addr, sb.buf, want);
	strbuf_release(&sb);
}

static void test_kernel_and_format(void **state)
{
	struct symbol_session *s = new_session();
	struct symbol_loc loc;

	(void)state;
	/* perf 6.1's kernel map: [kernel.kallsyms]_text, pgoff = _text */
	add(s, mmap2(UINT32_MAX, 0xffffffff9da00000, 0xe014ba, 0xffffffff9da00000,
		     "[kernel.kallsyms]_text", PERFDATA_MISC_KERNEL));
	add(s, mmap2(100, 0x7f0000000000, 0x10000, 0x3000, "/lib/libc.so.6", 0));
	assert_true(symbol_map(s, 100, 0xffffffff9dd022c4, &loc));
	assert_true(loc.kernel);
	assert_string_equal(loc.path, "[kernel.kallsyms]");
	assert_int_equal(loc.dso_addr, 0xffffffff9dd022c4);
	/* unresolved kernel: the address itself, 16 digits */
	format(s, 100, 0xffffffff9dd022c4, "[k] 0xffffffff9dd022c4");
	/* unresolved user: the file offset 0x7f0000001234 - 0x7f0000000000 + 0x3000 */
	format(s, 100, 0x7f0000001234, "[.] 0x0000000000004234");
	/* no map at all: the address as it is */
	format(s, 100, 0x1234, "[.] 0x0000000000001234");
	format(s, 555, 0x1234, "[.] 0x0000000000001234");
	/* above the kernel start without a kernel map: still a kernel address */
	assert_false(symbol_map(s, 100, 0xffff800000001000, &loc));
	assert_true(loc.kernel);
	/* a module */
	add(s, mmap2(UINT32_MAX, 0xffffffffc01e5000, 0x30000, 0, "/lib/modules/x/idpf.ko", PERFDATA_MISC_KERNEL));
	assert_true(symbol_map(s, 100, 0xffffffffc01e5010, &loc));
	assert_true(loc.kernel);
	assert_string_equal(loc.path, "/lib/modules/x/idpf.ko");
	format(s, 100, 0xffffffffc01e5010, "[k] 0xffffffffc01e5010");
	symbol_session_free(s);

	/* perf 3.4 wrote the kernel map as [0, 0xffffffff9fffffff) @ _stext: user
	 * maps are searched first, and what no user map holds falls in that kernel
	 * map, as in perf 6.1's report of such a file ("[k] 0000000000000000" for
	 * the zeroed entries: '#' prints no 0x for 0) */
	s = new_session();
	add(s, mmap2(UINT32_MAX, 0, 0xffffffff9fffffff, 0xffffffff81000190, "[kernel.kallsyms]_stext",
		     PERFDATA_MISC_KERNEL));
	add(s, mmap2(1, 0x7f17edb05000, 0xc000, 0, "/lib64/libnss_files-2.15.so", 0));
	expect(s, 1, 0x7f17edb05010, "/lib64/libnss_files-2.15.so", 0x10);
	format(s, 1, 0x7f17edb05010, "[.] 0x0000000000000010");
	assert_true(symbol_map(s, 1, 0xffffffff811c4a28, &loc));
	assert_true(loc.kernel);
	format(s, 1, 0xffffffff811c4a28, "[k] 0xffffffff811c4a28");
	format(s, 1, 0, "[k] 0000000000000000");
	format(s, 1, 0x400000, "[k] 0x0000000000400000");
	symbol_session_free(s);
}

/* ---------------------------------------------------------------------------
 * The shared recordings
 * ------------------------------------------------------------------------- */

struct pair {
	char *from, *to;
	bool seen;
};

static const char *shared(char *buf, size_t size, const char *name)
{
	const char *dir = getenv("TDPROF_SHARED_DATA");

	if (!dir || !*dir)
		return NULL;
	snprintf(buf, size, "%s/perfdata/%s", dir, name);
	return access(buf, R_OK) ? NULL : buf;
}

/*
 * perf's rows "  3.45%  [.] 0x...  [.] 0x...  N ..." as (from, to) text pairs.
 * *complete: the file goes on past the rows (perf's closing "# (Tip: ...)"); the
 * 3.4 one was cut at 200 lines.
 */
static size_t perf_rows(const char *path, struct pair **out, bool *complete)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	struct pair *v = NULL;
	size_t nr = 0;

	assert_non_null(f);
	*complete = false;
	while (fgets(line, sizeof(line), f)) {
		char l1, l2;
		char a1[64], a2[64], pct[16];

		if (line[0] == '#') {
			*complete = nr > 0;
			continue;
		}
		if (sscanf(line, " %15s [%c] %63s [%c] %63s", pct, &l1, a1, &l2, a2) != 5)
			continue;
		/* perf named [vdso] addresses of the 3.4 recording with the vdso of the
		 * machine it ran on (perf's vdso.c copies its own): a different kernel's,
		 * not checked against the recorded build-id. We do not guess: such rows
		 * cannot match, leave them out. */
		if (!isxdigit((unsigned char)a1[0]) || !isxdigit((unsigned char)a2[0]))
			continue;
		v = realloc(v, (nr + 1) * sizeof(*v));
		v[nr].from = malloc(80);
		v[nr].to = malloc(80);
		snprintf(v[nr].from, 80, "[%c] %s", l1, a1);
		snprintf(v[nr].to, 80, "[%c] %s", l2, a2);
		v[nr].seen = false;
		nr++;
	}
	fclose(f);
	*out = v;
	return nr;
}

static void check_fixture(const char *name)
{
	char path[4096], report[4096], empty[] = "/tmp/tdprof-test-maps-XXXXXX";
	struct tdp_file f = TDP_FILE_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	struct perfdata *p;
	struct perfdata_record rec;
	struct symbol_session *s;
	struct symbol_opts o;
	struct symbol_addr *addrs = NULL;
	size_t nr = 0, alloc = 0, nr_rows;
	struct pair *rows;
	bool complete;
	int ret;

	if (!shared(path, sizeof(path), name))
		skip();
	snprintf(report, sizeof(report), "%s/perfdata/derived/%s.perf6.1-report-mispredict.txt",
		 getenv("TDPROF_SHARED_DATA"), name);
	nr_rows = perf_rows(report, &rows, &complete);
	assert_true(nr_rows > 10);

	/* an empty --symfs: none of the recorded binaries can be read, as for perf */
	assert_non_null(mkdtemp(empty));
	symbol_opts_init(&o);
	o.symfs = empty;
	o.debug_dirs = NULL;
	o.running_kallsyms = NULL;
	assert_int_equal(symbol_session_new(&s, &o, &err), 0);
	assert_int_equal(tdp_file_open(&f, path, 0, &err), 0);
	assert_int_equal(perfdata_open(&p, f.data, f.size, path, 0, &err), 0);
	assert_int_equal(symbol_session_add_features(s, perfdata_features(p), &err), 0);
	while ((ret = perfdata_next(p, &rec, &err)) > 0) {
		assert_int_equal(symbol_session_add_record(s, &rec, &err), 0);
		if (rec.type != PERFDATA_RECORD_SAMPLE || !rec.attr)
			continue;
		for (size_t i = 0; i < rec.u.sample.nr_branches; i++) {
			const struct branch_entry *e = &rec.u.sample.branches[i];

			if (nr + 2 > alloc) {
				alloc = alloc ? alloc * 2 : 1024;
				addrs = realloc(addrs, alloc * sizeof(*addrs));
			}
			addrs[nr++] = (struct symbol_addr){ e->from, rec.u.sample.pid };
			addrs[nr++] = (struct symbol_addr){ e->to, rec.u.sample.pid };
		}
	}
	assert_int_equal(ret, 0);
	assert_true(nr > 0);

	struct symbol_result *res = calloc(nr, sizeof(*res));
	struct strbuf from = STRBUF_INIT, to = STRBUF_INIT;
	size_t pairs = 0;

	assert_int_equal(symbol_resolve(s, addrs, nr, res, &err), 0);
	for (size_t i = 0; i < nr; i += 2) {
		bool found = false;

		strbuf_reset(&from);
		strbuf_reset(&to);
		assert_true(res[i].function == NULL && res[i + 1].function == NULL);
		symbol_format_perf(&res[i], &from);
		symbol_format_perf(&res[i + 1], &to);
		/* one row per mispredicted flag: Y and N rows share the pair */
		for (size_t k = 0; k < nr_rows; k++) {
			if (!strcmp(rows[k].from, from.buf) && !strcmp(rows[k].to, to.buf)) {
				rows[k].seen = true;
				found = true;
			}
		}
		if (!found && complete)
			fail_msg("%s: pid %u %#" PRIx64 " -> %#" PRIx64 " gives '%s' -> '%s', a row perf "
				 "does not have", name, addrs[i].pid, addrs[i].addr, addrs[i + 1].addr,
				 from.buf, to.buf);
		pairs++;
	}
	for (size_t k = 0; k < nr_rows; k++)
		if (!rows[k].seen)
			fail_msg("%s: perf's row '%s' -> '%s' never came out", name, rows[k].from, rows[k].to);
	for (size_t k = 0; k < nr_rows; k++) {
		free(rows[k].from);
		free(rows[k].to);
	}
	free(rows);
	strbuf_release(&from);
	strbuf_release(&to);
	free(res);
	free(addrs);
	symbol_session_free(s);
	perfdata_close(p);
	tdp_file_close(&f);
	rmdir(empty);
}

static void test_fixture_spec(void **state)
{
	(void)state;
	check_fixture("perf.data.branch_stack_spec");
}

static void test_fixture_hw_index(void **state)
{
	(void)state;
	check_fixture("perf.data.branch_stack_hw_index");
}

static void test_fixture_3_4(void **state)
{
	(void)state;
	check_fixture("perf.data.raw_callgraph_branch-3.4");
}

/* Limits and allocation failures: every ENOMEM path leaves a session that can
 * still be freed, and no failure is reported as success. */
static void test_enomem(void **state)
{
	(void)state;
	for (long n = 0;; n++) {
		struct symbol_session *s = NULL;
		struct symbol_opts o;
		struct tdp_err err = TDP_ERR_INIT;
		struct perfdata_record r = mmap2(1, 0x1000, 0x1000, 0, "/bin/a", 0);
		int ret;
		long made;

		symbol_opts_init(&o);
		tdp_alloc_fail_after(n);
		ret = symbol_session_new(&s, &o, &err);
		for (uint32_t pid = 1; !ret && pid < 40; pid++) {
			r.u.mmap.pid = pid;
			ret = symbol_session_add_record(s, &r, &err);
		}
		made = tdp_alloc_fail_after(-1);
		if (ret) {
			assert_int_equal(ret, TDP_ENOMEM);
			assert_int_equal(err.code, TDP_ENOMEM);
		}
		symbol_session_free(s);
		if (!ret) {
			assert_true(n > 3);
			break;
		}
		(void)made;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offsets_and_overlaps),
		cmocka_unit_test(test_fork_and_exec),
		cmocka_unit_test(test_kernel_and_format),
		cmocka_unit_test(test_fixture_spec),
		cmocka_unit_test(test_fixture_hw_index),
		cmocka_unit_test(test_fixture_3_4),
		cmocka_unit_test(test_enomem),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
