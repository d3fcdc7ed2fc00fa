/*
 * wl-exit CODE: exit with CODE; wl-exit segv: die of SIGSEGV (a real invalid
 * access, as a crashing program would).
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "segv")) {
		volatile int *p = NULL;

		signal(SIGSEGV, SIG_DFL);
		return *p;
	}
	return argc > 1 ? (int)strtol(argv[1], NULL, 10) : 0;
}
