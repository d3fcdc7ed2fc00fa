/*
 * cmd-list.c: `tdprof list [models|metrics|events]`: the top-down models, their
 * metrics (formulas and sources) and the events known here.
 */
#include "cli/backend.h"
#include "cli/cmd.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/opts.h"
#include "base/err.h"
#include "base/str.h"
#include "model/model.h"
#include "pmu/event.h"
#include "report/json-util.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

const char cmd_list_summary[] = "list the top-down models, their metrics and the events known here";

static const struct cmd_doc doc = {
	.name = "list",
	.summary = cmd_list_summary,
	.usage = "list [models] [--json]\n"
		 "list metrics [--cpu MODEL] [--json]\n"
		 "list events [--cpu MODEL] [--json]",
	.description =
		"'models' (the default) lists every top-down model with its vendor, kind (slots: the four-way "
		"top-down; cycle_accounting: stalled-cycle buckets where no slot-level top-down exists), slots "
		"per cycle, the other CPU names it serves and the CPUs it covers; '--cpu NAME' of 'tdprof "
		"topdown' accepts the name or any alias.\n"
		"\n"
		"'metrics' lists the formulas of a model (all models without --cpu): each metric's name, the "
		"tree node it computes, its expression in perf's metric syntax (alternatives in order of "
		"preference) and the document it comes from.\n"
		"\n"
		"'events' lists the event names this machine knows (perf's generic names, the sysfs aliases of "
		"its PMUs and, through libpfm4, the core PMU's events); with --cpu, the events a model needs "
		"instead, with every spelling it recognises in imported perf output and the encoding a live run "
		"uses.",
	.examples = "tdprof list\n"
		    "the top-down models\n"
		    "tdprof list metrics --cpu zen4\n"
		    "the Zen 4 formulas and their sources\n"
		    "tdprof list events --cpu icelakex\n"
		    "what an Ice Lake-X import must contain",
	.exit_status = "2 when the list or the model is unknown.",
	.see_also = "tdprof-topdown(1), tdprof-info(1), perf-list(1)",
};

static json_t *aliases_json(const char *const *aliases, bool *failed)
{
	json_t *a = json_array();

	for (size_t i = 0; i < MODEL_MAX_ALIASES && aliases[i]; i++)
		jappend(a, json_string(aliases[i]), failed);
	return a;
}

/*
 * Write {"backend": ..., "<key>": items} and free items. Like every JSON document,
 * this one carries a backend: the one --backend=auto would pick here.
 */
static int dump(json_t *items, const char *key, bool failed)
{
	json_t *jdoc = json_object();
	int rc = EXIT_OK;

	jput(jdoc, "backend", json_string(backend_auto_name()), &failed);
	jput(jdoc, key, items, &failed);
	if (failed || !jdoc || json_dumpf(jdoc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) || putchar('\n') == EOF) {
		msg_error("cannot write the JSON document");
		rc = EXIT_ANALYSIS;
	}
	json_decref(jdoc);
	return rc;
}

static int list_models(bool json)
{
	size_t nr;
	const struct model *const *all = model_all(&nr);
	json_t *arr = json ? json_array() : NULL;
	bool failed = false;

	for (size_t i = 0; i < nr; i++) {
		const struct model *m = all[i];

		if (json) {
			json_t *o = json_object();

			jput(o, "name", json_string(m->name), &failed);
			jput(o, "vendor", json_string(model_vendor_name(m->vendor)), &failed);
			jput(o, "model_kind", json_string(model_kind_name(m->kind)), &failed);
			jput(o, "slots", m->slots > 0 ? json_real(m->slots) : json_null(), &failed);
			jput(o, "core_type", m->core_type ? json_string(m->core_type) : json_null(), &failed);
			jput(o, "companion", m->companion ? json_string(m->companion->name) : json_null(), &failed);
			jput(o, "aliases", aliases_json(m->aliases, &failed), &failed);
			jput(o, "description", json_string(m->description), &failed);
			jput(o, "sources", json_string(m->sources), &failed);
			jappend(arr, o, &failed);
			continue;
		}
		printf("%-15s %-5s %-16s ", m->name, model_vendor_name(m->vendor), model_kind_name(m->kind));
		if (m->slots > 0)
			printf("%2g slots  ", m->slots);
		else if (m->kind == MODEL_KIND_SLOTS)
			printf("caps/slots ");
		else
			printf("%-10s ", "");
		printf("%s\n", m->description);
		if (m->aliases[0]) {
			printf("%15s also:", "");
			for (size_t a = 0; a < MODEL_MAX_ALIASES && m->aliases[a]; a++)
				printf(" %s", m->aliases[a]);
			putchar('\n');
		}
	}
	return json ? dump(arr, "models", failed) : EXIT_OK;
}

/* The node a formula computes in m, or NULL. */
static const struct model_node_def *node_of(const struct model *m, const char *formula)
{
	for (size_t i = 0; i < m->nr_nodes; i++)
		if (!strcmp(m->nodes[i].formula, formula))
			return &m->nodes[i];
	return NULL;
}

