/* exitcode.c: the mapping from outcomes to exit statuses (see exitcode.h). */
#include "cli/exitcode.h"
#include "base/err.h"

#include <sys/wait.h>

int exitcode_from_err(int code)
{
	switch (code) {
	case TDP_OK:
		return EXIT_OK;
	case TDP_EUSAGE:
	case TDP_EFORMAT:
	case TDP_ELIMIT:
	case TDP_ENOENT:
		return EXIT_USAGE;
	case TDP_ENOCMD:
		return EXIT_NOTFOUND;
	case TDP_ENOEXEC:
		return EXIT_NOEXEC;
	default:
		return EXIT_ANALYSIS;
	}
}

int exitcode_from_wait(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return EXIT_SIGNAL_BASE + WTERMSIG(wstatus);
	return EXIT_ANALYSIS;
}

int exitcode_signal(int sig)
{
	return EXIT_SIGNAL_BASE + sig;
}
