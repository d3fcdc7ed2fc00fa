/*
 * Unit tests of disassembly: the branch type of hand-encoded x86-64 and AArch64
 * instructions (encodings from the Intel SDM and the Arm ARM, worked out in the
 * comments), and, on programs compiled here, symbol_disasm(),
 * symbol_count_insns() and symbol_branch_type() against `objdump -d -M intel`:
 * the same instruction boundaries, bytes and mnemonics around every instruction
 * of the program's functions, the same counts over every prefix of a function,
 * and branch types that agree with objdump's mnemonics and operands.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"
#include "perfdata/perfdata.h"
#include "symtest.h"

static char tmp[] = "/tmp/tdprof-test-disasm-XXXXXX";
static bool have_tools;
static char prog[1024], cxx[1024];

struct enc {
	const char *bytes;   /* hex */
	unsigned type;       /* enum branch_type */
	const char *mnemonic;
	int line;
};

static size_t unhex(const char *s, uint8_t *out)
{
	size_t n = 0;

	while (s[0] && s[1]) {
		unsigned v;

		if (*s == ' ') {
			s++;
			continue;
		}
		assert_int_equal(sscanf(s, "%2x", &v), 1);
		out[n++] = (uint8_t)v;
		s += 2;
	}
	return n;
}

static const struct enc x86[] = {
	{ "0f 84 10 00 00 00", BRANCH_TYPE_COND, "je", __LINE__ },       /* jcc rel32: 0f 8x */
	{ "74 05", BRANCH_TYPE_COND, "je", __LINE__ },                   /* jcc rel8: 7x */
	{ "e3 fe", BRANCH_TYPE_COND, "jrcxz", __LINE__ },
	{ "e2 fe", BRANCH_TYPE_COND, "loop", __LINE__ },
	{ "e9 00 01 00 00", BRANCH_TYPE_UNCOND, "jmp", __LINE__ },       /* jmp rel32 */
	{ "eb fe", BRANCH_TYPE_UNCOND, "jmp", __LINE__ },                /* jmp rel8 */
	{ "ff e0", BRANCH_TYPE_IND, "jmp", __LINE__ },                   /* ff /4, modrm e0: rax */
	{ "ff 24 c5 00 10 00 00", BRANCH_TYPE_IND, "jmp", __LINE__ },    /* jmp [rax*8+0x1000] */
	{ "3e ff e0", BRANCH_TYPE_IND, "jmp", __LINE__ },                /* notrack jmp rax */
	{ "e8 00 00 00 00", BRANCH_TYPE_CALL, "call", __LINE__ },        /* call rel32 */
	{ "ff d0", BRANCH_TYPE_IND_CALL, "call", __LINE__ },             /* ff /2, modrm d0: rax */
	{ "ff 15 00 00 00 00", BRANCH_TYPE_IND_CALL, "call", __LINE__ }, /* call [rip+0] */
	{ "c3", BRANCH_TYPE_RET, "ret", __LINE__ },
	{ "c2 08 00", BRANCH_TYPE_RET, "ret", __LINE__ },
	{ "f3 c3", BRANCH_TYPE_RET, "ret", __LINE__ },                   /* rep ret */
	{ "0f 05", BRANCH_TYPE_SYSCALL, "syscall", __LINE__ },
	{ "48 0f 07", BRANCH_TYPE_SYSRET, "sysret", __LINE__ },          /* REX.W: to 64-bit */
	{ "48 cf", BRANCH_TYPE_ERET, "iretq", __LINE__ },
	{ "90", BRANCH_TYPE_UNKNOWN, "nop", __LINE__ },
	{ "48 89 c3", BRANCH_TYPE_UNKNOWN, "mov", __LINE__ },
	{ "0f 0b", BRANCH_TYPE_UNKNOWN, "ud2", __LINE__ },
	{ "f3 0f 1e fa", BRANCH_TYPE_UNKNOWN, "endbr64", __LINE__ },
};

