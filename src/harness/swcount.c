/*
 * swcount.c: what else happened on the CPU while the kernel ran, for naming the
 * cause of a high spread.
 *
 * Context switches, migrations and page faults come from perf software events
 * counted in the kernel too: a context switch happens in kernel mode, so a
 * user-only (exclude_kernel) software event never sees one. Opening them that
 * way needs perf_event_paranoid <= 1 or CAP_PERFMON; without it getrusage()
 * gives context switches and page faults, and sched_getcpu() at each reading
 * catches migrations. Preemptions (involuntary context switches, which spoil a
 * measurement, unlike a wait the kernel asked for) come from getrusage(). Steal time (a hypervisor running another guest on our
 * CPU) comes from /proc/stat, the core clock from cpufreq when it exists.
 */
#include "harness-internal.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static const struct harness_event sw_events[] = {
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0, "context-switches" },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, 0, "cpu-migrations" },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0, "page-faults" },
};

void harness_sw_open(struct harness_sw *s)
{
	char err[HARNESS_ERR_MAX];

	s->last_cpu = sched_getcpu();
	s->migrations = 0;
	if (harness_group_open(&s->group, sw_events, 3, HARNESS_GROUP_KERNEL, err, sizeof(err)))
		return;
	if (harness_group_enable(&s->group, true))
		harness_group_close(&s->group);
}

void harness_sw_read(struct harness_sw *s, struct harness_swcount *out)
{
	struct harness_reading r;
	struct rusage ru;
	int cpu;

	/* getrusage always: it alone tells preemptions (involuntary) from waits. */
	memset(&ru, 0, sizeof(ru));
	getrusage(RUSAGE_THREAD, &ru);
	out->involuntary = (uint64_t)ru.ru_nivcsw;
	if (s->group.nr && !harness_group_read(&s->group, &r)) {
		out->cswitch = r.count[0];
		out->migrations = r.count[1];
		out->faults = r.count[2];
		return;
	}
	cpu = sched_getcpu();
	if (cpu != s->last_cpu)
		s->migrations++;
	s->last_cpu = cpu;
	out->cswitch = (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
	out->faults = (uint64_t)ru.ru_minflt + (uint64_t)ru.ru_majflt;
	out->migrations = s->migrations;
}

void harness_sw_close(struct harness_sw *s)
{
	harness_group_close(&s->group);
}

/*
 * /proc/stat: "cpuN user nice system idle iowait irq softirq steal ..." in
 * USER_HZ ticks (proc(5)); "cpu " is the sum over CPUs.
 */
double harness_steal_ms(int cpu)
{
	char want[32], line[512];
	double ms = NAN;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "re");

	if (!f || hz <= 0)
		goto out;
	if (cpu < 0)
		snprintf(want, sizeof(want), "cpu ");
	else
		snprintf(want, sizeof(want), "cpu%d ", cpu);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v[8];

		if (strncmp(line, want, strlen(want)))
			continue;
		if (sscanf(line + strlen(want), "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
			   &v[3], &v[4], &v[5], &v[6], &v[7]) == 8)
			ms = (double)v[7] * 1000.0 / (double)hz;
		break;
	}
out:
	if (f)
		fclose(f);
	return ms;
}

uint64_t harness_cpufreq_khz(int cpu)
{
	char path[96], buf[32];
	unsigned long long khz;

	if (cpu < 0)
		return 0;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", cpu);
	if (harness_read_file(path, buf, sizeof(buf)) <= 0 || sscanf(buf, "%llu", &khz) != 1)
		return 0;
	return khz;
}
