/*
 * bpred.c: TAGE + loop predictor for conditional branches, ITTAGE for indirect
 * ones, a return address stack (bpred.h). Freestanding: no library calls, no
 * floating point, no global state (bpred.h says why).
 *
 * TAGE, as Seznec and Michaud describe it (JILP 2006): a bimodal base table and
 * nr_tagged tables indexed by a hash of the branch address with the global history
 * folded to the table's index width, the history lengths in geometric progression.
 * The longest table whose tag matches provides the prediction; the next one that
 * matches (or the base table) is the alternate, used instead when the provider's
 * entry is new and weak and the use_alt_on_na counters say alternates do better on
 * such entries. A misprediction allocates an entry in a longer table whose useful
 * counter is 0 (or, when none is free, ages theirs); the useful counters are halved
 * every 2^log_u_reset conditional branches.
 */
#include "bpred.h" /* by its directory: vgtool/ compiles this file by path */

#define HIST_BUF 4096u /* ring of global history bits, > BPRED_MAX_HIST */
#define PATH_BITS 16u  /* path history bits mixed into the indices */
#define NR_USE_ALT 16u
#define LOOP_CONF_MAX 3u
#define LOOP_AGE_MAX 7u
#define LOOP_TAG_BITS 14u
#define LOOP_ITER_MAX 0xffffu
#define DEFAULT_LOG_U_RESET 18u


struct tage_entry {
	uint16_t tag;
	int8_t ctr;   /* 3-bit signed: -4..3, >= 0 predicts taken */
	uint8_t u;    /* 2-bit useful counter */
};

struct itt_entry {
	uint64_t target;
	uint16_t tag;
	uint8_t ctr;  /* 2-bit confidence */
	uint8_t u;    /* 1-bit useful */
	uint32_t pad;
};

struct loop_entry {
	uint16_t tag;
	uint16_t past;   /* iterations (body-direction outcomes) of the last complete run */
	uint16_t cur;    /* of the current run */
	uint8_t conf;    /* runs in a row of length `past` */
	uint8_t age;
	uint8_t dir;     /* the body direction (the exit is the other) */
	uint8_t pad[3];
};

/*
 * The global history of each TAGE table folded (compressed) three times: to the
 * index width wi and to two tag widths wt0 and wt1 (Michaud's PPM-like predictor,
 * JILP 2005): the last hlen bits XORed together in chunks of the width. A new bit
 * updates a fold in O(1): rotate it left by one within its width, XOR the new bit
 * in at bit 0 and the bit leaving the window at hlen % width. The three folds of a
 * table are lanes of one 64-bit word (bits [0, wi), [wi, wi + wt0), then wt1), so
 * that one rotation updates all three. ITTAGE's tables use the folds of some TAGE
 * tables (src): one set of folds to update per history bit.
 */
struct tables {
	unsigned n, lg, tag_bits;
	unsigned wi, wt0, wt1;                  /* fold widths (lanes at 0, wi, wi + wt0) */
	uint64_t top, low, lane0, lane1, lane2; /* lanes' top bits, bottom bits, one bottom bit each */
	uint32_t hlen[BPRED_MAX_TAGGED];
	uint64_t fold[BPRED_MAX_TAGGED];        /* the three folds */
	uint64_t out[BPRED_MAX_TAGGED];         /* where the leaving bit enters each lane */
	uint32_t pmask[BPRED_MAX_TAGGED];       /* the path history bits a table uses */
	unsigned src[BPRED_MAX_ITTAGE];         /* ITTAGE only: the TAGE table whose folds it uses */
};

