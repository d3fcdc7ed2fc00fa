/*
 * drill-pmu-data.c: the data addresses of a drill-down's samples (a precise load
 * or store event recorded with PERF_SAMPLE_ADDR, as perf record -d does; see
 * drill-pmu.h): the cache lines they touched most, the recorded mapping each is in
 * ([heap], [stack], a file) and the code line that touched it most.
 */
#include "diagnose/drill-pmu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "branch/spe.h"
#include "diagnose/drill-pmu-internal.h"
#include "perfdata/perfdata.h"
#include "symbol/symbol.h"

#define DPMU_MAX_DMAPS 65536 /* data mappings kept (a process maps a few hundred) */
#define DPMU_MAX_TIDS 65536  /* threads whose process SPE's CONTEXT needs (thread ids) */

/* A data line: its samples, and the instruction that touched it most (counted in a small slot set). */
struct dline {
	uint64_t line;
	uint32_t pid;
	bool used;
	uint64_t samples;
	uint64_t ip[4], ip_n[4];   /* the first four instructions seen touching it, with their samples */
	uint64_t lat_sum, lat_n;   /* SPE: total latencies of its loads (cycles) */
};

struct dmap {
	uint32_t pid;
	uint64_t start, len, pgoff;
	char name[96];
	bool file;
};

struct tid_pid {
	uint32_t tid, pid;
};

struct dpmu_data {
	struct dline *v;
	size_t nr, cap;
	struct dmap *maps;
	size_t nr_maps, maps_alloc;
	struct tid_pid *tids;      /* SPE: threads to processes (COMM, FORK) */
	size_t nr_tids, tids_alloc;
};

static size_t dhash(uint64_t line, uint32_t pid, size_t mask)
{
	uint64_t h = (line ^ ((uint64_t)pid << 40)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 17) & mask;
}

static int dgrow(struct dpmu_data *t, struct tdp_err *err)
{
	size_t cap = t->cap ? 2 * t->cap : 1024, j;
	struct dline *v = tdp_calloc(cap, sizeof(*v));

	if (!v)
		return tdp_err_oom(err);
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->v[i].used)
			continue;
		for (j = dhash(t->v[i].line, t->v[i].pid, cap - 1); v[j].used; j = (j + 1) & (cap - 1))
			;
		v[j] = t->v[i];
	}
	tdp_free(t->v);
	t->v = v;
	t->cap = cap;
	return 0;
}

static struct dpmu_data *data_of(struct dpmu *s)
{
	return s->data ? s->data : (s->data = tdp_calloc(1, sizeof(*s->data)));
}

int dpmu_data_sample(struct dpmu *s, uint32_t pid, uint64_t ip, uint64_t addr, int latency, struct tdp_err *err)
{
	struct dpmu_data *t = s->data;
	uint64_t line = addr / DIAG_PMU_CACHE_LINE * DIAG_PMU_CACHE_LINE;
	struct dline *l;
	size_t j;

	if (!t && !(t = s->data = tdp_calloc(1, sizeof(*t))))
		return tdp_err_oom(err);
	s->d->sampling.data_addr = true;
	if (!addr) /* the event gave none for this sample (not a memory access, or no address support) */
		return 0;
	s->d->sampling.with_addr++;
	if (2 * (t->nr + 1) > t->cap) {
		if (t->nr >= DIAG_PMU_MAX_ADDRS)
			return tdp_err_set(err, TDP_ELIMIT, "the drill-down's recording has more than %u distinct "
					   "data lines", DIAG_PMU_MAX_ADDRS);
		if (dgrow(t, err))
			return TDP_ENOMEM;
	}
	for (j = dhash(line, pid, t->cap - 1); t->v[j].used && (t->v[j].line != line || t->v[j].pid != pid);
	     j = (j + 1) & (t->cap - 1))
		;
	l = &t->v[j];
	if (!l->used) {
		*l = (struct dline){ .line = line, .pid = pid, .used = true };
		t->nr++;
	}
	l->samples++;
	if (latency >= 0) {
		l->lat_sum += (uint64_t)latency;
		l->lat_n++;
	}
	for (size_t k = 0; k < 4; k++)
		if (!l->ip_n[k] || l->ip[k] == ip) {
			l->ip[k] = ip;
			l->ip_n[k]++;
			break;
		}
	return 0;
}

int dpmu_data_mmap(struct dpmu *s, const struct perfdata_mmap *m, struct tdp_err *err)
{
	struct dpmu_data *t = s->data;
	struct dmap *d;
	const char *base;
	size_t n;

	if (!t && !(t = s->data = tdp_calloc(1, sizeof(*t))))
		return tdp_err_oom(err);
	if (t->nr_maps >= DPMU_MAX_DMAPS || !m->len)
		return 0;
	if (TDP_GROW(t->maps, t->maps_alloc, t->nr_maps + 1))
		return tdp_err_oom(err);
	d = &t->maps[t->nr_maps++];
	*d = (struct dmap){ .pid = m->pid, .start = m->start, .len = m->len, .pgoff = m->pgoff };
	n = m->filename.len < sizeof(d->name) ? m->filename.len : sizeof(d->name) - 1;
	memcpy(d->name, m->filename.s, n);
	d->name[n] = '\0';
	d->name[strcspn(d->name, "\n")] = '\0';
	d->file = d->name[0] == '/';
	if (d->file && (base = strrchr(d->name, '/')) && base[1])
		memmove(d->name, base + 1, strlen(base + 1) + 1);
	else if (!d->name[0] || !strncmp(d->name, "//anon", 6))
		snprintf(d->name, sizeof(d->name), "anonymous");
	return 0;
}

