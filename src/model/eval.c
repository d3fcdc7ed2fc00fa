/*
 * eval.c: the one evaluator of every model: a countset in, a metric tree out
 * (see model.h).
 *
 * Groups. perf computes each metric from the copies of its events counted in the
 * metric's own group (builtin-stat/stat-shadow: an event printed once per group,
 * such as ls_not_halted_cyc in `perf stat -MPipelineL2`, is four counts that saw
 * four different slices of a multiplexed run). We do the same: a node takes its
 * events from the one group that holds most of them (and, on a tie, most of its
 * family's: the children of a level-1 node, the parent of a level-2 node, so that
 * a parent and its children read the same copies), and only an event that group
 * lacks is taken from another group (the node is then marked split).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "model/model-internal.h"

/* The model events a group counted (COUNT_OK), for choose_group(). */
struct group_events {
	int group;
	struct evset events;
};

struct eval_state {
	const struct model_compiled *mc;
	const struct model *m;
	const struct countset *cs;
	struct expr_env env;
	int *match;             /* per count: model event, -1 when none */
	bool *own;              /* per count: spelled as the model names the event, not by an alias */
	bool *present;          /* per model event: some count names it */
	int *chosen;            /* per formula: variant used, -1 none */
	unsigned char *visit;   /* per formula: 0 new, 1 being selected, 2 done */
	size_t *ev_start;       /* per model event e: its counts are ev_idx[ev_start[e]..ev_start[e+1]) */
	size_t *ev_idx;         /* count indices grouped by model event, in countset order */
	struct group_events *groups; /* per group (ascending): the model events it counted */
	size_t nr_groups;
	size_t work;            /* counts and groups visited (model_eval_opts.work) */
	int group;              /* the group the current node reads from; -1 any */
	bool split;             /* the current node read a count from another group */
	char why[METRIC_WHY_MAX];
	int depth;
};

static void note_why(struct eval_state *st, const char *fmt, const char *arg)
{
	if (!st->why[0])
		snprintf(st->why, sizeof(st->why), fmt, arg);
}

/* Does a count's PMU prefix fit the model (hybrids: cpu_core vs cpu_atom)? */
static bool pmu_fits(const struct model *m, const char *pmu)
{
	if (!m->pmu || !pmu[0] || !strcmp(pmu, "cpu"))
		return true;
	if (!strcmp(pmu, "cpu_core") || !strcmp(pmu, "cpu_atom"))
		return !strcmp(pmu, m->pmu);
	return true;
}

static int match_counts(struct eval_state *st)
{
	char key[MODEL_EVKEY_MAX], pmu[64];

	for (size_t i = 0; i < st->cs->nr; i++) {
		int e;

		st->match[i] = -1;
		if (model_event_key(st->cs->v[i].name, key, sizeof(key), pmu, sizeof(pmu)) < 0)
			continue;
		if (!pmu_fits(st->m, pmu))
			continue;
		e = model_event_index_by_key(st->mc, key);
		if (e < 0)
			continue;
		st->match[i] = e;
		st->present[e] = true;
		{
			char ekey[MODEL_EVKEY_MAX];

			st->own[i] = !model_event_key(st->m->events[e].name, ekey, sizeof(ekey), NULL, 0) &&
				     !strcmp(ekey, key);
		}
	}
	return 0;
}

static bool select_formula(struct eval_state *st, size_t f);

struct avail_walk {
	struct eval_state *st;
	bool ok;
};

static bool avail_cb(void *arg, const struct expr_node *n)
{
	struct avail_walk *w = arg;

	if (n->ref_kind == MODEL_REF_EVENT && !w->st->present[n->ref])
		w->ok = false;
	else if (n->ref_kind == MODEL_REF_FORMULA && !select_formula(w->st, (size_t)n->ref))
		w->ok = false;
	return w->ok;
}

