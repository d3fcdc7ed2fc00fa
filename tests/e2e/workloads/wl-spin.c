/*
 * wl-spin MS: burn MS milliseconds of CPU on one thread, then exit 0. With MS 0
 * it spins until a signal ends it.
 */
#include <stdlib.h>
#include <time.h>

/* the loop writes here so that the compiler keeps it */
static volatile unsigned long sink;

int main(int argc, char **argv)
{
	long ms = argc > 1 ? strtol(argv[1], NULL, 10) : 100;
	struct timespec t0, t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while (ms == 0 || (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	return 0;
}
