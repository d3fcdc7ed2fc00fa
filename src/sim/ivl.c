/* ivl.c: the interval model of overlapping misses (see ivl.h). Freestanding. */
#include "sim/ivl.h"

/* A mispredicted branch this close after a load in flight waits for its value. */
#define BRANCH_WINDOW 16u

void sim_ivl_init(struct sim_ivl *v, const struct sim_ivl_config *c)
{
	uint8_t *b = (uint8_t *)v;

	for (unsigned long i = 0; i < sizeof(*v); i++)
		b[i] = 0;
	v->c = *c;
	if (v->c.mshr < 1)
		v->c.mshr = 1;
	if (v->c.mshr > SIM_IVL_MAX_INFLIGHT)
		v->c.mshr = SIM_IVL_MAX_INFLIGHT;
	if (v->c.rob < 1)
		v->c.rob = 1;
	if (v->c.tick_per_insn < 1)
		v->c.tick_per_insn = 1;
	/* the granule of the dependence table: the range rounded up to a power of two */
	v->dep_shift = 3;
	while (v->dep_shift < 20 && (1ull << v->dep_shift) < v->c.dep_range)
		v->dep_shift++;
}

static uint64_t lat(const struct sim_ivl *v, unsigned level)
{
	return (uint64_t)v->c.lat[level < SIM_NR_LVL ? level : SIM_LVL_MEM] * SIM_IVL_TICKS;
}

static void pop(struct sim_ivl *v)
{
	v->head = (v->head + 1) % SIM_IVL_MAX_INFLIGHT;
	v->nr--;
}

/* Charge stall ticks to miss m: dispatch waited for it. */
static void expose(struct sim_ivl *v, struct sim_ivl_miss *m, uint64_t ticks)
{
	v->stall += ticks;
	if (m->cyc)
		*m->cyc += ticks;
}

/*
 * The dispatch time of instruction seq, after the ROB stalls that came before it:
 * the oldest load in flight that is still incomplete when `rob` instructions
 * after it have been dispatched stops dispatch until it completes.
 */
uint64_t sim_ivl_now(struct sim_ivl *v, uint64_t seq)
{
	if (seq < v->last_seq)
		seq = v->last_seq;
	v->last_seq = seq;
	while (v->nr) {
		struct sim_ivl_miss *m = &v->ring[v->head];
		uint64_t t = seq * v->c.tick_per_insn + v->stall;

		if (seq >= m->seq + v->c.rob) {
			uint64_t full = (m->seq + v->c.rob) * v->c.tick_per_insn + v->stall;

			if (m->done > full)
				expose(v, m, m->done - full);
			pop(v);
			continue;
		}
		if (m->done <= t) {
			pop(v);
			continue;
		}
		break;
	}
	return seq * v->c.tick_per_insn + v->stall;
}

/* A level's channel: a line asked for at `at` starts moving when the channel is free. */
static uint64_t channel(struct sim_ivl *v, unsigned level, uint64_t at)
{
	uint64_t start;

	if (level >= SIM_NR_LVL || !v->c.line_ticks[level])
		return at;
	start = at > v->chan_free[level] ? at : v->chan_free[level];
	v->chan_free[level] = start + v->c.line_ticks[level];
	return start;
}

static struct sim_ivl_dep *dep_slot(struct sim_ivl *v, uint64_t granule)
{
	uint64_t h = granule * 0x9e3779b97f4a7c15ull;

	return &v->dep[(h >> 40) % SIM_IVL_DEP_SLOTS];
}

/* The completion of the slow load whose value addr points just above, when it is still in flight. */
static uint64_t dep_find(struct sim_ivl *v, uint64_t addr, uint64_t t)
{
	unsigned s = v->dep_shift;
	uint64_t g = addr >> s, best = 0;

	for (int k = 0; k < 2 && g >= (uint64_t)k; k++) {
		struct sim_ivl_dep *d = dep_slot(v, g - (uint64_t)k);

		if (d->value && addr >= d->value - 1 && addr - (d->value - 1) < v->c.dep_range && d->done > t &&
		    d->done > best)
			best = d->done;
	}
	return best;
}

static void dep_add(struct sim_ivl *v, uint64_t value, uint64_t done)
{
	struct sim_ivl_dep *d;

	if (!value)
		return;
	d = dep_slot(v, value >> v->dep_shift);
	d->value = value + 1;
	d->done = done;
	if (done > v->dep_until)
		v->dep_until = done;
	v->last_value = value;
	v->last_done = done;
}

/*
 * An index chase (i = next[i]): the address is base + 4 or 8 × the newest slow
 * value, with the same base as at this instruction's previous miss. Returns the
 * completion it waits for, or 0.
 */
static uint64_t index_chase(struct sim_ivl *v, uint64_t pc, uint64_t addr, uint64_t t)
{
	struct sim_ivl_index *x = &v->index[(pc ^ (pc >> 8)) % SIM_IVL_INDEX_SLOTS];
	uint64_t b4 = addr - 4 * v->last_value, b8 = addr - 8 * v->last_value, got = 0;

	if (x->pc == pc + 1 && v->last_value && v->last_done > t && (x->base[0] == b4 || x->base[1] == b8))
		got = v->last_done;
	x->pc = pc + 1;
	x->base[0] = b4;
	x->base[1] = b8;
	return got;
}

static struct sim_ivl_swpf *swpf_slot(struct sim_ivl *v, uint64_t line)
{
	return &v->swpf[(line ^ (line >> 8)) % SIM_IVL_SWPF_SLOTS];
}

