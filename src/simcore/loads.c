/*
 * loads.c: the address dependence of a block's loads (a pointer chase or not,
 * covered by a software prefetch or not) and the instruction text for llvm-mca
 * (see simcore.h). The text is capstone's (Intel syntax on x86), read with
 * bounded scans; an operand it does not understand is simply not a register.
 */
#include "simcore/simcore.h"

#include <stdio.h>
#include <string.h>

#define MAX_OPS 4

/* A register's family index (rax/eax/ax/al: one), or -1. x86: 0..15; Arm: x/w 0..30, sp 31. */
static int reg_index(const char *t, size_t n, bool aarch64)
{
	static const char *const x86[16][4] = {
		{ "rax", "eax", "ax", "al" }, { "rbx", "ebx", "bx", "bl" }, { "rcx", "ecx", "cx", "cl" },
		{ "rdx", "edx", "dx", "dl" }, { "rsi", "esi", "si", "sil" }, { "rdi", "edi", "di", "dil" },
		{ "rbp", "ebp", "bp", "bpl" }, { "rsp", "esp", "sp", "spl" },
	};
	char buf[8];

	/* x86's longest is 4 ("r10d"), Arm's 3 ("x30"): most tokens ("qword", "ptr", numbers) are not */
	if (n < 2 || n > 4 || (aarch64 && n > 3))
		return -1;
	memcpy(buf, t, n);
	buf[n] = '\0';
	if (aarch64) {
		unsigned v = 0;

		if (!strcmp(buf, "sp"))
			return 31;
		if ((buf[0] != 'x' && buf[0] != 'w') || n < 2 || n > 3)
			return -1;
		for (size_t i = 1; i < n; i++) {
			if (buf[i] < '0' || buf[i] > '9')
				return -1;
			v = v * 10 + (unsigned)(buf[i] - '0');
		}
		return v <= 30 ? (int)v : -1;
	}
	for (int r = 0; r < 8; r++)
		for (int k = 0; k < 4; k++)
			if (x86[r][k][0] == buf[0] && !strcmp(buf, x86[r][k]))
				return r;
	if (buf[0] == 'r' && buf[1] >= '0' && buf[1] <= '9') {
		unsigned v = (unsigned)(buf[1] - '0');
		size_t i = 2;

		if (buf[i] >= '0' && buf[i] <= '9')
			v = v * 10 + (unsigned)(buf[i++] - '0');
		if (v >= 8 && v <= 15 && (buf[i] == '\0' || ((buf[i] == 'd' || buf[i] == 'w' || buf[i] == 'b') &&
							      buf[i + 1] == '\0')))
			return (int)v;
	}
	return -1;
}

/* The registers named in s[0..n) as a bit mask. */
static uint64_t regs_in(const char *s, size_t n, bool aarch64)
{
	uint64_t m = 0;

	for (size_t i = 0; i < n;) {
		size_t j = i;
		int r;

		while (j < n && ((s[j] >= 'a' && s[j] <= 'z') || (s[j] >= '0' && s[j] <= '9')))
			j++;
		if (j == i) {
			i++;
			continue;
		}
		if ((r = reg_index(s + i, j - i, aarch64)) >= 0)
			m |= 1ull << r;
		i = j;
	}
	return m;
}

struct parsed {
	char mnem[32];
	const char *op[MAX_OPS];
	size_t op_len[MAX_OPS];
	size_t nr_ops;
	int mem;           /* the operand holding '[', or -1 */
	const char *addr;  /* inside the brackets */
	size_t addr_len;
};

