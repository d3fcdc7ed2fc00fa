/*
 * counters.c: perf_event groups, and reading them as cheaply as the machine allows.
 *
 * All events of a measurement are one group (PERF_FORMAT_GROUP), so the kernel
 * schedules them together and one read() returns every count with the group's
 * enabled and running times.
 *
 * The cheaper read is rdpmc through each event's mmap page (struct
 * perf_event_mmap_page in <linux/perf_event.h>, whose comments give the
 * protocol): under the page's sequence lock, read index and offset; when
 * cap_user_rdpmc is set and index is non-zero the event is live in hardware
 * counter index - 1, and its value is offset + the counter sign-extended from
 * pmc_width bits. Index 0 means the event is not on a counter right now
 * (descheduled, multiplexed out): fall back to read() for that reading. The
 * enabled and running times are brought up to date with the page's
 * time_mult/time_shift/time_offset applied to the time counter (also when they
 * are equal: the page holds them as of the event's last schedule-in), and the
 * count is scaled by enabled / running. See docs/harness.md for the cost of one
 * such read from its instruction sequence.
 */
#include "harness-internal.h"
#include "arch.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

void harness_group_init(struct harness_group *g)
{
	memset(g, 0, sizeof(*g));
	for (size_t i = 0; i < HARNESS_MAX_EVENTS; i++)
		g->fd[i] = -1;
}

uint64_t harness_pmc_sign_extend(uint64_t raw, unsigned width)
{
	if (width == 0 || width >= 64)
		return raw;
	/* Shift the sign bit to bit 63, then back with an arithmetic shift. */
	return (uint64_t)((int64_t)(raw << (64 - width)) >> (64 - width));
}

uint64_t harness_mmap_time(uint64_t cyc, uint32_t mult, uint16_t shift, uint64_t offset)
{
	uint64_t quot, rem;

	if (shift >= 64)
		return offset;
	/* Split so that cyc * mult cannot overflow 64 bits (perf_event.h). */
	quot = cyc >> shift;
	rem = cyc & ((UINT64_C(1) << shift) - 1);
	return offset + quot * mult + ((rem * mult) >> shift);
}

double harness_scale(double delta, uint64_t enabled, uint64_t running)
{
	if (running == 0 || running >= enabled)
		return delta;
	return delta * ((double)enabled / (double)running);
}