/* Choose the first variant of formula f whose events are all in the countset. */
static bool select_formula(struct eval_state *st, size_t f)
{
	const struct compiled_formula *cf = &st->mc->f[f];

	if (st->visit[f] == 2)
		return st->chosen[f] >= 0;
	if (st->visit[f] == 1)
		return false; /* a formula that depends on itself (model_validate rejects it) */
	st->visit[f] = 1;
	st->chosen[f] = -1;
	for (size_t v = 0; v < cf->nr; v++) {
		struct avail_walk w = { st, true };

		expr_walk_names(&cf->v[v], &st->env, avail_cb, &w);
		if (w.ok) {
			st->chosen[f] = (int)v;
			break;
		}
	}
	st->visit[f] = 2;
	return st->chosen[f] >= 0;
}

struct missing_walk {
	struct eval_state *st;
	const char *name;
	int depth;
};

static bool missing_cb(void *arg, const struct expr_node *n);

/* The first event the preferred variant of f lacks (for messages). */
static const char *first_missing(struct eval_state *st, size_t f, int depth)
{
	struct missing_walk w = { st, NULL, depth };

	if (depth > 16 || st->mc->f[f].nr == 0)
		return NULL;
	expr_walk_names(&st->mc->f[f].v[0], &st->env, missing_cb, &w);
	return w.name;
}

static bool missing_cb(void *arg, const struct expr_node *n)
{
	struct missing_walk *w = arg;

	if (n->ref_kind == MODEL_REF_EVENT && !w->st->present[n->ref])
		w->name = w->st->m->events[n->ref].name;
	else if (n->ref_kind == MODEL_REF_FORMULA && !select_formula(w->st, (size_t)n->ref))
		w->name = first_missing(w->st, (size_t)n->ref, w->depth + 1);
	return w->name == NULL;
}

static double lookup_event(struct eval_state *st, size_t e)
{
	const struct model_event *ev = &st->m->events[e];
	const struct count *any = NULL, *seen = NULL;

	for (size_t k = st->ev_start[e]; k < st->ev_start[e + 1]; k++) {
		const struct count *c = &st->cs->v[st->ev_idx[k]];

		st->work++;
		seen = c;
		if (c->status != COUNT_OK)
			continue;
		if (st->group >= 0 && c->group == st->group) {
			/*
			 * One group may hold the event twice: perf's default `cpu_atom/cycles/`
			 * beside the `cpu_atom/CPU_CLK_UNHALTED.CORE/` of a top-down group
			 * printed with the same running percentage. The top-down group's own
			 * spelling (the metric's) wins over an alias.
			 */
			if (!any || any->group != st->group || st->own[st->ev_idx[k]])
				any = c;
			if (st->own[st->ev_idx[k]])
				break;
			continue;
		}
		if (!any)
			any = c;
	}
	if (!any) {
		if (seen && seen->status == COUNT_NOT_SUPPORTED)
			note_why(st, "'%s' is <not supported>", seen->name);
		else if (seen)
			note_why(st, "'%s' was <not counted>", seen->name);
		else
			note_why(st, "'%s' was not measured", ev->name);
		return NAN;
	}
	if (st->group >= 0 && any->group != st->group)
		st->split = true;
	if (ev->clock && any->value == 0) {
		note_why(st, "'%s' counted 0: nothing ran", any->name);
		return NAN;
	}
	return any->value;
}

static double eval_formula(struct eval_state *st, size_t f);

static double lookup_cb(void *arg, const struct expr_node *n)
{
	struct eval_state *st = arg;

	if (n->ref_kind == MODEL_REF_EVENT)
		return lookup_event(st, (size_t)n->ref);
	if (n->ref_kind == MODEL_REF_FORMULA)
		return eval_formula(st, (size_t)n->ref);
	return NAN;
}

static double eval_formula(struct eval_state *st, size_t f)
{
	double v;

	if (!select_formula(st, f)) {
		const char *miss = first_missing(st, f, 0);

		note_why(st, "'%s' was not measured", miss ? miss : st->m->formulas[f].name);
		return NAN;
	}
	if (st->depth > MODEL_MAX_FORMULAS)
		return NAN;
	st->depth++;
	v = expr_eval(&st->mc->f[f].v[st->chosen[f]], &st->env);
	st->depth--;
	return v;
}