/* AArch64, little-endian words written byte by byte */
static const struct enc a64[] = {
	/* B imm26: 000101 imm26; imm26 = 1 -> 0x14000001 */
	{ "01 00 00 14", BRANCH_TYPE_UNCOND, "b", __LINE__ },
	/* BL: 100101 imm26 -> 0x94000001 */
	{ "01 00 00 94", BRANCH_TYPE_CALL, "bl", __LINE__ },
	/* B.cond: 0101010 0 imm19 0 cond; imm19 = 1, cond = 1 (ne) -> 0x54000021 */
	{ "21 00 00 54", BRANCH_TYPE_COND, "b.ne", __LINE__ },
	/* CBZ x0: 1 011010 0 imm19 Rt; imm19 = 2 -> 0xb4000040 */
	{ "40 00 00 b4", BRANCH_TYPE_COND, "cbz", __LINE__ },
	/* CBNZ w1: 0 011010 1 imm19 Rt -> 0x35000041 */
	{ "41 00 00 35", BRANCH_TYPE_COND, "cbnz", __LINE__ },
	/* TBZ w0, #0: 0 011011 0 00000 imm14 Rt; imm14 = 2 -> 0x36000040 */
	{ "40 00 00 36", BRANCH_TYPE_COND, "tbz", __LINE__ },
	/* TBNZ -> 0x37000040 */
	{ "40 00 00 37", BRANCH_TYPE_COND, "tbnz", __LINE__ },
	/* BR x16: 0xd61f0000 | 16 << 5 */
	{ "00 02 1f d6", BRANCH_TYPE_IND, "br", __LINE__ },
	/* BLR x8: 0xd63f0000 | 8 << 5 */
	{ "00 01 3f d6", BRANCH_TYPE_IND_CALL, "blr", __LINE__ },
	/* RET (x30): 0xd65f0000 | 30 << 5 */
	{ "c0 03 5f d6", BRANCH_TYPE_RET, "ret", __LINE__ },
	/* ERET: 0xd69f03e0 */
	{ "e0 03 9f d6", BRANCH_TYPE_ERET, "eret", __LINE__ },
	/* SVC #0: 0xd4000001 */
	{ "01 00 00 d4", BRANCH_TYPE_SYSCALL, "svc", __LINE__ },
	/* NOP: 0xd503201f */
	{ "1f 20 03 d5", BRANCH_TYPE_UNKNOWN, "nop", __LINE__ },
};

static void check_table(enum symbol_arch arch, const struct enc *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t code[32];
		size_t len = unhex(t[i].bytes, code);
		struct symbol_insn insn;
		int r = symbol_decode(arch, code, len, 0x1000, &insn);

		if (r != 1 || insn.branch_type != t[i].type || strcmp(insn.mnemonic, t[i].mnemonic) ||
		    insn.size != len || insn.vaddr != 0x1000 || memcmp(insn.bytes, code, len))
			fail_msg("line %d: %s gave %d, type %u '%s' size %u (want type %u '%s' size %zu)",
				 t[i].line, t[i].bytes, r, insn.branch_type, insn.mnemonic, insn.size,
				 t[i].type, t[i].mnemonic, len);
	}
}

static void test_encodings(void **state)
{
	uint8_t trunc[] = { 0x0f, 0x84, 0x10 };
	uint8_t bad_a64[] = { 0xff, 0xff, 0xff, 0xff };
	struct symbol_insn insn;

	(void)state;
	check_table(SYMBOL_ARCH_X86_64, x86, sizeof(x86) / sizeof(x86[0]));
	check_table(SYMBOL_ARCH_AARCH64, a64, sizeof(a64) / sizeof(a64[0]));
	/* a cut instruction, an undefined word, no architecture */
	assert_int_equal(symbol_decode(SYMBOL_ARCH_X86_64, trunc, sizeof(trunc), 0, &insn), 0);
	assert_int_equal(symbol_decode(SYMBOL_ARCH_AARCH64, bad_a64, 4, 0, &insn), 0);
	assert_int_equal(symbol_decode(SYMBOL_ARCH_AARCH64, bad_a64, 3, 0, &insn), 0);
	assert_int_equal(symbol_decode(SYMBOL_ARCH_UNKNOWN, trunc, 3, 0, &insn), TDP_ENOTSUP);
	/* i386: the same jcc */
	assert_int_equal(symbol_decode(SYMBOL_ARCH_I386, (const uint8_t *)"\x74\x05", 2, 0, &insn), 1);
	assert_int_equal(insn.branch_type, BRANCH_TYPE_COND);
	assert_int_equal(symbol_arch_from_elf(62), SYMBOL_ARCH_X86_64);   /* EM_X86_64 */
	assert_int_equal(symbol_arch_from_elf(183), SYMBOL_ARCH_AARCH64); /* EM_AARCH64 */
	assert_int_equal(symbol_arch_from_elf(40), SYMBOL_ARCH_UNKNOWN);  /* EM_ARM */
}

