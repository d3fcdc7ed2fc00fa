/*
 * chase.c: a pointer chase over a random cyclic list of 1 Mi nodes of 64 bytes
 * (64 MiB, twice the simulated last level): every step is a dependent load that
 * misses every cache, so the run is memory (Backend) bound.
 */
#include <stdio.h>
#include <stdlib.h>

#define NODES (1u << 20)
#define STEPS (3u << 20)

struct node {
	struct node *next;
	long pad[7]; /* one node per 64-byte line */
};

int main(void)
{
	struct node *nodes = malloc(sizeof(*nodes) * NODES);
	unsigned *order = malloc(sizeof(*order) * NODES);
	unsigned s = 2463534242u;
	struct node *p;

	if (!nodes || !order)
		return 1;
	for (unsigned i = 0; i < NODES; i++)
		order[i] = i;
	/* Sattolo's shuffle: one cycle through every node. */
	for (unsigned i = NODES - 1; i > 0; i--) {
		unsigned j, t;

		s ^= s << 13;
		s ^= s >> 17;
		s ^= s << 5;
		j = s % i;
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (unsigned i = 0; i < NODES; i++)
		nodes[order[i]].next = &nodes[order[(i + 1) % NODES]];
	p = &nodes[order[0]];
	for (unsigned k = 0; k < STEPS; k++)
		p = p->next; /* CHASE-LINE */
	printf("%ld\n", (long)(p - nodes));
	free(order);
	free(nodes);
	return 0;
}
