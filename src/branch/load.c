/*
 * load.c: one pass over a perf.data into an aggregator (branch_load(), branch.h):
 * samples with branch stacks, lost counts, and Arm SPE trace decoded into
 * one-entry stacks.
 *
 * A reader opened with PERFDATA_OPEN_RAW_BRANCHES leaves each stack in its
 * record: it is decoded in the loop that counts it (branch_agg_add_raw()), one
 * pass over the record bytes instead of a decoding pass and a counting pass.
 *
 * Threaded mode: decoding (the perf.data reader, SPE) stays on the caller's
 * thread and every stack is queued in a chunk; full chunks go, in order,
 * through a ring of LOAD_CHUNKS to one aggregating thread. Only that thread
 * touches the aggregator until it is joined; the counts kept while decoding are
 * added at the end. The aggregator sees the stacks in file order either way, so
 * both modes give the same result.
 *
 * A raw stack of an image in memory (perfdata_records_stable()) is queued as a
 * pointer into the image: copying it was a fifth of the CPU time of a large
 * report (issue 21). The prefault helper is then told the aggregator's position,
 * not the reader's, so that it never releases pages the aggregator is still to
 * read. A stream's buffer is reused, so its stacks are copied.
 */
#include "branch/branch-internal.h"
#include "branch/spe.h"
#include "base/alloc.h"
#include "base/err.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

/* AUX record flag: the kernel dropped trace data (PERF_AUX_FLAG_TRUNCATED). */
#define AUX_FLAG_TRUNCATED 0x01ull
/* Chunks in flight between the two threads, and stacks per chunk. */
#define LOAD_CHUNKS 4
#define CHUNK_STACKS (1u << 14)
/* Reading progress is passed to the prefault helper in steps of this. */
#define PREFAULT_TELL (1u << 20)

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

/* ---- the pipeline to the aggregating thread ---- */

/*
 * A stack in a chunk: nr entries at off of ent[] (decoded), or of raw[] (24 bytes
 * each) when raw, or at in_place (raw bytes left in the image) when that is set.
 */
struct stack_ref {
	const uint8_t *in_place;
	uint32_t off, nr, pid;
	bool raw;
};

struct chunk {
	struct branch_entry *ent;
	uint8_t *raw;              /* BRANCH_CHUNK_ENTRIES perf_branch_entry records */
	struct stack_ref *st;
	size_t nr_ent, nr_raw, nr_st;
	uint64_t end_off;          /* file offset of the record after its last stack */
	bool full;                 /* handed to the aggregating thread (under mu) */
};

struct pipeline {
	struct branch_agg *a;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct chunk c[LOAD_CHUNKS];
	size_t fill;               /* the chunk being filled (decoding thread only) */
	bool done;                 /* no more chunks (under mu) */
	bool in_place;             /* raw stacks are queued as pointers into the image */
	_Atomic uint64_t consumed; /* file offset the aggregating thread has read up to */
	int rc;                    /* the aggregating thread's error (under mu) */
	struct tdp_err err;        /* its message (read after the join) */
};

static void *pipeline_run(void *arg)
{
	struct pipeline *pl = arg;
	size_t i = 0;

	pthread_mutex_lock(&pl->mu);
	for (;;) {
		struct chunk *c = &pl->c[i];
		int rc = 0;

		while (!c->full && !pl->done)
			pthread_cond_wait(&pl->cv, &pl->mu);
		if (!c->full)
			break;
		pthread_mutex_unlock(&pl->mu);
		for (size_t k = 0; k < c->nr_st && !rc && !pl->rc; k++) {
			const struct stack_ref *r = &c->st[k];

			if (r->in_place)
				rc = branch_agg_add_raw(pl->a, r->in_place, r->nr, r->pid, &pl->err);
			else if (r->raw)
				rc = branch_agg_add_raw(pl->a, c->raw + 24 * (size_t)r->off, r->nr, r->pid, &pl->err);
			else
				rc = branch_agg_add_stack(pl->a, c->ent + r->off, r->nr, r->pid, &pl->err);
		}
		atomic_store_explicit(&pl->consumed, c->end_off, memory_order_relaxed);
		pthread_mutex_lock(&pl->mu);
		if (rc && !pl->rc)
			pl->rc = rc;
		c->nr_ent = c->nr_raw = c->nr_st = 0;
		c->full = false;
		pthread_cond_broadcast(&pl->cv);
		i = (i + 1) % LOAD_CHUNKS;
	}
	pthread_mutex_unlock(&pl->mu);
	return NULL;
}

/* Hand the chunk being filled over and wait for the next one to be free. */
static int pipeline_hand_off(struct pipeline *pl)
{
	int rc;

	pthread_mutex_lock(&pl->mu);
	pl->c[pl->fill].full = true;
	pthread_cond_broadcast(&pl->cv);
	pl->fill = (pl->fill + 1) % LOAD_CHUNKS;
	while (pl->c[pl->fill].full && !pl->rc)
		pthread_cond_wait(&pl->cv, &pl->mu);
	rc = pl->rc;
	pthread_mutex_unlock(&pl->mu);
	return rc;
}

