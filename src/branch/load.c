/*
 * load.c: one pass over a perf.data into an aggregator (branch_load(), branch.h):
 * samples with branch stacks, lost counts, and Arm SPE trace decoded into
 * one-entry stacks.
 */
#include "branch/branch-internal.h"
#include "branch/spe.h"
#include "base/alloc.h"
#include "base/err.h"

#include <string.h>

/* AUX record flag: the kernel dropped trace data (PERF_AUX_FLAG_TRUNCATED). */
#define AUX_FLAG_TRUNCATED 0x01ull

/*
 * Thread id -> process id, from COMM and FORK records: SPE trace names threads
 * (the AUXTRACE tid, or CONTEXTIDR), the symbol session knows processes.
 * Open addressing on u32 keys; key 0 is never stored (tid 0 is the idle task,
 * whose pid is 0 anyway).
 */
struct tid_map {
	uint32_t *keys, *vals;
	size_t cap, nr;
};

static int tid_map_put(struct tid_map *m, uint32_t tid, uint32_t pid, struct tdp_err *err)
{
	size_t j;

	if (!tid)
		return 0;
	if ((m->nr + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		uint32_t *k = tdp_calloc(cap, sizeof(*k)), *v = tdp_calloc(cap, sizeof(*v));

		if (!k || !v) {
			tdp_free(k);
			tdp_free(v);
			return tdp_err_oom(err);
		}
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->keys[i])
				continue;
			for (j = (m->keys[i] * 2654435761u) & (cap - 1); k[j]; j = (j + 1) & (cap - 1))
				;
			k[j] = m->keys[i];
			v[j] = m->vals[i];
		}
		tdp_free(m->keys);
		tdp_free(m->vals);
		m->keys = k;
		m->vals = v;
		m->cap = cap;
	}
	for (j = (tid * 2654435761u) & (m->cap - 1); m->keys[j] && m->keys[j] != tid; j = (j + 1) & (m->cap - 1))
		;
	if (!m->keys[j])
		m->nr++;
	m->keys[j] = tid;
	m->vals[j] = pid;
	return 0;
}

static uint32_t tid_map_pid(const struct tid_map *m, uint32_t tid)
{
	if (m->cap && tid) {
		for (size_t j = (tid * 2654435761u) & (m->cap - 1); m->keys[j]; j = (j + 1) & (m->cap - 1))
			if (m->keys[j] == tid)
				return m->vals[j];
	}
	return tid; /* a thread never announced: take it for a process's main thread */
}

struct load {
	struct branch_agg *a;
	struct branch_load_info *info;
	struct tid_map tids;
	bool spe;
};

/* Decode one AUXTRACE payload of SPE trace: every branch record is a one-entry stack. */
static int load_spe(struct load *l, const struct perfdata_auxtrace *at, struct tdp_err *err)
{
	struct spe_decoder d;
	struct spe_record r;
	struct branch_entry e;
	int rc = 0;

	spe_decoder_init(&d, at->data, (size_t)at->size);
	while (!rc && spe_decoder_next(&d, &r) > 0) {
		uint32_t tid = (r.present & SPE_HAS_CONTEXT) ? r.context : at->tid;
		uint32_t pid = tid == UINT32_MAX ? BRANCH_PID_NONE : tid_map_pid(&l->tids, tid);

		if (!spe_record_branch(&r, &e))
			continue;
		l->info->spe.branch_records++;
		l->a->counts.samples_with_stack++;
		rc = branch_agg_add_stack(l->a, &e, 1, pid, err);
	}
	l->info->spe.auxtrace_bytes += at->size;
	l->info->spe.records += d.stats.records;
	l->info->spe.bad_bytes += d.stats.bad_bytes;
	l->info->spe.truncated += d.stats.truncated;
	branch_agg_count_samples(l->a, d.stats.records);
	return rc;
}

static int load_record(struct load *l, const struct perfdata_record *rec, branch_record_fn *on_record, void *ctx,
		       struct tdp_err *err)
{
	int rc = 0;

	switch (rec->type) {
	case PERFDATA_RECORD_SAMPLE:
		if (rec->attr)
			return branch_agg_add_sample(l->a, &rec->u.sample, err);
		branch_agg_count_samples(l->a, 1);
		return 0;
	case PERFDATA_RECORD_LOST:
		branch_agg_add_lost(l->a, rec->u.lost.lost, 0);
		return 0;
	case PERFDATA_RECORD_LOST_SAMPLES:
		branch_agg_add_lost(l->a, 0, rec->u.lost.lost);
		return 0;
	case PERFDATA_RECORD_AUXTRACE:
		if (l->spe)
			return load_spe(l, &rec->u.auxtrace, err);
		l->info->other_auxtrace++;
		return 0;
	case PERFDATA_RECORD_AUXTRACE_INFO:
		/* {header; u32 type; u32 reserved; u64 priv[]}: type 4 is ARM_SPE */
		if (rec->raw_len >= 12) {
			uint32_t type;

			memcpy(&type, rec->raw + 8, sizeof(type));
			if (type == SPE_AUXTRACE_TYPE)
				l->spe = l->info->spe.present = true;
		}
		break;
	case PERFDATA_RECORD_AUX:
		if (l->spe && (rec->u.aux.flags & AUX_FLAG_TRUNCATED))
			l->info->spe.truncated++;
		break;
	case PERFDATA_RECORD_COMM:
		rc = tid_map_put(&l->tids, rec->u.comm.tid, rec->u.comm.pid, err);
		break;
	case PERFDATA_RECORD_FORK:
		rc = tid_map_put(&l->tids, rec->u.fork.tid, rec->u.fork.pid, err);
		break;
	default:
		break;
	}
	if (!rc && on_record)
		rc = on_record(ctx, rec, err);
	return rc;
}

int branch_load(struct perfdata *p, struct branch_agg *a, branch_record_fn *on_record, void *ctx,
		struct branch_load_info *info, struct tdp_err *err)
{
	struct branch_load_info dummy;
	struct load l;
	struct perfdata_record rec;
	int rc;

	if (!info)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	memset(&l, 0, sizeof(l));
	l.a = a;
	l.info = info;
	while ((rc = perfdata_next(p, &rec, err)) > 0) {
		rc = load_record(&l, &rec, on_record, ctx, err);
		if (rc < 0)
			break;
	}
	/* pipe mode learns its attrs while reading: describe them at the end */
	info->nr_attrs = perfdata_nr_attrs(p);
	for (size_t i = 0; i < info->nr_attrs; i++) {
		const struct perfdata_attr *at = perfdata_attr(p, i);

		if (!at || !perfdata_attr_has_branch_stack(at))
			continue;
		if (!info->nr_branch_attrs++) {
			info->branch_sample_type = at->branch_sample_type;
			info->event_name = at->name;
		}
	}
	tdp_free(l.tids.keys);
	tdp_free(l.tids.vals);
	return rc < 0 ? rc : 0;
}
