/*
 * prog.c: a test program for the symbol module, compiled by the unit tests at
 * run time (gcc -O1 -g and gcc -O2 -g). It has out-of-line functions, a chain of
 * functions inlined into each other (-O2 inlines them; always_inline makes it
 * sure at -O1 too), a data-dependent branch and a function in another file
 * (prog-util.c) so that the line table has two files.
 */
#include <stdio.h>
#include <stdlib.h>

int util_mix(int x);

static inline __attribute__((always_inline)) int leaf(int x)
{
	if (x & 1)
		return x * 3 + 1;
	return x / 2;
}

static inline __attribute__((always_inline)) int middle(int x)
{
	int y = leaf(x);

	return y + leaf(y);
}

__attribute__((noinline)) int outer(int x)
{
	int s = 0;

	for (int i = 0; i < x; i++)
		s += middle(i ^ x);
	return s;
}

__attribute__((noinline)) long collatz_steps(long n)
{
	long steps = 0;

	while (n != 1) {
		if (n % 2)
			n = 3 * n + 1;
		else
			n /= 2;
		steps++;
	}
	return steps;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 1000;
	long total = 0;

	for (int i = 1; i < n; i++)
		total += collatz_steps(i);
	total += outer(n);
	total += util_mix(n);
	printf("%ld\n", total);
	return 0;
}
