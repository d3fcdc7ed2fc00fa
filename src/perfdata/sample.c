/*
 * sample.c: PERF_RECORD_SAMPLE in perf's parse order (tools/perf/util/evsel.c,
 * evsel__parse_sample), and the perf_branch_entry flags word.
 */
#include "perfdata/perfdata-internal.h"

#include "base/alloc.h"
#include "base/checked.h"
#include "base/err.h"

#include <inttypes.h>

/* The flags word of perf_branch_entry (see pd_branch_flags_decode). */
void perfdata_branch_flags_decode(uint64_t f, struct branch_entry *e)
{
	pd_branch_flags_decode(f, e);
}

uint64_t perfdata_branch_flags_encode(const struct branch_entry *e)
{
	return (uint64_t)e->mispred | (uint64_t)e->predicted << 1 | (uint64_t)e->in_tx << 2 |
	       (uint64_t)e->abort << 3 | (uint64_t)e->cycles << 4 | (uint64_t)(e->type & 0xf) << 20 |
	       (uint64_t)(e->spec & 0x3) << 24 | (uint64_t)(e->new_type & 0xf) << 26 |
	       (uint64_t)(e->priv & 0x7) << 30;
}

struct scur {
	struct perfdata *p;
	const struct perfdata_record *rec;
	const uint8_t *at;
	const uint8_t *end;
	struct tdp_err *err;
};

static int scur_short(struct scur *c, uint64_t need, const char *what)
{
	return pd_error(c->p, c->err, TDP_EFORMAT,
			"sample at offset 0x%" PRIx64 ": %s needs %" PRIu64
			" bytes at +%zu but the record (size %u) has %zu left",
			c->rec->offset, what, need, (size_t)(c->at - c->rec->raw), c->rec->size,
			(size_t)(c->end - c->at));
}

static inline int scur_u64(struct scur *c, uint64_t *v, const char *what)
{
	if (c->end - c->at < 8)
		return scur_short(c, 8, what);
	*v = pd_u64(c->at);
	c->at += 8;
	return 0;
}

/* Two u32 in one u64 word (TID, CPU). */
static inline int scur_u32x2(struct scur *c, uint32_t *a, uint32_t *b, const char *what)
{
	if (c->end - c->at < 8)
		return scur_short(c, 8, what);
	*a = pd_u32(c->at);
	*b = pd_u32(c->at + 4);
	c->at += 8;
	return 0;
}

static inline int scur_bytes(struct scur *c, uint64_t n, const uint8_t **out, const char *what)
{
	if ((uint64_t)(c->end - c->at) < n)
		return scur_short(c, n, what);
	*out = c->at;
	c->at += n;
	return 0;
}

static int read_size(const struct perfdata_attr *a, struct scur *c, size_t *out)
{
	uint64_t rf = a->read_format, n = 1, words;

	if (rf & PERFDATA_FORMAT_GROUP) {
		uint64_t nr, per = 1 + !!(rf & PERFDATA_FORMAT_ID) + !!(rf & PERFDATA_FORMAT_LOST);

		if (c->end - c->at < 8)
			return scur_short(c, 8, "the READ group count");
		nr = pd_u64(c->at);
		if (nr > (uint64_t)(c->end - c->at) / 8 / per)
			return scur_short(c, nr > UINT32_MAX ? UINT64_MAX : 8 * (1 + nr * per),
					  "a READ group");
		words = 1 + !!(rf & PERFDATA_FORMAT_TOTAL_TIME_ENABLED) +
			!!(rf & PERFDATA_FORMAT_TOTAL_TIME_RUNNING) + nr * per;
	} else {
		n += !!(rf & PERFDATA_FORMAT_TOTAL_TIME_ENABLED);
		n += !!(rf & PERFDATA_FORMAT_TOTAL_TIME_RUNNING);
		n += !!(rf & PERFDATA_FORMAT_ID);
		n += !!(rf & PERFDATA_FORMAT_LOST);
		words = n;
	}
	*out = (size_t)words * 8;
	return 0;
}

static int limit(struct scur *c, const char *what, uint64_t nr, unsigned max, const char *name)
{
	return pd_error(c->p, c->err, TDP_ELIMIT,
			"sample at offset 0x%" PRIx64 ": %s of %" PRIu64
			" entries exceeds the limit of %u (%s)",
			c->rec->offset, what, nr, max, name);
}

static int read_branches(struct perfdata *p, const struct perfdata_attr *a, struct scur *c,
			 struct perfdata_sample *s)
{
	const uint8_t *ents = NULL;
	uint64_t nr = 0;
	int ret;

