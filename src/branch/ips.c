/*
 * ips.c: plain samples counted by stack, then named and ranked (ips.h).
 *
 * One table holds every distinct stack key {pid, comm, ip, chain frames...}
 * with its samples; hot functions, hot lines and folded stacks are all derived
 * from it at the end, so a sample costs one hash lookup.
 */
#include "branch/ips.h"
#include "branch/annotate.h"

#include "base/alloc.h"
#include "base/err.h"
#include "perfdata/perfdata.h"

#include <stdlib.h>
#include <string.h>

/* PERF_CONTEXT_HV and below (include/uapi/linux/perf_event.h): markers, not addresses */
#define CONTEXT_MAX ((uint64_t)-4095)

struct stack {
	uint64_t hash;
	uint64_t samples;
	size_t off;        /* key in frames[]: ip, then the chain without markers */
	uint32_t len;      /* frames of the key (>= 1) */
	uint32_t pid;
	uint32_t thread;   /* index + 1 in threads (0: no tid) */
	uint32_t gen;      /* the thread's names seen (in file order) when it was sampled */
	bool chain;        /* the sample had a call chain */
};

/*
 * A thread's names: one per COMM record, in file order, and the name inherited
 * at FORK. The records of one CPU's buffer are in time order but not those of
 * two, so a sample may come before (in the file) the COMM that named its thread
 * earlier (in time): a stack keeps how many names its thread had when it was
 * read and is named at the end (thread_name()).
 */
/* Where perf's ordered records put a record: its flush, then its time (order_of()). */
struct order {
	uint32_t flush;
	uint64_t time;
};

struct thread {
	uint32_t fork_comm;
	uint32_t *comms;
	struct order *orders; /* each COMM's place in perf's order; {0, 0} when it has no time */
	size_t nr, alloc, alloc_orders;
};

struct ips_agg {
	const struct perfdata_attr *attr;
	uint64_t sample_type;  /* attr's (the reader may be closed before the end) */
	uint64_t samples, other, with_chain;

	struct stack *stacks;
	size_t nr_stacks, alloc_stacks;
	uint32_t *slots;   /* open addressing: stack index + 1, 0 empty */
	size_t nr_slots;
	uint64_t *frames;
	size_t nr_frames, alloc_frames;
	uint64_t *tmp;     /* the key being built */
	size_t alloc_tmp;

	/* the distinct addresses of all stacks (what is resolved at the end) */
	uint64_t *addrs;
	uint32_t *addr_pid;
	size_t nr_addrs, alloc_addrs, alloc_addr_pid;
	uint32_t *addr_slots; /* open addressing: index + 1, 0 empty */
	size_t nr_addr_slots;

	char **comms;      /* comms[0] = "[unknown]" */
	size_t nr_comms, alloc_comms;
	uint64_t *tids;    /* open addressing: (tid + 1) << 32 | thread index + 1, 0 empty */
	size_t nr_tids, tid_slots;
	struct thread *threads;
	size_t nr_threads, alloc_threads;

	branch_record_fn *next;
	void *next_ctx;

	/* perf's ordered records (order_of()) */
	uint32_t rounds;     /* FINISHED_ROUND records read */
	uint64_t max_time;   /* the largest time read so far */
	uint64_t flush_limit; /* max_time at the last FINISHED_ROUND */
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

int ips_agg_new(struct ips_agg **out, struct tdp_err *err)
{
	struct ips_agg *a = tdp_calloc(1, sizeof(*a));

	if (!a || TDP_GROW(a->comms, a->alloc_comms, 1) || !(a->comms[0] = tdp_strdup("[unknown]"))) {
		ips_agg_free(a);
		return tdp_err_oom(err);
	}
	a->nr_comms = 1;
	*out = a;
	return 0;
}

void ips_agg_free(struct ips_agg *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nr_comms; i++)
		tdp_free(a->comms[i]);
	tdp_free(a->comms);
	tdp_free(a->tids);
	for (size_t i = 0; i < a->nr_threads; i++) {
		tdp_free(a->threads[i].comms);
		tdp_free(a->threads[i].orders);
	}
	tdp_free(a->threads);
	tdp_free(a->stacks);
	tdp_free(a->slots);
	tdp_free(a->frames);
	tdp_free(a->tmp);
	tdp_free(a->addrs);
	tdp_free(a->addr_pid);
	tdp_free(a->addr_slots);
	tdp_free(a);
}