/* ---------------------------------------------------------------------------
 * Against objdump
 * ------------------------------------------------------------------------- */

struct od_insn {
	uint64_t vaddr;
	uint8_t bytes[16];
	size_t size;
	char mnemonic[32];
	char operands[160];
	char func[256];
	size_t index;  /* in its function */
};

/* The binutils of the binary being checked: x86-64 (Intel syntax) or AArch64. */
static bool a64_mode;
static char *od_x86[] = { "objdump", "-d", "-C", "-M", "intel", "-w", "-j", ".text", NULL, NULL };
static char *od_a64[] = { "aarch64-linux-gnu-objdump", "-d", "-C", "-w", "-j", ".text", NULL, NULL };

/*
 * objdump -d -M intel -w: "    1195:\t48 83 ff 01          \tcmp    rdi,0x1";
 * on AArch64 the instruction is one little-endian word printed as a number:
 * "     900:\taa0003e1 \tmov\tx1, x0".
 */
static size_t objdump(const char *bin, struct od_insn **out)
{
	char **argv = a64_mode ? od_a64 : od_x86;
	char *text, *cur, *line, func[256] = "";
	struct od_insn *v = NULL;
	size_t nr = 0, alloc = 0, index = 0;

	argv[a64_mode ? 6 : 8] = (char *)bin;
	assert_int_equal(st_run(argv, &text), 0);
	cur = text;
	while ((line = st_next_line(&cur))) {
		char *t1, *t2, *lt;
		uint64_t a;

		lt = strchr(line, '<');
		if (line[0] != ' ' && lt && strstr(line, ">:")) {
			snprintf(func, sizeof(func), "%.*s", (int)(strstr(line, ">:") - lt - 1), lt + 1);
			index = 0;
			continue;
		}
		if (line[0] != ' ' || sscanf(line, " %" SCNx64 ":", &a) != 1 || !(t1 = strchr(line, '\t')) ||
		    !(t2 = strchr(t1 + 1, '\t')))
			continue;
		if (nr == alloc) {
			alloc = alloc ? alloc * 2 : 256;
			v = realloc(v, alloc * sizeof(*v));
		}
		struct od_insn *o = &v[nr++];

		memset(o, 0, sizeof(*o));
		o->vaddr = a;
		*t2 = '\0';
		o->size = unhex(t1 + 1, o->bytes);
		if (a64_mode && o->size == 4) { /* the word as a number: bytes reversed */
			uint8_t b0 = o->bytes[0], b1 = o->bytes[1];

			o->bytes[0] = o->bytes[3], o->bytes[3] = b0;
			o->bytes[1] = o->bytes[2], o->bytes[2] = b1;
		}
		sscanf(t2 + 1, "%31s %159[^\n]", o->mnemonic, o->operands);
		snprintf(o->func, sizeof(o->func), "%s", func);
		o->index = index++;
	}
	free(text);
	*out = v;
	return nr;
}

/* objdump's prefixes that capstone folds into the mnemonic's operands or drops */
static const char *od_mnemonic(const struct od_insn *o)
{
	static const char *const prefixes[] = { "bnd", "notrack", "cs", "ds", "data16", "rep", "repz" };

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strcmp(o->mnemonic, prefixes[i]))
			return NULL; /* compare bytes and sizes only */
	if (!strcmp(o->mnemonic, "xchg") && !strcmp(o->operands, "ax,ax"))
		return "nop"; /* 66 90: capstone's name for it */
	return o->mnemonic;
}

