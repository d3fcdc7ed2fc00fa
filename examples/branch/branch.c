/*
 * branch.c: one unpredictable branch (Bad Speculation).
 *
 * The loop adds up the bytes of an array that are at least 128. On random bytes the
 * `if` is taken half of the time with no pattern, so any predictor guesses wrong
 * about every other time and the pipeline throws away the work it started on the
 * wrong path. The array is 1 MiB: a predictor learns by heart a sequence of outcomes
 * that repeats if it is short enough (Lemire measured 2,000 to 30,000 on recent
 * cores); a million is far beyond any. With `sorted` the same loop sees the bytes
 * rise once from 0 to 255: the branch flips once per pass and is predicted (Retiring).
 *
 *   tdprof why -- build/examples/branch/demo-branch           the mispredicted `if`
 *   tdprof why -- build/examples/branch/demo-branch sorted    the same loop, predicted
 *
 * Built -O1 -fno-if-conversion -fno-if-conversion2 -fno-tree-vectorize; the empty asm
 * in the taken path keeps the conditional jump (a compiler may not run a volatile asm
 * speculatively: no cmov or vector mask; tests/e2e/test_demo.py checks it).
 */
#include <stdio.h>
#include <string.h>

#define N (1 << 20) /* 1 MiB, read in order: the data streams from the caches */
#define PASSES 3

static unsigned char data[N];

int main(int argc, char **argv)
{
	int sorted = argc > 1 && strcmp(argv[1], "sorted") == 0;
	unsigned seed = 2463534242u;
	long sum = 0;

	for (int i = 0; i < N; i += 4) { /* four random bytes per xorshift step */
		seed ^= seed << 13;
		seed ^= seed >> 17;
		seed ^= seed << 5;
		memcpy(&data[i], &seed, 4);
	}
	for (int i = 0; sorted && i < N; i++)
		data[i] = (unsigned char)(i / (N / 256));
	for (int pass = 0; pass < PASSES; pass++) {
		for (int i = 0; i < N; i++) {
			if (data[i] >= 128) { /* tdprof-demo: MISPREDICT */
				sum += data[i];
				__asm__ volatile(""); /* keeps the branch (see above) */
			}
		}
	}
	printf("sum %ld\n", sum);
	return 0;
}
