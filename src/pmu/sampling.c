/* sampling.c: the sampling engine: options, events, rings, and closing (see sampling.h). */
#include "pmu/sampling-internal.h"
#include "pmu/ring.h"
#include "pmu/target.h"
#include "pmu/workload.h"
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
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

#define SAMPLE_TYPE                                                                                       \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
	 PERF_SAMPLE_PERIOD)

static int event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* ---- opening ----------------------------------------------------------------------- */

static int open_error(struct pmu_sampling *s, const struct smp_event *ev, int cpu, int e, bool hardware,
		      struct tdp_err *err)
{
	switch (e) {
	case ESRCH:
		return tdp_err_set(err, TDP_ENOENT, "cannot record '%s': process %d is gone", ev->name, (int)s->pid);
	case EMFILE:
	case ENFILE:
		tdp_err_set(err, TDP_ELIMIT, "cannot open '%s' on CPU %d: too many open files", ev->name, cpu);
		tdp_err_hint(err, "raise the limit with 'ulimit -n %zu'",
				    (s->nr_cpus * s->nr_tids * s->nr_ev + 64) * 2);
		return TDP_ELIMIT;
	case EACCES:
	case EPERM:
	case EBUSY:
		break;
	case EINVAL:
	case EOPNOTSUPP:
		if (s->branch_sample_type || s->spe) {
			tdp_err_set(err, TDP_ENOTSUP, "cannot sample '%s'%s on CPU %d: the kernel refused it (%s)", ev->name,
				    s->spe ? "" : " with branch stacks", cpu, strerror(e));
			tdp_err_hint(err, "check 'tdprof info' (branch recording) for what this machine has; "
						 "'--no-branch-stack' samples without branches");
			return TDP_ENOTSUP;
		}
		if (e == EINVAL) {
			tdp_err_set(err, TDP_ENOTSUP, "cannot sample '%s' on CPU %d: the kernel refused its settings (%s)",
				    ev->name, cpu, strerror(e));
			tdp_err_hint(err, "try another period ('-c') or frequency ('-F')");
			return TDP_ENOTSUP;
		}
		break;
	default:
		break;
	}
	if (hardware || e == EACCES || e == EPERM || e == EBUSY) {
		struct tdp_err why = TDP_ERR_INIT;
		int code = cpu_explain_open_error(e, NULL, &why);

		tdp_err_set(err, code, "cannot sample '%s': %s", ev->name, why.msg);
		if (why.hint[0])
			tdp_err_hint(err, "%s", why.hint);
		return code;
	}
	return tdp_err_set(err, TDP_EIO, "cannot sample '%s' on CPU %d: %s", ev->name, cpu, strerror(e));
}

static void init_attr(struct perf_event_attr *a, const struct pmu_sampling_opts *o, bool tracking)
{
	a->size = sizeof(*a);
	a->sample_type = SAMPLE_TYPE;
	a->disabled = 1;
	a->enable_on_exec = o->argv != NULL;
	a->inherit = !o->no_inherit;
	a->sample_id_all = 1;
	a->read_format = 0;
	if (tracking) {
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		a->build_id = !o->no_build_id_mmap;
	}
}

