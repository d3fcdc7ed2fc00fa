/*
 * bpred.c: TAGE + loop predictor for conditional branches, ITTAGE for indirect
 * ones, a return address stack (bpred.h). Freestanding: no library calls, no
 * floating point, no global state (bpred.h says why).
 *
 * TAGE, as Seznec and Michaud describe it (JILP 2006): a bimodal base table and
 * nr_tagged tables indexed by a hash of the branch address with the global history
 * (here a rolling hash of each table's window, struct window), the history lengths
 * in geometric progression. The longest table whose tag matches provides the
 * prediction; the next one that matches (or the base table) is the alternate, used
 * instead when the provider's entry is new and weak and the use_alt_on_na counters
 * say alternates do better on such entries. A misprediction allocates an entry in a
 * longer table whose useful counter is 0 (or, when none is free, ages theirs); the
 * useful counters are halved every 2^log_u_reset conditional branches.
 *
 * It runs for every branch a simulated program executes (tdprof's valgrind tool),
 * so the work per branch is kept small (bench/bpred-speed.py measures it): a history
 * bit costs O(1) whatever the number of tables, a table's lookup a load and a
 * multiplication whatever its history length, the search runs from the longest
 * table a branch ever reached and stops at the alternate, the keys an allocation
 * needs are recomputed only on a misprediction, and no division is left on the
 * paths of a branch.
 */
#include "bpred.h" /* by its directory: vgtool/ compiles this file by path */

#define PATH_BITS 16u   /* path history bits a hardware predictor would keep (budget only) */
#define NR_USE_ALT 16u
#define LOOP_CONF_MAX 3u
#define LOOP_AGE_MAX 7u
#define LOOP_TAG_BITS 14u
#define LOOP_ITER_MAX 0xffffu
#define DEFAULT_LOG_U_RESET 18u
#define TAG_SHIFT 20u   /* a key's tag bits start here; its index is its top bits (<= 20 of them) */
#define BIM_CTR 3u      /* a base table entry: its 2-bit counter, then its reach (struct window) */
#define BIM_REACH 2u

/* A rare path kept out of the hot functions (GNU C: gcc and clang), so that their
 * registers go to the common one. */
#define COLD __attribute__((noinline, cold))

/* The rolling hash of the history (struct bpred): its base (odd and 5 mod 8, so
 * that its powers repeat only after 2^62 steps), what a direction (or target) bit
 * of 1 and a path bit of 1 add, and the multipliers that spread a branch address
 * over 64 bits for TAGE's and ITTAGE's keys. */
