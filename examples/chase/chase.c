/*
 * chase.c: a pointer chase over a large random list (Backend Bound, memory).
 *
 * 1 Mi nodes of one cache line each (64 MiB, larger than any last-level cache the
 * simulation models) are linked in a random order. Every step of the walk loads the
 * address of the next node from the current one: the loads depend on each other, so
 * none can start before the previous one returned from memory, and almost every one
 * misses every cache level. The fixes are in the data layout: an array walked in
 * order, nodes allocated in the order they are visited, or several independent
 * chains walked at once so that their misses overlap.
 *
 *   tdprof why -- build/examples/chase/demo-chase             the `p = p->next` line
 */
#include <stdio.h>
#include <stdlib.h>

#define NODES (1u << 20)
#define STEPS (1u << 21)

struct node {
	struct node *next;
	long payload[7]; /* pads the node to 64 bytes: one node per cache line */
};

int main(void)
{
	struct node *nodes = malloc(sizeof(*nodes) * NODES);
	unsigned *perm = malloc(sizeof(*perm) * NODES);
	unsigned seed = 12345u;
	struct node *p;

	if (!nodes || !perm) {
		fputs("demo-chase: out of memory\n", stderr);
		return 1;
	}
	/* A random order of the nodes (a Fisher-Yates shuffle); each node then links to
	 * the next one in that order, which makes one ring through all of them. */
	for (unsigned i = 0; i < NODES; i++)
		perm[i] = i;
	for (unsigned i = NODES - 1; i > 0; i--) {
		unsigned j, t;

		seed = seed * 1103515245u + 12345u;
		j = (seed >> 8) % (i + 1);
		t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (unsigned i = 0; i < NODES; i++)
		nodes[perm[i]].next = &nodes[perm[(i + 1) % NODES]];
	free(perm);

	p = &nodes[0];
	for (unsigned step = 0; step < STEPS; step++)
		p = p->next; /* tdprof-demo: CHASE */
	printf("ended at node %ld\n", (long)(p - nodes));
	free(nodes);
	return 0;
}
