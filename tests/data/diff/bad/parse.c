/*
 * parse.c, the bad build: a tokenizer's hot loop over 64 KiB of random bytes.
 * tests/e2e/test_diff.py builds it and its twin in ../bad/parse.c, which differs
 * in one line: the hot branch of parse_token. Here the branch tests the position
 * (i % 1024 < 512): long runs each way, predicted but at the flips. In the bad
 * build it tests the random byte (p[i] < 128): taken half of the time with no
 * pattern, mispredicted about every other time. So `tdprof diff` of the two
 * `tdprof why --json` documents must say that Bad Speculation rose and that the
 * new top site is that line in parse_token.
 *
 * Built with -O1 -g -fno-if-conversion -fno-if-conversion2 -fno-tree-vectorize;
 * the empty volatile asm in the taken path keeps the conditional jump (a compiler
 * may not run a volatile asm speculatively, so no cmov).
 */
#include <stddef.h>
#include <stdio.h>

#define N 65536
#define PASSES 24

static unsigned char buf[N];

__attribute__((noinline)) static long parse_token(const unsigned char *p, size_t n)
{
	long sum = 0;

	for (size_t i = 0; i < n; i++) {
		if (p[i] < 128) { /* tdprof-diff: HOT */
			__asm__ volatile("");
			sum += p[i];
		} else {
			sum -= 1;
		}
	}
	return sum;
}

int main(void)
{
	unsigned seed = 2463534242u;
	long total = 0;

	for (size_t i = 0; i < N; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 17;
		seed ^= seed << 5;
		buf[i] = (unsigned char)seed;
	}
	for (int pass = 0; pass < PASSES; pass++)
		total += parse_token(buf, N);
	printf("%ld\n", total);
	return 0;
}
