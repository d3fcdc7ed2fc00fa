/*
 * Unit tests of finding binaries and their debug info (symbol_resolve on maps
 * whose files live elsewhere): perf's build-id cache in both layouts (a file, or
 * a directory with `elf`), --symfs, a separate debug file found by build-id and
 * by .gnu_debuglink, a binary whose build-id is not the recorded one (never
 * symbolized), the BUILD_ID feature supplying the build-id of an MMAP record, a
 * stripped shared library (names from .dynsym only: "no debug info"), missing
 * files and anonymous memory. The expected functions and lines come from nm and
 * addr2line run on the unstripped binary.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <inttypes.h>

#include "base/strbuf.h"
#include "perfdata/perfdata.h"
#include "symtest.h"

static char tmp[] = "/tmp/tdprof-test-lookup-XXXXXX";
static bool have_tools;
static char prog[1024], prog2[1024];
static uint8_t bid[20], bid2[20];
static size_t bid_size, bid2_size;
static uint64_t collatz_vaddr, util_vaddr; /* from nm */
static char collatz_line[2048];           /* addr2line of collatz_steps+4 */

static uint64_t nm_addr(const char *bin, const char *name, bool dynamic)
{
	char *argv[] = { "nm", dynamic ? "-D" : "--defined-only", (char *)bin, NULL };
	char *out, *cur, *line;
	uint64_t a = 0;

	assert_int_equal(st_run(argv, &out), 0);
	cur = out;
	while ((line = st_next_line(&cur))) {
		uint64_t v;
		char type, n[256];

		if (sscanf(line, "%" SCNx64 " %c %255s", &v, &type, n) == 3 && !strcmp(n, name))
			a = v;
	}
	free(out);
	assert_true(a != 0);
	return a;
}

static void a2l(const char *bin, uint64_t vaddr, char *out, size_t size)
{
	char addr[32];
	char *argv[] = { "addr2line", "-e", (char *)bin, addr, NULL };
	char *text;

	snprintf(addr, sizeof(addr), "%#" PRIx64, vaddr);
	assert_int_equal(st_run(argv, &text), 0);
	st_chomp(text);
	snprintf(out, size, "%s", text);
	free(text);
}

static void path_of(char *buf, size_t size, const char *rel)
{
	snprintf(buf, size, "%s/%s", tmp, rel);
}

/* DIR/.build-id/xx/yyyy...SUFFIX for bid */
static void bid_path(char *buf, size_t size, const char *dir, const uint8_t *id, size_t n,
		     const char *suffix)
{
	size_t len = (size_t)snprintf(buf, size, "%s/.build-id/%02x/", dir, id[0]);

	for (size_t i = 1; i < n; i++)
		len += (size_t)snprintf(buf + len, size - len, "%02x", id[i]);
	snprintf(buf + len, size - len, "%s", suffix);
}

struct session {
	struct symbol_session *s;
	struct symbol_opts o;
	const char *bdirs[2];
	const char *ddirs[2];
};

static void open_session(struct session *ss, const char *symfs, const char *buildid_dir,
			 const char *debug_dir)
{
	symbol_opts_init(&ss->o);
	ss->bdirs[0] = buildid_dir;
	ss->bdirs[1] = NULL;
	ss->ddirs[0] = debug_dir;
	ss->ddirs[1] = NULL;
	ss->o.symfs = symfs;
	ss->o.buildid_dirs = buildid_dir ? ss->bdirs : NULL;
	ss->o.debug_dirs = debug_dir ? ss->ddirs : NULL;
	ss->o.running_kallsyms = NULL;
	assert_int_equal(symbol_session_new(&ss->s, &ss->o, NULL), 0);
}

/* Map `file` (whose PT_LOADs are read) as recorded_path with build-id bid_in,
 * resolve vaddr and return the result. */
