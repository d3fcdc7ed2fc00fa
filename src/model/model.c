/* model.c: the registry of models and their compilation (see model.h). */
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/err.h"
#include "model/model-internal.h"
#include "model/tables/tables.h"
#include "intel-models.h" /* generated from data/intel/platforms.json */

/* `tdprof list models` prints them in this order: Intel, AMD, Arm, oldest first. */
static const struct model *const models[] = {
	INTEL_MODEL_LIST,
	&model_zen2,
	&model_zen3,
	&model_zen4,
	&model_zen5,
	&model_sbsa,
	&model_neoverse_n1,
	&model_cortex_a76,
	&model_neoverse_v1,
	&model_neoverse_n2,
	&model_neoverse_n2_r0p0,
	&model_neoverse_v2,
	&model_neoverse_n3,
	&model_neoverse_v3,
};

const struct model *const *model_all(size_t *nr)
{
	*nr = sizeof(models) / sizeof(models[0]);
	return models;
}

const struct model *model_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		const struct model *m = models[i];

		if (!strcasecmp(m->name, name))
			return m;
		for (size_t k = 0; k < MODEL_MAX_ALIASES && m->aliases[k]; k++)
			if (!strcasecmp(m->aliases[k], name))
				return m;
	}
	return NULL;
}

const struct model *model_for_uarch(const char *uarch)
{
	return model_find(uarch);
}

int model_depth(const struct model *m)
{
	int d = 1;

	for (size_t i = 0; i < m->nr_nodes; i++) {
		int l = m->nodes[i].level > 0 ? m->nodes[i].level : m->nodes[i].parent ? 2 : 1;

		d = l > d ? l : d;
	}
	return d;
}

bool model_has_metrics(const struct model *m, enum model_metric_kind k)
{
	for (size_t i = 0; i < m->nr_metrics; i++)
		if (m->metrics[i].kind == k)
			return true;
	return false;
}

const char *model_kind_name(enum model_kind k)
{
	return k == MODEL_KIND_CYCLE_ACCOUNTING ? "cycle_accounting" : "slots";
}

const char *model_vendor_name(enum model_vendor v)
{
	switch (v) {
	case MODEL_VENDOR_INTEL: return "Intel";
	case MODEL_VENDOR_AMD: return "AMD";
	case MODEL_VENDOR_ARM: return "Arm";
	case MODEL_VENDOR_SIM: return "simulated";
	}
	return "?";
}

const struct model *model_compiled_model(const struct model_compiled *mc)
{
	return mc->m;
}

int model_formula_index(const struct model *m, const char *name)
{
	for (size_t i = 0; i < m->nr_formulas; i++)
		if (!strcasecmp(m->formulas[i].name, name))
			return (int)i;
	return -1;
}

int model_node_level(const struct model_compiled *mc, size_t i)
{
	if (mc->m->nodes[i].level > 0)
		return mc->m->nodes[i].level;
	return mc->node_parent[i] < 0 ? 1 : 2;
}

int model_node_index(const struct model *m, const char *key)
{
	if (!key)
		return -1;
	for (size_t i = 0; i < m->nr_nodes; i++)
		if (!strcmp(m->nodes[i].key, key))
			return (int)i;
	return -1;
}

int model_event_index_by_key(const struct model_compiled *mc, const char *key)
{
	for (size_t e = 0; e < mc->m->nr_events; e++)
		for (size_t k = 0; k < MODEL_KEYS_PER_EVENT; k++) {
			const char *ek = mc->keys[e * MODEL_KEYS_PER_EVENT + k];

			if (ek && !strcmp(ek, key))
				return (int)e;
		}
	return -1;
}

void model_compiled_free(struct model_compiled *mc)
{
	if (!mc)
		return;
	if (mc->f)
		for (size_t i = 0; i < mc->m->nr_formulas; i++)
			for (size_t v = 0; v < MODEL_MAX_VARIANTS; v++)
				expr_release(&mc->f[i].v[v]);
	if (mc->keys)
		for (size_t i = 0; i < mc->m->nr_events * MODEL_KEYS_PER_EVENT; i++)
			tdp_free(mc->keys[i]);
	tdp_free(mc->keys);
	tdp_free(mc->f);
	tdp_free(mc->node_formula);
	tdp_free(mc->node_parent);
	tdp_free(mc);
}

static int compile_keys(struct model_compiled *mc, struct tdp_err *err)
{
	const struct model *m = mc->m;
	char key[MODEL_EVKEY_MAX];

	for (size_t e = 0; e < m->nr_events; e++) {
		const struct model_event *ev = &m->events[e];
		const char *names[MODEL_KEYS_PER_EVENT] = { ev->name };
		size_t n = 1;

		for (size_t k = 0; k < MODEL_MAX_ALIASES && ev->aliases[k]; k++)
			names[n++] = ev->aliases[k];
		if (ev->spec)
			names[n++] = ev->spec;
		for (size_t k = 0; k < n; k++) {
			char **slot = &mc->keys[e * MODEL_KEYS_PER_EVENT + k];

			if (model_event_key(names[k], key, sizeof(key), NULL, 0) < 0)
				return tdp_err_set(err, TDP_EFORMAT, "model '%s': event '%s': malformed spelling '%s'",
						   m->name, ev->name, names[k]);
			*slot = tdp_strdup(key);
			if (!*slot)
				return tdp_err_oom(err);
		}
	}
	return 0;
}

