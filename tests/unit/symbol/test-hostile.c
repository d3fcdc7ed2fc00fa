/*
 * Hostile binaries: a real program with debug info cut at many lengths, with
 * random bytes flipped in its headers, section table, symbol table and DWARF,
 * pure garbage, an ELF magic followed by garbage, a directory, a FIFO and a
 * device at the mapped path, and garbage kallsyms. Symbolization, disassembly,
 * instruction counting and branch typing of addresses in it must never crash
 * (run under ASan+UBSan in the sanitizer build) and must return a documented
 * status or error code; an intact copy must still resolve afterwards.
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

static char tmp[] = "/tmp/tdprof-test-hostile-XXXXXX";
static bool have_tools;
static char prog[1024];
static uint8_t *image;
static size_t image_size;
static uint64_t text_vaddr, text_size; /* .text of the intact program */

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* xorshift: reproducible "random" positions */
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static bool valid_status(enum symbol_status st)
{
	return st >= SYMBOL_OK && st <= SYMBOL_KERNEL_UNRESOLVED;
}

static bool valid_error(int r)
{
	return r == 0 || r == TDP_ENOENT || r == TDP_EFORMAT || r == TDP_ENOTSUP || r == TDP_ELIMIT ||
	       r == TDP_EINVAL;
}

/*
 * Map `path` as the intact program was mapped (its program headers are not read
 * from the hostile file: the maps come from a "recording") and poke at it.
 */
static void poke(const char *path, unsigned flags)
{
	struct symbol_session *s;
	struct symbol_opts o;
	struct symbol_mmap m;
	struct symbol_addr a[16];
	struct symbol_result r[16];
	struct tdp_err err = TDP_ERR_INIT;
	struct strbuf sb = STRBUF_INIT;

	symbol_opts_init(&o);
	o.debug_dirs = NULL;
	o.flags = flags;
	assert_int_equal(symbol_session_new(&s, &o, NULL), 0);
	memset(&m, 0, sizeof(m));
	m.pid = 1;
	m.start = ST_PIE_BASE;
	m.len = 0x10000;
	m.path = path;
	assert_int_equal(symbol_session_add_mmap(s, &m, NULL), 0);
	for (size_t i = 0; i < 16; i++) {
		a[i].pid = 1;
		a[i].addr = ST_PIE_BASE + text_vaddr + (i * text_size) / 16;
	}
	a[15].addr = ST_PIE_BASE + 0xfff0; /* past everything */
	assert_int_equal(symbol_resolve(s, a, 16, r, &err), 0);
	for (size_t i = 0; i < 16; i++) {
		assert_true(valid_status(r[i].status));
		symbol_format_perf(&r[i], &sb);
		for (size_t k = 0; k < r[i].nr_frames; k++)
			if (r[i].frames[k].function)
				strbuf_adds(&sb, r[i].frames[k].function);
		if (r[i].file)
			strbuf_adds(&sb, r[i].file);
		if (r[i].note)
			strbuf_adds(&sb, r[i].note);
	}
	for (size_t i = 0; i < 4; i++) {
		struct symbol_disasm d = SYMBOL_DISASM_INIT;
		uint64_t count;
		unsigned type;
		int ret;

		ret = symbol_disasm(s, 1, a[i * 4].addr, 4, 4, &d, &err);
		assert_true(valid_error(ret));
		for (size_t k = 0; !ret && k < d.nr; k++)
			assert_true(d.insns[k].size > 0 && d.insns[k].size <= SYMBOL_INSN_MAX_BYTES);
		symbol_disasm_release(&d);
		tdp_err_clear(&err);
		assert_true(valid_error(symbol_count_insns(s, 1, a[i * 4].addr, a[i * 4].addr + 40, &count, &err)));
		tdp_err_clear(&err);
		assert_true(valid_error(symbol_branch_type(s, 1, a[i * 4].addr, &type, &err)));
		tdp_err_clear(&err);
	}
	assert_false(strbuf_failed(&sb));
	strbuf_release(&sb);
	symbol_session_free(s);
}

static void test_truncated(void **state)
{
	char path[1100];
	size_t cuts[] = { 0, 1, 4, 15, 16, 52, 63, 64, 65, 100, 500, 1000, 4095, 4096, 5000, 8192 };

	(void)state;
	if (!have_tools)
		skip();
	snprintf(path, sizeof(path), "%s/cut", tmp);
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]) + 16; i++) {
		size_t len = i < sizeof(cuts) / sizeof(cuts[0]) ? cuts[i]
							       : image_size * (i - 15) / 17;

		if (len > image_size)
			continue;
		write_file(path, image, len);
		poke(path, 0);
	}
}

/* Flip bytes in one region of the file, many times over. */
static void flip_region(const char *what, size_t start, size_t end, unsigned rounds, unsigned flips)
{
	char path[1100];
	uint8_t *copy = malloc(image_size);

	(void)what;
	snprintf(path, sizeof(path), "%s/flipped", tmp);
	if (end > image_size)
		end = image_size;
	for (unsigned r = 0; r < rounds && start < end; r++) {
		memcpy(copy, image, image_size);
		for (unsigned k = 0; k < flips; k++)
			copy[start + next_rand() % (end - start)] ^= (uint8_t)(1u << (next_rand() % 8));
		write_file(path, copy, image_size);
		poke(path, r % 3 == 0 ? SYMBOL_NO_INLINES : 0);
	}
	free(copy);
}

