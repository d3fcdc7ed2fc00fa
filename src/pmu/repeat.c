/* repeat.c: averaging counts over the runs of -r N (see session.h). */
#include "pmu/session.h"
#include "base/alloc.h"
#include "base/err.h"

#include <math.h>
#include <string.h>

void pmu_repeat_stat_add(struct pmu_repeat_stat *s, double x)
{
	double d;

	/* Welford's online update: numerically stable for long runs of large counts. */
	s->n += 1;
	d = x - s->mean;
	s->mean += d / s->n;
	s->m2 += d * (x - s->mean);
}

double pmu_repeat_stat_stderr(const struct pmu_repeat_stat *s)
{
	if (s->n < 2)
		return 0;
	/* sample variance / n: the variance of the mean, as perf's stddev_stats() */
	return sqrt(s->m2 / (s->n - 1) / s->n);
}

double pmu_repeat_stat_rel_stderr(const struct pmu_repeat_stat *s)
{
	if (s->n < 2 || s->mean == 0)
		return 0;
	return 100.0 * pmu_repeat_stat_stderr(s) / fabs(s->mean);
}

void pmu_repeat_release(struct pmu_repeat *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		tdp_free(r->v[i].name);
		tdp_free(r->v[i].unit);
		tdp_free(r->v[i].runs_v);
	}
	tdp_free(r->v);
	tdp_free(r->elapsed_v);
	*r = (struct pmu_repeat)PMU_REPEAT_INIT;
}

static int repeat_first(struct pmu_repeat *r, const struct countset *run, struct tdp_err *err)
{
	r->v = tdp_calloc(run->nr ? run->nr : 1, sizeof(*r->v));
	if (!r->v)
		return tdp_err_oom(err);
	for (size_t i = 0; i < run->nr; i++) {
		struct pmu_repeat_event *e = &r->v[i];

		r->nr = i + 1;
		e->name = tdp_strdup(run->v[i].name);
		e->unit = tdp_strdup(run->v[i].unit);
		e->group = run->v[i].group;
		if (!e->name || !e->unit)
			return tdp_err_oom(err);
	}
	return 0;
}

/* Make room in every per-run array for one more run. Returns 0 or TDP_ENOMEM. */
static int keep_room(struct pmu_repeat *r)
{
	size_t alloc = r->runs_alloc;

	if (r->runs < alloc)
		return 0;
	alloc = alloc ? 2 * alloc : 8;
	for (size_t i = 0; i < r->nr; i++) {
		double *p = tdp_reallocarray(r->v[i].runs_v, alloc, sizeof(double));

		if (!p)
			return TDP_ENOMEM;
		r->v[i].runs_v = p;
	}
	{
		double *p = tdp_reallocarray(r->elapsed_v, alloc, sizeof(double));

		if (!p)
			return TDP_ENOMEM;
		r->elapsed_v = p;
	}
	r->runs_alloc = alloc;
	return 0;
}

int pmu_repeat_add(struct pmu_repeat *r, const struct countset *run, double elapsed_ns, struct tdp_err *err)
{
	int ret;

	if (r->runs == 0) {
		ret = repeat_first(r, run, err);
		if (ret)
			return ret;
	} else if (run->nr != r->nr) {
		return tdp_err_set(err, TDP_EINVAL, "run %u has %zu counts, the first had %zu", r->runs + 1, run->nr,
				   r->nr);
	}
	ret = keep_room(r);
	if (ret)
		return tdp_err_oom(err);
	for (size_t i = 0; i < run->nr; i++) {
		const struct count *c = &run->v[i];
		struct pmu_repeat_event *e = &r->v[i];

		if (c->status != COUNT_NOT_SUPPORTED)
			e->supported = true;
		e->runs_v[r->runs] = c->status == COUNT_OK ? c->value : NAN;
		if (c->status != COUNT_OK)
			continue;
		pmu_repeat_stat_add(&e->value, c->value);
		pmu_repeat_stat_add(&e->raw, c->raw);
		e->pct_sum += c->running_pct;
		e->enabled_ns += c->enabled_ns;
		e->running_ns += c->running_ns;
	}
	if (elapsed_ns >= 0)
		pmu_repeat_stat_add(&r->elapsed, elapsed_ns);
	r->elapsed_v[r->runs] = elapsed_ns >= 0 ? elapsed_ns : NAN;
	r->runs++;
	return 0;
}

int pmu_repeat_result(const struct pmu_repeat *r, struct countset *out, struct tdp_err *err)
{
	for (size_t i = 0; i < r->nr; i++) {
		const struct pmu_repeat_event *e = &r->v[i];
		struct count *c = countset_add(out, e->name, e->unit, e->value.mean, e->group);

		if (!c)
			return tdp_err_oom(err);
		c->raw = e->raw.mean;
		/* per-run means, as one run would report them */
		c->enabled_ns = e->value.n > 0 ? (uint64_t)((double)e->enabled_ns / e->value.n) : 0;
		c->running_ns = e->value.n > 0 ? (uint64_t)((double)e->running_ns / e->value.n) : 0;
		if (!e->supported) {
			c->status = COUNT_NOT_SUPPORTED;
			c->value = c->raw = 0;
			c->running_pct = 0;
		} else if (e->value.n == 0) {
			c->status = COUNT_NOT_COUNTED;
			c->value = c->raw = 0;
			c->running_pct = 0;
		} else {
			c->running_pct = e->pct_sum / e->value.n;
			if (r->runs > 1)
				c->stddev_pct = pmu_repeat_stat_rel_stderr(&e->value);
		}
	}
	out->elapsed_ns = r->elapsed.n > 0 ? r->elapsed.mean : -1.0;
	return 0;
}
