/* TEMPORARY stand-in for the predictor helper's bpred.c (see bpred.h). Freestanding. */
#include "sim/bpred.h"

struct bpred {
	struct bpred_config c;
	uint64_t hist;
	unsigned sp, depth;
	uint8_t *ctr;
	uint64_t *tgt;
	uint64_t *stack;
};

static const struct bpred_config stub = { "stub", 16, 16, 10, 32 };

const struct bpred_config *bpred_preset(const char *name)
{
	(void)name;
	return &stub;
}

size_t bpred_size(const struct bpred_config *c)
{
	return sizeof(struct bpred) + 16 + ((size_t)8 << c->log_targets) + (size_t)8 * c->ras +
	       ((size_t)1 << c->log_entries);
}

struct bpred *bpred_init(void *mem, size_t len, const struct bpred_config *c)
{
	struct bpred *p = mem;
	uint8_t *b = (uint8_t *)mem + sizeof(*p);

	if (len < bpred_size(c))
		return NULL;
	p->c = *c;
	p->hist = 0;
	p->sp = p->depth = 0;
	b += (8 - ((uintptr_t)b & 7)) & 7;
	p->tgt = (uint64_t *)(void *)b;
	b += (size_t)8 << c->log_targets;
	p->stack = (uint64_t *)(void *)b;
	b += (size_t)8 * c->ras;
	p->ctr = b;
	for (size_t i = 0; i < ((size_t)1 << c->log_targets); i++)
		p->tgt[i] = 0;
	for (size_t i = 0; i < ((size_t)1 << c->log_entries); i++)
		p->ctr[i] = 1;
	return p;
}

bool bpred_cond(struct bpred *p, uint64_t pc, bool taken)
{
	uint64_t mask = ((uint64_t)1 << p->c.log_entries) - 1;
	uint64_t i = ((pc >> 1) ^ (p->hist & (((uint64_t)1 << p->c.hist_bits) - 1)) << (p->c.log_entries - p->c.hist_bits)) & mask;
	bool pred = p->ctr[i] >= 2;

	if (taken && p->ctr[i] < 3)
		p->ctr[i]++;
	if (!taken && p->ctr[i] > 0)
		p->ctr[i]--;
	p->hist = (p->hist << 1) | taken;
	return pred != taken;
}

bool bpred_indirect(struct bpred *p, uint64_t pc, uint64_t target)
{
	uint64_t *t = &p->tgt[(pc ^ (pc >> 11)) & (((uint64_t)1 << p->c.log_targets) - 1)];
	bool miss = *t != target;

	*t = target;
	return miss;
}

void bpred_call(struct bpred *p, uint64_t pc, uint64_t return_addr)
{
	(void)pc;
	p->stack[p->sp] = return_addr;
	p->sp = (p->sp + 1) % p->c.ras;
	if (p->depth < p->c.ras)
		p->depth++;
}

bool bpred_return(struct bpred *p, uint64_t pc, uint64_t target)
{
	(void)pc;
	if (!p->depth)
		return true;
	p->sp = (p->sp + p->c.ras - 1) % p->c.ras;
	p->depth--;
	return p->stack[p->sp] != target;
}

void bpred_uncond(struct bpred *p, uint64_t pc, uint64_t target)
{
	(void)p;
	(void)pc;
	(void)target;
}