struct older_walk {
	struct eval_state *st;
	const char *source;
	int depth;
};

static const char *older_in(struct eval_state *st, size_t f, int depth);

static bool older_cb(void *arg, const struct expr_node *n)
{
	struct older_walk *w = arg;

	if (n->ref_kind == MODEL_REF_FORMULA)
		w->source = older_in(w->st, (size_t)n->ref, w->depth + 1);
	return w->source == NULL;
}

/*
 * The source of the older perf formula (a MODEL_WHEN_IMPORT variant with its own
 * source) that formula f's chosen variant uses itself or through the formulas it
 * names, or NULL: the tree then says which formula it used.
 */
static const char *older_in(struct eval_state *st, size_t f, int depth)
{
	const struct model_formula *fm = &st->m->formulas[f];
	struct older_walk w = { st, NULL, depth };
	int v;

	if (depth > 32 || !select_formula(st, f))
		return NULL;
	v = st->chosen[f];
	if ((fm->when[v] & MODEL_WHEN_IMPORT) && fm->vsource[v])
		return fm->vsource[v];
	expr_walk_names(&st->mc->f[f].v[v], &st->env, older_cb, &w);
	return w.source;
}

/* The events a node's formula reads (empty when it cannot be evaluated). */
static void node_events(struct eval_state *st, size_t node, struct evset *out)
{
	int f = st->mc->node_formula[node];

	memset(out, 0, sizeof(*out));
	if (select_formula(st, (size_t)f))
		model_formula_events(st->mc, (size_t)f, st->chosen[f], st->chosen, &st->env, out, 0);
}

static unsigned evset_count(const struct evset *a, const struct evset *b)
{
	unsigned n = 0;

	for (size_t i = 0; i < EVSET_WORDS; i++)
		n += (unsigned)__builtin_popcountll(a->w[i] & b->w[i]);
	return n;
}

/* The group a node reads from: most of its own events, then most of its family's. */
static int choose_group(struct eval_state *st, size_t node, int max_level)
{
	const struct model *m = st->m;
	struct evset own, family, tmp;
	unsigned best1 = 0, best2 = 0;
	int best = -1;

	node_events(st, node, &own);
	family = own;
	if (st->mc->node_parent[node] >= 0) {
		node_events(st, (size_t)st->mc->node_parent[node], &tmp);
		evset_union(&family, &tmp);
	} else if (max_level >= 2) {
		for (size_t c = 0; c < m->nr_nodes; c++)
			if (st->mc->node_parent[c] == (int)node) {
				node_events(st, c, &tmp);
				evset_union(&family, &tmp);
			}
	}
	/* one pass over the groups (state_init() made their event sets): linear in the counts */
	for (size_t k = 0; k < st->nr_groups; k++) {
		int g = st->groups[k].group;
		unsigned s1 = evset_count(&own, &st->groups[k].events);
		unsigned s2 = evset_count(&family, &st->groups[k].events);

		st->work++;
		if (s1 > best1 || (s1 == best1 && s2 > best2) || (s1 == best1 && s2 == best2 && s1 && g < best)) {
			best1 = s1;
			best2 = s2;
			best = g;
		}
	}
	return best1 ? best : -1;
}

const struct metric_node *metric_tree_find(const struct metric_tree *t, const char *key)
{
	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->v[i].key, key))
			return &t->v[i];
	return NULL;
}

static int cmp_group_event(const void *a, const void *b)
{
	const struct group_events *x = a, *y = b;

	return (x->group > y->group) - (x->group < y->group);
}

/*
 * The indexes that keep the evaluation linear in the counts (perf stat --append
 * over many runs gives 262,144 rows): each model event's counts, and each
 * group's counted events, sorted by group.
 */