void ips_agg_chain(struct ips_agg *a, branch_record_fn *fn, void *ctx)
{
	a->next = fn;
	a->next_ctx = ctx;
}

uint64_t ips_agg_samples(const struct ips_agg *a)
{
	return a->samples;
}

/* ---- thread names ---- */

static uint32_t tid_thread(const struct ips_agg *a, uint32_t tid)
{
	if (!a->tid_slots)
		return 0;
	for (size_t i = mix(0, tid) & (a->tid_slots - 1);; i = (i + 1) & (a->tid_slots - 1)) {
		uint64_t v = a->tids[i];

		if (!v)
			return 0;
		if ((v >> 32) == (uint64_t)tid + 1)
			return (uint32_t)v;
	}
}

static int tid_put(struct ips_agg *a, uint32_t tid, uint32_t thread, struct tdp_err *err)
{
	if (2 * (a->nr_tids + 1) > a->tid_slots) {
		size_t n = a->tid_slots ? 2 * a->tid_slots : 256;
		uint64_t *t = tdp_calloc(n, sizeof(*t));

		if (!t)
			return tdp_err_oom(err);
		for (size_t i = 0; i < a->tid_slots; i++) {
			uint64_t v = a->tids[i];
			size_t j;

			if (!v)
				continue;
			for (j = mix(0, (v >> 32) - 1) & (n - 1); t[j]; j = (j + 1) & (n - 1))
				;
			t[j] = v;
		}
		tdp_free(a->tids);
		a->tids = t;
		a->tid_slots = n;
	}
	for (size_t i = mix(0, tid) & (a->tid_slots - 1);; i = (i + 1) & (a->tid_slots - 1)) {
		uint64_t v = a->tids[i];

		if (!v || (v >> 32) == (uint64_t)tid + 1) {
			a->nr_tids += !v;
			a->tids[i] = ((uint64_t)tid + 1) << 32 | thread;
			return 0;
		}
	}
}

static int comm_index(struct ips_agg *a, const char *s, size_t len, uint32_t *out, struct tdp_err *err)
{
	for (size_t i = 1; i < a->nr_comms; i++)
		if (strlen(a->comms[i]) == len && !memcmp(a->comms[i], s, len)) {
			*out = (uint32_t)i;
			return 0;
		}
	if (a->nr_comms >= IPS_MAX_COMMS) {
		*out = 0; /* beyond the limit, threads stay unnamed */
		return 0;
	}
	if (TDP_GROW(a->comms, a->alloc_comms, a->nr_comms + 1) ||
	    !(a->comms[a->nr_comms] = tdp_strndup(s, len)))
		return tdp_err_oom(err);
	*out = (uint32_t)a->nr_comms++;
	return 0;
}

/* *out = the thread of tid (index + 1), made when it is new (0: beyond IPS_MAX_THREADS, unnamed). */
static int thread_get(struct ips_agg *a, uint32_t tid, uint32_t *out, struct tdp_err *err)
{
	uint32_t t = tid_thread(a, tid);

	*out = t;
	if (t || a->nr_threads >= IPS_MAX_THREADS)
		return 0;
	if (TDP_GROW(a->threads, a->alloc_threads, a->nr_threads + 1))
		return tdp_err_oom(err);
	a->threads[a->nr_threads] = (struct thread){ 0, NULL, NULL, 0, 0, 0 };
	if (tid_put(a, tid, (uint32_t)a->nr_threads + 1, err))
		return TDP_ENOMEM;
	*out = (uint32_t)++a->nr_threads;
	return 0;
}

/*
 * Where perf processes a record of time `time` read now. perf queues records and, at
 * each FINISHED_ROUND, processes in time order those up to the largest time read
 * before the previous one (ordered-events.c): a record read in round r comes in
 * flush r when its time is within that limit, else in flush r + 1 (the end of the
 * file flushes the rest). Files without rounds: one flush, all by time.
 */
