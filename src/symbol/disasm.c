/*
 * disasm.c: instructions from a binary's code through capstone: the
 * instructions around an address (decoded from its function's start, so that
 * x86's variable-length boundaries are the real ones), the instruction count of
 * a straight-line range, and the branch type of one instruction.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>
#include <elf.h>

#include "base/alloc.h"
#include "base/checked.h"
#include "base/err.h"
#include "perfdata/perfdata.h"
#include "symbol/symbol-internal.h"

enum symbol_arch symbol_arch_from_elf(unsigned e_machine)
{
	switch (e_machine) {
	case EM_X86_64: return SYMBOL_ARCH_X86_64;
	case EM_386: return SYMBOL_ARCH_I386;
	case EM_AARCH64: return SYMBOL_ARCH_AARCH64;
	default: return SYMBOL_ARCH_UNKNOWN;
	}
}

const char *symbol_arch_name(enum symbol_arch arch)
{
	switch (arch) {
	case SYMBOL_ARCH_X86_64: return "x86_64";
	case SYMBOL_ARCH_I386: return "i386";
	case SYMBOL_ARCH_AARCH64: return "aarch64";
	default: return "unknown";
	}
}

static int cs_handle_open(enum symbol_arch arch, csh *h)
{
	cs_err e;

	switch (arch) {
	case SYMBOL_ARCH_X86_64: e = cs_open(CS_ARCH_X86, CS_MODE_64, h); break;
	case SYMBOL_ARCH_I386: e = cs_open(CS_ARCH_X86, CS_MODE_32, h); break;
	case SYMBOL_ARCH_AARCH64: e = cs_open(CS_ARCH_ARM64, CS_MODE_ARM, h); break;
	default: return TDP_ENOTSUP;
	}
	if (e == CS_ERR_MEM)
		return TDP_ENOMEM;
	if (e != CS_ERR_OK)
		return TDP_ENOTSUP;
	if (cs_option(*h, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK) {
		cs_close(h);
		return TDP_ENOTSUP;
	}
	return 0;
}

static unsigned x86_branch(csh h, const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;
	bool direct = x->op_count > 0 && x->operands[0].type == X86_OP_IMM;

	switch (in->id) {
	case X86_INS_RET: case X86_INS_RETF: case X86_INS_RETFQ:
		return BRANCH_TYPE_RET;
	case X86_INS_IRET: case X86_INS_IRETD: case X86_INS_IRETQ:
		return BRANCH_TYPE_ERET;
	case X86_INS_SYSCALL: case X86_INS_SYSENTER: case X86_INS_INT:
		return BRANCH_TYPE_SYSCALL;
	case X86_INS_SYSRET: case X86_INS_SYSEXIT:
		return BRANCH_TYPE_SYSRET;
	case X86_INS_CALL: case X86_INS_LCALL:
		return direct ? BRANCH_TYPE_CALL : BRANCH_TYPE_IND_CALL;
	case X86_INS_JMP: case X86_INS_LJMP:
		return direct ? BRANCH_TYPE_UNCOND : BRANCH_TYPE_IND;
	case X86_INS_LOOP: case X86_INS_LOOPE: case X86_INS_LOOPNE:
	case X86_INS_JCXZ: case X86_INS_JECXZ: case X86_INS_JRCXZ:
		return BRANCH_TYPE_COND; /* not all in capstone 4's jump group */
	default:
		/* jcc, jcxz/jecxz/jrcxz, loop/loope/loopne */
		return cs_insn_group(h, in, CS_GRP_JUMP) ? BRANCH_TYPE_COND : BRANCH_TYPE_UNKNOWN;
	}
}

static unsigned arm64_branch(const cs_insn *in)
{
	const cs_arm64 *a = &in->detail->arm64;

	switch (in->id) {
	case ARM64_INS_B:
		return a->cc != ARM64_CC_INVALID && a->cc != ARM64_CC_AL && a->cc != ARM64_CC_NV
			       ? BRANCH_TYPE_COND : BRANCH_TYPE_UNCOND;
	case ARM64_INS_CBZ: case ARM64_INS_CBNZ: case ARM64_INS_TBZ: case ARM64_INS_TBNZ:
		return BRANCH_TYPE_COND;
	case ARM64_INS_BL:
		return BRANCH_TYPE_CALL;
	case ARM64_INS_BLR:
		return BRANCH_TYPE_IND_CALL;
	case ARM64_INS_BR:
		return BRANCH_TYPE_IND;
	case ARM64_INS_RET:
		return BRANCH_TYPE_RET;
	case ARM64_INS_ERET:
		return BRANCH_TYPE_ERET;
	case ARM64_INS_SVC:
		return BRANCH_TYPE_SYSCALL;
	default:
		return BRANCH_TYPE_UNKNOWN;
	}
}

