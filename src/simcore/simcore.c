/*
 * simcore.c: the hot blocks of a callgrind profile, decoded and given to
 * llvm-mca, combined into a struct sim_core (see simcore.h).
 */
#include "simcore/simcore.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/sigfwd.h"
#include "base/strbuf.h"
#include "loop/loop.h"
#include "symbol/exe.h"

#define SIMCORE_ONE_CYCLE 1.25 /* llvm-mca cycles per iteration read as "one cycle" */
#define SIMCORE_PORT_SLACK 1.15 /* cycles within this factor of the throughput bound: port-bound */

/* A hot block: entries idx[first .. first + n) of the sorted index. */
struct block {
	size_t first, n;
	uint64_t execs;
	double weight;
	int region;          /* llvm-mca region (distinct text), -1: not decoded */
	struct simcore_insn *insns;
	uint32_t *flags;
	unsigned rep_elem; /* a block that starts with a repeated string instruction: its element's bytes */
};

struct object {
	uint32_t obj;
	struct symbol_exe x;
	bool open, tried;
	uint64_t delta; /* runtime = ELF vaddr + delta */
};

struct region {
	uint64_t hash;
	size_t block;   /* the first block with this text */
	bool ok;
	double cycles;  /* per iteration, steady state */
	double t1;      /* llvm-mca's total cycles of the first run (n1 iterations) */
	bool ok1;
	double uops;    /* per iteration */
	double rthru;   /* llvm-mca's Block RThroughput: cycles per iteration its resources allow */
	unsigned *uops_of; /* per instruction */
};

struct ctx {
	const struct sim_profile *p;
	const struct sim_machine *m;
	size_t *idx;     /* entries with an address, sorted by (obj, addr) */
	size_t nr_idx;
	struct block *b;
	size_t nr_b;
	struct object *objs;
	size_t nr_objs;
	struct region *r;
	size_t nr_r;
	struct symbol_exe_insn decoded[SIMCORE_MAX_BLOCK_INSNS]; /* decode_block()'s */
	uint8_t mem[SIMCORE_MAX_BLOCK_INSNS]; /* one region's LOOP_MCA_MAY_* flags, while its µops are read */
	bool x86;
};

/* The sort keys of find_blocks(): compact, so that sorting reads no entry (256 bytes each). */
struct entry_key {
	uint64_t addr;
	uint32_t obj;
	uint32_t i; /* index into p->v (SIM_MAX_ENTRIES < 2^32) */
};

/* The byte d of a key: 0-7 the address's, 8-11 the object's (least significant first). */
static inline unsigned key_byte(const struct entry_key *k, unsigned d)
{
	return d < 8 ? (unsigned)(k->addr >> (8 * d)) & 0xff : (unsigned)(k->obj >> (8 * (d - 8))) & 0xff;
}

/*
 * Sort v[0..n) by (obj, addr), stably (equal keys keep their order: the entries'),
 * by bytes from the least significant: the 75,000 entries of a large profile in a
 * few passes, where qsort's comparisons were a tenth of tdprof's own work. A byte
 * all keys share costs no pass. tmp holds n keys; returns v or tmp, whichever
 * holds the result.
 */