/*
 * The first time from `at` on when a fill buffer is free: when mshr loads in
 * flight are still incomplete at `at`, the one that completes (count - mshr + 1)th.
 */
static uint64_t mshr_free(const struct sim_ivl *v, uint64_t at)
{
	uint64_t d[SIM_IVL_MAX_INFLIGHT];
	uint32_t n = 0, k, busy = 0;

	if (v->nr < v->c.mshr)
		return at;
	for (uint32_t i = 0; i < v->nr; i++)
		busy += v->ring[(v->head + i) % SIM_IVL_MAX_INFLIGHT].done > at;
	if (busy < v->c.mshr)
		return at; /* the common case: a buffer is free */
	for (uint32_t i = 0; i < v->nr; i++) {
		uint64_t x = v->ring[(v->head + i) % SIM_IVL_MAX_INFLIGHT].done;

		if (x > at) {
			/* insertion into d[0..n), ascending */
			uint32_t j = n++;

			for (; j > 0 && d[j - 1] > x; j--)
				d[j] = d[j - 1];
			d[j] = x;
		}
	}
	if (n < v->c.mshr)
		return at;
	k = n - v->c.mshr; /* the (k+1)th completion frees one */
	return d[k];
}

/* Put a load in flight; when the ring is full the oldest is retired (charged as a ROB stall). */
static void push(struct sim_ivl *v, uint64_t seq, uint64_t done, uint64_t *cyc)
{
	struct sim_ivl_miss *m;

	if (v->nr == SIM_IVL_MAX_INFLIGHT) {
		uint64_t t = seq * v->c.tick_per_insn + v->stall;

		m = &v->ring[v->head];
		if (m->done > t)
			expose(v, m, m->done - t);
		pop(v);
	}
	m = &v->ring[(v->head + v->nr) % SIM_IVL_MAX_INFLIGHT];
	m->seq = seq;
	m->done = done;
	m->cyc = cyc;
	v->nr++;
}

unsigned sim_ivl_load(struct sim_ivl *v, uint64_t seq, uint64_t pc, uint64_t addr, uint64_t line, uint64_t value,
		      unsigned level, bool covered, uint64_t *cyc)
{
	uint64_t t = sim_ivl_now(v, seq), ready = t, done, w, l1 = lat(v, SIM_LVL_L1);
	unsigned res = 0, charge = level;

	/* (no slow load is still in flight: nothing to depend on; the common case) */
	if (v->dep_until > t && (w = dep_find(v, addr, t)) != 0) {
		ready = w;
		res |= SIM_IVL_DEPENDENT;
	}
	if (level >= SIM_LVL_L2 && (w = index_chase(v, pc, addr, t)) > ready) {
		ready = w;
		res |= SIM_IVL_DEPENDENT;
	}
	if (level == SIM_LVL_L1) {
		struct sim_ivl_swpf *p = swpf_slot(v, line);

		done = ready + l1;
		if (v->swpf_until > t && p->line == line + 1) {
			if (p->done > done) {
				done = p->done; /* a software prefetch still on its way */
				charge = p->level;
				res |= SIM_IVL_LATE_PF;
			}
			if (p->done <= t)
				p->line = 0;
		}
	} else if (covered) {
		/* asked for a latency ahead: late only when the channel is behind */
		uint64_t ahead = lat(v, level), start = channel(v, level, t > ahead ? t - ahead : 0);

		done = ready + l1;
		if (start + ahead > done)
			done = start + ahead;
	} else {
		uint64_t issue = ready;

		issue = mshr_free(v, issue);
		done = channel(v, level, issue) + lat(v, level);
	}
	if (done > t + l1) {
		dep_add(v, value, done);
		if (charge >= SIM_LVL_L2)
			push(v, seq, done, cyc ? &cyc[charge < SIM_NR_LVL ? charge : SIM_LVL_MEM] : 0);
	}
	return res;
}

void sim_ivl_prefetch(struct sim_ivl *v, uint64_t seq, uint64_t line, unsigned level)
{
	uint64_t t = sim_ivl_now(v, seq);
	struct sim_ivl_swpf *p = swpf_slot(v, line);

	if (level == SIM_LVL_L1)
		return;
	p->line = line + 1;
	p->level = level;
	p->done = channel(v, level, t) + lat(v, level);
	if (p->done > v->swpf_until)
		v->swpf_until = p->done;
}

void sim_ivl_store_miss(struct sim_ivl *v, uint64_t seq, unsigned level)
{
	uint64_t t = sim_ivl_now(v, seq);

	/* the read for ownership, and from DRAM the write-back of the line when it leaves */
	channel(v, level, t);
	if (level == SIM_LVL_MEM)
		channel(v, level, t);
}

void sim_ivl_mispredict(struct sim_ivl *v, uint64_t seq)
{
	uint64_t t = sim_ivl_now(v, seq);
	struct sim_ivl_miss *m;

	if (!v->nr)
		return;
	m = &v->ring[(v->head + v->nr - 1) % SIM_IVL_MAX_INFLIGHT];
	if (seq - m->seq <= BRANCH_WINDOW && m->done > t) {
		/* the branch resolves when the value arrives; every older load has had as long */
		expose(v, m, m->done - t);
		m->cyc = 0;
	}
}

void sim_ivl_finish(struct sim_ivl *v, uint64_t seq)
{
	uint64_t t = sim_ivl_now(v, seq);

	while (v->nr) {
		struct sim_ivl_miss *m = &v->ring[v->head];

		if (m->done > t) {
			expose(v, m, m->done - t);
			t = m->done;
		}
		pop(v);
	}
}