/*
 * in was decoded at its ELF address (runtime false: operands as objdump prints
 * them) or at its runtime address (operands in the process's address space).
 */
/* snprintf(dst, size, "%s", src) without the formatting: decoding is per instruction */
static void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void fill_insn(csh h, enum symbol_arch arch, const cs_insn *in, uint64_t bias, bool runtime,
		      struct symbol_insn *out)
{
	memset(out, 0, sizeof(*out));
	out->vaddr = runtime ? in->address - bias : in->address;
	out->addr = runtime ? in->address : in->address + bias;
	out->size = in->size > SYMBOL_INSN_MAX_BYTES ? SYMBOL_INSN_MAX_BYTES : (uint8_t)in->size;
	memcpy(out->bytes, in->bytes, out->size);
	copy_str(out->mnemonic, sizeof(out->mnemonic), in->mnemonic);
	copy_str(out->operands, sizeof(out->operands), in->op_str);
	out->branch_type = (uint8_t)(arch == SYMBOL_ARCH_AARCH64 ? arm64_branch(in) : x86_branch(h, in));
}

int symbol_decode(enum symbol_arch arch, const uint8_t *code, size_t len, uint64_t vaddr,
		  struct symbol_insn *out)
{
	csh h;
	cs_insn *in;
	int ret = arch == SYMBOL_ARCH_UNKNOWN ? TDP_ENOTSUP : cs_handle_open(arch, &h);

	if (ret)
		return ret;
	in = cs_malloc(h);
	if (!in) {
		cs_close(&h);
		return TDP_ENOMEM;
	}
	if (cs_disasm_iter(h, &code, &len, &vaddr, in)) {
		fill_insn(h, arch, in, 0, false, out);
		ret = 1;
	}
	cs_free(in, 1);
	cs_close(&h);
	return ret;
}

/* ---------------------------------------------------------------------------
 * Code of a mapped binary
 * ------------------------------------------------------------------------- */

struct code {
	struct symbol_binary *bin;
	const char *name;      /* for messages */
	uint64_t vaddr;        /* of the address asked for */
	uint64_t bias;         /* runtime - vaddr */
	uint64_t map_end;      /* runtime end of its map */
};

static int code_at(struct symbol_session *s, uint32_t pid, uint64_t addr, struct code *c,
		   struct tdp_err *err)
{
	struct map_ent m;
	bool kernel;
	struct symbol_dso *dso;

	if (!symbol_find_map(s, pid, addr, &m, &kernel))
		return tdp_err_set(err, TDP_ENOENT, "no map holds address %#" PRIx64 " of pid %" PRIu32,
				   addr, pid);
	dso = m.dso;
	if (kernel)
		return tdp_err_set(err, TDP_ENOENT,
				   "cannot disassemble kernel address %#" PRIx64 ": no vmlinux is read",
				   addr);
	symbol_dso_load(s, dso);
	if (dso->status != SYMBOL_OK || !dso->bin || !dso->bin->elf)
		return tdp_err_set(err, TDP_ENOENT, "no code for '%s': %s", dso->name,
				   dso->note ? dso->note
					     : "only a debug file was found (it holds no code)");
	c->bin = dso->bin;
	c->name = dso->bin->path ? dso->bin->path : dso->name;
	if (!symbol_dso_file_to_vaddr(c->bin, addr - m.start + m.pgoff, &c->vaddr))
		return tdp_err_set(err, TDP_ENOENT,
				   "'%s': address %#" PRIx64 " is outside the loaded segments",
				   c->name, addr);
	c->bias = addr - c->vaddr;
	c->map_end = m.end;
	if (c->bin->arch == SYMBOL_ARCH_UNKNOWN)
		return tdp_err_set(err, TDP_ENOTSUP,
				   "cannot disassemble '%s': machine %u is not supported "
				   "(x86-64, i386 and aarch64 are)", c->name, c->bin->e_machine);
	return 0;
}

