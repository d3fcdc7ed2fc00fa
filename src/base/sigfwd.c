/* sigfwd.c: passing SIGINT, SIGTERM and SIGHUP on to a child (see sigfwd.h). */
#include "base/sigfwd.h"

#include <errno.h>
#include <string.h>

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP };
#define NR_FORWARDED (sizeof(forwarded) / sizeof(forwarded[0]))

static volatile sig_atomic_t received; /* first signal caught */
static volatile pid_t target;          /* process group to pass it to; 0: none */
static int depth;                      /* nesting of tdp_sigfwd_begin() */
static struct sigaction saved[NR_FORWARDED];

static void on_signal(int sig)
{
	int e = errno;
	pid_t t = target;

	if (!received)
		received = sig;
	if (t > 0)
		kill(-t, sig);
	errno = e;
}

void tdp_sigfwd_begin(void)
{
	struct sigaction sa;

	if (depth++)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NR_FORWARDED; i++)
		sigaddset(&sa.sa_mask, forwarded[i]);
	for (size_t i = 0; i < NR_FORWARDED; i++)
		sigaction(forwarded[i], &sa, &saved[i]);
}

void tdp_sigfwd_end(void)
{
	if (!depth || --depth)
		return;
	target = 0;
	for (size_t i = 0; i < NR_FORWARDED; i++)
		sigaction(forwarded[i], &saved[i], NULL);
}

void tdp_sigfwd_spawnattr(posix_spawnattr_t *attr)
{
	sigset_t def, none;

	sigemptyset(&def);
	for (size_t i = 0; i < NR_FORWARDED; i++)
		sigaddset(&def, forwarded[i]);
	sigaddset(&def, SIGQUIT);
	sigaddset(&def, SIGPIPE);
	sigemptyset(&none);
	posix_spawnattr_setsigdefault(attr, &def);
	posix_spawnattr_setsigmask(attr, &none);
	posix_spawnattr_setpgroup(attr, 0);
	posix_spawnattr_setflags(attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
}

void tdp_sigfwd_block(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < NR_FORWARDED; i++)
		sigaddset(&set, forwarded[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

void tdp_sigfwd_child(pid_t pid, const sigset_t *old)
{
	pid_t prev = target;

	/* after a signal, what is left of the child's group (processes it forked) goes too */
	if (!pid && prev > 0 && received)
		kill(-prev, SIGKILL);
	target = pid;
	/* a signal that came while the child started was held back: unblocked, it is passed on */
	if (old)
		sigprocmask(SIG_SETMASK, old, NULL);
}

int tdp_sigfwd_received(void)
{
	return received;
}
