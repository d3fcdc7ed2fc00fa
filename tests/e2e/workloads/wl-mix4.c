/*
 * wl-mix4: four functions, four different bottlenecks, for the per-function
 * top-down (`tdprof topdown --by function`, `tdprof why`), each with the line that
 * is guilty marked "guilty:":
 *   flip()     a data-dependent branch on random bytes (Bad Speculation > Branch
 *              Mispredicts; an empty asm keeps it a branch, not a conditional move);
 *   walk()     a pointer chase through a random cycle of 64-byte nodes, 64 MiB,
 *              twice a simulated last-level cache (Backend Bound > Memory Bound);
 *   divide()   a chain of dependent 64-bit divisions (Backend Bound > Core Bound: the
 *              divider's latency, no memory);
 *   straight() a loop whose body is 6,144 independent adds, about 43 KiB of code,
 *              more than a 32 KiB instruction cache holds (Frontend Bound > Fetch
 *              Latency: every pass misses on every line of code).
 * Never inlined, so each keeps its own lines.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* more random bytes than a modern predictor's tables learn by heart: 1 MiB, 5 passes */
#define BYTES (1u << 20)
#define PASSES 5
#define NODES (1u << 20) /* 64 MiB of nodes */
#define STEPS 150000
#define DIVS 150000
#define STRAIGHT_PASSES 2500

struct node {
	struct node *next;
	char pad[56]; /* one node per cache line */
};

static uint64_t rng = 0x2545F4914F6CDD1Dull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

__attribute__((noinline)) static long flip(const unsigned char *b, size_t n)
{
	long sum = 0;

	for (int p = 0; p < PASSES; p++)
		for (size_t i = 0; i < n; i++)
			if (b[i] & 1) { /* guilty: flip - random, mispredicted half the time */
				__asm__ volatile("" ::: "memory");
				sum += b[i];
			}
	return sum;
}

__attribute__((noinline)) static const struct node *walk(const struct node *at, size_t steps)
{
	for (size_t i = 0; i < steps; i++)
		at = at->next; /* guilty: walk - each load waits for the one before and misses */
	return at;
}

__attribute__((noinline)) static uint64_t divide(uint64_t x, uint64_t d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		x = x / d + 0x9E3779B97F4A7C15ull; /* guilty: divide - each division waits for the one before */
	return x;
}

/* 8 independent adds (each kept by an empty asm, so that nothing is folded); then 8x, 8x, 8x, 12x of them */
#define ADD(r) r += __COUNTER__ * 0x10001u; __asm__ volatile("" : "+r"(r));
#define S8 ADD(a0) ADD(a1) ADD(a2) ADD(a3) ADD(a4) ADD(a5) ADD(a6) ADD(a7)
#define S64 S8 S8 S8 S8 S8 S8 S8 S8
#define S512 S64 S64 S64 S64 S64 S64 S64 S64
#define S6144 S512 S512 S512 S512 S512 S512 S512 S512 S512 S512 S512 S512

__attribute__((noinline)) static uint64_t straight(uint64_t seed)
{
	uint64_t a0 = seed, a1 = seed + 1, a2 = seed + 2, a3 = seed + 3, a4 = seed + 4, a5 = seed + 5, a6 = seed + 6,
		 a7 = seed + 7;

	for (int p = 0; p < STRAIGHT_PASSES; p++) {
		S6144 /* guilty: straight - 43 KiB of code in one pass */
	}
	return a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7;
}

/* .bss, not the allocator: MALLOC_PERTURB_ (set by the test runner) would make malloc fill 64 MiB */
static unsigned char b[BYTES];
static struct node nodes[NODES];

int main(int argc, char **argv)
{
	uint64_t d = argc > 5 ? strtoull(argv[1], NULL, 0) : 3; /* not a constant the compiler could see */

	(void)argv;
	for (size_t i = 0; i < BYTES; i++)
		b[i] = (unsigned char)next();
	/* i -> (a i + c) mod 2^20, a = 1 mod 4 and c odd: one cycle through every node (Hull-Dobell), in an
	 * order no prefetcher follows, written in one sequential pass (the set-up costs little) */
	for (size_t i = 0; i < NODES; i++)
		nodes[i].next = &nodes[(i * 0x5DEECE6Du + 0x2C9277B5u) & (NODES - 1)];
	printf("%ld %td %llu %llu\n", flip(b, BYTES), walk(&nodes[0], STEPS) - nodes,
	       (unsigned long long)divide(~0ull, d, DIVS), (unsigned long long)straight(d));
	return 0;
}