struct bpred {
	struct bpred_config c;
	uint32_t rng;
	uint32_t tick;            /* conditional branches since the useful bits were last halved */
	uint32_t ghead;           /* ghist[ghead] is the newest bit */
	uint32_t ras_top;         /* ras[ras_top] is the top of the stack */
	uint32_t phist;           /* path history: one address bit per branch */
	int32_t with_loop;        /* > = 0: the loop predictor's confident predictions are used */
	int8_t use_alt[NR_USE_ALT];
	struct tables tg;         /* TAGE */
	struct tables it;         /* ITTAGE */
	uint8_t *bim;             /* 2-bit counters 0..3 */
	struct tage_entry *tagged;
	uint64_t *itt_base;       /* last target per address */
	struct itt_entry *itt;
	uint64_t *ras;
	struct loop_entry *loop;
	uint8_t ghist[HIST_BUF];
};

/* ---- configuration ---- */

const char *bpred_config_check(const struct bpred_config *c)
{
	if (!c)
		return "no configuration";
	if (c->log_bimodal < 1 || c->log_bimodal > BPRED_MAX_LOG_BIMODAL)
		return "log_bimodal must be 1..22";
	if (c->nr_tagged > BPRED_MAX_TAGGED)
		return "nr_tagged must be 0..16";
	if (c->nr_ittage > BPRED_MAX_ITTAGE)
		return "nr_ittage must be 0..16";
	if (c->nr_ittage > c->nr_tagged)
		return "nr_ittage must not exceed nr_tagged (ITTAGE uses TAGE's folded histories)";
	if (c->nr_tagged) {
		if (c->min_hist < 1 || c->max_hist > BPRED_MAX_HIST || c->min_hist > c->max_hist)
			return "history lengths must satisfy 1 <= min_hist <= max_hist <= 2000";
		if (c->max_hist - c->min_hist < c->nr_tagged - 1)
			return "max_hist - min_hist must leave a distinct history length per table";
	}
	if (c->nr_tagged) {
		if (c->log_tagged < 1 || c->log_tagged > BPRED_MAX_LOG_TAGGED)
			return "log_tagged must be 1..20";
		if (c->tag_bits < BPRED_MIN_TAG_BITS || c->tag_bits > BPRED_MAX_TAG_BITS)
			return "tag_bits must be 4..16";
	}
	if (c->log_ittage < 1 || c->log_ittage > BPRED_MAX_LOG_ITTAGE)
		return "log_ittage must be 1..18";
	if (c->ras_depth < 1 || c->ras_depth > BPRED_MAX_RAS)
		return "ras_depth must be 1..1024";
	if (c->log_loop > BPRED_MAX_LOG_LOOP)
		return "log_loop must be 0..10";
	if (c->log_u_reset > BPRED_MAX_LOG_U_RESET)
		return "log_u_reset must be 0..30";
	return NULL;
}

static uint64_t align8(uint64_t n)
{
	return (n + 7) & ~(uint64_t)7;
}

/* Offsets of the tables in the block; the total is the block's size. With the
 * limits of bpred_config_check() the total stays under 2^28, so neither the uint64
 * arithmetic nor size_t on a 32-bit host can overflow. */
struct layout {
	uint64_t bim, tagged, itt_base, itt, ras, loop, total;
};

static void layout_of(const struct bpred_config *c, struct layout *l)
{
	uint64_t off = align8(sizeof(struct bpred));

	l->bim = off;
	off += align8((uint64_t)1 << c->log_bimodal);
	l->tagged = off;
	off += c->nr_tagged ? ((uint64_t)c->nr_tagged << c->log_tagged) * sizeof(struct tage_entry) : 0;
	l->itt_base = off;
	off += ((uint64_t)1 << c->log_ittage) * sizeof(uint64_t);
	l->itt = off;
	off += ((uint64_t)c->nr_ittage << c->log_ittage) * sizeof(struct itt_entry);
	l->ras = off;
	off += (uint64_t)c->ras_depth * sizeof(uint64_t);
	l->loop = off;
	off += c->log_loop ? ((uint64_t)1 << c->log_loop) * sizeof(struct loop_entry) : 0;
	l->total = off;
}

size_t bpred_size(const struct bpred_config *c)
{
	struct layout l;

	if (bpred_config_check(c))
		return 0;
	layout_of(c, &l);
	if (l.total > (uint64_t)SIZE_MAX)
		return 0;
	return (size_t)l.total;
}

