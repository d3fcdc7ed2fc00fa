/* list.c: what `tdprof list` shows, as text or JSON (see report/list.h). */
#include "report/list.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "report/json-util.h"

static json_t *aliases_json(const char *const *aliases, bool *failed)
{
	json_t *a = json_array();

	for (size_t i = 0; i < MODEL_MAX_ALIASES && aliases[i]; i++)
		jappend(a, json_string(aliases[i]), failed);
	return a;
}

static void model_text(struct strbuf *sb, const struct model *m)
{
	strbuf_addf(sb, "%-15s %-5s %-16s ", m->name, model_vendor_name(m->vendor), model_kind_name(m->kind));
	if (m->slots > 0)
		strbuf_addf(sb, "%2g slots  ", m->slots);
	else if (m->kind == MODEL_KIND_SLOTS)
		strbuf_adds(sb, "caps/slots ");
	else
		strbuf_addf(sb, "%-10s ", "");
	strbuf_addf(sb, "%s\n", m->description);
	if (m->aliases[0]) {
		strbuf_addf(sb, "%15s also:", "");
		for (size_t a = 0; a < MODEL_MAX_ALIASES && m->aliases[a]; a++)
			strbuf_addf(sb, " %s", m->aliases[a]);
		strbuf_addch(sb, '\n');
	}
}

static json_t *model_json(const struct model *m, bool *failed)
{
	json_t *o = json_object();

	jput(o, "name", json_string(m->name), failed);
	jput(o, "vendor", json_string(model_vendor_name(m->vendor)), failed);
	jput(o, "model_kind", json_string(model_kind_name(m->kind)), failed);
	jput(o, "slots", m->slots > 0 ? json_real(m->slots) : json_null(), failed);
	jput(o, "core_type", m->core_type ? json_string(m->core_type) : json_null(), failed);
	jput(o, "companion", m->companion ? json_string(m->companion->name) : json_null(), failed);
	jput(o, "aliases", aliases_json(m->aliases, failed), failed);
	jput(o, "description", json_string(m->description), failed);
	jput(o, "sources", json_string(m->sources), failed);
	return o;
}

/* The node a formula computes in m, or NULL. */
static const struct model_node_def *node_of(const struct model *m, const char *formula)
{
	for (size_t i = 0; i < m->nr_nodes; i++)
		if (!strcmp(m->nodes[i].formula, formula))
			return &m->nodes[i];
	return NULL;
}

static void metrics_text(struct strbuf *sb, const struct model *m)
{
	strbuf_addf(sb, "%s (%s)\n", m->name, m->description);
	for (size_t f = 0; f < m->nr_formulas; f++) {
		const struct model_formula *fm = &m->formulas[f];
		const struct model_node_def *nd = node_of(m, fm->name);

		if (nd)
			strbuf_addf(sb, "  %s -> %s%s%s\n", fm->name, nd->parent ? nd->parent : "", nd->parent ? "/" : "",
				    nd->key);
		else
			strbuf_addf(sb, "  %s\n", fm->name);
		for (size_t v = 0; v < MODEL_MAX_VARIANTS && fm->expr[v]; v++)
			strbuf_addf(sb, "      %s %s\n", v ? "or" : "=", fm->expr[v]);
		strbuf_addf(sb, "      source: %s\n", fm->source);
	}
}

static json_t *metrics_json(const struct model *m, bool *failed)
{
	json_t *o = json_object(), *a = json_array();

	jput(o, "model", json_string(m->name), failed);
	for (size_t f = 0; f < m->nr_formulas; f++) {
		const struct model_formula *fm = &m->formulas[f];
		const struct model_node_def *nd = node_of(m, fm->name);
		json_t *mo = json_object(), *ex = json_array();

		jput(mo, "name", json_string(fm->name), failed);
		jput(mo, "node", nd ? json_string(nd->key) : json_null(), failed);
		jput(mo, "parent", nd && nd->parent ? json_string(nd->parent) : json_null(), failed);
		jput(mo, "threshold", nd && !isnan(nd->threshold) ? json_real(nd->threshold) : json_null(), failed);
		for (size_t v = 0; v < MODEL_MAX_VARIANTS && fm->expr[v]; v++)
			jappend(ex, json_string(fm->expr[v]), failed);
		jput(mo, "expr", ex, failed);
		jput(mo, "source", json_string(fm->source), failed);
		jappend(a, mo, failed);
	}
	jput(o, "metrics", a, failed);
	return o;
}

