/*
 * drill-target.c: the program whose code the PMU drill-down tests point at
 * (tests/unit/diagnose/test-drill-pmu.c). Built with -g by the test build; the
 * tests find its lines by the markers below in its DWARF line table, its
 * functions in its symbol table and its conditional branch by decoding the
 * marked line. Run as `drill-target spin N`, it spends nearly all of its time in
 * spin() (the recording test samples it); `drill-target pick N` in pick().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEN 4096

static unsigned char data[LEN];

/* A data-dependent branch: an asm in each arm keeps it a branch (no cmov). */
__attribute__((noinline)) static unsigned long pick(unsigned long n)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < n; i++) {
		if (data[i % LEN] >= 128) { /* drill-test: BRANCH */
			s += i;
			__asm__ volatile("" : "+r"(s));
		} else {
			s ^= i;
			__asm__ volatile("" : "+r"(s));
		}
	}
	return s;
}

/* A dependent chain: the hot loop. */
__attribute__((noinline)) static unsigned long spin(unsigned long n)
{
	unsigned long x = 1;

	for (unsigned long i = 0; i < n; i++) {
		x = (x ^ (x >> 29)) * 6364136223846793005ul + i; /* drill-test: HOT */
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000;
	unsigned s = 12345;

	for (size_t i = 0; i < LEN; i++) {
		s = s * 1103515245u + 12345u;
		data[i] = (unsigned char)(s >> 16);
	}
	if (argc > 1 && !strcmp(argv[1], "spin"))
		printf("spin: %lx\n", spin(n));
	else
		printf("pick: %lx\n", pick(n));
	return 0;
}