	ret = scur_u64(c, &nr, "the branch stack size");
	if (ret)
		return ret;
	if (nr > BRSTACK_MAX_NR)
		return limit(c, "branch stack", nr, BRSTACK_MAX_NR, "BRSTACK_MAX_NR");
	s->has_hw_idx = (a->branch_sample_type & PERFDATA_BRANCH_HW_INDEX) != 0;
	s->hw_idx = UINT64_MAX;
	if (s->has_hw_idx) {
		ret = scur_u64(c, &s->hw_idx, "the branch hw_idx");
		if (ret)
			return ret;
	}
	ret = scur_bytes(c, nr * 24, &ents, "the branch entries");
	if (ret)
		return ret;
	s->branch_raw = ents;
	s->nr_branches = (size_t)nr;
	s->branches = NULL;
	if (!(p->flags & PERFDATA_OPEN_RAW_BRANCHES)) {
		if (nr > p->br_alloc && TDP_GROW(p->br, p->br_alloc, nr))
			return tdp_err_oom(c->err);
		for (size_t i = 0; i < nr; i++) {
			struct branch_entry *e = &p->br[i];
			const uint8_t *r = ents + 24 * i;

			e->from = pd_u64(r);
			e->to = pd_u64(r + 8);
			pd_branch_flags_decode(pd_u64(r + 16), e);
		}
		s->branches = p->br;
	}
	if (a->branch_sample_type & PERFDATA_BRANCH_COUNTERS) {
		const uint8_t *cnt = NULL;

		ret = scur_bytes(c, nr * 8, &cnt, "the branch counters");
		if (ret)
			return ret;
		if (nr > p->cnt_alloc && TDP_GROW(p->cnt, p->cnt_alloc, nr))
			return tdp_err_oom(c->err);
		if (nr) /* p->cnt is NULL until a stack with entries needed it */
			memcpy(p->cnt, cnt, (size_t)nr * 8);
		s->branch_counters = p->cnt;
	}
	return 0;
}

static int read_regs(struct scur *c, uint64_t mask, uint64_t *abi, const uint8_t **regs,
		     size_t *nr, const char *what)
{
	int ret = scur_u64(c, abi, what);

	if (ret || !*abi)
		return ret;
	*nr = (size_t)__builtin_popcountll(mask);
	return scur_bytes(c, (uint64_t)*nr * 8, regs, what);
}

