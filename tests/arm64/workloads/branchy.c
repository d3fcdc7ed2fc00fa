/*
 * branchy [N]: N million (default 10) data-dependent branches on pseudo-random
 * bytes (an LCG, so the run is the same every time): about half go each way,
 * so a real branch predictor misses about half of them. Exit 0.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define LEN 4096

static unsigned char data[LEN];

__attribute__((noinline)) static uint64_t walk(uint64_t n)
{
	uint64_t above = 0;

	for (uint64_t i = 0; i < n; i++) {
		/* the unpredictable branch: an asm in each arm keeps it a branch (no csel) */
		if (data[i % LEN] >= 128) {
			above += i;
			__asm__ volatile("" : "+r"(above));
		} else {
			above ^= i;
			__asm__ volatile("" : "+r"(above));
		}
	}
	return above;
}

int main(int argc, char **argv)
{
	uint64_t n = (argc > 1 ? strtoull(argv[1], NULL, 10) : 10) * 1000000u;
	uint32_t s = 12345;

	for (size_t i = 0; i < LEN; i++) {
		s = s * 1103515245u + 12345u;
		data[i] = (unsigned char)(s >> 16);
	}
	printf("branchy: %llu branches: %016llx\n", (unsigned long long)n, (unsigned long long)walk(n));
	return 0;
}
