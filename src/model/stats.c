/* stats.c: means, Student's t intervals, Welch differences, per-run trees (see stats.h). */
#include "model/stats.h"

#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"

#define CF_MAX_ITER 400     /* terms of the continued fraction (converges in < 100 for our a, b) */
#define CF_EPS 1e-15
#define CF_TINY 1e-300

/* The continued fraction of the incomplete beta function (modified Lentz evaluation). */
static double beta_cf(double a, double b, double x)
{
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < CF_TINY)
		d = CF_TINY;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= CF_MAX_ITER; m++) {
		double m2 = 2.0 * m, num, step;

		/* even term: m (b - m) x / ((a + 2m - 1)(a + 2m)) */
		num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + num * d;
		c = 1 + num / c;
		d = 1 / (fabs(d) < CF_TINY ? CF_TINY : d);
		c = fabs(c) < CF_TINY ? CF_TINY : c;
		h *= d * c;
		/* odd term: -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)) */
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + num * d;
		c = 1 + num / c;
		d = 1 / (fabs(d) < CF_TINY ? CF_TINY : d);
		c = fabs(c) < CF_TINY ? CF_TINY : c;
		step = d * c;
		h *= step;
		if (fabs(step - 1) < CF_EPS)
			break;
	}
	return h;
}

