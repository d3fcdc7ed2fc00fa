/* groups.c: fitting a model's events to the counters (see groups.h). */
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "model/groups.h"

bool groups_fit(const struct groups_event *events, const size_t *ev, size_t nr, const struct groups_budget *b)
{
	unsigned gp = 0, gp_max = b->gp;
	unsigned long fixed_used = 0;
	bool metrics = false, leader = false;

	if (b->nmi_watchdog && gp_max > 0)
		gp_max--;
	if (nr > GROUPS_MAX_EVENTS)
		return false;
	for (size_t i = 0; i < nr; i++) {
		const struct groups_event *e = &events[ev[i]];

		switch (e->counter) {
		case MODEL_CTR_FIXED:
			if (e->fixed_idx >= 0 && (unsigned)e->fixed_idx < b->fixed && e->fixed_idx < 32) {
				if (fixed_used & (1UL << e->fixed_idx))
					return false;
				fixed_used |= 1UL << e->fixed_idx;
			} else {
				gp++;
			}
			break;
		case MODEL_CTR_METRICS:
			metrics = true;
			break;
		case MODEL_CTR_GP:
		default:
			gp++;
			break;
		}
		leader |= e->leader;
	}
	if (gp > gp_max)
		return false;
	return !metrics || leader;
}

static bool set_has(const size_t *ev, size_t nr, size_t x)
{
	for (size_t i = 0; i < nr; i++)
		if (ev[i] == x)
			return true;
	return false;
}

static bool is_subset(const struct groups_set *a, const struct groups_set *b)
{
	for (size_t i = 0; i < a->nr; i++)
		if (!set_has(b->ev, b->nr, a->ev[i]))
			return false;
	return true;
}

static int new_group(struct groups_plan *p, struct tdp_err *err)
{
	if (TDP_GROW(p->v, p->alloc, p->nr + 1))
		return tdp_err_oom(err);
	memset(&p->v[p->nr], 0, sizeof(p->v[0]));
	p->nr++;
	return 0;
}

/* Put the leader first, keeping the others' order. */
static void leader_first(const struct groups_event *events, struct groups_group *g)
{
	for (size_t i = 1; i < g->nr; i++)
		if (events[g->ev[i]].leader) {
			size_t x = g->ev[i];

			memmove(&g->ev[1], &g->ev[0], i * sizeof(g->ev[0]));
			g->ev[0] = x;
			break;
		}
}

/* Spread a set that fits no single group over new groups. */
static int place_split(const struct groups_event *events, const struct groups_set *s, const struct groups_budget *b,
		       struct groups_plan *p, struct tdp_err *err)
{
	size_t order[GROUPS_MAX_EVENTS], n = 0, leader = (size_t)-1;
	struct groups_group *g = NULL;
	int rc;

	/* the leader, then the rest in the set's order */
	for (size_t i = 0; i < s->nr; i++)
		if (events[s->ev[i]].leader && leader == (size_t)-1)
			leader = s->ev[i];
	if (leader != (size_t)-1)
		order[n++] = leader;
	for (size_t i = 0; i < s->nr; i++)
		if (s->ev[i] != leader)
			order[n++] = s->ev[i];
	p->nr_split++;
	for (size_t i = 0; i < n; i++) {
		size_t try[GROUPS_MAX_EVENTS + 1];

		if (g && g->nr < GROUPS_MAX_EVENTS) {
			memcpy(try, g->ev, g->nr * sizeof(size_t));
			try[g->nr] = order[i];
			if (groups_fit(events, try, g->nr + 1, b)) {
				g->ev[g->nr++] = order[i];
				continue;
			}
		}
		rc = new_group(p, err);
		if (rc)
			return rc;
		g = &p->v[p->nr - 1];
		g->split = true;
		if (events[order[i]].counter == MODEL_CTR_METRICS && leader != (size_t)-1)
			g->ev[g->nr++] = leader;
		g->ev[g->nr++] = order[i];
		if (!groups_fit(events, g->ev, g->nr, b))
			return tdp_err_set(err, TDP_ENOTSUP,
					   "event %zu needs a counter this PMU does not have (%u general-purpose, %u fixed)",
					   order[i], b->gp, b->fixed);
	}
	return 0;
}

