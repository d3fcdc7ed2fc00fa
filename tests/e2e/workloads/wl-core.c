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
 *   ports    eight independent multiplies per iteration, no chain: a multiply runs on one port only
 *            (port 1 of Intel's big cores, one of Zen's): port-bound (Core Bound)
 *   spread   the same count of independent operations, each an add any ALU port runs (Retiring)
 *   heavy    register swaps (xchg: three µops each on Intel's cores, two on Zen), independent
 *            (Retiring, Heavy Operations)
 *   ucode    64-byte copies by rep movsb, a microcode sequence each (Retiring, Heavy Operations)
 * ports, spread, heavy and ucode are x86 assembly: elsewhere they exit 3.
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

#if defined(__x86_64__)
__attribute__((noinline)) static uint64_t k_ports(uint64_t a, uint64_t b)
{
	uint64_t c, d, e, f, g, h, p, q;

	for (long i = 0; i < N_ITER; i++) {
		/* no output is an input: the eight are independent of each other and of the last iteration */
		__asm__ volatile("imul $3, %[a], %[c]\n\t"
				 "imul $11, %[b], %[d]\n\t"
				 "imul $5, %[b], %[e]\n\t"
				 "imul $13, %[a], %[f]\n\t"
				 "imul $7, %[a], %[g]\n\t"
				 "imul $15, %[b], %[h]\n\t"
				 "imul $9, %[b], %[p]\n\t"
				 "imul $17, %[a], %[q]\n\t"
				 : [c] "=&r"(c), [d] "=&r"(d), [e] "=&r"(e), [f] "=&r"(f), [g] "=&r"(g), [h] "=&r"(h),
				   [p] "=&r"(p), [q] "=&r"(q)
				 : [a] "r"(a), [b] "r"(b));
	}
	return c ^ d ^ e ^ f ^ g ^ h ^ p ^ q;
}

__attribute__((noinline)) static uint64_t k_spread(uint64_t a, uint64_t b)
{
	uint64_t c = a, d = b, e = a, f = b, g = a, h = b, p = a, q = b;

	for (long i = 0; i < N_ITER; i++) {
		/* eight adds of a constant, each its own one-cycle chain: four ALU ports run two iterations' in three cycles */
		__asm__ volatile("add $3, %[c]\n\t"
				 "add $8, %[d]\n\t"
				 "add $5, %[e]\n\t"
				 "add $16, %[f]\n\t"
				 "add $7, %[g]\n\t"
				 "add $24, %[h]\n\t"
				 "add $9, %[p]\n\t"
				 "add $32, %[q]\n\t"
				 : [c] "+r"(c), [d] "+r"(d), [e] "+r"(e), [f] "+r"(f), [g] "+r"(g), [h] "+r"(h), [p] "+r"(p),
				   [q] "+r"(q));
	}
	return c ^ d ^ e ^ f ^ g ^ h ^ p ^ q;
}

__attribute__((noinline)) static uint64_t k_heavy(uint64_t a, uint64_t b)
{
	uint64_t c = a, d = b, e = a + 1, f = b + 1, g = a + 2, h = b + 2;

	for (long i = 0; i < N_ITER; i++) {
		__asm__ volatile("xchg %[c], %[d]\n\t"
				 "xchg %[e], %[f]\n\t"
				 "xchg %[g], %[h]\n\t"
				 : [c] "+r"(c), [d] "+r"(d), [e] "+r"(e), [f] "+r"(f), [g] "+r"(g), [h] "+r"(h));
	}
	return c ^ d ^ e ^ f ^ g ^ h;
}

__attribute__((noinline)) static uint64_t k_ucode(uint8_t *dst, const uint8_t *src)
{
	for (long i = 0; i < N_ITER / 4; i++) {
		void *d = dst, *s = (void *)(uintptr_t)src;
		size_t n = 64;

		__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
	}
	return dst[63];
}
#endif

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
	} else if (!strcmp(k, "ports") || !strcmp(k, "spread") || !strcmp(k, "heavy") || !strcmp(k, "ucode")) {
#if defined(__x86_64__)
		static uint8_t buf[2][64];

		buf[1][5] = (uint8_t)argc;
		sink = k[0] == 'p'   ? k_ports((uint64_t)argc, 3)
		       : k[0] == 's' ? k_spread((uint64_t)argc, 3)
		       : k[0] == 'h' ? k_heavy((uint64_t)argc, 3)
				     : k_ucode(buf[0], buf[1]);
#else
		fprintf(stderr, "wl-core: %s is x86 assembly\n", k);
		return 3;
#endif
	} else {
		fprintf(stderr, "usage: wl-core div|mul1|mul8|icall|stride|prefetch|chase|ports|spread|heavy|ucode\n");
		return 2;
	}
	return 0;
}
