/*
 * kernels.c: branch kernels whose predictability is known by construction, for
 * bench/bpred-accuracy.py (built -O1 with if-conversion off, as the demos).
 *
 *   every4     a branch taken every 4th iteration (a 2-bit counter misses each taken one)
 *   period32   a branch following a fixed 32-long pattern
 *   trip1000   an inner loop of exactly 1000 iterations (its exit: beyond any history)
 *   indirect3  an indirect call cycling through three functions
 *   random     a branch on fresh random bits (no predictor can learn it)
 */
#include <stdio.h>
#include <string.h>

#define N 4000000

static volatile long sink;

static long f0(long x) { return x + 1; }
static long f1(long x) { return x ^ 3; }
static long f2(long x) { return x * 3; }

int main(int argc, char **argv)
{
	const char *k = argc > 1 ? argv[1] : "every4";
	unsigned s = 2463534242u, pattern = 0x9b3c5a71u;
	long sum = 0;

	if (strcmp(k, "every4") == 0) {
		for (long i = 0; i < N; i++)
			if ((i & 3) == 3) {
				sum += i;
				__asm__ volatile("");
			}
	} else if (strcmp(k, "period32") == 0) {
		for (long i = 0; i < N; i++)
			if ((pattern >> (i & 31)) & 1) {
				sum += i;
				__asm__ volatile("");
			}
	} else if (strcmp(k, "trip1000") == 0) {
		for (long r = 0; r < N / 1000; r++)
			for (int i = 0; i < 1000; i++) {
				sum += i;
				__asm__ volatile("");
			}
	} else if (strcmp(k, "indirect3") == 0) {
		long (*const fn[3])(long) = { f0, f1, f2 };
		long (*volatile table)(long);

		for (long i = 0; i < N / 2; i++) {
			table = fn[i % 3];
			sum += table(i);
		}
	} else if (strcmp(k, "random") == 0) {
		for (long i = 0; i < N; i++) {
			s ^= s << 13;
			s ^= s >> 17;
			s ^= s << 5;
			if (s & 0x100) {
				sum += i;
				__asm__ volatile("");
			}
		}
	} else {
		fprintf(stderr, "kernels: unknown kernel '%s'\n", k);
		return 2;
	}
	sink = sum;
	printf("%s %ld\n", k, sum);
	return 0;
}
