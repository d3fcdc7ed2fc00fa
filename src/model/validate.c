/* validate.c: model_validate(), the checks every model table must pass (see model.h). */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "base/countset.h"
#include "base/err.h"
#include "model/model-internal.h"

static const char *const level1_keys[] = { "retiring", "bad_speculation", "frontend_bound", "backend_bound" };

/* The level-2 vocabulary of design.md: child -> parent. */
static const char *const level2_parent[][2] = {
	{ "fetch_latency", "frontend_bound" },       { "fetch_bandwidth", "frontend_bound" },
	{ "branch_mispredicts", "bad_speculation" }, { "machine_clears", "bad_speculation" },
	{ "memory_bound", "backend_bound" },         { "core_bound", "backend_bound" },
	{ "light_operations", "retiring" },          { "heavy_operations", "retiring" },
};

static bool is_level1_key(const char *key)
{
	for (size_t i = 0; i < 4; i++)
		if (!strcmp(key, level1_keys[i]))
			return true;
	return false;
}

static const char *vocab_parent(const char *key)
{
	for (size_t i = 0; i < sizeof(level2_parent) / sizeof(level2_parent[0]); i++)
		if (!strcmp(key, level2_parent[i][0]))
			return level2_parent[i][1];
	return NULL;
}

static int check_names(const struct model_compiled *mc, struct tdp_err *err)
{
	const struct model *m = mc->m;

	for (size_t a = 0; a < m->nr_events; a++)
		for (size_t b = a + 1; b < m->nr_events; b++)
			for (size_t i = 0; i < MODEL_KEYS_PER_EVENT; i++)
				for (size_t j = 0; j < MODEL_KEYS_PER_EVENT; j++) {
					const char *x = mc->keys[a * MODEL_KEYS_PER_EVENT + i];
					const char *y = mc->keys[b * MODEL_KEYS_PER_EVENT + j];

					if (x && y && !strcmp(x, y))
						return tdp_err_set(err, TDP_EFORMAT,
								   "model '%s': events '%s' and '%s' have the same "
								   "spelling '%s'",
								   m->name, m->events[a].name, m->events[b].name, x);
				}
	for (size_t a = 0; a < m->nr_formulas; a++) {
		for (size_t b = a + 1; b < m->nr_formulas; b++)
			if (!strcasecmp(m->formulas[a].name, m->formulas[b].name))
				return tdp_err_set(err, TDP_EFORMAT, "model '%s': two formulas are called '%s'",
						   m->name, m->formulas[a].name);
		if (!m->formulas[a].source || !m->formulas[a].source[0])
			return tdp_err_set(err, TDP_EFORMAT, "model '%s': formula '%s' does not cite its source",
					   m->name, m->formulas[a].name);
	}
	for (size_t a = 0; a < m->nr_nodes; a++)
		for (size_t b = a + 1; b < m->nr_nodes; b++)
			if (!strcmp(m->nodes[a].key, m->nodes[b].key))
				return tdp_err_set(err, TDP_EFORMAT, "model '%s': two nodes are called '%s'", m->name,
						   m->nodes[a].key);
	return 0;
}

struct dep_walk {
	const struct model_compiled *mc;
	unsigned char *color; /* 0 white, 1 grey, 2 black */
	bool *used;           /* per event */
	int cycle;            /* formula closing a cycle, -1 none */
};

static void visit_formula(struct dep_walk *w, size_t f);

static void visit_expr(struct dep_walk *w, const struct expr *e)
{
	for (size_t i = 0; i < e->nr && w->cycle < 0; i++) {
		const struct expr_node *n = &e->v[i];

		if (n->ref_kind == MODEL_REF_EVENT)
			w->used[n->ref] = true;
		else if (n->ref_kind == MODEL_REF_FORMULA)
			visit_formula(w, (size_t)n->ref);
	}
}

static void visit_formula(struct dep_walk *w, size_t f)
{
	if (w->color[f] == 2 || w->cycle >= 0)
		return;
	if (w->color[f] == 1) {
		w->cycle = (int)f;
		return;
	}
	w->color[f] = 1;
	for (size_t v = 0; v < w->mc->f[f].nr; v++)
		visit_expr(w, &w->mc->f[f].v[v]);
	w->color[f] = 2;
}