static struct symbol_result map_and_resolve(struct session *ss, const char *file,
					    const char *recorded, const uint8_t *id, size_t n,
					    uint64_t vaddr)
{
	struct symbol_addr a = { ST_PIE_BASE + vaddr, 9 };
	struct symbol_result r;

	assert_true(st_map_elf(ss->s, 9, file, ST_PIE_BASE, recorded, id, n) > 0);
	assert_int_equal(symbol_resolve(ss->s, &a, 1, &r, NULL), 0);
	return r;
}

static void expect_collatz(const struct symbol_result *r, bool lines)
{
	char loc[3072];

	assert_int_equal(r->status, SYMBOL_OK);
	assert_string_equal(r->function, "collatz_steps");
	assert_int_equal(r->offset, 4);
	if (!lines) {
		assert_null(r->file);
		return;
	}
	assert_non_null(r->file);
	snprintf(loc, sizeof(loc), "%s:%u", r->file, r->line);
	assert_string_equal(loc, collatz_line);
	assert_null(r->note);
}

static void test_build_id_cache_file(void **state)
{
	struct session ss;
	char cache[1024], entry[2048];
	struct symbol_result r;

	(void)state;
	if (!have_tools)
		skip();
	path_of(cache, sizeof(cache), "cache-file");
	bid_path(entry, sizeof(entry), cache, bid, bid_size, "");
	*strrchr(entry, '/') = '\0';
	st_mkdirs(entry);
	bid_path(entry, sizeof(entry), cache, bid, bid_size, "");
	assert_true(st_copy(prog, entry));
	open_session(&ss, NULL, cache, NULL);
	/* recorded at a path that does not exist here */
	r = map_and_resolve(&ss, prog, "/opt/gone/prog", bid, bid_size, collatz_vaddr + 4);
	expect_collatz(&r, true);
	assert_string_equal(r.binary, entry);
	assert_string_equal(r.dso, "/opt/gone/prog");
	symbol_session_free(ss.s);
}

static void test_build_id_cache_dir(void **state)
{
	struct session ss;
	char cache[1024], dir[2048], elf[3072];
	struct symbol_result r;

	(void)state;
	if (!have_tools)
		skip();
	/* perf >= 4.x: .build-id/xx/yyyy is a directory holding `elf` */
	path_of(cache, sizeof(cache), "cache-dir");
	bid_path(dir, sizeof(dir), cache, bid, bid_size, "");
	st_mkdirs(dir);
	snprintf(elf, sizeof(elf), "%s/elf", dir);
	assert_true(st_copy(prog, elf));
	open_session(&ss, NULL, cache, NULL);
	r = map_and_resolve(&ss, prog, "/opt/gone/prog", bid, bid_size, collatz_vaddr + 4);
	expect_collatz(&r, true);
	assert_string_equal(r.binary, elf);
	symbol_session_free(ss.s);
}

static void test_symfs(void **state)
{
	struct session ss;
	char symfs[1024], dest[2048], empty[1024];
	struct symbol_result r;

	(void)state;
	if (!have_tools)
		skip();
	path_of(symfs, sizeof(symfs), "symfs");
	snprintf(dest, sizeof(dest), "%s/usr/local/bin", symfs);
	st_mkdirs(dest);
	snprintf(dest, sizeof(dest), "%s/usr/local/bin/prog", symfs);
	assert_true(st_copy(prog, dest));
	open_session(&ss, symfs, NULL, NULL);
	r = map_and_resolve(&ss, prog, "/usr/local/bin/prog", NULL, 0, collatz_vaddr + 4);
	expect_collatz(&r, true);
	assert_string_equal(r.binary, dest);
	symbol_session_free(ss.s);

	/* with --symfs, only the symfs is searched: the real path is not read */
	path_of(empty, sizeof(empty), "symfs-empty");
	st_mkdirs(empty);
	open_session(&ss, empty, NULL, NULL);
	r = map_and_resolve(&ss, prog, prog, NULL, 0, collatz_vaddr + 4);
	assert_int_equal(r.status, SYMBOL_NO_BINARY);
	assert_null(r.function);
	assert_non_null(strstr(r.note, "symfs-empty"));
	symbol_session_free(ss.s);
}

