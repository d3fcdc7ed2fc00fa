/* mach.c: the simulated machine of tdprof's valgrind tool (see mach.h). Freestanding. */
#include "sim/mach.h"

struct sim_mach {
	struct sim_mach_config c;
	uint32_t line_shift;
	uint32_t window_shift;
	bool have_btb, have_dsb;
	struct sim_lru l1i, l1d, l2, l3, btb, dsb;
	struct sim_pf pf;
	struct sim_ivl ivl;
	struct bpred *bp;
};

static const char *const mev_names[SIM_MEV_NR] = {
	[SIM_MEV_IR] = "Ir",       [SIM_MEV_DR] = "Dr",       [SIM_MEV_DW] = "Dw",       [SIM_MEV_I1MR] = "I1mr",
	[SIM_MEV_I2MR] = "I2mr",   [SIM_MEV_ILMR] = "ILmr",   [SIM_MEV_D1MR] = "D1mr",   [SIM_MEV_D2MR] = "D2mr",
	[SIM_MEV_DLMR] = "DLmr",   [SIM_MEV_D1MW] = "D1mw",   [SIM_MEV_D2MW] = "D2mw",   [SIM_MEV_DLMW] = "DLmw",
	[SIM_MEV_BC] = "Bc",       [SIM_MEV_BCM] = "Bcm",     [SIM_MEV_BI] = "Bi",       [SIM_MEV_BIM] = "Bim",
	[SIM_MEV_BR] = "Br",       [SIM_MEV_BRM] = "Brm",     [SIM_MEV_BTK] = "Btk",     [SIM_MEV_BTBM] = "Btbm",
	[SIM_MEV_DPF] = "Dpf",     [SIM_MEV_DSW] = "Dsw",     [SIM_MEV_DDEP] = "Ddep",   [SIM_MEV_DCY2] = "Dcy2",
	[SIM_MEV_DCY3] = "Dcy3",   [SIM_MEV_DCYM] = "DcyM",   [SIM_MEV_IDSBM] = "Idsbm", [SIM_MEV_IMITE] = "Imite",
};

const char *sim_mev_name(unsigned e)
{
	return e < SIM_MEV_NR ? mev_names[e] : "?";
}

bool sim_mev_in_ticks(unsigned e)
{
	return e == SIM_MEV_DCY2 || e == SIM_MEV_DCY3 || e == SIM_MEV_DCYM;
}

static unsigned log2_exact(uint64_t x)
{
	unsigned s = 0;

	if (!x || (x & (x - 1)))
		return 64;
	while ((1ull << s) < x)
		s++;
	return s;
}

/* Sets of a cache, 0 when its geometry does not work. */
static uint32_t sets_of(const struct sim_mach_cache *k, uint32_t line)
{
	uint64_t way = (uint64_t)k->assoc * line;

	if (!k->assoc || k->assoc > SIM_LRU_MAX_ASSOC || k->line != line || !k->size || k->size % way ||
	    k->size / way > SIM_LRU_MAX_SETS)
		return 0;
	return (uint32_t)(k->size / way);
}

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* The memory of each part, in order; false when the configuration is out of range. */
static bool layout(const struct sim_mach_config *c, size_t part[7])
{
	uint32_t line = c->l1d.line;
	unsigned ls = log2_exact(line);
	struct sim_mach_cache k[4] = { c->l1i, c->l1d, c->l2, c->l3 };

	if (ls < 4 || ls > 12)
		return false;
	for (int i = 0; i < 4; i++) {
		uint32_t sets = sets_of(&k[i], line);

		if (!sets)
			return false;
		part[i] = align8(sim_lru_bytes(sets, k[i].assoc));
	}
	part[4] = 0;
	if (c->btb_entries) {
		if (!c->btb_assoc || c->btb_entries % c->btb_assoc)
			return false;
		part[4] = align8(sim_lru_bytes(c->btb_entries / c->btb_assoc, c->btb_assoc));
		if (!part[4])
			return false;
	}
	part[5] = 0;
	if (c->dsb_windows) {
		if (!c->dsb_assoc || c->dsb_windows % c->dsb_assoc || log2_exact(c->dsb_window) > 12)
			return false;
		part[5] = align8(sim_lru_bytes(c->dsb_windows / c->dsb_assoc, c->dsb_assoc));
		if (!part[5])
			return false;
	}
	part[6] = c->bpred ? align8(bpred_size(c->bpred)) : 0;
	return c->width_milli >= 100 && c->rob;
}

size_t sim_mach_bytes(const struct sim_mach_config *c)
{
	size_t part[7], n = align8(sizeof(struct sim_mach));

	if (!layout(c, part))
		return 0;
	for (int i = 0; i < 7; i++)
		n += part[i];
	return n;
}

