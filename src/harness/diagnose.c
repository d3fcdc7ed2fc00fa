/*
 * diagnose.c: when the repetitions disagree, say why, from what was counted.
 *
 * The causes are listed in the order they usually dominate on a shared
 * machine: the thread was moved (migrations), other work ran on its CPU
 * (context switches), the hypervisor took the CPU (steal time), the core clock
 * changed (cycles per ns, or cpufreq, varied across repetitions), the kernel
 * touched new memory (page faults), the counters were time-shared. When none
 * was counted the variation is the kernel's own, or from something the harness
 * cannot see (interrupts, another hyper-thread, a noisy host).
 */
#include "harness-internal.h"

#include <math.h>
#include <stdio.h>

/* A change of the core clock worth naming: 2 % between repetitions. */
#define FREQ_CHANGE 0.02

/* Fewer repetitions kept than asked: how many, and what the discarded ones had. */
static void few_kept(const struct harness_evidence *ev, char *text, size_t size)
{
	static const char *const cause[HARNESS_NR_VERDICTS] = {
		[HARNESS_DISCARD_PREEMPTED] = "preempted",
		[HARNESS_DISCARD_MIGRATED] = "migrated",
		[HARNESS_DISCARD_NONPOSITIVE] = "with t(2N) <= t(N)",
		[HARNESS_DISCARD_INCONSISTENT] = "with 2N not twice N (an interrupt or steal time)",
	};
	const char *sep = "";

	if (ev->kept)
		harness_appendf(text, size, "only %u of %u repetitions kept (discarded: ", ev->kept, ev->wanted);
	else
		harness_appendf(text, size, "no repetition could be kept, so there is no figure (discarded: ");
	for (int v = HARNESS_KEEP + 1; v < HARNESS_NR_VERDICTS; v++)
		if (ev->discarded[v]) {
			harness_appendf(text, size, "%s%u %s", sep, ev->discarded[v], cause[v]);
			sep = ", ";
		}
	harness_appendf(text, size, "): the machine is too busy to measure cleanly; stop other work or pin to an "
			"idle CPU");
}

void harness_diagnose(const struct harness_evidence *ev, unsigned *warnings, char *text, size_t size)
{
	unsigned w = 0;
	const char *sep = "";

	if (size)
		text[0] = '\0';
	if (ev->sw.migrations)
		w |= TDP_HARNESS_WARN_MIGRATION;
	if (ev->sw.cswitch)
		w |= TDP_HARNESS_WARN_CSWITCH;
	if (!isnan(ev->steal_ms) && ev->steal_ms > 0)
		w |= TDP_HARNESS_WARN_STEAL;
	if ((!isnan(ev->ghz_min) && ev->ghz_max > ev->ghz_min * (1 + FREQ_CHANGE)) ||
	    (ev->khz_min && ev->khz_max > ev->khz_min + (uint64_t)(ev->khz_min * FREQ_CHANGE)))
		w |= TDP_HARNESS_WARN_FREQUENCY;
	if (ev->sw.faults)
		w |= TDP_HARNESS_WARN_PAGE_FAULTS;
	if (ev->multiplexed)
		w |= TDP_HARNESS_WARN_MULTIPLEXED;
	if (ev->kept < ev->wanted) {
		w |= TDP_HARNESS_WARN_FEW_KEPT;
		few_kept(ev, text, size);
	}
	if (!(ev->spread > ev->threshold)) {
		*warnings = w;
		return;
	}
	w |= TDP_HARNESS_WARN_SPREAD;
	*warnings = w;
	harness_appendf(text, size, "%sspread %.2f %% (MAD/median) is above %.2f %%, too high to trust; likely cause: ",
			size && text[0] ? "; " : "", 100 * ev->spread, 100 * ev->threshold);
	if (w & TDP_HARNESS_WARN_MIGRATION) {
		harness_appendf(text, size, "%sthe thread moved between CPUs %llu times (pin it with a CPU number)",
				sep, (unsigned long long)ev->sw.migrations);
		sep = "; ";
	}
	if (w & TDP_HARNESS_WARN_CSWITCH) {
		harness_appendf(text, size, "%s%llu context switch%s (%llu preemption%s", sep,
				(unsigned long long)ev->sw.cswitch, ev->sw.cswitch == 1 ? "" : "es",
				(unsigned long long)ev->sw.involuntary, ev->sw.involuntary == 1 ? "" : "s");
		if (ev->discarded[HARNESS_DISCARD_PREEMPTED])
			harness_appendf(text, size, ", %u repetitions discarded for it",
					ev->discarded[HARNESS_DISCARD_PREEMPTED]);
		if (ev->cpu >= 0)
			harness_appendf(text, size,
					"): other work shared CPU %d (pick an idle CPU with a CPU number, or stop the "
					"other work)",
					ev->cpu);
		else
			harness_appendf(text, size, "): other work shared the CPU");
		sep = "; ";
	}
	if (w & TDP_HARNESS_WARN_STEAL) {
		harness_appendf(text, size, "%sthe hypervisor took %.0f ms of steal time (a busy host)", sep,
				ev->steal_ms);
		sep = "; ";
	}
	if (w & TDP_HARNESS_WARN_FREQUENCY) {
		if (!isnan(ev->ghz_min))
			harness_appendf(text, size,
					"%sthe core clock varied from %.2f to %.2f GHz (fix it: performance governor, "
					"turbo off)",
					sep, ev->ghz_min, ev->ghz_max);
		else
			harness_appendf(text, size, "%sthe core clock varied from %.2f to %.2f GHz (cpufreq)", sep,
					ev->khz_min / 1e6, ev->khz_max / 1e6);
		sep = "; ";
	}
	if (w & TDP_HARNESS_WARN_PAGE_FAULTS) {
		harness_appendf(text, size, "%s%llu page faults: the kernel touches new memory (allocate and touch "
				"it in setup)", sep, (unsigned long long)ev->sw.faults);
		sep = "; ";
	}
	if (w & TDP_HARNESS_WARN_MULTIPLEXED) {
		harness_appendf(text, size, "%sthe counters were time-shared with other events (scaled)", sep);
		sep = "; ";
	}
	if (!*sep)
		harness_appendf(text, size,
				"no interruption was counted: the kernel's own time varies (data-dependent work, "
				"caches, memory) or the machine is shared in ways not counted here (interrupts, "
				"a sibling hyper-thread); try more repetitions or a longer target time");
}
