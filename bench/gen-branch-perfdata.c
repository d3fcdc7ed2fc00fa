/*
 * gen-branch-perfdata: a perf.data whose branch stacks walk the real code of a
 * binary, for timing `tdprof branches report` with and without source lines on
 * a binary with debug info. (This machine has no PMU, so no real branch stacks
 * can be recorded here; cpu-clock samples carry none.)
 *
 *   gen-branch-perfdata BINARY OUT [SAMPLES [ENTRIES]]   (defaults 200000, 32)
 *
 * The .text section of BINARY is decoded with src/symbol's decoder and every
 * direct branch (conditional, jump, call) and every return is kept (the PLT is
 * left out: its stubs jump through memory, which a walk cannot follow). A
 * stack is a walk: from an address, the next branch in address order either
 * falls through (a conditional, sometimes) or is taken to its target (a return
 * goes back after a call seen earlier in the walk, or to a random return
 * address), and each taken branch is one LBR entry with a cycles count that
 * grows with the bytes of the block it closes. Each conditional branch site
 * gets a fixed taken and mispredict probability from a hash of its address, so
 * that the hot sites repeat, as in a real profile. The walk is deterministic.
 *
 * The process (pid 4242) maps BINARY's executable segments as perf records them
 * (MMAP2 with the file offset; a PIE at 0x555555554000). Written with
 * src/perfdata's writer.
 */
#include "base/alloc.h"
#include "base/err.h"
#include "base/str.h"
#include "perfdata/perfdata-write.h"
#include "perfdata/perfdata.h"
#include "symbol/symbol.h"

#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PID 4242
#define PIE_BASE 0x555555554000ull
#define MAX_ENTRIES 1024

struct br {
	uint64_t from;      /* ELF virtual address */
	uint64_t target;    /* direct target, 0 for a return */
	uint8_t size;
	uint8_t type;       /* enum branch_type */
};

struct gen {
	struct br *br;
	size_t nr, alloc;
	uint64_t *rets;     /* addresses after call instructions */
	size_t nr_rets, alloc_rets;
	uint64_t rng;
	uint64_t base;
};

