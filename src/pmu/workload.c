/* workload.c: fork, park, exec the measured command (see workload.h). */
#include "pmu/workload.h"
#include "base/err.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * The child between fork and exec: only async-signal-safe calls, no allocation,
 * no stdio (the parent's buffers must not be flushed twice).
 */
static void __attribute__((noreturn)) child_run(char *const *argv, int go_rd, int err_wr,
						const sigset_t *child_mask)
{
	char c;
	ssize_t n;
	int e;

	if (child_mask)
		sigprocmask(SIG_SETMASK, child_mask, NULL);
	do
		n = read(go_rd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127); /* the parent gave up before starting us */
	close(go_rd);
	execvp(argv[0], argv);
	e = errno;
	while (write(err_wr, &e, sizeof(e)) < 0 && errno == EINTR)
		;
	_exit(e == ENOENT ? 127 : 126);
}

int pmu_workload_prepare(struct pmu_workload *w, char *const *argv, const sigset_t *child_mask,
			 struct tdp_err *err)
{
	int go[2] = { -1, -1 }, ep[2] = { -1, -1 };
	pid_t pid;
	int ret = 0;

	if (!argv || !argv[0])
		return tdp_err_set(err, TDP_EINVAL, "no workload command");
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(ep, O_CLOEXEC) < 0) {
		ret = tdp_err_set(err, TDP_EIO, "cannot create a pipe for the workload: %s", strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		ret = tdp_err_set(err, TDP_EIO, "cannot fork the workload: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		close(go[1]);
		close(ep[0]);
		child_run(argv, go[0], ep[1], child_mask);
	}
	w->pid = pid;
	w->go_fd = go[1];
	w->err_fd = ep[0];
	go[1] = -1;
	ep[0] = -1;
	w->started = false;
	w->reaped = false;
	w->exec_errno = -1;
	/* pidfd_open (Linux 5.3) lets the caller poll for the exit next to other fds. */
	w->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (w->pidfd < 0)
		w->pidfd = -1;
out:
	close_fd(&go[0]);
	close_fd(&go[1]);
	close_fd(&ep[0]);
	close_fd(&ep[1]);
	return ret;
}

/* "Permission denied" -> "permission denied" (git wording), into buf. */
static const char *lower_strerror(int e, char *buf, size_t size)
{
	snprintf(buf, size, "%s", strerror(e));
	if (buf[0] >= 'A' && buf[0] <= 'Z')
		buf[0] = (char)(buf[0] - 'A' + 'a');
	return buf;
}

static int exec_failure(const char *cmd, int e, struct tdp_err *err)
{
	char why[128];

	if (e == ENOENT) {
		if (strchr(cmd, '/')) {
			tdp_err_set(err, TDP_ENOCMD, "cannot run '%s': no such file or directory", cmd);
			return tdp_err_hint(err, "check the path of the command");
		}
		tdp_err_set(err, TDP_ENOCMD, "'%s': command not found", cmd);
		return tdp_err_hint(err, "check the name, or give its path ('./%s') when it is not in PATH", cmd);
	}
	tdp_err_set(err, TDP_ENOEXEC, "cannot run '%s': %s", cmd, lower_strerror(e, why, sizeof(why)));
	if (e == EACCES)
		return tdp_err_hint(err, "make it executable with 'chmod +x %s', or check that it is not a directory",
				    cmd);
	if (e == ENOEXEC)
		return tdp_err_hint(err, "it is not a program for this machine; a script needs a '#!' line");
	return err ? err->code : TDP_ENOEXEC;
}

int pmu_workload_start(struct pmu_workload *w, struct tdp_err *err)
{
	ssize_t n;

	if (w->pid < 0 || w->started || w->go_fd < 0)
		return tdp_err_set(err, TDP_EINVAL, "workload started twice or not prepared");
	w->started = true;
	do
		n = write(w->go_fd, "g", 1);
	while (n < 0 && errno == EINTR);
	close_fd(&w->go_fd);
	if (n != 1)
		return tdp_err_set(err, TDP_ECHILD, "cannot start the workload: %s", strerror(errno));
	return 0;
}

int pmu_workload_exec_result(struct pmu_workload *w, char *const *argv, struct tdp_err *err)
{
	ssize_t n;
	int e = 0;

	if (!w->started)
		return tdp_err_set(err, TDP_EINVAL, "workload not started");
	if (w->exec_errno < 0) {
		/* EOF: the exec closed the pipe; an int: the child's errno from execvp */
		do
			n = read(w->err_fd, &e, sizeof(e));
		while (n < 0 && errno == EINTR);
		close_fd(&w->err_fd);
		w->exec_errno = n == (ssize_t)sizeof(e) && e > 0 ? e : 0;
		if (w->exec_errno) {
			int r = pmu_workload_reap(w, true, NULL);

			(void)r;
		}
	}
	return w->exec_errno ? exec_failure(argv[0], w->exec_errno, err) : 0;
}

int pmu_workload_reap(struct pmu_workload *w, bool block, struct tdp_err *err)
{
	pid_t r;
	int st;

	if (w->reaped)
		return 1;
	if (w->pid < 0)
		return tdp_err_set(err, TDP_EINVAL, "no workload to wait for");
	do
		r = wait4(w->pid, &st, block ? 0 : WNOHANG, &w->ru);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return tdp_err_set(err, TDP_ECHILD, "cannot wait for the workload: %s", strerror(errno));
	if (r == 0)
		return 0;
	w->wstatus = st;
	w->reaped = true;
	w->pid = -1;
	close_fd(&w->pidfd);
	return 1;
}

int pmu_workload_signal(struct pmu_workload *w, int sig)
{
	if (w->pid < 0 || w->reaped)
		return -ESRCH;
	return kill(w->pid, sig) < 0 ? -errno : 0;
}

void pmu_workload_release(struct pmu_workload *w)
{
	if (w->pid > 0 && !w->reaped) {
		int r;

		kill(w->pid, SIGKILL);
		r = pmu_workload_reap(w, true, NULL);
		(void)r;
	}
	close_fd(&w->go_fd);
	close_fd(&w->err_fd);
	close_fd(&w->pidfd);
	w->pid = -1;
	w->started = false;
}