static struct order order_of(const struct ips_agg *a, uint64_t time)
{
	return (struct order){ a->rounds + (time > a->flush_limit), time };
}

static bool order_after(struct order x, struct order y)
{
	return x.flush != y.flush ? x.flush > y.flush : x.time > y.time;
}

/*
 * The names a thread had by a sample, as perf's report names it: the COMMs read so
 * far, less those perf processes after the sample. On a VM the CPUs' clocks can
 * disagree, and an exec's COMM may be read before samples whose times are earlier:
 * in one flush perf orders them by time, across flushes by flush.
 */
static uint32_t sample_gen(const struct ips_agg *a, const struct thread *t, const struct perfdata_sample *s)
{
	size_t g = t->nr;

	if (s->fields & PERFDATA_SAMPLE_TIME) {
		struct order o = order_of(a, s->time);

		while (g > 0 && order_after(t->orders[g - 1], o))
			g--;
	}
	return (uint32_t)g;
}

/* The name a stack's thread had: the last COMM read before its sample, else its first, else its parent's. */
static uint32_t thread_name(const struct ips_agg *a, uint32_t thread, uint32_t gen)
{
	const struct thread *t;

	if (!thread || thread > a->nr_threads)
		return 0;
	t = &a->threads[thread - 1];
	if (gen && gen <= t->nr)
		return t->comms[gen - 1];
	return t->nr ? t->comms[0] : t->fork_comm;
}

int ips_agg_record(void *ctx, const struct perfdata_record *rec, struct tdp_err *err)
{
	struct ips_agg *a = ctx;
	uint32_t c = 0, t;
	int rc = 0;

	if (rec->type == PERFDATA_RECORD_FINISHED_ROUND) {
		a->rounds++;
		a->flush_limit = a->max_time;
	}
	if ((rec->sid.fields & PERFDATA_SAMPLE_TIME) && rec->sid.time > a->max_time)
		a->max_time = rec->sid.time;

	if (rec->type == PERFDATA_RECORD_COMM) {
		t = 0;
		rc = comm_index(a, rec->u.comm.comm.s, rec->u.comm.comm.len, &c, err);
		if (!rc)
			rc = thread_get(a, rec->u.comm.tid, &t, err);
		if (!rc && t) {
			struct thread *th = &a->threads[t - 1];

			if (TDP_GROW(th->comms, th->alloc, th->nr + 1) || TDP_GROW(th->orders, th->alloc_orders, th->nr + 1)) {
				rc = tdp_err_oom(err);
			} else {
				th->orders[th->nr] = (rec->sid.fields & PERFDATA_SAMPLE_TIME) ? order_of(a, rec->sid.time)
											   : (struct order){ 0, 0 };
				th->comms[th->nr++] = c;
			}
		}
	} else if (rec->type == PERFDATA_RECORD_FORK && rec->u.fork.tid != rec->u.fork.ptid) {
		/* a new thread has its parent's name until it sets its own */
		uint32_t parent = tid_thread(a, rec->u.fork.ptid);

		c = parent ? thread_name(a, parent, (uint32_t)a->threads[parent - 1].nr) : 0;
		t = 0;
		if (c)
			rc = thread_get(a, rec->u.fork.tid, &t, err);
		if (!rc && t && !a->threads[t - 1].fork_comm)
			a->threads[t - 1].fork_comm = c;
	}
	if (!rc && a->next)
		rc = a->next(a->next_ctx, rec, err);
	return rc;
}

/* ---- stacks ---- */

static bool stack_eq(const struct ips_agg *a, const struct stack *s, uint64_t h, uint32_t pid, uint32_t thread,
		     uint32_t gen, bool chain, const uint64_t *k, size_t n)
{
	return s->hash == h && s->len == n && s->pid == pid && s->thread == thread && s->gen == gen &&
	       s->chain == chain &&
	       !memcmp(a->frames + s->off, k, n * sizeof(*k));
}

