/* countset.c: counts crossing from backends to analysis (see countset.h). */
#include "base/countset.h"
#include "base/alloc.h"
#include "base/err.h"
#include "base/str.h"

#include <string.h>

const char *backend_name(enum tdp_backend b)
{
	switch (b) {
	case BACKEND_PMU: return "pmu";
	case BACKEND_SIM: return "sim";
	case BACKEND_IMPORT: return "import";
	}
	return "unknown";
}

struct count *countset_add(struct countset *cs, const char *name, const char *unit, double value, int group)
{
	struct count *c;
	char *n, *u;

	if (TDP_GROW(cs->v, cs->alloc, cs->nr + 1))
		return NULL;
	n = tdp_strdup(name);
	u = tdp_strdup(unit ? unit : "");
	if (!n || !u) {
		tdp_free(n);
		tdp_free(u);
		return NULL;
	}
	c = &cs->v[cs->nr++];
	c->name = n;
	c->unit = u;
	c->status = COUNT_OK;
	c->value = value;
	c->raw = value;
	c->enabled_ns = 0;
	c->running_ns = 0;
	c->running_pct = 100.0;
	c->stddev_pct = -1.0;
	c->group = group;
	c->estimate = false;
	return c;
}

const struct count *countset_find(const struct countset *cs, const char *name, int group)
{
	for (size_t i = 0; i < cs->nr; i++)
		if ((group < 0 || cs->v[i].group == group) && str_event_name_eq(cs->v[i].name, name))
			return &cs->v[i];
	return NULL;
}

bool countset_get(const struct countset *cs, const char *name, double *out)
{
	const struct count *c = countset_find(cs, name, -1);

	if (!c || c->status != COUNT_OK)
		return false;
	*out = c->value;
	return true;
}

size_t countset_nr_groups(const struct countset *cs)
{
	int max = -1;

	for (size_t i = 0; i < cs->nr; i++)
		if (cs->v[i].group > max)
			max = cs->v[i].group;
	return (size_t)(max + 1);
}

int countset_by_group(const struct countset *cs, size_t **startp, size_t **idxp)
{
	size_t ng = countset_nr_groups(cs);
	size_t *start = tdp_calloc(ng + 2, sizeof(size_t)), *idx = tdp_calloc(cs->nr + 1, sizeof(size_t));
	size_t *fill = tdp_calloc(ng + 2, sizeof(size_t));

	if (!start || !idx || !fill) {
		tdp_free(start);
		tdp_free(idx);
		tdp_free(fill);
		return TDP_ENOMEM;
	}
	/* counting sort: slot ng holds the ungrouped counts */
	for (size_t i = 0; i < cs->nr; i++)
		start[(cs->v[i].group >= 0 ? (size_t)cs->v[i].group : ng) + 1]++;
	for (size_t g = 0; g <= ng; g++)
		start[g + 1] += start[g];
	memcpy(fill, start, (ng + 2) * sizeof(size_t));
	for (size_t i = 0; i < cs->nr; i++)
		idx[fill[cs->v[i].group >= 0 ? (size_t)cs->v[i].group : ng]++] = i;
	tdp_free(fill);
	*startp = start;
	*idxp = idx;
	return 0;
}

void countset_release(struct countset *cs)
{
	for (size_t i = 0; i < cs->nr; i++) {
		tdp_free(cs->v[i].name);
		tdp_free(cs->v[i].unit);
	}
	tdp_free(cs->v);
	cs->v = NULL;
	cs->nr = 0;
	cs->alloc = 0;
	cs->elapsed_ns = -1.0;
}

bool count_scale(uint64_t raw, uint64_t enabled, uint64_t running, double *value, double *running_pct)
{
	if (running == 0) {
		*value = 0;
		*running_pct = 0;
		return false;
	}
	if (running >= enabled) {
		*value = (double)raw;
		*running_pct = 100.0;
	} else {
		*value = (double)raw * ((double)enabled / (double)running);
		*running_pct = 100.0 * (double)running / (double)enabled;
	}
	return true;
}
