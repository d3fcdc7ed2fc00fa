/*
 * branch.c: one unpredictable branch (Bad Speculation).
 *
 * The loop below adds up the elements of an array that are at least 128. On random
 * bytes the `if` is taken half of the time with no pattern, so any branch predictor
 * guesses wrong about every other time and the pipeline throws away the work it
 * started on the wrong path. Run with `sorted` and the very same loop sees the
 * values rise once from 0 to 255: the branch flips once per pass, the predictor
 * learns it and the program runs several times faster (Retiring).
 *
 *   tdprof why -- build/examples/branch/demo-branch           the mispredicted `if`
 *   tdprof why -- build/examples/branch/demo-branch sorted    the same loop, predicted
 *
 * Built with -O1 -fno-if-conversion -fno-if-conversion2 -fno-tree-vectorize, and the
 * empty asm statement in the taken path keeps the conditional jump: a compiler may
 * not execute a volatile asm speculatively, so it cannot turn the `if` into a cmov
 * or a vector mask (tests/e2e/test_demo.py checks the jump with objdump).
 */
#include <stdio.h>
#include <string.h>

#define N 16384   /* 64 KiB of ints: the data stays in the caches */
#define PASSES 150

static int data[N];

int main(int argc, char **argv)
{
	int sorted = argc > 1 && strcmp(argv[1], "sorted") == 0;
	unsigned seed = 2463534242u;
	long sum = 0;

	for (int i = 0; i < N; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 17;
		seed ^= seed << 5;
		data[i] = sorted ? i * 256 / N : (int)(seed & 255);
	}
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
