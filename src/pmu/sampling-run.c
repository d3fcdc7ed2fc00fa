/*
 * sampling-run.c: a recording from start to end: the synthesized records, the
 * workload released (or the process enabled), every record of every ring
 * handed on as it comes, perf's FINISHED_ROUND after each pass, signals
 * forwarded, a final drain, the workload reaped.
 */
#include "pmu/sampling-internal.h"
#include "pmu/target.h"
#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <unistd.h>

/* Without a pidfd, check whether the workload or process is alive this often. */
#define SMP_POLL_FALLBACK_MS 10

static int emit(void *arg, const void *rec, size_t len, struct tdp_err *err)
{
	struct pmu_sampling *s = arg;

	if (smp_track(s, rec, len))
		return tdp_err_oom(err);
	s->st.records++;
	return s->fn(s->arg, rec, len, err);
}

static int grow_buf(struct pmu_sampling *s, size_t need, struct tdp_err *err)
{
	if (need > s->buf_alloc && TDP_GROW(s->buf, s->buf_alloc, need))
		return tdp_err_oom(err);
	return 0;
}

/* AUX bytes become one AUXTRACE record whose data (padded to 8, as perf does) follows it. */
static int emit_aux(void *arg, uint64_t offset, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
		    struct tdp_err *err)
{
	struct pmu_sampling *s = arg;
	size_t n = alen + blen, padded = (n + 7) / 8 * 8;
	int ret = grow_buf(s, PMU_AUXTRACE_HEADER_SIZE + padded, err);

	if (ret)
		return ret;
	pmu_auxtrace_header(s->buf, padded, offset, s->reference, (uint32_t)s->aux_cpu, UINT32_MAX,
			    (uint32_t)s->cpus[s->aux_cpu]);
	memcpy(s->buf + PMU_AUXTRACE_HEADER_SIZE, a, alen);
	memcpy(s->buf + PMU_AUXTRACE_HEADER_SIZE + alen, b, blen);
	memset(s->buf + PMU_AUXTRACE_HEADER_SIZE + n, 0, padded - n);
	s->st.aux_bytes += n;
	s->st.records++;
	return s->fn(s->arg, s->buf, PMU_AUXTRACE_HEADER_SIZE + padded, err);
}

/* One pass over every ring (and AUX area); a FINISHED_ROUND when it found anything. */
static int drain(struct pmu_sampling *s, struct tdp_err *err)
{
	bool any = false;

	for (size_t i = 0; i < s->nr_cpus; i++) {
		int n = pmu_ring_read(&s->rings[i], emit, s, err);
		long a;

		if (n < 0)
			return n;
		s->aux_cpu = i;
		a = pmu_ring_read_aux(&s->rings[i], emit_aux, s, err);
		if (a < 0)
			return (int)a;
		any |= n > 0 || a > 0;
	}
	if (smp_dsos_round(&s->dsos, false))
		return tdp_err_oom(err);
	if (any) {
		/* perf's ordering barrier: nothing before it is newer than what the next round brings */
		struct perf_event_header fr = { SMP_REC_FINISHED_ROUND, 0, sizeof(fr) };

		s->st.records++;
		return s->fn(s->arg, &fr, sizeof(fr), err);
	}
	return 0;
}

/* ---- synthesized records ---------------------------------------------------------- */

static int synth_kernel(struct pmu_sampling *s, struct tdp_err *err)
{
	char *text = NULL;
	size_t len = 0, n;
	uint64_t t, e;
	int fd, ret = 0;

	if (s->ev[0].attr.exclude_kernel)
		return 0;
	fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* no kernel symbols: kernel samples stay unresolved, as with perf */
	if (tdp_read_fd(fd, "/proc/kallsyms", PMU_KALLSYMS_MAX, &text, &len, NULL) == 0 &&
	    pmu_kallsyms_text(text, len, &t, &e)) {
		ret = grow_buf(s, 256, err);
		if (!ret && (n = pmu_synth_kernel_mmap(s->buf, s->buf_alloc, t, e, s->id_size)))
			ret = emit(s, s->buf, n, err);
	}
	tdp_free(text);
	close(fd);
	return ret;
}

static int synth_map(void *arg, const struct pmu_maps_entry *e, struct tdp_err *err)
{
	struct pmu_sampling *s = arg;
	struct pmu_maps_entry m = *e;
	size_t n;
	int ret;

	if (!(e->prot & PROT_EXEC))
		return 0;
	if (!m.name_len) {
		m.name = "//anon"; /* perf's name for an anonymous executable mapping (a JIT) */
		m.name_len = 6;
	}
	ret = grow_buf(s, 65536, err);
	if (ret)
		return ret;
	n = pmu_synth_mmap2(s->buf, s->buf_alloc, (uint32_t)s->pid, &m, s->id_size);
	return n ? emit(s, s->buf, n, err) : 0;
}

/* -p: the threads (COMM) and executable mappings (MMAP2) of the process, as perf synthesizes them. */
static int synth_process(struct pmu_sampling *s, struct tdp_err *err)
{
	char path[64], comm[64], *maps = NULL;
	size_t len = 0, n;
	int fd, ret = grow_buf(s, 65536, err);

	for (size_t i = 0; !ret && i < s->nr_tids; i++) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)s->pid, (int)s->tids[i]);
		if (tdp_read_small(path, comm, sizeof(comm)) < 0)
			continue; /* the thread ended meanwhile */
		n = pmu_synth_comm(s->buf, s->buf_alloc, (uint32_t)s->pid, (uint32_t)s->tids[i], comm, s->id_size);
		if (n)
			ret = emit(s, s->buf, n, err);
	}
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)s->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tdp_err_set(err, TDP_ENOENT, "cannot read '%s': %s", path, strerror(errno));
	ret = tdp_read_fd(fd, path, PMU_MAPS_MAX, &maps, &len, err);
	close(fd);
	if (!ret) {
		ret = pmu_maps_parse(maps, len, synth_map, s, err);
		if (ret == TDP_EFORMAT)
			tdp_err_prefix(err, "'%s'", path);
	}
	tdp_free(maps);
	return ret;
}

