/* doc.c: a tdprof JSON document read back into struct tdoc (see doc.h). */
#include "doc/doc.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/str.h"
#include "base/strbuf.h"
#include "doc/doc-internal.h"
#include "model/model.h"

static const char *const kind_names[] = {
	[TDOC_TOPDOWN] = "topdown",
	[TDOC_WHY] = "why",
	[TDOC_BRANCHES] = "branches report",
};

const char *tdoc_kind_name(enum tdoc_kind k)
{
	return (size_t)k < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[k] : "unknown";
}

/* ---------------------------------------------------------------------------
 * Kind and header
 */

/*
 * The kind: a top-level "kind" naming one (a later version may write it), else
 * the keys only one kind has. Not "command": why's is the workload it ran.
 */
static int find_kind(struct pctx *c, const json_t *root)
{
	const char *kind = doc_str(c, root, "kind", NULL);
	const char *hint = "give documents of 'tdprof topdown --json', 'tdprof why --json' or "
			   "'tdprof branches report --json'";

	if (c->ret)
		return c->ret;
	if (kind && !strcmp(kind, "diff")) {
		c->ret = tdp_err_set(c->err, TDP_EFORMAT, "'%s' is the output of 'tdprof diff'", c->d->name);
		tdp_err_hint(c->err, "compare the documents it was made from");
		return c->ret;
	}
	if (kind && !strcmp(kind, "topdown"))
		c->d->kind = TDOC_TOPDOWN;
	else if (kind && !strcmp(kind, "why"))
		c->d->kind = TDOC_WHY;
	else if (kind && (!strcmp(kind, "branches report") || !strcmp(kind, "branches")))
		c->d->kind = TDOC_BRANCHES;
	else if (json_object_get(root, "edges") || json_object_get(root, "branch_entries"))
		c->d->kind = TDOC_BRANCHES;
	else if (json_object_get(root, "findings") || json_object_get(root, "drilldown"))
		c->d->kind = TDOC_WHY;
	else if (json_object_get(root, "level1"))
		c->d->kind = TDOC_TOPDOWN;
	else
		c->ret = tdp_err_set(c->err, TDP_EFORMAT,
				     "'%s' is not a tdprof document: it has none of 'level1', 'findings', 'edges'",
				     c->d->name);
	if (c->ret)
		tdp_err_hint(c->err, "%s", hint);
	return c->ret;
}

/* The simulated machine in words: "generic: a modern desktop core ..." */
static char *machine_text(struct pctx *c, const json_t *m)
{
	const char *name = json_is_object(m) ? doc_str(c, m, "name", "machine") : NULL;
	const char *desc = json_is_object(m) ? doc_str(c, m, "description", "machine") : NULL;
	struct strbuf sb = STRBUF_INIT;

	if (!name && !desc)
		return doc_text(c, m);
	if (name && desc && !strncmp(desc, name, strlen(name)))
		name = NULL; /* the description starts with the name already */
	strbuf_addf(&sb, "%s%s%s", name ? name : "", name && desc ? ": " : "", desc ? desc : "");
	return doc_own(c, &sb);
}

static void read_header(struct pctx *c, const json_t *root)
{
	struct tdoc *d = c->d;
	const json_t *model = json_object_get(root, "model"), *machine = json_object_get(root, "machine");
	double level = doc_num(c, root, "level", NULL);

	d->backend = doc_str(c, root, "backend", NULL);
	d->cpu = doc_str(c, root, "cpu", NULL);
	d->model_kind = doc_str(c, root, "model_kind", NULL);
	d->source = doc_str(c, root, "source", NULL);
	if (!d->source) /* why names what it ran "command" */
		d->source = doc_str(c, root, "command", NULL);
	if (!d->source && d->kind == TDOC_BRANCHES) /* a branch report, the recording it read */
		d->source = doc_str(c, root, "file", NULL);
	if (json_is_object(model))
		d->model_description = doc_str(c, model, "description", "model");
	if (!machine)
		machine = json_object_get(root, "sim_machine");
	if (machine && !json_is_null(machine))
		d->machine = machine_text(c, machine);
	d->level = isfinite(level) && level >= 0 && level <= 9 ? (int)level : 0;
	d->level1_sum = doc_num(c, root, "level1_sum", NULL);
	{
		const json_t *scope = json_object_get(root, "scope"), *counts = json_object_get(root, "counts");

		d->scope = json_is_object(scope) ? doc_str(c, scope, "kind", "scope") : NULL;
		const json_t *cy = json_is_object(counts) ? json_object_get(counts, "cycles") : NULL;

		/* a hand-made or older document may lack them: the diff then compares shares only */
		d->cycles = json_is_number(cy) && json_number_value(cy) > 0 ? json_number_value(cy) : NAN;
	}
}

