/*
 * drill-pmu-record.c: the second, sampled run of the PMU drill-down
 * (diag_pmu_record(), see drill-pmu.h). The engine is pmu/sampling.h, the file
 * format perfdata/perfdata-write.h, as for `tdprof branches record`; the file is a
 * memfd (memory, no name in any directory) or, without memfd_create(), a file in a
 * private directory that is removed as soon as it is mapped.
 */
#include "diagnose/drill-pmu.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "perfdata/perfdata-write.h"
#include "perfdata/perfdata.h"
#include "pmu/event.h"

/* Where the recording is written. */
struct sink {
	int fd;              /* the memfd, or the file once reopened for reading; -1 */
	char path[4096];     /* what the writer opens */
	char dir[4096];      /* the private directory (fallback), "" with a memfd */
};

/* A memfd, or a private directory under tmpdir. Returns 0 or TDP_EIO. */
static int sink_open(struct sink *k, const char *tmpdir, struct tdp_err *err)
{
	k->fd = memfd_create("tdprof-why-drill", MFD_CLOEXEC);
	k->dir[0] = '\0';
	if (k->fd >= 0) {
		snprintf(k->path, sizeof(k->path), "/proc/self/fd/%d", k->fd);
		/* the writer opens the path: /proc must be mounted for that */
		if (access(k->path, W_OK) == 0)
			return 0;
		close(k->fd);
		k->fd = -1;
	}
	if ((size_t)snprintf(k->dir, sizeof(k->dir), "%s/tdprof-why-XXXXXX", tmpdir ? tmpdir : "/tmp") >=
	    sizeof(k->dir) - 16) {
		k->dir[0] = '\0';
		return tdp_err_set(err, TDP_EIO, "cannot make a temporary directory in '%s': the path is too long",
				   tmpdir);
	}
	if (!mkdtemp(k->dir)) {
		int e = errno;

		k->dir[0] = '\0';
		tdp_err_set(err, TDP_EIO, "cannot make a temporary directory in '%s': %s", tmpdir ? tmpdir : "/tmp",
			    strerror(e));
		return tdp_err_hint(err, "set TMPDIR to a writable directory");
	}
	snprintf(k->path, sizeof(k->path), "%s/perf.data", k->dir);
	return 0;
}

/* Remove the private file and directory (nothing with a memfd). */
static void sink_unlink(struct sink *k)
{
	if (!k->dir[0])
		return;
	unlink(k->path);
	rmdir(k->dir);
	k->dir[0] = '\0';
}

/* The finished file, mapped read-only into out. Returns 0 or TDP_EIO. */
static int sink_map(struct sink *k, struct diag_pmu_recording *out, struct tdp_err *err)
{
	struct stat st;
	void *m;

	if (k->fd < 0 && (k->fd = open(k->path, O_RDONLY | O_CLOEXEC)) < 0)
		return tdp_err_set(err, TDP_EIO, "cannot read the drill-down's recording: %s", strerror(errno));
	sink_unlink(k);
	if (fstat(k->fd, &st) < 0 || st.st_size <= 0)
		return tdp_err_set(err, TDP_EIO, "cannot read the drill-down's recording: %s",
				   st.st_size <= 0 ? "it is empty" : strerror(errno));
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, k->fd, 0);
	if (m == MAP_FAILED)
		return tdp_err_set(err, TDP_EIO, "cannot map the drill-down's recording: %s", strerror(errno));
	out->data = m;
	out->size = (size_t)st.st_size;
	out->fd = k->fd;
	k->fd = -1;
	return 0;
}

struct writer_arg {
	struct perfdata_writer *w;
	uint64_t dropped;
};

/* Every record to the file; samples (and SPE trace) past DIAG_PMU_MAX_BYTES are counted, not kept. */
static int write_record(void *arg, const void *rec, size_t len, struct tdp_err *err)
{
	struct writer_arg *a = arg;
	uint32_t type;

	memcpy(&type, rec, sizeof(type));
	if ((type == PERFDATA_RECORD_SAMPLE || type == PERFDATA_RECORD_AUXTRACE) &&
	    perfdata_writer_data_size(a->w) + len > DIAG_PMU_MAX_BYTES) {
		a->dropped++;
		return 0;
	}
	return perfdata_writer_add_record(a->w, rec, len, err);
}

