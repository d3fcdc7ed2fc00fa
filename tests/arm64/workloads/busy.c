/*
 * busy [N]: N million iterations (default 20) of a dependent integer chain on
 * one thread, then print the result and exit 0. The hot function is spin(),
 * so samples of a recording land there (the host checks its name).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static uint64_t spin(uint64_t n)
{
	uint64_t x = 1;

	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005u + i;
		__asm__ volatile("" : "+r"(x)); /* keep every iteration */
	}
	return x;
}

int main(int argc, char **argv)
{
	uint64_t n = (argc > 1 ? strtoull(argv[1], NULL, 10) : 20) * 1000000u;

	printf("busy: %llu iterations: %016llx\n", (unsigned long long)n, (unsigned long long)spin(n));
	return 0;
}
