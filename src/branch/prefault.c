/*
 * prefault.c: keep a window of a large input mapped ahead of the reader, on a
 * second thread, and release what the reader has passed (branch.h).
 *
 * A perf.data of 200,000 samples x 32 entries is 160 MB. Read through a fresh
 * mmap, it costs one page fault per 64 KiB (the kernel's fault-around), a third
 * of the time the reader needs to decode it, and all of it stays resident.
 * MADV_POPULATE_READ (Linux 5.14) maps a range in one call: done from a helper
 * thread in 1 MiB steps up to BRANCH_PREFAULT_AHEAD past the reader, the pages
 * are in place by the time the reader reaches them. Behind the reader,
 * MADV_DONTNEED drops the pages from this process (they stay in the page cache,
 * and a later access to a released page of a private read-only file mapping just
 * maps it again), so the resident set is a window, not the file. The helper
 * does both, so the reader's thread only reports how far it got.
 *
 * Whatever the scheduling, the window holds: the helper maps only within
 * [reader, reader + BRANCH_PREFAULT_AHEAD) (branch_prefault_window()), so a
 * helper starved of CPU skips what the reader already passed instead of mapping
 * it again; a step it mapped while the reader released the same pages is
 * released again; and the reader releases behind itself when the helper is too
 * far behind to do it (READER_RELEASE_SLACK). Without the first two a busy
 * machine let the resident set grow to most of the file (issue 21).
 */
#include "branch/branch.h"
#include "base/alloc.h"
#include "base/err.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

/* Bytes mapped per madvise() call: the helper holds the mmap lock that long. */
#define PREFAULT_STEP (1u << 20)
/* Progress is passed to the helper, and pages released, in steps of this. */
#define PROGRESS_STEP (4u << 20)
/* Released only that far behind the reader (a record may span the boundary). */
#define RELEASE_LAG (1u << 20)
/* The reader releases for itself when this much behind it is still mapped. */
#define READER_RELEASE_SLACK (8u << 20)

struct branch_prefault {
	pthread_t thread;
	uintptr_t start, end;     /* the image, start page-aligned down */
	size_t page;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uintptr_t progress;       /* the reader's position (under mu) */
	uintptr_t keep;           /* never release below this (under mu) */
	uintptr_t released;       /* released below this (under mu; whoever claims a range
				   * moves it, then releases outside the lock) */
	bool stop;                /* (under mu) */
	uintptr_t told;           /* reader side: last position passed on */
};

static void populate(struct branch_prefault *pf, uintptr_t from, uintptr_t to, bool *use_madvise)
{
	volatile uint8_t sink = 0;

	if (*use_madvise && madvise((void *)from, to - from, MADV_POPULATE_READ) == 0)
		return;
	if (*use_madvise && errno != EINVAL)
		return; /* EFAULT/ENOMEM: leave it to the reader's own faults */
	*use_madvise = false;
	for (uintptr_t p = from; p < to; p += pf->page)
		sink ^= *(const volatile uint8_t *)p;
	(void)sink;
}

void branch_prefault_window(uintptr_t done, uintptr_t reader, uintptr_t end, size_t page, uintptr_t *from,
			   uintptr_t *to)
{
	uintptr_t f = done > reader ? done : reader & ~(uintptr_t)(page - 1);
	/* whole pages but the image's last: madvise() refuses a range that does not start on one */
	uintptr_t limit = reader + BRANCH_PREFAULT_AHEAD < end ? (reader + BRANCH_PREFAULT_AHEAD) & ~(uintptr_t)(page - 1)
							       : end;
	uintptr_t t = f + PREFAULT_STEP < limit ? f + PREFAULT_STEP : limit;

	*from = f;
	*to = t > f ? t : f;
}

uintptr_t branch_prefault_claim(uintptr_t released, uintptr_t keep, uintptr_t reader, uintptr_t start, size_t page,
				uintptr_t *from, uintptr_t *to)
{
	uintptr_t f = released, t;

	if (f < keep)
		f = (keep + page - 1) & ~(uintptr_t)(page - 1);
	t = reader > start + RELEASE_LAG ? (reader - RELEASE_LAG) & ~(uintptr_t)(page - 1) : 0;
	if (t <= f) {
		*from = *to = 0;
		return f > released ? f : released; /* nothing to release yet */
	}
	*from = f;
	*to = t;
	return t;
}

