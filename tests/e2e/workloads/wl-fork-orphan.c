/*
 * wl-fork-orphan MS CODE: fork a child that burns MS milliseconds of CPU and then
 * exits, while the parent exits at once with CODE, before its child: the shape of
 * a program that daemonizes or leaves workers behind.
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* the loop writes here so that the compiler keeps it */
static volatile unsigned long sink;

int main(int argc, char **argv)
{
	long ms = argc > 1 ? strtol(argv[1], NULL, 10) : 500;
	int code = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 3;
	pid_t pid = fork();

	if (pid == 0) {
		struct timespec t0, t;

		/* like a daemon: do not hold the caller's output open */
		close(1);
		close(2);

		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
		do {
			for (int i = 0; i < 1000; i++)
				sink += (unsigned long)i;
			clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
		} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
		_exit(0);
	}
	return pid < 0 ? 1 : code;
}