static int setup_events(struct pmu_sampling *s, const struct pmu_sampling_opts *o, struct tdp_err *err)
{
	struct smp_event *m = &s->ev[0];

	m->attr = o->event->attr;
	init_attr(&m->attr, o, !o->spe);
	if (o->branch_sample_type) {
		m->attr.sample_type |= PERF_SAMPLE_BRANCH_STACK;
		m->attr.branch_sample_type = o->branch_sample_type;
	}
	if (o->data_addr) { /* perf record -d */
		m->attr.sample_type |= PERF_SAMPLE_ADDR;
		m->attr.mmap_data = 1;
	}
	if (o->period) {
		m->attr.freq = 0;
		m->attr.sample_period = o->period;
	} else {
		m->attr.freq = 1;
		m->attr.sample_freq = o->freq ? o->freq : PMU_SAMPLING_DEFAULT_FREQ;
	}
	m->name = tdp_strdup(o->event->name);
	s->nr_ev = 1;
	if (!m->name)
		return tdp_err_oom(err);
	if (o->nr_members) {
		/* group reads: every sample reads the members, counted in the leader's group (perf record's '{}:S') */
		m->attr.sample_type |= PERF_SAMPLE_READ;
		m->attr.read_format = PERF_FORMAT_ID | PERF_FORMAT_GROUP | PERF_FORMAT_LOST;
		m->attr.inherit = 0;
		s->group = true;
		for (size_t k = 0; k < o->nr_members; k++) {
			struct smp_event *e = &s->ev[s->nr_ev++];

			e->attr = o->members[k].attr;
			init_attr(&e->attr, o, false);
			e->attr.sample_type = m->attr.sample_type;
			e->attr.read_format = m->attr.read_format;
			e->attr.inherit = 0;
			e->attr.disabled = 0;       /* the leader starts and stops the group */
			e->attr.enable_on_exec = 0;
			e->attr.freq = 0;
			e->attr.sample_period = 0;  /* counted, not sampled */
			if (!(e->name = tdp_strdup(o->members[k].name)))
				return tdp_err_oom(err);
		}
	}
	if (o->spe) {
		/* the SPE event writes only its AUX area; a dummy:u event carries the task records (as perf) */
		struct smp_event *d = &s->ev[1];

		d->attr.type = PERF_TYPE_SOFTWARE;
		d->attr.config = PERF_COUNT_SW_DUMMY;
		d->attr.sample_period = 1;
		d->attr.exclude_kernel = 1;
		d->attr.exclude_hv = 1;
		init_attr(&d->attr, o, true);
		d->name = tdp_strdup("dummy:u");
		s->nr_ev = 2;
		if (!d->name)
			return tdp_err_oom(err);
	}
	for (size_t i = 0; i < s->nr_ev; i++) {
		size_t n = s->nr_cpus * s->nr_tids;

		s->ev[i].fd = tdp_calloc(n, sizeof(int));
		s->ev[i].ids = tdp_calloc(n, sizeof(uint64_t));
		if (!s->ev[i].fd || !s->ev[i].ids)
			return tdp_err_oom(err);
		for (size_t k = 0; k < n; k++)
			s->ev[i].fd[k] = -1;
	}
	/* sample_id trailer: TID, TIME, CPU, IDENTIFIER (8 bytes each) */
	s->id_size = 32;
	return 0;
}

static int open_one(struct pmu_sampling *s, size_t e, size_t c, size_t t, bool hardware, struct tdp_err *err)
{
	struct smp_event *ev = &s->ev[e];
	int group_fd = s->group && e > 0 ? s->ev[0].fd[c * s->nr_tids + t] : -1;
	int fd;

	if (s->group && e > 0 && group_fd < 0)
		return 0; /* its leader is not open there */
	fd = event_open(&ev->attr, s->tids[t], s->cpus[c], group_fd);

	/* build-ids in MMAP2 came with Linux 5.12: older kernels refuse the bit, try without it */
	if (fd < 0 && errno == EINVAL && ev->attr.build_id) {
		for (size_t i = 0; i < s->nr_ev; i++)
			s->ev[i].attr.build_id = 0;
		fd = event_open(&ev->attr, s->tids[t], s->cpus[c], group_fd);
	}
	/*
	 * perf_event_paranoid 2 lets an unprivileged user sample user space only:
	 * fall back to it, as perf does, unless the branch filter asks for kernel
	 * branches by name. Every event of the recording gets the same levels.
	 */
	if (fd < 0 && (errno == EACCES || errno == EPERM) && !ev->attr.exclude_kernel &&
	    !(s->branch_sample_type & (PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV))) {
		int first = errno;

		for (size_t i = 0; i < s->nr_ev; i++) {
			s->ev[i].attr.exclude_kernel = 1;
			s->ev[i].attr.exclude_hv = 1;
		}
		fd = event_open(&ev->attr, s->tids[t], s->cpus[c], group_fd);
		if (fd >= 0)
			s->st.user_only = true;
		else
			errno = first;
	}
	if (fd < 0) {
		/* a thread of -p that ended after we listed it */
		if (errno == ESRCH && !s->argv && t > 0)
			return 0;
		/*
		 * SPE is often on some CPUs only (its PMU's cpumask; big.LITTLE): the
		 * tracking event still goes there so that no task record is missed.
		 */
		if (errno == ENOENT && s->spe && e == 0)
			return 0;
		return open_error(s, ev, s->cpus[c], errno, hardware, err);
	}
	ev->fd[c * s->nr_tids + t] = fd;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &ev->ids[ev->nr_ids]) < 0)
		return tdp_err_set(err, TDP_EIO, "cannot get the id of '%s': %s", ev->name, strerror(errno));
	ev->nr_ids++;
	if (s->group && e > 0)
		return 0; /* a member writes nothing: its counts come in the leader's samples */
	if (s->ring_fd[c] < 0) {
		/* the AUX area belongs to the SPE event's ring */
		int ret = pmu_ring_map(&s->rings[c], fd, s->data_pages, s->spe && e == 0 ? s->aux_pages : 0, err);

		if (ret)
			return ret;
		s->ring_fd[c] = fd;
	} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->ring_fd[c]) < 0) {
		return tdp_err_set(err, TDP_EIO, "cannot share the ring buffer of CPU %d: %s", s->cpus[c],
				   strerror(errno));
	}
	return 0;
}

