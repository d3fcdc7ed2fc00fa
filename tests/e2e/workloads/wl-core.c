/*
 * wl-core.c: kernels whose bottleneck is known by construction, for the
 * simulated backend's core model (tests/e2e/test_sim_core.py, issue 19).
 * argv[1] picks one:
 *   div      a dependent divide chain: each divide waits for the one before (Core Bound)
 *   mul1     one multiply chain: latency-bound (Core Bound)
 *   mul8     the same multiplies over 8 independent accumulators (less Core Bound, more Retiring)
 *   icall    an indirect call per iteration through a volatile pointer to a tiny function: every
 *            call and return a taken indirect branch, predicted (a redirect bubble each: Frontend)
 *   stride   a walk over 16 MiB with a fixed 64-byte stride, independent addresses (misses overlap)
 *   prefetch the stride walk with a software prefetch 16 lines ahead (the misses it covers overlap)
 *   chase    a pointer chase over the same 16 MiB, one line per node, in a random order (MLP 1)
 * Built with -O2 and without inlining of the kernel functions, so the loops are the code shown.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_ITER 2000000
#define FOOT (16u << 20) /* bytes walked by stride and chase */
#define LINE 64u

static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t k_div(uint64_t x, uint64_t d)
{
	for (long i = 0; i < N_ITER; i++)
		x = x / d + 0x9e3779b97f4a7c15ull; /* the next divide needs this result */
	return x;
}

__attribute__((noinline)) static uint64_t k_mul1(uint64_t x, uint64_t m)
{
	for (long i = 0; i < 8 * N_ITER; i++)
		x *= m;
	return x;
}

__attribute__((noinline)) static uint64_t k_mul8(uint64_t x, uint64_t m)
{
	uint64_t a[8] = { x, x + 1, x + 2, x + 3, x + 4, x + 5, x + 6, x + 7 };

	for (long i = 0; i < N_ITER; i++) {
		a[0] *= m; a[1] *= m; a[2] *= m; a[3] *= m;
		a[4] *= m; a[5] *= m; a[6] *= m; a[7] *= m;
	}
	return a[0] ^ a[1] ^ a[2] ^ a[3] ^ a[4] ^ a[5] ^ a[6] ^ a[7];
}

__attribute__((noinline)) static uint64_t f0(uint64_t x) { return x + 1; }
__attribute__((noinline)) static uint64_t f1(uint64_t x) { return x ^ 3; }
__attribute__((noinline)) static uint64_t f2(uint64_t x) { return x - 7; }
__attribute__((noinline)) static uint64_t f3(uint64_t x) { return x | 5; }

__attribute__((noinline)) static uint64_t k_icall(uint64_t x)
{
	static uint64_t (*const volatile fn)(uint64_t) = f0;

	for (long i = 0; i < 4 * N_ITER; i++)
		x = fn(x); /* the same target every time: no mispredict, only the redirects */
	return x ^ f1(x) ^ f2(x) ^ f3(x);
}

__attribute__((noinline)) static uint64_t k_stride(const uint8_t *p, size_t bytes, int reps)
{
	uint64_t s = 0;

	for (int r = 0; r < reps; r++)
		for (size_t i = 0; i < bytes; i += LINE)
			s += p[i]; /* the address depends on i only */
	return s;
}

__attribute__((noinline)) static uint64_t k_prefetch(const uint8_t *p, size_t bytes, int reps)
{
	uint64_t s = 0;

	for (int r = 0; r < reps; r++)
		for (size_t i = 0; i < bytes; i += LINE) {
			__builtin_prefetch(p + i + 16 * LINE);
			s += p[i];
		}
	return s;
}

__attribute__((noinline)) static uint64_t k_chase(void *const *p, size_t steps)
{
	while (steps--)
		p = (void *const *)*p; /* the address is the value just loaded */
	return (uint64_t)(uintptr_t)p;
}

int main(int argc, char **argv)
{
	const char *k = argc > 1 ? argv[1] : "";
	size_t nodes = FOOT / LINE;

	if (!strcmp(k, "div")) {
		sink = k_div((uint64_t)argc << 40, 3u + (uint64_t)argc);
	} else if (!strcmp(k, "mul1")) {
		sink = k_mul1((uint64_t)argc, 0x5851f42d4c957f2dull);
	} else if (!strcmp(k, "mul8")) {
		sink = k_mul8((uint64_t)argc, 0x5851f42d4c957f2dull);
	} else if (!strcmp(k, "icall")) {
		sink = k_icall((uint64_t)argc);
	} else if (!strcmp(k, "stride") || !strcmp(k, "prefetch") || !strcmp(k, "chase")) {
		/* .bss, not the allocator: MALLOC_PERTURB_ (set by the test runner) would
		 * fill an allocation byte by byte and bury the kernel */
		static uint8_t mem[FOOT] __attribute__((aligned(64)));

		if (strcmp(k, "chase")) {
			for (size_t x = 0; x < nodes; x++) /* touched once, as the chase's links are */
				mem[x * LINE] = (uint8_t)x;
			/* the prefetch reads up to 16 lines past the end: the walk stops short of them */
			sink = k[0] == 's' ? k_stride(mem, FOOT - 16 * LINE, 8) : k_prefetch(mem, FOOT - 16 * LINE, 8);
		} else {
			/* node x links to node (5x + 1) mod nodes: a full-period LCG over the
			 * power-of-two node count, a scattered cycle through every line with
			 * no divide in the setup */
			for (size_t x = 0; x < nodes; x++)
				*(void **)(mem + x * LINE) = mem + ((5 * x + 1) & (nodes - 1)) * LINE;
			sink = k_chase((void *const *)mem, 8 * nodes);
		}
	} else {
		fprintf(stderr, "usage: wl-core div|mul1|mul8|icall|stride|prefetch|chase\n");
		return 2;
	}
	return 0;
}