/*
 * Queue a stack: nr decoded entries e, or (e NULL) nr perf_branch_entry records at
 * raw, of the record ending at file offset end_off. A raw stack counts against the
 * chunk's entries even when it stays in place, which bounds how far the
 * aggregating thread lags behind the reader.
 */
static int pipeline_push(struct pipeline *pl, const struct branch_entry *e, const uint8_t *raw, size_t nr,
			 uint32_t pid, uint64_t end_off)
{
	struct chunk *c = &pl->c[pl->fill];
	bool is_raw = !e && raw;

	if (nr > BRANCH_CHUNK_ENTRIES)
		return TDP_ELIMIT; /* cannot happen: the reader caps stacks at BRSTACK_MAX_NR */
	if ((is_raw ? c->nr_raw : c->nr_ent) + nr > BRANCH_CHUNK_ENTRIES || c->nr_st == CHUNK_STACKS) {
		int rc = pipeline_hand_off(pl);

		if (rc)
			return rc;
		c = &pl->c[pl->fill];
	}
	/* an empty stack's entries may be NULL (the reader has not allocated yet) */
	if (is_raw && pl->in_place) {
		c->st[c->nr_st++] = (struct stack_ref){ raw, 0, (uint32_t)nr, pid, true };
		c->nr_raw += nr;
	} else if (is_raw) {
		if (nr)
			memcpy(c->raw + 24 * c->nr_raw, raw, nr * 24);
		c->st[c->nr_st++] = (struct stack_ref){ NULL, (uint32_t)c->nr_raw, (uint32_t)nr, pid, true };
		c->nr_raw += nr;
	} else {
		if (nr)
			memcpy(c->ent + c->nr_ent, e, nr * sizeof(*e));
		c->st[c->nr_st++] = (struct stack_ref){ NULL, (uint32_t)c->nr_ent, (uint32_t)nr, pid, false };
		c->nr_ent += nr;
	}
	c->end_off = end_off;
	return 0;
}

static void pipeline_free(struct pipeline *pl)
{
	for (size_t i = 0; i < LOAD_CHUNKS; i++) {
		tdp_free(pl->c[i].ent);
		tdp_free(pl->c[i].raw);
		tdp_free(pl->c[i].st);
	}
	tdp_free(pl);
}

/*
 * A started pipeline, or NULL when it cannot be had (then load on one thread).
 * in_place: raw stacks are left in the image (their copy buffer is not allocated).
 */
static struct pipeline *pipeline_start(struct branch_agg *a, bool in_place)
{
	struct pipeline *pl = tdp_calloc(1, sizeof(*pl));

	if (!pl)
		return NULL;
	pl->a = a;
	pl->in_place = in_place;
	atomic_init(&pl->consumed, 0);
	for (size_t i = 0; i < LOAD_CHUNKS; i++) {
		pl->c[i].ent = tdp_calloc(BRANCH_CHUNK_ENTRIES, sizeof(*pl->c[i].ent));
		pl->c[i].raw = in_place ? NULL : tdp_calloc(BRANCH_CHUNK_ENTRIES, 24);
		pl->c[i].st = tdp_calloc(CHUNK_STACKS, sizeof(*pl->c[i].st));
		if (!pl->c[i].ent || (!in_place && !pl->c[i].raw) || !pl->c[i].st) {
			pipeline_free(pl);
			return NULL;
		}
	}
	if (pthread_mutex_init(&pl->mu, NULL)) {
		pipeline_free(pl);
		return NULL;
	}
	if (pthread_cond_init(&pl->cv, NULL)) {
		pthread_mutex_destroy(&pl->mu);
		pipeline_free(pl);
		return NULL;
	}
	if (pthread_create(&pl->thread, NULL, pipeline_run, pl)) {
		pthread_cond_destroy(&pl->cv);
		pthread_mutex_destroy(&pl->mu);
		pipeline_free(pl);
		return NULL;
	}
	return pl;
}

/* Hand over what is left, wait for the aggregating thread, free. Returns its error. */
static int pipeline_finish(struct pipeline *pl, struct tdp_err *err)
{
	int rc;

	pthread_mutex_lock(&pl->mu);
	if (pl->c[pl->fill].nr_st)
		pl->c[pl->fill].full = true;
	pl->done = true;
	pthread_cond_broadcast(&pl->cv);
	pthread_mutex_unlock(&pl->mu);
	pthread_join(pl->thread, NULL);
	rc = pl->rc;
	if (rc && err && !err->code)
		*err = pl->err;
	pthread_cond_destroy(&pl->cv);
	pthread_mutex_destroy(&pl->mu);
	pipeline_free(pl);
	return rc;
}

/* ---- decoding ---- */

struct load {
	struct branch_agg *a;
	struct pipeline *pl;          /* NULL: aggregate here */
	struct branch_load_info *info;
	struct branch_counts counts;  /* samples and lost, added to a at the end */
	struct tid_map tids;
	uint64_t rec_end;             /* file offset after the record being loaded */
	bool spe;
};

