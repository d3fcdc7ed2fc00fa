/*
 * switch-target.c: an interpreter loop whose switch clang compiles to a jump
 * table whose dispatch (`jmp *reg`) has line 0 in the line table; built with
 * clang by test-line0.c at test time.
 */
#include <stdio.h>

static unsigned char prog[4096];

__attribute__((noinline)) static long run(long a, long b)
{
	for (int pc = 0; pc < 4096; pc++) {
		switch (prog[pc] & 7) { /* LINE0-OWNER */
		case 0: a += b; break;
		case 1: a -= b >> 1; break;
		case 2: a ^= b; break;
		case 3: b += a & 15; break;
		case 4: b ^= a >> 3; break;
		case 5: a = a * 3 + 1; break;
		case 6: b -= 7; break;
		default: { long t = a; a = b; b = t; } break;
		}
	}
	return a ^ b;
}

int main(void)
{
	unsigned x = 1;

	for (int i = 0; i < 4096; i++)
		prog[i] = (unsigned char)((x = x * 1664525u + 1013904223u) >> 29);
	printf("%ld\n", run(1, 2));
	return 0;
}
