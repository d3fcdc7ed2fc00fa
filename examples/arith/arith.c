/*
 * arith.c: an L1-resident, predictable loop limited by its own dependency chain.
 *
 * kernel() mixes a 4 KiB table into one hash: the table stays in the L1 data cache,
 * the loop branch is taken the same way every time, and nothing waits on memory,
 * but each element's xor, multiply, shift and add wait for the one before, so the
 * core issues about one instruction a cycle of its four to eight slots: Core Bound
 * (a dependency chain), as a real core and the simulation's block model (llvm-mca)
 * measure it; the simulation without llvm-mca cannot see chains and reads it as
 * Retiring. Hashing several lanes at once (independent accumulators) is its fix;
 * `tdprof why` prints the `tdprof loop` command that measures kernel() alone.
 *
 *   tdprof why -- build/examples/arith/demo-arith             Core Bound, the chain
 *   tdprof loop examples/arith/arith.c --function kernel -- -O1
 */
#include <stdio.h>

#define TABLE 1024 /* 4 KiB */
#define CALLS 2000

static unsigned table[TABLE];

/* not static: `tdprof loop` calls it by name; noinline: the hot loop stays a function of its own */
unsigned kernel(void) __attribute__((noinline));

unsigned kernel(void) /* tdprof-demo: HOT */
{
	unsigned h = 2166136261u;

	for (int i = 0; i < TABLE; i++) {
		h = (h ^ table[i]) * 16777619u;
		h += h >> 13;
	}
	return h;
}

int main(void)
{
	unsigned acc = 0;

	for (int i = 0; i < TABLE; i++)
		table[i] = (unsigned)i * 2654435761u;
	for (int c = 0; c < CALLS; c++) {
		table[c % TABLE] ^= acc;
		acc += kernel();
	}
	printf("hash %u\n", acc);
	return 0;
}