/* The file bytes from vaddr to the end of its segment's file part. */
static const uint8_t *bytes_at(const struct symbol_binary *b, uint64_t vaddr, size_t *avail)
{
	for (size_t i = 0; i < b->nr_segs; i++) {
		const struct load_seg *g = &b->segs[i];
		uint64_t off;

		if (vaddr < g->vaddr || vaddr - g->vaddr >= g->filesz)
			continue;
		off = vaddr - g->vaddr + g->off;
		if (off >= b->image_size)
			return NULL;
		uint64_t n = g->filesz - (vaddr - g->vaddr);

		if (n > b->image_size - off)
			n = b->image_size - off;
		*avail = (size_t)n;
		return b->image + off;
	}
	return NULL;
}

static int session_handle(struct symbol_session *s, enum symbol_arch arch, csh *h)
{
	int ret;

	if ((unsigned)arch >= sizeof(s->cs) / sizeof(s->cs[0]))
		return TDP_ENOTSUP;
	if (!s->cs_opened[arch]) {
		csh nh;

		if ((ret = cs_handle_open(arch, &nh)))
			return ret;
		s->cs[arch] = nh;
		s->cs_opened[arch] = true;
	}
	*h = s->cs[arch];
	return 0;
}

void symbol_disasm_close(struct symbol_session *s)
{
	for (size_t i = 0; i < sizeof(s->cs) / sizeof(s->cs[0]); i++) {
		if (s->cs_opened[i]) {
			csh h = s->cs[i];

			cs_close(&h);
			s->cs_opened[i] = false;
		}
	}
}

struct decoder {
	csh h;
	cs_insn *in;
};

static int decoder_open(struct symbol_session *s, enum symbol_arch arch, struct decoder *d,
			const char *name, struct tdp_err *err)
{
	int ret = session_handle(s, arch, &d->h);

	if (ret)
		return tdp_err_set(err, ret, "cannot disassemble '%s': capstone has no %s decoder",
				   name, symbol_arch_name(arch));
	d->in = cs_malloc(d->h);
	if (!d->in)
		return tdp_err_oom(err);
	return 0;
}

void symbol_insn_text_runtime(const struct symbol_insn *in, char *buf, size_t size)
{
	const char *op = in->operands, *hex;
	char *end = NULL;
	unsigned long long t;
	bool direct = in->branch_type == BRANCH_TYPE_COND || in->branch_type == BRANCH_TYPE_UNCOND ||
		      in->branch_type == BRANCH_TYPE_CALL;

	/* "0x1586" (x86) or "#0x1586" (Arm): the whole operand is the target */
	hex = op[0] == '#' ? op + 1 : op;
	if (direct && in->addr != in->vaddr && hex[0] == '0' && hex[1] == 'x') {
		t = strtoull(hex, &end, 16);
		if (end && !*end) {
			snprintf(buf, size, "%s %s0x%llx", in->mnemonic, op[0] == '#' ? "#" : "",
				 (unsigned long long)(t + (in->addr - in->vaddr)));
			return;
		}
	}
	snprintf(buf, size, "%s%s%s", in->mnemonic, op[0] ? " " : "", op);
}

void symbol_disasm_release(struct symbol_disasm *d)
{
	tdp_free(d->insns);
	*d = (struct symbol_disasm)SYMBOL_DISASM_INIT;
}

