/*
 * wl-twofn: two functions with different bottlenecks, for the per-function top-down
 * (`tdprof topdown --by function`): branchy() takes a data-dependent branch on
 * 1 MiB of random bytes (Bad Speculation; far more outcomes than a predictor learns
 * by heart when they repeat; an empty asm keeps the compiler from making it a
 * conditional move), chase() follows a random cycle through 1 Mi nodes of 64 bytes,
 * 64 MiB, twice a simulated last-level cache (Backend Bound: every load misses).
 * Never inlined, so each keeps its own lines.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* more random bytes than a modern predictor's tables can learn by heart (a TAGE learns
 * part of 64 KiB that repeat 200 times): 1 MiB, 12 passes, the same branches */
#define BYTES (1u << 20)
#define PASSES 12
#define NODES (1u << 20) /* 64 MiB of nodes */
#define STEPS 300000

struct node {
	struct node *next;
	char pad[56]; /* one node per cache line */
};

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

__attribute__((noinline)) static long branchy(const unsigned char *b, size_t n)
{
	long sum = 0;

	for (int p = 0; p < PASSES; p++)
		for (size_t i = 0; i < n; i++)
			if (b[i] < 128) { /* random: mispredicted half the time */
				__asm__ volatile("" ::: "memory");
				sum += b[i];
			}
	return sum;
}

__attribute__((noinline)) static const struct node *chase(const struct node *at, size_t steps)
{
	for (size_t i = 0; i < steps; i++)
		at = at->next; /* a dependent load that misses */
	return at;
}

int main(void)
{
	unsigned char *b = malloc(BYTES);
	uint32_t *perm = malloc(NODES * sizeof(*perm));
	struct node *nodes = malloc(NODES * sizeof(*nodes));

	if (!b || !perm || !nodes)
		return 1;
	for (size_t i = 0; i < BYTES; i++)
		b[i] = (unsigned char)next();
	for (size_t i = 0; i < NODES; i++)
		perm[i] = i;
	for (size_t i = NODES - 1; i > 0; i--) { /* Sattolo: one cycle through every node */
		size_t j = next() % i;
		uint32_t t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (size_t i = 0; i < NODES; i++)
		nodes[perm[i]].next = &nodes[perm[(i + 1) % NODES]];
	free(perm);
	printf("%ld %td\n", branchy(b, BYTES), chase(&nodes[0], STEPS) - nodes);
	free(b);
	free(nodes);
	return 0;
}