static int check_dependencies(const struct model_compiled *mc, struct tdp_err *err)
{
	const struct model *m = mc->m;
	unsigned char color[MODEL_MAX_FORMULAS] = { 0 };
	bool used[MODEL_MAX_EVENTS] = { false };
	struct dep_walk w = { mc, color, used, -1 };
	bool metrics = false, leader = false;

	for (size_t f = 0; f < m->nr_formulas; f++) {
		visit_formula(&w, f);
		if (w.cycle >= 0)
			return tdp_err_set(err, TDP_EFORMAT, "model '%s': formula '%s' depends on itself", m->name,
					   m->formulas[w.cycle].name);
	}
	for (size_t e = 0; e < m->nr_events; e++) {
		if (!used[e])
			return tdp_err_set(err, TDP_EFORMAT, "model '%s': event '%s' is used by no formula", m->name,
					   m->events[e].name);
		metrics |= m->events[e].counter == MODEL_CTR_METRICS;
		leader |= m->events[e].leader;
	}
	if (metrics && !leader)
		return tdp_err_set(err, TDP_EFORMAT, "model '%s': PERF_METRICS events need a group leader event",
				   m->name);
	return 0;
}

static int check_nodes(const struct model_compiled *mc, struct tdp_err *err)
{
	const struct model *m = mc->m;
	size_t found = 0;

	for (size_t i = 0; i < m->nr_nodes; i++) {
		const struct model_node_def *nd = &m->nodes[i];
		int p = mc->node_parent[i];

		if (!isnan(nd->threshold) && (nd->threshold < 0 || nd->threshold > 100))
			return tdp_err_set(err, TDP_EFORMAT, "model '%s': node '%s': threshold %g is not within 0-100",
					   m->name, nd->key, nd->threshold);
		if (nd->level < 0 || nd->level > MODEL_MAX_LEVEL)
			return tdp_err_set(err, TDP_EFORMAT, "model '%s': node '%s': level %d is not within 1-%d",
					   m->name, nd->key, nd->level, MODEL_MAX_LEVEL);
		if (nd->parent && p < 0)
			return tdp_err_set(err, TDP_EFORMAT, "model '%s': node '%s': no parent '%s'", m->name, nd->key,
					   nd->parent);
		if (p >= 0 && model_node_level(mc, (size_t)p) != model_node_level(mc, i) - 1)
			return tdp_err_set(err, TDP_EFORMAT,
					   "model '%s': node '%s': parent '%s' is not a level-%d node", m->name, nd->key,
					   nd->parent, model_node_level(mc, i) - 1);
		if (p >= 0 && (size_t)p > i)
			return tdp_err_set(err, TDP_EFORMAT, "model '%s': node '%s' is listed before its parent",
					   m->name, nd->key);
		if (m->kind == MODEL_KIND_CYCLE_ACCOUNTING) {
			if (is_level1_key(nd->key) || vocab_parent(nd->key))
				return tdp_err_set(err, TDP_EFORMAT,
						   "model '%s': a cycle-accounting model cannot call a node '%s' "
						   "(slot-level top-down names)",
						   m->name, nd->key);
			continue;
		}
		if (p < 0 && !nd->extra) {
			if (!is_level1_key(nd->key))
				return tdp_err_set(err, TDP_EFORMAT, "model '%s': '%s' is not a level-1 node name "
						   "(mark vendor nodes extra)", m->name, nd->key);
			found++;
		}
		if (p >= 0 && !nd->extra && model_node_level(mc, i) == 2) {
			const char *vp = vocab_parent(nd->key);

			if (!vp || strcmp(vp, nd->parent))
				return tdp_err_set(err, TDP_EFORMAT, "model '%s': '%s' under '%s' is not in the level-2 "
						   "vocabulary", m->name, nd->key, nd->parent);
		}
	}
	if (m->kind == MODEL_KIND_SLOTS && found != 4)
		return tdp_err_set(err, TDP_EFORMAT, "model '%s': a slot model needs the four level-1 nodes", m->name);
	if (m->kind == MODEL_KIND_CYCLE_ACCOUNTING && (!m->note || !m->note[0]))
		return tdp_err_set(err, TDP_EFORMAT, "model '%s': a cycle-accounting model must say so in its note",
				   m->name);
	return 0;
}