static int synthesize(struct pmu_sampling *s, struct tdp_err *err)
{
	int ret = grow_buf(s, 256, err);

	if (!ret && s->spe) {
		ret = emit(s, s->buf, pmu_spe_auxtrace_info(s->buf, s->spe_type, true), err);
		if (!ret)
			ret = emit(s, s->buf, pmu_time_conv(s->buf, s->rings[0].pc), err);
	}
	if (!ret)
		ret = synth_kernel(s, err);
	if (!ret && !s->argv)
		ret = synth_process(s, err);
	return ret;
}

/* ---- running ----------------------------------------------------------------------- */

/* Read SIGINT/SIGTERM/SIGHUP; returns true when recording should stop now (-p). */
static bool handle_signals(struct pmu_sampling *s)
{
	struct signalfd_siginfo si;
	bool stop = false;

	while (read(s->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		s->st.signal = (int)si.ssi_signo;
		if (!s->argv) {
			stop = true;
			continue;
		}
		/* kill(2) reaches only us: forward it. A terminal's ^C already reached the workload. */
		if (si.ssi_code == SI_USER || si.ssi_code == SI_QUEUE || si.ssi_code == SI_TKILL)
			pmu_workload_signal(&s->w, (int)si.ssi_signo);
	}
	return stop;
}

static int set_enabled(struct pmu_sampling *s, bool on, struct tdp_err *err)
{
	for (size_t e = 0; e < s->nr_ev; e++)
		for (size_t k = 0; k < s->nr_cpus * s->nr_tids; k++)
			if (s->ev[e].fd[k] >= 0 &&
			    ioctl(s->ev[e].fd[k], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0) < 0)
				return tdp_err_set(err, TDP_EIO, "cannot %s '%s': %s", on ? "enable" : "disable",
						   s->ev[e].name, strerror(errno));
	return 0;
}

static int loop(struct pmu_sampling *s, struct tdp_err *err)
{
	int pidfd = s->argv ? s->w.pidfd : s->own_pidfd;
	size_t nfds = 2 + s->nr_cpus, hup = 0;
	struct pollfd *p = tdp_calloc(nfds, sizeof(*p));
	int ret = 0;

	if (!p)
		return tdp_err_oom(err);
	p[0] = (struct pollfd){ s->sfd, POLLIN, 0 };
	p[1] = (struct pollfd){ pidfd, POLLIN, 0 };
	for (size_t c = 0; c < s->nr_cpus; c++)
		p[2 + c] = (struct pollfd){ s->ring_fd[c], POLLIN, 0 };
	for (;;) {
		int n = poll(p, nfds, pidfd < 0 ? SMP_POLL_FALLBACK_MS : -1);
		bool done = false;

		if (n < 0 && errno != EINTR) {
			ret = tdp_err_set(err, TDP_EIO, "cannot wait for the workload: %s", strerror(errno));
			break;
		}
		if (n > 0 && (p[0].revents & POLLIN) && handle_signals(s))
			done = true;
		ret = drain(s, err);
		if (ret)
			break;
		if (pidfd >= 0 && n > 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR)))
			done = true;
		if (pidfd < 0)
			done |= s->argv ? pmu_workload_reap(&s->w, false, NULL) != 0 : !pmu_task_alive(s->pid);
		for (size_t c = 0; n > 0 && c < s->nr_cpus; c++)
			if (p[2 + c].fd >= 0 && (p[2 + c].revents & (POLLHUP | POLLERR))) {
				/* every task of this ring's events is gone: stop polling it */
				p[2 + c].fd = -1;
				hup++;
			}
		if (done || (!s->argv && hup == s->nr_cpus))
			break;
	}
	tdp_free(p);
	return ret;
}

int pmu_sampling_run(struct pmu_sampling *s, pmu_sampling_record_fn *fn, void *arg, struct tdp_err *err)
{
	int ret;

	if (s->ran)
		return tdp_err_set(err, TDP_EINVAL, "a sampling engine runs once");
	s->ran = true;
	s->fn = fn;
	s->arg = arg;
	ret = synthesize(s, err);
	if (ret)
		return ret;
	ret = s->argv ? pmu_workload_start(&s->w, err) : set_enabled(s, true, err);
	if (ret)
		return ret;
	ret = loop(s, err);
	if (!ret && !s->argv)
		ret = set_enabled(s, false, err);
	if (!ret)
		ret = drain(s, err); /* what the last tasks wrote before they ended */
	if (!ret && smp_dsos_round(&s->dsos, true))
		ret = tdp_err_oom(err);
	if (ret || !s->argv)
		return ret;
	ret = pmu_workload_exec_result(&s->w, s->argv, err);
	if (ret)
		return ret;
	ret = pmu_workload_reap(&s->w, true, err);
	if (ret < 0)
		return ret;
	s->st.workload_ran = true;
	s->st.wstatus = s->w.wstatus;
	return 0;
}