static void test_mismatch(void **state)
{
	struct session ss;
	struct symbol_result r;
	struct strbuf sb = STRBUF_INIT;
	char want[64];

	(void)state;
	if (!have_tools)
		skip();
	assert_true(bid2_size && memcmp(bid, bid2, bid_size));
	/* the recording says prog2's build-id, the file at the path is prog */
	open_session(&ss, NULL, NULL, NULL);
	r = map_and_resolve(&ss, prog, prog, bid2, bid2_size, collatz_vaddr + 4);
	assert_int_equal(r.status, SYMBOL_BUILD_ID_MISMATCH);
	assert_null(r.function);
	assert_null(r.file);
	assert_non_null(strstr(r.note, "binary changed since recording"));
	/* printed as perf prints an unresolved address: the file offset */
	symbol_format_perf(&r, &sb);
	snprintf(want, sizeof(want), "[.] %#.16" PRIx64, collatz_vaddr + 4);
	assert_string_equal(sb.buf, want);
	strbuf_release(&sb);
	symbol_session_free(ss.s);

	/* the same through the BUILD_ID feature (an MMAP record without one) */
	struct perfdata_build_id b;
	struct perfdata_features f;

	memset(&b, 0, sizeof(b));
	memset(&f, 0, sizeof(f));
	b.pid = -1;
	b.misc = PERFDATA_MISC_USER;
	b.size = (uint8_t)bid2_size;
	memcpy(b.id, bid2, bid2_size);
	b.filename = prog;
	f.build_ids = &b;
	f.nr_build_ids = 1;
	open_session(&ss, NULL, NULL, NULL);
	assert_int_equal(symbol_session_add_features(ss.s, &f, NULL), 0);
	r = map_and_resolve(&ss, prog, prog, NULL, 0, collatz_vaddr + 4);
	assert_int_equal(r.status, SYMBOL_BUILD_ID_MISMATCH);
	symbol_session_free(ss.s);

	/* and the right build-id through the feature resolves */
	memcpy(b.id, bid, bid_size);
	b.size = (uint8_t)bid_size;
	open_session(&ss, NULL, NULL, NULL);
	assert_int_equal(symbol_session_add_features(ss.s, &f, NULL), 0);
	r = map_and_resolve(&ss, prog, prog, NULL, 0, collatz_vaddr + 4);
	expect_collatz(&r, true);
	symbol_session_free(ss.s);
}

static bool run3(const char *a, const char *b, const char *c, const char *d)
{
	char *argv[] = { (char *)a, (char *)b, (char *)c, (char *)d, NULL };

	return st_run(argv, NULL) == 0;
}

static void test_debug_file_by_build_id(void **state)
{
	struct session ss;
	char stripped[1024], debug_root[1024], dbg[2048];
	struct symbol_result r;

	(void)state;
	if (!have_tools)
		skip();
	/* the distribution layout: the binary stripped of everything, its
	 * symbols and DWARF in /usr/lib/debug/.build-id/xx/yyyy.debug */
	path_of(stripped, sizeof(stripped), "prog-stripped");
	path_of(debug_root, sizeof(debug_root), "usr-lib-debug");
	bid_path(dbg, sizeof(dbg), debug_root, bid, bid_size, ".debug");
	*strrchr(dbg, '/') = '\0';
	st_mkdirs(dbg);
	bid_path(dbg, sizeof(dbg), debug_root, bid, bid_size, ".debug");
	assert_true(run3("objcopy", "--only-keep-debug", prog, dbg));
	assert_true(st_copy(prog, stripped));
	assert_true(run3("strip", "--strip-all", stripped, stripped));

	/* without the debug root: no .symtab, no DWARF; main is not exported */
	open_session(&ss, NULL, NULL, NULL);
	r = map_and_resolve(&ss, stripped, stripped, bid, bid_size, collatz_vaddr + 4);
	assert_int_equal(r.status, SYMBOL_NO_SYMBOL);
	assert_null(r.function);
	assert_null(r.file);
	assert_string_equal(r.note, "no debug info");
	symbol_session_free(ss.s);

	open_session(&ss, NULL, NULL, debug_root);
	r = map_and_resolve(&ss, stripped, stripped, bid, bid_size, collatz_vaddr + 4);
	expect_collatz(&r, true);
	assert_string_equal(r.binary, stripped);
	symbol_session_free(ss.s);

	/* only the debug file (no binary at all): symbols and lines still work */
	open_session(&ss, NULL, NULL, debug_root);
	r = map_and_resolve(&ss, stripped, "/opt/gone/prog", bid, bid_size, collatz_vaddr + 4);
	expect_collatz(&r, true);
	assert_string_equal(r.binary, dbg);
	/* ... but there is no code to disassemble */
	struct symbol_disasm d = SYMBOL_DISASM_INIT;
	struct tdp_err err = TDP_ERR_INIT;

	assert_int_equal(symbol_disasm(ss.s, 9, ST_PIE_BASE + collatz_vaddr, 0, 2, &d, &err), TDP_ENOENT);
	assert_non_null(strstr(err.msg, "/opt/gone/prog"));
	symbol_session_free(ss.s);
}