static void events_text(struct strbuf *sb, const struct model *m)
{
	strbuf_addf(sb, "%s (%s)\n", m->name, m->description);
	for (size_t e = 0; e < m->nr_events; e++) {
		const struct model_event *ev = &m->events[e];

		strbuf_addf(sb, "  %s", ev->name);
		for (size_t a = 0; a < MODEL_MAX_ALIASES && ev->aliases[a]; a++)
			strbuf_addf(sb, "%s%s", a ? ", " : "  (also ", ev->aliases[a]);
		if (ev->aliases[0])
			strbuf_addch(sb, ')');
		if (ev->spec)
			strbuf_addf(sb, "  counted as %s", ev->spec);
		strbuf_addch(sb, '\n');
	}
}

static json_t *events_json(const struct model *m, bool *failed)
{
	json_t *o = json_object(), *a = json_array();

	jput(o, "model", json_string(m->name), failed);
	for (size_t e = 0; e < m->nr_events; e++) {
		const struct model_event *ev = &m->events[e];
		json_t *eo = json_object();

		jput(eo, "name", json_string(ev->name), failed);
		jput(eo, "aliases", aliases_json(ev->aliases, failed), failed);
		jput(eo, "spec", json_string(ev->spec ? ev->spec : ev->name), failed);
		jappend(a, eo, failed);
	}
	jput(o, "events", a, failed);
	return o;
}

static json_t *known_json(const struct pmu_event_desc *d, bool *failed)
{
	json_t *o = json_object();

	jput(o, "name", json_string(d->name), failed);
	jput(o, "pmu", json_string(d->pmu ? d->pmu : ""), failed);
	jput(o, "description", json_string(d->desc ? d->desc : ""), failed);
	return o;
}

int list_text_render(struct strbuf *out, const struct list_report *r, struct tdp_err *err)
{
	if (r->what == LIST_KNOWN_EVENTS) {
		for (size_t i = 0; i < r->known->nr; i++) {
			const struct pmu_event_desc *d = &r->known->v[i];

			strbuf_addf(out, "%-40s %-10s %s\n", d->name, d->pmu ? d->pmu : "", d->desc ? d->desc : "");
		}
	}
	for (size_t i = 0; r->what != LIST_KNOWN_EVENTS && i < r->nr_models; i++) {
		if (r->what == LIST_MODELS) {
			model_text(out, r->models[i]);
			continue;
		}
		if (!r->one && i)
			strbuf_addch(out, '\n');
		if (r->what == LIST_MODEL_EVENTS)
			events_text(out, r->models[i]);
		else
			metrics_text(out, r->models[i]);
	}
	return strbuf_failed(out) ? tdp_err_oom(err) : 0;
}

int list_json_render(struct strbuf *out, const struct list_report *r, struct tdp_err *err)
{
	static const char *const keys[] = { "models", "metrics", "events", "events" };
	json_t *doc = json_object(), *arr = json_array();
	bool failed = false;
	int ret;

	if (r->what == LIST_KNOWN_EVENTS)
		for (size_t i = 0; i < r->known->nr; i++)
			jappend(arr, known_json(&r->known->v[i], &failed), &failed);
	for (size_t i = 0; r->what != LIST_KNOWN_EVENTS && i < r->nr_models; i++) {
		const struct model *m = r->models[i];

		jappend(arr, r->what == LIST_MODELS ? model_json(m, &failed)
			     : r->what == LIST_METRICS ? metrics_json(m, &failed)
						       : events_json(m, &failed),
			&failed);
	}
	/* no "backend": nothing is measured (issue 16) */
	jput(doc, keys[r->what], arr, &failed);
	ret = failed || !doc ? tdp_err_oom(err) : jdumps(out, doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER, err);
	json_decref(doc);
	return ret;
}
