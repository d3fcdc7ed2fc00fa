/*
 * sigfwd.h: SIGINT, SIGTERM and SIGHUP while tdprof runs a child it must clean
 * up after (valgrind, the compiler, the loop harness): passed on to the child's
 * process group instead of ending tdprof, so that tdprof waits for the child,
 * removes its temporary files and exits 128+N (cli/main.c asks
 * tdp_sigfwd_received()).
 *
 * Lifecycle:
 *   1. tdp_sigfwd_begin();                          the signals are caught (nests)
 *   2. for each child: tdp_sigfwd_spawnattr(&attr) (its own process group, the
 *      signals at their defaults), tdp_sigfwd_block(&old), posix_spawn(),
 *      tdp_sigfwd_child(pid, &old), wait for it, tdp_sigfwd_child(0, NULL);
 *      before starting one, give up when tdp_sigfwd_received() is set;
 *   3. tdp_sigfwd_end();                            the previous actions are back
 * A signal that arrives while no child runs is only recorded. The child has its
 * own process group so that the whole of it (valgrind's traced children, a
 * compiler's cc1) gets the signal once, whoever sent it: a terminal's ^C reaches
 * tdprof's group only, and tdprof passes it on.
 */
#ifndef TDPROF_BASE_SIGFWD_H
#define TDPROF_BASE_SIGFWD_H

#include <signal.h>
#include <spawn.h>
#include <sys/types.h>

void tdp_sigfwd_begin(void);
void tdp_sigfwd_end(void);

/** Start the child in its own process group with SIGINT/TERM/HUP/QUIT/PIPE at their defaults, nothing blocked. */
void tdp_sigfwd_spawnattr(posix_spawnattr_t *attr);

/** Hold the signals back while a child starts (old: the mask to give tdp_sigfwd_child()). */
void tdp_sigfwd_block(sigset_t *old);

/**
 * The child to pass signals to (its process group; 0: none, after it was
 * reaped: then, if a signal came, what is left of its group is killed), then
 * restore old (NULL: leave the mask).
 */
void tdp_sigfwd_child(pid_t pid, const sigset_t *old);

/** The first signal caught since the program started (sticky), or 0. */
int tdp_sigfwd_received(void);

#endif
