/*
 * sampling-spe.c: what an Arm SPE recording needs beyond ordinary sampling: the
 * event spec from the PMU's format/ terms, and the records perf writes for AUX
 * tracing: AUXTRACE_INFO (tools/perf/util/arm-spe.h, arch/arm64/util/arm-spe.c
 * arm_spe_info_fill()), AUXTRACE headers (util/auxtrace.c auxtrace_mmap__read())
 * and TIME_CONV (util/tsc.c perf_event__synth_time_conv()).
 */
#include "pmu/sampling.h"
#include "base/err.h"
#include "base/strbuf.h"

#include <string.h>

/* Record types perf synthesizes (tools/lib/perf/include/perf/event.h). */
#define REC_AUXTRACE_INFO 70
#define REC_AUXTRACE 71
#define REC_TIME_CONV 79

static bool has_format(const struct cpu_pmu *p, const char *name)
{
	for (size_t i = 0; i < p->nr_format; i++)
		if (!strcmp(p->format[i].name, name))
			return true;
	return false;
}

int pmu_spe_event_spec(const struct cpu_pmu *spe, bool mispred_only, struct strbuf *sb, struct tdp_err *err)
{
	if (!has_format(spe, "branch_filter")) {
		tdp_err_set(err, TDP_ENOTSUP, "the '%s' PMU has no 'branch_filter' format term", spe->name);
		tdp_err_hint(err, "its driver is too old to sample only branches (Linux 4.16 or later has it)");
		return TDP_ENOTSUP;
	}
	strbuf_addf(sb, "%s/branch_filter=1", spe->name);
	/* timestamps let perf order SPE records against the other records of each CPU */
	if (has_format(spe, "ts_enable"))
		strbuf_adds(sb, ",ts_enable=1");
	/* a little randomness in the interval avoids sampling in step with a loop */
	if (has_format(spe, "jitter"))
		strbuf_adds(sb, ",jitter=1");
	if (mispred_only && has_format(spe, "event_filter"))
		strbuf_addf(sb, ",event_filter=0x%llx", (unsigned long long)PMU_SPE_EV_MISPRED);
	strbuf_addch(sb, '/');
	return 0;
}

int pmu_spe_load_spec(const struct cpu_pmu *spe, struct strbuf *sb, struct tdp_err *err)
{
	if (!has_format(spe, "load_filter")) {
		tdp_err_set(err, TDP_ENOTSUP, "the '%s' PMU has no 'load_filter' format term", spe->name);
		tdp_err_hint(err, "its driver is too old to sample only loads (Linux 4.16 or later has it)");
		return TDP_ENOTSUP;
	}
	strbuf_addf(sb, "%s/load_filter=1", spe->name);
	if (has_format(spe, "ts_enable"))
		strbuf_adds(sb, ",ts_enable=1");
	if (has_format(spe, "jitter"))
		strbuf_adds(sb, ",jitter=1");
	strbuf_addch(sb, '/');
	return 0;
}

static void put_header(uint8_t *buf, uint32_t type, uint16_t misc, uint16_t size)
{
	memcpy(buf, &type, 4);
	memcpy(buf + 4, &misc, 2);
	memcpy(buf + 6, &size, 2);
}

static void put64(uint8_t *buf, uint64_t v)
{
	memcpy(buf, &v, 8);
}

static void put32(uint8_t *buf, uint32_t v)
{
	memcpy(buf, &v, 4);
}

size_t pmu_spe_auxtrace_info(uint8_t buf[PMU_SPE_AUXTRACE_INFO_SIZE], uint32_t pmu_type, bool per_cpu)
{
	memset(buf, 0, PMU_SPE_AUXTRACE_INFO_SIZE);
	put_header(buf, REC_AUXTRACE_INFO, 0, PMU_SPE_AUXTRACE_INFO_SIZE);
	put32(buf + 8, PMU_AUXTRACE_ARM_SPE); /* then u32 reserved */
	put64(buf + 16, pmu_type);            /* priv[ARM_SPE_PMU_TYPE] */
	put64(buf + 24, per_cpu ? 1 : 0);     /* priv[ARM_SPE_PER_CPU_MMAPS] */
	return PMU_SPE_AUXTRACE_INFO_SIZE;
}

size_t pmu_auxtrace_header(uint8_t buf[PMU_AUXTRACE_HEADER_SIZE], uint64_t size, uint64_t offset,
			   uint64_t reference, uint32_t idx, uint32_t tid, uint32_t cpu)
{
	memset(buf, 0, PMU_AUXTRACE_HEADER_SIZE);
	put_header(buf, REC_AUXTRACE, 0, PMU_AUXTRACE_HEADER_SIZE);
	put64(buf + 8, size);
	put64(buf + 16, offset);
	put64(buf + 24, reference);
	put32(buf + 32, idx);
	put32(buf + 36, tid);
	put32(buf + 40, cpu); /* then u32 reserved */
	return PMU_AUXTRACE_HEADER_SIZE;
}

size_t pmu_time_conv(uint8_t buf[PMU_TIME_CONV_SIZE], const struct perf_event_mmap_page *pc)
{
	uint64_t shift = 0, mult = 0, zero = 0, cycles = 0, mask = 0;
	uint8_t cap_zero = 0, cap_short = 0;

	/* the kernel updates these under the page's seqcount (pc->lock): retry while it moves */
	for (int tries = 0; tries < 1000; tries++) {
		uint32_t seq = __atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE);

		shift = pc->time_shift;
		mult = pc->time_mult;
		zero = pc->time_zero;
		cycles = pc->time_cycles;
		mask = pc->time_mask;
		cap_zero = (uint8_t)pc->cap_user_time_zero;
		cap_short = (uint8_t)pc->cap_user_time_short;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(seq & 1) && __atomic_load_n(&pc->lock, __ATOMIC_RELAXED) == seq)
			break;
	}
	memset(buf, 0, PMU_TIME_CONV_SIZE);
	put_header(buf, REC_TIME_CONV, 0, PMU_TIME_CONV_SIZE);
	put64(buf + 8, shift);
	put64(buf + 16, mult);
	put64(buf + 24, zero);
	put64(buf + 32, cycles);
	put64(buf + 40, mask);
	buf[48] = cap_zero;
	buf[49] = cap_short;
	return PMU_TIME_CONV_SIZE;
}
