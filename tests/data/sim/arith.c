/*
 * arith.c: integer arithmetic over a 1 KiB table that stays in L1, with a loop
 * branch that is always predicted: nearly every slot retires an instruction.
 */
#include <stdio.h>

#define LEN 256
#define PASSES 20000

static unsigned table[LEN];

int main(void)
{
	unsigned h = 2166136261u;

	for (unsigned i = 0; i < LEN; i++)
		table[i] = i * 2654435761u;
	for (unsigned p = 0; p < PASSES; p++) {
		for (unsigned i = 0; i < LEN; i++) {
			h = (h ^ table[i]) * 16777619u; /* ARITH-LINE */
			h += h >> 7;
		}
	}
	printf("%u\n", h);
	return 0;
}
