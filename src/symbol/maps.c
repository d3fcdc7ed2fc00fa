/*
 * maps.c: the address spaces of a recording. Per process, the executable maps
 * sorted by start and never overlapping; the kernel's maps apart; built from
 * MMAP/MMAP2/COMM/FORK records the way perf's machine.c builds its threads' maps
 * (a new map replaces the parts of older ones it overlaps: maps__fixup_overlappings;
 * a forked process starts with its parent's maps; exec starts afresh).
 */
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "perfdata/perfdata.h"
#include "symbol/symbol-internal.h"

/* Exec'd images kept per process so that samples taken before an exec still find
 * their binary when resolved after the whole file was read. */
#define MAX_RETIRED 16

static uint32_t pid_hash(uint32_t pid)
{
	return pid * 2654435761u;
}

static struct symbol_proc *proc_find(struct symbol_session *s, uint32_t pid)
{
	size_t mask = s->proc_hash_size - 1;

	if (!s->proc_hash_size)
		return NULL;
	for (size_t i = pid_hash(pid) & mask;; i = (i + 1) & mask) {
		uint32_t slot = s->proc_hash[i];

		if (!slot)
			return NULL;
		if (s->procs[slot - 1].pid == pid)
			return &s->procs[slot - 1];
	}
}

static int proc_hash_rebuild(struct symbol_session *s, size_t size)
{
	uint32_t *h = tdp_calloc(size, sizeof(*h));

	if (!h)
		return TDP_ENOMEM;
	for (size_t p = 0; p < s->nr_procs; p++) {
		size_t i = pid_hash(s->procs[p].pid) & (size - 1);

		while (h[i])
			i = (i + 1) & (size - 1);
		h[i] = (uint32_t)(p + 1);
	}
	tdp_free(s->proc_hash);
	s->proc_hash = h;
	s->proc_hash_size = size;
	return 0;
}

static struct symbol_proc *proc_get(struct symbol_session *s, uint32_t pid, struct tdp_err *err)
{
	struct symbol_proc *p = proc_find(s, pid);

	if (p)
		return p;
	if (s->nr_procs >= SYMBOL_MAX_PROCS) {
		tdp_err_set(err, TDP_ELIMIT, "too many processes in the recording (more than %u)",
			    SYMBOL_MAX_PROCS);
		return NULL;
	}
	if (TDP_GROW(s->procs, s->alloc_procs, s->nr_procs + 1) ||
	    ((s->nr_procs + 1) * 2 > s->proc_hash_size &&
	     proc_hash_rebuild(s, s->proc_hash_size ? s->proc_hash_size * 2 : 64))) {
		tdp_err_oom(err);
		return NULL;
	}
	p = &s->procs[s->nr_procs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	size_t mask = s->proc_hash_size - 1;
	size_t i = pid_hash(pid) & mask;

	while (s->proc_hash[i])
		i = (i + 1) & mask;
	s->proc_hash[i] = (uint32_t)s->nr_procs;
	return p;
}

static void maps_free(struct symbol_maps *m)
{
	tdp_free(m->v);
	memset(m, 0, sizeof(*m));
}

static void proc_release(struct symbol_proc *p)
{
	maps_free(&p->cur);
	for (size_t i = 0; i < p->nr_retired; i++)
		maps_free(&p->retired[i]);
	tdp_free(p->retired);
	p->retired = NULL;
	p->nr_retired = p->alloc_retired = 0;
}

void symbol_maps_release(struct symbol_session *s)
{
	for (size_t i = 0; i < s->nr_procs; i++)
		proc_release(&s->procs[i]);
	proc_release(&s->kernel);
	tdp_free(s->procs);
	tdp_free(s->proc_hash);
	s->procs = NULL;
	s->proc_hash = NULL;
	s->nr_procs = s->alloc_procs = s->proc_hash_size = 0;
}

/* Index of the map holding addr, or -1. */
static long maps_lookup(const struct symbol_maps *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= m->v[lo - 1].end)
		return -1;
	return (long)(lo - 1);
}

/*
 * Insert e, cutting the parts of older maps it overlaps: what is left of a map
 * before e keeps its pgoff, what is left after e starts later in the file.
 */