/* The engine's options from the plan, with the facility's rules checked first. */
static int make_opts(const struct diag_pmu_plan *p, char *const *argv, const struct pmu_event_list *list,
		     struct pmu_sampling_opts *so, struct tdp_err *err)
{
	const struct pmu_event *ev = &list->v[0];
	int ret;

	*so = (struct pmu_sampling_opts)PMU_SAMPLING_OPTS_INIT;
	so->argv = argv;
	so->event = ev;
	so->period = p->period;
	so->freq = p->freq;
	if (p->method == DIAG_SAMPLE_SPE) {
		so->spe = true;
		so->spe_pmu_type = p->spe_pmu_type;
		return 0;
	}
	so->data_addr = p->data_addr;
	if (p->method != DIAG_SAMPLE_BRANCH_STACK)
		return 0;
	if ((ret = pmu_branch_filter_check(p->facility, p->branch_sample_type, p->branch_counters, err)) ||
	    (ret = pmu_branch_event_check(p->facility, &ev->attr, ev->name, p->core_type, p->period, p->freq > 0,
					  p->depth, err)))
		return ret;
	so->branch_sample_type = p->branch_sample_type;
	return 0;
}

int diag_pmu_record(const struct diag_pmu_plan *p, char *const *argv, const char *tmpdir,
		    struct diag_pmu_recording *out, struct tdp_err *err)
{
	struct pmu_event_list list = PMU_EVENT_LIST_INIT;
	struct pmu_env env = PMU_ENV_INIT;
	struct pmu_sampling_opts so;
	struct pmu_sampling *s = NULL;
	struct writer_arg wa = { NULL, 0 };
	struct sink k = { -1, "", "" };
	int ret;

	*out = (struct diag_pmu_recording)DIAG_PMU_RECORDING_INIT;
	env.use_libpfm = p->locate_leaf != NULL; /* the vendor's event names (MEM_LOAD_RETIRED.L3_MISS) */
	ret = pmu_event_list_parse(&list, p->event, &env, err);
	if (!ret && list.nr != 1)
		ret = tdp_err_set(err, TDP_EINVAL, "the drill-down's event '%s' is %zu events, not one", p->event,
				  list.nr);
	if (!ret)
		ret = make_opts(p, argv, &list, &so, err);
	if (!ret)
		ret = sink_open(&k, tmpdir, err);
	if (!ret)
		ret = perfdata_writer_open(&wa.w, k.path, err);
	if (!ret)
		ret = pmu_sampling_open(&s, &so, err);
	for (size_t i = 0; !ret && i < pmu_sampling_nr_events(s); i++) {
		struct pmu_sampling_event e;

		pmu_sampling_event(s, i, &e);
		ret = perfdata_writer_add_attr(wa.w, e.attr, e.attr->size, e.ids, e.nr_ids, e.name, err);
	}
	if (!ret)
		ret = pmu_sampling_run(s, write_record, &wa, err);
	if (!ret) {
		ret = perfdata_writer_close(wa.w, err);
		wa.w = NULL;
	}
	if (!ret)
		ret = sink_map(&k, out, err);
	if (!ret) {
		out->stats = *pmu_sampling_stats(s);
		out->dropped = wa.dropped;
	}
	perfdata_writer_free(wa.w);
	pmu_sampling_close(s);
	pmu_event_list_release(&list);
	sink_unlink(&k);
	if (k.fd >= 0)
		close(k.fd);
	if (ret)
		diag_pmu_recording_release(out);
	return ret;
}

void diag_pmu_recording_release(struct diag_pmu_recording *r)
{
	if (r->data)
		munmap((void *)r->data, r->size);
	if (r->fd >= 0)
		close(r->fd);
	*r = (struct diag_pmu_recording)DIAG_PMU_RECORDING_INIT;
}