/* ---------------------------------------------------------------------------
 * Nodes
 */

static struct tdoc_node *add_node(struct pctx *c, const char *key, const char *parent, int level)
{
	struct tdoc_node *n;

	for (size_t i = 0; i < c->d->nr_nodes; i++)
		if (!strcmp(c->d->nodes[i].key, key) &&
		    ((!parent && !c->d->nodes[i].parent) ||
		     (parent && c->d->nodes[i].parent && !strcmp(parent, c->d->nodes[i].parent))))
			return &c->d->nodes[i];
	if (c->d->nr_nodes >= TDOC_MAX_NODES) {
		if (!c->ret)
			c->ret = tdp_err_set(c->err, TDP_ELIMIT, "'%s': more than %d nodes in the tree", c->d->name,
					     TDOC_MAX_NODES);
		return NULL;
	}
	n = &c->d->nodes[c->d->nr_nodes++];
	memset(n, 0, sizeof(*n));
	n->key = key;
	n->parent = parent;
	n->level = level;
	n->label = model_node_label(key);
	n->value = NAN;
	n->threshold = NAN;
	return n;
}

static void nodes_from_array(struct pctx *c, const json_t *nodes)
{
	size_t i;
	const json_t *o;

	json_array_foreach(nodes, i, o) {
		const char *key, *parent, *label;
		double level;
		struct tdoc_node *n;

		if (!json_is_object(o)) {
			doc_fail_type(c, NULL, "nodes", "an array of objects");
			return;
		}
		key = doc_str(c, o, "key", "nodes");
		parent = doc_str(c, o, "parent", "nodes");
		label = doc_str(c, o, "label", "nodes");
		level = doc_num(c, o, "level", "nodes");
		if (c->ret)
			return;
		if (!key) {
			doc_fail_type(c, "nodes", "key", "a string");
			return;
		}
		n = add_node(c, key, parent, parent ? 2 : 1);
		if (!n)
			return;
		if (level >= 1 && level <= 6 && level == (int)level)
			n->level = (int)level;
		if (label)
			n->label = label;
		n->extra = doc_bool(o, "extra");
		n->value = doc_num(c, o, "value", "nodes");
		n->threshold = doc_num(c, o, "threshold", "nodes");
		n->flagged = doc_bool(o, "flagged");
	}
}

/* level1 / cycle_accounting / level2 objects (documents without "nodes"). */
static void nodes_from_levels(struct pctx *c, const json_t *root)
{
	const json_t *l1 = json_object_get(root, "level1"), *l2 = json_object_get(root, "level2");
	const json_t *ca = json_object_get(root, "cycle_accounting"), *extra = json_object_get(root, "extra");
	const json_t *thr = json_object_get(root, "thresholds"), *flagged = json_object_get(root, "flagged");
	const char *k, *pk;
	const json_t *v, *p;
	size_t i;

	/* null: not measured or not estimable here (why's level2 on some backends) */
	if (l1 && !json_is_object(l1) && !json_is_null(l1))
		doc_fail_type(c, NULL, "level1", "an object");
	if (l2 && !json_is_object(l2) && !json_is_null(l2))
		doc_fail_type(c, NULL, "level2", "an object");
	if (ca && !json_is_object(ca) && !json_is_null(ca))
		doc_fail_type(c, NULL, "cycle_accounting", "an object");
	if (!json_is_object(ca))
		ca = NULL;
	if (c->ret)
		return;
	json_object_foreach((json_t *)l1, k, v) {
		struct tdoc_node *n;

		if (ca && json_is_null(v))
			continue; /* cycle accounting: the four names are null by contract */
		if (!json_is_number(v) && !json_is_null(v)) {
			doc_fail_type(c, "level1", k, "a number");
			return;
		}
		n = add_node(c, k, NULL, 1);
		if (!n)
			return;
		n->value = json_is_number(v) ? json_number_value(v) : NAN;
	}
	json_object_foreach((json_t *)ca, k, v) {
		struct tdoc_node *n = add_node(c, k, NULL, 1);

		if (!n)
			return;
		n->value = json_is_number(v) ? json_number_value(v) : NAN;
	}
	json_object_foreach((json_t *)l2, pk, p) {
		if (json_is_null(p))
			continue;
		if (!json_is_object(p)) {
			doc_fail_type(c, "level2", pk, "an object");
			return;
		}
		json_object_foreach((json_t *)p, k, v) {
			struct tdoc_node *n;

			if (!json_is_number(v) && !json_is_null(v)) {
				doc_fail_type(c, "level2", k, "a number");
				return;
			}
			n = add_node(c, k, pk, 2);
			if (!n)
				return;
			n->value = json_is_number(v) ? json_number_value(v) : NAN;
		}
	}
	for (size_t j = 0; j < c->d->nr_nodes; j++) {
		struct tdoc_node *n = &c->d->nodes[j];

		if (json_is_object(thr))
			n->threshold = doc_num(c, thr, n->key, "thresholds");
		json_array_foreach(flagged, i, v)
			if (json_is_string(v) && !strcmp(json_string_value(v), n->key))
				n->flagged = true;
		json_array_foreach(extra, i, v)
			if (json_is_string(v) && !strcmp(json_string_value(v), n->key))
				n->extra = true;
	}
}