static int index_counts(struct eval_state *st)
{
	const struct countset *cs = st->cs;
	size_t ne = st->m->nr_events, n = 0;

	for (size_t i = 0; i < cs->nr; i++)
		if (st->match[i] >= 0)
			st->ev_start[st->match[i] + 1]++;
	for (size_t e = 0; e < ne; e++)
		st->ev_start[e + 1] += st->ev_start[e];
	{
		size_t *fill = tdp_calloc(ne + 1, sizeof(size_t));

		if (!fill)
			return TDP_ENOMEM;
		memcpy(fill, st->ev_start, (ne + 1) * sizeof(size_t));
		for (size_t i = 0; i < cs->nr; i++)
			if (st->match[i] >= 0)
				st->ev_idx[fill[st->match[i]]++] = i;
		tdp_free(fill);
	}
	for (size_t i = 0; i < cs->nr; i++) {
		const struct count *c = &cs->v[i];

		if (c->group < 0 || st->match[i] < 0 || c->status != COUNT_OK)
			continue;
		st->groups[n].group = c->group;
		memset(&st->groups[n].events, 0, sizeof(st->groups[n].events));
		evset_add(&st->groups[n].events, (size_t)st->match[i]);
		n++;
	}
	qsort(st->groups, n, sizeof(*st->groups), cmp_group_event);
	st->work += 2 * cs->nr;
	/* merge the entries of each group */
	st->nr_groups = 0;
	for (size_t i = 0; i < n; i++) {
		if (st->nr_groups && st->groups[st->nr_groups - 1].group == st->groups[i].group) {
			evset_union(&st->groups[st->nr_groups - 1].events, &st->groups[i].events);
			continue;
		}
		st->groups[st->nr_groups++] = st->groups[i];
	}
	return 0;
}

static int state_init(struct eval_state *st, const struct model_compiled *mc, const struct countset *cs,
		      const struct model_eval_opts *o, struct tdp_err *err)
{
	const struct model *m = mc->m;
	double slots = o && o->slots > 0 ? o->slots : m->slots;

	memset(st, 0, sizeof(*st));
	st->mc = mc;
	st->m = m;
	st->cs = cs;
	st->group = -1;
	st->env.lookup = lookup_cb;
	st->env.arg = st;
	st->env.consts[EXPR_C_SLOTS] = slots > 0 ? slots : NAN;
	st->env.consts[EXPR_C_SMT_ON] = o && o->smt_on ? 1 : 0;
	st->env.consts[EXPR_C_CORE_WIDE] = o && o->core_wide ? 1 : 0;
	st->match = tdp_calloc(cs->nr + 1, sizeof(int));
	st->own = tdp_calloc(cs->nr + 1, sizeof(bool));
	st->present = tdp_calloc(m->nr_events + 1, sizeof(bool));
	st->chosen = tdp_calloc(m->nr_formulas + 1, sizeof(int));
	st->visit = tdp_calloc(m->nr_formulas + 1, 1);
	st->ev_start = tdp_calloc(m->nr_events + 2, sizeof(size_t));
	st->ev_idx = tdp_calloc(cs->nr + 1, sizeof(size_t));
	st->groups = tdp_calloc(cs->nr + 1, sizeof(*st->groups));
	if (!st->match || !st->own || !st->present || !st->chosen || !st->visit || !st->ev_start || !st->ev_idx || !st->groups)
		return tdp_err_oom(err);
	if (match_counts(st) || index_counts(st))
		return tdp_err_oom(err);
	return 0;
}

static void state_release(struct eval_state *st)
{
	tdp_free(st->match);
	tdp_free(st->own);
	tdp_free(st->present);
	tdp_free(st->chosen);
	tdp_free(st->visit);
	tdp_free(st->ev_start);
	tdp_free(st->ev_idx);
	tdp_free(st->groups);
}

int model_coverage(const struct model_compiled *mc, const struct countset *cs, int max_level)
{
	struct eval_state st;
	int n = 0;

	if (state_init(&st, mc, cs, NULL, NULL)) {
		state_release(&st);
		return -1;
	}
	for (size_t i = 0; i < mc->m->nr_nodes; i++)
		if ((mc->node_parent[i] < 0 || max_level >= 2) && !mc->m->nodes[i].extra &&
		    select_formula(&st, (size_t)mc->node_formula[i]))
			n++;
	state_release(&st);
	return n;
}