static unsigned od_branch_type_a64(const char *m)
{
	if (!strcmp(m, "b"))
		return BRANCH_TYPE_UNCOND;
	if (!strncmp(m, "b.", 2) || !strcmp(m, "cbz") || !strcmp(m, "cbnz") || !strcmp(m, "tbz") ||
	    !strcmp(m, "tbnz"))
		return BRANCH_TYPE_COND;
	if (!strcmp(m, "bl"))
		return BRANCH_TYPE_CALL;
	if (!strcmp(m, "blr"))
		return BRANCH_TYPE_IND_CALL;
	if (!strcmp(m, "br"))
		return BRANCH_TYPE_IND;
	if (!strcmp(m, "ret"))
		return BRANCH_TYPE_RET;
	return BRANCH_TYPE_UNKNOWN;
}

static unsigned od_branch_type(const struct od_insn *o)
{
	const char *m = o->mnemonic;

	if (a64_mode)
		return od_branch_type_a64(m);
	/* a direct target is a bare hex address ("1340 <f>"); registers and memory
	 * operands ("rax", "QWORD PTR [rip+0x2fe2]") have other letters */
	size_t hex = strspn(o->operands, "0123456789abcdef");
	bool direct = hex > 0 && (o->operands[hex] == ' ' || o->operands[hex] == '\0');

	if (!strcmp(m, "ret") || !strcmp(m, "repz") /* repz ret */)
		return BRANCH_TYPE_RET;
	if (!strcmp(m, "call"))
		return direct ? BRANCH_TYPE_CALL : BRANCH_TYPE_IND_CALL;
	if (!strcmp(m, "jmp"))
		return direct ? BRANCH_TYPE_UNCOND : BRANCH_TYPE_IND;
	if (m[0] == 'j' || !strncmp(m, "loop", 4))
		return BRANCH_TYPE_COND;
	return BRANCH_TYPE_UNKNOWN;
}

/* The end of function `func` (nm -S -C: address + size). */
static uint64_t func_end(const char *bin, const char *func)
{
	char *argv[] = { a64_mode ? "aarch64-linux-gnu-nm" : "nm", "-S", "-C", "--defined-only",
			 (char *)bin, NULL };
	char *text, *cur, *line;
	uint64_t end = 0;

	assert_int_equal(st_run(argv, &text), 0);
	cur = text;
	while ((line = st_next_line(&cur))) {
		uint64_t a, size;
		char type;
		int used = 0;

		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %c %n", &a, &size, &type, &used) == 3 && used &&
		    !strcmp(line + used, func))
			end = a + size;
	}
	free(text);
	assert_true(end != 0);
	return end;
}

static struct symbol_session *map_bin(const char *bin)
{
	struct symbol_session *s;
	struct symbol_opts o;

	symbol_opts_init(&o);
	o.flags = SYMBOL_NO_LINES;
	assert_int_equal(symbol_session_new(&s, &o, NULL), 0);
	assert_true(st_map_elf(s, 3, bin, ST_PIE_BASE, NULL, NULL, 0) > 0);
	return s;
}

