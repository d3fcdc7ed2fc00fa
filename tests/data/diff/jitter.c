/*
 * jitter.c: a program whose runs differ, for the confidence intervals of -r N
 * (tests/e2e/test_diff.py). The length of its loop of random branches depends on
 * its process id, so two runs under the simulator do not give the same figures
 * and `tdprof topdown --backend=sim -r 3` makes all three runs.
 */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	unsigned seed = 88172645u, n = 20000u + (unsigned)(getpid() % 97) * 600u;
	long sum = 0;

	for (unsigned i = 0; i < n; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 17;
		seed ^= seed << 5;
		if (seed & 0x80) { /* random: mispredicted about every other time */
			__asm__ volatile("");
			sum += seed & 7;
		} else {
			sum -= 1;
		}
	}
	printf("%ld\n", sum);
	return 0;
}