static void test_flipped(void **state)
{
	GElf_Ehdr eh;
	Elf *e;
	int fd;

	(void)state;
	if (!have_tools)
		skip();
	elf_version(EV_CURRENT);
	fd = open(prog, O_RDONLY);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(gelf_getehdr(e, &eh));
	/* the ELF and program headers */
	flip_region("headers", 0, eh.e_phoff + eh.e_phnum * eh.e_phentsize, 60, 2);
	/* the section header table */
	flip_region("sections", eh.e_shoff, eh.e_shoff + eh.e_shnum * eh.e_shentsize, 60, 3);
	/* each of .symtab, .strtab and the DWARF sections */
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	assert_int_equal(elf_getshdrstrndx(e, &shstrndx), 0);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstrndx, sh.sh_name)))
			continue;
		if (strcmp(name, ".symtab") && strcmp(name, ".strtab") && strncmp(name, ".debug_", 7) &&
		    strcmp(name, ".note.gnu.build-id") && strcmp(name, ".text"))
			continue;
		flip_region(name, sh.sh_offset, sh.sh_offset + sh.sh_size, 25, 4);
	}
	elf_end(e);
	close(fd);
}

static void test_garbage(void **state)
{
	char path[1100];
	uint8_t junk[65536];

	(void)state;
	snprintf(path, sizeof(path), "%s/garbage", tmp);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)next_rand();
	write_file(path, junk, sizeof(junk));
	poke(path, 0);
	/* an ELF identity, then garbage: 64-bit, little-endian, version 1 */
	memcpy(junk, "\x7f" "ELF\x02\x01\x01", 7);
	write_file(path, junk, sizeof(junk));
	poke(path, 0);
	/* ... with e_shnum/e_phnum huge */
	junk[0x38] = 0xff, junk[0x39] = 0xff, junk[0x3c] = 0xff, junk[0x3d] = 0xff;
	write_file(path, junk, sizeof(junk));
	poke(path, 0);
	/* 32-bit class */
	junk[4] = 1;
	write_file(path, junk, sizeof(junk));
	poke(path, 0);
	/* not files */
	poke(tmp, 0);
	poke("/dev/null", 0);
	poke("/dev/zero", 0);
	snprintf(path, sizeof(path), "%s/fifo", tmp);
	assert_int_equal(mkfifo(path, 0600), 0);
	poke(path, 0); /* must not block */
}

static void test_kallsyms_garbage(void **state)
{
	char path[1100];
	uint8_t junk[8192];
	struct symbol_session *s;
	struct symbol_opts o;
	struct symbol_mmap m = { .pid = UINT32_MAX, .kernel = true, .start = 0xffffffff81000000,
				 .len = 0x1000000, .pgoff = 0xffffffff81000000,
				 .path = "[kernel.kallsyms]_text" };

	(void)state;
	snprintf(path, sizeof(path), "%s/kallsyms", tmp);
	for (int round = 0; round < 20; round++) {
		for (size_t i = 0; i < sizeof(junk); i++) {
			/* mostly kallsyms-looking characters */
			static const char alphabet[] = "0123456789abcdef fF tTwW\n\t[]_x";

			junk[i] = round % 2 ? (uint8_t)next_rand()
					    : (uint8_t)alphabet[next_rand() % (sizeof(alphabet) - 1)];
		}
		write_file(path, junk, sizeof(junk));
		symbol_opts_init(&o);
		o.kallsyms = path;
		assert_int_equal(symbol_session_new(&s, &o, NULL), 0);
		assert_int_equal(symbol_session_add_mmap(s, &m, NULL), 0);
		for (uint64_t k = 0; k < 32; k++) {
			struct symbol_addr a = { 0xffffffff81000000 + k * 0x7fff1, 1 };
			struct symbol_result r;

			assert_int_equal(symbol_resolve(s, &a, 1, &r, NULL), 0);
			assert_true(valid_status(r.status));
			assert_true(r.kernel);
		}
		symbol_session_free(s);
	}
}

/* After all that, the intact program still resolves (nothing global broke). */
static void test_intact(void **state)
{
	struct symbol_session *s;
	struct symbol_opts o;
	struct symbol_addr a = { ST_PIE_BASE + text_vaddr, 1 };
	struct symbol_result r;

	(void)state;
	if (!have_tools)
		skip();
	symbol_opts_init(&o);
	assert_int_equal(symbol_session_new(&s, &o, NULL), 0);
	assert_true(st_map_elf(s, 1, prog, ST_PIE_BASE, NULL, NULL, 0) > 0);
	assert_int_equal(symbol_resolve(s, &a, 1, &r, NULL), 0);
	assert_int_equal(r.status, SYMBOL_OK);
	assert_non_null(r.function);
	symbol_session_free(s);
}

static int setup(void **state)
{
	char s1[1024], s2[1024];
	int fd;
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	(void)state;
	if (!mkdtemp(tmp))
		return -1;
	have_tools = st_have("gcc");
	if (!have_tools)
		return 0;
	st_src(s1, sizeof(s1), "prog.c");
	st_src(s2, sizeof(s2), "prog-util.c");
	snprintf(prog, sizeof(prog), "%s/prog", tmp);
	char *cc[] = { "gcc", "-O2", "-g", "-o", prog, s1, s2, NULL };

	if (st_run(cc, NULL))
		return -1;
	image = read_all(prog, &image_size);
	elf_version(EV_CURRENT);
	fd = open(prog, O_RDONLY);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_getshdrstrndx(e, &shstrndx))
		return -1;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (gelf_getshdr(scn, &sh) && (name = elf_strptr(e, shstrndx, sh.sh_name)) &&
		    !strcmp(name, ".text")) {
			text_vaddr = sh.sh_addr;
			text_size = sh.sh_size;
		}
	}
	elf_end(e);
	close(fd);
	return text_size ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	free(image);
	st_rm_rf(tmp);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_flipped),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_kallsyms_garbage),
		cmocka_unit_test(test_intact),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