/* A small deterministic generator for made-up counts. */
static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

/*
 * Children add up to their parent: with every event given a made-up count and
 * max()/min()/d_ratio() taken as plain algebra, sum(children) == parent must hold
 * as an identity (it does for "parent - sibling", "parent * r" and
 * "parent * (1 - r)", and for AMD's latency/bandwidth split of one event).
 */
static int check_sums(const struct model_compiled *mc, struct tdp_err *err)
{
	const struct model *m = mc->m;
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	int rc = 0;

	o.slots = m->slots > 0 ? m->slots : 5;
	for (uint64_t seed = 1; seed <= 3 && !rc; seed++) {
		struct countset cs = COUNTSET_INIT;
		struct metric_tree t;
		uint64_t s = seed * 7919;

		t.nr = 0;
		for (size_t e = 0; e < m->nr_events && !rc; e++) {
			double v = 1e6 + (double)(lcg(&s) % 1000000000ULL);

			if (!countset_add(&cs, m->events[e].name, NULL, v, -1))
				rc = tdp_err_oom(err);
		}
		if (!rc)
			rc = model_eval_mode(mc, &cs, &o, true, &t, err);
		for (size_t i = 0; i < t.nr && !rc; i++) {
			const struct metric_node *p = &t.v[i];
			double sum = 0;
			size_t nr = 0;
			int pi = model_node_index(m, p->key);

			if (p->level != 1 || m->nodes[pi].approx_children)
				continue;
			for (size_t j = 0; j < t.nr; j++)
				if (t.v[j].parent && !strcmp(t.v[j].parent, p->key)) {
					sum += t.v[j].value;
					nr++;
				}
			if (!nr)
				continue;
			if (isnan(sum) || isnan(p->value) || fabs(sum - p->value) > 1e-6 * fmax(1.0, fabs(p->value)))
				rc = tdp_err_set(err, TDP_EFORMAT,
						 "model '%s': the children of '%s' do not add up to it (%g against %g)",
						 m->name, p->key, sum, p->value);
		}
		countset_release(&cs);
	}
	return rc;
}

int model_validate(const struct model *m, struct tdp_err *err)
{
	struct model_compiled *mc = NULL;
	int rc;

	if (!m->name || !m->name[0] || !m->description || !m->sources || !m->sources[0])
		return tdp_err_set(err, TDP_EFORMAT, "model '%s': a model needs a name, a description and its sources",
				   m->name ? m->name : "?");
	if (m->slots < 0)
		return tdp_err_set(err, TDP_EFORMAT, "model '%s': #slots cannot be negative", m->name);
	rc = model_compile(m, &mc, err);
	if (!rc)
		rc = check_names(mc, err);
	if (!rc)
		rc = check_dependencies(mc, err);
	if (!rc)
		rc = check_nodes(mc, err);
	for (size_t i = 0; i < m->nr_metrics && !rc; i++)
		if (!m->metrics[i].key || model_formula_index(m, m->metrics[i].formula) < 0)
			rc = tdp_err_set(err, TDP_EFORMAT, "model '%s': metric '%s' has no formula '%s'", m->name,
					 m->metrics[i].key ? m->metrics[i].key : "?",
					 m->metrics[i].formula ? m->metrics[i].formula : "?");
	for (size_t i = 0; i < m->nr_explore && !rc; i++)
		if (model_node_index(m, m->explore[i].node) < 0)
			rc = tdp_err_set(err, TDP_EFORMAT, "model '%s': explore names no node '%s'", m->name,
					 m->explore[i].node);
	if (!rc)
		rc = check_sums(mc, err);
	model_compiled_free(mc);
	return rc;
}