static const struct entry_key *sort_keys(struct entry_key *v, struct entry_key *tmp, size_t n)
{
	size_t count[12][256];

	memset(count, 0, sizeof(count));
	for (size_t i = 0; i < n; i++) {
		uint64_t a = v[i].addr;
		uint32_t o = v[i].obj;

		for (unsigned d = 0; d < 8; d++)
			count[d][(a >> (8 * d)) & 0xff]++;
		for (unsigned d = 0; d < 4; d++)
			count[8 + d][(o >> (8 * d)) & 0xff]++;
	}
	for (unsigned d = 0; d < 12 && n; d++) {
		size_t pos = 0;
		struct entry_key *t;

		if (count[d][key_byte(&v[0], d)] == n)
			continue; /* every key has this byte */
		for (unsigned b = 0; b < 256; b++) {
			size_t c = count[d][b];

			count[d][b] = pos;
			pos += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[count[d][key_byte(&v[i], d)]++] = v[i];
		t = v;
		v = tmp;
		tmp = t;
	}
	return v;
}

static const struct block *sort_b;

/* Heavier first; equal weights in the order found (by address). */
static int cmp_weight(const void *x, const void *y)
{
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	double a = sort_b[i].weight, b = sort_b[j].weight;

	if (a != b)
		return a < b ? 1 : -1;
	return i < j ? -1 : i > j;
}

/* Runs of consecutive instructions executed equally often, the heaviest first. */
static int find_blocks(struct ctx *c)
{
	const struct sim_profile *p = c->p;
	size_t alloc = 0, nb = 0;
	double total = (double)p->totals.v[SIM_IR], sum = 0;
	uint64_t max_gap = !strcmp(c->m->mtriple, "aarch64") ? 4 : 15;
	struct entry_key *keys = tdp_calloc(p->nr ? 2 * p->nr : 1, sizeof(*keys)); /* and the sort's room */
	const struct entry_key *k;
	size_t *order = NULL;
	struct block *sorted = NULL;
	int ret = 0;

	c->idx = tdp_calloc(p->nr ? p->nr : 1, sizeof(*c->idx));
	if (!c->idx || !keys) {
		ret = TDP_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < p->nr; i++)
		if (p->v[i].addr && p->v[i].cost.v[SIM_IR] && p->v[i].obj != SIM_NO_NAME)
			keys[c->nr_idx++] = (struct entry_key){ p->v[i].addr, p->v[i].obj, (uint32_t)i };
	k = sort_keys(keys, keys + p->nr, c->nr_idx);
	for (size_t i = 0; i < c->nr_idx; i++)
		c->idx[i] = k[i].i;
	for (size_t i = 0; i < c->nr_idx;) {
		const struct sim_entry *e = &p->v[c->idx[i]];
		size_t j = i + 1;

		while (j < c->nr_idx && j - i < SIMCORE_MAX_BLOCK_INSNS) {
			const struct sim_entry *f = &p->v[c->idx[j]], *prev = &p->v[c->idx[j - 1]];

			if (f->obj != e->obj || f->cost.v[SIM_IR] != e->cost.v[SIM_IR] || f->addr <= prev->addr ||
			    f->addr - prev->addr > max_gap)
				break;
			j++;
		}
		if (nb == alloc && TDP_GROW(c->b, alloc, nb + 1)) {
			ret = TDP_ENOMEM;
			goto out;
		}
		memset(&c->b[nb], 0, sizeof(c->b[nb]));
		c->b[nb].first = i;
		c->b[nb].n = j - i;
		c->b[nb].execs = e->cost.v[SIM_IR];
		c->b[nb].weight = (double)e->cost.v[SIM_IR] * (double)(j - i);
		c->b[nb].region = -1;
		nb++;
		i = j;
	}
	/* the heaviest first: the weights sorted, then the blocks put in their order */
	if (!(order = tdp_calloc(nb ? nb : 1, sizeof(*order))) || !(sorted = tdp_calloc(nb ? nb : 1, sizeof(*sorted)))) {
		ret = TDP_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nb; i++)
		order[i] = i;
	sort_b = c->b;
	qsort(order, nb, sizeof(*order), cmp_weight);
	for (size_t i = 0; i < nb; i++)
		sorted[i] = c->b[order[i]];
	tdp_free(c->b);
	c->b = sorted;
	sorted = NULL;
	for (c->nr_b = 0; c->nr_b < nb && c->nr_b < SIMCORE_MAX_BLOCKS && sum < SIMCORE_COVERAGE * total; c->nr_b++)
		sum += c->b[c->nr_b].weight;
out:
	tdp_free(keys);
	tdp_free(order);
	tdp_free(sorted);
	return ret;
}

/* The object of a block, opened on first use with its load offset. */
static struct object *object_of(struct ctx *c, uint32_t obj)
{
	const struct sim_profile *p = c->p;
	struct object *o = NULL;
	const struct sim_entry *hot = NULL;
	uint64_t lowest = UINT64_MAX;
	const struct symbol_exe_func *f;
	struct tdp_err err = TDP_ERR_INIT;

	for (size_t i = 0; i < c->nr_objs; i++)
		if (c->objs[i].obj == obj)
			return c->objs[i].open ? &c->objs[i] : NULL;
	o = &c->objs[c->nr_objs++];
	memset(o, 0, sizeof(*o));
	o->obj = obj;
	if (symbol_exe_open_code(&o->x, sim_profile_name(p, obj), &err)) {
		symbol_exe_close(&o->x); /* what a failed open had allocated (its path) */
		return NULL;
	}
	o->open = true;
	/* valgrind gives addresses as loaded: the hottest function's lowest executed
	 * address against its symbol gives the (page-aligned) load offset */
	for (size_t i = 0; i < p->nr; i++)
		if (p->v[i].obj == obj && p->v[i].addr && (!hot || p->v[i].cost.v[SIM_IR] > hot->cost.v[SIM_IR]))
			hot = &p->v[i];
	if (hot && (f = symbol_exe_find_func(&o->x, sim_profile_name(p, hot->fn))) != NULL) {
		for (size_t i = 0; i < p->nr; i++)
			if (p->v[i].obj == obj && p->v[i].fn == hot->fn && p->v[i].addr && p->v[i].addr < lowest)
				lowest = p->v[i].addr;
		if (lowest != UINT64_MAX && lowest >= f->addr && !((lowest - f->addr) & 0xfff))
			o->delta = lowest - f->addr;
	}
	return o;
}

/* "rep movsb ...", "repe cmpsb ...", "repne scasb ...": capstone's text of a repeated string instruction. */
static bool is_rep_string(const char *text)
{
	return !strncmp(text, "rep ", 4) || !strncmp(text, "repe ", 5) || !strncmp(text, "repne ", 6) ||
	       !strncmp(text, "repz ", 5) || !strncmp(text, "repnz ", 6);
}

/* The bytes of one element of a repeated string instruction: its mnemonic's last letter. */
static unsigned rep_element(const char *text)
{
	const char *m = strchr(text, ' ');
	size_t n;

	if (!m)
		return 1;
	m++;
	n = strcspn(m, " ");
	switch (n ? m[n - 1] : 'b') {
	case 'w': return 2;
	case 'd': return 4;
	case 'q': return 8;
	default: return 1;
	}
}

/*
 * A block that starts with a repeated string instruction: valgrind counts one
 * execution per element, so its count is the elements moved; the instruction
 * before it (the count's setup, "mov rcx, rdx") runs once per start. Its µops per
 * execution: the machine's start µops per start and its fast-string loop's µops
 * per byte, all microcode (Heavy Operations), into *in. False when the starts are
 * not known (no instruction just before it ran): the plain rule counts it.
 */
static bool rep_string_insn(const struct ctx *c, const struct block *b, struct sim_core_insn *in)
{
	const struct sim_entry *e = &c->p->v[c->idx[b->first]], *prev;
	double elems = (double)e->cost.v[SIM_IR], starts;

	if (!b->first || elems <= 0)
		return false;
	prev = &c->p->v[c->idx[b->first - 1]];
	if (prev->obj != e->obj || prev->addr >= e->addr || e->addr - prev->addr > 15 || !prev->cost.v[SIM_IR])
		return false;
	starts = fmin(elems, (double)prev->cost.v[SIM_IR]);
	memset(in, 0, sizeof(*in));
	in->obj = e->obj;
	in->addr = e->addr;
	in->flags = SIM_INSN_MICROCODE;
	in->uops = (starts * c->m->rep_start_uops + elems * b->rep_elem / c->m->rep_bytes_per_uop) / elems;
	return true;
}

/*
 * Decode block b straight from its first address (valgrind executed it: it starts an
 * instruction), once; keep the prefix whose addresses are the block's.
 */
static int decode_block(struct ctx *c, struct block *b)
{
	const struct sim_profile *p = c->p;
	const struct sim_entry *e0 = &p->v[c->idx[b->first]];
	struct object *o = object_of(c, e0->obj);
	struct symbol_exe_insn *l = c->decoded;
	struct tdp_err err = TDP_ERR_INIT;
	size_t got = 0, nr = 0;

	if (!o) {
		b->n = 0; /* an object we cannot read (no symbols, not a file): nothing decoded */
		return 0;
	}
	if (!(b->insns = tdp_calloc(b->n, sizeof(*b->insns))) || !(b->flags = tdp_calloc(b->n, sizeof(*b->flags))))
		return TDP_ENOMEM;
	if (b->n > SIMCORE_MAX_BLOCK_INSNS) /* find_blocks() cuts longer runs */
		b->n = SIMCORE_MAX_BLOCK_INSNS;
	if (!symbol_exe_decode(&o->x, e0->addr - o->delta, b->n, l, &nr, &err)) {
		for (; got < nr && l[got].addr == p->v[c->idx[b->first + got]].addr - o->delta; got++) {
			size_t len = strnlen(l[got].text, sizeof(b->insns[got].text) - 1);

			/* a rep-prefixed string instruction runs once per element under valgrind (each
			 * counted as an execution) but is one microcoded instruction to llvm-mca: its
			 * latency would be charged per byte. The block stops before it (plain rule). */
			if (is_rep_string(l[got].text)) {
				if (!got)
					b->rep_elem = rep_element(l[got].text);
				break;
			}
			memcpy(b->insns[got].text, l[got].text, len);
			b->insns[got].text[len] = '\0';
			b->insns[got].branch_type = l[got].branch_type;
		}
	}
	b->n = got; /* stops at an instruction between that did not run, or a rep string */
	return 0;
}

/*
 * The cache key of a block's llvm-mca region: its text with every number (an
 * immediate, a displacement, a branch target) read as 0. Blocks that differ only
 * in constants (a generated function per case, the same loop at two addresses)
 * schedule alike and are modelled once.
 */
static bool same_shape(const char *a, const char *b)
{
	for (;;) {
		bool na = *a >= '0' && *a <= '9', nb = *b >= '0' && *b <= '9';

		if (na != nb)
			return false;
		if (na) {
			while ((*a >= '0' && *a <= '9') || (*a >= 'a' && *a <= 'f') || *a == 'x')
				a++;
			while ((*b >= '0' && *b <= '9') || (*b >= 'a' && *b <= 'f') || *b == 'x')
				b++;
			continue;
		}
		if (*a != *b)
			return false;
		if (!*a)
			return true;
		a++;
		b++;
	}
}

static uint64_t block_hash(const struct block *b)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < b->n; i++) {
		for (const char *t = b->insns[i].text;; t++) {
			if (*t >= '0' && *t <= '9') { /* a number: hashed as one '0' (same_shape) */
				while ((*t >= '0' && *t <= '9') || (*t >= 'a' && *t <= 'f') || *t == 'x')
					t++;
				h = (h ^ '0') * 0x100000001b3ull;
			}
			h = (h ^ (uint8_t)*t) * 0x100000001b3ull;
			if (!*t)
				break;
		}
	}
	return h;
}