/* A node's value in one run object {level1: {...}, level2: {parent: {...}}}. */
static double run_value(const json_t *run, const struct tdoc_node *n)
{
	const json_t *v;

	if (n->parent) {
		v = json_object_get(json_object_get(json_object_get(run, "level2"), n->parent), n->key);
	} else {
		v = json_object_get(json_object_get(run, "level1"), n->key);
		if (!v)
			v = json_object_get(json_object_get(run, "cycle_accounting"), n->key);
	}
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void read_runs(struct pctx *c, const json_t *root)
{
	struct tdoc *d = c->d;
	const json_t *runs = json_object_get(root, "runs"), *rep = json_object_get(root, "repeat");
	size_t nr = json_is_array(runs) ? json_array_size(runs) : 0;
	double *x = NULL;

	if (json_is_object(rep)) {
		double req = doc_num(c, rep, "requested", "repeat");

		d->runs_requested = isfinite(req) && req >= 1 && req <= TDOC_MAX_RUNS ? (size_t)req : 0;
		d->deterministic = doc_bool(rep, "deterministic");
		d->repeat_note = doc_str(c, rep, "note", "repeat");
	}
	if (nr > TDOC_MAX_RUNS) {
		c->ret = tdp_err_set(c->err, TDP_ELIMIT, "'%s': %zu runs (at most %d)", d->name, nr, TDOC_MAX_RUNS);
		return;
	}
	d->runs = nr ? nr : 1;
	if (nr) {
		x = tdp_calloc(nr, sizeof(*x));
		if (!x) {
			doc_oom(c);
			return;
		}
	}
	for (size_t i = 0; i < d->nr_nodes; i++) {
		struct tdoc_node *n = &d->nodes[i];

		if (nr) {
			for (size_t r = 0; r < nr; r++)
				x[r] = run_value(json_array_get(runs, r), n);
			stats_summarize(x, nr, &n->s);
		} else {
			stats_summarize(&n->value, 1, &n->s);
		}
	}
	tdp_free(x);
	if (!d->runs_requested)
		d->runs_requested = d->runs;
}

static void read_verdict(struct pctx *c, const json_t *root)
{
	const json_t *v = json_object_get(root, "verdict");
	struct tdoc_verdict *o = &c->d->verdict;

	o->value = o->node_value = NAN;
	if (!v || json_is_null(v))
		return;
	if (!json_is_object(v)) {
		doc_fail_type(c, NULL, "verdict", "an object");
		return;
	}
	o->category = doc_str(c, v, "category", "verdict");
	o->node = doc_str(c, v, "node", "verdict");
	o->value = doc_num(c, v, "value", "verdict");
	o->node_value = doc_num(c, v, "node_value", "verdict");
	o->over_threshold = doc_bool(v, "over_threshold");
	o->next_step = doc_str(c, v, "next_step", "verdict");
	o->advice = doc_str(c, v, "advice", "verdict");
}

static void read_misc(struct pctx *c, const json_t *root)
{
	static const char *const summary_keys[] = { "samples", "samples_with_branches", "branch_entries",
						    "mispredicted_entries", "predicted_entries", "lost_samples" };
	const json_t *notes = json_object_get(root, "notes"), *v;
	size_t i;

	json_array_foreach(notes, i, v)
		if (json_is_string(v) && c->d->nr_notes < TDOC_MAX_NOTES)
			c->d->notes[c->d->nr_notes++] = json_string_value(v);
	for (i = 0; i < sizeof(summary_keys) / sizeof(summary_keys[0]); i++) {
		v = json_object_get(root, summary_keys[i]);
		if (json_is_number(v) && c->d->nr_summary < TDOC_MAX_COUNTS) {
			c->d->summary[c->d->nr_summary].name = summary_keys[i];
			c->d->summary[c->d->nr_summary++].value = json_number_value(v);
		}
	}
}

int tdoc_parse(const uint8_t *buf, size_t len, const char *name, struct tdoc **out, struct tdp_err *err)
{
	struct tdoc *d;
	struct pctx c = { NULL, err, 0 };
	json_error_t jerr;
	json_t *root;
	const json_t *nodes;
	struct strbuf trimmed;
	unsigned cut = 0;
	int trim;

	if (len > TDOC_MAX_BYTES)
		return tdp_err_set(err, TDP_ELIMIT, "'%s' is larger than %u MiB", name, TDOC_MAX_BYTES >> 20);
	d = tdp_calloc(1, sizeof(*d));
	if (!d)
		return tdp_err_oom(err);
	d->name = tdp_strdup(name);
	if (!d->name) {
		tdp_free(d);
		return tdp_err_oom(err);
	}
	d->level1_sum = NAN;
	c.d = d;
	/* a large document is parsed as cut down to what is read (doc-trim.c) */
	strbuf_init(&trimmed, len + 1);
	trim = doc_trim(buf, len, &trimmed, &cut);
	if (trim < 0) {
		strbuf_release(&trimmed);
		c.ret = tdp_err_oom(err);
		goto out;
	}
	root = trim ? json_loadb(trimmed.buf, trimmed.len, 0, &jerr) : NULL;
	strbuf_release(&trimmed);
	/* untrimmed, or wrong where the cut copy cannot say the line and column of the original */
	if (!root) {
		cut = 0;
		root = json_loadb((const char *)buf, len, 0, &jerr);
	}
	if (!root) {
		c.ret = tdp_err_set(err, TDP_EFORMAT, "'%s': line %d column %d: %s", name, jerr.line, jerr.column,
				    jerr.text);
		tdp_err_hint(err, "give a document written by 'tdprof topdown|why|branches report --json'");
		goto out;
	}
	d->root = root;
	if (!json_is_object(root)) {
		c.ret = tdp_err_set(err, TDP_EFORMAT, "'%s': the document is not a JSON object", name);
		goto out;
	}
	if (find_kind(&c, root))
		goto out;
	read_header(&c, root);
	nodes = json_object_get(root, "nodes");
	if (json_is_array(nodes))
		nodes_from_array(&c, nodes);
	else if (!c.ret)
		nodes_from_levels(&c, root);
	if (!c.ret)
		read_runs(&c, root);
	if (!c.ret)
		read_verdict(&c, root);
	if (!c.ret)
		doc_read_sites(&c, root);
	d->sites_cut |= (cut & TDOC_TRIM_SITES) != 0;
	d->edges_cut |= (cut & TDOC_TRIM_EDGES) != 0;
	if (!c.ret)
		doc_read_side_disasm(&c, root);
	if (!c.ret)
		doc_read_edges(&c, root);
	if (!c.ret)
		doc_fill_edge_offsets(&c);
	if (!c.ret)
		doc_read_findings(&c, root);
	if (!c.ret)
		read_misc(&c, root);
	if (!c.ret)
		doc_read_metrics(&c, root);
	if (!c.ret)
		doc_read_line_branches(&c, root);
	if (!c.ret)
		doc_read_functions(&c, root);
out:
	if (c.ret) {
		tdoc_free(d);
		return c.ret;
	}
	*out = d;
	return 0;
}

void tdoc_free(struct tdoc *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nr_sites; i++) {
		for (size_t j = 0; j < d->sites[i].nr_source; j++)
			tdp_free(d->sites[i].source[j].text);
		tdp_free(d->sites[i].source);
		tdp_free(d->sites[i].disasm);
	}
	tdp_free(d->sites);
	for (size_t i = 0; i < d->nr_edges; i++) {
		tdp_free(d->edges[i].from_function);
		tdp_free(d->edges[i].to_function);
	}
	tdp_free(d->edges);
	for (size_t i = 0; i < d->nr_findings; i++) {
		tdp_free(d->findings[i].evidence);
		tdp_free(d->findings[i].site);
		tdp_free(d->findings[i].fix);
	}
	tdp_free(d->findings);
	tdp_free(d->info);
	tdp_free(d->bottlenecks);
	tdp_free(d->stage2);
	tdp_free(d->line_branches);
	tdp_free(d->functions);
	tdp_free(d->machine);
	tdp_free(d->name);
	json_decref((json_t *)d->root);
	tdp_free(d);
}

const struct tdoc_node *tdoc_find(const struct tdoc *d, const char *key)
{
	for (size_t i = 0; i < d->nr_nodes; i++)
		if (!strcmp(d->nodes[i].key, key))
			return &d->nodes[i];
	return NULL;
}
