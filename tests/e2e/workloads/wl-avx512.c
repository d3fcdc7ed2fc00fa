/*
 * wl-avx512: a program that executes one AVX-512 instruction (vpaddd zmm0,
 * zmm0, zmm0, given as bytes so that no compiler flag is needed), as a binary
 * built with -march=native on an AVX-512 machine does. valgrind does not
 * simulate AVX-512: under it the program dies of SIGILL at that instruction, and
 * tdprof must say so instead of estimating the start-up that ran before it.
 * (Run natively on a CPU without AVX-512 it dies of SIGILL too.)
 */
#include <stdio.h>

static int work(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += i * 3;
	return s;
}

int main(void)
{
	printf("%d\n", work(1000));
	fflush(stdout);
	__asm__ volatile(".byte 0x62, 0xf1, 0x7d, 0x48, 0xfe, 0xc0" ::: "memory"); /* tdprof-test: AVX512 */
	return 0;
}
