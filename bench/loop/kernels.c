/*
 * Kernels for bench/loop-spread.py (issue 6, Performance): an empty function, whose
 * residue per iteration is the harness's floor, and a dependent chain of about
 * 1 µs, whose spread across repetitions is the harness's noise.
 */
double x[1000];

void empty(void)
{
}

/* 1000 dependent multiply-adds: the chain cannot overlap, about 4 cycles each. */
double chain_1us(void)
{
	double s = 0;

	for (int i = 0; i < 1000; i++)
		s = s * x[i] + 1;
	return s;
}
