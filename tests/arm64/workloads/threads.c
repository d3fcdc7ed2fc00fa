/*
 * threads [T [N]]: T threads (default 4) each run N million iterations (default
 * 5) of a dependent integer chain, then exit 0. Counts inherited by threads
 * should add up to T times one thread's.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 64

struct job {
	uint64_t n;
	uint64_t out;
};

static void *work(void *arg)
{
	struct job *j = arg;
	uint64_t x = 1;

	for (uint64_t i = 0; i < j->n; i++) {
		x = x * 6364136223846793005u + i;
		__asm__ volatile("" : "+r"(x));
	}
	j->out = x;
	return NULL;
}

int main(int argc, char **argv)
{
	long t = argc > 1 ? strtol(argv[1], NULL, 10) : 4;
	uint64_t n = (argc > 2 ? strtoull(argv[2], NULL, 10) : 5) * 1000000u;
	pthread_t tid[MAX_THREADS];
	struct job jobs[MAX_THREADS];
	uint64_t sum = 0;

	if (t < 1 || t > MAX_THREADS) {
		fprintf(stderr, "threads: thread count must be 1..%d\n", MAX_THREADS);
		return 2;
	}
	for (long i = 0; i < t; i++) {
		jobs[i] = (struct job){ n, 0 };
		if (pthread_create(&tid[i], NULL, work, &jobs[i])) {
			fprintf(stderr, "threads: cannot create thread %ld\n", i);
			return 1;
		}
	}
	for (long i = 0; i < t; i++) {
		pthread_join(tid[i], NULL);
		sum += jobs[i].out;
	}
	printf("threads: %ld x %llu iterations: %016llx\n", t, (unsigned long long)n, (unsigned long long)sum);
	return 0;
}