/* The regularized incomplete beta function I_x(a, b), 0 <= x <= 1, a, b > 0. */
static double beta_inc(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	/* the fraction converges fast below (a + 1) / (a + b + 2); use the symmetry above it */
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double stats_t_cdf(double t, double df)
{
	double tail;

	if (!(df > 0) || isnan(t))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1 : 0;
	/* P(T > |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2) / 2 */
	tail = 0.5 * beta_inc(df / 2, 0.5, df / (df + t * t));
	return t > 0 ? 1 - tail : tail;
}

double stats_t_quantile(double p, double df)
{
	double want, lo = 0, hi = 1;

	if (!(p > 0 && p < 1) || !(df > 0) || isinf(df))
		return NAN;
	if (p == 0.5)
		return 0;
	if (p < 0.5)
		return -stats_t_quantile(1 - p, df);
	/*
	 * Find x = df / (df + t^2) with I_x(df/2, 1/2) = 2 (1 - p). I_x grows with x, so
	 * bisect on x in (0, 1) until the interval stops shrinking.
	 */
	want = 2 * (1 - p);
	for (int i = 0; i < 2000; i++) {
		double mid = lo + (hi - lo) / 2;

		if (mid <= lo || mid >= hi)
			break;
		if (beta_inc(df / 2, 0.5, mid) < want)
			lo = mid;
		else
			hi = mid;
	}
	return sqrt(df * (1 - hi) / hi);
}

static void summary_finish(struct stats_summary *out)
{
	if (out->n < 2) {
		out->sd = out->sem = out->t = out->half = out->lo = out->hi = NAN;
		return;
	}
	out->sem = out->sd / sqrt((double)out->n);
	out->t = stats_t_quantile(1 - (1 - STATS_CONFIDENCE) / 2, (double)(out->n - 1));
	out->half = out->t * out->sem;
	out->lo = out->mean - out->half;
	out->hi = out->mean + out->half;
}

void stats_summarize(const double *x, size_t n, struct stats_summary *out)
{
	double mean = 0, m2 = 0;
	size_t k = 0;

	/* Welford's update: one pass, no cancellation for values far from 0 */
	for (size_t i = 0; i < n; i++) {
		double d;

		if (!isfinite(x[i]))
			continue;
		k++;
		d = x[i] - mean;
		mean += d / (double)k;
		m2 += d * (x[i] - mean);
	}
	out->n = k;
	out->mean = k ? mean : NAN;
	out->sd = k >= 2 ? sqrt(m2 / (double)(k - 1)) : NAN;
	summary_finish(out);
}

void stats_from_moments(size_t n, double mean, double sd, struct stats_summary *out)
{
	out->n = isfinite(mean) ? n : 0;
	out->mean = out->n ? mean : NAN;
	out->sd = out->n >= 2 && isfinite(sd) && sd >= 0 ? sd : NAN;
	if (out->n >= 2 && isnan(out->sd))
		out->n = 1; /* no spread known: treat as one observation */
	summary_finish(out);
}

void stats_diff(const struct stats_summary *a, const struct stats_summary *b, struct stats_diff *out)
{
	double va, vb, v;

	out->delta = b->mean - a->mean;
	out->df = out->half = NAN;
	if (a->n < 2 || b->n < 2 || isnan(out->delta))
		return;
	va = a->sd * a->sd / (double)a->n;
	vb = b->sd * b->sd / (double)b->n;
	v = va + vb;
	if (v == 0) {
		/* both sides repeat exactly (a deterministic backend): the difference is exact */
		out->df = (double)(a->n + b->n - 2);
		out->half = 0;
		return;
	}
	out->df = v * v / (va * va / (double)(a->n - 1) + vb * vb / (double)(b->n - 1));
	out->half = stats_t_quantile(1 - (1 - STATS_CONFIDENCE) / 2, out->df) * sqrt(v);
}

bool stats_disjoint(const struct stats_summary *a, const struct stats_summary *b)
{
	if (a->n < 2 || b->n < 2 || isnan(a->lo) || isnan(b->lo))
		return false;
	return a->hi < b->lo || b->hi < a->lo;
}

/* ---------------------------------------------------------------------------
 * Per-run trees
 */

int model_runs_add(struct model_runs *r, const struct metric_tree *t, struct tdp_err *err)
{
	if (r->nr == 0) {
		if (t->nr > MODEL_MAX_NODES)
			return tdp_err_set(err, TDP_EINVAL, "a metric tree of %zu nodes (at most %d)", t->nr,
					   MODEL_MAX_NODES);
	} else if (t->model != r->model || t->nr != r->nr_nodes) {
		return tdp_err_set(err, TDP_EINVAL, "run %zu has another model or other nodes than run 1", r->nr + 1);
	} else {
		for (size_t i = 0; i < t->nr; i++)
			if (strcmp(t->v[i].key, r->keys[i]))
				return tdp_err_set(err, TDP_EINVAL, "run %zu has node '%s' where run 1 has '%s'",
						   r->nr + 1, t->v[i].key, r->keys[i]);
	}
	if (r->nr >= MODEL_RUNS_MAX)
		return tdp_err_set(err, TDP_ELIMIT, "more than %d runs", MODEL_RUNS_MAX);
	if (TDP_GROW(r->v, r->alloc, r->nr + 1))
		return tdp_err_oom(err);
	if (r->nr == 0) {
		r->model = t->model;
		r->nr_nodes = t->nr;
		for (size_t i = 0; i < t->nr; i++)
			r->keys[i] = t->v[i].key;
	}
	for (size_t i = 0; i < MODEL_MAX_NODES; i++)
		r->v[r->nr][i] = i < t->nr ? t->v[i].value : NAN;
	r->nr++;
	return 0;
}

int model_runs_mean(struct model_runs *r, const struct metric_tree *first, struct metric_tree *mean,
		    struct tdp_err *err)
{
	double sum = 0;
	bool any = false;

	if (r->nr == 0 || first->nr != r->nr_nodes)
		return tdp_err_set(err, TDP_EINVAL, "no runs to average");
	*mean = *first;
	for (size_t i = 0; i < r->nr_nodes; i++) {
		double m = 0, m2 = 0;
		size_t k = 0;

		/* the column of node i (Welford, as stats_summarize, without copying it out) */
		for (size_t run = 0; run < r->nr; run++) {
			double x = r->v[run][i], d;

			if (!isfinite(x))
				continue;
			k++;
			d = x - m;
			m += d / (double)k;
			m2 += d * (x - m);
		}
		stats_from_moments(k, k ? m : NAN, k >= 2 ? sqrt(m2 / (double)(k - 1)) : NAN, &r->s[i]);
		mean->v[i].value = r->s[i].mean;
		mean->v[i].flagged = false;
		if (mean->v[i].level == 1 && !isnan(r->s[i].mean)) {
			sum += r->s[i].mean;
			any = true;
		}
	}
	mean->level1_sum = any ? sum : NAN;
	mean->sum_off = any && mean->kind == MODEL_KIND_SLOTS && fabs(sum - 100.0) > 1.0;
	model_classify(mean);
	return 0;
}

bool model_runs_identical(const struct model_runs *r)
{
	for (size_t run = 1; run < r->nr; run++)
		for (size_t i = 0; i < r->nr_nodes; i++) {
			double a = r->v[0][i], b = r->v[run][i];

			if (!(a == b || (isnan(a) && isnan(b))))
				return false;
		}
	return true;
}

const struct stats_summary *model_runs_find(const struct model_runs *r, const char *key)
{
	for (size_t i = 0; i < r->nr_nodes; i++)
		if (!strcmp(r->keys[i], key))
			return &r->s[i];
	return NULL;
}

void model_runs_release(struct model_runs *r)
{
	tdp_free(r->v);
	*r = (struct model_runs)MODEL_RUNS_INIT;
}