static int perf_open(struct perf_event_attr *a, int group_fd)
{
	return (int)syscall(SYS_perf_event_open, a, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

int harness_group_open(struct harness_group *g, const struct harness_event *ev, size_t nr,
		       unsigned flags, char *err, size_t err_size)
{
	long pagesize = sysconf(_SC_PAGESIZE);
	int rc = 0;

	harness_group_init(g);
	if (nr == 0 || nr > HARNESS_MAX_EVENTS) {
		snprintf(err, err_size, "a group of %zu events (1 to %d allowed)", nr, HARNESS_MAX_EVENTS);
		return -EINVAL;
	}
	for (size_t i = 0; i < nr; i++) {
		struct perf_event_attr a;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = ev[i].type;
		a.config = ev[i].config;
		a.config1 = ev[i].config1;
		a.disabled = i == 0;
		a.exclude_kernel = !(flags & HARNESS_GROUP_KERNEL);
		a.exclude_hv = 1;
		a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING;
		g->fd[i] = perf_open(&a, i ? g->fd[0] : -1);
		if (g->fd[i] < 0) {
			rc = -errno;
			snprintf(err, err_size, "perf_event_open of '%s' failed: %s", ev[i].name, strerror(errno));
			goto out;
		}
		g->nr = i + 1;
		if (flags & HARNESS_GROUP_RDPMC) {
			void *p = mmap(NULL, (size_t)pagesize, PROT_READ, MAP_SHARED, g->fd[i], 0);

			g->page[i] = p == MAP_FAILED ? NULL : p;
		}
	}
out:
	if (rc)
		harness_group_close(g);
	return rc;
}

int harness_group_enable(struct harness_group *g, bool on)
{
	if (!g->nr)
		return 0;
	if (ioctl(g->fd[0], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP))
		return -errno;
	return 0;
}

static int read_syscall(struct harness_group *g, struct harness_reading *r)
{
	uint64_t buf[3 + HARNESS_MAX_EVENTS];
	ssize_t n = read(g->fd[0], buf, sizeof(buf));

	if (n < 0)
		return -errno;
	if ((size_t)n < (3 + g->nr) * sizeof(uint64_t) || buf[0] != g->nr)
		return -EIO;
	r->enabled = buf[1];
	r->running = buf[2];
	for (size_t i = 0; i < g->nr; i++)
		r->count[i] = buf[3 + i];
	return 0;
}

/*
 * One event through its mmap page. Returns false when it cannot be read this
 * way now (no user access, or index 0). The acquire fences order the page reads
 * against the lock reads on weakly ordered CPUs; on x86 they are only compiler
 * barriers.
 */
static bool page_read(const struct perf_event_mmap_page *page, uint64_t *count, uint64_t *enabled,
		      uint64_t *running)
{
	const volatile struct perf_event_mmap_page *pc = page;
	uint32_t seq, idx, mult = 0;
	uint16_t shift = 0;
	uint64_t cnt, en, run, cyc = 0, offset = 0, tcycles = 0, tmask = 0;
	bool ext, user_rdpmc, short_time = false;

	do {
		seq = pc->lock;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		en = pc->time_enabled;
		run = pc->time_running;
		/* always: with enabled == running the page's times are those of the
		   last update (schedule-in), so two reads would show no running time */
		ext = pc->cap_user_time;
		if (ext) {
			cyc = harness_arch_user_time();
			mult = pc->time_mult;
			shift = pc->time_shift;
			offset = pc->time_offset;
			short_time = pc->cap_user_time_short;
			tcycles = pc->time_cycles;
			tmask = pc->time_mask;
		}
		idx = pc->index;
		cnt = pc->offset;
		user_rdpmc = pc->cap_user_rdpmc;
		if (user_rdpmc && idx)
			cnt += harness_pmc_sign_extend(harness_arch_read_pmc(idx - 1), pc->pmc_width);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (pc->lock != seq);
	if (!user_rdpmc || !idx)
		return false;
	if (ext) {
		uint64_t delta;

		/* A time counter narrower than 64 bits (arm64): extend from time_cycles. */
		if (short_time)
			cyc = tcycles + ((cyc - tcycles) & tmask);
		delta = harness_mmap_time(cyc, mult, shift, offset);
		en += delta;
		run += delta;
	}
	*count = cnt;
	*enabled = en;
	*running = run;
	return true;
}

int harness_group_read(struct harness_group *g, struct harness_reading *r)
{
	if (g->rdpmc) {
		size_t i;

		for (i = 0; i < g->nr; i++) {
			uint64_t en, run;

			if (!page_read(g->page[i], &r->count[i], &en, &run))
				break;
			if (i == 0) {
				r->enabled = en;
				r->running = run;
			}
		}
		if (i == g->nr)
			return 0;
		g->rdpmc_fallbacks++;
	}
	return read_syscall(g, r);
}

int harness_group_probe(struct harness_group *g)
{
	struct harness_reading r;
	volatile uint64_t spin = 0;
	bool all = harness_arch_has_user_pmc();
	int rc;

	g->rdpmc = false;
	rc = harness_group_enable(g, true);
	if (rc)
		goto out;
	for (int i = 0; i < 100000; i++)
		spin = spin + 1;
	rc = read_syscall(g, &r);
	if (!rc && r.running == 0)
		rc = -ENODATA;
	for (size_t i = 0; !rc && i < g->nr; i++) {
		uint64_t c, en, run;

		if (!g->page[i] || !page_read(g->page[i], &c, &en, &run))
			all = false;
	}
	if (!rc)
		g->rdpmc = all;
	harness_group_enable(g, false);
out:
	return rc;
}

void harness_group_close(struct harness_group *g)
{
	long pagesize = sysconf(_SC_PAGESIZE);

	for (size_t i = HARNESS_MAX_EVENTS; i-- > 0;) {
		if (g->page[i])
			munmap(g->page[i], (size_t)pagesize);
		if (g->fd[i] >= 0)
			close(g->fd[i]);
	}
	harness_group_init(g);
}