int groups_make(const struct groups_event *events, size_t nr_events, const struct groups_set *sets, size_t nr_sets,
		const struct groups_budget *b, struct groups_plan *out, struct tdp_err *err)
{
	struct groups_set *s = NULL;
	size_t *order = NULL, n = 0;
	bool *dropped = NULL;
	int rc = 0;

	if (nr_sets > GROUPS_MAX_SETS)
		return tdp_err_set(err, TDP_EINVAL, "more than %d event sets", GROUPS_MAX_SETS);
	s = tdp_calloc(nr_sets + 1, sizeof(*s));
	order = tdp_calloc(nr_sets + 1, sizeof(*order));
	dropped = tdp_calloc(nr_sets + 1, sizeof(*dropped));
	if (!s || !order || !dropped) {
		rc = tdp_err_oom(err);
		goto out;
	}
	/* copy without duplicate events */
	for (size_t i = 0; i < nr_sets; i++) {
		if (sets[i].nr > GROUPS_MAX_EVENTS) {
			rc = tdp_err_set(err, TDP_EINVAL, "event set %zu has more than %d events", i, GROUPS_MAX_EVENTS);
			goto out;
		}
		for (size_t k = 0; k < sets[i].nr; k++) {
			if (sets[i].ev[k] >= nr_events) {
				rc = tdp_err_set(err, TDP_EINVAL, "event set %zu names event %zu of %zu", i, sets[i].ev[k],
						 nr_events);
				goto out;
			}
			if (!set_has(s[i].ev, s[i].nr, sets[i].ev[k]))
				s[i].ev[s[i].nr++] = sets[i].ev[k];
		}
		dropped[i] = s[i].nr == 0;
	}
	/* a set inside another set is counted with it */
	for (size_t i = 0; i < nr_sets; i++)
		for (size_t j = 0; j < nr_sets && !dropped[i]; j++)
			if (j != i && !dropped[j] && (s[j].nr > s[i].nr || (s[j].nr == s[i].nr && j < i)) &&
			    is_subset(&s[i], &s[j]))
				dropped[i] = true;
	/* largest first, stable */
	for (size_t i = 0; i < nr_sets; i++) {
		size_t k;

		if (dropped[i])
			continue;
		for (k = n; k > 0 && s[order[k - 1]].nr < s[i].nr; k--)
			order[k] = order[k - 1];
		order[k] = i;
		n++;
	}
	for (size_t oi = 0; oi < n && !rc; oi++) {
		const struct groups_set *set = &s[order[oi]];
		bool placed = false;

		if (!groups_fit(events, set->ev, set->nr, b)) {
			rc = place_split(events, set, b, out, err);
			continue;
		}
		for (size_t gi = 0; gi < out->nr && !placed; gi++) {
			struct groups_group *g = &out->v[gi];
			size_t u[2 * GROUPS_MAX_EVENTS], un = g->nr;

			if (g->split)
				continue;
			memcpy(u, g->ev, g->nr * sizeof(size_t));
			for (size_t k = 0; k < set->nr; k++)
				if (!set_has(u, un, set->ev[k]))
					u[un++] = set->ev[k];
			if (un <= GROUPS_MAX_EVENTS && groups_fit(events, u, un, b)) {
				memcpy(g->ev, u, un * sizeof(size_t));
				g->nr = un;
				placed = true;
			}
		}
		if (!placed) {
			rc = new_group(out, err);
			if (!rc) {
				memcpy(out->v[out->nr - 1].ev, set->ev, set->nr * sizeof(size_t));
				out->v[out->nr - 1].nr = set->nr;
			}
		}
	}
	for (size_t gi = 0; gi < out->nr; gi++)
		leader_first(events, &out->v[gi]);
out:
	tdp_free(s);
	tdp_free(order);
	tdp_free(dropped);
	if (rc)
		groups_plan_release(out);
	return rc;
}

void groups_plan_release(struct groups_plan *p)
{
	tdp_free(p->v);
	p->v = NULL;
	p->nr = 0;
	p->alloc = 0;
	p->nr_split = 0;
}