static void parse(const char *text, struct parsed *p)
{
	size_t i = 0, n = strlen(text), k = 0;
	int depth = 0;

	memset(p, 0, sizeof(*p));
	p->mem = -1;
	while (i < n && text[i] != ' ' && k + 1 < sizeof(p->mnem))
		p->mnem[k++] = text[i++];
	/* x86 prefixes stand before the mnemonic ("rep stosq", "lock add") */
	while (i < n && text[i] == ' ')
		i++;
	for (size_t s = i; i <= n && p->nr_ops < MAX_OPS; i++) {
		if (i < n && text[i] == '[')
			depth++;
		else if (i < n && text[i] == ']')
			depth--;
		if (i == n || (text[i] == ',' && depth <= 0)) {
			while (s < i && text[s] == ' ')
				s++;
			if (i > s) {
				const char *lb = memchr(text + s, '[', i - s), *rb;

				p->op[p->nr_ops] = text + s;
				p->op_len[p->nr_ops] = i - s;
				if (lb && p->mem < 0) {
					rb = memchr(lb, ']', (size_t)(text + i - lb));
					p->mem = (int)p->nr_ops;
					p->addr = lb + 1;
					p->addr_len = rb ? (size_t)(rb - lb - 1) : (size_t)(text + i - lb - 1);
				}
				p->nr_ops++;
			}
			s = i + 1;
		}
	}
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* What the two passes of simcore_load_flags() need of one instruction. */
struct facts {
	bool load, branch;
	int dest;          /* the register written, or -1 */
	uint64_t addr_regs; /* registers of its memory operand's address */
	uint64_t srcs;     /* registers it reads (a move's destination excluded) */
	uint64_t prefetch; /* a software prefetch: the registers of its address */
};

static void facts_of(const struct simcore_insn *in, bool aarch64, struct facts *f)
{
	struct parsed p;
	bool mov_like;

	parse(in->text, &p);
	memset(f, 0, sizeof(*f));
	f->dest = -1;
	f->branch = in->branch_type != 0;
	if (p.mem >= 0)
		f->addr_regs = regs_in(p.addr, p.addr_len, aarch64);
	if (p.mem >= 0 && (starts(p.mnem, "prefetch") || starts(p.mnem, "prfm")))
		f->prefetch = f->addr_regs;
	if (aarch64)
		f->load = starts(p.mnem, "ld") && p.mem >= 0;
	else
		f->load = p.mem >= 0 && strcmp(p.mnem, "lea") && !starts(p.mnem, "nop") && !starts(p.mnem, "prefetch") &&
			  !(p.mem == 0 && starts(p.mnem, "mov"));
	if (p.nr_ops && p.mem != 0)
		f->dest = reg_index(p.op[0], p.op_len[0], aarch64);
	mov_like = starts(p.mnem, "mov") || !strcmp(p.mnem, "lea") || aarch64;
	for (size_t k = mov_like ? 1 : 0; k < p.nr_ops; k++)
		f->srcs |= regs_in(p.op[k], p.op_len[k], aarch64);
}

#define FACTS_KEPT 64 /* instructions whose facts are read once (SIMCORE_MAX_BLOCK_INSNS); the rest per pass */

void simcore_load_flags(const struct simcore_insn *v, size_t n, bool aarch64, uint32_t *flags)
{
	struct facts kept[FACTS_KEPT], tmp;
	uint64_t tainted = 0, prefetched = 0;

	for (size_t i = 0; i < n; i++) {
		struct facts *f = i < FACTS_KEPT ? &kept[i] : &tmp;

		facts_of(&v[i], aarch64, f);
		prefetched |= f->prefetch;
	}
	/* Twice: the first pass learns what the block's loads write, the second sees
	 * a chase through the previous iteration too. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			const struct facts *f = &kept[i];

			if (i >= FACTS_KEPT) {
				facts_of(&v[i], aarch64, &tmp);
				f = &tmp;
			}
			if (pass == 1) {
				flags[i] = 0;
				if (f->load && (f->addr_regs & tainted))
					flags[i] = SIM_INSN_CHASE;
				else if (f->load && (f->addr_regs & prefetched))
					flags[i] = SIM_INSN_PREFETCHED;
				else if (f->load)
					flags[i] = SIM_INSN_INDEP;
			}
			if (f->dest >= 0 && !f->branch) {
				if (f->load || (f->srcs & tainted))
					tainted |= 1ull << f->dest;
				else
					tainted &= ~(1ull << f->dest);
			}
		}
	}
}

void simcore_mca_text(const struct simcore_insn *in, bool aarch64, char *buf, size_t size)
{
	const char *t = in->text, *last = strrchr(t, ' ');

	/* llvm-mca models a call with a 100-cycle latency and chains calls and returns
	 * through the stack pointer, which the stack engine breaks in hardware: they are
	 * given as the jumps they are to the pipeline (x86 "call"/"ret", Arm "bl"/"blr"/"ret") */
	if (in->branch_type && (starts(t, "call") || !strcmp(t, "ret") || starts(t, "ret ") || starts(t, "bl ") ||
				starts(t, "blr "))) {
		const char *op = strchr(t, ' ');
		bool arm_reg = starts(t, "blr ");

		if (!strcmp(t, "ret") || starts(t, "ret ") || !op || (op[1] == '0' && op[2] == 'x') || op[1] == '#')
			snprintf(buf, size, "%s .Lt", aarch64 ? "b" : "jmp");
		else
			snprintf(buf, size, "%s%s", arm_reg ? "br" : "jmp", op);
		return;
	}
	if (in->branch_type && last) {
		const char *tok = last + 1;

		if (*tok == '#')
			tok++;
		if (starts(tok, "0x")) {
			snprintf(buf, size, "%.*s .Lt", (int)(last - t), t);
			return;
		}
	}
	snprintf(buf, size, "%s", t);
}
