/*
 * wl-busy-threads N MS: N threads each burn MS milliseconds of their own CPU time
 * (CLOCK_THREAD_CPUTIME_ID), then the process prints its total CPU time
 * (CLOCK_PROCESS_CPUTIME_ID) in ns to stderr as "cpu_ns=<n>" so a test can compare
 * it with the task-clock counted over the process and its threads.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* the loop writes here so that the compiler keeps it */
static volatile unsigned long sink;

static long burn_ms;

static long long ns_of(clockid_t clk)
{
	struct timespec t;

	clock_gettime(clk, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void *burn(void *arg)
{
	long long start = ns_of(CLOCK_THREAD_CPUTIME_ID);

	(void)arg;
	while (ns_of(CLOCK_THREAD_CPUTIME_ID) - start < burn_ms * 1000000LL)
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i;
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 2;
	pthread_t t[64];

	burn_ms = argc > 2 ? strtol(argv[2], NULL, 10) : 200;
	if (n < 1 || n > 64)
		return 2;
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, burn, NULL))
			return 3;
	for (long i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	fprintf(stderr, "cpu_ns=%lld\n", ns_of(CLOCK_PROCESS_CPUTIME_ID));
	return 0;
}