static int maps_insert(struct symbol_maps *m, const struct map_ent *e, struct tdp_err *err)
{
	size_t lo = 0, hi, nr_new;
	struct map_ent left, right;
	bool keep_left = false, keep_right = false;

	if (m->nr && m->v[m->nr - 1].end <= e->start) {
		lo = m->nr;
	} else {
		size_t a = 0, b = m->nr;

		while (a < b) { /* first map whose end is past e->start */
			size_t mid = a + (b - a) / 2;

			if (m->v[mid].end <= e->start)
				a = mid + 1;
			else
				b = mid;
		}
		lo = a;
	}
	hi = lo;
	while (hi < m->nr && m->v[hi].start < e->end)
		hi++;
	if (lo < hi && m->v[lo].start < e->start) {
		left = m->v[lo];
		left.end = e->start;
		keep_left = true;
	}
	if (lo < hi && m->v[hi - 1].end > e->end) {
		right = m->v[hi - 1];
		right.pgoff += e->end - right.start;
		right.start = e->end;
		keep_right = true;
	}
	nr_new = m->nr - (hi - lo) + keep_left + 1 + keep_right;
	if (nr_new > SYMBOL_MAX_MAPS)
		return tdp_err_set(err, TDP_ELIMIT, "too many maps in one process (more than %u)",
				   SYMBOL_MAX_MAPS);
	if (TDP_GROW(m->v, m->alloc, nr_new))
		return tdp_err_oom(err);
	size_t at = lo + keep_left + 1 + keep_right;

	memmove(&m->v[at], &m->v[hi], (m->nr - hi) * sizeof(m->v[0]));
	if (keep_left)
		m->v[lo++] = left;
	m->v[lo++] = *e;
	if (keep_right)
		m->v[lo] = right;
	m->nr = nr_new;
	return 0;
}

static int maps_copy(struct symbol_maps *dst, const struct symbol_maps *src, struct tdp_err *err)
{
	struct symbol_maps m = { NULL, 0, 0 };

	if (src->nr && TDP_GROW(m.v, m.alloc, src->nr))
		return tdp_err_oom(err);
	if (src->nr)
		memcpy(m.v, src->v, src->nr * sizeof(m.v[0]));
	m.nr = src->nr;
	maps_free(dst);
	*dst = m;
	return 0;
}

static int proc_retire(struct symbol_proc *p, struct tdp_err *err)
{
	if (!p->cur.nr)
		return 0;
	if (p->nr_retired == MAX_RETIRED) {
		maps_free(&p->retired[0]);
		memmove(&p->retired[0], &p->retired[1], (MAX_RETIRED - 1) * sizeof(p->retired[0]));
		p->nr_retired--;
	}
	if (TDP_GROW(p->retired, p->alloc_retired, p->nr_retired + 1))
		return tdp_err_oom(err);
	p->retired[p->nr_retired++] = p->cur;
	memset(&p->cur, 0, sizeof(p->cur));
	return 0;
}

static bool is_kernel_name(const char *path)
{
	return !strncmp(path, "[kernel.kallsyms]", 17) || !strncmp(path, "[guest.kernel.kallsyms]", 23);
}

static int add_map(struct symbol_session *s, uint32_t pid, bool kernel, uint64_t start,
		   uint64_t len, uint64_t pgoff, const char *path, size_t path_len,
		   const uint8_t *bid, size_t bid_size, struct tdp_err *err)
{
	struct map_ent e;
	struct symbol_proc *p;
	size_t name_len = path_len;

	if (!len || !path)
		return tdp_err_set(err, TDP_EINVAL, "a map needs a length and a file name");
	if (bid_size > 20)
		bid_size = 20;
	if (kernel && path_len >= 17 && is_kernel_name(path)) {
		/*
		 * The main kernel map: "[kernel.kallsyms]_text", pgoff = the runtime
		 * address of _text (perf's reference symbol, used to undo KASLR).
		 * perf 3.4 recorded it as [0, 0xffffffff9fffffff) with pgoff = _stext;
		 * perf 6.1 keeps that range, so an address no user map holds (even 0)
		 * is a kernel one there ("[k] 0000000000000000"): so do we. Kernel
		 * addresses are absolute: pgoff is not used for them.
		 */
		const char *close = memchr(path, ']', path_len);

		name_len = (size_t)(close - path) + 1;
		s->kernel_ref_addr = pgoff;
		if (name_len < path_len)
			s->kernel_ref_name = arena_strndup(&s->arena, close + 1, path_len - name_len);
		pgoff = start;
	}
	e.start = start;
	e.end = start + len < start ? UINT64_MAX : start + len;
	e.pgoff = pgoff;
	e.dso = symbol_dso_get(s, path, name_len, bid, bid_size, kernel, err);
	if (!e.dso)
		return err ? err->code : TDP_ENOMEM;
	if (kernel) {
		p = &s->kernel;
	} else {
		p = proc_get(s, pid, err);
		if (!p)
			return err ? err->code : TDP_ENOMEM;
	}
	s->cache_valid = false;
	return maps_insert(&p->cur, &e, err);
}

