/*
 * ring.h: the reader side of a perf_event ring buffer (the mmap of a sampling
 * event: one control page, then 2^n data pages, and optionally an AUX area).
 *
 * The kernel writes records at data_head and we consume them from data_tail
 * (include/uapi/linux/perf_event.h, struct perf_event_mmap_page): data_head is
 * read with acquire semantics (the records before it are then visible), the
 * records are used, and data_tail is stored with release semantics (the kernel
 * may then overwrite them). A record that runs past the end of the data area
 * continues at its start; such a record is copied into a buffer of the ring so
 * that the caller always sees one contiguous record. The AUX area (Arm SPE,
 * Intel PT) has the same protocol with aux_head/aux_tail; its bytes are handed
 * out as at most two pieces (the second when the new data wraps).
 *
 * Lifecycle:
 *   1. struct pmu_ring r = PMU_RING_INIT;
 *   2. pmu_ring_map(&r, fd, data_pages, aux_pages, &err) on an opened event, or
 *      pmu_ring_init_mem(&r, page, data, size, aux, aux_size) over memory laid out
 *      the same way (tests feed synthetic buffers this way);
 *   3. pmu_ring_read(&r, fn, arg, &err) whenever the fd polls readable, and once
 *      more after the event stopped (the final drain); pmu_ring_read_aux() for the
 *      AUX area;
 *   4. pmu_ring_unmap(&r).
 *
 * Not thread-safe: one reader per ring (the kernel is the only writer).
 */
#ifndef TDPROF_PMU_RING_H
#define TDPROF_PMU_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tdp_err;
struct perf_event_mmap_page;

/** Largest record (perf_event_header.size is a u16). */
#define PMU_RING_MAX_RECORD 65535u
/** Most data pages per ring (2^n, 256 MiB with 4 KiB pages). */
#define PMU_RING_MAX_PAGES (1u << 16)
/** Most AUX pages per ring (2^n). */
#define PMU_RING_MAX_AUX_PAGES (1u << 16)

struct pmu_ring {
	struct perf_event_mmap_page *pc; /* the control page; NULL until mapped */
	uint8_t *data;       /* the data area */
	uint64_t data_size;  /* bytes, a power of two */
	uint8_t *aux;        /* the AUX area, or NULL */
	uint64_t aux_size;   /* bytes, a power of two, or 0 */
	void *map;           /* pmu_ring_map(): control page + data (ours to unmap) */
	size_t map_len;
	void *aux_map;       /* pmu_ring_map(): the AUX area (ours to unmap) */
	size_t aux_map_len;
	uint8_t *copy;       /* PMU_RING_MAX_RECORD bytes for a record that wraps; lazy */
	uint64_t records;    /* records handed out so far */
	uint64_t aux_bytes;  /* AUX bytes handed out so far */
};

#define PMU_RING_INIT { NULL, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, 0 }

/**
 * Map the ring of the event fd: one control page plus data_pages pages (a power
 * of two, 1..PMU_RING_MAX_PAGES), read-write so that data_tail can be stored
 * (the kernel then never overwrites unread records); with aux_pages > 0 (a power
 * of two) also the AUX area after it, read-write (non-overwrite mode).
 * Returns 0; TDP_EUSAGE for page counts that are not powers of two or too large;
 * TDP_EPERM when the kernel refuses the size (the locked-memory limit
 * perf_event_mlock_kb; the hint says so); TDP_EIO for another mmap failure.
 * On failure r is left unmapped. Does not block.
 */
int pmu_ring_map(struct pmu_ring *r, int fd, size_t data_pages, size_t aux_pages, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Use memory laid out as a mapped ring: pc (borrowed) is the control page, data
 * (borrowed) data_size bytes (a power of two, at least 8), aux (borrowed, may be
 * NULL) aux_size bytes (a power of two, or 0). Nothing is unmapped later.
 * Returns 0 or TDP_EINVAL for sizes that are not powers of two.
 */
int pmu_ring_init_mem(struct pmu_ring *r, struct perf_event_mmap_page *pc, void *data, uint64_t data_size,
		      void *aux, uint64_t aux_size, struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Called once per record: rec (borrowed, valid during the call only) is a
 * perf_event_header and its body, len == header.size bytes, 8-aligned. Return 0
 * to go on, or a negative TDP_E* (with err set) to stop reading.
 */
typedef int pmu_ring_record_fn(void *arg, const void *rec, size_t len, struct tdp_err *err);

/**
 * Hand every record between data_tail and data_head to fn, in order, then store
 * the new data_tail. Records the callback accepted are consumed even when a later
 * one fails.
 * Returns the number of records handed out (>= 0); the callback's error; TDP_EFORMAT
 * when a header is impossible (size below 8 or beyond data_head: the ring is
 * then skipped up to data_head so that reading can go on); TDP_ENOMEM for the
 * copy buffer. Does not block; allocates the copy buffer on the first wrap.
 */
int pmu_ring_read(struct pmu_ring *r, pmu_ring_record_fn *fn, void *arg, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Called with the new AUX bytes: offset is the AUX position (aux_tail) of the
 * first byte, the bytes are a[0..alen) followed by b[0..blen) (blen > 0 only when
 * they wrap). All borrowed for the call. Return 0 or a negative TDP_E*.
 */
typedef int pmu_ring_aux_fn(void *arg, uint64_t offset, const uint8_t *a, size_t alen, const uint8_t *b,
			    size_t blen, struct tdp_err *err);

/**
 * Hand the AUX bytes between aux_tail and aux_head to fn, then store aux_tail.
 * Returns the number of bytes handed out; 0 when none are new or there is no AUX
 * area; the callback's error (aux_tail is then left unchanged); TDP_EFORMAT when
 * aux_head is behind aux_tail or more than the area ahead of it.
 */
long pmu_ring_read_aux(struct pmu_ring *r, pmu_ring_aux_fn *fn, void *arg, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** Unmap what pmu_ring_map() mapped and free the copy buffer; r is left as PMU_RING_INIT. */
void pmu_ring_unmap(struct pmu_ring *r);

/** True when n is a power of two (and not 0). */
static inline bool pmu_ring_is_pow2(uint64_t n)
{
	return n && !(n & (n - 1));
}

#endif