static void check_disasm(const char *bin, const char *const *funcs)
{
	struct od_insn *od;
	size_t n = objdump(bin, &od), checked = 0, branches = 0, branches_moved = 0;
	struct symbol_session *s = map_bin(bin);
	struct tdp_err err = TDP_ERR_INIT;
	char end_func[256] = "";
	uint64_t end = 0;

	for (size_t i = 0; i < n; i++) {
		bool wanted = false;

		for (const char *const *f = funcs; *f; f++)
			wanted |= !strcmp(od[i].func, *f);
		if (!wanted)
			continue;
		/* objdump lists the alignment padding after a function under it; the
		 * function's symbol ends before, and so does our decoding */
		if (strcmp(end_func, od[i].func)) {
			end = func_end(bin, od[i].func);
			snprintf(end_func, sizeof(end_func), "%s", od[i].func);
		}

		if (od[i].vaddr >= end)
			continue;
		struct symbol_disasm d = SYMBOL_DISASM_INIT;
		uint64_t addr = ST_PIE_BASE + od[i].vaddr;
		size_t first = i - od[i].index, before = od[i].index < 3 ? od[i].index : 3;

		tdp_err_clear(&err);
		if (symbol_disasm(s, 3, addr, 3, 3, &d, &err))
			fail_msg("%s+%zu: %s", od[i].func, od[i].index, err.msg);
		assert_int_equal(d.target, before);
		assert_string_equal(d.function, od[i].func);
		assert_int_equal(d.func_addr, ST_PIE_BASE + od[first].vaddr);
		assert_int_equal(d.arch, a64_mode ? SYMBOL_ARCH_AARCH64 : SYMBOL_ARCH_X86_64);
		for (size_t k = 0; k < d.nr; k++) {
			const struct od_insn *o = &od[i - before + k];
			const struct symbol_insn *in = &d.insns[k];
			const char *m = od_mnemonic(o);

			assert_string_equal(o->func, od[i].func); /* never past the function */
			assert_int_equal(in->vaddr, o->vaddr);
			assert_int_equal(in->addr, ST_PIE_BASE + o->vaddr);
			assert_int_equal(in->size, o->size);
			assert_memory_equal(in->bytes, o->bytes, o->size);
			assert_int_equal(in->target, k == before);
			/* AArch64 aliases (mov/orr/movz, cmp/subs...) are spelled differently
			 * by the two: the branches' mnemonics must agree */
			if (a64_mode && od_branch_type(o) == BRANCH_TYPE_UNKNOWN)
				m = NULL;
			if (m && strcmp(in->mnemonic, m))
				fail_msg("%#" PRIx64 ": '%s', objdump '%s'", o->vaddr, in->mnemonic, m);
			if (in->branch_type != od_branch_type(o))
				fail_msg("%#" PRIx64 " %s %s: type %u, objdump's mnemonic says %u", o->vaddr,
					 o->mnemonic, o->operands, in->branch_type, od_branch_type(o));
		}
		/* up to 3 after, unless the function ends first */
		size_t after = 0;

		while (after < 3 && i + after + 1 < n && !strcmp(od[i + after + 1].func, od[i].func) &&
		       od[i + after + 1].vaddr < end)
			after++;
		assert_int_equal(d.nr, before + 1 + after);
		/*
		 * The same decoded at runtime addresses: the same instructions, and a direct
		 * branch's target moves into the process's address space with them.
		 */
		struct symbol_disasm rd = SYMBOL_DISASM_INIT;

		if (symbol_disasm_runtime(s, 3, addr, 3, 3, &rd, &err))
			fail_msg("%s+%zu (runtime): %s", od[i].func, od[i].index, err.msg);
		assert_int_equal(rd.nr, d.nr);
		for (size_t k = 0; k < d.nr; k++) {
			const struct symbol_insn *a = &d.insns[k], *b = &rd.insns[k];
			const char *op = a->operands + (a->operands[0] == '#'); /* AArch64: "#0x9a0" */
			char *endp;
			unsigned long long t = strtoull(op, &endp, 16);

			assert_int_equal(a->vaddr, b->vaddr);
			assert_int_equal(a->addr, b->addr);
			assert_string_equal(a->mnemonic, b->mnemonic);
			if (a->branch_type != BRANCH_TYPE_UNKNOWN && !strncmp(op, "0x", 2) && !*endp) {
				char want[64];

				snprintf(want, sizeof(want), "%s%#llx", op == a->operands ? "" : "#", t + ST_PIE_BASE);
				assert_string_equal(b->operands, want);
				branches_moved++;
			}
		}
		symbol_disasm_release(&rd);
		symbol_disasm_release(&d);

		/* the branch type of the one instruction */
		unsigned type = 99;

		assert_int_equal(symbol_branch_type(s, 3, addr, &type, &err), 0);
		assert_int_equal(type, od_branch_type(&od[i]));
		branches += type != BRANCH_TYPE_UNKNOWN;

		/* instructions from the function's start to this one: index + 1 */
		uint64_t count = 0;

		assert_int_equal(symbol_count_insns(s, 3, ST_PIE_BASE + od[first].vaddr, addr, &count, &err), 0);
		assert_int_equal(count, od[i].index + 1);
		checked++;
	}
	assert_true(checked > 20);
	assert_true(branches > 3);
	assert_true(branches_moved > 0); /* direct branches were seen in both address spaces */
	free(od);
	symbol_session_free(s);
}