static bool same_text(const struct block *a, const struct block *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (!same_shape(a->insns[i].text, b->insns[i].text))
			return false;
	return true;
}

/* The llvm-mca input: one region per distinct block; lines[] maps input lines to (region, insn). */
static int write_input(struct ctx *c, struct strbuf *sb, bool x86, const uint8_t *bad, size_t nr_bad)
{
	size_t line = 0;

	strbuf_reset(sb);
	if (x86) {
		strbuf_adds(sb, ".intel_syntax noprefix\n");
		line++;
	}
	strbuf_adds(sb, ".Lt:\n");
	line++;
	for (size_t r = 0; r < c->nr_r; r++) {
		const struct block *b = &c->b[c->r[r].block];

		strbuf_addf(sb, "# LLVM-MCA-BEGIN r%zu\n", r);
		line++;
		for (size_t i = 0; i < b->n; i++) {
			char t[256];

			line++;
			if (line < nr_bad && bad[line])
				snprintf(t, sizeof(t), "nop");
			else
				simcore_mca_text(&b->insns[i], !x86, t, sizeof(t));
			strbuf_addf(sb, "%s\n", t);
		}
		strbuf_adds(sb, "# LLVM-MCA-END\n");
		line++;
	}
	return sb->len ? 0 : TDP_ENOMEM;
}

