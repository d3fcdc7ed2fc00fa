/* pf.c: the stride and stream prefetch detectors (see pf.h). Freestanding. */
#include "sim/pf.h"

#include <stddef.h>

void sim_pf_init(struct sim_pf *pf, bool stride_on, bool stream_on, uint32_t max_stride, uint32_t line_shift)
{
	pf->stride_on = stride_on;
	pf->stream_on = stream_on;
	pf->max_stride = max_stride;
	pf->line_shift = line_shift;
	for (unsigned i = 0; i < SIM_PF_STRIDE_ENTRIES; i++) {
		pf->stride[i].pc = 0;
		pf->stride[i].last = 0;
		pf->stride[i].stride = 0;
		pf->stride[i].conf = 0;
	}
	for (unsigned i = 0; i < SIM_PF_STREAMS; i++) {
		pf->stream[i].page = 0;
		pf->stream[i].last = 0;
		pf->stream[i].dir = 0;
		pf->stream[i].conf = 0;
	}
}

static bool stride_miss(struct sim_pf *pf, uint64_t pc, uint64_t addr)
{
	uint64_t h = (pc ^ (pc >> 9) ^ (pc >> 17)) & (SIM_PF_STRIDE_ENTRIES - 1);
	struct sim_pf_stride *e = &pf->stride[h];
	int64_t d;
	bool covered;

	if (e->pc != pc + 1) {
		e->pc = pc + 1;
		e->last = addr;
		e->stride = 0;
		e->conf = 0;
		return false;
	}
	d = (int64_t)(addr - e->last);
	e->last = addr;
	if (d != 0 && d == e->stride) {
		/* the third miss at one distance is the first one a trained entry covers */
		covered = e->conf >= 1 && (uint64_t)(d < 0 ? -d : d) <= pf->max_stride;
		if (e->conf < 3)
			e->conf++;
		return covered;
	}
	e->stride = d;
	e->conf = 0;
	return false;
}

static bool stream_miss(struct sim_pf *pf, uint64_t addr)
{
	uint64_t page = (addr >> SIM_PF_PAGE_SHIFT) + 1;
	int64_t line = (int64_t)((addr & ((1u << SIM_PF_PAGE_SHIFT) - 1)) >> pf->line_shift);
	/* one entry per page hash (a newer page takes its slot) */
	struct sim_pf_stream *e = &pf->stream[(page * 0x9e3779b97f4a7c15ull) >> 58 & (SIM_PF_STREAMS - 1)];
	int64_t d;
	int dir;

	if (e->page != page) {
		e->page = page;
		e->last = line;
		e->dir = 0;
		e->conf = 0;
		return false;
	}
	d = line - e->last;
	e->last = line;
	if (d == 0)
		return e->conf >= 2;
	dir = d > 0 ? 1 : -1;
	if ((d > 2 || d < -2) || (e->dir && dir != e->dir)) {
		e->dir = 0;
		e->conf = 0;
		return false;
	}
	e->dir = dir;
	if (e->conf < 3)
		e->conf++;
	return e->conf >= 2;
}

unsigned sim_pf_miss(struct sim_pf *pf, uint64_t pc, uint64_t addr)
{
	unsigned by = 0;

	if (pf->stride_on && stride_miss(pf, pc, addr))
		by |= SIM_PF_BY_STRIDE;
	if (pf->stream_on && stream_miss(pf, addr))
		by |= SIM_PF_BY_STREAM;
	return by;
}