static void test_against_objdump(void **state)
{
	static const char *const c_funcs[] = { "collatz_steps", "outer", "main", "util_mix", NULL };
	static const char *const cxx_funcs[] = {
		"main", "long geo::sum_clamped<long>(std::vector<long, std::allocator<long> > const&, "
			"geo::detail::Box<long> const&)", NULL };

	(void)state;
	if (!have_tools)
		skip();
	check_disasm(prog, c_funcs);
	if (cxx[0])
		check_disasm(cxx, cxx_funcs);
}

/* The same on AArch64 (cross-compiled; capstone decodes by the ELF's machine). */
static void test_aarch64(void **state)
{
	static const char *const funcs[] = { "collatz_steps", "outer", "main", "util_mix", NULL };
	char s1[1024], s2[1024], bin[1100];

	(void)state;
	if (!st_have("aarch64-linux-gnu-gcc") || !st_have("aarch64-linux-gnu-objdump") ||
	    !st_have("aarch64-linux-gnu-nm"))
		skip();
	st_src(s1, sizeof(s1), "prog.c");
	st_src(s2, sizeof(s2), "prog-util.c");
	snprintf(bin, sizeof(bin), "%s/prog-aarch64", tmp);
	char *cc[] = { "aarch64-linux-gnu-gcc", "-O1", "-o", bin, s1, s2, NULL };

	assert_int_equal(st_run(cc, NULL), 0);
	a64_mode = true;
	check_disasm(bin, funcs);
	a64_mode = false;
}

static void test_errors(void **state)
{
	struct od_insn *od;
	size_t n;
	struct symbol_session *s;
	struct symbol_disasm d = SYMBOL_DISASM_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	uint64_t count;
	unsigned type;
	size_t k = SIZE_MAX;

	(void)state;
	if (!have_tools)
		skip();
	n = objdump(prog, &od);
	s = map_bin(prog);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(od[i].func, "collatz_steps") && od[i].size > 1 && k == SIZE_MAX)
			k = i;
	assert_true(k != SIZE_MAX);
	uint64_t mid = ST_PIE_BASE + od[k].vaddr + 1; /* inside an instruction */

	assert_int_equal(symbol_disasm(s, 3, mid, 2, 2, &d, &err), TDP_EFORMAT);
	assert_non_null(strstr(err.msg, "instruction boundary"));
	tdp_err_clear(&err);
	assert_int_equal(symbol_count_insns(s, 3, ST_PIE_BASE + od[k].vaddr, mid, &count, &err), TDP_EFORMAT);
	tdp_err_clear(&err);
	assert_int_equal(symbol_count_insns(s, 3, mid, mid - 2, &count, &err), TDP_EINVAL);
	tdp_err_clear(&err);
	assert_int_equal(symbol_count_insns(s, 3, mid, mid + SYMBOL_MAX_BLOCK, &count, &err), TDP_ELIMIT);
	tdp_err_clear(&err);
	/* unmapped, kernel, too much context */
	assert_int_equal(symbol_disasm(s, 3, 0x1000, 0, 0, &d, &err), TDP_ENOENT);
	tdp_err_clear(&err);
	assert_int_equal(symbol_disasm(s, 4, ST_PIE_BASE + od[k].vaddr, 0, 0, &d, &err), TDP_ENOENT);
	tdp_err_clear(&err);
	assert_int_equal(symbol_branch_type(s, 3, 0xffffffff81000000, &type, &err), TDP_ENOENT);
	tdp_err_clear(&err);
	assert_int_equal(symbol_disasm(s, 3, ST_PIE_BASE + od[k].vaddr, SYMBOL_MAX_CONTEXT + 1, 0, &d, &err),
			 TDP_EINVAL);
	assert_null(d.insns);
	/* the same range counted once, start == end: one instruction */
	assert_int_equal(symbol_count_insns(s, 3, ST_PIE_BASE + od[k].vaddr, ST_PIE_BASE + od[k].vaddr,
					    &count, NULL), 0);
	assert_int_equal(count, 1);
	free(od);
	symbol_session_free(s);
}