static int write_file(const char *path, const struct strbuf *sb)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	size_t off = 0;

	if (fd < 0)
		return -1;
	while (off < sb->len) {
		ssize_t w = write(fd, sb->buf + off, sb->len - off);

		if (w <= 0) {
			close(fd);
			return -1;
		}
		off += (size_t)w;
	}
	return close(fd);
}

/* "FILE:LINE:COL: error:" lines of llvm-mca's output: those input lines become nops. */
static size_t mark_errors(const struct strbuf *out, const char *path, uint8_t *bad, size_t nr_bad)
{
	size_t n = 0, plen = strlen(path);

	for (const char *s = out->buf; (s = strstr(s, path)) != NULL; s += plen) {
		char *end;
		unsigned long ln;

		if (s[plen] != ':')
			continue;
		ln = strtoul(s + plen + 1, &end, 10);
		if (*end == ':' && strstr(end, ": error:") == strchr(end + 1, ':') && ln < nr_bad && !bad[ln]) {
			bad[ln] = 1;
			n++;
		}
	}
	return n;
}

/*
 * Read each region of llvm-mca's output: the first run (n1 iterations) gives the
 * µops and its total cycles, the second (n2) its total again; the steady state is
 * their difference over n2 - n1 iterations, so the pipeline fill (and llvm-mca's
 * warm-up) is not charged to the block.
 */