static void metrics_text(const struct model *m)
{
	printf("%s (%s)\n", m->name, m->description);
	for (size_t f = 0; f < m->nr_formulas; f++) {
		const struct model_formula *fm = &m->formulas[f];
		const struct model_node_def *nd = node_of(m, fm->name);

		if (nd)
			printf("  %s -> %s%s%s\n", fm->name, nd->parent ? nd->parent : "", nd->parent ? "/" : "",
			       nd->key);
		else
			printf("  %s\n", fm->name);
		for (size_t v = 0; v < MODEL_MAX_VARIANTS && fm->expr[v]; v++)
			printf("      %s %s\n", v ? "or" : "=", fm->expr[v]);
		printf("      source: %s\n", fm->source);
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

static void events_text(const struct model *m)
{
	printf("%s (%s)\n", m->name, m->description);
	for (size_t e = 0; e < m->nr_events; e++) {
		const struct model_event *ev = &m->events[e];

		printf("  %s", ev->name);
		for (size_t a = 0; a < MODEL_MAX_ALIASES && ev->aliases[a]; a++)
			printf("%s%s", a ? ", " : "  (also ", ev->aliases[a]);
		if (ev->aliases[0])
			putchar(')');
		if (ev->spec)
			printf("  counted as %s", ev->spec);
		putchar('\n');
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

/* Metrics or events of one model (--cpu) or of every model. */
static int list_model_parts(const char *cpu, bool events, bool json)
{
	size_t nr;
	const struct model *const *all = model_all(&nr);
	const struct model *one = NULL;
	json_t *arr = json ? json_array() : NULL;
	bool failed = false;

	if (cpu && !(one = model_find(cpu))) {
		msg_error("'%s' is not a top-down model", cpu);
		msg_hint("'tdprof list models' shows them");
		json_decref(arr);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < nr; i++) {
		const struct model *m = all[i];

		if (one && m != one)
			continue;
		if (json)
			jappend(arr, events ? events_json(m, &failed) : metrics_json(m, &failed), &failed);
		else {
			if (!one && i)
				putchar('\n');
			if (events)
				events_text(m);
			else
				metrics_text(m);
		}
	}
	return json ? dump(arr, events ? "events" : "metrics", failed) : EXIT_OK;
}

static int list_known_events(bool json)
{
	struct pmu_event_desc_list l = PMU_EVENT_DESC_LIST_INIT;
	struct pmu_env env = PMU_ENV_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	json_t *arr = json ? json_array() : NULL;
	bool failed = false;
	int rc = EXIT_OK;

	if (pmu_event_known(&l, &env, &err)) {
		msg_err(&err);
		rc = EXIT_ANALYSIS;
		goto out;
	}
	for (size_t i = 0; i < l.nr; i++) {
		const struct pmu_event_desc *d = &l.v[i];

		if (json) {
			json_t *o = json_object();

			jput(o, "name", json_string(d->name), &failed);
			jput(o, "pmu", json_string(d->pmu ? d->pmu : ""), &failed);
			jput(o, "description", json_string(d->desc ? d->desc : ""), &failed);
			jappend(arr, o, &failed);
		} else {
			printf("%-40s %-10s %s\n", d->name, d->pmu ? d->pmu : "", d->desc ? d->desc : "");
		}
	}
	if (json) {
		rc = dump(arr, "events", failed);
		arr = NULL;
	}
out:
	json_decref(arr);
	pmu_event_desc_list_release(&l);
	return rc;
}

int cmd_list(int argc, char **argv, struct tdp_ctx *ctx)
{
	const char *cpu = NULL, *what = "models";
	bool json = false;
	struct opt opts[] = {
		OPT_STRING(0, "cpu", &cpu, "MODEL", "metrics or events of this model only"),
		OPT_BOOL(0, "json", &json, "one JSON document"),
		OPT_END(),
	};
	int i;

	(void)ctx;
	/* `list metrics --cpu X`: the word first, options after it */
	if (argc > 1 && argv[1][0] != '-') {
		what = argv[1];
		argc--;
		argv++;
	}
	i = opts_parse(opts, &doc, argc, argv);
	if (i < 0)
		return opts_exit(i);
	if (i < argc && !strcmp(what, "models") && argc > 1)
		what = argv[i++];
	if (i < argc)
		return msg_usage("list", "unexpected argument '%s'", argv[i]);
	if (!strcmp(what, "models")) {
		if (cpu)
			return msg_usage("list", "'--cpu' applies to 'list metrics' and 'list events'");
		return list_models(json);
	}
	if (!strcmp(what, "metrics"))
		return list_model_parts(cpu, false, json);
	if (!strcmp(what, "events"))
		return cpu ? list_model_parts(cpu, true, json) : list_known_events(json);
	return msg_usage("list", "'%s' is not a list: say models, metrics or events", what);
}
