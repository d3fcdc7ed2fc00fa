/*
 * sampling-dso.c: which DSOs a recording's samples hit, and their build-ids
 * (perf record marks the hit DSOs after recording and writes only their
 * build-ids: tools/perf/builtin-record.c process_buildids()).
 */
#include "pmu/sampling-internal.h"
#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

/* How far up a chain of forks a lookup goes. */
#define SMP_MAX_FORK_DEPTH 64
/* Largest DSO file read for its build-id note. */
#define SMP_MAX_DSO_FILE (4ull << 30)

static long find_dso(const struct smp_dsos *d, const char *name, size_t name_len, bool kernel)
{
	for (size_t i = 0; i < d->nr_dso; i++)
		if (d->dso[i].kernel == kernel && strlen(d->dso[i].name) == name_len &&
		    !memcmp(d->dso[i].name, name, name_len))
			return (long)i;
	return -1;
}

int smp_dsos_mmap(struct smp_dsos *d, uint32_t pid, uint64_t start, uint64_t len, const char *name,
		  size_t name_len, const uint8_t *bid, size_t bid_size, bool kernel)
{
	long di = find_dso(d, name, name_len, kernel);
	struct smp_map *m;

	if (di < 0) {
		struct smp_dso *nd;

		if (d->nr_dso >= PMU_SAMPLING_MAX_DSOS) {
			d->full = true;
			return 0;
		}
		if (TDP_GROW(d->dso, d->alloc_dso, d->nr_dso + 1))
			return TDP_ENOMEM;
		nd = &d->dso[d->nr_dso];
		memset(nd, 0, sizeof(*nd));
		nd->name = tdp_strndup(name, name_len);
		if (!nd->name)
			return TDP_ENOMEM;
		nd->kernel = kernel;
		di = (long)d->nr_dso++;
	}
	if (bid_size && !d->dso[di].bid_size) {
		size_t n = bid_size < PMU_BUILD_ID_MAX ? bid_size : PMU_BUILD_ID_MAX;

		memcpy(d->dso[di].bid, bid, n);
		d->dso[di].bid_size = (uint8_t)n;
	}
	if (d->nr_map >= PMU_SAMPLING_MAX_MAPS) {
		d->full = true;
		return 0;
	}
	if (TDP_GROW(d->map, d->alloc_map, d->nr_map + 1))
		return TDP_ENOMEM;
	m = &d->map[d->nr_map++];
	m->pid = pid;
	m->dso = (uint32_t)di;
	m->start = start;
	m->end = len > UINT64_MAX - start ? UINT64_MAX : start + len;
	return 0;
}

int smp_dsos_fork(struct smp_dsos *d, uint32_t pid, uint32_t ppid)
{
	if (pid == ppid)
		return 0;
	for (size_t i = 0; i < d->nr_par; i++)
		if (d->par[i].pid == pid) {
			d->par[i].ppid = ppid; /* a reused pid */
			return 0;
		}
	if (d->nr_par >= PMU_SAMPLING_MAX_MAPS) {
		d->full = true;
		return 0;
	}
	if (TDP_GROW(d->par, d->alloc_par, d->nr_par + 1))
		return TDP_ENOMEM;
	d->par[d->nr_par].pid = pid;
	d->par[d->nr_par].ppid = ppid;
	d->nr_par++;
	return 0;
}

void smp_dsos_exec(struct smp_dsos *d, uint32_t pid)
{
	size_t j = 0;

	for (size_t i = 0; i < d->nr_map; i++)
		if (d->map[i].pid != pid)
			d->map[j++] = d->map[i];
	d->nr_map = j;
	d->last = 0;
	for (size_t i = 0; i < d->nr_par; i++)
		if (d->par[i].pid == pid)
			d->par[i] = d->par[--d->nr_par];
}

static long parent_of(const struct smp_dsos *d, uint32_t pid)
{
	for (size_t i = 0; i < d->nr_par; i++)
		if (d->par[i].pid == pid)
			return d->par[i].ppid;
	return -1;
}

/* The map of pid containing addr, newest first (a new mapping hides an older one). */
static long lookup(const struct smp_dsos *d, uint32_t pid, uint64_t addr)
{
	if (d->last < d->nr_map) {
		const struct smp_map *m = &d->map[d->last];

		if (m->pid == pid && addr >= m->start && addr < m->end)
			return (long)d->last;
	}
	for (size_t i = d->nr_map; i-- > 0;)
		if (d->map[i].pid == pid && addr >= d->map[i].start && addr < d->map[i].end)
			return (long)i;
	return -1;
}