uint64_t bpred_budget_bits(const struct bpred_config *c)
{
	uint64_t bits;

	if (bpred_config_check(c))
		return 0;
	bits = (uint64_t)2 << c->log_bimodal;                                   /* 2-bit counters */
	bits += ((uint64_t)c->nr_tagged << c->log_tagged) * (c->tag_bits + 3 + 2); /* tag, ctr, u */
	bits += ((uint64_t)1 << c->log_ittage) * 32;                            /* base targets */
	bits += ((uint64_t)c->nr_ittage << c->log_ittage) * (32 + c->tag_bits + 2 + 1);
	bits += (uint64_t)c->ras_depth * 48;                                   /* return addresses */
	bits += c->log_loop ? ((uint64_t)1 << c->log_loop) * (LOOP_TAG_BITS + 16 + 16 + 2 + 3 + 1) : 0;
	bits += c->max_hist + PATH_BITS + NR_USE_ALT * 4;
	return bits;
}

/* ---- arithmetic helpers (integer only) ---- */

/* log2(x) in Q16 fixed point, x >= 1: the integer part from the top bit, the
 * fraction bit by bit by squaring the mantissa (Q30). */
static uint32_t log2_q16(uint32_t x)
{
	unsigned msb = 0;
	uint64_t m;
	uint32_t frac = 0;

	while ((x >> msb) > 1)
		msb++;
	m = ((uint64_t)x << 30) >> msb; /* in [2^30, 2^31) */
	for (int b = 15; b >= 0; b--) {
		m = (m * m) >> 30;
		if (m >= ((uint64_t)1 << 31)) {
			m >>= 1;
			frac |= (uint32_t)1 << b;
		}
	}
	return ((uint32_t)msb << 16) | frac;
}

/* n history lengths from lo to hi in geometric progression, rounded in the log
 * domain and made strictly increasing (bpred_config_check() leaves room). A
 * single table uses hi. */
static void geometric(unsigned n, unsigned lo, unsigned hi, unsigned *out)
{
	uint32_t llo = log2_q16(lo), lhi = log2_q16(hi);

	if (n == 1) {
		out[0] = hi;
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		uint32_t want = llo + (uint32_t)(((uint64_t)(lhi - llo) * i + (n - 1) / 2) / (n - 1));
		unsigned len = lo;

		while (len < hi && log2_q16(len + 1) <= want)
			len++;
		/* len is the largest with log <= want: take len + 1 when it is closer */
		if (len < hi && log2_q16(len + 1) - want < want - log2_q16(len))
			len++;
		if (i > 0 && len <= out[i - 1])
			len = out[i - 1] + 1;
		out[i] = len;
	}
	/* the strict increase may have pushed the last ones past hi: pull them back */
	out[n - 1] = hi;
	for (unsigned i = n - 1; i-- > 0;)
		if (out[i] >= out[i + 1])
			out[i] = out[i + 1] - 1;
}

static uint32_t pc32(uint64_t pc)
{
	return (uint32_t)pc ^ (uint32_t)(pc >> 32);
}

/* The top `bits` bits of a multiplicative hash (bits 1..32). */
static uint32_t hash_bits(uint32_t x, uint32_t mul, unsigned bits)
{
	return (uint32_t)(x * mul) >> (32 - bits);
}

static uint32_t next_rand(struct bpred *p)
{
	uint32_t x = p->rng;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	p->rng = x;
	return x;
}

/* Clears n bytes (a multiple of 8, 8-aligned) with a fill byte. volatile keeps the
 * compiler from turning the loop into a memset call (freestanding). */
static void fill8(void *mem, uint64_t n, uint8_t byte)
{
	volatile uint64_t *w = mem;
	uint64_t v = (uint64_t)byte * 0x0101010101010101ull;

	for (uint64_t i = 0; i < n / 8; i++)
		w[i] = v;
}

/* ---- setup ---- */