/* Claim the pages the reader has passed for release: called with mu held; returns the range (empty when none). */
static void claim(struct branch_prefault *pf, uintptr_t *from, uintptr_t *to)
{
	pf->released = branch_prefault_claim(pf->released, pf->keep, pf->progress, pf->start, pf->page, from, to);
}

static void release(uintptr_t from, uintptr_t to)
{
	if (to > from)
		madvise((void *)from, to - from, MADV_DONTNEED);
}

/*
 * The helper: map ahead of the reader, release behind it. Both are work the
 * reader would otherwise do itself (faults ahead, and the unmapping at exit).
 */
static void *prefault_run(void *arg)
{
	struct branch_prefault *pf = arg;
	uintptr_t done = pf->start;
	bool use_madvise = true;

	pthread_mutex_lock(&pf->mu);
	while (!pf->stop) {
		uintptr_t from, to;

		branch_prefault_window(done, pf->progress, pf->end, pf->page, &from, &to);
		if (from >= to) {
			if (pf->released + PROGRESS_STEP <= pf->progress) {
				claim(pf, &from, &to);
				pthread_mutex_unlock(&pf->mu);
				release(from, to);
				pthread_mutex_lock(&pf->mu);
				continue;
			}
			pthread_cond_wait(&pf->cv, &pf->mu);
			continue;
		}
		pthread_mutex_unlock(&pf->mu);
		populate(pf, from, to, &use_madvise);
		done = to;
		pthread_mutex_lock(&pf->mu);
		/* the reader released part of this step while it was being mapped: release it again */
		if (from < pf->released) {
			uintptr_t upto = to < pf->released ? to : pf->released;

			pthread_mutex_unlock(&pf->mu);
			release(from, upto);
			pthread_mutex_lock(&pf->mu);
		}
	}
	pthread_mutex_unlock(&pf->mu);
	return NULL;
}

int branch_prefault_start(struct branch_prefault **out, const uint8_t *buf, size_t len, struct tdp_err *err)
{
	struct branch_prefault *pf;
	long page = sysconf(_SC_PAGESIZE);

	*out = NULL;
	if (!buf || len < BRANCH_PREFAULT_MIN)
		return 0;
	pf = tdp_calloc(1, sizeof(*pf));
	if (!pf)
		return tdp_err_oom(err);
	pf->page = page > 0 ? (size_t)page : 4096;
	pf->start = (uintptr_t)buf & ~(uintptr_t)(pf->page - 1);
	pf->end = (uintptr_t)buf + len;
	pf->progress = pf->told = pf->keep = pf->released = pf->start;
	if (pthread_mutex_init(&pf->mu, NULL)) {
		tdp_free(pf);
		return 0;
	}
	if (pthread_cond_init(&pf->cv, NULL)) {
		pthread_mutex_destroy(&pf->mu);
		tdp_free(pf);
		return 0;
	}
	if (pthread_create(&pf->thread, NULL, prefault_run, pf)) {
		/* not worth failing the report for: it only runs slower */
		pthread_cond_destroy(&pf->cv);
		pthread_mutex_destroy(&pf->mu);
		tdp_free(pf);
		return 0;
	}
	*out = pf;
	return 0;
}

void branch_prefault_progress(struct branch_prefault *pf, size_t off, size_t keep_below)
{
	uintptr_t at, from = 0, to = 0;

	if (!pf)
		return;
	at = pf->start + off;
	if (at < pf->told + PROGRESS_STEP)
		return;
	pf->told = at;
	pthread_mutex_lock(&pf->mu);
	pf->progress = at;
	pf->keep = pf->start + keep_below;
	/* a helper starved of CPU must not let the resident set grow: release here */
	if (pf->released + READER_RELEASE_SLACK < at)
		claim(pf, &from, &to);
	pthread_cond_signal(&pf->cv);
	pthread_mutex_unlock(&pf->mu);
	release(from, to);
}

void branch_prefault_stop(struct branch_prefault *pf)
{
	if (!pf)
		return;
	pthread_mutex_lock(&pf->mu);
	pf->stop = true;
	pthread_cond_signal(&pf->cv);
	pthread_mutex_unlock(&pf->mu);
	pthread_join(pf->thread, NULL);
	pthread_cond_destroy(&pf->cv);
	pthread_mutex_destroy(&pf->mu);
	tdp_free(pf);
}
