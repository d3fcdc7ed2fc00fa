/*
 * infer.c: the model of imported counts, from their events (see model.h).
 *
 * Hybrid CPUs. perf names every core event of a hybrid CPU with its core type's
 * PMU, cpu_core/ (P-cores) or cpu_atom/ (E-cores). Counts that carry either prefix
 * come from a hybrid CPU, so only the models of a core type (those with a pmu) are
 * candidates: a P-core model with its E-core companion, judged together, each on
 * the counts of its own PMU. A pair fits when every core type the counts hold fits
 * its level 1; among those, the pairs whose level 2 fits best; among those, the
 * pairs that match more events by their own spelling rather than by an alias
 * (Meteor Lake's E-cores print TOPDOWN_RETIRING.ALL_P, Alder Lake's
 * TOPDOWN_RETIRING.ALL). The P-core model stands for the pair (its companion is
 * evaluated beside it); with E-core counts alone, the E-core model.
 */
#include "model/model.h"

#include <stdbool.h>
#include <string.h>

struct cover {
	int l1, l2;
};

static int coverage(const struct model *m, const struct countset *cs, struct cover *c)
{
	struct model_compiled *mc;

	if (model_compile(m, &mc, NULL))
		return -1;
	c->l1 = model_coverage(mc, cs, 1);
	c->l2 = model_coverage(mc, cs, 2);
	model_compiled_free(mc);
	return c->l1 < 0 || c->l2 < 0 ? -1 : 0;
}

static int full_level1(const struct model *m)
{
	return m->kind == MODEL_KIND_SLOTS ? 4 : 2;
}

/* Which hybrid PMUs the counts name: bit 1 cpu_core, bit 2 cpu_atom. */
static unsigned hybrid_pmus(const struct countset *cs)
{
	char key[MODEL_EVKEY_MAX], pmu[64];
	unsigned bits = 0;

	for (size_t i = 0; i < cs->nr; i++) {
		if (model_event_key(cs->v[i].name, key, sizeof(key), pmu, sizeof(pmu)) < 0)
			continue;
		if (!strcmp(pmu, "cpu_core"))
			bits |= 1;
		else if (!strcmp(pmu, "cpu_atom"))
			bits |= 2;
	}
	return bits;
}

/* How many counts of m's PMU name one of m's events by its own spelling (not an alias). */
static int own_spellings(const struct model *m, const struct countset *cs)
{
	char key[MODEL_EVKEY_MAX], ekey[MODEL_EVKEY_MAX], pmu[64];
	int n = 0;

	for (size_t i = 0; i < cs->nr; i++) {
		if (model_event_key(cs->v[i].name, key, sizeof(key), pmu, sizeof(pmu)) < 0 || strcmp(pmu, m->pmu))
			continue;
		for (size_t e = 0; e < m->nr_events; e++)
			if (!model_event_key(m->events[e].name, ekey, sizeof(ekey), NULL, 0) && !strcmp(key, ekey)) {
				n++;
				break;
			}
	}
	return n;
}

struct pair_score {
	const struct model *m; /* the model standing for the pair */
	int l2, own;
};

/* The hybrid pairs the counts fit, best first into fit (see the top of the file). */
static size_t infer_hybrid(const struct countset *cs, unsigned pmus, const struct model **fit)
{
	size_t nr, n = 0, nbest = 0;
	const struct model *const *all = model_all(&nr);
	struct pair_score s[MODEL_INFER_MAX];
	int best_l2 = -1, best_own = -1;

	for (size_t i = 0; i < nr && n < MODEL_INFER_MAX; i++) {
		const struct model *p = all[i], *e;
		struct cover cp = { 0, 0 }, ce = { 0, 0 };
		bool ok = true;

		if (!p->pmu || strcmp(p->pmu, "cpu_core"))
			continue;
		e = p->companion && p->companion->pmu && !strcmp(p->companion->pmu, "cpu_atom") ? p->companion : NULL;
		if (pmus & 1)
			ok = !coverage(p, cs, &cp) && cp.l1 == full_level1(p);
		if (ok && (pmus & 2))
			ok = e && !coverage(e, cs, &ce) && ce.l1 == full_level1(e);
		if (!ok)
			continue;
		s[n].m = (pmus & 1) ? p : e;
		s[n].l2 = cp.l2 + ce.l2;
		s[n].own = ((pmus & 1) ? own_spellings(p, cs) : 0) + ((pmus & 2) ? own_spellings(e, cs) : 0);
		n++;
	}
	for (size_t i = 0; i < n; i++)
		best_l2 = s[i].l2 > best_l2 ? s[i].l2 : best_l2;
	for (size_t i = 0; i < n; i++)
		if (s[i].l2 == best_l2 && s[i].own > best_own)
			best_own = s[i].own;
	for (size_t i = 0; i < n; i++)
		if (s[i].l2 == best_l2 && s[i].own == best_own)
			fit[nbest++] = s[i].m;
	return nbest;
}

size_t model_infer_import(const struct countset *cs, const struct model **fit)
{
	size_t nr, nfit = 0, nbest = 0;
	const struct model *const *all = model_all(&nr);
	int l2[MODEL_INFER_MAX], best = -1;
	unsigned pmus = hybrid_pmus(cs);

	if (pmus)
		return infer_hybrid(cs, pmus, fit);
	for (size_t i = 0; i < nr && nfit < MODEL_INFER_MAX; i++) {
		struct cover c;

		if (coverage(all[i], cs, &c))
			continue;
		if (c.l1 == full_level1(all[i])) {
			l2[nfit] = c.l2;
			fit[nfit++] = all[i];
		}
	}
	for (size_t i = 0; i < nfit; i++)
		for (size_t j = 0; j < nfit; j++)
			if (j != i && fit[i]->companion == fit[j] && fit[i]->core_type &&
			    !strcmp(fit[i]->core_type, "E-core"))
				l2[i] = -1;
	for (size_t i = 0; i < nfit; i++)
		best = l2[i] > best ? l2[i] : best;
	for (size_t i = 0; i < nfit; i++)
		if (l2[i] == best)
			fit[nbest++] = fit[i];
	return nbest;
}
