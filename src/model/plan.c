/* plan.c: the groups of a live run of a model (see groups.h). */
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "model/groups.h"
#include "model/model-internal.h"

struct plan_state {
	const struct model_compiled *mc;
	const struct model_eval_opts *o;
	struct expr_env env;
	int chosen[MODEL_MAX_FORMULAS];
	unsigned char visit[MODEL_MAX_FORMULAS];
};

static bool allowed(const struct model_eval_opts *o, unsigned when)
{
	if (when & MODEL_WHEN_IMPORT)
		return false;
	if ((when & MODEL_WHEN_SMT) && !o->smt_on)
		return false;
	if ((when & MODEL_WHEN_NO_SMT) && o->smt_on)
		return false;
	if ((when & MODEL_WHEN_CORE_WIDE) && !o->core_wide)
		return false;
	if ((when & MODEL_WHEN_NOT_CORE_WIDE) && o->core_wide)
		return false;
	return true;
}

static bool plan_select(struct plan_state *ps, size_t f);

struct sel_walk {
	struct plan_state *ps;
	bool ok;
};

static bool sel_cb(void *arg, const struct expr_node *n)
{
	struct sel_walk *w = arg;

	if (n->ref_kind == MODEL_REF_FORMULA && !plan_select(w->ps, (size_t)n->ref))
		w->ok = false;
	return w->ok;
}

static bool plan_select(struct plan_state *ps, size_t f)
{
	const struct model_formula *fm = &ps->mc->m->formulas[f];

	if (ps->visit[f] == 2)
		return ps->chosen[f] >= 0;
	if (ps->visit[f] == 1)
		return false;
	ps->visit[f] = 1;
	ps->chosen[f] = -1;
	for (size_t v = 0; v < ps->mc->f[f].nr; v++) {
		struct sel_walk w = { ps, true };

		if (!allowed(ps->o, fm->when[v]))
			continue;
		expr_walk_names(&ps->mc->f[f].v[v], &ps->env, sel_cb, &w);
		if (w.ok) {
			ps->chosen[f] = (int)v;
			break;
		}
	}
	ps->visit[f] = 2;
	return ps->chosen[f] >= 0;
}

void model_default_budget(const struct model *m, struct groups_budget *out)
{
	out->gp = m->gp_counters;
	out->fixed = m->fixed_counters;
	out->nmi_watchdog = false;
}

int model_plan(const struct model_compiled *mc, const struct model_eval_opts *o, const struct groups_budget *b,
	       struct groups_plan *out, struct tdp_err *err)
{
	return model_plan_nodes(mc, o, NULL, b, out, err);
}

int model_plan_nodes(const struct model_compiled *mc, const struct model_eval_opts *o, const unsigned char *nodes,
		     const struct groups_budget *b, struct groups_plan *out, struct tdp_err *err)
{
	const struct model *m = mc->m;
	struct groups_event events[MODEL_MAX_EVENTS];
	struct groups_set *sets;
	struct plan_state *ps;
	size_t nr_sets = 0;
	int max_level = o->max_level < 1 ? 1 : o->max_level > MODEL_MAX_LEVEL ? MODEL_MAX_LEVEL : o->max_level;
	int leader = -1;
	int rc = 0;

	ps = tdp_calloc(1, sizeof(*ps));
	sets = tdp_calloc(m->nr_nodes + m->nr_metrics + 1, sizeof(*sets));
	if (!ps || !sets) {
		rc = tdp_err_oom(err);
		goto out;
	}
	ps->mc = mc;
	ps->o = o;
	ps->env.consts[EXPR_C_SLOTS] = o->slots > 0 ? o->slots : m->slots;
	ps->env.consts[EXPR_C_SMT_ON] = o->smt_on;
	ps->env.consts[EXPR_C_CORE_WIDE] = o->core_wide;
	for (size_t e = 0; e < m->nr_events; e++) {
		events[e].counter = m->events[e].counter;
		events[e].fixed_idx = m->events[e].fixed_idx;
		events[e].leader = m->events[e].leader;
		if (m->events[e].leader && leader < 0)
			leader = (int)e;
	}
	for (size_t i = 0; i < m->nr_nodes && !rc; i++) {
		int f = mc->node_formula[i];
		struct evset es = { { 0 } };
		bool metrics = false;

		if (nodes ? !nodes[i] : model_node_level(mc, i) > max_level)
			continue;
		if (!plan_select(ps, (size_t)f)) {
			if (mc->node_parent[i] < 0 && !m->nodes[i].extra)
				rc = tdp_err_set(err, TDP_EANALYSIS,
						 "model '%s': no formula for '%s' can be counted on this machine",
						 m->name, m->nodes[i].key);
			continue;
		}
		model_formula_events(mc, (size_t)f, ps->chosen[f], ps->chosen, &ps->env, &es, 0);
		for (size_t e = 0; e < m->nr_events; e++) {
			if (!evset_has(&es, e))
				continue;
			if (sets[nr_sets].nr >= GROUPS_MAX_EVENTS) {
				rc = tdp_err_set(err, TDP_EINVAL, "model '%s': node '%s' needs more than %d events",
						 m->name, m->nodes[i].key, GROUPS_MAX_EVENTS);
				break;
			}
			sets[nr_sets].ev[sets[nr_sets].nr++] = e;
			metrics |= m->events[e].counter == MODEL_CTR_METRICS;
		}
		if (metrics && leader >= 0 && !evset_has(&es, (size_t)leader) && sets[nr_sets].nr < GROUPS_MAX_EVENTS)
			sets[nr_sets].ev[sets[nr_sets].nr++] = (size_t)leader;
		if (sets[nr_sets].nr)
			nr_sets++;
	}
	/* Arm's stage-2 metrics from level 2 on: each one's events as a set of their own
	 * (a metric that cannot be counted here is left out: it will say not measured) */
	for (size_t i = 0; !nodes && max_level >= 2 && i < m->nr_metrics && !rc; i++) {
		int f = model_formula_index(m, m->metrics[i].formula);
		struct evset es = { { 0, 0 } };

		if (m->metrics[i].kind != MODEL_METRIC_STAGE2 || f < 0 || !plan_select(ps, (size_t)f))
			continue;
		model_formula_events(mc, (size_t)f, ps->chosen[f], ps->chosen, &ps->env, &es, 0);
		for (size_t e = 0; e < m->nr_events && sets[nr_sets].nr < GROUPS_MAX_EVENTS; e++)
			if (evset_has(&es, e))
				sets[nr_sets].ev[sets[nr_sets].nr++] = e;
		if (sets[nr_sets].nr)
			nr_sets++;
	}
	if (!rc)
		rc = groups_make(events, m->nr_events, sets, nr_sets, b, out, err);
	if (rc)
		tdp_err_prefix(err, "cannot plan the counters of the '%s' model", m->name);
out:
	tdp_free(ps);
	tdp_free(sets);
	return rc;
}

void model_plan_spec(const struct model *m, const struct groups_plan *p, size_t first, size_t nr,
		     struct strbuf *sb)
{
	for (size_t g = first; g < first + nr && g < p->nr; g++) {
		strbuf_addf(sb, "%s{", g > first || sb->len ? "," : "");
		for (size_t i = 0; i < p->v[g].nr; i++) {
			const struct model_event *ev = &m->events[p->v[g].ev[i]];

			strbuf_addf(sb, "%s%s", i ? "," : "", ev->spec ? ev->spec : ev->name);
		}
		strbuf_addch(sb, '}');
	}
}