static uint32_t pid_of(const struct dpmu_data *t, uint32_t tid)
{
	for (size_t i = t->nr_tids; i-- > 0;)
		if (t->tids[i].tid == tid)
			return t->tids[i].pid;
	return tid; /* a main thread's id is its process's */
}

static int add_tid(struct dpmu_data *t, uint32_t tid, uint32_t pid, struct tdp_err *err)
{
	if (tid == pid || t->nr_tids >= DPMU_MAX_TIDS)
		return 0;
	if (TDP_GROW(t->tids, t->tids_alloc, t->nr_tids + 1))
		return tdp_err_oom(err);
	t->tids[t->nr_tids++] = (struct tid_pid){ tid, pid };
	return 0;
}

int dpmu_data_spe(struct dpmu *s, const struct perfdata_record *rec, dpmu_ip_fn ip_fn, void *arg, struct tdp_err *err)
{
	struct dpmu_data *t = data_of(s);
	struct diag_sampling *smp = &s->d->sampling;
	const struct perfdata_auxtrace *at = &rec->u.auxtrace;
	struct spe_decoder dec;
	struct spe_record r;
	int ret = 0;

	if (!t)
		return tdp_err_oom(err);
	if (rec->type == PERFDATA_RECORD_COMM)
		return add_tid(t, rec->u.comm.tid, rec->u.comm.pid, err);
	if (rec->type == PERFDATA_RECORD_FORK)
		return add_tid(t, rec->u.fork.tid, rec->u.fork.pid, err);
	smp->data_addr = true;
	spe_decoder_init(&dec, at->data, (size_t)at->size);
	while (!ret && spe_decoder_next(&dec, &r) > 0) {
		uint32_t tid = (r.present & SPE_HAS_CONTEXT) ? r.context : at->tid;
		uint64_t pc, va;

		/* a load (OP-TYPE class LD/ST, bit 0 clear) with its instruction */
		if (r.op_class != SPE_OP_LDST || (r.op & 1) || !(r.present & SPE_HAS_ADDR(SPE_ADDR_PC)))
			continue;
		pc = spe_addr_ip(r.addr[SPE_ADDR_PC]);
		va = (r.present & SPE_HAS_ADDR(SPE_ADDR_VA)) ? spe_addr_ip(r.addr[SPE_ADDR_VA]) : 0;
		smp->samples++;
		ret = ip_fn(arg, pid_of(t, tid), pc, err);
		if (!ret)
			ret = dpmu_data_sample(s, pid_of(t, tid), pc, va,
					       (r.present & SPE_HAS_COUNTER(SPE_CNT_TOTAL)) ? r.counter[SPE_CNT_TOTAL] : -1,
					       err);
	}
	smp->lost += dec.stats.dropped;
	return ret;
}

/* The newest recorded mapping of pid holding addr (a later mapping replaces an earlier one). */
static const struct dmap *find_map(const struct dpmu_data *t, uint32_t pid, uint64_t addr)
{
	for (size_t i = t->nr_maps; i-- > 0;) {
		const struct dmap *m = &t->maps[i];

		if (m->pid == pid && addr >= m->start && addr - m->start < m->len)
			return m;
	}
	return NULL;
}

static int cmp_samples(const void *pa, const void *pb)
{
	const struct dline *a = pa, *b = pb;

	if (a->samples != b->samples)
		return a->samples < b->samples ? 1 : -1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

int dpmu_data_finish(struct dpmu *s, struct tdp_err *err)
{
	struct dpmu_data *t = s->data;
	struct diag *d = s->d;
	size_t n = 0;
	int ret = 0;

	if (!t)
		return 0;
	for (size_t i = 0; i < t->cap; i++)
		if (t->v[i].used)
			t->v[n++] = t->v[i];
	if (n)
		qsort(t->v, n, sizeof(*t->v), cmp_samples);
	for (size_t i = 0; i < n && d->nr_data < DIAG_MAX_DATA && !ret; i++) {
		const struct dline *l = &t->v[i];
		const struct dmap *m = find_map(t, l->pid, l->line);
		struct diag_data *o = &d->data[d->nr_data++];
		struct symbol_addr a = { l->ip[0], l->pid };
		struct symbol_result r;
		struct dpmu_line dl;
		size_t best = 0;

		for (size_t k = 1; k < 4; k++)
			if (l->ip_n[k] > l->ip_n[best])
				best = k;
		a.addr = l->ip[best];
		o->addr = l->line;
		o->samples = l->samples;
		o->latency = l->lat_n ? (double)l->lat_sum / (double)l->lat_n : -1;
		o->share = d->sampling.with_addr ? 100.0 * (double)l->samples / (double)d->sampling.with_addr : 0;
		if (m) {
			snprintf(o->region, sizeof(o->region), "%s", m->name);
			o->offset = m->file ? l->line - m->start + m->pgoff : 0;
		}
		if ((ret = symbol_resolve(s->sym, &a, 1, &r, err)))
			break;
		dl = (struct dpmu_line){ .kernel = r.kernel, .dso = r.dso, .top_addr = a.addr, .top_vaddr = r.vaddr,
					 .top_pid = l->pid };
		if (r.status == SYMBOL_OK) {
			dl.function = r.function;
			dl.file = r.file;
			dl.line = r.file ? r.line : 0;
		}
		o->file = dpmu_display_file(s, &dl);
		o->function = dpmu_function_label(&dl);
		o->line = dl.line;
		if ((dl.file && !o->file) || !o->function)
			ret = tdp_err_oom(err);
	}
	return ret;
}

void dpmu_data_free(struct dpmu *s)
{
	if (!s->data)
		return;
	tdp_free(s->data->v);
	tdp_free(s->data->maps);
	tdp_free(s->data->tids);
	tdp_free(s->data);
	s->data = NULL;
}