static uint64_t rnd(struct gen *g)
{
	g->rng ^= g->rng << 13;
	g->rng ^= g->rng >> 7;
	g->rng ^= g->rng << 17;
	return g->rng;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* Decode one executable segment, keeping its branches. */
static int scan(struct gen *g, const uint8_t *code, size_t len, uint64_t vaddr, enum symbol_arch arch)
{
	for (size_t off = 0; off < len;) {
		struct symbol_insn in;
		int rc = symbol_decode(arch, code + off, len - off, vaddr + off, &in);

		if (rc < 0)
			return rc;
		if (rc == 0) {
			off++;
			continue;
		}
		if (in.branch_type == BRANCH_TYPE_CALL || in.branch_type == BRANCH_TYPE_IND_CALL) {
			if (TDP_GROW(g->rets, g->alloc_rets, g->nr_rets + 1))
				return TDP_ENOMEM;
			g->rets[g->nr_rets++] = in.vaddr + in.size;
		}
		if (in.branch_type == BRANCH_TYPE_COND || in.branch_type == BRANCH_TYPE_UNCOND ||
		    in.branch_type == BRANCH_TYPE_CALL || in.branch_type == BRANCH_TYPE_RET) {
			uint64_t t = 0;

			if (in.branch_type != BRANCH_TYPE_RET &&
			    (strncmp(in.operands, "0x", 2) || !str_to_u64(in.operands, &t)))
				t = UINT64_MAX; /* not a plain direct target */
			/* calls into the PLT and other sections: a walk could not come back */
			if (t != UINT64_MAX && (in.branch_type == BRANCH_TYPE_RET || (t >= vaddr && t < vaddr + len))) {
				if (TDP_GROW(g->br, g->alloc, g->nr + 1))
					return TDP_ENOMEM;
				g->br[g->nr++] = (struct br){ in.vaddr, t, in.size, in.branch_type };
			}
		}
		off += in.size;
	}
	return 0;
}

/* The first branch at or after addr (by address), or NULL. */
static const struct br *next_branch(const struct gen *g, uint64_t addr)
{
	size_t lo = 0, hi = g->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->br[mid].from < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->nr ? &g->br[lo] : NULL;
}

/* One stack of n entries, newest first, into e[]. */
static void walk(struct gen *g, struct branch_entry *e, size_t n)
{
	uint64_t pos = g->br[rnd(g) % g->nr].from, calls[64];
	size_t depth = 0, k = 0, steps = 0;
	struct branch_entry tmp[MAX_ENTRIES];

	while (k < n && steps++ < 100000) {
		const struct br *b = next_branch(g, pos);
		uint64_t h, to;

		if (!b || b->from - pos > 4096) {
			pos = g->br[rnd(g) % g->nr].from;
			continue;
		}
		h = mix(b->from);
		if (b->type == BRANCH_TYPE_COND && rnd(g) % 100 >= 20 + h % 70) {
			pos = b->from + b->size; /* not taken: no LBR entry */
			continue;
		}
		if (b->type == BRANCH_TYPE_RET)
			to = depth ? calls[--depth] : g->rets[rnd(g) % g->nr_rets];
		else
			to = b->target;
		if (b->type == BRANCH_TYPE_CALL && depth < 64)
			calls[depth++] = b->from + b->size;
		memset(&tmp[k], 0, sizeof(tmp[k]));
		tmp[k].from = g->base + b->from;
		tmp[k].to = g->base + to;
		/* one site in ten is hard to predict (up to 40 %), the rest rarely miss */
		tmp[k].mispred = b->type == BRANCH_TYPE_COND && rnd(g) % 1000 < (h % 10 == 0 ? 100 + h % 300 : 5);
		tmp[k].predicted = !tmp[k].mispred;
		tmp[k].cycles = (uint16_t)(1 + (b->from > pos ? (b->from - pos) / 4 : 0) + rnd(g) % 3 +
					   (tmp[k].mispred ? 15 : 0));
		k++;
		pos = to;
	}
	for (size_t i = 0; i < k; i++)
		e[i] = tmp[k - 1 - i];
	for (size_t i = k; i < n; i++)
		memset(&e[i], 0, sizeof(e[i]));
}

static int add_u32(uint8_t *b, size_t at, uint32_t v)
{
	memcpy(b + at, &v, 4);
	return (int)(at + 4);
}

static size_t add_u64(uint8_t *b, size_t at, uint64_t v)
{
	memcpy(b + at, &v, 8);
	return at + 8;
}

static void hdr(uint8_t *b, uint32_t type, uint16_t misc, size_t size)
{
	uint16_t s = (uint16_t)size;

	memcpy(b, &type, 4);
	memcpy(b + 4, &misc, 2);
	memcpy(b + 6, &s, 2);
}

int main(int argc, char **argv)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct perfdata_writer *w = NULL;
	struct gen g;
	uint64_t samples = 200000, entries = 32;
	char path[PATH_MAX];
	uint8_t attr[128], *rec;
	struct branch_entry *e;
	Elf *elf;
	GElf_Ehdr eh;
	size_t nph, at, shstrndx;
	int fd, rc = 0;

	if (argc < 3 || argc > 5 || (argc > 3 && (!str_to_u64(argv[3], &samples) || !samples)) ||
	    (argc > 4 && (!str_to_u64(argv[4], &entries) || !entries || entries > MAX_ENTRIES))) {
		fprintf(stderr, "usage: gen-branch-perfdata BINARY OUT [SAMPLES [ENTRIES]]\n");
		return 2;
	}
	if (!realpath(argv[1], path)) {
		perror(argv[1]);
		return 1;
	}
	memset(&g, 0, sizeof(g));
	g.rng = 0x2545f4914f6cdd1dull;
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &nph)) {
		fprintf(stderr, "gen-branch-perfdata: '%s' is not an ELF file\n", path);
		return 1;
	}
	g.base = eh.e_type == ET_DYN ? PIE_BASE : 0;
	rec = tdp_malloc(65536);
	e = tdp_calloc(MAX_ENTRIES, sizeof(*e));
	memset(attr, 0, sizeof(attr));
	add_u32(attr, 4, sizeof(attr));
	add_u64(attr, 16, 100003);
	add_u64(attr, 24, PERFDATA_SAMPLE_IP | PERFDATA_SAMPLE_TID | PERFDATA_SAMPLE_TIME | PERFDATA_SAMPLE_BRANCH_STACK);
	add_u64(attr, 72, PERFDATA_BRANCH_ANY | PERFDATA_BRANCH_USER);
	if (!rec || !e || perfdata_writer_open(&w, argv[2], &err) ||
	    perfdata_writer_add_attr(w, attr, sizeof(attr), NULL, 0, "cycles:u", &err))
		goto fail;
	at = (size_t)add_u32(rec, 8, PID);
	at = (size_t)add_u32(rec, at, PID);
	memset(rec + at, 0, 16);
	memcpy(rec + at, "bench", 5);
	at += 16;
	hdr(rec, PERFDATA_RECORD_COMM, PERFDATA_MISC_COMM_EXEC, at);
	if (perfdata_writer_add_record(w, rec, at, &err))
		goto fail;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		uint64_t off, start, len;
		size_t n = strlen(path) + 1;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		off = ph.p_offset & ~0xfffull;
		start = g.base + (ph.p_vaddr & ~0xfffull);
		len = ((ph.p_vaddr & 0xfff) + ph.p_memsz + 0xfff) & ~0xfffull;
		at = (size_t)add_u32(rec, 8, PID);
		at = (size_t)add_u32(rec, at, PID);
		at = add_u64(rec, at, start);
		at = add_u64(rec, at, len);
		at = add_u64(rec, at, off);
		at = (size_t)add_u32(rec, at, 8);
		at = (size_t)add_u32(rec, at, 1);
		at = add_u64(rec, at, 1);
		at = add_u64(rec, at, 0);
		at = (size_t)add_u32(rec, at, 5);
		at = (size_t)add_u32(rec, at, 2);
		memset(rec + at, 0, (n + 7) & ~(size_t)7);
		memcpy(rec + at, path, n);
		at += (n + 7) & ~(size_t)7;
		hdr(rec, PERFDATA_RECORD_MMAP2, PERFDATA_MISC_USER, at);
		if (perfdata_writer_add_record(w, rec, at, &err))
			goto fail;
	}
	if (elf_getshdrstrndx(elf, &shstrndx) == 0) {
		for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
			GElf_Shdr sh;
			const char *name;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
			    strcmp(name, ".text") || sh.sh_type != SHT_PROGBITS)
				continue;
			d = elf_getdata_rawchunk(elf, (int64_t)sh.sh_offset, sh.sh_size, ELF_T_BYTE);
			if (!d || scan(&g, d->d_buf, d->d_size, sh.sh_addr, symbol_arch_from_elf(eh.e_machine)) < 0) {
				fprintf(stderr, "gen-branch-perfdata: cannot decode '%s'\n", path);
				rc = 1;
				goto out;
			}
		}
	}
	if (g.nr < 16 || !g.nr_rets) {
		fprintf(stderr, "gen-branch-perfdata: '%s' has too few branches\n", path);
		rc = 1;
		goto out;
	}
	/* branches in address order (segments come in order; keep it sure) */
	for (size_t i = 1; i < g.nr; i++)
		if (g.br[i].from < g.br[i - 1].from) {
			fprintf(stderr, "gen-branch-perfdata: segments out of order\n");
			rc = 1;
			goto out;
		}
	for (uint64_t s = 0; s < samples; s++) {
		walk(&g, e, (size_t)entries);
		at = add_u64(rec, 8, e[0].from);
		at = (size_t)add_u32(rec, at, PID);
		at = (size_t)add_u32(rec, at, PID);
		at = add_u64(rec, at, 1000000 + s * 1000);
		at = add_u64(rec, at, entries);
		for (uint64_t k = 0; k < entries; k++) {
			at = add_u64(rec, at, e[k].from);
			at = add_u64(rec, at, e[k].to);
			at = add_u64(rec, at, perfdata_branch_flags_encode(&e[k]));
		}
		hdr(rec, PERFDATA_RECORD_SAMPLE, PERFDATA_MISC_USER, at);
		if (perfdata_writer_add_record(w, rec, at, &err))
			goto fail;
	}
	rc = perfdata_writer_close(w, &err);
	w = NULL;
	if (rc)
		goto fail;
	printf("%s: %" PRIu64 " samples x %" PRIu64 " entries over %zu branches of '%s'\n", argv[2], samples, entries,
	       g.nr, path);
	goto out;
fail:
	fprintf(stderr, "gen-branch-perfdata: %s\n", err.msg[0] ? err.msg : "out of memory");
	rc = 1;
out:
	perfdata_writer_free(w);
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	tdp_free(rec);
	tdp_free(e);
	tdp_free(g.br);
	tdp_free(g.rets);
	return rc;
}