static int disasm_around(struct symbol_session *s, uint32_t pid, uint64_t addr, size_t before, size_t after,
			 bool runtime, struct symbol_disasm *d, struct tdp_err *err)
{
	struct code c;
	struct decoder dec = { 0, NULL };
	struct symbol_insn *ring = NULL, *insns = NULL;
	const struct symbol_sym *sym;
	const uint8_t *p;
	size_t avail, nr_ring = 0, head = 0, nr_after = 0, nr;
	uint64_t start, end, cur, shift;
	bool found = false;
	int ret;

	*d = (struct symbol_disasm)SYMBOL_DISASM_INIT;
	if (before > SYMBOL_MAX_CONTEXT || after > SYMBOL_MAX_CONTEXT)
		return tdp_err_set(err, TDP_EINVAL, "at most %u instructions around an address",
				   SYMBOL_MAX_CONTEXT);
	if ((ret = code_at(s, pid, addr, &c, err)))
		return ret;
	sym = symtab_find(&c.bin->symtab, c.vaddr);
	start = sym && c.vaddr - sym->addr <= SYMBOL_MAX_DECODE ? sym->addr : c.vaddr;
	p = bytes_at(c.bin, start, &avail);
	if (!p)
		return tdp_err_set(err, TDP_EFORMAT, "'%s': no code bytes at %#" PRIx64 " in the file",
				   c.name, start);
	end = sym && start == sym->addr ? sym->addr + sym->size : start + avail;
	if (end - start > avail)
		end = start + avail;
	if (end <= c.vaddr) /* the symbol's size is short of the address: decode on */
		end = start + avail;
	if ((ret = decoder_open(s, c.bin->arch, &dec, c.name, err)))
		return ret;
	ring = tdp_calloc(before + 1, sizeof(*ring));
	insns = tdp_calloc(before + 1 + after, sizeof(*insns));
	if (!ring || !insns) {
		ret = tdp_err_oom(err);
		goto out;
	}
	/* decoded where the operands should point: the ELF or the runtime address */
	shift = runtime ? c.bias : 0;
	cur = start + shift;
	avail = (size_t)(end - start);
	while (avail && (!found || nr_after < after)) {
		if (!cs_disasm_iter(dec.h, &p, &avail, &cur, dec.in)) {
			if (found)
				break;
			ret = tdp_err_set(err, TDP_EFORMAT,
					  "'%s': the bytes at %#" PRIx64 " do not decode as %s",
					  c.name, cur - shift, symbol_arch_name(c.bin->arch));
			goto out;
		}
		if (!found && dec.in->address - shift > c.vaddr) {
			ret = tdp_err_set(err, TDP_EFORMAT,
					  "'%s': %#" PRIx64 " is not an instruction boundary when "
					  "decoding from %#" PRIx64, c.name, c.vaddr, start);
			goto out;
		}
		if (!found && dec.in->address - shift < c.vaddr) {
			if (before) {
				fill_insn(dec.h, c.bin->arch, dec.in, c.bias, runtime, &ring[head]);
				head = (head + 1) % before;
				if (nr_ring < before)
					nr_ring++;
			}
			continue;
		}
		if (!found) {
			size_t first = nr_ring < before ? 0 : head;

			for (size_t i = 0; i < nr_ring; i++)
				insns[i] = ring[(first + i) % (before ? before : 1)];
			fill_insn(dec.h, c.bin->arch, dec.in, c.bias, runtime, &insns[nr_ring]);
			insns[nr_ring].target = true;
			found = true;
			continue;
		}
		fill_insn(dec.h, c.bin->arch, dec.in, c.bias, runtime, &insns[nr_ring + 1 + nr_after]);
		nr_after++;
	}
	if (!found) {
		ret = tdp_err_set(err, TDP_EFORMAT, "'%s': %#" PRIx64 " is past the decodable code",
				  c.name, c.vaddr);
		goto out;
	}
	nr = nr_ring + 1 + nr_after;
	d->insns = insns;
	d->nr = nr;
	d->target = nr_ring;
	d->arch = c.bin->arch;
	if (sym && start == sym->addr) {
		d->function = symbol_sym_name(s, (struct symbol_sym *)sym);
		d->func_addr = sym->addr + c.bias;
	}
	insns = NULL;
out:
	tdp_free(ring);
	tdp_free(insns);
	if (dec.in)
		cs_free(dec.in, 1);
	return ret;
}

int symbol_disasm(struct symbol_session *s, uint32_t pid, uint64_t addr, size_t before,
		  size_t after, struct symbol_disasm *d, struct tdp_err *err)
{
	return disasm_around(s, pid, addr, before, after, false, d, err);
}

int symbol_disasm_runtime(struct symbol_session *s, uint32_t pid, uint64_t addr, size_t before,
			  size_t after, struct symbol_disasm *d, struct tdp_err *err)
{
	return disasm_around(s, pid, addr, before, after, true, d, err);
}

int symbol_disasm_run(struct symbol_session *s, uint32_t pid, uint64_t addr, size_t n, struct symbol_disasm *d,
		      struct tdp_err *err)
{
	struct code c;
	struct decoder dec = { 0, NULL };
	const uint8_t *p;
	size_t avail;
	uint64_t cur;
	int ret;