static int setup(void **state)
{
	char s1[1024], s2[1024], s3[1024];

	(void)state;
	if (!mkdtemp(tmp))
		return -1;
	have_tools = st_have("gcc") && st_have("objdump") && st_have("nm");
	if (!have_tools)
		return 0;
	st_src(s1, sizeof(s1), "prog.c");
	st_src(s2, sizeof(s2), "prog-util.c");
	st_src(s3, sizeof(s3), "cxx.cpp");
	snprintf(prog, sizeof(prog), "%s/prog", tmp);
	char *cc[] = { "gcc", "-O1", "-g", "-o", prog, s1, s2, NULL };

	if (st_run(cc, NULL))
		return -1;
	if (st_have("g++")) {
		snprintf(cxx, sizeof(cxx), "%s/cxx", tmp);
		char *cxxc[] = { "g++", "-O2", "-o", cxx, s3, NULL };

		if (st_run(cxxc, NULL))
			cxx[0] = '\0';
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	st_rm_rf(tmp);
	return 0;
}

/* A listing in runtime addresses shows its branch targets in runtime addresses too (issue 16). */
static void test_runtime_text(void **state)
{
	struct symbol_insn in;
	char buf[200];

	(void)state;
	memset(&in, 0, sizeof(in));
	in.addr = 0x5555555551ecull;
	in.vaddr = 0x11ec;
	in.branch_type = BRANCH_TYPE_COND;
	snprintf(in.mnemonic, sizeof(in.mnemonic), "jb");
	snprintf(in.operands, sizeof(in.operands), "0x1586");
	symbol_insn_text_runtime(&in, buf, sizeof(buf));
	assert_string_equal(buf, "jb 0x555555555586");
	snprintf(in.mnemonic, sizeof(in.mnemonic), "b.ne");
	snprintf(in.operands, sizeof(in.operands), "#0x1586");
	symbol_insn_text_runtime(&in, buf, sizeof(buf));
	assert_string_equal(buf, "b.ne #0x555555555586");
	/* an indirect call's operand is a memory reference: left as it is */
	in.branch_type = BRANCH_TYPE_IND_CALL;
	snprintf(in.mnemonic, sizeof(in.mnemonic), "call");
	snprintf(in.operands, sizeof(in.operands), "qword ptr [rax + 0x10]");
	symbol_insn_text_runtime(&in, buf, sizeof(buf));
	assert_string_equal(buf, "call qword ptr [rax + 0x10]");
	/* not a branch: an immediate is no address */
	in.branch_type = BRANCH_TYPE_UNKNOWN;
	snprintf(in.mnemonic, sizeof(in.mnemonic), "mov");
	snprintf(in.operands, sizeof(in.operands), "0x1586");
	symbol_insn_text_runtime(&in, buf, sizeof(buf));
	assert_string_equal(buf, "mov 0x1586");
	/* the same space already (a non-PIE executable): unchanged */
	in.branch_type = BRANCH_TYPE_UNCOND;
	in.addr = in.vaddr;
	snprintf(in.mnemonic, sizeof(in.mnemonic), "jmp");
	symbol_insn_text_runtime(&in, buf, sizeof(buf));
	assert_string_equal(buf, "jmp 0x1586");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encodings),
		cmocka_unit_test(test_against_objdump),
		cmocka_unit_test(test_aarch64),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_runtime_text),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