static void parse_regions(struct ctx *c, const struct strbuf *out, int n1, int n2, bool second)
{
	static const char head[] = "Code Region - r";
	const char **at = tdp_calloc(2 * (c->nr_r ? c->nr_r : 1), sizeof(*at)); /* each region's [start, end) */

	if (!at)
		return;
	/* one pass over the report: region r's part runs from its first "Code Region - rN\n"
	 * to the next "Code Region - r" (or the end) */
	for (const char *h = strstr(out->buf, head), *next; h; h = next) {
		const char *d = h + sizeof(head) - 1, *end = d;
		size_t r = 0;

		next = strstr(d, head);
		/* the name write_input() gave: "r" and the number as %zu prints it */
		while (*end >= '0' && *end <= '9' && end - d < 10)
			r = r * 10 + (size_t)(*end++ - '0');
		if (end == d || *end != '\n' || (*d == '0' && end - d > 1) || r >= c->nr_r || at[2 * r])
			continue;
		at[2 * r] = h;
		at[2 * r + 1] = next ? next : out->buf + out->len;
	}
	for (size_t r = 0; r < c->nr_r; r++) {
		const char *s = at[2 * r], *e = at[2 * r + 1];
		struct loop_mca mca;
		size_t nr = 0, n = c->b[c->r[r].block].n;
		struct region *g = &c->r[r];

		if (!s)
			continue;
		memset(&mca, 0, sizeof(mca));
		if (loop_mca_parse(s, (size_t)(e - s), &mca))
			continue;
		if (second) {
			double t2 = mca.cycles_per_iter * n2;

			if (!g->ok1)
				continue;
			g->cycles = t2 > g->t1 ? (t2 - g->t1) / (n2 - n1) : t2 / n2;
			g->ok = true;
			continue;
		}
		if (!(g->uops_of = tdp_calloc(n, sizeof(unsigned))))
			continue;
		if (loop_mca_parse_uops(s, (size_t)(e - s), g->uops_of, c->mem, n, &nr) || nr != n)
			continue;
		/* top-down's slots are fused-domain µops; llvm-mca's are not */
		simcore_fused_uops(c->b[g->block].insns, n, g->uops_of, c->mem, !c->x86, g->uops_of);
		g->ok1 = true;
		g->t1 = mca.cycles_per_iter * n1;
		g->rthru = mca.block_rthroughput;
		g->uops = 0;
		for (size_t i = 0; i < n; i++)
			g->uops += g->uops_of[i];
	}
	tdp_free(at);
}

