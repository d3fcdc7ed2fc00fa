/*
 * wl-hot MODE N MS: burn CPU in one named function, wl_hot_loop(), so that a
 * sampling test knows which symbol the samples must name.
 *   wl-hot spin 1 MS     one thread for MS milliseconds of its CPU time
 *   wl-hot threads N MS  N threads (pthreads) for MS milliseconds each
 *   wl-hot fork N MS     N child processes for MS milliseconds each; the parent
 *                        waits for them and exits 0 when they all exited 0
 * It prints "pid=<pid>" (and "child=<pid>" per child, "tid=<tid>" per thread) to
 * stderr so that a test can look for those tasks in a recording.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* the loop writes here so that the compiler keeps it */
static volatile unsigned long sink;
static long burn_ms;

static long long thread_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* A data-dependent branch in a loop: the function the samples must land in. */
__attribute__((noinline)) unsigned long wl_hot_loop(unsigned long seed, unsigned long n);
__attribute__((noinline)) unsigned long wl_hot_loop(unsigned long seed, unsigned long n)
{
	unsigned long x = seed, acc = 0;

	for (unsigned long i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		if (x >> 63)
			acc += x >> 7;
		else
			acc ^= x;
	}
	return acc;
}

static void burn(void)
{
	long long start = thread_ns();
	unsigned long seed = (unsigned long)start;

	while (thread_ns() - start < burn_ms * 1000000LL)
		sink += wl_hot_loop(seed++, 20000);
}

static void *thread_main(void *arg)
{
	(void)arg;
	fprintf(stderr, "tid=%ld\n", (long)syscall(SYS_gettid));
	burn();
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "spin";
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 1;

	burn_ms = argc > 3 ? strtol(argv[3], NULL, 10) : 200;
	if (n < 1 || n > 64 || burn_ms < 0)
		return 2;
	fprintf(stderr, "pid=%d\n", (int)getpid());
	if (!strcmp(mode, "spin")) {
		burn();
	} else if (!strcmp(mode, "threads")) {
		pthread_t t[64];

		for (long i = 0; i < n; i++)
			if (pthread_create(&t[i], NULL, thread_main, NULL))
				return 3;
		for (long i = 0; i < n; i++)
			pthread_join(t[i], NULL);
	} else if (!strcmp(mode, "fork")) {
		int failed = 0;

		for (long i = 0; i < n; i++) {
			pid_t pid = fork();

			if (pid < 0)
				return 3;
			if (pid == 0) {
				burn();
				_exit(0);
			}
			fprintf(stderr, "child=%d\n", (int)pid);
		}
		for (long i = 0; i < n; i++) {
			int st;

			if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
				failed = 1;
		}
		return failed;
	} else {
		return 2;
	}
	return 0;
}