static int load_stack(struct load *l, const struct branch_entry *e, size_t nr, uint32_t pid, struct tdp_err *err)
{
	l->counts.samples_with_stack++;
	l->counts.samples_empty_stack += nr == 0;
	if (l->pl)
		return pipeline_push(l->pl, e, NULL, nr, pid, l->rec_end);
	return branch_agg_add_stack(l->a, e, nr, pid, err);
}

/* A stack left in the record (PERFDATA_OPEN_RAW_BRANCHES): decoded where it is counted. */
static int load_raw_stack(struct load *l, const uint8_t *raw, size_t nr, uint32_t pid, struct tdp_err *err)
{
	l->counts.samples_with_stack++;
	if (l->pl)
		return pipeline_push(l->pl, NULL, raw, nr, pid, l->rec_end);
	return branch_agg_add_raw(l->a, raw, nr, pid, err);
}

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
		rc = load_stack(l, &e, 1, pid, err);
	}
	l->info->spe.auxtrace_bytes += at->size;
	l->info->spe.records += d.stats.records;
	l->info->spe.bad_bytes += d.stats.bad_bytes;
	l->info->spe.truncated += d.stats.truncated;
	l->counts.samples += d.stats.records;
	return rc;
}

static int load_record(struct load *l, const struct perfdata_record *rec, const struct branch_load_opts *o,
		       struct tdp_err *err)
{
	const struct perfdata_sample *s = &rec->u.sample;
	int rc = 0;

	l->rec_end = rec->offset + rec->raw_len;
	switch (rec->type) {
	case PERFDATA_RECORD_SAMPLE:
		l->counts.samples++;
		if (!rec->attr || !(s->fields & PERFDATA_SAMPLE_BRANCH_STACK))
			return rec->attr && o->on_plain_sample ? o->on_plain_sample(o->sample_ctx, rec, err) : 0;
		if (!s->branches && s->nr_branches)
			return load_raw_stack(l, s->branch_raw, s->nr_branches,
					      (s->fields & PERFDATA_SAMPLE_TID) ? s->pid : BRANCH_PID_NONE, err);
		return load_stack(l, s->branches, s->nr_branches,
				  (s->fields & PERFDATA_SAMPLE_TID) ? s->pid : BRANCH_PID_NONE, err);
	case PERFDATA_RECORD_LOST:
		l->counts.lost += rec->u.lost.lost;
		return 0;
	case PERFDATA_RECORD_LOST_SAMPLES:
		l->counts.lost_samples += rec->u.lost.lost;
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
	if (!rc && o->on_record)
		rc = o->on_record(o->ctx, rec, err);
	return rc;
}

int branch_load(struct perfdata *p, struct branch_agg *a, const struct branch_load_opts *o,
		struct branch_load_info *info, struct tdp_err *err)
{
	static const struct branch_load_opts none;
	struct branch_load_info dummy;
	struct load l;
	struct perfdata_record rec;
	size_t keep = (size_t)perfdata_data_offset(p), told = 0;
	int rc, prc = 0;

	if (!o)
		o = &none;
	if (!info)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	memset(&l, 0, sizeof(l));
	l.a = a;
	l.info = info;
	if (o->threaded)
		l.pl = pipeline_start(a, perfdata_records_stable(p));
	while ((rc = perfdata_next(p, &rec, err)) > 0) {
		rc = load_record(&l, &rec, o, err);
		if (rc < 0)
			break;
		/* the helper works in steps of megabytes: tell it every PREFAULT_TELL bytes how far
		 * both threads got (stacks left in place are read by the aggregating one) */
		if (o->pf && rec.offset - told >= PREFAULT_TELL) {
			uint64_t at = rec.offset;

			if (l.pl && l.pl->in_place) {
				uint64_t agg = atomic_load_explicit(&l.pl->consumed, memory_order_relaxed);

				at = agg < at ? agg : at;
			}
			if (at > told) {
				told = (size_t)at;
				branch_prefault_progress(o->pf, told, keep);
			}
		}
	}
	if (l.pl)
		prc = pipeline_finish(l.pl, err);
	if (!rc)
		rc = prc;
	a->counts.samples += l.counts.samples;
	a->counts.samples_with_stack += l.counts.samples_with_stack;
	a->counts.samples_empty_stack += l.counts.samples_empty_stack;
	a->counts.lost += l.counts.lost;
	a->counts.lost_samples += l.counts.lost_samples;
	/* pipe mode learns its attrs while reading: describe them at the end */
	info->nr_attrs = perfdata_nr_attrs(p);
	for (size_t i = 0; i < info->nr_attrs; i++) {
		const struct perfdata_attr *at = perfdata_attr(p, i);

		/* SPE's own event is of a dynamic PMU type (>= PERF_TYPE_MAX, 6); its config1 is the
		 * event filter (formats.md §3.4) */
		if (at && info->spe.present && at->type >= 6 && (at->config1 & SPE_EVFR_MISPREDICTED))
			info->spe.mispred_only = true;
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