static int slots_grow(struct ips_agg *a, struct tdp_err *err)
{
	size_t n = a->nr_slots ? 2 * a->nr_slots : 1024;
	uint32_t *t = tdp_calloc(n, sizeof(*t));

	if (!t)
		return tdp_err_oom(err);
	for (size_t i = 0; i < a->nr_stacks; i++) {
		size_t j;

		for (j = a->stacks[i].hash & (n - 1); t[j]; j = (j + 1) & (n - 1))
			;
		t[j] = (uint32_t)i + 1;
	}
	tdp_free(a->slots);
	a->slots = t;
	a->nr_slots = n;
	return 0;
}

static int addr_slots_grow(struct ips_agg *a, struct tdp_err *err)
{
	size_t n = a->nr_addr_slots ? 2 * a->nr_addr_slots : 1024;
	uint32_t *t = tdp_calloc(n, sizeof(*t));

	if (!t)
		return tdp_err_oom(err);
	for (size_t i = 0; i < a->nr_addrs; i++) {
		size_t j;

		for (j = mix(0, a->addrs[i]) & (n - 1); t[j]; j = (j + 1) & (n - 1))
			;
		t[j] = (uint32_t)i + 1;
	}
	tdp_free(a->addr_slots);
	a->addr_slots = t;
	a->nr_addr_slots = n;
	return 0;
}

/* Keep addr (first seen in pid) in the set of distinct addresses. */
static int addr_add(struct ips_agg *a, uint64_t addr, uint32_t pid, struct tdp_err *err)
{
	size_t i;

	if (2 * (a->nr_addrs + 1) > a->nr_addr_slots && addr_slots_grow(a, err))
		return TDP_ENOMEM;
	for (i = mix(0, addr) & (a->nr_addr_slots - 1); a->addr_slots[i]; i = (i + 1) & (a->nr_addr_slots - 1))
		if (a->addrs[a->addr_slots[i] - 1] == addr)
			return 0;
	if (a->nr_addrs >= IPS_MAX_ADDRS)
		return tdp_err_set(err, TDP_ELIMIT, "more than %u distinct sampled addresses (IPS_MAX_ADDRS)",
				   IPS_MAX_ADDRS);
	if (TDP_GROW(a->addrs, a->alloc_addrs, a->nr_addrs + 1) ||
	    TDP_GROW(a->addr_pid, a->alloc_addr_pid, a->nr_addrs + 1))
		return tdp_err_oom(err);
	a->addrs[a->nr_addrs] = addr;
	a->addr_pid[a->nr_addrs] = pid;
	a->addr_slots[i] = (uint32_t)++a->nr_addrs;
	return 0;
}

static int stack_add(struct ips_agg *a, uint32_t pid, uint32_t thread, uint32_t gen, bool chain, const uint64_t *k,
		     size_t n, struct tdp_err *err)
{
	uint64_t h = mix(mix(mix(mix(0, pid), thread), gen), chain);
	size_t i;

	for (size_t j = 0; j < n; j++)
		h = mix(h, k[j]);
	if (2 * (a->nr_stacks + 1) > a->nr_slots && slots_grow(a, err))
		return TDP_ENOMEM;
	for (i = h & (a->nr_slots - 1); a->slots[i]; i = (i + 1) & (a->nr_slots - 1)) {
		struct stack *s = &a->stacks[a->slots[i] - 1];

		if (stack_eq(a, s, h, pid, thread, gen, chain, k, n)) {
			s->samples++;
			return 0;
		}
	}
	if (a->nr_stacks >= IPS_MAX_STACKS)
		return tdp_err_set(err, TDP_ELIMIT, "more than %u distinct sampled stacks (IPS_MAX_STACKS)",
				   IPS_MAX_STACKS);
	if (n > IPS_MAX_FRAMES - a->nr_frames)
		return tdp_err_set(err, TDP_ELIMIT, "more than %u frames in the distinct sampled stacks "
				   "(IPS_MAX_FRAMES)", IPS_MAX_FRAMES);
	for (size_t j = 0; j < n; j++) {
		int rc = addr_add(a, k[j], pid, err);

		if (rc)
			return rc;
	}
	if (TDP_GROW(a->stacks, a->alloc_stacks, a->nr_stacks + 1) ||
	    TDP_GROW(a->frames, a->alloc_frames, a->nr_frames + n))
		return tdp_err_oom(err);
	memcpy(a->frames + a->nr_frames, k, n * sizeof(*k));
	a->stacks[a->nr_stacks] = (struct stack){ h, 1, a->nr_frames, (uint32_t)n, pid, thread, gen, chain };
	a->nr_frames += n;
	a->slots[i] = (uint32_t)++a->nr_stacks;
	return 0;
}