int symbol_session_add_mmap(struct symbol_session *s, const struct symbol_mmap *m,
			    struct tdp_err *err)
{
	if (!m || !m->path)
		return tdp_err_set(err, TDP_EINVAL, "a map needs a file name");
	return add_map(s, m->pid, m->kernel || m->pid == UINT32_MAX, m->start, m->len, m->pgoff,
		       m->path, strlen(m->path), m->build_id, m->build_id ? m->build_id_size : 0,
		       err);
}

static int add_fork(struct symbol_session *s, const struct perfdata_fork *f, struct tdp_err *err)
{
	struct symbol_proc *child, *parent;
	size_t parent_idx;

	if (f->pid == f->ppid) /* a new thread shares its process's maps */
		return 0;
	parent = proc_find(s, f->ppid);
	if (!parent)
		return 0;
	parent_idx = (size_t)(parent - s->procs);
	child = proc_get(s, f->pid, err); /* may move s->procs */
	if (!child)
		return err ? err->code : TDP_ENOMEM;
	parent = &s->procs[parent_idx];
	s->cache_valid = false;
	return maps_copy(&child->cur, &parent->cur, err);
}

int symbol_session_add_record(struct symbol_session *s, const struct perfdata_record *rec,
			      struct tdp_err *err)
{
	unsigned cpumode = rec->misc & PERFDATA_MISC_CPUMODE_MASK;

	switch (rec->type) {
	case PERFDATA_RECORD_MMAP:
	case PERFDATA_RECORD_MMAP2: {
		const struct perfdata_mmap *m = &rec->u.mmap;
		bool kernel = m->pid == UINT32_MAX || cpumode == PERFDATA_MISC_KERNEL;

		/* guests are other machines: perf keeps them apart; we do not read them */
		if (cpumode == PERFDATA_MISC_GUEST_KERNEL || cpumode == PERFDATA_MISC_GUEST_USER)
			return 0;
		if (rec->misc & PERFDATA_MISC_MMAP_DATA)
			return 0;
		if (!m->len || !m->filename.len)
			return 0;
		return add_map(s, m->pid, kernel, m->start, m->len, m->pgoff, m->filename.s,
			       strnlen(m->filename.s, m->filename.len),
			       m->has_build_id ? m->build_id : NULL,
			       m->has_build_id ? m->build_id_size : 0, err);
	}
	case PERFDATA_RECORD_FORK:
		return add_fork(s, &rec->u.fork, err);
	case PERFDATA_RECORD_HEADER_BUILD_ID:
		return symbol_session_add_build_id(s, rec, err);
	case PERFDATA_RECORD_COMM:
		if (rec->misc & PERFDATA_MISC_COMM_EXEC) {
			struct symbol_proc *p = proc_find(s, rec->u.comm.pid);

			s->cache_valid = false;
			return p ? proc_retire(p, err) : 0;
		}
		return 0;
	default:
		return 0;
	}
}

static bool find_in(const struct symbol_maps *m, uint64_t addr, struct map_ent *out)
{
	long i = maps_lookup(m, addr);

	if (i < 0)
		return false;
	*out = m->v[i];
	return true;
}

bool symbol_find_map(struct symbol_session *s, uint32_t pid, uint64_t addr, struct map_ent *out,
		     bool *kernel)
{
	struct symbol_proc *p;

	if (s->cache_valid && s->cache_pid == pid && addr >= s->cache_map.start &&
	    addr < s->cache_map.end) {
		*out = s->cache_map;
		*kernel = false;
		return true;
	}
	p = pid == SYMBOL_PID_NONE ? NULL : proc_find(s, pid);
	*kernel = false;
	if (p && find_in(&p->cur, addr, out))
		goto found;
	for (size_t i = p ? p->nr_retired : 0; i-- > 0;)
		if (find_in(&p->retired[i], addr, out))
			goto found;
	/* not cached: a kernel map may span user space (perf 3.4's did), and the
	 * process's own maps must be asked first for every address */
	*kernel = true;
	if (find_in(&s->kernel.cur, addr, out))
		return true;
	*kernel = addr >= SYMBOL_KERNEL_START;
	return false;
found:
	s->cache_valid = true;
	s->cache_pid = pid;
	s->cache_map = *out;
	return true;
}

bool symbol_map(struct symbol_session *s, uint32_t pid, uint64_t addr, struct symbol_loc *out)
{
	struct map_ent m;
	bool kernel;

	memset(out, 0, sizeof(*out));
	if (!symbol_find_map(s, pid, addr, &m, &kernel)) {
		out->kernel = kernel;
		out->dso_addr = addr;
		return false;
	}
	out->kernel = kernel;
	out->dso = m.dso;
	out->path = m.dso->name;
	out->file_off = addr - m.start + m.pgoff;
	out->dso_addr = kernel ? addr : out->file_off;
	return true;
}