struct sim_mach *sim_mach_init(void *mem, size_t len, const struct sim_mach_config *c)
{
	size_t part[7], need = sim_mach_bytes(c);
	struct sim_mach *m = mem;
	uint8_t *p;
	struct sim_ivl_config ic;
	struct sim_lru *lru[4];
	const struct sim_mach_cache *k[4] = { &c->l1i, &c->l1d, &c->l2, &c->l3 };

	if (!need || len < need || !mem || ((uintptr_t)mem & 7) || !layout(c, part))
		return 0;
	m->c = *c;
	m->line_shift = log2_exact(c->l1d.line);
	lru[0] = &m->l1i;
	lru[1] = &m->l1d;
	lru[2] = &m->l2;
	lru[3] = &m->l3;
	p = (uint8_t *)mem + align8(sizeof(*m));
	for (int i = 0; i < 4; i++) {
		sim_lru_init(lru[i], p, part[i], sets_of(k[i], c->l1d.line), k[i]->assoc);
		p += part[i];
	}
	m->have_btb = part[4] && sim_lru_init(&m->btb, p, part[4], c->btb_entries / c->btb_assoc, c->btb_assoc);
	p += part[4];
	m->have_dsb = part[5] && sim_lru_init(&m->dsb, p, part[5], c->dsb_windows / c->dsb_assoc, c->dsb_assoc);
	m->window_shift = c->dsb_windows ? log2_exact(c->dsb_window) : 0;
	p += part[5];
	m->bp = c->bpred ? bpred_init(p, part[6], c->bpred) : 0;
	sim_pf_init(&m->pf, c->pf_stride, c->pf_stream, c->pf_max_stride, m->line_shift);
	for (int i = 0; i < SIM_NR_LVL; i++)
		ic.lat[i] = c->lat[i];
	ic.tick_per_insn = (uint32_t)((SIM_IVL_TICKS * 1000ull + c->width_milli / 2) / c->width_milli);
	ic.rob = c->rob;
	ic.mshr = c->mshr;
	/* a line moves every line / (bytes per cycle) cycles */
	for (int i = 0; i < SIM_NR_LVL; i++)
		ic.line_ticks[i] = i && c->bw_milli[i] ? (uint32_t)((uint64_t)c->l1d.line * SIM_IVL_TICKS * 1000ull /
								   c->bw_milli[i]) : 0;
	ic.dep_range = c->dep_range;
	sim_ivl_init(&m->ivl, &ic);
	return m;
}

uint32_t sim_mach_line(const struct sim_mach *m)
{
	return 1u << m->line_shift;
}

/* A line through L1 (l1), L2 and L3: the level that had it; every level missed is filled. */
static unsigned lookup(struct sim_mach *m, struct sim_lru *l1, uint64_t line)
{
	if (sim_lru_access(l1, line))
		return SIM_LVL_L1;
	if (sim_lru_access(&m->l2, line))
		return SIM_LVL_L2;
	if (sim_lru_access(&m->l3, line))
		return SIM_LVL_L3;
	return SIM_LVL_MEM;
}

void sim_mach_fetch(struct sim_mach *m, uint64_t *ev, uint64_t addr)
{
	unsigned lvl = lookup(m, &m->l1i, addr >> m->line_shift);

	ev[SIM_MEV_I1MR] += lvl >= SIM_LVL_L2;
	ev[SIM_MEV_I2MR] += lvl >= SIM_LVL_L3;
	ev[SIM_MEV_ILMR] += lvl >= SIM_LVL_MEM;
}

void sim_mach_window(struct sim_mach *m, uint64_t *ev, uint64_t addr, uint32_t n)
{
	if (!m->have_dsb || sim_lru_access(&m->dsb, addr >> m->window_shift))
		return;
	ev[SIM_MEV_IDSBM]++;
	ev[SIM_MEV_IMITE] += n;
}

/* The level of an access that may straddle two lines: the slower of the two. */
static unsigned data_level(struct sim_mach *m, uint64_t addr, uint32_t size, uint64_t *line)
{
	uint64_t first = addr >> m->line_shift, last = (addr + (size ? size - 1 : 0)) >> m->line_shift;
	unsigned lvl = lookup(m, &m->l1d, first);

	*line = first;
	if (last != first) {
		unsigned l2 = lookup(m, &m->l1d, last);

		if (l2 > lvl) {
			lvl = l2;
			*line = last;
		}
	}
	return lvl;
}