	*d = (struct symbol_disasm)SYMBOL_DISASM_INIT;
	if ((ret = code_at(s, pid, addr, &c, err)))
		return ret;
	if (!(p = bytes_at(c.bin, c.vaddr, &avail)))
		return tdp_err_set(err, TDP_EFORMAT, "'%s': no code bytes at %#" PRIx64 " in the file", c.name,
				   c.vaddr);
	if ((ret = decoder_open(s, c.bin->arch, &dec, c.name, err)))
		return ret;
	if (n && !(d->insns = tdp_reallocarray(NULL, n, sizeof(*d->insns)))) { /* fill_insn() sets each */
		ret = tdp_err_oom(err);
		goto out;
	}
	cur = c.vaddr;
	while (d->nr < n && avail && cs_disasm_iter(dec.h, &p, &avail, &cur, dec.in))
		fill_insn(dec.h, c.bin->arch, dec.in, c.bias, false, &d->insns[d->nr++]);
	d->arch = c.bin->arch;
	if (n && !d->nr) {
		symbol_disasm_release(d);
		ret = tdp_err_set(err, TDP_EFORMAT, "'%s': the bytes at %#" PRIx64 " do not decode as %s", c.name,
				  c.vaddr, symbol_arch_name(c.bin->arch));
	}
out:
	if (dec.in)
		cs_free(dec.in, 1);
	return ret;
}

int symbol_count_insns(struct symbol_session *s, uint32_t pid, uint64_t start, uint64_t end,
		       uint64_t *out, struct tdp_err *err)
{
	struct code c;
	struct decoder dec = { 0, NULL };
	const uint8_t *p;
	size_t avail;
	uint64_t cur, vend, n = 0;
	int ret;

	if (end < start)
		return tdp_err_set(err, TDP_EINVAL, "range %#" PRIx64 "-%#" PRIx64 " ends before it starts",
				   start, end);
	if (end - start >= SYMBOL_MAX_BLOCK)
		return tdp_err_set(err, TDP_ELIMIT, "range %#" PRIx64 "-%#" PRIx64 " is longer than %u bytes",
				   start, end, SYMBOL_MAX_BLOCK);
	if ((ret = code_at(s, pid, start, &c, err)))
		return ret;
	if (end >= c.map_end)
		return tdp_err_set(err, TDP_ENOENT, "range %#" PRIx64 "-%#" PRIx64 " crosses the end of its map",
				   start, end);
	vend = c.vaddr + (end - start);
	p = bytes_at(c.bin, c.vaddr, &avail);
	if (!p || avail <= vend - c.vaddr)
		return tdp_err_set(err, TDP_EFORMAT, "'%s': no code bytes for %#" PRIx64 "-%#" PRIx64,
				   c.name, start, end);
	if (avail > vend - c.vaddr + SYMBOL_INSN_MAX_BYTES)
		avail = (size_t)(vend - c.vaddr + SYMBOL_INSN_MAX_BYTES);
	if ((ret = decoder_open(s, c.bin->arch, &dec, c.name, err)))
		return ret;
	cur = c.vaddr;
	for (;;) {
		if (!cs_disasm_iter(dec.h, &p, &avail, &cur, dec.in)) {
			ret = tdp_err_set(err, TDP_EFORMAT, "'%s': the bytes at %#" PRIx64 " do not decode",
					  c.name, cur + c.bias);
			break;
		}
		n++;
		if (dec.in->address == vend) {
			*out = n;
			break;
		}
		if (dec.in->address > vend || cur > vend) {
			ret = tdp_err_set(err, TDP_EFORMAT,
					  "'%s': decoding from %#" PRIx64 " does not reach an instruction at %#" PRIx64,
					  c.name, start, end);
			break;
		}
	}
	cs_free(dec.in, 1);
	return ret;
}

int symbol_branch_type(struct symbol_session *s, uint32_t pid, uint64_t addr, unsigned *out,
		       struct tdp_err *err)
{
	struct code c;
	struct decoder dec = { 0, NULL };
	const uint8_t *p;
	size_t avail;
	uint64_t cur;
	int ret;

	if ((ret = code_at(s, pid, addr, &c, err)))
		return ret;
	p = bytes_at(c.bin, c.vaddr, &avail);
	if (!p)
		return tdp_err_set(err, TDP_EFORMAT, "'%s': no code bytes at %#" PRIx64, c.name, addr);
	if ((ret = decoder_open(s, c.bin->arch, &dec, c.name, err)))
		return ret;
	cur = c.vaddr;
	if (avail > SYMBOL_INSN_MAX_BYTES)
		avail = SYMBOL_INSN_MAX_BYTES;
	if (cs_disasm_iter(dec.h, &p, &avail, &cur, dec.in)) {
		struct symbol_insn insn;

		fill_insn(dec.h, c.bin->arch, dec.in, c.bias, false, &insn);
		*out = insn.branch_type;
	} else {
		ret = tdp_err_set(err, TDP_EFORMAT, "'%s': the bytes at %#" PRIx64 " do not decode as %s",
				  c.name, addr, symbol_arch_name(c.bin->arch));
	}
	cs_free(dec.in, 1);
	return ret;
}