int pd_sample_decode(struct perfdata *p, struct perfdata_record *rec, struct tdp_err *err)
{
	struct scur c = { p, rec, rec->raw + PD_EVENT_HEADER_SIZE, rec->raw + rec->size, err };
	struct perfdata_sample *s = &rec->u.sample;
	const struct pd_attr *pa = NULL;
	const struct perfdata_attr *a;
	uint64_t st, w = 0;
	int ret = 0;

	if (p->nr_attrs == 1) {
		pa = p->attrs[0];
	} else if (p->nr_attrs > 1 && p->id_pos >= 0) {
		size_t need = 8 * ((size_t)p->id_pos + 1);

		if ((size_t)(c.end - c.at) < need)
			return scur_short(&c, need, "the sample id");
		pa = pd_attr_by_id(p, pd_u64(c.at + 8 * (size_t)p->id_pos));
	}
	if (!pa) {
		p->stats.unknown_id++;
		return 0;
	}
	a = &pa->pub;
	rec->attr = a;
	st = a->sample_type;
	s->fields = st;

	if (st & PERFDATA_SAMPLE_IDENTIFIER)
		ret = scur_u64(&c, &s->id, "IDENTIFIER");
	if (!ret && (st & PERFDATA_SAMPLE_IP))
		ret = scur_u64(&c, &s->ip, "IP");
	if (!ret && (st & PERFDATA_SAMPLE_TID))
		ret = scur_u32x2(&c, &s->pid, &s->tid, "TID");
	if (!ret && (st & PERFDATA_SAMPLE_TIME))
		ret = scur_u64(&c, &s->time, "TIME");
	if (!ret && (st & PERFDATA_SAMPLE_ADDR))
		ret = scur_u64(&c, &s->addr, "ADDR");
	if (!ret && (st & PERFDATA_SAMPLE_ID))
		ret = scur_u64(&c, &s->id, "ID");
	if (!ret && (st & PERFDATA_SAMPLE_STREAM_ID))
		ret = scur_u64(&c, &s->stream_id, "STREAM_ID");
	if (!ret && (st & PERFDATA_SAMPLE_CPU)) {
		uint32_t res;

		ret = scur_u32x2(&c, &s->cpu, &res, "CPU");
	}
	if (!ret && (st & PERFDATA_SAMPLE_PERIOD))
		ret = scur_u64(&c, &s->period, "PERIOD");
	if (!ret && (st & PERFDATA_SAMPLE_READ)) {
		ret = read_size(a, &c, &s->read_len);
		if (!ret)
			ret = scur_bytes(&c, s->read_len, &s->read, "READ");
	}
	if (!ret && (st & PERFDATA_SAMPLE_CALLCHAIN)) {
		const uint8_t *ips = NULL;
		uint64_t nr = 0;

		ret = scur_u64(&c, &nr, "the callchain size");
		if (!ret && nr > PERFDATA_MAX_CALLCHAIN)
			return limit(&c, "callchain", nr, PERFDATA_MAX_CALLCHAIN, "PERFDATA_MAX_CALLCHAIN");
		if (!ret)
			ret = scur_bytes(&c, nr * 8, &ips, "the callchain");
		if (!ret && nr > p->cc_alloc && TDP_GROW(p->cc, p->cc_alloc, nr))
			ret = tdp_err_oom(err);
		if (!ret) {
			if (nr)
				memcpy(p->cc, ips, (size_t)nr * 8);
			s->callchain = p->cc;
			s->nr_callchain = (size_t)nr;
		}
	}
	if (!ret && (st & PERFDATA_SAMPLE_RAW)) {
		/* {u32 size; data[size]}: the kernel pads size so the pair fills u64 words */
		if (c.end - c.at < 4)
			ret = scur_short(&c, 4, "the RAW size");
		if (!ret) {
			s->raw_size = pd_u32(c.at);
			c.at += 4;
			ret = scur_bytes(&c, s->raw_size, &s->raw, "RAW");
		}
	}
	if (!ret && (st & PERFDATA_SAMPLE_BRANCH_STACK))
		ret = read_branches(p, a, &c, s);
	if (!ret && (st & PERFDATA_SAMPLE_REGS_USER))
		ret = read_regs(&c, a->sample_regs_user, &s->regs_user_abi, &s->regs_user,
				&s->nr_regs_user, "REGS_USER");
	if (!ret && (st & PERFDATA_SAMPLE_STACK_USER)) {
		ret = scur_u64(&c, &s->stack_user_size, "the STACK_USER size");
		if (!ret && s->stack_user_size) {
			ret = scur_bytes(&c, s->stack_user_size, &s->stack_user, "STACK_USER");
			if (!ret)
				ret = scur_u64(&c, &s->stack_user_dyn_size, "the STACK_USER dyn_size");
		}
	}
	if (!ret && (st & (PERFDATA_SAMPLE_WEIGHT | PERFDATA_SAMPLE_WEIGHT_STRUCT))) {
		ret = scur_u64(&c, &w, "WEIGHT");
		s->weight = w;
		s->weight_var1 = (uint32_t)w;
		s->weight_var2 = (uint16_t)(w >> 32);
		s->weight_var3 = (uint16_t)(w >> 48);
	}
	if (!ret && (st & PERFDATA_SAMPLE_DATA_SRC))
		ret = scur_u64(&c, &s->data_src, "DATA_SRC");
	if (!ret && (st & PERFDATA_SAMPLE_TRANSACTION))
		ret = scur_u64(&c, &s->transaction, "TRANSACTION");
	if (!ret && (st & PERFDATA_SAMPLE_REGS_INTR))
		ret = read_regs(&c, a->sample_regs_intr, &s->regs_intr_abi, &s->regs_intr,
				&s->nr_regs_intr, "REGS_INTR");
	if (!ret && (st & PERFDATA_SAMPLE_PHYS_ADDR))
		ret = scur_u64(&c, &s->phys_addr, "PHYS_ADDR");
	if (!ret && (st & PERFDATA_SAMPLE_CGROUP))
		ret = scur_u64(&c, &s->cgroup, "CGROUP");
	if (!ret && (st & PERFDATA_SAMPLE_DATA_PAGE_SIZE))
		ret = scur_u64(&c, &s->data_page_size, "DATA_PAGE_SIZE");
	if (!ret && (st & PERFDATA_SAMPLE_CODE_PAGE_SIZE))
		ret = scur_u64(&c, &s->code_page_size, "CODE_PAGE_SIZE");
	if (!ret && (st & PERFDATA_SAMPLE_AUX)) {
		ret = scur_u64(&c, &s->aux_size, "the AUX size");
		if (!ret)
			ret = scur_bytes(&c, s->aux_size, &s->aux, "AUX");
	}
	return ret;
}