void sim_mach_load(struct sim_mach *m, uint64_t *ev, uint64_t seq, uint64_t pc, uint64_t addr, uint32_t size,
		   uint64_t value)
{
	uint64_t line;
	unsigned lvl = data_level(m, addr, size, &line), res;
	bool covered = false;

	ev[SIM_MEV_DR]++;
	if (lvl >= SIM_LVL_L2) {
		ev[SIM_MEV_D1MR]++;
		ev[SIM_MEV_D2MR] += lvl >= SIM_LVL_L3;
		ev[SIM_MEV_DLMR] += lvl >= SIM_LVL_MEM;
		covered = sim_pf_miss(&m->pf, pc, line << m->line_shift | (addr & (sim_mach_line(m) - 1))) != 0;
		ev[SIM_MEV_DPF] += covered;
	}
	/* the per-level exposure counters, indexed by level (cyc[0], L1, is never written) */
	res = sim_ivl_load(&m->ivl, seq, pc, addr, line, value, lvl, covered, &ev[SIM_MEV_DCY2 - 1]);
	ev[SIM_MEV_DDEP] += (res & SIM_IVL_DEPENDENT) && lvl >= SIM_LVL_L2;
}

void sim_mach_store(struct sim_mach *m, uint64_t *ev, uint64_t seq, uint64_t addr, uint32_t size)
{
	uint64_t line;
	unsigned lvl = data_level(m, addr, size, &line);

	ev[SIM_MEV_DW]++;
	if (lvl >= SIM_LVL_L2) {
		ev[SIM_MEV_D1MW]++;
		ev[SIM_MEV_D2MW] += lvl >= SIM_LVL_L3;
		ev[SIM_MEV_DLMW] += lvl >= SIM_LVL_MEM;
		sim_ivl_store_miss(&m->ivl, seq, lvl);
	}
}

void sim_mach_prefetch(struct sim_mach *m, uint64_t *ev, uint64_t seq, uint64_t addr)
{
	uint64_t line = addr >> m->line_shift;
	unsigned lvl = lookup(m, &m->l1d, line);

	if (lvl >= SIM_LVL_L2) {
		ev[SIM_MEV_DSW]++;
		sim_ivl_prefetch(&m->ivl, seq, line, lvl);
	}
}

/* A taken branch predicted right: the BTB must know it, or the decoder resteers. */
static void btb(struct sim_mach *m, uint64_t *ev, uint64_t pc, bool mispredicted)
{
	ev[SIM_MEV_BTK]++;
	if (m->have_btb && !sim_lru_access(&m->btb, pc) && !mispredicted)
		ev[SIM_MEV_BTBM]++;
}

void sim_mach_cond(struct sim_mach *m, uint64_t *ev, uint64_t seq, uint64_t pc, bool taken, uint64_t target)
{
	bool miss = m->bp && bpred_cond(m->bp, pc, taken);

	(void)target;
	ev[SIM_MEV_BC]++;
	if (miss) {
		ev[SIM_MEV_BCM]++;
		sim_ivl_mispredict(&m->ivl, seq);
	}
	if (taken)
		btb(m, ev, pc, miss);
}

void sim_mach_jump(struct sim_mach *m, uint64_t *ev, uint64_t pc, uint64_t target)
{
	if (m->bp)
		bpred_uncond(m->bp, pc, target);
	btb(m, ev, pc, false);
}

void sim_mach_call(struct sim_mach *m, uint64_t *ev, uint64_t seq, uint64_t pc, uint64_t target, uint64_t ret,
		   bool indirect)
{
	bool miss = false;

	if (indirect) {
		ev[SIM_MEV_BI]++;
		miss = m->bp && bpred_indirect(m->bp, pc, target);
		if (miss) {
			ev[SIM_MEV_BIM]++;
			sim_ivl_mispredict(&m->ivl, seq);
		}
	} else if (m->bp) {
		bpred_uncond(m->bp, pc, target);
	}
	if (m->bp)
		bpred_call(m->bp, pc, ret);
	btb(m, ev, pc, miss);
}

void sim_mach_ijump(struct sim_mach *m, uint64_t *ev, uint64_t seq, uint64_t pc, uint64_t target)
{
	bool miss = m->bp && bpred_indirect(m->bp, pc, target);

	ev[SIM_MEV_BI]++;
	if (miss) {
		ev[SIM_MEV_BIM]++;
		sim_ivl_mispredict(&m->ivl, seq);
	}
	btb(m, ev, pc, miss);
}

void sim_mach_ret(struct sim_mach *m, uint64_t *ev, uint64_t seq, uint64_t pc, uint64_t target)
{
	bool miss = m->bp && bpred_return(m->bp, pc, target);

	ev[SIM_MEV_BR]++;
	if (miss) {
		ev[SIM_MEV_BRM]++;
		sim_ivl_mispredict(&m->ivl, seq);
	}
	btb(m, ev, pc, miss);
}

void sim_mach_finish(struct sim_mach *m, uint64_t seq)
{
	sim_ivl_finish(&m->ivl, seq);
}

uint64_t sim_mach_ticks(struct sim_mach *m, uint64_t seq)
{
	return sim_ivl_now(&m->ivl, seq);
}
