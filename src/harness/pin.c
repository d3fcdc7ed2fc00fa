/*
 * pin.c: pin the calling thread to one CPU and check that it took.
 *
 * sched_setaffinity(0, ...) applies to the calling thread only, which is what a
 * harness object owns. The kernel moves the thread before the call returns, so
 * sched_getcpu() right after must already answer the pinned CPU; the harness
 * checks it again before every run.
 */
#include "harness-internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void harness_cpuset_format(const cpu_set_t *set, char *buf, size_t size)
{
	int first = -1;
	bool any = false;

	if (size)
		buf[0] = '\0';
	for (int c = 0; c <= CPU_SETSIZE; c++) {
		bool in = c < CPU_SETSIZE && CPU_ISSET(c, set);

		if (in && first < 0)
			first = c;
		if (!in && first >= 0) {
			if (c - 1 == first)
				harness_appendf(buf, size, "%s%d", any ? "," : "", first);
			else
				harness_appendf(buf, size, "%s%d-%d", any ? "," : "", first, c - 1);
			any = true;
			first = -1;
		}
	}
	if (!any)
		harness_appendf(buf, size, "none");
}

int harness_pin(struct harness_pin *p, int cpu, char *err, size_t err_size)
{
	cpu_set_t want, got;
	char allowed[128];
	int rc = -EINVAL, now;

	p->cpu = -1;
	p->restore = false;
	if (sched_getaffinity(0, sizeof(p->saved), &p->saved)) {
		snprintf(err, err_size, "cannot read the CPU affinity: %s", strerror(errno));
		goto out;
	}
	harness_cpuset_format(&p->saved, allowed, sizeof(allowed));
	if (cpu == TDP_HARNESS_CPU_CURRENT && (cpu = sched_getcpu()) < 0) {
		snprintf(err, err_size, "cannot tell which CPU this thread runs on: %s", strerror(errno));
		goto out;
	}
	if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &p->saved)) {
		snprintf(err, err_size, "cannot pin to CPU %d: this thread may run only on CPUs %s", cpu, allowed);
		goto out;
	}
	CPU_ZERO(&want);
	CPU_SET(cpu, &want);
	if (sched_setaffinity(0, sizeof(want), &want)) {
		snprintf(err, err_size, "cannot pin to CPU %d: %s (allowed: CPUs %s)", cpu, strerror(errno), allowed);
		goto out;
	}
	p->restore = true;
	now = sched_getcpu();
	if (sched_getaffinity(0, sizeof(got), &got) || CPU_COUNT(&got) != 1 || !CPU_ISSET(cpu, &got) ||
	    now != cpu) {
		snprintf(err, err_size, "pinned to CPU %d but the thread runs on CPU %d", cpu, now);
		harness_unpin(p);
		goto out;
	}
	p->cpu = cpu;
	rc = 0;
out:
	return rc;
}

void harness_unpin(struct harness_pin *p)
{
	if (p->restore)
		sched_setaffinity(0, sizeof(p->saved), &p->saved);
	p->restore = false;
	p->cpu = -1;
}