static void tage_tables_init(struct tables *t, const struct bpred_config *c)
{
	t->n = c->nr_tagged;
	t->lg = t->wi = c->log_tagged;
	t->tag_bits = t->wt0 = c->tag_bits;
	if (!t->n)
		return;
	/* Three different widths: a lone bit in a long run of equal ones (a loop's
	 * previous exit) then aliases only every lcm of the widths bits. */
	t->wt1 = c->tag_bits - 1 == c->log_tagged ? c->tag_bits - 2 : c->tag_bits - 1;
	geometric(t->n, c->min_hist, c->max_hist, t->hlen);
	t->lane0 = 1;
	t->lane1 = (uint64_t)1 << t->wi;
	t->lane2 = (uint64_t)1 << (t->wi + t->wt0);
	t->low = t->lane0 | t->lane1 | t->lane2;
	t->top = (t->lane0 << (t->wi - 1)) | (t->lane1 << (t->wt0 - 1)) | (t->lane2 << (t->wt1 - 1));
	for (unsigned i = 0; i < t->n; i++) {
		t->out[i] = (t->lane0 << (t->hlen[i] % t->wi)) | (t->lane1 << (t->hlen[i] % t->wt0)) |
			    (t->lane2 << (t->hlen[i] % t->wt1));
		t->pmask[i] = t->hlen[i] < PATH_BITS ? (1u << t->hlen[i]) - 1 : (1u << PATH_BITS) - 1;
	}
}

/* ITTAGE's n tables take the folds of TAGE tables spread from the shortest history
 * to the longest (bpred_config_check(): nr_ittage <= nr_tagged). */
static void itt_tables_init(struct tables *it, const struct tables *tg, const struct bpred_config *c)
{
	it->n = c->nr_ittage;
	it->lg = c->log_ittage;
	it->tag_bits = tg->tag_bits;
	for (unsigned j = 0; j < it->n; j++) {
		unsigned s = it->n == 1 ? tg->n - 1 : (j * (tg->n - 1) + (it->n - 1) / 2) / (it->n - 1);

		it->src[j] = s;
		it->hlen[j] = tg->hlen[s];
	}
}

struct bpred *bpred_init(void *mem, size_t len, const struct bpred_config *c)
{
	struct layout l;
	struct bpred *p = mem;
	uint8_t *base = mem;

	if (!mem || ((uintptr_t)mem & 7) || bpred_config_check(c))
		return NULL;
	layout_of(c, &l);
	if ((uint64_t)len < l.total)
		return NULL;
	fill8(mem, l.total, 0);
	p->c = *c;
	if (!p->c.log_u_reset)
		p->c.log_u_reset = DEFAULT_LOG_U_RESET;
	p->rng = 0x2545f491u; /* fixed seed: the same input gives the same counts */
	p->with_loop = -1;
	p->bim = base + l.bim;
	fill8(p->bim, align8((uint64_t)1 << c->log_bimodal), 1); /* weakly not taken */
	p->tagged = (struct tage_entry *)(void *)(base + l.tagged);
	p->itt_base = (uint64_t *)(void *)(base + l.itt_base);
	p->itt = (struct itt_entry *)(void *)(base + l.itt);
	p->ras = (uint64_t *)(void *)(base + l.ras);
	p->loop = c->log_loop ? (struct loop_entry *)(void *)(base + l.loop) : NULL;
	tage_tables_init(&p->tg, c);
	itt_tables_init(&p->it, &p->tg, c);
	return p;
}

/* ---- histories ---- */

