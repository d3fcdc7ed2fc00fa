/*
 * Unit tests of kernel addresses: kallsyms is used only when it belongs to the
 * recorded kernel (the running kernel's build-id equals the recorded one, or the
 * user named the file), the KASLR shift between the recording and the file is
 * undone through the reference symbol of the kernel map, modules from another
 * boot stay unresolved, and a kallsyms with hidden (zero) addresses or garbage
 * lines is refused or skipped. Fake notes and kallsyms files are written here;
 * the last test uses this machine's own /proc/kallsyms and /sys/kernel/notes.
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

static char tmp[] = "/tmp/tdprof-test-kernel-XXXXXX";
static char notes[1024], ksyms[1024], ksyms_zero[1024];

static const uint8_t kbid[20] = { 0x4a, 0x5a, 0x9b, 0x0a, 0xff, 0xb6, 0x6c, 0x43, 0x7a, 0xbc,
				  0xd4, 0x55, 0xd2, 0x73, 0x8a, 0xf8, 0x79, 0x98, 0x5f, 0xa9 };

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

/* An ELF note section as /sys/kernel/notes holds it: a Xen note first, then the
 * GNU build-id (namesz 4 "GNU\0", descsz 20, type 3). */
static size_t make_notes(uint8_t *buf, const uint8_t *id)
{
	size_t n = 0;
	uint32_t h[3];

	h[0] = 4, h[1] = 4, h[2] = 0x13; /* "Xen", 4-byte desc */
	memcpy(buf + n, h, 12), n += 12;
	memcpy(buf + n, "Xen", 4), n += 4;
	memset(buf + n, 0x11, 4), n += 4;
	h[0] = 4, h[1] = 20, h[2] = 3;
	memcpy(buf + n, h, 12), n += 12;
	memcpy(buf + n, "GNU", 4), n += 4;
	memcpy(buf + n, id, 20), n += 20;
	return n;
}

struct ks {
	struct symbol_session *s;
	struct symbol_opts o;
};

/* A session whose recording had a kernel of build-id `id` (NULL: none recorded)
 * with _text at `text` (the kernel map's pgoff). */
static void open_ks(struct ks *k, const uint8_t *id, uint64_t text, const char *kallsyms,
		    const char *running)
{
	struct perfdata_build_id b;
	struct perfdata_features f;
	struct symbol_mmap m;

	symbol_opts_init(&k->o);
	k->o.kallsyms = kallsyms;
	k->o.running_kallsyms = running;
	k->o.running_notes = notes;
	assert_int_equal(symbol_session_new(&k->s, &k->o, NULL), 0);
	memset(&f, 0, sizeof(f));
	memset(&b, 0, sizeof(b));
	if (id) {
		b.pid = -1;
		b.misc = PERFDATA_MISC_KERNEL;
		b.size = 20;
		memcpy(b.id, id, 20);
		b.filename = "[kernel.kallsyms]";
		f.build_ids = &b;
		f.nr_build_ids = 1;
	}
	assert_int_equal(symbol_session_add_features(k->s, &f, NULL), 0);
	memset(&m, 0, sizeof(m));
	m.pid = UINT32_MAX;
	m.kernel = true;
	m.start = text;
	m.len = 0x2000000;
	m.pgoff = text;
	m.path = "[kernel.kallsyms]_text";
	assert_int_equal(symbol_session_add_mmap(k->s, &m, NULL), 0);
	/* a module loaded at 0xffffffffc0200000 */
	m.start = 0xffffffffc0200000;
	m.len = 0x10000;
	m.pgoff = 0;
	m.path = "/lib/modules/6.1.0/kernel/fs/fat/fat.ko";
	assert_int_equal(symbol_session_add_mmap(k->s, &m, NULL), 0);
}

static struct symbol_result resolve1(struct ks *k, uint64_t addr)
{
	struct symbol_addr a = { addr, 1234 };
	struct symbol_result r;

	assert_int_equal(symbol_resolve(k->s, &a, 1, &r, NULL), 0);
	assert_true(r.kernel);
	return r;
}

/*
 * The fake kallsyms (sorted by the file's addresses as the kernel prints them):
 *   ffffffff81000000 T _text            (also _stext: an alias at the same address)
 *   ffffffff81010d00 T do_thing         size up to the next: 0x100
 *   ffffffff81010e00 t helper
 *   ffffffff81010f00 D some_data        (data: not a function)
 *   ffffffff81011000 W weak_fn
 *   ffffffffc0200100 t fat_fill [fat]
 */
