/* record.c: a sampled run written as a perf.data (see record.h). */
#include "measure/record.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/err.h"
#include "perfdata/format.h"
#include "perfdata/perfdata-write.h"

#ifndef TDPROF_VERSION
#define TDPROF_VERSION "unknown"
#endif

void measure_record_init(struct measure_record *r)
{
	r->w = NULL;
	r->s = NULL;
	r->memfd = -1;
	r->map = NULL;
	r->map_size = 0;
}

static int write_record(void *arg, const void *rec, size_t len, struct tdp_err *err)
{
	return perfdata_writer_add_record(arg, rec, len, err);
}

/* The header features perf writes about the machine and the command. */
static int write_features(struct perfdata_writer *w, const struct cpu_system *sys, const char *const *cmdline,
			  size_t n, struct tdp_err *err)
{
	struct pmu_host_info h;
	uint8_t *maps = NULL;
	size_t len = 0;
	int ret;

	pmu_host_info_read(&h, &sys->cpu);
	ret = perfdata_writer_set_cmdline(w, cmdline, n, err);
	if (!ret && h.hostname[0])
		ret = perfdata_writer_set_string(w, PERFDATA_FEAT_HOSTNAME, h.hostname, err);
	if (!ret && h.osrelease[0])
		ret = perfdata_writer_set_string(w, PERFDATA_FEAT_OSRELEASE, h.osrelease, err);
	if (!ret)
		ret = perfdata_writer_set_string(w, PERFDATA_FEAT_VERSION, "tdprof-" TDPROF_VERSION, err);
	if (!ret && h.arch[0])
		ret = perfdata_writer_set_string(w, PERFDATA_FEAT_ARCH, h.arch, err);
	if (!ret && h.nr_cpus_online)
		ret = perfdata_writer_set_nrcpus(w, h.nr_cpus_avail, h.nr_cpus_online, err);
	if (!ret && h.cpudesc[0])
		ret = perfdata_writer_set_string(w, PERFDATA_FEAT_CPUDESC, h.cpudesc, err);
	if (!ret && h.cpuid[0])
		ret = perfdata_writer_set_string(w, PERFDATA_FEAT_CPUID, h.cpuid, err);
	if (!ret && h.total_mem_kb)
		ret = perfdata_writer_set_total_mem(w, h.total_mem_kb, err);
	if (!ret)
		ret = pmu_host_pmu_mappings(&sys->pmus, &maps, &len, err);
	if (!ret)
		ret = perfdata_writer_set_feature_raw(w, PERFDATA_FEAT_PMU_MAPPINGS, maps, len, err);
	tdp_free(maps);
	return ret;
}

static int write_build_ids(struct perfdata_writer *w, struct pmu_sampling *s, struct tdp_err *err)
{
	const struct pmu_dso_hit *hits;
	size_t nr;
	int ret = pmu_sampling_build_ids(s, &hits, &nr, err);

	for (size_t i = 0; !ret && i < nr; i++)
		if (hits[i].build_id_size)
			ret = perfdata_writer_add_build_id(w, -1, hits[i].kernel ? PERFDATA_MISC_KERNEL : PERFDATA_MISC_USER,
							   hits[i].build_id, hits[i].build_id_size, hits[i].filename, err);
	return ret;
}

int measure_record_open(struct measure_record *r, const char *path, const struct pmu_sampling_opts *so,
			const struct cpu_system *sys, const char *const *cmdline, size_t n, struct tdp_err *err)
{
	int ret = perfdata_writer_open(&r->w, path, err);

	if (ret)
		return ret;
	ret = pmu_sampling_open(&r->s, so, err);
	if (ret == TDP_ENOTSUP && !so->branch_sample_type && !so->spe)
		tdp_err_hint(err, "'tdprof why --backend=sim -- CMD' gives simulated branch sites; '-e cpu-clock' "
			     "records plain samples here");
	if (ret)
		return ret;
	for (size_t i = 0; !ret && i < pmu_sampling_nr_events(r->s); i++) {
		struct pmu_sampling_event e;

		pmu_sampling_event(r->s, i, &e);
		ret = perfdata_writer_add_attr(r->w, e.attr, e.attr->size, e.ids, e.nr_ids, e.name, err);
	}
	if (!ret)
		ret = write_features(r->w, sys, cmdline, n, err);
	return ret;
}

int measure_record_open_memory(struct measure_record *r, const struct pmu_sampling_opts *so,
			       const struct cpu_system *sys, const char *const *cmdline, size_t n, struct tdp_err *err)
{
	char path[64];

	r->memfd = memfd_create("tdprof-recording", MFD_CLOEXEC);
	if (r->memfd < 0)
		return tdp_err_set(err, TDP_EIO, "cannot make a memory file for the recording: %s", strerror(errno));
	/* the writer opens a path: the memfd's, which needs /proc */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", r->memfd);
	if (access(path, W_OK)) {
		tdp_err_set(err, TDP_EIO, "cannot write the recording to memory: %s is not there (/proc not mounted?)",
			    path);
		return tdp_err_hint(err, "write it to a file instead with '--save-data FILE'");
	}
	return measure_record_open(r, path, so, sys, cmdline, n, err);
}

int measure_record_map(struct measure_record *r, const uint8_t **data, size_t *size, struct tdp_err *err)
{
	struct stat st;
	void *m;

	if (r->memfd < 0 || r->w)
		return tdp_err_set(err, TDP_EINVAL, "no finished memory recording to map");
	if (fstat(r->memfd, &st) < 0 || st.st_size <= 0)
		return tdp_err_set(err, TDP_EIO, "cannot read the recording: %s",
				   st.st_size <= 0 ? "it is empty" : strerror(errno));
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, r->memfd, 0);
	if (m == MAP_FAILED)
		return tdp_err_set(err, TDP_EIO, "cannot map the recording: %s", strerror(errno));
	r->map = m;
	r->map_size = (size_t)st.st_size;
	*data = m;
	*size = r->map_size;
	return 0;
}

int measure_record_run(struct measure_record *r, struct tdp_err *err)
{
	int ret = pmu_sampling_run(r->s, write_record, r->w, err);

	if (!ret)
		ret = write_build_ids(r->w, r->s, err);
	return ret;
}

const struct pmu_sampling_stats *measure_record_stats(const struct measure_record *r)
{
	return pmu_sampling_stats(r->s);
}

int measure_record_finish(struct measure_record *r, struct tdp_err *err)
{
	int ret = perfdata_writer_close(r->w, err);

	r->w = NULL;
	return ret;
}

void measure_record_release(struct measure_record *r)
{
	/* an error before finish leaves the file unfinished: perf and our reader say so */
	perfdata_writer_free(r->w);
	pmu_sampling_close(r->s);
	if (r->map)
		munmap((void *)r->map, r->map_size);
	if (r->memfd >= 0)
		close(r->memfd);
	measure_record_init(r);
}
