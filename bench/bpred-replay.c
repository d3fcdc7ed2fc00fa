/*
 * bpred-replay: the branch outcomes of a run, recovered from valgrind lackey's
 * superblock trace, replayed through sim/bpred's predictor of each preset and
 * through a model of cachegrind's own predictor (cg_branchpred.c), to compare
 * mispredict rates (bench/bpred-accuracy.py runs it; figures in bench/RESULTS.md).
 *
 *   bpred-replay BINARY LACKEY_LOG [-s PC] [PRESET...]
 *
 * -s PC (hex) also counts the branches at that one address apart, for each model:
 * the rate of one branch of the program (bench/bpred-accuracy.py: the demos' own).
 *
 * BINARY must be a static, non-PIE x86-64 executable (its code is at its link
 * addresses, libc included); LACKEY_LOG is the output of
 *   valgrind --tool=lackey --basic-counts=no --trace-superblocks=yes
 *            --vex-guest-chase=no --vex-guest-max-insns=50 --vex-iropt-unroll-thresh=0
 *            --log-file=LACKEY_LOG BINARY ARGS
 * which prints "SB <hex>" at every superblock entered. Without chasing or loop
 * unrolling (which would hide the branches inside a superblock) a superblock runs
 * straight to its first control transfer (or stops earlier: at 50 instructions,
 * --vex-guest-max-insns, or at a system call), so the address of the next
 * superblock says where that transfer went: the conditional branch's direction,
 * the indirect branch's or the return's target. Capstone decodes each superblock
 * once. A next address that fits no decoding (a signal, code outside the binary
 * such as the vDSO) is counted as unmatched and skipped. `rep` string
 * instructions loop as one-instruction superblocks: cachegrind counts each
 * iteration as a conditional branch, a core runs them in microcode, so they are
 * counted apart and fed to neither model.
 *
 * Bench tool: the trace is trusted to be lackey's output but still parsed with
 * bounds checks, lines over 256 bytes and unknown lines are skipped.
 */
#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/bpred.h"

#define VEX_MAX_INSNS 50  /* valgrind's --vex-guest-max-insns (its default; the script passes it) */
#define MAX_INSNS 64      /* decoded per block: more than VEX_MAX_INSNS */
#define MAX_SEGS 16
#define MAX_MODELS 16

enum term { T_NONE, T_COND, T_JMP, T_IJMP, T_CALL, T_ICALL, T_RET, T_REP };

struct block {
	uint64_t start;
	uint64_t term_pc, fall, target; /* the terminator, the next instruction, a direct target */
	enum term term;
	unsigned nr;                    /* instructions */
	uint32_t off[MAX_INSNS];        /* offsets of the instructions after the first */
	bool used;
};

struct seg {
	uint64_t vaddr;
	uint8_t *bytes;
	size_t len;
};

struct prog {
	struct seg seg[MAX_SEGS];
	size_t nr_seg;
	csh cs;
	struct block *map; /* open addressing by start address */
	size_t map_size, map_used;
};

struct counts {
	uint64_t cond, cond_miss, ind, ind_miss, ret, ret_miss;
};

/* cachegrind's predictor (valgrind 3.19 cg_branchpred.c, described there): 2^14
 * 2-bit counters indexed by 7 bits of global history and 7 address bits; indirect
 * branches by a 512-entry last-target table; returns not predicted (not counted). */
struct cg_model {
	uint64_t shift;
	uint8_t counters[1 << 14];
	uint64_t btac[512];
};

static bool cg_cond(struct cg_model *m, uint64_t pc, bool taken)
{
	size_t i = ((m->shift & 127) << 7) | (pc & 127);
	bool pred = m->counters[i] >= 2;

	m->shift = (m->shift << 1) | taken;
	if (taken && m->counters[i] < 3)
		m->counters[i]++;
	else if (!taken && m->counters[i] > 0)
		m->counters[i]--;
	return pred != taken;
}

static bool cg_ind(struct cg_model *m, uint64_t pc, uint64_t target)
{
	bool miss = m->btac[pc & 511] != target;

	m->btac[pc & 511] = target;
	return miss;
}