static int run_mca(struct ctx *c, const struct simcore_opts *o, struct sim_core *out, struct tdp_err *errp)
{
	struct strbuf in = STRBUF_INIT, res[2] = { STRBUF_INIT, STRBUF_INIT }, path = STRBUF_INIT, cpu = STRBUF_INIT,
		      tri = STRBUF_INIT;
	bool x86 = strcmp(c->m->mtriple, "aarch64") != 0;
	size_t nr_bad = 0;
	uint8_t *bad = NULL;
	int ret = 0, fd, n1, n2;

	for (size_t r = 0; r < c->nr_r; r++)
		nr_bad += c->b[c->r[r].block].n + 2;
	nr_bad += 3;
	/* llvm-mca's time is instructions x iterations: within SIMCORE_BUDGET */
	n1 = SIMCORE_ITER1;
	n2 = (int)fmin(SIMCORE_MAX_ITER2, fmax(SIMCORE_MIN_ITER2, SIMCORE_BUDGET / (double)nr_bad));
	strbuf_addf(&path, "%s/tdprof-simcore-XXXXXX", o && o->tmpdir ? o->tmpdir : "/tmp");
	if (!(bad = tdp_calloc(nr_bad, 1)) || path.len == 0) {
		ret = TDP_ENOMEM;
		goto out;
	}
	if ((fd = mkstemp(path.buf)) < 0) {
		snprintf(out->why_not, sizeof(out->why_not), "cannot make llvm-mca's input file in %.100s",
			 o && o->tmpdir ? o->tmpdir : "/tmp");
		goto out;
	}
	close(fd);
	strbuf_addf(&cpu, "-mcpu=%s", c->m->mcpu);
	strbuf_addf(&tri, "-mtriple=%s", c->m->mtriple[0] ? c->m->mtriple : "x86_64");
	/* a signal while llvm-mca runs is passed on to it, and its input file removed */
	tdp_sigfwd_begin();
	/* T(n) = fill + n x C: the two runs (n1 and n2 iterations of the same input) give C.
	 * They run at once (o->sequential: one after the other); at most three rounds: an
	 * instruction llvm-mca cannot parse (the first run's errors) becomes a nop and both
	 * run again. */
	for (int round = 0; round < 3; round++) {
		char iters[2][32];
		char *argv[2][9];
		struct loop_child ch[2];
		struct tdp_err err = TDP_ERR_INIT;
		int e = 0;

		for (int k = 0; k < 2; k++) {
			/* the µops come from the first run's Instruction Info; the second needs only its
			 * summary (the table of every instruction was a tenth of its time) */
			char *a[] = { (char *)(o && o->llvm_mca ? o->llvm_mca : "llvm-mca"), tri.buf, cpu.buf, iters[k],
				      "-all-views=false", "-summary-view", k ? path.buf : "-instruction-info",
				      k ? NULL : path.buf, NULL };

			snprintf(iters[k], sizeof(iters[k]), "-iterations=%d", k ? n2 : n1);
			memcpy(argv[k], a, sizeof(a));
			strbuf_reset(&res[k]);
			ch[k] = (struct loop_child){ .argv = argv[k], .with_stderr = true, .out = &res[k],
						     .timeout_s = SIMCORE_MCA_TIMEOUT_S };
		}
		if ((ret = write_input(c, &in, x86, bad, nr_bad)) || write_file(path.buf, &in)) {
			snprintf(out->why_not, sizeof(out->why_not), "cannot write llvm-mca's input file");
			break;
		}
		if (o && o->sequential)
			e = loop_spawn_many(&ch[0], 1, &err) || loop_spawn_many(&ch[1], 1, &err);
		else
			e = loop_spawn_many(ch, 2, &err);
		if (e && tdp_sigfwd_received()) {
			/* interrupted: the command stops (cli/ exits 128+N), not a missing model */
			ret = tdp_err_set(errp, TDP_ECHILD, "%s", err.msg);
			break;
		}
		if (e) {
			snprintf(out->why_not, sizeof(out->why_not), "%.150s",
				 err.code == TDP_ENOCMD		       ? "llvm-mca is not installed (apt-get install llvm)"
				 : ch[0].timed_out || ch[1].timed_out ? err.msg
									: "llvm-mca could not be started");
			break;
		}
		if (WIFEXITED(ch[0].wstatus) && WEXITSTATUS(ch[0].wstatus) == 0) {
			parse_regions(c, &res[0], n1, n2, false);
			if (WIFEXITED(ch[1].wstatus) && WEXITSTATUS(ch[1].wstatus) == 0)
				parse_regions(c, &res[1], n1, n2, true);
			break;
		}
		/* nothing new to mark, or the last round: llvm-mca's first message says why */
		if (!mark_errors(&res[0], path.buf, bad, nr_bad) || round == 2) {
			snprintf(out->why_not, sizeof(out->why_not), "llvm-mca failed: %.*s",
				 (int)strcspn(res[0].buf, "\n"), res[0].buf);
			break;
		}
	}
	tdp_sigfwd_end();
	unlink(path.buf);
out:
	tdp_free(bad);
	strbuf_release(&in);
	strbuf_release(&res[0]);
	strbuf_release(&res[1]);
	strbuf_release(&path);
	strbuf_release(&cpu);
	strbuf_release(&tri);
	return ret;
}