int ips_agg_sample(void *ctx, const struct perfdata_record *rec, struct tdp_err *err)
{
	struct ips_agg *a = ctx;
	const struct perfdata_sample *s = &rec->u.sample;
	bool chain = (s->fields & PERFDATA_SAMPLE_CALLCHAIN) != 0;
	uint32_t pid = (s->fields & PERFDATA_SAMPLE_TID) ? s->pid : BRANCH_PID_NONE;
	uint32_t thread = 0, gen = 0;
	size_t n = 0;

	if ((s->fields & PERFDATA_SAMPLE_TIME) && s->time > a->max_time)
		a->max_time = s->time; /* after this sample's own place (order_of() reads the limit, not this) */
	if (!rec->attr)
		return 0;
	if (!a->attr) {
		a->attr = rec->attr;
		a->sample_type = rec->attr->sample_type;
	}
	if (rec->attr != a->attr) {
		a->other++;
		return 0;
	}
	a->samples++;
	if (s->fields & PERFDATA_SAMPLE_TID) {
		/* made now, so that a COMM read later still names it */
		if (thread_get(a, s->tid, &thread, err))
			return TDP_ENOMEM;
		gen = thread ? sample_gen(a, &a->threads[thread - 1], s) : 0;
	}
	if (TDP_GROW(a->tmp, a->alloc_tmp, 1 + (chain ? s->nr_callchain : 0)))
		return tdp_err_oom(err);
	a->tmp[n++] = (s->fields & PERFDATA_SAMPLE_IP) ? s->ip : 0;
	if (chain) {
		a->with_chain++;
		for (size_t i = 0; i < s->nr_callchain; i++)
			if (s->callchain[i] < CONTEXT_MAX)
				a->tmp[n++] = s->callchain[i];
	}
	return stack_add(a, pid, thread, gen, chain, a->tmp, n, err);
}

/* ---- naming and ranking ---- */

static int by_edge_addr(const void *x, const void *y)
{
	const struct branch_edge *a = x, *b = y;

	return a->from < b->from ? -1 : a->from > b->from;
}

/* Resolve every distinct address: one branch_annot_run() over them as one-address edges. */
static int resolve(struct ips_agg *a, struct branch_annot *an, struct tdp_err *err)
{
	struct branch_result r = BRANCH_RESULT_INIT;
	struct branch_edge *e = tdp_calloc(a->nr_addrs + 1, sizeof(*e));
	int rc;

	if (!e)
		return tdp_err_oom(err);
	for (size_t i = 0; i < a->nr_addrs; i++)
		e[i] = (struct branch_edge){ .from = a->addrs[i], .to = a->addrs[i], .count = 1, .pid = a->addr_pid[i] };
	qsort(e, a->nr_addrs, sizeof(*e), by_edge_addr);
	r.edges = e;
	r.nr_edges = a->nr_addrs;
	rc = branch_annot_run(an, &r, err);
	branch_result_release(&r); /* e, and the types branch_annot_run() added */
	return rc;
}

static int fn_cmp(const void *x, const void *y)
{
	const struct ips_function *a = x, *b = y;

	if (a->self != b->self)
		return a->self > b->self ? -1 : 1;
	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return strcmp(a->perf_text, b->perf_text);
}

