/*
 * shift.c: a program built twice by tests/e2e/test_diff.py, once as it is and once
 * with every function aligned to 512 bytes (-falign-functions=512): the code of
 * each function is the same in both builds, at other addresses. The test writes
 * branch stacks at the same function+offset for both builds (gen-branches) and
 * checks that `tdprof diff` lines the two branch reports up. It is never run.
 */
#include <stdio.h>

__attribute__((noinline)) int classify(int v)
{
	if (v & 1) /* tdprof-diff: SHIFT-CLASSIFY */
		return v * 3;
	return v / 2;
}

__attribute__((noinline)) int count(const int *p, int n)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		if (p[i] > 7) /* tdprof-diff: SHIFT-COUNT */
			k++;
	return k;
}

int main(int argc, char **argv)
{
	int a[4] = { argc, 8, 9, 1 };

	(void)argv;
	printf("%d %d\n", classify(argc), count(a, 4));
	return 0;
}