static void push_bit(struct bpred *p, uint32_t bit)
{
	/* locals: the byte stores below could alias the struct's fields */
	struct tables *t = &p->tg;
	const uint64_t top = t->top, l0 = t->lane0, l1 = t->lane1, l2 = t->lane2;
	const uint64_t in = bit ? t->low : 0;
	const unsigned s0 = t->wi - 1, s1 = t->wt0 - 1, s2 = t->wt1 - 1, n = t->n;
	const uint32_t head = (p->ghead + 1) & (HIST_BUF - 1);
	const uint8_t *gh = p->ghist;

	p->ghead = head;
	p->ghist[head] = (uint8_t)bit;
	for (unsigned i = 0; i < n; i++) {
		uint64_t old = gh[(head - t->hlen[i]) & (HIST_BUF - 1)];
		uint64_t x = t->fold[i], tp = x & top;
		uint64_t wrap = ((tp >> s0) & l0) | ((tp >> s1) & l1) | ((tp >> s2) & l2);

		t->fold[i] = (((x & ~top) << 1) | wrap) ^ in ^ (t->out[i] & (0 - old));
	}
}

static void push_path(struct bpred *p, uint64_t pc)
{
	uint32_t a = pc32(pc);

	p->phist = ((p->phist << 1) | ((a ^ (a >> 2) ^ (a >> 5)) & 1)) & ((1u << PATH_BITS) - 1);
}

/* One bit of a target address for the global history. */
static uint32_t target_bit(uint64_t target)
{
	return hash_bits(pc32(target), 0x9e3779b1u, 1);
}

/* ---- TAGE ---- */

/* x (of `from` bits) XOR-folded to `to` bits. */
static uint32_t fold_down(uint32_t x, unsigned from, unsigned to)
{
	for (; from > to; from -= to)
		x = (x & ((1u << to) - 1)) ^ (x >> to);
	return x;
}

/* Index and tag in table i (of TAGE when t is p->tg, of ITTAGE when it is p->it,
 * whose folds are those of TAGE table t->src[i]) for an address hashed to ha
 * (index) and ht (tag). */
static uint32_t rotl32(uint32_t x, unsigned r)
{
	r &= 31;
	return r ? (x << r) | (x >> (32 - r)) : x;
}

/*
 * Index and tag in n tables of lg index bits and `bits` tag bits, table i using
 * the folds of TAGE table f[i] (TAGE: f = NULL, i itself). ha is the address
 * hashed to lg bits, ht to `bits` bits; the path history enters hashed whole for a
 * table whose history is at least PATH_BITS long (rotated by the table's number,
 * so that they differ), its last hlen bits for a shorter one. A fold's lanes need
 * no mask of their own: the final masks cut what lies above them.
 */
static void table_hashes(const struct bpred *p, unsigned n, const unsigned *f, unsigned lg, unsigned bits,
			 unsigned salt, uint32_t ha, uint32_t ht, uint32_t *idx, uint16_t *tag)
{
	const struct tables *t = &p->tg;
	const uint32_t phist = p->phist, pfull = phist * 0x27d4eb2du;
	const uint32_t imask = (1u << lg) - 1, tmask = (1u << bits) - 1;
	const unsigned wi = t->wi, wt = t->wi + t->wt0;

	for (unsigned i = 0; i < n; i++) {
		unsigned k = f ? f[i] : i;
		uint64_t x = t->fold[k];
		uint32_t ph = t->hlen[k] < PATH_BITS ? (phist & t->pmask[k]) * 0x27d4eb2du : pfull;
		uint32_t ci = (uint32_t)x & ((1u << wi) - 1);

		ph = rotl32(ph, 3 * i + salt) >> (32 - lg);
		idx[i] = (ha ^ ph ^ (lg >= wi ? ci : fold_down(ci, wi, lg))) & imask;
		tag[i] = (uint16_t)((ht ^ (uint32_t)(x >> wi) ^ ((uint32_t)(x >> wt) << 1)) & tmask);
	}
}

static void ctr_update(int8_t *ctr, bool taken, int lo, int hi)
{
	if (taken && *ctr < hi)
		(*ctr)++;
	else if (!taken && *ctr > lo)
		(*ctr)--;
}

static void bim_update(uint8_t *b, bool taken)
{
	if (taken && *b < 3)
		(*b)++;
	else if (!taken && *b > 0)
		(*b)--;
}

