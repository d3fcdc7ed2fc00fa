/*
 * workload.h: start the command being measured so that the counters see it from
 * its first instruction and see nothing of tdprof.
 *
 * The child is forked early and parked: it blocks on a pipe while the parent opens
 * counters on its pid with enable_on_exec, then calls execvp(). A failed exec comes
 * back through a close-on-exec pipe (it carries errno; a successful exec closes it
 * empty), so the parent reports "command not found" (127) or "not executable" (126)
 * with the reason, as a shell does. Nothing runs in the child between fork and exec
 * but restoring the signal mask, one read() and execvp().
 *
 * Lifecycle:
 *   1. struct pmu_workload w = PMU_WORKLOAD_INIT;
 *   2. pmu_workload_prepare(&w, argv, &mask, &err): fork; w.pid is the parked child;
 *      open counters on w.pid now (disabled, enable_on_exec);
 *   3. pmu_workload_start(&w, &err): release the child; it calls execvp() while the
 *      caller goes on (no wait: one scheduler wake-up less, as perf does);
 *   4. wait for it: poll w.pidfd (readable when it exits; -1 when the kernel has no
 *      pidfd_open) and call pmu_workload_reap(), or pmu_workload_reap(&w, true, ...);
 *   5. pmu_workload_exec_result(&w, argv, &err): did the exec succeed (0) or fail
 *      (TDP_ENOCMD / TDP_ENOEXEC)? Immediate once the child has exited; before
 *      that it blocks until the exec has happened or failed;
 *   6. pmu_workload_release(&w): kills (SIGKILL) and reaps a child still running,
 *      closes every fd. Safe at any point after PMU_WORKLOAD_INIT.
 *
 * Not thread-safe; the caller must be single-threaded when it forks (tdprof is).
 */
#ifndef TDPROF_PMU_WORKLOAD_H
#define TDPROF_PMU_WORKLOAD_H

#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

struct tdp_err;

struct pmu_workload {
	pid_t pid;         /* the child; -1 before prepare and after it was reaped */
	int pidfd;         /* pidfd of the child (readable once it exits); -1 when unavailable */
	int go_fd;         /* write end of the pipe the parked child reads; -1 once started */
	int err_fd;        /* read end of the close-on-exec pipe that reports exec failures */
	bool started;      /* pmu_workload_start() released the child */
	int exec_errno;    /* -1 until known; 0 when the exec succeeded, else its errno */
	bool reaped;       /* wstatus and ru are valid */
	int wstatus;       /* wait status (WIFEXITED/WIFSIGNALED) once reaped */
	struct rusage ru;  /* resources used by the child (and its reaped descendants) */
};

#define PMU_WORKLOAD_INIT { .pid = -1, .pidfd = -1, .go_fd = -1, .err_fd = -1, .exec_errno = -1 }

/**
 * Fork the workload and park it before exec.
 * argv: borrowed, NULL-terminated, argv[0] non-NULL; must stay valid until
 * pmu_workload_start() returns (the child execs its own copy). child_mask: the signal mask the workload starts
 * with (borrowed; NULL keeps the caller's current mask) — callers that block
 * SIGINT/SIGTERM to forward them pass the mask from before blocking.
 * Returns 0 (w->pid is the child), TDP_EIO when pipe() or fork() fails (w left
 * released). Does not block.
 */
int pmu_workload_prepare(struct pmu_workload *w, char *const *argv, const sigset_t *child_mask,
			 struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Let the parked child exec its command. Does not wait for the exec.
 * Returns 0; TDP_EINVAL when called twice or before prepare; TDP_ECHILD when the
 * child cannot be told (it died).
 */
int pmu_workload_start(struct pmu_workload *w, struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * The outcome of the exec of argv (borrowed, for the message). Blocks until the
 * exec has happened or failed (immediate once the child has exited).
 * Returns 0; TDP_ENOCMD when argv[0] was not found ("'x': command not found"),
 * TDP_ENOEXEC when it exists but cannot be executed (permission, format), with the
 * reason in err and a hint, the child then reaped; TDP_EINVAL before start.
 * Repeated calls return the same answer.
 */
int pmu_workload_exec_result(struct pmu_workload *w, char *const *argv, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Reap the child if it has exited. block: wait for it.
 * Returns 1 when reaped (w->wstatus, w->ru valid), 0 when still running (only
 * without block), TDP_ECHILD when wait4 fails. Already reaped: returns 1.
 */
int pmu_workload_reap(struct pmu_workload *w, bool block, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** Send sig to the child if it is still running; returns 0 or -errno. */
int pmu_workload_signal(struct pmu_workload *w, int sig);

/**
 * Kill (SIGKILL) and reap a child not yet reaped, close every fd. reaped, wstatus
 * and ru keep their values so the caller can still read the status; w can be
 * prepared again.
 */
void pmu_workload_release(struct pmu_workload *w);

#endif