static int functions(struct ips_agg *a, const struct branch_symbols *sy, struct ips_result *out, struct tdp_err *err)
{
	uint32_t *row = tdp_calloc(sy->nr_locs + 1, sizeof(*row));   /* group -> row + 1 */
	size_t *seen = tdp_calloc(sy->nr_locs + 1, sizeof(*seen));   /* row -> last stack + 1 */
	struct ips_function *f = tdp_calloc(sy->nr_locs + 1, sizeof(*f));
	size_t nr = 0;

	if (!row || !seen || !f) {
		tdp_free(row);
		tdp_free(seen);
		tdp_free(f);
		return tdp_err_oom(err);
	}
	for (size_t i = 0; i < a->nr_stacks; i++) {
		const struct stack *s = &a->stacks[i];

		for (size_t k = 0; k < s->len; k++) {
			const struct branch_loc *l = branch_symbols_find(sy, a->frames[s->off + k]);
			uint32_t g;
			struct ips_function *r;

			if (!l)
				continue;
			g = l->group < sy->nr_locs ? l->group : (uint32_t)(l - sy->locs);
			if (!row[g]) {
				f[nr] = (struct ips_function){ l->perf_text, l->resolved ? l->function : NULL, l->dso,
							       l->kernel, l->addr, 0, 0, 0, 0 };
				row[g] = (uint32_t)++nr;
			}
			r = &f[row[g] - 1];
			if (l->addr < r->addr)
				r->addr = l->addr;
			if (k == 0)
				r->self += s->samples;
			/* each sample once per function in its chain (the ip is its first frame) */
			if (seen[row[g] - 1] != i + 1 && (k == 0 || s->chain)) {
				seen[row[g] - 1] = i + 1;
				r->total += s->samples;
			}
		}
	}
	tdp_free(row);
	tdp_free(seen);
	qsort(f, nr, sizeof(*f), fn_cmp);
	out->functions = f;
	out->nr_functions = nr;
	return 0;
}

static int line_key_cmp(const void *x, const void *y)
{
	const struct ips_line *a = x, *b = y;
	int c = strcmp(a->file, b->file);

	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return strcmp(a->function ? a->function : "", b->function ? b->function : "");
}

static int line_cmp(const void *x, const void *y)
{
	const struct ips_line *a = x, *b = y;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return line_key_cmp(x, y);
}

static int lines(struct ips_agg *a, const struct branch_symbols *sy, struct ips_result *out, struct tdp_err *err)
{
	struct ips_line *v = tdp_calloc(a->nr_stacks + 1, sizeof(*v));
	size_t n = 0, m = 0;

	if (!v)
		return tdp_err_oom(err);
	for (size_t i = 0; i < a->nr_stacks; i++) {
		const struct branch_loc *l = branch_symbols_find(sy, a->frames[a->stacks[i].off]);
		const char *fn;

		if (!l || !l->file || !l->line)
			continue;
		fn = l->nr_inlines && l->inlines[0].function ? l->inlines[0].function : l->function;
		v[n++] = (struct ips_line){ l->file, l->line, fn, a->stacks[i].samples, 0 };
		out->lines_known += a->stacks[i].samples;
	}
	qsort(v, n, sizeof(*v), line_key_cmp);
	for (size_t i = 0; i < n; i++) {
		if (m && !line_key_cmp(&v[m - 1], &v[i]))
			v[m - 1].samples += v[i].samples;
		else
			v[m++] = v[i];
	}
	qsort(v, m, sizeof(*v), line_cmp);
	out->lines = v;
	out->nr_lines = m;
	return 0;
}

static int names_cmp(const struct ips_stack *a, const struct ips_stack *b)
{
	int c = strcmp(a->comm, b->comm);

	if (c)
		return c;
	for (size_t i = 0; i < a->nr_frames && i < b->nr_frames; i++)
		if ((c = strcmp(a->frames[i], b->frames[i])))
			return c;
	return a->nr_frames < b->nr_frames ? -1 : a->nr_frames > b->nr_frames;
}

static int stack_key_cmp(const void *x, const void *y)
{
	return names_cmp(x, y);
}

static int stack_cmp(const void *x, const void *y)
{
	const struct ips_stack *a = x, *b = y;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return names_cmp(a, b);
}

