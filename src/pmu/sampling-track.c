/*
 * sampling-track.c: what the engine notes about each record on its way out:
 * the counts (samples, branch entries, lost samples, throttling, truncated AUX
 * data) and, for the DSO tracker, mappings, forks, execs and sample addresses,
 * each with its time so that they are applied in time order (records of
 * different CPUs leave their rings out of order).
 */
#include "pmu/sampling-internal.h"
#include "base/err.h"

#include <string.h>
#include <sys/mman.h>

static int queue(struct pmu_sampling *s, uint8_t kind, uint64_t time, uint32_t pid, uint32_t ppid, uint64_t addr,
		 bool kernel)
{
	struct smp_item it = { .time = time, .addr = addr, .pid = pid, .ppid = ppid, .kind = kind, .kernel = kernel };

	return smp_dsos_queue(&s->dsos, &it, NULL, 0, NULL, 0, 0, 0);
}

static int queue_mmap(struct pmu_sampling *s, uint64_t time, uint32_t pid, uint64_t start, uint64_t len,
		      const char *name, size_t name_len, const uint8_t *bid, size_t bid_size, bool kernel)
{
	struct smp_item it = { .time = time, .pid = pid, .kind = SMP_ITEM_MMAP, .kernel = kernel };

	return smp_dsos_queue(&s->dsos, &it, name, name_len, bid, bid_size, start, len);
}

/* A sample's IP and branch addresses, for the DSOs it hit. */
static int track_sample(struct pmu_sampling *s, const uint8_t *r, size_t len, uint16_t misc)
{
	size_t off = 56 + (s->data_addr ? 8 : 0); /* header, identifier, ip, pid/tid, time, [addr,] cpu/res, period */
	bool kernel = (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	uint64_t nr, time;
	uint32_t pid;
	int ret;

	s->st.samples++;
	if (len < off)
		return 0;
	pid = smp_get32(r + 24);
	time = smp_get64(r + 32);
	ret = queue(s, SMP_ITEM_HIT, time, pid, 0, smp_get64(r + 16), kernel);
	if (ret || !s->branch_sample_type || len < off + 8)
		return ret;
	nr = smp_get64(r + off);
	off += 8 + (s->branch_sample_type & PMU_BRANCH_HW_INDEX ? 8 : 0);
	if (off > len || nr > (len - off) / 24)
		return 0;
	s->st.branch_entries += nr;
	for (uint64_t i = 0; !ret && i < nr; i++, off += 24) {
		ret = queue(s, SMP_ITEM_HIT, time, pid, 0, smp_get64(r + off), false);
		if (!ret)
			ret = queue(s, SMP_ITEM_HIT, time, pid, 0, smp_get64(r + off + 8), false);
	}
	return ret;
}

/*
 * Follow what the DSO tracker and the counts need from one record. The time of
 * a non-sample record is in its sample_id trailer (TID, TIME, CPU, IDENTIFIER):
 * 24 bytes before its end; synthesized records have 0 there.
 */
int smp_track(struct pmu_sampling *s, const uint8_t *r, size_t len)
{
	struct perf_event_header h;
	uint64_t time = len >= 8 + s->id_size ? smp_get64(r + len - 24) : 0;

	memcpy(&h, r, sizeof(h));
	switch (h.type) {
	case PERF_RECORD_SAMPLE:
		return track_sample(s, r, len, h.misc);
	case PERF_RECORD_MMAP2: {
		const uint8_t *bid = NULL;
		size_t bid_size = 0;

		if (len < 72 + s->id_size || !(smp_get32(r + 64) & PROT_EXEC))
			return 0;
		if (h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			s->st.build_id_mmap = true;
			bid = r + 44;
			bid_size = r[40] <= PMU_BUILD_ID_MAX ? r[40] : PMU_BUILD_ID_MAX;
		}
		return queue_mmap(s, time, smp_get32(r + 8), smp_get64(r + 16), smp_get64(r + 24), (const char *)r + 72,
				  strnlen((const char *)r + 72, len - 72 - s->id_size), bid, bid_size, false);
	}
	case PERF_RECORD_MMAP:
		if (len < 40 + s->id_size)
			return 0;
		if ((h.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
			return queue_mmap(s, time, SMP_KERNEL_PID, smp_get64(r + 16), smp_get64(r + 24), SMP_KERNEL_NAME,
					  strlen(SMP_KERNEL_NAME), NULL, 0, true);
		return queue_mmap(s, time, smp_get32(r + 8), smp_get64(r + 16), smp_get64(r + 24), (const char *)r + 40,
				  strnlen((const char *)r + 40, len - 40 - s->id_size), NULL, 0, false);
	case PERF_RECORD_COMM:
		if (len >= 16 && (h.misc & PERF_RECORD_MISC_COMM_EXEC))
			return queue(s, SMP_ITEM_EXEC, time, smp_get32(r + 8), 0, 0, false);
		return 0;
	case PERF_RECORD_FORK:
		return len >= 16 ? queue(s, SMP_ITEM_FORK, time, smp_get32(r + 8), smp_get32(r + 12), 0, false) : 0;
	case PERF_RECORD_LOST:
		if (len >= 24) {
			s->st.lost += smp_get64(r + 16);
			s->st.lost_records++;
		}
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		if (len >= 16)
			s->st.lost_samples += smp_get64(r + 8);
		return 0;
	case PERF_RECORD_THROTTLE:
		s->st.throttled++;
		return 0;
	case PERF_RECORD_AUX:
		if (len >= 32 && (smp_get64(r + 24) & PERF_AUX_FLAG_TRUNCATED))
			s->st.aux_truncated++;
		return 0;
	default:
		return 0;
	}
}