static const char kallsyms_text[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81010d00 T do_thing\n"
	"ffffffff81010e00 t helper\n"
	"ffffffff81010f00 D some_data\n"
	"ffffffff81011000 W weak_fn\n"
	"garbage line without fields\n"
	"zzzz T not_hex\n"
	"ffffffff81011100\n"
	"ffffffffc0200100 t fat_fill\t[fat]\n"
	"ffffffffc0200200 t fat_end\t[fat]"; /* no final newline */

static void test_same_kernel(void **state)
{
	struct ks k;
	struct symbol_result r;

	(void)state;
	/* the running kernel (notes) is the recorded one, and booted with the same
	 * KASLR offset: no shift */
	open_ks(&k, kbid, 0xffffffff81000000, NULL, ksyms);
	r = resolve1(&k, 0xffffffff81010d80);
	assert_int_equal(r.status, SYMBOL_OK);
	assert_string_equal(r.function, "do_thing");
	assert_int_equal(r.offset, 0x80);
	assert_int_equal(r.func_size, 0x100);
	assert_int_equal(r.dso_addr, 0xffffffff81010d80);
	/* local text symbol */
	r = resolve1(&k, 0xffffffff81010e04);
	assert_string_equal(r.function, "helper");
	/* some_data is not text: helper runs up to weak_fn */
	r = resolve1(&k, 0xffffffff81010f10);
	assert_string_equal(r.function, "helper");
	assert_int_equal(r.offset, 0x110);
	r = resolve1(&k, 0xffffffff81011008);
	assert_string_equal(r.function, "weak_fn");
	/* the module, same boot */
	r = resolve1(&k, 0xffffffffc0200108);
	assert_string_equal(r.function, "fat_fill");
	r = resolve1(&k, 0xffffffffc0200200);
	assert_string_equal(r.function, "fat_end");
	/* before the first symbol */
	r = resolve1(&k, 0xffffffff80ffffff);
	assert_int_equal(r.status, SYMBOL_UNMAPPED);
	symbol_session_free(k.s);
}

static void test_kaslr_shift(void **state)
{
	struct ks k;
	struct symbol_result r;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	/* recorded on the same kernel in another boot: _text was at
	 * 0xffffffff9da00000, the file has 0xffffffff81000000: shift 0x1ca00000;
	 * 0xffffffff9da10d80 - 0x1ca00000 = 0xffffffff81010d80 = do_thing+0x80 */
	open_ks(&k, kbid, 0xffffffff9da00000, NULL, ksyms);
	r = resolve1(&k, 0xffffffff9da10d80);
	assert_int_equal(r.status, SYMBOL_OK);
	assert_string_equal(r.function, "do_thing");
	assert_int_equal(r.offset, 0x80);
	assert_int_equal(r.vaddr, 0xffffffff81010d80);
	assert_int_equal(r.dso_addr, 0xffffffff9da10d80);
	symbol_format_perf(&r, &sb);
	assert_string_equal(sb.buf, "[k] do_thing");
	strbuf_release(&sb);
	/* modules of another boot are elsewhere: not guessed */
	r = resolve1(&k, 0xffffffffc0200108);
	assert_int_equal(r.status, SYMBOL_KERNEL_UNRESOLVED);
	assert_null(r.function);
	symbol_session_free(k.s);
}

static void test_other_kernel(void **state)
{
	struct ks k;
	struct symbol_result r;
	struct strbuf sb = STRBUF_INIT;
	uint8_t other[20];

	(void)state;
	memcpy(other, kbid, 20);
	other[19] ^= 1;
	open_ks(&k, other, 0xffffffff81000000, NULL, ksyms);
	r = resolve1(&k, 0xffffffff81010d80);
	assert_int_equal(r.status, SYMBOL_KERNEL_UNRESOLVED);
	assert_null(r.function);
	assert_non_null(strstr(r.note, "another kernel"));
	symbol_format_perf(&r, &sb);
	assert_string_equal(sb.buf, "[k] 0xffffffff81010d80");
	strbuf_release(&sb);
	symbol_session_free(k.s);

	/* no build-id recorded for the kernel: this machine's kallsyms is not used */
	open_ks(&k, NULL, 0xffffffff81000000, NULL, ksyms);
	r = resolve1(&k, 0xffffffff81010d80);
	assert_int_equal(r.status, SYMBOL_KERNEL_UNRESOLVED);
	assert_non_null(strstr(r.note, "--kallsyms"));
	symbol_session_free(k.s);

	/* --kallsyms FILE: the user vouches for it */
	open_ks(&k, other, 0xffffffff81000000, ksyms, NULL);
	r = resolve1(&k, 0xffffffff81010d80);
	assert_int_equal(r.status, SYMBOL_OK);
	assert_string_equal(r.function, "do_thing");
	symbol_session_free(k.s);
}

static void test_hidden_addresses(void **state)
{
	struct ks k;
	struct symbol_result r;

	(void)state;
	/* kernel.kptr_restrict: every address reads 0 */
	open_ks(&k, kbid, 0xffffffff81000000, ksyms_zero, NULL);
	r = resolve1(&k, 0xffffffff81010d80);
	assert_int_equal(r.status, SYMBOL_KERNEL_UNRESOLVED);
	assert_non_null(strstr(r.note, "kptr_restrict"));
	symbol_session_free(k.s);
	/* a missing file */
	open_ks(&k, kbid, 0xffffffff81000000, "/nonexistent/kallsyms", NULL);
	r = resolve1(&k, 0xffffffff81010d80);
	assert_int_equal(r.status, SYMBOL_KERNEL_UNRESOLVED);
	assert_non_null(strstr(r.note, "/nonexistent/kallsyms"));
	symbol_session_free(k.s);
}

/* This machine: record-like setup with its own build-id and _text; a symbol
 * taken from /proc/kallsyms must come back. */
static void test_this_machine(void **state)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], pick[256] = "";
	uint64_t text = 0, pick_addr = 0;
	uint8_t id[20];
	size_t n = 0, idn = 0;
	struct ks k;
	struct symbol_result r;

	(void)state;
	if (!f)
		skip();
	while (fgets(line, sizeof(line), f)) {
		uint64_t a;
		char type;

		if (sscanf(line, "%" SCNx64 " %c %255s", &a, &type, name) != 3)
			continue;
		if (!strcmp(name, "_text"))
			text = a;
		/* the 1000th global function, with a successor at a higher address */
		if (type == 'T' && a > text && text && ++n == 1000) {
			snprintf(pick, sizeof(pick), "%s", name);
			pick_addr = a;
		}
	}
	fclose(f);
	{
		FILE *nf = fopen("/sys/kernel/notes", "rb");
		uint8_t buf[4096];
		size_t len;

		if (!nf)
			skip();
		len = fread(buf, 1, sizeof(buf), nf);
		fclose(nf);
		/* independent walk of the notes for the GNU build-id */
		for (size_t off = 0; off + 12 <= len;) {
			uint32_t h[3];

			memcpy(h, buf + off, 12);
			size_t nsz = (h[0] + 3u) & ~3u, dsz = (h[1] + 3u) & ~3u;

			if (h[2] == 3 && h[0] == 4 && !memcmp(buf + off + 12, "GNU", 4) && h[1] == 20) {
				memcpy(id, buf + off + 12 + nsz, 20);
				idn = 20;
				break;
			}
			off += 12 + nsz + dsz;
		}
	}
	if (!text || !pick_addr || !idn)
		skip(); /* hidden addresses, or no build-id */
	symbol_opts_init(&k.o);
	assert_int_equal(symbol_session_new(&k.s, &k.o, NULL), 0);
	struct perfdata_build_id b = { .pid = -1, .misc = PERFDATA_MISC_KERNEL, .size = 20,
				       .filename = "[kernel.kallsyms]" };
	struct perfdata_features feat;

	memset(&feat, 0, sizeof(feat));
	memcpy(b.id, id, 20);
	feat.build_ids = &b;
	feat.nr_build_ids = 1;
	assert_int_equal(symbol_session_add_features(k.s, &feat, NULL), 0);
	struct symbol_mmap m = { .pid = UINT32_MAX, .kernel = true, .start = text, .len = 0x4000000,
				 .pgoff = text, .path = "[kernel.kallsyms]_text" };

	assert_int_equal(symbol_session_add_mmap(k.s, &m, NULL), 0);
	r = resolve1(&k, pick_addr);
	assert_int_equal(r.status, SYMBOL_OK);
	assert_string_equal(r.function, pick);
	assert_int_equal(r.offset, 0);
	symbol_session_free(k.s);
}

static int setup(void **state)
{
	uint8_t buf[256];
	size_t n;
	char zero[] = "0000000000000000 T _text\n0000000000000000 T do_thing\n";

	(void)state;
	if (!mkdtemp(tmp))
		return -1;
	snprintf(notes, sizeof(notes), "%s/notes", tmp);
	snprintf(ksyms, sizeof(ksyms), "%s/kallsyms", tmp);
	snprintf(ksyms_zero, sizeof(ksyms_zero), "%s/kallsyms-zero", tmp);
	n = make_notes(buf, kbid);
	write_file(notes, buf, n);
	write_file(ksyms, kallsyms_text, sizeof(kallsyms_text) - 1);
	write_file(ksyms_zero, zero, sizeof(zero) - 1);
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
		cmocka_unit_test(test_same_kernel),
		cmocka_unit_test(test_kaslr_shift),
		cmocka_unit_test(test_other_kernel),
		cmocka_unit_test(test_hidden_addresses),
		cmocka_unit_test(test_this_machine),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