/* Folded stacks: the names of the frames outermost first, merged when the names are the same. */
static int stacks(struct ips_agg *a, const struct branch_symbols *sy, struct ips_result *out, struct tdp_err *err)
{
	struct ips_stack *v = tdp_calloc(a->nr_stacks + 1, sizeof(*v));
	const char **names = tdp_calloc(a->nr_frames + 1, sizeof(*names));
	size_t at = 0, m = 0;

	if (!v || !names) {
		tdp_free(v);
		tdp_free(names);
		return tdp_err_oom(err);
	}
	for (size_t i = 0; i < a->nr_stacks; i++) {
		const struct stack *s = &a->stacks[i];
		/* with a chain, perf script prints the chain (the ip is its first entry) */
		size_t first = s->chain && s->len > 1 ? 1 : 0, n = s->len - first;

		for (size_t k = 0; k < n; k++) {
			const struct branch_loc *l = branch_symbols_find(sy, a->frames[s->off + s->len - 1 - k]);

			names[at + k] = l && l->resolved && l->function ? l->function : "[unknown]";
		}
		uint32_t c = thread_name(a, s->thread, s->gen);

		v[i] = (struct ips_stack){ a->comms[c < a->nr_comms ? c : 0], names + at, n, s->samples, 0 };
		at += n;
	}
	qsort(v, a->nr_stacks, sizeof(*v), stack_key_cmp);
	for (size_t i = 0; i < a->nr_stacks; i++) {
		if (m && !names_cmp(&v[m - 1], &v[i]))
			v[m - 1].samples += v[i].samples;
		else
			v[m++] = v[i];
	}
	qsort(v, m, sizeof(*v), stack_cmp);
	out->stacks = v;
	out->nr_stacks = m;
	out->frame_names = names;
	return 0;
}

static int ip_cmp(const void *x, const void *y)
{
	const struct ips_ip *a = x, *b = y;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

int ips_agg_ips(const struct ips_agg *a, struct ips_ip **out, size_t *nr, struct tdp_err *err)
{
	struct ips_ip *v;
	size_t m = 0;

	*out = NULL;
	*nr = 0;
	if (!a->nr_stacks)
		return 0;
	v = tdp_calloc(a->nr_stacks, sizeof(*v));
	if (!v)
		return tdp_err_oom(err);
	for (size_t i = 0; i < a->nr_stacks; i++)
		v[i] = (struct ips_ip){ a->frames[a->stacks[i].off], a->stacks[i].pid, a->stacks[i].samples };
	qsort(v, a->nr_stacks, sizeof(*v), ip_cmp);
	for (size_t i = 0; i < a->nr_stacks; i++) {
		if (m && v[m - 1].addr == v[i].addr && v[m - 1].pid == v[i].pid)
			v[m - 1].samples += v[i].samples;
		else
			v[m++] = v[i];
	}
	*out = v;
	*nr = m;
	return 0;
}

int ips_agg_finish(struct ips_agg *a, struct branch_annot *an, struct ips_result *out, struct tdp_err *err)
{
	const struct branch_symbols *sy;
	int rc;

	memset(out, 0, sizeof(*out));
	out->attr = a->attr;
	out->samples = a->samples;
	out->other_samples = a->other;
	out->with_callchain = a->with_chain;
	out->callchains = (a->sample_type & PERFDATA_SAMPLE_CALLCHAIN) != 0;
	rc = resolve(a, an, err);
	if (rc)
		return rc;
	sy = branch_annot_symbols(an);
	rc = functions(a, sy, out, err);
	if (!rc)
		rc = lines(a, sy, out, err);
	if (!rc)
		rc = stacks(a, sy, out, err);
	if (rc) {
		ips_result_release(out);
		return rc;
	}
	out->symbolizer = sy->symbolizer;
	out->nr_addrs = sy->nr_locs;
	out->nr_resolved = sy->nr_resolved;
	if (out->samples) {
		double n = (double)out->samples;

		for (size_t i = 0; i < out->nr_functions; i++) {
			out->functions[i].self_share = (double)out->functions[i].self / n;
			out->functions[i].total_share = (double)out->functions[i].total / n;
		}
		for (size_t i = 0; i < out->nr_lines; i++)
			out->lines[i].share = (double)out->lines[i].samples / n;
		for (size_t i = 0; i < out->nr_stacks; i++)
			out->stacks[i].share = (double)out->stacks[i].samples / n;
	}
	return 0;
}

void ips_result_release(struct ips_result *r)
{
	tdp_free(r->functions);
	tdp_free(r->lines);
	tdp_free(r->stacks);
	tdp_free((void *)r->frame_names);
	memset(r, 0, sizeof(*r));
}