/* The hint for a model whose level-1 nodes could not be computed: the events it needs. */
static void hint_events(struct eval_state *st, struct tdp_err *err)
{
	struct strbuf sb = STRBUF_INIT;
	struct evset need = { { 0 } };
	int chosen0[MODEL_MAX_FORMULAS];

	/* the preferred variant of everything */
	for (size_t f = 0; f < st->m->nr_formulas; f++)
		chosen0[f] = 0;
	for (size_t i = 0; i < st->m->nr_nodes; i++)
		if (st->mc->node_parent[i] < 0)
			model_formula_events(st->mc, (size_t)st->mc->node_formula[i], 0, chosen0, &st->env, &need, 0);
	for (size_t e = 0; e < st->m->nr_events; e++)
		if (evset_has(&need, e))
			strbuf_addf(&sb, "%s%s", sb.len ? "," : "", st->m->events[e].name);
	if (!strbuf_failed(&sb))
		tdp_err_hint(err, "the '%s' model needs the events %s", st->m->name, sb.buf);
	strbuf_release(&sb);
}

/* Every metric beside the tree (model_metric_def), in the model's order, each
 * from the counts of any group (perf computes Info metrics the same way). */
static void eval_metrics(struct eval_state *st, struct metric_tree *out)
{
	const struct model *m = st->m;

	for (size_t i = 0; i < m->nr_metrics && out->nr_metrics < MODEL_MAX_METRICS; i++) {
		const struct model_metric_def *d = &m->metrics[i];
		struct metric_value *v = &out->metrics[out->nr_metrics++];
		int f = model_formula_index(m, d->formula);

		v->def = d;
		v->value = NAN;
		if (f < 0) {
			snprintf(v->why, sizeof(v->why), "the model has no formula '%s'", d->formula);
			continue;
		}
		st->why[0] = '\0';
		st->group = -1;
		v->value = eval_formula(st, (size_t)f);
		if (isnan(v->value) || isinf(v->value)) {
			v->value = NAN;
			snprintf(v->why, sizeof(v->why), "%s", st->why[0] ? st->why : "not measurable");
		} else {
			v->flagged = !isnan(d->threshold) && v->value > d->threshold;
		}
	}
}

struct smt_walk {
	const struct eval_state *st;
	bool all, any;
};

static bool smt_cb(void *arg, const struct expr_node *n)
{
	struct smt_walk *w = arg;

	if (n->ref_kind == MODEL_REF_EVENT) {
		w->any = true;
		w->all &= w->st->present[n->ref];
	}
	return w->all;
}

/*
 * Do the counts hold every event a variant for SMT only (MODEL_WHEN_SMT, and
 * not the process-mode approximation) reads directly? perf counts those only
 * when SMT is on (its formulas choose them with #smt_on).
 */
static bool counts_imply_smt(const struct eval_state *st)
{
	const struct model *m = st->m;

	for (size_t f = 0; f < m->nr_formulas; f++)
		for (size_t v = 0; v < st->mc->f[f].nr; v++) {
			struct smt_walk w = { st, true, false };
			unsigned when = m->formulas[f].when[v];

			if (!(when & MODEL_WHEN_SMT) || (when & (MODEL_WHEN_NOT_CORE_WIDE | MODEL_WHEN_IMPORT)))
				continue;
			expr_walk_names(&st->mc->f[f].v[v], &st->env, smt_cb, &w);
			if (w.all && w.any)
				return true;
		}
	return false;
}

int model_eval(const struct model_compiled *mc, const struct countset *cs, const struct model_eval_opts *o,
	       struct metric_tree *out, struct tdp_err *err)
{
	return model_eval_mode(mc, cs, o, false, out, err);
}

