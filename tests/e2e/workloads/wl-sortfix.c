/*
 * wl-sortfix.c: the fix of issue 16's diff example, in one program. Without an
 * argument it sums the bytes under 128 of random data (the if mispredicts half the
 * time); with "sorted" it first sorts them (a counting sort in the program, so both
 * runs' scope is the program's own code) and the if becomes predictable. Built by
 * test_answers.py with -O1 -g -fno-if-conversion -fno-if-conversion2.
 */
#include <stdio.h>
#include <string.h>

enum { N = 100000, PASSES = 20 };

static unsigned char v[N];

int main(int argc, char **argv)
{
	unsigned x = 1;
	long s = 0;

	for (int i = 0; i < N; i++) {
		x = x * 1103515245u + 12345u;
		v[i] = (unsigned char)(x >> 16);
	}
	if (argc > 1 && !strcmp(argv[1], "sorted")) {
		unsigned count[256] = { 0 };
		int k = 0;

		for (int i = 0; i < N; i++)
			count[v[i]]++;
		for (int b = 0; b < 256; b++)
			for (unsigned c = 0; c < count[b]; c++)
				v[k++] = (unsigned char)b;
	}
	for (int p = 0; p < PASSES; p++)
		for (int i = 0; i < N; i++)
			if (v[i] < 128) /* SORTFIX-BRANCH */
				s += v[i];
	printf("%ld\n", s);
	return 0;
}
