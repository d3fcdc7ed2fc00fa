/* prog-util.c: the second source file of prog.c's test program. */
int util_mix(int x);

static int table[16] = { 3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3 };

__attribute__((noinline)) int util_mix(int x)
{
	int acc = 0;

	for (int i = 0; i < x; i++)
		acc += table[(i * 7 + x) & 15] > 4 ? i : -i;
	return acc;
}
