/* stat.c: the counted run of `tdprof stat` (see stat.h). */
#include "measure/stat.h"

#include "base/alloc.h"
#include "base/err.h"
#include "base/str.h"

/*
 * perf stat's defaults in perf's order, plus the L1i and cache events triage needs.
 * LLC-loads/LLC-load-misses are shown only where the kernel supports them.
 */
static const char default_events[] = "task-clock,context-switches,cpu-migrations,page-faults,"
				     "cycles,instructions,branches,branch-misses,L1-icache-load-misses,"
				     "cache-references,cache-misses,LLC-loads,LLC-load-misses";

void measure_stat_init(struct measure_stat *m)
{
	*m = (struct measure_stat){ .list = PMU_EVENT_LIST_INIT, .res = PMU_SESSION_RESULT_INIT,
				    .shown = COUNTSET_INIT };
}

void measure_stat_release(struct measure_stat *m)
{
	for (size_t i = 0; i < m->nr_intervals; i++)
		countset_release(&m->intervals[i].counts);
	tdp_free(m->intervals);
	countset_release(&m->shown);
	pmu_session_result_release(&m->res);
	pmu_event_list_release(&m->list);
	measure_stat_init(m);
}

static bool is_llc_name(const char *name)
{
	return str_event_name_eq(name, "LLC-loads") || str_event_name_eq(name, "LLC-load-misses");
}

/* Both LLC events of the defaults were refused by the kernel: they do not exist here. */
static bool llc_unsupported(const struct countset *cs)
{
	size_t n = 0;

	for (size_t i = 0; i < cs->nr; i++)
		if (is_llc_name(cs->v[i].name) && cs->v[i].status == COUNT_NOT_SUPPORTED)
			n++;
	return n == 2;
}

/* Copy in to out without the rows the defaults hide. */
static int filter_counts(const struct countset *in, struct countset *out, bool hide_llc)
{
	hide_llc = hide_llc && llc_unsupported(in);
	out->backend = in->backend;
	out->elapsed_ns = in->elapsed_ns;
	for (size_t i = 0; i < in->nr; i++) {
		const struct count *c = &in->v[i];
		struct count *d;
		char *name, *unit;

		if (hide_llc && c->status == COUNT_NOT_SUPPORTED && is_llc_name(c->name))
			continue;
		d = countset_add(out, c->name, c->unit, c->value, c->group);
		if (!d)
			return TDP_ENOMEM;
		name = d->name;
		unit = d->unit;
		*d = *c;
		d->name = name;
		d->unit = unit;
	}
	return 0;
}

int measure_stat_events(struct measure_stat *m, const char *events, struct tdp_err *err)
{
	struct pmu_env env = PMU_ENV_INIT;

	m->hide_llc = events == NULL;
	/* Names of the defaults are all perf generic names: no libpfm4 needed, keep start-up lean. */
	env.use_libpfm = events != NULL;
	return pmu_event_list_parse(&m->list, events ? events : default_events, &env, err);
}

static void on_interval(void *arg, uint64_t t_ns, const struct countset *delta)
{
	struct measure_stat *m = arg;
	struct countset cs = COUNTSET_INIT;
	double len = (double)(t_ns - m->last_t);

	m->last_t = t_ns;
	if (filter_counts(delta, &cs, m->hide_llc))
		m->fn(m->arg, t_ns, len, NULL);
	else
		m->fn(m->arg, t_ns, len, &cs);
	countset_release(&cs);
}

/* The intervals the session kept, as shown. */
static int keep_intervals(struct measure_stat *m, struct tdp_err *err)
{
	const struct pmu_session_result *res = &m->res;

	if (!res->nr_intervals)
		return 0;
	m->intervals = tdp_calloc(res->nr_intervals, sizeof(*m->intervals));
	if (!m->intervals)
		return tdp_err_oom(err);
	for (size_t i = 0; i < res->nr_intervals; i++) {
		struct measure_stat_interval *iv = &m->intervals[i];

		iv->counts = (struct countset)COUNTSET_INIT;
		m->nr_intervals = i + 1;
		if (filter_counts(&res->intervals[i].counts, &iv->counts, m->hide_llc))
			return tdp_err_oom(err);
		iv->t_ns = res->intervals[i].t_ns;
		iv->len_ns = (double)(res->intervals[i].t_ns - (i ? res->intervals[i - 1].t_ns : 0));
	}
	return 0;
}

int measure_stat_run(struct measure_stat *m, struct pmu_session_opts *so, bool keep, measure_stat_interval_fn *fn,
		     void *arg, struct tdp_err *err)
{
	int ret;

	m->fn = fn;
	m->arg = arg;
	m->last_t = 0;
	so->on_interval = fn ? on_interval : NULL;
	so->arg = m;
	so->keep_intervals = keep;
	ret = pmu_session_run(&m->list, so, &m->res, err);
	if (ret)
		return ret;
	if (filter_counts(&m->res.counts, &m->shown, m->hide_llc))
		return tdp_err_oom(err);
	m->shown.backend = BACKEND_PMU;
	return keep ? keep_intervals(m, err) : 0;
}

int measure_stat_from_sim(const struct measure_sim *s, struct countset *cs, struct tdp_err *err)
{
	int ret = sim_estimate_countset(&s->profile, s->have_est ? &s->est : NULL, cs, err);

	cs->elapsed_ns = -1; /* valgrind's wall time is not the program's */
	return ret;
}
