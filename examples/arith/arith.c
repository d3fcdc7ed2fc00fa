/*
 * arith.c: an L1-resident, predictable loop (Retiring).
 *
 * kernel() mixes a 4 KiB table with integer arithmetic: the table stays in the L1
 * data cache, the loop branch is taken the same way every time, and nothing waits
 * on memory, so nearly every pipeline slot retires a useful instruction. Such code
 * is already near the machine's peak: only fewer or cheaper instructions (a better
 * algorithm, vectorisation, strength reduction) make it faster. `tdprof why`
 * prints the `tdprof loop` command that measures kernel() alone.
 *
 *   tdprof why -- build/examples/arith/demo-arith             Retiring, the hot loop
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
