/* series.c: the runs of -r N and the deterministic-simulation rule (see series.h). */
#include "measure/series.h"

#include "base/err.h"

void measure_series_init(struct measure_series *s, long repeat, bool simulated, struct model_runs *runs)
{
	s->n = repeat > 1 ? (size_t)repeat : 1;
	s->simulated = simulated;
	s->runs = runs;
	runs->requested = s->n;
}

int measure_series_add(struct measure_series *s, const struct metric_tree *t, bool *stop, struct tdp_err *err)
{
	int ret;

	*stop = true;
	if (s->n == 1)
		return 0;
	ret = model_runs_add(s->runs, t, err);
	if (ret)
		return ret;
	if (s->simulated && s->runs->nr == 2 && model_runs_identical(s->runs)) {
		s->runs->deterministic = true;
		s->runs->note = "the simulation is deterministic for this program: runs 1 and 2 gave the same "
				"figures to the last bit, so the other runs were not made and the intervals have "
				"zero width";
		return 0;
	}
	*stop = false;
	return 0;
}

int measure_runs_mean(struct model_runs *runs, const struct metric_tree *last, struct metric_tree *mean, bool *have,
		      struct tdp_err *err)
{
	int ret;

	*have = false;
	if (runs->nr < 2)
		return 0;
	ret = model_runs_mean(runs, last, mean, err);
	if (!ret)
		*have = true;
	return ret;
}
