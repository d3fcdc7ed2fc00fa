/*
 * branch.c: the same loop over random data ("random": the `if` below is taken half
 * the time at random, so a predictor guesses wrong about half the time) or over
 * sorted data ("sorted": the branch flips once per pass and is predicted).
 * Build with -O1 -g -fno-if-conversion -fno-if-conversion2 so that gcc keeps a
 * conditional jump instead of a cmov (check: objdump -d shows a jl/jg after cmp).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 16384
#define PASSES 200

static int data[N];

int main(int argc, char **argv)
{
	int sorted = argc > 1 && strcmp(argv[1], "sorted") == 0;
	unsigned s = 12345;
	long sum = 0;

	for (int i = 0; i < N; i++) {
		s = s * 1103515245u + 12345u;
		/* Sorted data rises from 0 to 255 once; random data is uniform on 0..255. */
		data[i] = sorted ? (int)((long)i * 256 / N) : (int)((s >> 16) & 255);
	}
	for (int p = 0; p < PASSES; p++) {
		for (int i = 0; i < N; i++) {
			if (data[i] >= 128) /* BRANCH-LINE */
				sum += data[i];
		}
	}
	printf("%ld\n", sum);
	return 0;
}
