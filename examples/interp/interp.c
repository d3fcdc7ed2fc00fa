/*
 * interp.c: a bytecode interpreter with an unpredictable indirect dispatch
 * (Bad Speculation, from one indirect jump).
 *
 * The program it interprets is a random sequence of eight opcodes. The `switch`
 * compiles to a jump table: one indirect jump per bytecode whose target depends on
 * the next opcode, which is random. A predictor that remembers targets cannot guess
 * it (7 times in 8 it is wrong), so most of the time goes to refilling the pipeline.
 * The program is 256 Ki bytecodes: a predictor learns by heart a sequence that
 * repeats if it is short enough (thousands of targets), and this one is far longer.
 * The usual fixes: threaded code (one dispatch jump per handler, "computed goto"),
 * superinstructions, or fewer and larger operations.
 *
 *   tdprof why -- build/examples/interp/demo-interp           the `switch` line
 */
#include <stdio.h>

#define PROGRAM_LEN (1 << 18)
#define RUNS 4

enum op { OP_ADD, OP_SUB, OP_XOR, OP_SHL, OP_SHR, OP_MUL, OP_INC, OP_SWAP };

static unsigned char program[PROGRAM_LEN];

static long run(long a, long b)
{
	for (int pc = 0; pc < PROGRAM_LEN; pc++) {
		switch ((enum op)program[pc]) { /* tdprof-demo: DISPATCH */
		case OP_ADD: a += b; break;
		case OP_SUB: a -= b >> 1; break;
		case OP_XOR: a ^= b; break;
		case OP_SHL: b += a & 15; break;
		case OP_SHR: b ^= a >> 3; break;
		case OP_MUL: a = a * 3 + 1; break;
		case OP_INC: b -= 7; break;
		case OP_SWAP: { long t = a; a = b; b = t; } break;
		}
	}
	return a ^ b;
}

int main(void)
{
	unsigned seed = 88172645u;
	long acc = 0;

	for (int i = 0; i < PROGRAM_LEN; i++) {
		seed = seed * 1664525u + 1013904223u;
		program[i] = (unsigned char)(seed >> 29); /* 0..7 */
	}
	for (int r = 0; r < RUNS; r++)
		acc += run(acc + r, 3);
	printf("result %ld\n", acc);
	return 0;
}