static int open_all(struct pmu_sampling *s, const struct pmu_sampling_opts *o, struct tdp_err *err)
{
	int ret;

	s->data_pages = o->mmap_pages ? o->mmap_pages : PMU_SAMPLING_DEFAULT_PAGES;
	s->aux_pages = o->spe ? (o->aux_pages ? o->aux_pages : PMU_SAMPLING_DEFAULT_AUX_PAGES) : 0;

	s->rings = tdp_calloc(s->nr_cpus, sizeof(*s->rings));
	s->ring_fd = tdp_calloc(s->nr_cpus, sizeof(int));
	if (!s->rings || !s->ring_fd)
		return tdp_err_oom(err);
	for (size_t c = 0; c < s->nr_cpus; c++)
		s->ring_fd[c] = -1;
	for (size_t c = 0; c < s->nr_cpus; c++)
		for (size_t t = 0; t < s->nr_tids; t++)
			for (size_t e = 0; e < s->nr_ev; e++) {
				ret = open_one(s, e, c, t, e == 0 && o->event->is_hardware, err);
				if (ret)
					return ret;
			}
	if (!s->ev[0].nr_ids) {
		tdp_err_set(err, TDP_ENOTSUP, "cannot open '%s' on any online CPU", s->ev[0].name);
		tdp_err_hint(err, "check the CPUs its PMU covers ('tdprof info')");
		return TDP_ENOTSUP;
	}
	return 0;
}

static int setup_target(struct pmu_sampling *s, const struct pmu_sampling_opts *o, struct tdp_err *err)
{
	sigset_t block, child_mask;
	int ret;

	ret = pmu_online_cpus(&s->cpus, &s->nr_cpus, err);
	if (ret)
		return ret;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP); /* a closed terminal: the workload ends, the file is still finished */
	sigprocmask(SIG_BLOCK, &block, &s->old_mask);
	s->masked = true;
	s->sfd = signalfd(-1, &block, SFD_NONBLOCK | SFD_CLOEXEC);
	if (s->sfd < 0)
		return tdp_err_set(err, TDP_EIO, "cannot watch for signals: %s", strerror(errno));
	if (o->argv) {
		child_mask = s->old_mask;
		sigdelset(&child_mask, SIGINT);
		sigdelset(&child_mask, SIGTERM);
		sigdelset(&child_mask, SIGHUP);
		ret = pmu_workload_prepare(&s->w, o->argv, &child_mask, err);
		if (ret)
			return ret;
		s->pid = s->w.pid;
		s->tids = tdp_malloc(sizeof(*s->tids));
		if (!s->tids)
			return tdp_err_oom(err);
		s->tids[0] = s->pid;
		s->nr_tids = 1;
		return 0;
	}
	s->pid = o->pid;
	if (!pmu_task_alive(o->pid))
		return tdp_err_set(err, TDP_ENOENT, "no process with id %d", (int)o->pid);
	ret = pmu_process_threads(o->pid, &s->tids, &s->nr_tids, err);
	if (ret)
		return ret;
	s->own_pidfd = (int)syscall(SYS_pidfd_open, o->pid, 0);
	return 0;
}

