/*
 * bigcode.c: a large code footprint with predictable control flow: 1000 distinct
 * functions of ~40 instructions each (~150 KiB of code, far beyond a 32 KiB L1
 * i-cache) called in the same order every pass. Every pass refetches all of the
 * code from the last level: Frontend bound. The functions are noinline and differ
 * in their constants so the compiler can neither inline nor merge them.
 */
#include <stdio.h>

#define STEP(n, k)                                   \
	x ^= x >> ((k) % 11 + 5);                    \
	x *= 0x5bd1e995u + (unsigned)(n) * (k) * 2u; \
	x += (unsigned)(n) * 977u + (k);
#define FN(n)                                                                                   \
	static __attribute__((noinline)) unsigned f##n(unsigned x)                              \
	{                                                                                       \
		STEP(n, 1) STEP(n, 2) STEP(n, 3) STEP(n, 4) STEP(n, 5) STEP(n, 6)              \
		STEP(n, 7) STEP(n, 8) STEP(n, 9) STEP(n, 10) STEP(n, 11) STEP(n, 12)           \
		return x;                                                                       \
	}
#define CALL(n) x = f##n(x);

/* Stamp M out for the numbers 1000..1999 (decimal: the leading 1 avoids octal). */
#define D10(M, p) M(p##0) M(p##1) M(p##2) M(p##3) M(p##4) M(p##5) M(p##6) M(p##7) M(p##8) M(p##9)
#define D100(M, p)                                                                     \
	D10(M, p##0) D10(M, p##1) D10(M, p##2) D10(M, p##3) D10(M, p##4) D10(M, p##5) \
	D10(M, p##6) D10(M, p##7) D10(M, p##8) D10(M, p##9)
#define D1000(M)                                                                        \
	D100(M, 10) D100(M, 11) D100(M, 12) D100(M, 13) D100(M, 14) D100(M, 15) D100(M, 16) \
	D100(M, 17) D100(M, 18) D100(M, 19)

D1000(FN)

#define PASSES 60

int main(void)
{
	unsigned x = 1;

	for (int p = 0; p < PASSES; p++) {
		D1000(CALL) /* CALLS-LINE */
	}
	printf("%u\n", x);
	return 0;
}
