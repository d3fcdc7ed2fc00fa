/*
 * branch.c: the same loop over random data ("random": the `if` below is taken half
 * the time at random, so a predictor guesses wrong about half the time) or over
 * sorted data ("sorted": the branch flips once per pass and is predicted). 1 MiB of
 * random bytes: far more outcomes than a predictor learns by heart when a sequence
 * repeats (a few thousand to ~30,000 on recent cores, examples/branch/branch.c).
 * Build with -O1 -g -fno-if-conversion -fno-if-conversion2 so that gcc keeps a
 * conditional jump instead of a cmov (check: objdump -d shows a jcc after the test).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (1 << 20)
#define PASSES 3

static unsigned char data[N];

int main(int argc, char **argv)
{
	int sorted = argc > 1 && strcmp(argv[1], "sorted") == 0;
	unsigned s = 12345;
	long sum = 0;

	for (int i = 0; i < N; i++) {
		s = s * 1103515245u + 12345u;
		/* Sorted data rises from 0 to 255 once; random data is uniform on 0..255. */
		data[i] = (unsigned char)(sorted ? i / (N / 256) : (int)(s >> 16));
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