static void test_debuglink(void **state)
{
	struct session ss;
	char dir[1024], bin[2048], dbg[3072], dotdebug[2048], link[3200];
	struct symbol_result r;

	(void)state;
	if (!have_tools)
		skip();
	path_of(dir, sizeof(dir), "debuglink");
	snprintf(dotdebug, sizeof(dotdebug), "%s/.debug", dir);
	st_mkdirs(dotdebug);
	snprintf(bin, sizeof(bin), "%s/prog", dir);
	snprintf(dbg, sizeof(dbg), "%s/prog.dbg", dotdebug);
	assert_true(run3("objcopy", "--only-keep-debug", prog, dbg));
	assert_true(st_copy(prog, bin));
	assert_true(run3("strip", "--strip-debug", bin, bin));
	snprintf(link, sizeof(link), "--add-gnu-debuglink=%s", dbg);
	assert_true(run3("objcopy", link, bin, bin));
	/* no build-id recorded (old perf): the debuglink in <dir>/.debug/ is found */
	open_session(&ss, NULL, NULL, NULL);
	r = map_and_resolve(&ss, bin, bin, NULL, 0, collatz_vaddr + 4);
	expect_collatz(&r, true);
	symbol_session_free(ss.s);
	/* stripped of debug info without a link: functions but "no debug info" */
	assert_true(run3("objcopy", "--remove-section=.gnu_debuglink", bin, bin));
	open_session(&ss, NULL, NULL, NULL);
	r = map_and_resolve(&ss, bin, bin, NULL, 0, collatz_vaddr + 4);
	expect_collatz(&r, false);
	assert_string_equal(r.note, "no debug info");
	assert_int_equal(r.nr_frames, 0);
	symbol_session_free(ss.s);
}

static void test_stripped_library(void **state)
{
	struct session ss;
	char src[1024], lib[1024];
	struct symbol_result r;
	uint64_t square, cube;

	(void)state;
	if (!have_tools)
		skip();
	st_src(src, sizeof(src), "lib.c");
	path_of(lib, sizeof(lib), "libt.so");
	char *cc[] = { "gcc", "-O1", "-g", "-shared", "-fPIC", "-o", lib, src, NULL };

	assert_int_equal(st_run(cc, NULL), 0);
	assert_true(run3("strip", "--strip-all", lib, lib));
	square = nm_addr(lib, "lib_square", true);
	cube = nm_addr(lib, "lib_cube", true);
	open_session(&ss, NULL, NULL, NULL);
	r = map_and_resolve(&ss, lib, lib, NULL, 0, cube + 1);
	assert_int_equal(r.status, SYMBOL_OK);
	assert_string_equal(r.function, "lib_cube");
	assert_int_equal(r.offset, 1);
	assert_null(r.file);
	assert_int_equal(r.nr_frames, 0);
	assert_string_equal(r.note, "no debug info");
	struct symbol_addr a = { ST_PIE_BASE + square, 9 };

	assert_int_equal(symbol_resolve(ss.s, &a, 1, &r, NULL), 0);
	assert_string_equal(r.function, "lib_square");
	assert_int_equal(r.offset, 0);
	symbol_session_free(ss.s);
}

