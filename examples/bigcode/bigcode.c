/*
 * bigcode.c: a large code footprint with predictable calls (Frontend Bound).
 *
 * run_all() calls 1000 different small functions, always in the same order
 * (gen-bigcode.py writes them at build time into bigcode-funcs.c). Together they
 * are about 250 KiB of code, eight times a 32 KiB L1 instruction cache: every pass
 * fetches all of it again from the next level, and the front end starves the rest
 * of the pipeline while it waits for instructions. Nothing mispredicts and no data
 * misses: the cost is the code's size. The fixes shrink or reorder the hot code:
 * profile-guided optimisation and function reordering (hot code together), less
 * inlining and unrolling of cold paths, -Os for rarely run code, huge pages for text.
 *
 *   tdprof why -- build/examples/bigcode/demo-bigcode         i-cache misses, code footprint
 */
#include <stdio.h>

#define PASSES 40

unsigned run_all(unsigned x);

int main(void)
{
	unsigned x = 1;

	for (int pass = 0; pass < PASSES; pass++)
		x = run_all(x);
	printf("result %u\n", x);
	return 0;
}