#define HASH_BASE 0x9e3779b97f4a7c15ull
#define HASH_DIR 0xc2b2ae3d27d4eb4full
#define HASH_PATH 0x165667b19e3779f9ull
#define MUL_PC 0xff51afd7ed558ccdull
#define MUL_PC_ITT 0xc4ceb9fe1a85ec53ull

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
 * The history window of one tagged table: the last hlen history bits, each with the
 * path bit of its branch (one address bit per branch, on the first of an indirect
 * branch's three). With H the rolling hash of the whole history,
 *   H(t) = H(t-1) * base + bit * HASH_DIR + path_bit * HASH_PATH   (mod 2^64),
 * the window's hash is
 *   W = H(t) - H(t - hlen) * base^hlen,
 * the sum of base^j times what the j-th newest step added, over the window only. So
 * a table's window costs one load and one multiplication whatever its length, and a
 * history bit one multiplication whatever the number of tables. Windows of different
 * contents have different W unless such sums happen to cancel mod 2^64 (no short
 * period: base's powers do not repeat within 2^62 steps). A table's key is W plus
 * the address's hash; its index is the key's top bits, its tag the bits from
 * TAG_SHIFT up. Windows are kept longest first, the order of the search.
 *
 * The reach: each base table entry also keeps the rank (0: the longest table) of the
 * longest table any branch of that entry has allocated in, and a branch's search
 * starts there. The tables above hold no entry of this branch (an entry is only
 * ever allocated by the branch it is for), so a hit there could only be another
 * branch's entry whose tag happens to match: the model leaves out those aliasing
 * hits, and with them most of the lookups of a branch whose entries live in the
 * short tables (most branches: they are predictable from a short history).
 */
struct window {
	int64_t neg_len;          /* -hlen: H(t - hlen) is now[neg_len] (history_now()) */
	uint64_t neg_pow;         /* -(base^hlen) */
	void *table;              /* its entries: struct tage_entry or struct itt_entry */
	uint64_t pad;             /* 32 bytes: no division in a pointer difference */
};

struct bpred {
	struct bpred_config c;
	uint32_t rng;
	uint32_t u_left;          /* conditional branches until the useful bits are halved */
	uint32_t head;            /* ring[head] and ring[head + ring_len]: the newest H */
	uint32_t ring_len;        /* a power of two > max_hist */
	const uint64_t *now;      /* &ring[head + ring_len] */
	uint32_t ras_top;         /* ras[ras_top] is the top of the stack */
	int32_t with_loop;        /* >= 0: the loop predictor's confident predictions are used */
	unsigned tg_ishift, it_ishift; /* 64 - log2 of the entries of a TAGE, an ITTAGE table */
	unsigned bim_shift, loop_shift; /* 64 - log2 of the entries of the base table, the loop table */
	uint32_t tmask;           /* (1 << tag_bits) - 1: TAGE's and ITTAGE's tags */
	int8_t use_alt[NR_USE_ALT];
	struct window tg[BPRED_MAX_TAGGED]; /* TAGE's tables, longest first */
	struct window it[BPRED_MAX_ITTAGE]; /* ITTAGE's, longest first, each with a TAGE table's length */
	uint8_t *bim;             /* the base table: a 2-bit counter (bits 0-1) and the reach (bits
				 * 2-7, struct window's last paragraph) per entry */
	struct tage_entry *tagged;
	uint64_t *itt_base;       /* last target per address */
	struct itt_entry *itt;
	uint64_t *ras;
	struct loop_entry *loop;
	/* H(t) for the last ring_len steps, each written twice so that reading
	 * ring[head + ring_len - hlen] never wraps */
	uint64_t *ring;
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
		return "nr_ittage must not exceed nr_tagged (ITTAGE uses TAGE's history lengths)";
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
	uint64_t ring_len, ring, bim, tagged, itt_base, itt, ras, loop, total;
};

static void layout_of(const struct bpred_config *c, struct layout *l)
{
	uint64_t off = align8(sizeof(struct bpred));

	/* the history ring: a power of two > the longest window (max_hist matters only
	 * with tagged tables) */
	l->ring_len = 2;
	while (c->nr_tagged && l->ring_len <= c->max_hist)
		l->ring_len *= 2;
	l->ring = off;
	off += 2 * l->ring_len * sizeof(uint64_t);
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

static void window_set(struct window *w, unsigned hlen, void *table)
{
	uint64_t pow = 1;

	for (unsigned k = 0; k < hlen; k++)
		pow *= HASH_BASE;
	w->neg_len = -(int64_t)hlen;
	w->neg_pow = 0 - pow;
	w->table = table;
}

/* TAGE's windows: history lengths in geometric progression; then ITTAGE's, each
 * with the history length of a TAGE table, spread from the shortest to the longest
 * (bpred_config_check(): nr_ittage <= nr_tagged). Both longest first. */
static void windows_init(struct bpred *p, const struct bpred_config *c)
{
	unsigned n = c->nr_tagged, m = c->nr_ittage, hlen[BPRED_MAX_TAGGED];

	if (!n)
		return;
	geometric(n, c->min_hist, c->max_hist, hlen);
	for (unsigned i = 0; i < n; i++)
		window_set(&p->tg[n - 1 - i], hlen[i], p->tagged + ((uint64_t)i << c->log_tagged));
	for (unsigned j = 0; j < m; j++) {
		unsigned src = m == 1 ? n - 1 : (j * (n - 1) + (m - 1) / 2) / (m - 1);

		window_set(&p->it[m - 1 - j], hlen[src], p->itt + ((uint64_t)j << c->log_ittage));
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
	p->u_left = (uint32_t)1 << p->c.log_u_reset;
	p->rng = 0x2545f491u; /* fixed seed: the same input gives the same counts */
	p->with_loop = -1;
	if (c->nr_tagged) { /* else log_tagged and tag_bits are unchecked, and unused */
		p->tg_ishift = 64 - c->log_tagged;
		p->tmask = (1u << c->tag_bits) - 1;
	}
	p->it_ishift = 64 - c->log_ittage;
	p->bim_shift = 64 - c->log_bimodal;
	p->loop_shift = 64 - c->log_loop; /* 64 without a loop table: never used then */
	p->ring_len = (uint32_t)l.ring_len;
	p->ring = (uint64_t *)(void *)(base + l.ring);
	p->now = &p->ring[p->ring_len];
	p->bim = base + l.bim;
	/* weakly not taken, no tagged table reached */
	fill8(p->bim, align8((uint64_t)1 << c->log_bimodal), (uint8_t)(1 | c->nr_tagged << BIM_REACH));
	p->tagged = (struct tage_entry *)(void *)(base + l.tagged);
	p->itt_base = (uint64_t *)(void *)(base + l.itt_base);
	p->itt = (struct itt_entry *)(void *)(base + l.itt);
	p->ras = (uint64_t *)(void *)(base + l.ras);
	p->loop = c->log_loop ? (struct loop_entry *)(void *)(base + l.loop) : NULL;
	windows_init(p, c);
	return p;
}

/* ---- histories ---- */

/* One step of the history: what it adds to H (struct window). */
static inline void push(struct bpred *p, uint64_t add)
{
	const uint32_t len = p->ring_len, head = (p->head + 1) & (len - 1);
	const uint64_t h = p->now[0] * HASH_BASE + add;

	p->head = head;
	p->ring[head] = h;
	p->ring[head + len] = h;
	p->now = &p->ring[head + len];
}

/* The path bit of a branch whose address hashed to pc_key (pc * MUL_PC), as added
 * to H: the hash's top bit, which depends on every bit of the address. */
static inline uint64_t path_add(uint64_t pc_key)
{
	return (0 - (pc_key >> 63)) & HASH_PATH;
}

/* A conditional branch's step: its direction and its path bit. */
static const uint64_t cond_add[4] = { 0, HASH_DIR, HASH_PATH, HASH_DIR + HASH_PATH };

/* A target address's bit for the history, as added to H. */
static inline uint64_t target_add(uint64_t target)
{
	return hash_bits(pc32(target), 0x9e3779b1u, 1) ? HASH_DIR : 0;
}

static inline const uint64_t *history_now(const struct bpred *p)
{
	return p->now;
}

/* Window w's key for a branch whose address hashed to pc_key (struct window). */
static inline uint64_t window_key(const struct window *w, const uint64_t *now, uint64_t pc_key)
{
	return now[0] + pc_key + now[w->neg_len] * w->neg_pow;
}

/* Whether TAGE window w's entry for the key base + ... (tage_search()) has its tag. */
static inline bool tage_hit(const struct window *w, const uint64_t *now, uint64_t base, unsigned ishift,
			    uint32_t tmask)
{
	const uint64_t x = base + now[w->neg_len] * w->neg_pow;

	return ((const struct tage_entry *)w->table)[x >> ishift].tag == (uint16_t)((x >> TAG_SHIFT) & tmask);
}

static inline struct tage_entry *tage_entry_of(const struct window *w, const uint64_t *now, uint64_t base,
					       unsigned ishift)
{
	return (struct tage_entry *)w->table + ((base + now[w->neg_len] * w->neg_pow) >> ishift);
}

/* The first window from w (longest first) whose entry hits, end when none; base is
 * now[0] + pc_key. */
static inline const struct window *tage_search(const struct window *w, const struct window *end,
					       const uint64_t *now, uint64_t base, unsigned ishift,
					       uint32_t tmask)
{
	while (w < end && !tage_hit(w, now, base, ishift, tmask))
		w++;
	return w;
}

/* ---- TAGE ---- */

static void ctr_update(int8_t *ctr, bool taken, int lo, int hi)
{
	if (taken && *ctr < hi)
		(*ctr)++;
	else if (!taken && *ctr > lo)
		(*ctr)--;
}

static void bim_update(uint8_t *b, bool taken)
{
	const unsigned c = *b & BIM_CTR;

	if (taken && c < 3)
		(*b)++;
	else if (!taken && c > 0)
		(*b)--;
}

COLD static void useful_halve(struct bpred *p)
{
	uint64_t n = p->c.nr_tagged ? (uint64_t)p->c.nr_tagged << p->c.log_tagged : 0;

	for (uint64_t i = 0; i < n; i++)
		p->tagged[i].u >>= 1;
	n = (uint64_t)p->c.nr_ittage << p->c.log_ittage;
	for (uint64_t i = 0; i < n; i++)
		p->itt[i].u = 0;
}

/* A misprediction: an entry in a longer table than the provider's (a rank below
 * prov, the provider's rank: nr_tagged when none), from the shortest of them up; not
 * always the next one (Seznec), so that one branch does not fill them all. */
COLD static void tage_allocate(struct bpred *p, unsigned prov, uint64_t pc_key, uint8_t *bim, bool taken)
{
	const struct window *w = p->tg;
	const uint64_t *now = history_now(p);
	unsigned start = prov;

	if (start == 0)
		return;
	if (start > 1 && (next_rand(p) & 1))
		start--;
	for (unsigned r = start; r-- > 0;) {
		uint64_t x = window_key(&w[r], now, pc_key);
		struct tage_entry *e = (struct tage_entry *)w[r].table + (x >> p->tg_ishift);

		if (e->u == 0) {
			e->tag = (uint16_t)((x >> TAG_SHIFT) & p->tmask);
			e->ctr = taken ? 0 : -1;
			if (r < (unsigned)(*bim >> BIM_REACH))
				*bim = (uint8_t)((*bim & BIM_CTR) | r << BIM_REACH);
			return;
		}
	}
	for (unsigned r = start; r-- > 0;) {
		uint64_t x = window_key(&w[r], now, pc_key);
		struct tage_entry *e = (struct tage_entry *)w[r].table + (x >> p->tg_ishift);

		if (e->u > 0)
			e->u--;
	}
}

/* ---- loop predictor ---- */

COLD static void loop_free(struct loop_entry *e)
{
	e->tag = 0;
	e->past = e->cur = 0;
	e->conf = e->age = 0;
}

/*
 * The loop predictor's entry e (its tag matched) for a branch TAGE predicted
 * tage_pred that went `taken`: the loop's prediction when it is confident and has
 * proven better than TAGE (with_loop), else -1 (TAGE's stands); then the updates.
 */
static inline int loop_hit(struct bpred *p, struct loop_entry *e, bool tage_pred, bool taken)
{
	const bool dir = e->dir;
	const unsigned cur = e->cur, past = e->past;
	int use = -1;

	if (e->conf >= LOOP_CONF_MAX) {
		const bool lp = cur + 1 == past ? !dir : dir;
		const int with = p->with_loop;

		if (with >= 0)
			use = lp;
		if (lp != tage_pred) {
			if (lp == taken && with < 63)
				p->with_loop = with + 1;
			else if (lp != taken && with > -64)
				p->with_loop = with - 1;
		}
		if (lp != taken) {
			loop_free(e);
			return use;
		}
		if (tage_pred != taken && e->age < LOOP_AGE_MAX)
			e->age++;
	}
	if (taken == dir) {
		if (cur < LOOP_ITER_MAX)
			e->cur = (uint16_t)(cur + 1);
		else
			loop_free(e);
		return use;
	}
	/* the exit: a run of cur + 1 outcomes ended */
	if (past == 0) {
		e->past = (uint16_t)(cur + 1);
	} else if (cur + 1 == past) {
		if (e->conf < LOOP_CONF_MAX)
			e->conf++;
	} else {
		e->past = (uint16_t)(cur + 1);
		e->conf = 0;
	}
	e->cur = 0;
	return use;
}

/* A branch TAGE mispredicted with no loop entry may be a loop's exit: its body goes
 * the other way. An entry still in use (age > 0) ages instead of being replaced. */
COLD static void loop_allocate(struct loop_entry *e, uint16_t tag, bool taken)
{
	if (e->age > 0) {
		e->age--;
		return;
	}
	e->tag = tag;
	e->dir = (uint8_t)!taken;
	e->past = e->cur = 0;
	e->conf = 0;
	e->age = LOOP_AGE_MAX;
}

/*
 * TAGE (and the loop predictor beside it): the windows are searched longest first;
 * the first hit provides, the second is the alternate and ends the search. The base
 * table is read only when there is no alternate. The base table, the loop table and
 * use_alt_on_na are indexed by bits of the address's hash pk.
 */
bool bpred_cond(struct bpred *p, uint64_t pc, bool taken)
{
	const uint64_t pk = pc * MUL_PC;
	const uint64_t *now = history_now(p);
	uint8_t *const bim = &p->bim[pk >> p->bim_shift];
	const struct window *const end = p->tg + p->c.nr_tagged, *prov_w;
	const struct window *w = p->tg + (*bim >> BIM_REACH);
	const unsigned ishift = p->tg_ishift;
	const uint32_t tmask = p->tmask;
	const uint64_t base = now[0] + pk;
	struct tage_entry *prov = NULL, *alt = NULL;
	bool alt_pred, prov_pred, tage_pred, pred, weak_new = false;

	w = tage_search(w, end, now, base, ishift, tmask);
	prov_w = w;
	if (w < end) {
		prov = tage_entry_of(w, now, base, ishift);
		w = tage_search(w + 1, end, now, base, ishift, tmask);
		if (w < end)
			alt = tage_entry_of(w, now, base, ishift);
	}
	alt_pred = alt ? alt->ctr >= 0 : (*bim & BIM_CTR) >= 2;
	prov_pred = tage_pred = alt_pred;
	if (prov) {
		prov_pred = tage_pred = prov->ctr >= 0;
		if ((prov->ctr == 0 || prov->ctr == -1) && prov->u == 0) { /* new and weak */
			weak_new = true;
			if (p->use_alt[(pk >> 16) & (NR_USE_ALT - 1)] >= 0)
				tage_pred = alt_pred;
		}
	}
	pred = tage_pred;

	/* TAGE's update; a new entry that was right while the alternate was used needs no other */
	if (tage_pred != taken && !(weak_new && prov_pred == taken))
		tage_allocate(p, (unsigned)(prov_w - p->tg), pk, bim, taken);
	if (!prov) {
		bim_update(bim, taken);
	} else {
		if (weak_new && prov_pred != alt_pred)
			ctr_update(&p->use_alt[(pk >> 16) & (NR_USE_ALT - 1)], alt_pred == taken, -8, 7);
		if (prov->u == 0) { /* the alternate keeps learning while the provider is unproven */
			if (alt)
				ctr_update(&alt->ctr, taken, -4, 3);
			else
				bim_update(bim, taken);
		}
		ctr_update(&prov->ctr, taken, -4, 3);
		if (prov_pred != alt_pred) {
			if (prov_pred == taken && prov->u < 3)
				prov->u++;
			else if (prov_pred != taken && prov->u > 0)
				prov->u--;
		}
	}

	if (p->loop) {
		struct loop_entry *e = &p->loop[pk >> p->loop_shift];
		const uint16_t tag = (uint16_t)(((pk >> 20) & ((1u << LOOP_TAG_BITS) - 1)) | 1); /* 0: free */

		if (e->tag == tag) {
			const int use = loop_hit(p, e, tage_pred, taken);

			if (use >= 0)
				pred = use;
		} else if (tage_pred != taken) {
			loop_allocate(e, tag, taken);
		}
	}
	if (--p->u_left == 0) {
		p->u_left = (uint32_t)1 << p->c.log_u_reset;
		useful_halve(p);
	}
	push(p, cond_add[(pk >> 63) * 2 + taken]);
	return pred != taken;
}

/* ---- ITTAGE ---- */

bool bpred_indirect(struct bpred *p, uint64_t pc, uint64_t target)
{
	const uint32_t a = pc32(pc);
	const unsigned n = p->c.nr_ittage, ishift = p->it_ishift;
	const struct window *w = p->it;
	const uint64_t *now = history_now(p);
	const uint64_t pk = pc * MUL_PC_ITT;
	struct itt_entry *e = NULL, *alt_e = NULL;
	unsigned prov = n;
	uint64_t *base = &p->itt_base[hash_bits(a, 0x9e3779b1u, p->c.log_ittage)];
	uint64_t alt_target, pred;

	for (unsigned r = 0; r < n; r++) {
		const uint64_t x = window_key(&w[r], now, pk);
		struct itt_entry *t = (struct itt_entry *)w[r].table + (x >> ishift);

		if (t->tag != (uint16_t)((x >> TAG_SHIFT) & p->tmask))
			continue;
		if (!e) {
			prov = r;
			e = t;
		} else {
			alt_e = t;
			break;
		}
	}
	alt_target = alt_e ? alt_e->target : *base;
	pred = alt_target;
	if (e && (e->ctr > 0 || !alt_e))
		pred = e->target;

	/* update: on a misprediction, an entry in a longer table than the provider's */
	if (pred != target && prov > 0) {
		unsigned start = prov;
		bool done = false;

		if (start > 1 && (next_rand(p) & 1))
			start--;
		for (unsigned r = start; r-- > 0 && !done;) {
			const uint64_t x = window_key(&w[r], now, pk);
			struct itt_entry *t = (struct itt_entry *)w[r].table + (x >> ishift);

			if (t->u == 0) {
				t->tag = (uint16_t)((x >> TAG_SHIFT) & p->tmask);
				t->target = target;
				t->ctr = 0;
				done = true;
			}
		}
		for (unsigned r = start; r-- > 0 && !done;)
			((struct itt_entry *)w[r].table + (window_key(&w[r], now, pk) >> ishift))->u = 0;
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
	if (!e || !alt_e)
		*base = target;
	/* three bits of the target, so that the next branches see which way it went;
	 * the branch's path bit with the first */
	uint32_t h = hash_bits(pc32(target), 0x9e3779b1u, 3);

	push(p, (h & 1 ? HASH_DIR : 0) + path_add(pc * MUL_PC));
	push(p, h & 2 ? HASH_DIR : 0);
	push(p, h & 4 ? HASH_DIR : 0);
	return pred != target;
}

/* ---- calls, returns, jumps ---- */

void bpred_call(struct bpred *p, uint64_t pc, uint64_t return_addr)
{
	p->ras_top = p->ras_top + 1 == p->c.ras_depth ? 0 : p->ras_top + 1;
	p->ras[p->ras_top] = return_addr;
	push(p, target_add(pc) + path_add(pc * MUL_PC));
}

bool bpred_return(struct bpred *p, uint64_t pc, uint64_t target)
{
	uint64_t pred = p->ras[p->ras_top];

	p->ras_top = p->ras_top == 0 ? p->c.ras_depth - 1 : p->ras_top - 1;
	push(p, target_add(target) + path_add(pc * MUL_PC));
	return pred != target;
}

void bpred_uncond(struct bpred *p, uint64_t pc, uint64_t target)
{
	push(p, target_add(target) + path_add(pc * MUL_PC));
}