static int cmp_insn(const void *x, const void *y)
{
	const struct sim_core_insn *a = x, *b = y;

	if (a->obj != b->obj)
		return a->obj < b->obj ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* The per-instruction results: µops, an even share of the block's stall, load flags. */
static int combine(struct ctx *c, struct sim_core *out)
{
	size_t total = 0;

	for (size_t i = 0; i < c->nr_b; i++)
		if (c->b[i].region >= 0 && c->r[c->b[i].region].ok)
			total += c->b[i].n;
		else if (c->b[i].rep_elem)
			total++;
	if (!total) {
		if (!out->why_not[0])
			snprintf(out->why_not, sizeof(out->why_not), "no hot block could be decoded and modelled");
		return 0;
	}
	if (!(out->insns = tdp_calloc(total, sizeof(*out->insns))))
		return TDP_ENOMEM;
	for (size_t i = 0; i < c->nr_b; i++) {
		const struct block *b = &c->b[i];
		const struct region *r;
		double stall, ideal, fetch;
		bool chain, ports;

		if (b->rep_elem && rep_string_insn(c, b, &out->insns[out->nr_insns])) {
			const struct sim_core_insn *in = &out->insns[out->nr_insns++];

			out->nr_hot++;
			out->covered_ir += (double)b->execs;
			out->uops += in->uops * (double)b->execs;
			out->heavy_uops += in->uops * (double)b->execs;
			continue;
		}
		if (b->region < 0 || !(r = &c->r[b->region])->ok)
			continue;
		/* cycles beyond issuing the block's µops at the machine's width: the
		 * dependency chains, ports and dividers llvm-mca's scheduling model sees */
		/* A block runs at best one iteration a cycle (llvm-mca repeats it as a loop,
		 * so a block of a larger loop gets a one-cycle chain it does not have, and
		 * the front end delivers one taken branch a cycle). A block llvm-mca runs in
		 * at most SIMCORE_ONE_CYCLE cycles (one, and the pipeline fill over the
		 * iterations) is no core stall: the slots it leaves empty, when it ends in a
		 * branch, are the front end's bandwidth (Fetch Bandwidth). A longer block is
		 * limited by its chains or ports: all the cycles beyond its µops are Core Bound. */
		ideal = r->uops / c->m->width;
		if (r->cycles > SIMCORE_ONE_CYCLE) {
			stall = fmax(0.0, r->cycles - ideal);
			fetch = 0;
		} else {
			stall = 0;
			fetch = b->insns[b->n - 1].branch_type ? fmax(0.0, r->cycles - ideal) : 0.0;
			/* with tdprof's tool the branch's taken count is known: a branch that falls
			 * through does not end the fetch block */
			if (fetch > 0 && sim_profile_has(c->p, 1u << SIM_BTK)) {
				const struct sim_entry *last = &c->p->v[c->idx[b->first + b->n - 1]];

				if (last->cost.v[SIM_IR])
					fetch *= fmin(1.0, (double)last->cost.v[SIM_BTK] / (double)last->cost.v[SIM_IR]);
			}
		}
		out->fetch_cycles += fetch * (double)b->execs;
		/* the stall's kind: a block running at its resources' throughput (llvm-mca's Block
		 * RThroughput, the busiest port or divider) is port-bound; one well above it waits
		 * on a dependency chain */
		ports = stall > 0 && r->rthru > 0 && r->cycles <= SIMCORE_PORT_SLACK * r->rthru;
		chain = false;
		{
			double dr = 0, miss = 0;

			for (size_t k = 0; k < b->n; k++) {
				const struct sim_entry *e = &c->p->v[c->idx[b->first + k]];

				if (!(b->flags[k] & SIM_INSN_CHASE))
					continue;
				chain = true;
				dr += (double)e->cost.v[SIM_DR];
				miss += (double)e->cost.v[SIM_D1MR];
			}
			/* With tdprof's tool a chained load that misses L1 has its whole latency in
			 * the tool's exposed cycles: llvm-mca's chain (L1 latency) is charged only
			 * for the iterations whose chained load hit L1, not twice. */
			if (chain && sim_profile_from_tool(c->p) && dr > 0)
				stall *= 1.0 - fmin(1.0, miss / dr);
		}
		out->nr_blocks += (size_t)(c->r[b->region].block == i);
		out->nr_hot++;
		if (!chain)
			out->core_cycles += stall * (double)b->execs;
		for (size_t k = 0; k < b->n; k++) {
			struct sim_core_insn *in = &out->insns[out->nr_insns++];
			const struct sim_entry *e = &c->p->v[c->idx[b->first + k]];

			in->obj = e->obj;
			in->addr = e->addr;
			in->flags = b->flags[k] | (chain ? SIM_INSN_LOAD_CHAIN : 0) | (ports ? SIM_INSN_PORT_BOUND : 0);
			in->uops = r->uops_of[k]; /* fused: 0 for a jump fused with its compare */
			in->stall = stall / (double)b->n;
			in->fetch = fetch / (double)b->n;
			out->covered_ir += (double)b->execs;
			out->uops += in->uops * (double)b->execs;
			if (in->uops >= 2)
				out->heavy_uops += in->uops * (double)b->execs;
		}
	}
	qsort(out->insns, out->nr_insns, sizeof(*out->insns), cmp_insn);
	out->valid = true;
	return 0;
}

int simcore_model(const struct sim_profile *p, const struct sim_machine *m, const struct simcore_opts *o,
		  struct sim_core *out, struct tdp_err *err)
{
	struct ctx c;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	c.p = p;
	c.m = m;
	c.x86 = strcmp(m->mtriple, "aarch64") != 0;
	snprintf(out->mcpu, sizeof(out->mcpu), "%s", m->mcpu);
	if (!p->has_addr || !m->mcpu[0]) {
		snprintf(out->why_not, sizeof(out->why_not), "%s",
			 !p->has_addr ? "no per-instruction counts (callgrind --dump-instr=yes)"
				      : "the machine names no llvm-mca CPU");
		return 0;
	}
	if ((ret = find_blocks(&c)))
		goto out;
	c.objs = tdp_calloc(c.nr_b ? c.nr_b : 1, sizeof(*c.objs));
	c.r = tdp_calloc(c.nr_b ? c.nr_b : 1, sizeof(*c.r));
	if (!c.objs || !c.r) {
		ret = TDP_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < c.nr_b; i++) {
		struct block *b = &c.b[i];
		uint64_t h;
		size_t r;

		if ((ret = decode_block(&c, b)))
			goto out;
		if (!b->n)
			continue;
		simcore_load_flags(b->insns, b->n, !strcmp(m->mtriple, "aarch64"), b->flags);
		h = block_hash(b);
		for (r = 0; r < c.nr_r; r++)
			if (c.r[r].hash == h && same_text(&c.b[c.r[r].block], b))
				break;
		if (r == c.nr_r) {
			c.r[r].hash = h;
			c.r[r].block = i;
			c.nr_r++;
		}
		b->region = (int)r;
	}
	if (c.nr_r && (ret = run_mca(&c, o, out, err)))
		goto out;
	ret = combine(&c, out);
out:
	if (ret == TDP_ENOMEM)
		tdp_err_oom(err);
	for (size_t i = 0; i < c.nr_objs; i++)
		if (c.objs[i].open)
			symbol_exe_close(&c.objs[i].x);
	for (size_t i = 0; i < c.nr_b; i++) {
		tdp_free(c.b[i].insns);
		tdp_free(c.b[i].flags);
	}
	for (size_t i = 0; i < c.nr_r; i++)
		tdp_free(c.r[i].uops_of);
	tdp_free(c.objs);
	tdp_free(c.r);
	tdp_free(c.b);
	tdp_free(c.idx);
	if (ret)
		sim_core_release(out);
	return ret;
}