static void useful_halve(struct bpred *p)
{
	uint64_t n = (uint64_t)p->tg.n << p->tg.lg;

	for (uint64_t i = 0; i < n; i++)
		p->tagged[i].u >>= 1;
	n = (uint64_t)p->it.n << p->it.lg;
	for (uint64_t i = 0; i < n; i++)
		p->itt[i].u = 0;
}

struct tage_lookup {
	uint32_t idx[BPRED_MAX_TAGGED];
	uint16_t tag[BPRED_MAX_TAGGED];
	int prov, alt;         /* tables that hit, -1 for the base table */
	bool prov_pred, alt_pred, pred;
	bool weak_new;         /* the provider's entry is new and weak */
	uint32_t bidx, ua;
};

static struct tage_entry *tage_at(struct bpred *p, unsigned i, uint32_t idx)
{
	return &p->tagged[((uint64_t)i << p->tg.lg) + idx];
}

static void tage_predict(struct bpred *p, uint32_t a, struct tage_lookup *k)
{
	k->prov = k->alt = -1;
	if (p->tg.n)
		table_hashes(p, p->tg.n, NULL, p->tg.lg, p->tg.tag_bits, 0, hash_bits(a, 0x9e3779b1u, p->tg.lg),
			     hash_bits(a, 0x85ebca77u, p->tg.tag_bits), k->idx, k->tag);
	for (int i = (int)p->tg.n - 1; i >= 0; i--) {
		if (tage_at(p, (unsigned)i, k->idx[i])->tag != k->tag[i])
			continue;
		if (k->prov < 0) {
			k->prov = i;
		} else {
			k->alt = i;
			break;
		}
	}
	k->bidx = hash_bits(a, 0x9e3779b1u, p->c.log_bimodal);
	k->alt_pred = k->alt >= 0 ? tage_at(p, (unsigned)k->alt, k->idx[k->alt])->ctr >= 0
				  : p->bim[k->bidx] >= 2;
	k->ua = hash_bits(a, 0x85ebca77u, 4);
	k->weak_new = false;
	if (k->prov < 0) {
		k->prov_pred = k->pred = k->alt_pred;
		return;
	}
	struct tage_entry *e = tage_at(p, (unsigned)k->prov, k->idx[k->prov]);

	k->prov_pred = e->ctr >= 0;
	k->weak_new = (e->ctr == 0 || e->ctr == -1) && e->u == 0;
	k->pred = k->weak_new && p->use_alt[k->ua] >= 0 ? k->alt_pred : k->prov_pred;
}

static void tage_allocate(struct bpred *p, const struct tage_lookup *k, bool taken)
{
	unsigned start = (unsigned)(k->prov + 1);

	if (start >= p->tg.n)
		return;
	/* Seznec: not always the next table, so that one branch does not fill them all */
	if (start + 1 < p->tg.n && (next_rand(p) & 1))
		start++;
	for (unsigned i = start; i < p->tg.n; i++) {
		struct tage_entry *e = tage_at(p, i, k->idx[i]);

		if (e->u == 0) {
			e->tag = k->tag[i];
			e->ctr = taken ? 0 : -1;
			return;
		}
	}
	for (unsigned i = start; i < p->tg.n; i++) {
		struct tage_entry *e = tage_at(p, i, k->idx[i]);

		if (e->u > 0)
			e->u--;
	}
}

static void tage_update(struct bpred *p, const struct tage_lookup *k, bool taken)
{
	/* a new entry that was right while the alternate was used needs no other */
	if (k->pred != taken && !(k->weak_new && k->prov_pred == taken))
		tage_allocate(p, k, taken);
	if (k->prov < 0) {
		bim_update(&p->bim[k->bidx], taken);
		return;
	}
	struct tage_entry *e = tage_at(p, (unsigned)k->prov, k->idx[k->prov]);

	if (k->weak_new && k->prov_pred != k->alt_pred)
		ctr_update(&p->use_alt[k->ua], k->alt_pred == taken, -8, 7);
	if (e->u == 0) { /* the alternate keeps learning while the provider is unproven */
		if (k->alt >= 0)
			ctr_update(&tage_at(p, (unsigned)k->alt, k->idx[k->alt])->ctr, taken, -4, 3);
		else
			bim_update(&p->bim[k->bidx], taken);
	}
	ctr_update(&e->ctr, taken, -4, 3);
	if (k->prov_pred != k->alt_pred) {
		if (k->prov_pred == taken && e->u < 3)
			e->u++;
		else if (k->prov_pred != taken && e->u > 0)
			e->u--;
	}
}