void smp_dsos_hit(struct smp_dsos *d, uint32_t pid, uint64_t addr, bool kernel)
{
	long i = -1;

	if (kernel) {
		i = lookup(d, SMP_KERNEL_PID, addr);
		if (i < 0) {
			/* a module or outside _text.._etext: still the kernel's */
			for (size_t k = 0; k < d->nr_dso; k++)
				if (d->dso[k].kernel) {
					d->dso[k].hits++;
					return;
				}
			return;
		}
	} else {
		long p = pid;

		for (int depth = 0; p >= 0 && depth < SMP_MAX_FORK_DEPTH && i < 0; depth++) {
			i = lookup(d, (uint32_t)p, addr);
			if (i < 0)
				p = parent_of(d, (uint32_t)p);
		}
		if (i < 0)
			i = lookup(d, SMP_KERNEL_PID, addr); /* a kernel address in a user sample's stack */
		if (i < 0)
			return;
	}
	d->last = (size_t)i;
	d->dso[d->map[i].dso].hits++;
}

int smp_dsos_queue(struct smp_dsos *d, const struct smp_item *it, const char *name, size_t name_len,
		   const uint8_t *bid, size_t bid_size, uint64_t start, uint64_t len)
{
	struct smp_item *q;
	int ret;

	if (d->nr_q >= SMP_MAX_QUEUE && (ret = smp_dsos_round(d, true)))
		return ret;
	if (TDP_GROW(d->q, d->alloc_q, d->nr_q + 1))
		return TDP_ENOMEM;
	q = &d->q[d->nr_q];
	*q = *it;
	q->seq = d->seq++;
	q->mmap = NULL;
	if (it->kind == SMP_ITEM_MMAP) {
		q->mmap = tdp_malloc(sizeof(*q->mmap) + name_len + 1);
		if (!q->mmap)
			return TDP_ENOMEM;
		q->mmap->start = start;
		q->mmap->len = len;
		q->mmap->bid_size = (uint8_t)(bid_size < PMU_BUILD_ID_MAX ? bid_size : PMU_BUILD_ID_MAX);
		memcpy(q->mmap->bid, bid ? bid : (const uint8_t *)"", bid ? q->mmap->bid_size : 0);
		q->mmap->name_len = name_len;
		memcpy(q->mmap->name, name, name_len);
		q->mmap->name[name_len] = '\0';
	}
	d->nr_q++;
	if (it->time > d->round_max)
		d->round_max = it->time;
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct smp_item *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int apply(struct smp_dsos *d, struct smp_item *it)
{
	int ret = 0;

	switch (it->kind) {
	case SMP_ITEM_MMAP:
		ret = smp_dsos_mmap(d, it->pid, it->mmap->start, it->mmap->len, it->mmap->name, it->mmap->name_len,
				    it->mmap->bid, it->mmap->bid_size, it->kernel);
		break;
	case SMP_ITEM_FORK:
		ret = smp_dsos_fork(d, it->pid, it->ppid);
		break;
	case SMP_ITEM_EXEC:
		smp_dsos_exec(d, it->pid);
		break;
	case SMP_ITEM_HIT:
		smp_dsos_hit(d, it->pid, it->addr, it->kernel);
		break;
	default:
		break;
	}
	tdp_free(it->mmap);
	it->mmap = NULL;
	return ret;
}

int smp_dsos_round(struct smp_dsos *d, bool final)
{
	size_t n = 0, j = 0;
	int ret = 0;

	if (d->nr_q) /* an empty queue is NULL, which qsort may not be given */
		qsort(d->q, d->nr_q, sizeof(*d->q), by_time);
	while (n < d->nr_q && (final || d->q[n].time <= d->prev_round_max))
		n++;
	for (size_t i = 0; i < n; i++) {
		int r = apply(d, &d->q[i]);

		if (r && !ret)
			ret = r;
	}
	for (size_t i = n; i < d->nr_q; i++)
		d->q[j++] = d->q[i];
	d->nr_q = j;
	d->prev_round_max = d->round_max;
	return ret;
}

struct vdso_find {
	uint64_t base, end;
};

static int vdso_line(void *arg, const struct pmu_maps_entry *e, struct tdp_err *err)
{
	struct vdso_find *v = arg;

	(void)err;
	if (e->start == v->base && e->name_len == 6 && !memcmp(e->name, "[vdso]", 6))
		v->end = e->end;
	return 0;
}

/* Our own [vdso]: the same image the kernel maps into every process of this ABI. */
static bool vdso_build_id(uint8_t id[PMU_BUILD_ID_MAX], size_t *size)
{
	struct vdso_find v = { getauxval(AT_SYSINFO_EHDR), 0 };
	char *maps = NULL;
	size_t len = 0;
	bool found = false;
	int fd;

	if (!v.base)
		return false;
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (tdp_read_fd(fd, "/proc/self/maps", PMU_MAPS_MAX, &maps, &len, NULL) == 0 &&
	    pmu_maps_parse(maps, len, vdso_line, &v, NULL) == 0 && v.end > v.base)
		found = pmu_elf_build_id((const uint8_t *)(uintptr_t)v.base, (size_t)(v.end - v.base), "[vdso]", id,
					 size, NULL) == 1;
	tdp_free(maps);
	close(fd);
	return found;
}

static void find_build_id(struct smp_dso *dso)
{
	struct tdp_file f = TDP_FILE_INIT;
	size_t size = 0;
	int ret = 0;

	if (dso->kernel) {
		/* a sysfs file: read it, its size is not known beforehand */
		int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
		char *notes = NULL;
		size_t len = 0;

		if (fd >= 0 && tdp_read_fd(fd, "/sys/kernel/notes", 1 << 20, &notes, &len, NULL) == 0)
			ret = pmu_notes_build_id((const uint8_t *)notes, len, "/sys/kernel/notes", dso->bid, &size, NULL);
		tdp_free(notes);
		if (fd >= 0)
			close(fd);
	} else if (!strcmp(dso->name, "[vdso]")) {
		ret = vdso_build_id(dso->bid, &size);
	} else if (dso->name[0] == '/') {
		if (tdp_file_open(&f, dso->name, SMP_MAX_DSO_FILE, NULL) == 0)
			ret = pmu_elf_build_id(f.data, f.size, dso->name, dso->bid, &size, NULL);
	}
	tdp_file_close(&f);
	if (ret == 1)
		dso->bid_size = (uint8_t)size;
}

static int by_hits(const void *a, const void *b)
{
	const struct pmu_dso_hit *x = a, *y = b;

	if (x->hits != y->hits)
		return x->hits > y->hits ? -1 : 1;
	return strcmp(x->filename, y->filename);
}

int smp_dsos_result(struct smp_dsos *d, const struct pmu_dso_hit **out, size_t *nr, struct tdp_err *err)
{
	size_t n = 0;

	tdp_free(d->hits);
	d->hits = tdp_calloc(d->nr_dso ? d->nr_dso : 1, sizeof(*d->hits));
	if (!d->hits)
		return tdp_err_oom(err);
	for (size_t i = 0; i < d->nr_dso; i++) {
		struct smp_dso *dso = &d->dso[i];
		struct pmu_dso_hit *h;

		if (!dso->hits)
			continue;
		if (!dso->bid_size)
			find_build_id(dso);
		h = &d->hits[n++];
		h->filename = dso->kernel ? SMP_KERNEL_NAME : dso->name;
		h->kernel = dso->kernel;
		memcpy(h->build_id, dso->bid, sizeof(h->build_id));
		h->build_id_size = dso->bid_size;
		h->hits = dso->hits;
	}
	qsort(d->hits, n, sizeof(*d->hits), by_hits);
	d->nr_hits = n;
	*out = d->hits;
	*nr = n;
	return 0;
}

void smp_dsos_release(struct smp_dsos *d)
{
	for (size_t i = 0; i < d->nr_dso; i++)
		tdp_free(d->dso[i].name);
	tdp_free(d->dso);
	tdp_free(d->map);
	tdp_free(d->par);
	tdp_free(d->hits);
	for (size_t i = 0; i < d->nr_q; i++)
		tdp_free(d->q[i].mmap);
	tdp_free(d->q);
	*d = (struct smp_dsos)SMP_DSOS_INIT;
}