static int bind_names(struct model_compiled *mc, size_t f, size_t v, struct tdp_err *err)
{
	const struct model *m = mc->m;
	struct expr *e = &mc->f[f].v[v];
	char key[MODEL_EVKEY_MAX];

	for (size_t i = 0; i < e->nr; i++) {
		struct expr_node *n = &e->v[i];
		int idx = -1;

		if (n->op != EXPR_NAME)
			continue;
		if (!n->raw)
			idx = model_formula_index(m, n->name);
		if (idx >= 0) {
			n->ref_kind = MODEL_REF_FORMULA;
			n->ref = idx;
			continue;
		}
		if (model_event_key(n->name, key, sizeof(key), NULL, 0) == 0)
			idx = model_event_index_by_key(mc, key);
		if (idx < 0)
			return tdp_err_set(err, TDP_EFORMAT,
					   "model '%s': formula '%s' (variant %zu): at offset %zu: '%s' is neither an "
					   "event nor a formula of the model",
					   m->name, m->formulas[f].name, v + 1, n->offset, n->name);
		n->ref_kind = MODEL_REF_EVENT;
		n->ref = idx;
	}
	return 0;
}

int model_compile(const struct model *m, struct model_compiled **out, struct tdp_err *err)
{
	struct model_compiled *mc;
	int rc = 0;

	if (m->nr_events > MODEL_MAX_EVENTS || m->nr_formulas > MODEL_MAX_FORMULAS || m->nr_nodes > MODEL_MAX_NODES)
		return tdp_err_set(err, TDP_EFORMAT, "model '%s': more than %d events, %d formulas or %d nodes",
				   m->name, MODEL_MAX_EVENTS, MODEL_MAX_FORMULAS, MODEL_MAX_NODES);
	mc = tdp_calloc(1, sizeof(*mc));
	if (!mc)
		return tdp_err_oom(err);
	mc->m = m;
	mc->f = tdp_calloc(m->nr_formulas ? m->nr_formulas : 1, sizeof(*mc->f));
	mc->keys = tdp_calloc(m->nr_events * MODEL_KEYS_PER_EVENT + 1, sizeof(*mc->keys));
	mc->node_formula = tdp_calloc(m->nr_nodes + 1, sizeof(int));
	mc->node_parent = tdp_calloc(m->nr_nodes + 1, sizeof(int));
	if (!mc->f || !mc->keys || !mc->node_formula || !mc->node_parent) {
		rc = tdp_err_oom(err);
		goto out;
	}
	for (size_t f = 0; f < m->nr_formulas; f++)
		for (size_t v = 0; v < MODEL_MAX_VARIANTS; v++)
			mc->f[f].v[v] = (struct expr)EXPR_INIT;
	rc = compile_keys(mc, err);
	if (rc)
		goto out;
	for (size_t f = 0; f < m->nr_formulas && !rc; f++) {
		const struct model_formula *fm = &m->formulas[f];

		for (size_t v = 0; v < MODEL_MAX_VARIANTS && fm->expr[v]; v++) {
			rc = expr_parse(&mc->f[f].v[v], fm->expr[v], strlen(fm->expr[v]), err);
			if (rc) {
				tdp_err_prefix(err, "model '%s': formula '%s' (variant %zu)", m->name, fm->name, v + 1);
				break;
			}
			mc->f[f].nr = v + 1;
			rc = bind_names(mc, f, v, err);
			if (rc)
				break;
		}
		if (!rc && mc->f[f].nr == 0)
			rc = tdp_err_set(err, TDP_EFORMAT, "model '%s': formula '%s' has no expression", m->name,
					 fm->name);
	}
	for (size_t i = 0; i < m->nr_nodes && !rc; i++) {
		const struct model_node_def *nd = &m->nodes[i];

		mc->node_formula[i] = model_formula_index(m, nd->formula);
		if (mc->node_formula[i] < 0)
			rc = tdp_err_set(err, TDP_EFORMAT, "model '%s': node '%s': no formula '%s'", m->name, nd->key,
					 nd->formula);
		mc->node_parent[i] = nd->parent ? model_node_index(m, nd->parent) : -1;
		if (!rc && nd->parent && mc->node_parent[i] < 0)
			rc = tdp_err_set(err, TDP_EFORMAT, "model '%s': node '%s': no parent node '%s'", m->name,
					 nd->key, nd->parent);
	}
out:
	if (rc) {
		model_compiled_free(mc);
		return rc;
	}
	*out = mc;
	return 0;
}

struct events_walk {
	const struct model_compiled *mc;
	const int *chosen;
	const struct expr_env *env;
	struct evset *out;
	int depth;
};

static bool events_cb(void *arg, const struct expr_node *n)
{
	struct events_walk *w = arg;

	if (n->ref_kind == MODEL_REF_EVENT)
		evset_add(w->out, (size_t)n->ref);
	else if (n->ref_kind == MODEL_REF_FORMULA && w->chosen[n->ref] >= 0)
		model_formula_events(w->mc, (size_t)n->ref, w->chosen[n->ref], w->chosen, w->env, w->out,
				     w->depth + 1);
	return true;
}

void model_formula_events(const struct model_compiled *mc, size_t f, int v, const int *chosen,
			  const struct expr_env *env, struct evset *out, int depth)
{
	struct events_walk w = { mc, chosen, env, out, depth };

	if (v < 0 || (size_t)v >= mc->f[f].nr || depth > MODEL_MAX_FORMULAS)
		return;
	expr_walk_names(&mc->f[f].v[v], env, events_cb, &w);
}