/* ---- loop predictor ---- */

struct loop_lookup {
	struct loop_entry *e;  /* the entry of this branch, NULL on a miss */
	uint16_t tag;
	bool valid, pred;
};

static void loop_predict(struct bpred *p, uint32_t a, struct loop_lookup *l)
{
	struct loop_entry *e;

	l->e = NULL;
	l->valid = l->pred = false;
	if (!p->loop)
		return;
	e = &p->loop[hash_bits(a, 0x9e3779b1u, p->c.log_loop)];
	l->tag = (uint16_t)(hash_bits(a, 0x85ebca77u, LOOP_TAG_BITS) | 1); /* 0 = free */
	if (e->tag != l->tag)
		return;
	l->e = e;
	l->valid = e->conf >= LOOP_CONF_MAX;
	l->pred = e->cur + 1u == e->past ? !e->dir : e->dir;
}

static void loop_free(struct loop_entry *e)
{
	e->tag = 0;
	e->past = e->cur = 0;
	e->conf = e->age = 0;
}

static void loop_update(struct bpred *p, struct loop_lookup *l, bool taken, bool tage_wrong)
{
	struct loop_entry *e = l->e;

	if (!p->loop)
		return;
	if (!e)
		return; /* loop_allocate() may take an entry for it */
	if (l->valid) {
		if (l->pred != taken) {
			loop_free(e);
			return;
		}
		if (tage_wrong && e->age < LOOP_AGE_MAX)
			e->age++;
	}
	if (taken == (bool)e->dir) {
		if (e->cur < LOOP_ITER_MAX) {
			e->cur++;
		} else {
			loop_free(e);
		}
		return;
	}
	/* the exit: a run of cur + 1 outcomes ended */
	if (e->past == 0) {
		e->past = (uint16_t)(e->cur + 1);
	} else if (e->cur + 1u == e->past) {
		if (e->conf < LOOP_CONF_MAX)
			e->conf++;
	} else {
		e->past = (uint16_t)(e->cur + 1);
		e->conf = 0;
	}
	e->cur = 0;
}

/* A branch TAGE mispredicts may be a loop's exit: its body goes the other way. An
 * entry still in use (age > 0) ages instead of being replaced. */
static void loop_allocate(struct bpred *p, uint32_t a, const struct loop_lookup *l, bool taken)
{
	struct loop_entry *e;

	if (!p->loop || l->e)
		return;
	e = &p->loop[hash_bits(a, 0x9e3779b1u, p->c.log_loop)];
	if (e->age > 0) {
		e->age--;
		return;
	}
	e->tag = l->tag;
	e->dir = (uint8_t)!taken;
	e->past = e->cur = 0;
	e->conf = 0;
	e->age = LOOP_AGE_MAX;
}

bool bpred_cond(struct bpred *p, uint64_t pc, bool taken)
{
	uint32_t a = pc32(pc);
	struct tage_lookup k;
	struct loop_lookup l;
	bool pred;

	tage_predict(p, a, &k);
	loop_predict(p, a, &l);
	pred = l.valid && p->with_loop >= 0 ? l.pred : k.pred;
	if (l.valid && l.pred != k.pred) {
		int8_t w = (int8_t)p->with_loop;

		ctr_update(&w, l.pred == taken, -64, 63);
		p->with_loop = w;
	}
	loop_update(p, &l, taken, k.pred != taken);
	if (k.pred != taken)
		loop_allocate(p, a, &l, taken);
	tage_update(p, &k, taken);
	if (++p->tick >> p->c.log_u_reset) {
		p->tick = 0;
		useful_halve(p);
	}
	push_bit(p, taken);
	push_path(p, pc);
	return pred != taken;
}