/* addr2line -f -i on the original binary: the inline chain's function names */
static size_t a2l_chain(const char *bin, uint64_t vaddr, char names[][256], size_t max)
{
	char addr[32];
	char *argv[] = { "addr2line", "-f", "-i", "-e", (char *)bin, addr, NULL };
	char *text, *cur, *line;
	size_t n = 0;

	snprintf(addr, sizeof(addr), "%#" PRIx64, vaddr);
	assert_int_equal(st_run(argv, &text), 0);
	cur = text;
	while (n < max && (line = st_next_line(&cur))) {
		snprintf(names[n++], 256, "%s", line);
		if (!st_next_line(&cur))
			break;
	}
	free(text);
	return n;
}

/*
 * dwz: the subprogram DIEs of inlined functions move to a common file named by
 * .gnu_debugaltlink. The link here is relative (libdw cannot find it without the
 * binary's directory) and then only reachable by build-id.
 */
static void test_dwz(void **state)
{
	char dir[1024], a1[2048], a2[2048], common[2048], orig[2048];
	char src1[1024], src2[1024], names[8][256];
	struct session ss;
	struct symbol_result r;
	uint64_t outer;
	size_t want = 0, k;

	(void)state;
	if (!have_tools || !st_have("dwz"))
		skip();
	path_of(dir, sizeof(dir), "dwz");
	st_mkdirs(dir);
	st_src(src1, sizeof(src1), "prog.c");
	st_src(src2, sizeof(src2), "prog-util.c");
	snprintf(a1, sizeof(a1), "%s/a1", dir);
	snprintf(a2, sizeof(a2), "%s/a2", dir);
	snprintf(orig, sizeof(orig), "%s/orig", dir);
	snprintf(common, sizeof(common), "%s/common.debug", dir);
	char *cc[] = { "gcc", "-O2", "-g", "-o", a1, src1, src2, NULL };

	assert_int_equal(st_run(cc, NULL), 0);
	assert_true(st_copy(a1, a2));
	assert_true(st_copy(a1, orig));
	/* dwz needs two files to share; -M records the name "common.debug" */
	char *dz[] = { "dwz", "-m", common, "-M", "common.debug", a1, a2, NULL };

	if (st_run(dz, NULL))
		skip();
	outer = nm_addr(orig, "outer", false);
	/* the address of the innermost inlined leaf() in outer(): the deepest chain
	 * addr2line reports in outer's first 64 bytes */
	uint64_t at = outer;

	for (uint64_t v = outer; v < outer + 64; v++) {
		size_t n = a2l_chain(orig, v, names, 8);

		if (n > want) {
			want = n;
			at = v;
		}
	}
	assert_true(want >= 3); /* leaf in middle in outer */
	want = a2l_chain(orig, at, names, 8);
	/* next to the debug file: found through the relative link */
	open_session(&ss, NULL, NULL, NULL);
	r = map_and_resolve(&ss, a1, a1, NULL, 0, at);
	assert_int_equal(r.nr_frames, want);
	for (k = 0; k < want; k++)
		assert_string_equal(r.frames[k].function, names[k]);
	symbol_session_free(ss.s);

	/* moved away: only its build-id finds it, under a debug root */
	char root[1024], byid[2048];
	uint8_t cid[20] = { 0 };
	size_t cn = st_build_id(common, cid);

	assert_true(cn > 0);
	path_of(root, sizeof(root), "dwz-root");
	bid_path(byid, sizeof(byid), root, cid, cn, "");
	*strrchr(byid, '/') = '\0';
	st_mkdirs(byid);
	bid_path(byid, sizeof(byid), root, cid, cn, ".debug");
	assert_int_equal(rename(common, byid), 0);
	open_session(&ss, NULL, NULL, NULL);
	r = map_and_resolve(&ss, a1, a1, NULL, 0, at);
	/* without it: lines, but the inlined functions have no names */
	assert_non_null(r.file);
	assert_true(r.nr_frames == 0 || r.frames[0].function == NULL ||
		    strcmp(r.frames[0].function, names[0]));
	symbol_session_free(ss.s);
	open_session(&ss, NULL, NULL, root);
	r = map_and_resolve(&ss, a1, a1, NULL, 0, at);
	assert_int_equal(r.nr_frames, want);
	for (k = 0; k < want; k++)
		assert_string_equal(r.frames[k].function, names[k]);
	symbol_session_free(ss.s);
}

