/*
 * stats.c: the statistics of a figure across repetitions.
 *
 * Median and median absolute deviation rather than mean and standard deviation:
 * a repetition hit by a context switch or an interrupt is an outlier that must
 * not move the answer, and up to half of the repetitions may be outliers before
 * the median does. MAD is reported unscaled (no 1.4826 factor): the relative
 * spread MAD / median reads directly as "half the repetitions lie within this
 * fraction of the median".
 */
#include "harness-internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double harness_median_inplace(double *x, size_t n)
{
	qsort(x, n, sizeof(*x), cmp_double);
	if (n % 2)
		return x[n / 2];
	return (x[n / 2 - 1] + x[n / 2]) / 2;
}

void harness_stats(const double *x, size_t n, double *scratch, struct tdp_harness_stat *out)
{
	double med;

	memcpy(scratch, x, n * sizeof(*x));
	med = harness_median_inplace(scratch, n);
	out->min = scratch[0];
	out->max = scratch[n - 1];
	out->median = med;
	for (size_t i = 0; i < n; i++)
		scratch[i] = fabs(x[i] - med);
	out->mad = harness_median_inplace(scratch, n);
	out->spread = med != 0 ? out->mad / fabs(med) : NAN;
}