/* ---- ITTAGE ---- */

#define ITT_SALT 0x5bd1e995u

static struct itt_entry *itt_at(struct bpred *p, unsigned i, uint32_t idx)
{
	return &p->itt[((uint64_t)i << p->it.lg) + idx];
}

bool bpred_indirect(struct bpred *p, uint64_t pc, uint64_t target)
{
	uint32_t a = pc32(pc);
	uint32_t idx[BPRED_MAX_ITTAGE];
	uint16_t tag[BPRED_MAX_ITTAGE];
	int prov = -1, alt = -1;
	uint64_t *base = &p->itt_base[hash_bits(a, 0x9e3779b1u, p->it.lg)];
	uint64_t alt_target, pred;
	struct itt_entry *e = NULL;

	if (p->it.n)
		table_hashes(p, p->it.n, p->it.src, p->it.lg, p->it.tag_bits, 16,
			     hash_bits(a ^ ITT_SALT, 0x9e3779b1u, p->it.lg),
			     hash_bits(a ^ ITT_SALT, 0x85ebca77u, p->it.tag_bits), idx, tag);
	for (int i = (int)p->it.n - 1; i >= 0; i--) {
		if (itt_at(p, (unsigned)i, idx[i])->tag != tag[i])
			continue;
		if (prov < 0) {
			prov = i;
		} else {
			alt = i;
			break;
		}
	}
	alt_target = alt >= 0 ? itt_at(p, (unsigned)alt, idx[alt])->target : *base;
	pred = alt_target;
	if (prov >= 0) {
		e = itt_at(p, (unsigned)prov, idx[prov]);
		if (e->ctr > 0 || alt < 0)
			pred = e->target;
	}

	/* update */
	if (pred != target && (unsigned)(prov + 1) < p->it.n) {
		unsigned start = (unsigned)(prov + 1);
		bool done = false;

		if (start + 1 < p->it.n && (next_rand(p) & 1))
			start++;
		for (unsigned i = start; i < p->it.n && !done; i++) {
			struct itt_entry *n = itt_at(p, i, idx[i]);

			if (n->u == 0) {
				n->tag = tag[i];
				n->target = target;
				n->ctr = 0;
				done = true;
			}
		}
		for (unsigned i = start; i < p->it.n && !done; i++)
			itt_at(p, i, idx[i])->u = 0;
	}
	if (e) {
		if (e->target == target) {
			if (e->ctr < 3)
				e->ctr++;
			if (alt_target != target)
				e->u = 1;
		} else {
			if (alt_target == target)
				e->u = 0;
			if (e->ctr > 0)
				e->ctr--;
			else
				e->target = target;
		}
	}
	if (!e || alt < 0)
		*base = target;
	/* three bits of the target, so that the next branches see which way it went */
	for (unsigned b = 0, h = hash_bits(pc32(target), 0x9e3779b1u, 3); b < 3; b++)
		push_bit(p, (h >> b) & 1);
	push_path(p, pc);
	return pred != target;
}

/* ---- calls, returns, jumps ---- */

void bpred_call(struct bpred *p, uint64_t pc, uint64_t return_addr)
{
	p->ras_top = p->ras_top + 1 == p->c.ras_depth ? 0 : p->ras_top + 1;
	p->ras[p->ras_top] = return_addr;
	push_bit(p, target_bit(pc));
	push_path(p, pc);
}

bool bpred_return(struct bpred *p, uint64_t pc, uint64_t target)
{
	uint64_t pred = p->ras[p->ras_top];

	p->ras_top = p->ras_top == 0 ? p->c.ras_depth - 1 : p->ras_top - 1;
	push_bit(p, target_bit(target));
	push_path(p, pc);
	return pred != target;
}

void bpred_uncond(struct bpred *p, uint64_t pc, uint64_t target)
{
	push_bit(p, target_bit(target));
	push_path(p, pc);
}
