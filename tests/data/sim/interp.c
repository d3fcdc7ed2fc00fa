/*
 * interp.c: a bytecode interpreter whose switch becomes a jump table (one indirect
 * jump per instruction); the program is random, so the jump's target changes at
 * random and an indirect predictor that remembers the last target is wrong ~7 times
 * in 8. Bad Speculation bound. 256 Ki instructions: far more than a predictor learns
 * by heart when the program is run again (ITTAGE-class predictors hold a few
 * thousand targets).
 */
#include <stdio.h>

#define PROG (1 << 18)
#define RUNS 5

static unsigned char prog[PROG];

int main(void)
{
	unsigned s = 88172645u;
	long acc = 1, x = 3;

	for (int i = 0; i < PROG; i++) {
		s = s * 1664525u + 1013904223u;
		prog[i] = (unsigned char)((s >> 24) & 7);
	}
	for (int r = 0; r < RUNS; r++) {
		for (int pc = 0; pc < PROG; pc++) {
			switch (prog[pc]) { /* DISPATCH-LINE */
			case 0: acc += x; break;
			case 1: acc -= x >> 1; break;
			case 2: acc ^= x; break;
			case 3: x += acc & 15; break;
			case 4: x ^= acc >> 3; break;
			case 5: acc = acc * 3 + 1; break;
			case 6: x -= 7; break;
			default: acc += r; break;
			}
		}
	}
	printf("%ld %ld\n", acc, x);
	return 0;
}