static int load_elf(struct prog *p, const char *path)
{
	int fd = open(path, O_RDONLY), rc = -1;
	Elf *e = NULL;
	GElf_Ehdr eh;
	size_t n;

	if (fd < 0) {
		fprintf(stderr, "bpred-replay: cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || !gelf_getehdr(e, &eh) || eh.e_type != ET_EXEC || eh.e_machine != EM_X86_64 ||
	    elf_getphdrnum(e, &n) != 0) {
		fprintf(stderr, "bpred-replay: '%s': not a static non-PIE x86-64 executable\n", path);
		goto out;
	}
	for (size_t i = 0; i < n && p->nr_seg < MAX_SEGS; i++) {
		GElf_Phdr ph;
		struct seg *s = &p->seg[p->nr_seg];

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		s->vaddr = ph.p_vaddr;
		s->len = ph.p_filesz;
		s->bytes = malloc(s->len ? s->len : 1);
		if (!s->bytes || pread(fd, s->bytes, s->len, (off_t)ph.p_offset) != (ssize_t)s->len) {
			fprintf(stderr, "bpred-replay: '%s': cannot read a segment\n", path);
			goto out;
		}
		p->nr_seg++;
	}
	rc = p->nr_seg ? 0 : -1;
	if (rc)
		fprintf(stderr, "bpred-replay: '%s': no executable segment\n", path);
out:
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

static bool is_string_op(unsigned id)
{
	switch (id) {
	case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSD: case X86_INS_MOVSQ:
	case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD: case X86_INS_STOSQ:
	case X86_INS_LODSB: case X86_INS_LODSW: case X86_INS_LODSD: case X86_INS_LODSQ:
	case X86_INS_CMPSB: case X86_INS_CMPSW: case X86_INS_CMPSD: case X86_INS_CMPSQ:
	case X86_INS_SCASB: case X86_INS_SCASW: case X86_INS_SCASD: case X86_INS_SCASQ:
		return true;
	default:
		return false;
	}
}

/* The terminator of one instruction, T_NONE when it does not end a superblock. */
static enum term classify(const cs_insn *in, uint64_t *target, bool *ends)
{
	const cs_x86 *x = &in->detail->x86;
	bool imm = x->op_count == 1 && x->operands[0].type == X86_OP_IMM;

	*ends = true;
	*target = imm ? (uint64_t)x->operands[0].imm : 0;
	if (cs_insn_group(0, in, CS_GRP_RET) || in->id == X86_INS_RET)
		return T_RET;
	if (in->id == X86_INS_CALL)
		return imm ? T_CALL : T_ICALL;
	if (in->id == X86_INS_JMP)
		return imm ? T_JMP : T_IJMP;
	for (unsigned g = 0; g < in->detail->groups_count; g++)
		if (in->detail->groups[g] == X86_GRP_JUMP)
			return T_COND; /* jcc, jrcxz, loop */
	if ((x->prefix[0] == X86_PREFIX_REP || x->prefix[0] == X86_PREFIX_REPNE) && is_string_op(in->id))
		return T_REP;
	if (in->id == X86_INS_SYSCALL || in->id == X86_INS_INT || in->id == X86_INS_INT3 ||
	    in->id == X86_INS_UD2 || in->id == X86_INS_HLT)
		return T_NONE;
	*ends = false;
	return T_NONE;
}

static void decode(struct prog *p, struct block *b)
{
	const struct seg *s = NULL;
	cs_insn *in = cs_malloc(p->cs);
	uint64_t addr = b->start;

	b->term = T_NONE;
	b->nr = 0;
	for (size_t i = 0; i < p->nr_seg; i++)
		if (addr >= p->seg[i].vaddr && addr - p->seg[i].vaddr < p->seg[i].len)
			s = &p->seg[i];
	while (s && in && b->nr < MAX_INSNS) {
		const uint8_t *code = s->bytes + (addr - s->vaddr);
		size_t left = s->len - (addr - s->vaddr);
		uint64_t target;
		bool ends;

		if (!cs_disasm_iter(p->cs, &code, &left, &addr, in))
			break;
		b->off[b->nr++] = (uint32_t)(in->address - b->start);
		b->term = classify(in, &target, &ends);
		if (ends) {
			b->term_pc = in->address;
			b->fall = in->address + in->size;
			b->target = target;
			break;
		}
		b->term = T_NONE;
	}
	if (in)
		cs_free(in, 1);
}

static struct block *lookup(struct prog *p, uint64_t start)
{
	size_t i;

	if (p->map_used * 2 >= p->map_size) {
		struct block *old = p->map;
		size_t n = p->map_size;

		p->map_size = n ? n * 2 : 4096;
		p->map = calloc(p->map_size, sizeof(*p->map));
		if (!p->map) {
			fprintf(stderr, "bpred-replay: out of memory\n");
			exit(1);
		}
		p->map_used = 0;
		for (size_t k = 0; k < n; k++) {
			if (!old[k].used)
				continue;
			i = (old[k].start * 0x9e3779b97f4a7c15ull >> 20) & (p->map_size - 1);
			while (p->map[i].used)
				i = (i + 1) & (p->map_size - 1);
			p->map[i] = old[k];
			p->map_used++;
		}
		free(old);
	}
	i = (start * 0x9e3779b97f4a7c15ull >> 20) & (p->map_size - 1);
	while (p->map[i].used && p->map[i].start != start)
		i = (i + 1) & (p->map_size - 1);
	if (!p->map[i].used) {
		p->map[i].used = true;
		p->map[i].start = start;
		decode(p, &p->map[i]);
		p->map_used++;
	}
	return &p->map[i];
}

/* valgrind cut the block at its instruction limit, before its terminator: next is
 * the instruction after the limit. */
static bool cut(const struct block *b, uint64_t next)
{
	return b->nr > VEX_MAX_INSNS && b->start + b->off[VEX_MAX_INSNS] == next;
}

struct run {
	uint64_t site;                   /* -s: the branch counted apart (0: none) */
	struct counts s[MAX_MODELS + 1]; /* its counts */
	size_t nr;
	const char *name[MAX_MODELS];
	struct bpred *bp[MAX_MODELS];
	void *mem[MAX_MODELS];
	struct counts c[MAX_MODELS + 1]; /* the last: cachegrind's model */
	struct cg_model cg;
	uint64_t sbs, unmatched, rep, calls, jumps;
};

/* What the transfer that ended block b did, given the next superblock's address. */
static void step(struct run *r, const struct block *b, uint64_t next)
{
	if (cut(b, next))
		return;
	switch (b->term) {
	case T_COND:
		if (next != b->target && next != b->fall)
			break;
		for (size_t m = 0; m <= r->nr; m++) {
			bool taken = next == b->target && next != b->fall;
			bool miss = m < r->nr ? bpred_cond(r->bp[m], b->term_pc, taken)
					      : cg_cond(&r->cg, b->term_pc, taken);

			r->c[m].cond++;
			r->c[m].cond_miss += miss;
			if (b->term_pc == r->site) {
				r->s[m].cond++;
				r->s[m].cond_miss += miss;
			}
		}
		return;
	case T_JMP:
		if (next != b->target)
			break;
		r->jumps++;
		for (size_t m = 0; m < r->nr; m++)
			bpred_uncond(r->bp[m], b->term_pc, next);
		return;
	case T_CALL:
		if (next != b->target)
			break;
		r->calls++;
		for (size_t m = 0; m < r->nr; m++)
			bpred_call(r->bp[m], b->term_pc, b->fall);
		return;
	case T_IJMP:
	case T_ICALL:
		for (size_t m = 0; m <= r->nr; m++) {
			bool miss = m < r->nr ? bpred_indirect(r->bp[m], b->term_pc, next)
					      : cg_ind(&r->cg, b->term_pc, next);

			r->c[m].ind++;
			r->c[m].ind_miss += miss;
			if (b->term_pc == r->site) {
				r->s[m].ind++;
				r->s[m].ind_miss += miss;
			}
			if (m < r->nr && b->term == T_ICALL)
				bpred_call(r->bp[m], b->term_pc, b->fall);
		}
		return;
	case T_RET:
		for (size_t m = 0; m < r->nr; m++) {
			r->c[m].ret++;
			r->c[m].ret_miss += bpred_return(r->bp[m], b->term_pc, next);
		}
		return;
	case T_REP:
		if (next == b->term_pc || next == b->fall) {
			r->rep++;
			return;
		}
		break;
	case T_NONE:
		if (next == b->fall)
			return;
		break;
	}
	/* control went somewhere the decoding does not explain */
	r->unmatched++;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static int replay(struct prog *p, FILE *f, struct run *r)
{
	char line[256];
	struct block *prev = NULL;

	while (fgets(line, sizeof(line), f)) {
		char *end;
		uint64_t a;

		if (!strchr(line, '\n') && !feof(f)) { /* overlong: skip the rest */
			int ch;

			while ((ch = fgetc(f)) != EOF && ch != '\n')
				;
			continue;
		}
		if (strncmp(line, "SB ", 3) != 0)
			continue;
		errno = 0;
		a = strtoull(line + 3, &end, 16);
		if (errno || end == line + 3)
			continue;
		r->sbs++;
		if (prev)
			step(r, prev, a);
		prev = lookup(p, a);
	}
	return ferror(f) ? -1 : 0;
}

static int add_model(struct run *r, const char *name)
{
	const struct bpred_preset *b = bpred_preset(name);
	size_t n;

	if (!b || r->nr == MAX_MODELS) {
		fprintf(stderr, "bpred-replay: unknown preset '%s'\n", name);
		return -1;
	}
	n = bpred_size(&b->config);
	r->name[r->nr] = b->name;
	r->mem[r->nr] = aligned_alloc(8, (n + 7) & ~(size_t)7);
	r->bp[r->nr] = r->mem[r->nr] ? bpred_init(r->mem[r->nr], n, &b->config) : NULL;
	if (!r->bp[r->nr]) {
		fprintf(stderr, "bpred-replay: out of memory\n");
		return -1;
	}
	r->nr++;
	return 0;
}

int main(int argc, char **argv)
{
	static struct prog p;
	static struct run r;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: bpred-replay BINARY LACKEY_LOG [-s PC] [PRESET...]\n");
		return 2;
	}
	if (load_elf(&p, argv[1]))
		return 2;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &p.cs) != CS_ERR_OK)
		return 1;
	cs_option(p.cs, CS_OPT_DETAIL, CS_OPT_ON);
	for (int i = 3; i < argc; i++) { /* -s PC, then the presets named (none: every preset) */
		if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) {
			char *end;

			r.site = strtoull(argv[++i], &end, 16);
			if (*end || !r.site) {
				fprintf(stderr, "bpred-replay: -s wants a hex address, not '%s'\n", argv[i]);
				return 2;
			}
			continue;
		}
		if (add_model(&r, argv[i]))
			return 2;
	}
	for (size_t i = 0, named = r.nr; !named && bpred_preset_at(i); i++)
		if (add_model(&r, bpred_preset_at(i)->name))
			return 2;
	f = fopen(argv[2], "r");
	if (!f) {
		fprintf(stderr, "bpred-replay: cannot open '%s': %s\n", argv[2], strerror(errno));
		return 2;
	}
	if (replay(&p, f, &r)) {
		fprintf(stderr, "bpred-replay: cannot read '%s'\n", argv[2]);
		return 2;
	}
	fclose(f);
	printf("superblocks %" PRIu64 ", unmatched transfers %" PRIu64 ", rep iterations %" PRIu64
	       ", direct jumps %" PRIu64 ", direct calls %" PRIu64 "\n",
	       r.sbs, r.unmatched, r.rep, r.jumps, r.calls);
	printf("%-16s %12s %10s %7s %10s %8s %7s %10s %8s %7s\n", "model", "cond", "miss", "rate",
	       "indirect", "miss", "rate", "returns", "miss", "rate");
	for (size_t m = 0; m <= r.nr; m++) {
		const struct counts *c = &r.c[m];

		printf("%-16s %12" PRIu64 " %10" PRIu64 " %6.2f%% %10" PRIu64 " %8" PRIu64 " %6.2f%% ",
		       m < r.nr ? r.name[m] : "cachegrind-model", c->cond, c->cond_miss,
		       pct(c->cond_miss, c->cond), c->ind, c->ind_miss, pct(c->ind_miss, c->ind));
		if (m < r.nr)
			printf("%10" PRIu64 " %8" PRIu64 " %6.2f%%\n", c->ret, c->ret_miss, pct(c->ret_miss, c->ret));
		else
			printf("%10s %8s %7s\n", "-", "-", "-");
	}
	for (size_t m = 0; r.site && m <= r.nr; m++)
		printf("site %#" PRIx64 " %-16s cond %" PRIu64 " miss %" PRIu64 " indirect %" PRIu64 " miss %" PRIu64 "\n",
		       r.site, m < r.nr ? r.name[m] : "cachegrind-model", r.s[m].cond, r.s[m].cond_miss, r.s[m].ind,
		       r.s[m].ind_miss);
	for (size_t m = 0; m < r.nr; m++)
		free(r.mem[m]);
	for (size_t i = 0; i < p.nr_seg; i++)
		free(p.seg[i].bytes);
	free(p.map);
	cs_close(&p.cs);
	return 0;
}