static void test_missing_and_anon(void **state)
{
	struct session ss;
	struct symbol_mmap m;
	struct symbol_addr a[3] = { { 0x10010, 5 }, { 0x20010, 5 }, { 0x30010, 5 } };
	struct symbol_result r[3];

	(void)state;
	open_session(&ss, NULL, NULL, NULL);
	memset(&m, 0, sizeof(m));
	m.pid = 5;
	m.len = 0x1000;
	m.start = 0x10000;
	m.path = "/no/such/file";
	assert_int_equal(symbol_session_add_mmap(ss.s, &m, NULL), 0);
	m.start = 0x20000;
	m.path = "//anon";
	assert_int_equal(symbol_session_add_mmap(ss.s, &m, NULL), 0);
	m.start = 0x30000;
	m.path = "[vdso]";
	assert_int_equal(symbol_session_add_mmap(ss.s, &m, NULL), 0);
	assert_int_equal(symbol_resolve(ss.s, a, 3, r, NULL), 0);
	assert_int_equal(r[0].status, SYMBOL_NO_BINARY);
	assert_non_null(strstr(r[0].note, "'/no/such/file'"));
	assert_int_equal(r[0].dso_addr, 0x10);
	assert_int_equal(r[1].status, SYMBOL_NO_BINARY);
	assert_non_null(strstr(r[1].note, "anonymous"));
	assert_int_equal(r[2].status, SYMBOL_NO_BINARY);
	symbol_session_free(ss.s);
}

static int setup(void **state)
{
	char src1[1024], src2[1024];

	(void)state;
	if (!mkdtemp(tmp))
		return -1;
	have_tools = st_have("gcc") && st_have("nm") && st_have("addr2line") && st_have("objcopy") &&
		     st_have("strip");
	if (!have_tools)
		return 0;
	st_src(src1, sizeof(src1), "prog.c");
	st_src(src2, sizeof(src2), "prog-util.c");
	path_of(prog, sizeof(prog), "prog");
	path_of(prog2, sizeof(prog2), "prog2");
	char *cc1[] = { "gcc", "-O1", "-g", "-Wl,--build-id", "-o", prog, src1, src2, NULL };
	char *cc2[] = { "gcc", "-O2", "-g", "-Wl,--build-id", "-o", prog2, src1, src2, NULL };

	if (st_run(cc1, NULL) || st_run(cc2, NULL))
		return -1;
	bid_size = st_build_id(prog, bid);
	bid2_size = st_build_id(prog2, bid2);
	if (!bid_size || !bid2_size)
		return -1;
	collatz_vaddr = nm_addr(prog, "collatz_steps", false);
	util_vaddr = nm_addr(prog, "util_mix", false);
	a2l(prog, collatz_vaddr + 4, collatz_line, sizeof(collatz_line));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	st_rm_rf(tmp);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_id_cache_file),
		cmocka_unit_test(test_build_id_cache_dir),
		cmocka_unit_test(test_symfs),
		cmocka_unit_test(test_mismatch),
		cmocka_unit_test(test_debug_file_by_build_id),
		cmocka_unit_test(test_debuglink),
		cmocka_unit_test(test_stripped_library),
		cmocka_unit_test(test_dwz),
		cmocka_unit_test(test_missing_and_anon),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