int model_eval_mode(const struct model_compiled *mc, const struct countset *cs, const struct model_eval_opts *o,
		    bool unclamped, struct metric_tree *out, struct tdp_err *err)
{
	const struct model *m = mc->m;
	struct model_eval_opts defaults = MODEL_EVAL_OPTS_INIT;
	struct eval_state st;
	size_t measurable = 0, l1 = 0;
	const char *first_why = NULL;
	double sum = 0;
	bool sum_ok = true;
	int rc;

	if (!o)
		o = &defaults;
	memset(out, 0, sizeof(*out));
	out->model = m;
	out->kind = m->kind;
	out->max_level = o->max_level < 1 ? 1 : o->max_level > MODEL_MAX_LEVEL ? MODEL_MAX_LEVEL : o->max_level;
	out->level1_sum = NAN;
	out->verdict.value = NAN;
	out->verdict.node_value = NAN;
	rc = state_init(&st, mc, cs, o, err);
	if (rc)
		goto out;
	st.env.unclamped = unclamped;
	if (o->infer_smt && !o->smt_on && counts_imply_smt(&st))
		st.env.consts[EXPR_C_SMT_ON] = 1;
	out->smt_on = st.env.consts[EXPR_C_SMT_ON] != 0;
	out->slots = st.env.consts[EXPR_C_SLOTS];
	/* level 1 first, then level 2, each in the table's order */
	for (int level = 1; level <= out->max_level; level++) {
		for (size_t i = 0; i < m->nr_nodes && out->nr < MODEL_MAX_NODES; i++) {
			const struct model_node_def *nd = &m->nodes[i];
			struct metric_node *n;
			int f = mc->node_formula[i];

			if (model_node_level(mc, i) != level)
				continue;
			n = &out->v[out->nr++];
			n->def = nd;
			n->key = nd->key;
			n->parent = nd->parent;
			n->label = model_node_label(nd->key);
			n->vendor = nd->vendor ? nd->vendor : m->formulas[f].name;
			n->formula = m->formulas[f].name;
			n->source = m->formulas[f].source;
			n->level = level;
			if (nd->label)
				n->label = nd->label;
			n->extra = nd->extra;
			n->threshold = nd->threshold;
			n->value = NAN;
			n->group = -1;
			st.why[0] = '\0';
			st.split = false;
			st.group = choose_group(&st, i, out->max_level);
			if (select_formula(&st, (size_t)f)) {
				const struct model_formula *fm = &m->formulas[f];
				int v = st.chosen[f];

				const char *older = older_in(&st, (size_t)f, 0);

				n->expr = fm->expr[v];
				n->variant_source = older ? older : fm->vsource[v] ? fm->vsource[v] : fm->source;
				n->older = older != NULL;
			}
			n->value = 100.0 * eval_formula(&st, (size_t)f);
			n->group = st.group;
			n->split = st.split;
			if (isnan(n->value)) {
				if (!st.why[0] && isnan(st.env.consts[EXPR_C_SLOTS]))
					snprintf(st.why, sizeof(st.why), "#slots is unknown: give the pipeline width "
						 "(caps/slots of the PMU) with --slots");
				snprintf(n->why, sizeof(n->why), "%s", st.why[0] ? st.why : "not measurable");
			}
			if (level == 1) {
				if (!isnan(n->value)) {
					measurable++;
					sum += n->value;
				} else if (!nd->extra) {
					sum_ok = false;
				}
				if (!nd->extra)
					l1++;
				if (isnan(n->value) && !first_why)
					first_why = n->why;
			}
		}
	}
	eval_metrics(&st, out);
	if (measurable && sum_ok && l1) {
		out->level1_sum = sum;
		out->sum_off = m->kind == MODEL_KIND_SLOTS && fabs(sum - 100.0) > 1.0;
	}
	if (!measurable) {
		rc = tdp_err_set(err, TDP_EANALYSIS, "no top-down node of the '%s' model could be computed: %s",
				 m->name, first_why ? first_why : "no events");
		hint_events(&st, err);
	}
out:
	if (o->work)
		*o->work += st.work;
	state_release(&st);
	return rc;
}

int model_evaluate(const struct model *m, const struct countset *cs, const struct model_eval_opts *o,
		   struct metric_tree *out, struct tdp_err *err)
{
	struct model_compiled *mc;
	int rc = model_compile(m, &mc, err);

	if (rc)
		return rc;
	rc = model_eval(mc, cs, o, out, err);
	model_compiled_free(mc);
	return rc;
}
