/* session.c: one measurement end to end (see session.h). */
#include "pmu/session.h"
#include "pmu/counter.h"
#include "pmu/target.h"
#include "pmu/workload.h"
#include "base/alloc.h"
#include "base/err.h"
#include "base/str.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* Without pidfd_open, check whether the workload or target is alive this often. */
#define SESSION_POLL_FALLBACK_MS 10

/* ---- one run ----------------------------------------------------------------------- */

struct session {
	const struct pmu_session_opts *o;
	struct pmu_session_result *res;
	int sfd;                 /* signalfd for SIGINT/SIGTERM/SIGHUP */
	pid_t *tids;             /* attach: the tasks */
	size_t nr_tids;
	int *cpus;               /* -a / -C */
	size_t nr_cpus;
	pid_t target;            /* attach: the process or thread whose end ends counting */
	bool first_run;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double tv_ns(const struct timeval *tv)
{
	return (double)tv->tv_sec * 1e9 + (double)tv->tv_usec * 1e3;
}

static void note_hardware(struct session *S, const struct pmu_counters *c)
{
	struct pmu_session_result *r = S->res;

	r->user_only |= c->nr_user_only > 0;
	for (size_t i = 0; i < c->nr; i++) {
		const struct pmu_counter *k = &c->v[i];

		if (!k->is_hardware)
			continue;
		r->nr_hw++;
		if (k->nr_open)
			r->nr_hw_open++;
		else if (!r->hw_errno && k->open_errno) {
			r->hw_errno = k->open_errno;
			snprintf(r->hw_event, sizeof(r->hw_event), "%s", k->name);
		}
	}
}

/* Emit the interval ending at t (ns since start). */
static int emit_interval(struct session *S, struct pmu_counters *c, uint64_t t, struct tdp_err *err)
{
	struct pmu_session_result *r = S->res;
	struct countset cs = COUNTSET_INIT;
	int ret = pmu_counters_countset(c, true, &cs, err);

	if (ret)
		goto out;
	pmu_counters_advance(c);
	if (S->o->on_interval)
		S->o->on_interval(S->o->arg, t, &cs);
	if (S->o->keep_intervals) {
		if (r->nr_intervals >= PMU_SESSION_MAX_INTERVALS) {
			ret = tdp_err_set(err, TDP_ELIMIT, "more than %d intervals", PMU_SESSION_MAX_INTERVALS);
			goto out;
		}
		if (TDP_GROW(r->intervals, r->intervals_alloc, r->nr_intervals + 1)) {
			ret = tdp_err_oom(err);
			goto out;
		}
		r->intervals[r->nr_intervals].t_ns = t;
		r->intervals[r->nr_intervals].counts = cs;
		r->nr_intervals++;
		cs = (struct countset)COUNTSET_INIT;
	}
out:
	countset_release(&cs);
	return ret;
}

/*
 * Read pending SIGINT/SIGTERM/SIGHUP. Returns true when counting should stop now
 * (attached or CPU-wide without a workload).
 */
static bool handle_signals(struct session *S, struct pmu_workload *w)
{
	struct signalfd_siginfo si;
	bool stop = false;

	while (read(S->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		S->res->signal = (int)si.ssi_signo;
		if (!S->o->argv) {
			stop = true;
			continue;
		}
		/*
		 * kill(2), sigqueue(3) and tgkill(2) reach only tdprof: forward them. A
		 * terminal's ^C (SI_KERNEL) already reached the workload, which is in
		 * our foreground process group; sending it again would deliver it twice.
		 */
		if (si.ssi_code == SI_USER || si.ssi_code == SI_QUEUE || si.ssi_code == SI_TKILL)
			pmu_workload_signal(w, (int)si.ssi_signo);
	}
	return stop;
}

static bool target_gone(struct session *S, struct pmu_workload *w, int pidfd, short revents)
{
	if (pidfd >= 0)
		return revents & (POLLIN | POLLHUP | POLLERR);
	if (S->o->argv) {
		int r = pmu_workload_reap(w, false, NULL);

		return r != 0;
	}
	if (S->target > 0)
		return !pmu_task_alive(S->target);
	return false;
}

/* Wait for the end of the run, delivering intervals. */
static int run_loop(struct session *S, struct pmu_workload *w, struct pmu_counters *c, int pidfd, uint64_t t0,
		    uint64_t *t_end, uint64_t *t_last_interval, struct tdp_err *err)
{
	uint64_t step = (uint64_t)S->o->interval_ms * 1000000u, next = t0 + step;
	bool poll_fallback = pidfd < 0 && (S->o->argv || S->target > 0);

	for (;;) {
		struct pollfd p[2] = { { S->sfd, POLLIN, 0 }, { pidfd, POLLIN, 0 } };
		nfds_t nfds = pidfd >= 0 ? 2 : 1;
		int timeout = -1, n;
		uint64_t t;

		if (step) {
			t = now_ns();
			timeout = next > t ? (int)((next - t + 999999u) / 1000000u) : 0;
		}
		if (poll_fallback && (timeout < 0 || timeout > SESSION_POLL_FALLBACK_MS))
			timeout = SESSION_POLL_FALLBACK_MS;
		n = poll(p, nfds, timeout);
		if (n < 0 && errno != EINTR)
			return tdp_err_set(err, TDP_EIO, "cannot wait for the workload: %s", strerror(errno));
		if (n > 0 && (p[0].revents & POLLIN) && handle_signals(S, w))
			break;
		if (target_gone(S, w, pidfd, n > 0 ? p[1].revents : 0))
			break;
		t = now_ns();
		if (step && t >= next) {
			int ret = pmu_counters_read(c, err);

			if (ret)
				return ret;
			/* stamped with the time of the read, as perf does, not the tick */
			ret = emit_interval(S, c, t - t0, err);
			if (ret)
				return ret;
			*t_last_interval = t;
			/* a late wake-up skips the intervals it missed, as perf does */
			while (next <= t)
				next += step;
		}
	}
	*t_end = now_ns();
	return 0;
}

static int run_once(struct session *S, const struct pmu_event_list *events, struct pmu_repeat *rep,
		    struct tdp_err *err)
{
	const struct pmu_session_opts *o = S->o;
	struct pmu_session_result *r = S->res;
	struct pmu_workload w = PMU_WORKLOAD_INIT;
	struct pmu_counters c = PMU_COUNTERS_INIT;
	struct pmu_target t = { 0 };
	struct countset cs = COUNTSET_INIT;
	sigset_t child_mask;
	pid_t child = -1;
	int pidfd = -1, own_pidfd = -1, ret;
	uint64_t t0 = 0, t_end = 0, t_last = 0;

	sigemptyset(&child_mask);
	if (o->argv) {
		sigprocmask(SIG_SETMASK, NULL, &child_mask);
		sigdelset(&child_mask, SIGINT);
		sigdelset(&child_mask, SIGTERM);
		sigdelset(&child_mask, SIGHUP);
		ret = pmu_workload_prepare(&w, o->argv, &child_mask, err);
		if (ret)
			goto out;
		child = w.pid;
		pidfd = w.pidfd;
	}
	if (S->cpus) {
		t.cpus = S->cpus;
		t.nr_cpus = S->nr_cpus;
	} else if (o->argv) {
		t.tids = &child;
		t.nr_tids = 1;
		t.inherit = !o->no_inherit;
		t.enable_on_exec = true;
	} else {
		t.tids = S->tids;
		t.nr_tids = S->nr_tids;
		t.inherit = !o->no_inherit;
	}
	if (!o->argv && S->target > 0) {
		own_pidfd = (int)syscall(SYS_pidfd_open, S->target, 0);
		if (own_pidfd < 0 && errno == EINVAL) /* a thread that does not lead its group */
			own_pidfd = (int)syscall(SYS_pidfd_open, S->target, PIDFD_THREAD);
		pidfd = own_pidfd >= 0 ? own_pidfd : -1;
	}
	ret = pmu_counters_open(&c, events, &t, err);
	if (ret)
		goto out;
	if (S->first_run)
		note_hardware(S, &c);
	if (!t.enable_on_exec) {
		ret = pmu_counters_enable(&c, err);
		if (ret)
			goto out;
	}
	t0 = now_ns();
	t_last = t0;
	if (o->argv) {
		ret = pmu_workload_start(&w, err);
		if (ret)
			goto out;
	}
	ret = run_loop(S, &w, &c, pidfd, t0, &t_end, &t_last, err);
	if (ret)
		goto out;
	if (o->argv) {
		/* known at once now that the child has ended or counting stopped */
		ret = pmu_workload_exec_result(&w, o->argv, err);
		if (ret)
			goto out;
		r->workload_ran = true;
	}
	ret = pmu_counters_read(&c, err);
	if (ret)
		goto out;
	if (o->interval_ms && t_end > t_last) {
		/* the partial interval up to the end, as perf prints it */
		ret = emit_interval(S, &c, t_end - t0, err);
		if (ret)
			goto out;
	}
	if (!t.enable_on_exec) {
		ret = pmu_counters_disable(&c, err);
		if (ret)
			goto out;
	}
	if (o->until_signal && r->signal && rep->runs > 0) {
		/* -r 0 ends with a signal: the run it cut short would pull the means down */
		r->cut_run_left_out = true;
		if (o->argv) {
			int rr = pmu_workload_reap(&w, true, NULL); /* it ended: no zombie left; its status is not kept */

			(void)rr;
		}
		goto out;
	}
	ret = pmu_counters_countset(&c, false, &cs, err);
	if (ret)
		goto out;
	ret = pmu_repeat_add(rep, &cs, (double)(t_end - t0), err);
	if (ret)
		goto out;
	if (o->argv) {
		int rr = pmu_workload_reap(&w, true, err);

		if (rr < 0) {
			ret = rr;
			goto out;
		}
		r->wstatus = w.wstatus;
		r->user_ns = tv_ns(&w.ru.ru_utime);
		r->sys_ns = tv_ns(&w.ru.ru_stime);
	}
	r->runs++;
out:
	countset_release(&cs);
	pmu_counters_close(&c);
	pmu_workload_release(&w);
	if (own_pidfd >= 0)
		close(own_pidfd);
	return ret;
}

static int setup_target(struct session *S, struct tdp_err *err)
{
	const struct pmu_session_opts *o = S->o;
	int modes = (o->argv != NULL && !o->system_wide && !o->cpu_list) + (o->pid > 0) + (o->tid > 0);

	if (o->system_wide && o->cpu_list)
		return tdp_err_set(err, TDP_EUSAGE, "'-a' and '-C' cannot be used together");
	if ((o->system_wide || o->cpu_list) && (o->pid > 0 || o->tid > 0))
		return tdp_err_set(err, TDP_EUSAGE, "'-p'/'-t' and '-a'/'-C' cannot be used together");
	if (modes > 1)
		return tdp_err_set(err, TDP_EUSAGE, "give one of a command, '-p PID' or '-t TID'");
	if (modes == 0 && !o->system_wide && !o->cpu_list)
		return tdp_err_set(err, TDP_EUSAGE, "nothing to count: give a command, '-p', '-t', '-a' or '-C'");
	if ((o->repeat > 1 || o->until_signal) && o->interval_ms)
		return tdp_err_set(err, TDP_EUSAGE, "'-r' and '-I' cannot be used together");
	if ((o->repeat > 1 || o->until_signal) && !o->argv)
		return tdp_err_set(err, TDP_EUSAGE, "'-r' needs a command to run");
	if (o->repeat > PMU_SESSION_MAX_RUNS)
		return tdp_err_set(err, TDP_EUSAGE, "'-r %u': at most %d runs", o->repeat, PMU_SESSION_MAX_RUNS);
	if (o->interval_ms && o->interval_ms < PMU_SESSION_MIN_INTERVAL_MS)
		return tdp_err_set(err, TDP_EUSAGE, "'-I %u': the interval must be at least %d ms", o->interval_ms,
				   PMU_SESSION_MIN_INTERVAL_MS);
	if (o->system_wide)
		return pmu_online_cpus(&S->cpus, &S->nr_cpus, err);
	if (o->cpu_list) {
		int ret = pmu_cpu_list_parse(o->cpu_list, strlen(o->cpu_list), &S->cpus, &S->nr_cpus, err);

		return ret ? ret : pmu_cpus_check_online(S->cpus, S->nr_cpus, err);
	}
	if (o->pid > 0) {
		S->target = o->pid;
		if (!pmu_task_alive(o->pid))
			return tdp_err_set(err, TDP_ENOENT, "no process with id %d", (int)o->pid);
		return pmu_process_threads(o->pid, &S->tids, &S->nr_tids, err);
	}
	if (o->tid > 0) {
		S->target = o->tid;
		if (!pmu_task_alive(o->tid))
			return tdp_err_set(err, TDP_ENOENT, "no thread with id %d", (int)o->tid);
		S->tids = tdp_malloc(sizeof(*S->tids));
		if (!S->tids)
			return tdp_err_oom(err);
		S->tids[0] = o->tid;
		S->nr_tids = 1;
	}
	return 0;
}

void pmu_session_result_release(struct pmu_session_result *res)
{
	countset_release(&res->counts);
	for (size_t i = 0; i < res->nr_intervals; i++)
		countset_release(&res->intervals[i].counts);
	tdp_free(res->intervals);
	tdp_free(res->per_run);
	tdp_free(res->per_run_elapsed_ns);
	*res = (struct pmu_session_result)PMU_SESSION_RESULT_INIT;
}

/* Copy every run's values out of the accumulator into res (see session.h). */
static int keep_per_run(const struct pmu_repeat *rep, struct pmu_session_result *res, struct tdp_err *err)
{
	size_t n = rep->nr;

	res->per_run = tdp_calloc(n ? n : 1, rep->runs * sizeof(double));
	res->per_run_elapsed_ns = tdp_calloc(rep->runs, sizeof(double));
	if (!res->per_run || !res->per_run_elapsed_ns)
		return tdp_err_oom(err);
	for (size_t i = 0; i < n; i++)
		memcpy(res->per_run + i * rep->runs, rep->v[i].runs_v, rep->runs * sizeof(double));
	memcpy(res->per_run_elapsed_ns, rep->elapsed_v, rep->runs * sizeof(double));
	return 0;
}

int pmu_session_run(const struct pmu_event_list *events, const struct pmu_session_opts *o,
		    struct pmu_session_result *res, struct tdp_err *err)
{
	struct session S = { .o = o, .res = res, .sfd = -1, .first_run = true };
	struct pmu_repeat rep = PMU_REPEAT_INIT;
	unsigned runs = o->until_signal ? PMU_SESSION_MAX_RUNS : o->repeat ? o->repeat : 1;
	sigset_t block, old;
	int ret;

	ret = setup_target(&S, err);
	if (ret)
		goto out_free;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP); /* a closed terminal: the workload ends, the report is still written */
	sigprocmask(SIG_BLOCK, &block, &old);
	S.sfd = signalfd(-1, &block, SFD_NONBLOCK | SFD_CLOEXEC);
	if (S.sfd < 0) {
		ret = tdp_err_set(err, TDP_EIO, "cannot watch for signals: %s", strerror(errno));
		goto out;
	}
	for (unsigned i = 0; i < runs; i++) {
		ret = run_once(&S, events, &rep, err);
		S.first_run = false;
		if (ret || res->signal)
			break;
	}
	if (rep.runs) {
		int r2 = pmu_repeat_result(&rep, &res->counts, ret ? NULL : err);

		if (!ret)
			ret = r2;
		res->elapsed_stddev_ns = pmu_repeat_stat_stderr(&rep.elapsed);
		if (!ret && rep.runs > 1)
			ret = keep_per_run(&rep, res, err);
	}
out:
	if (S.sfd >= 0)
		close(S.sfd);
	/*
	 * A signal that arrived after the last read would kill tdprof as soon as the
	 * mask is restored, before the counts are printed: take it here instead.
	 */
	{
		struct timespec zero = { 0, 0 };
		int sig;

		while ((sig = sigtimedwait(&block, NULL, &zero)) > 0)
			res->signal = sig;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
out_free:
	pmu_repeat_release(&rep);
	tdp_free(S.tids);
	tdp_free(S.cpus);
	return ret;
}

int pmu_session_run_sets(const struct pmu_event_list *const *sets, size_t nr, const struct pmu_session_opts *o,
			 struct pmu_session_result *res, struct tdp_err *err)
{
	double elapsed_sum = 0;
	size_t elapsed_n = 0;
	int offset = 0, ret = 0;

	if (nr > 1 && o->interval_ms)
		return tdp_err_set(err, TDP_EUSAGE, "intervals ('-I') cannot be combined with one run per group set");
	for (size_t s = 0; s < nr; s++) {
		struct pmu_session_result one = PMU_SESSION_RESULT_INIT;
		int max_group = -1;

		ret = pmu_session_run(sets[s], o, &one, err);
		if (ret) {
			pmu_session_result_release(&one);
			break;
		}
		for (size_t i = 0; i < one.counts.nr; i++) {
			const struct count *src = &one.counts.v[i];
			struct count *dst = countset_add(&res->counts, src->name, src->unit, src->value,
							 src->group >= 0 ? src->group + offset : -1);

			if (!dst) {
				pmu_session_result_release(&one);
				return tdp_err_oom(err);
			}
			*dst = (struct count){ .name = dst->name, .unit = dst->unit, .status = src->status,
					       .value = src->value, .raw = src->raw, .enabled_ns = src->enabled_ns,
					       .running_ns = src->running_ns, .running_pct = src->running_pct,
					       .stddev_pct = src->stddev_pct, .group = dst->group,
					       .estimate = src->estimate };
			if (src->group > max_group)
				max_group = src->group;
		}
		offset += max_group + 1;
		if (one.counts.elapsed_ns >= 0) {
			elapsed_sum += one.counts.elapsed_ns;
			elapsed_n++;
		}
		res->runs += one.runs;
		res->workload_ran |= one.workload_ran;
		res->wstatus = one.wstatus;
		res->user_ns = one.user_ns;
		res->sys_ns = one.sys_ns;
		res->signal = one.signal;
		res->nr_hw += one.nr_hw;
		res->nr_hw_open += one.nr_hw_open;
		res->user_only |= one.user_only;
		if (!res->hw_errno && one.hw_errno) {
			res->hw_errno = one.hw_errno;
			memcpy(res->hw_event, one.hw_event, sizeof(res->hw_event));
		}
		pmu_session_result_release(&one);
		if (res->signal)
			break;
	}
	res->counts.elapsed_ns = elapsed_n ? elapsed_sum / (double)elapsed_n : -1.0;
	return ret;
}
