/*
 * wl-mem.c: memory and branch kernels whose behaviour is known by construction,
 * for the machine of tdprof's valgrind tool (tests/e2e/test_sim_mach.py, issue 19).
 * argv[1] picks one:
 *   stride    an array walk with a fixed 256-byte stride over 64 MiB (more than the
 *             L3): the addresses are known ahead, prefetchers cover them, misses overlap
 *   chase     a pointer chase through the same 64 MiB, one node per 256 bytes, in a
 *             scattered order: each address is the value just loaded (no overlap)
 *   l2 | l3 | dram   a scattered pointer chase through 512 KiB, 8 MiB or 128 MiB:
 *             resident in L2, in L3, or in neither (the latencies in order)
 *   gather    sum a[idx[i]] over 64 MiB with scattered indices (independent misses)
 *   gatherpf  the same with a software prefetch of a[idx[i + 16]]
 *   pattern   a branch taken every 4th time, among three others a period: a long-history
 *             predictor learns it, valgrind's (7 bits of global history) does not
 *   random    the same branch on random data (nobody predicts it)
 *   copy      memcpy of 32 KiB blocks, L2-resident (glibc copies with `rep movsb`: one
 *             instruction to the core, a loop of bytes under valgrind)
 * Built with -O2 -g and no inlining of the kernels, so that the loops are the code shown.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB (1u << 20)

static volatile uint64_t sink;
static uint8_t big[128u * MIB] __attribute__((aligned(4096)));

/* node x links to node (5x + 1) mod n: a full-period cycle over a power-of-two count, scattered */
static void make_cycle(uint8_t *mem, size_t n, size_t node)
{
	for (size_t x = 0; x < n; x++)
		*(void **)(mem + x * node) = mem + ((5 * x + 1) & (n - 1)) * node;
}

__attribute__((noinline)) static uint64_t k_chase(void *const *p, size_t steps)
{
	while (steps--)
		p = (void *const *)*p; /* the address is the value just loaded */
	return (uint64_t)(uintptr_t)p;
}

__attribute__((noinline)) static uint64_t k_stride(const uint64_t *a, size_t n, size_t step, int reps)
{
	uint64_t s = 0;

	for (int r = 0; r < reps; r++)
		for (size_t i = 0; i < n; i += step)
			s += a[i]; /* the address depends on i only */
	return s;
}

__attribute__((noinline)) static uint64_t k_gather(const uint64_t *a, const uint32_t *idx, size_t n)
{
	uint64_t s = 0;

	for (size_t i = 0; i < n; i++)
		s += a[idx[i]];
	return s;
}

__attribute__((noinline)) static uint64_t k_gatherpf(const uint64_t *a, const uint32_t *idx, size_t n)
{
	uint64_t s = 0;

	for (size_t i = 0; i < n; i++) {
		__builtin_prefetch(&a[idx[i + 16]]);
		s += a[idx[i]];
	}
	return s;
}

static volatile size_t zero; /* 0, unknown to the compiler */

__attribute__((noinline)) static uint64_t k_branch(const uint8_t *v, size_t n, int reps)
{
	uint64_t s = 0;
	size_t m = zero;

	for (int r = 0; r < reps; r++)
		for (size_t i = 0; i < n; i++) {
			if (v[i]) /* the branch under test */
				s += i;
			else
				s ^= i;
			/* never taken (m is 0): they fill a short global history, so that a
			 * predictor needs 12 branches of it to see where the pattern is */
			if (i & m)
				s *= 3;
			if ((i >> 3) & m)
				s -= 7;
		}
	return s;
}

static int gather(int prefetch)
{
	size_t n = 1u << 20, words = 64u * MIB / 8;
	uint64_t *a = (uint64_t *)(void *)big;
	static uint32_t idx[(1u << 20) + 16];
	uint32_t x = 1;

	for (size_t i = 0; i < words; i += 8)
		a[i] = i;
	for (size_t i = 0; i < n + 16; i++) {
		x = x * 1664525u + 1013904223u;
		idx[i] = (x >> 6) % (uint32_t)words;
	}
	sink = prefetch ? k_gatherpf(a, idx, n) : k_gather(a, idx, n);
	return 0;
}

static int copy(void)
{
	static uint8_t dst[32u << 10];

	for (int r = 0; r < 400; r++) {
		memcpy(dst, big + ((size_t)(r % 8) << 15), sizeof(dst));
		sink += dst[r % sizeof(dst)];
	}
	return 0;
}

static int branch(int pattern)
{
	/* longer than any predictor's tables: random data cannot be learnt by heart */
	static uint8_t v[1u << 18];
	uint32_t x = 7;

	for (size_t i = 0; i < sizeof(v); i++) {
		x = x * 1664525u + 1013904223u;
		v[i] = pattern ? (i % 4 == 0) : (x >> 28) & 1;
	}
	sink = k_branch(v, sizeof(v), 8);
	return 0;
}

int main(int argc, char **argv)
{
	const char *k = argc > 1 ? argv[1] : "";

	if (!strcmp(k, "stride") || !strcmp(k, "chase")) {
		size_t foot = 64u * MIB, node = 256;

		if (!strcmp(k, "chase")) {
			make_cycle(big, foot / node, node);
			sink = k_chase((void *const *)(void *)big, 2 * foot / node);
		} else {
			for (size_t x = 0; x < foot; x += node) /* touched once, as the chase's links are */
				*(uint64_t *)(void *)(big + x) = x;
			sink = k_stride((const uint64_t *)(void *)big, foot / 8, node / 8, 2);
		}
	} else if (!strcmp(k, "l2") || !strcmp(k, "l3") || !strcmp(k, "dram")) {
		size_t foot = k[0] == 'd' ? 128u * MIB : k[1] == '3' ? 8u * MIB : MIB / 2, node = 64;

		make_cycle(big, foot / node, node);
		/* the same number of steps whatever the footprint */
		sink = k_chase((void *const *)(void *)big, 1u << 21);
	} else if (!strcmp(k, "gather") || !strcmp(k, "gatherpf")) {
		return gather(k[6] == 'p');
	} else if (!strcmp(k, "pattern") || !strcmp(k, "random")) {
		return branch(k[0] == 'p');
	} else if (!strcmp(k, "copy")) {
		return copy();
	} else {
		fprintf(stderr, "usage: wl-mem stride|chase|l2|l3|dram|gather|gatherpf|pattern|random|copy\n");
		return 2;
	}
	return 0;
}
