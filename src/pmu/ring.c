/* ring.c: reading a perf_event ring buffer and its AUX area (see ring.h). */
#include "pmu/ring.h"
#include "base/alloc.h"
#include "base/err.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int pmu_ring_init_mem(struct pmu_ring *r, struct perf_event_mmap_page *pc, void *data, uint64_t data_size,
		      void *aux, uint64_t aux_size, struct tdp_err *err)
{
	if (!pc || !data || !pmu_ring_is_pow2(data_size) || data_size < 8 ||
	    (aux && !pmu_ring_is_pow2(aux_size)) || (!aux && aux_size))
		return tdp_err_set(err, TDP_EINVAL, "ring buffer: sizes must be powers of two");
	*r = (struct pmu_ring)PMU_RING_INIT;
	r->pc = pc;
	r->data = data;
	r->data_size = data_size;
	r->aux = aux;
	r->aux_size = aux_size;
	return 0;
}

int pmu_ring_map(struct pmu_ring *r, int fd, size_t data_pages, size_t aux_pages, struct tdp_err *err)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *m, *a = NULL;

	*r = (struct pmu_ring)PMU_RING_INIT;
	if (!pmu_ring_is_pow2(data_pages) || data_pages > PMU_RING_MAX_PAGES)
		return tdp_err_set(err, TDP_EUSAGE, "'-m %zu': the ring buffer needs a power of two of pages, at most %u",
				   data_pages, PMU_RING_MAX_PAGES);
	if (aux_pages && (!pmu_ring_is_pow2(aux_pages) || aux_pages > PMU_RING_MAX_AUX_PAGES))
		return tdp_err_set(err, TDP_EUSAGE, "%zu AUX pages: the AUX area needs a power of two of pages, at most %u",
				   aux_pages, PMU_RING_MAX_AUX_PAGES);
	m = mmap(NULL, (data_pages + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		goto fail;
	r->map = m;
	r->map_len = (data_pages + 1) * page;
	r->pc = m;
	r->data = (uint8_t *)m + page;
	r->data_size = (uint64_t)data_pages * page;
	if (aux_pages) {
		/* the AUX area is placed after the data area and announced in the control page */
		r->pc->aux_offset = r->map_len;
		r->pc->aux_size = (uint64_t)aux_pages * page;
		a = mmap(NULL, aux_pages * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)r->map_len);
		if (a == MAP_FAILED)
			goto fail;
		r->aux_map = a;
		r->aux_map_len = aux_pages * page;
		r->aux = a;
		r->aux_size = (uint64_t)aux_pages * page;
	}
	return 0;
fail:
	{
		int e = errno;

		pmu_ring_unmap(r);
		if (e == EPERM || e == ENOMEM) {
			tdp_err_set(err, TDP_EPERM, "cannot map a ring buffer of %zu KiB%s: %s",
				    (data_pages + 1 + aux_pages) * page / 1024, aux_pages ? " (with its AUX area)" : "",
				    strerror(e));
			tdp_err_hint(err, "use fewer pages with '-m', or raise the limit: 'sudo sysctl -w "
					    "kernel.perf_event_mlock_kb=%zu'",
					    (data_pages + 1 + aux_pages) * page / 1024 * 4);
			return TDP_EPERM;
		}
		return tdp_err_set(err, TDP_EIO, "cannot map the ring buffer: %s", strerror(e));
	}
}

void pmu_ring_unmap(struct pmu_ring *r)
{
	if (r->aux_map)
		munmap(r->aux_map, r->aux_map_len);
	if (r->map)
		munmap(r->map, r->map_len);
	tdp_free(r->copy);
	*r = (struct pmu_ring)PMU_RING_INIT;
}

/* Copy len bytes starting at ring position pos (which may wrap) to dst. */
static void copy_out(const struct pmu_ring *r, uint64_t pos, void *dst, size_t len)
{
	uint64_t off = pos & (r->data_size - 1);
	size_t first = (size_t)(r->data_size - off < len ? r->data_size - off : len);

	memcpy(dst, r->data + off, first);
	if (len > first)
		memcpy((uint8_t *)dst + first, r->data, len - first);
}

int pmu_ring_read(struct pmu_ring *r, pmu_ring_record_fn *fn, void *arg, struct tdp_err *err)
{
	/* acquire: the records before data_head are visible once we see it (the kernel's smp_wmb pairs) */
	uint64_t head = __atomic_load_n(&r->pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->pc->data_tail;
	int n = 0, ret = 0;

	while (tail < head) {
		struct perf_event_header h;
		uint64_t off = tail & (r->data_size - 1);
		const void *rec;

		if (head - tail < sizeof(h)) {
			ret = tdp_err_set(err, TDP_EFORMAT,
					  "ring buffer: %" PRIu64 " bytes left at position %" PRIu64 " cannot hold a record header",
					  head - tail, tail);
			tail = head;
			break;
		}
		copy_out(r, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail) {
			ret = tdp_err_set(err, TDP_EFORMAT,
					  "ring buffer: record at position %" PRIu64 " has size %u (%" PRIu64 " bytes available)",
					  tail, h.size, head - tail);
			tail = head; /* skip what cannot be parsed so that later reads can go on */
			break;
		}
		if (off + h.size <= r->data_size) {
			rec = r->data + off;
		} else {
			/* the record wraps around the end of the data area: hand out one contiguous copy */
			if (!r->copy && !(r->copy = tdp_malloc(PMU_RING_MAX_RECORD))) {
				ret = tdp_err_oom(err);
				break;
			}
			copy_out(r, tail, r->copy, h.size);
			rec = r->copy;
		}
		ret = fn(arg, rec, h.size, err);
		if (ret)
			break;
		tail += h.size;
		n++;
		r->records++;
	}
	/* release: the kernel may reuse the space only after we are done reading it */
	__atomic_store_n(&r->pc->data_tail, tail, __ATOMIC_RELEASE);
	return ret ? ret : n;
}

long pmu_ring_read_aux(struct pmu_ring *r, pmu_ring_aux_fn *fn, void *arg, struct tdp_err *err)
{
	uint64_t head, tail, len, off, first;
	int ret;

	if (!r->aux)
		return 0;
	head = __atomic_load_n(&r->pc->aux_head, __ATOMIC_ACQUIRE);
	tail = r->pc->aux_tail;
	if (head == tail)
		return 0;
	if (head < tail || head - tail > r->aux_size)
		return tdp_err_set(err, TDP_EFORMAT,
				   "AUX area: head %" PRIu64 " is not within %" PRIu64 " bytes after tail %" PRIu64, head,
				   r->aux_size, tail);
	len = head - tail;
	off = tail & (r->aux_size - 1);
	first = r->aux_size - off < len ? r->aux_size - off : len;
	ret = fn(arg, tail, r->aux + off, (size_t)first, r->aux, (size_t)(len - first), err);
	if (ret)
		return ret;
	r->aux_bytes += len;
	__atomic_store_n(&r->pc->aux_tail, head, __ATOMIC_RELEASE);
	return (long)len;
}