static int check_opts(const struct pmu_sampling_opts *o, struct tdp_err *err)
{
	if (!o->event)
		return tdp_err_set(err, TDP_EINVAL, "no sampling event");
	if ((o->argv != NULL && o->argv[0] != NULL) == (o->pid > 0))
		return tdp_err_set(err, TDP_EUSAGE, "give either a command or '-p PID'");
	if (o->period && o->freq)
		return tdp_err_set(err, TDP_EUSAGE, "'-c' and '-F' cannot be used together");
	if (o->freq > PMU_SAMPLING_MAX_FREQ)
		return tdp_err_set(err, TDP_EUSAGE, "'-F %llu': at most %d samples per second",
				   (unsigned long long)o->freq, PMU_SAMPLING_MAX_FREQ);
	if (o->spe && (o->freq || !o->period))
		return tdp_err_set(err, TDP_EUSAGE, "Arm SPE needs a sampling interval ('-c'), not a frequency");
	if (o->spe && o->branch_sample_type)
		return tdp_err_set(err, TDP_EUSAGE, "Arm SPE records no branch stack: '-j' does not apply");
	if (o->nr_members > PMU_SAMPLING_MAX_MEMBERS)
		return tdp_err_set(err, TDP_EUSAGE, "a sampled group of %zu events: at most %d", o->nr_members + 1,
				   PMU_SAMPLING_MAX_MEMBERS + 1);
	if (o->data_addr && (o->spe || o->nr_members))
		return tdp_err_set(err, TDP_EUSAGE, "data addresses go with plain samples: not with %s",
				   o->spe ? "Arm SPE (its records carry them)" : "group reads");
	if (o->nr_members && (o->spe || o->branch_sample_type))
		return tdp_err_set(err, TDP_EUSAGE, "group reads go with plain samples: not with %s",
				   o->spe ? "Arm SPE" : "branch stacks");
	return 0;
}

int pmu_sampling_open(struct pmu_sampling **out, const struct pmu_sampling_opts *o, struct tdp_err *err)
{
	struct pmu_sampling *s;
	struct timespec ts;
	int ret = check_opts(o, err);

	if (ret)
		return ret;
	s = tdp_calloc(1, sizeof(*s));
	if (!s)
		return tdp_err_oom(err);
	s->w = (struct pmu_workload)PMU_WORKLOAD_INIT;
	s->sfd = -1;
	s->own_pidfd = -1;
	s->argv = o->argv;
	s->spe = o->spe;
	s->spe_type = o->spe_pmu_type;
	s->branch_sample_type = o->branch_sample_type;
	s->data_addr = o->data_addr;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->reference = (uint64_t)ts.tv_sec ^ (uint64_t)ts.tv_nsec; /* any value: perf's is the same */
	ret = setup_target(s, o, err);
	if (!ret)
		ret = setup_events(s, o, err);
	if (!ret)
		ret = open_all(s, o, err);
	if (ret) {
		pmu_sampling_close(s);
		return ret;
	}
	*out = s;
	return 0;
}

size_t pmu_sampling_nr_events(const struct pmu_sampling *s)
{
	return s->nr_ev;
}

void pmu_sampling_event(const struct pmu_sampling *s, size_t i, struct pmu_sampling_event *out)
{
	out->attr = &s->ev[i].attr;
	out->ids = s->ev[i].ids;
	out->nr_ids = s->ev[i].nr_ids;
	out->name = s->ev[i].name;
}

const struct pmu_sampling_stats *pmu_sampling_stats(const struct pmu_sampling *s)
{
	return &s->st;
}

int pmu_sampling_build_ids(struct pmu_sampling *s, const struct pmu_dso_hit **out, size_t *nr,
			   struct tdp_err *err)
{
	return smp_dsos_result(&s->dsos, out, nr, err);
}

void pmu_sampling_close(struct pmu_sampling *s)
{
	if (!s)
		return;
	for (size_t c = 0; s->rings && c < s->nr_cpus; c++)
		pmu_ring_unmap(&s->rings[c]);
	for (size_t e = 0; e < s->nr_ev; e++) {
		for (size_t k = 0; s->ev[e].fd && k < s->nr_cpus * s->nr_tids; k++)
			if (s->ev[e].fd[k] >= 0)
				close(s->ev[e].fd[k]);
		tdp_free(s->ev[e].fd);
		tdp_free(s->ev[e].ids);
		tdp_free(s->ev[e].name);
	}
	pmu_workload_release(&s->w);
	if (s->own_pidfd >= 0)
		close(s->own_pidfd);
	if (s->sfd >= 0)
		close(s->sfd);
	if (s->masked) {
		/* a signal still pending would kill tdprof as soon as the mask is restored: take it here */
		struct timespec zero = { 0, 0 };
		sigset_t block;

		sigemptyset(&block);
		sigaddset(&block, SIGINT);
		sigaddset(&block, SIGTERM);
		sigaddset(&block, SIGHUP);
		while (sigtimedwait(&block, NULL, &zero) > 0)
			;
		sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
	}
	smp_dsos_release(&s->dsos);
	tdp_free(s->rings);
	tdp_free(s->ring_fd);
	tdp_free(s->cpus);
	tdp_free(s->tids);
	tdp_free(s->buf);
	tdp_free(s);
}
