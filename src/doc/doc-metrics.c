/*
 * doc-metrics.c: the named metrics of a topdown document (info, bottlenecks,
 * stage2) and the per-branch table of why's top line (drilldown.line_branches),
 * read back for the HTML report (see doc.h).
 */
#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "doc/doc-internal.h"

/* Read the metric objects of array a (where: its key, for messages) into *out. */
static void read_metric_array(struct pctx *c, const json_t *a, const char *where, struct tdoc_metric **out,
			      size_t *nr)
{
	const json_t *o;
	size_t i, n;

	if (!a || json_is_null(a))
		return;
	if (!json_is_array(a)) {
		doc_fail_type(c, NULL, where, "an array");
		return;
	}
	if (!json_array_size(a))
		return;
	n = json_array_size(a) < TDOC_MAX_METRICS ? json_array_size(a) : TDOC_MAX_METRICS;
	*out = tdp_calloc(n, sizeof(**out));
	if (!*out) {
		doc_oom(c);
		return;
	}
	json_array_foreach(a, i, o) {
		struct tdoc_metric *m;
		double rank;

		if (i >= n)
			break;
		if (!json_is_object(o)) {
			doc_fail_type(c, NULL, where, "an array of objects");
			return;
		}
		m = &(*out)[(*nr)++];
		m->name = doc_str(c, o, "name", where);
		m->group = doc_str(c, o, "group", where);
		m->unit = doc_str(c, o, "unit", where);
		m->description = doc_str(c, o, "description", where);
		m->value = doc_num(c, o, "value", where);
		m->threshold = doc_num(c, o, "threshold", where);
		m->flagged = doc_bool(o, "flagged");
		rank = doc_num(c, o, "rank", where);
		m->rank = isfinite(rank) && rank >= 1 && rank <= 1e6 ? (size_t)rank : 0;
		if (c->ret)
			return;
		if (!m->name) {
			doc_fail_type(c, where, "name", "a string");
			return;
		}
	}
}

void doc_read_metrics(struct pctx *c, const json_t *root)
{
	const json_t *s2 = json_object_get(root, "stage2");

	read_metric_array(c, json_object_get(root, "info"), "info", &c->d->info, &c->d->nr_info);
	if (!c->ret)
		read_metric_array(c, json_object_get(root, "bottlenecks"), "bottlenecks", &c->d->bottlenecks,
				  &c->d->nr_bottlenecks);
	if (c->ret || !s2 || json_is_null(s2))
		return;
	if (!json_is_object(s2)) {
		doc_fail_type(c, NULL, "stage2", "an object");
		return;
	}
	c->d->stage2_node = doc_str(c, s2, "node", "stage2");
	if (!c->ret)
		read_metric_array(c, json_object_get(s2, "metrics"), "stage2.metrics", &c->d->stage2,
				  &c->d->nr_stage2);
}

void doc_read_line_branches(struct pctx *c, const json_t *root)
{
	const json_t *a = json_object_get(json_object_get(root, "drilldown"), "line_branches"), *o;
	size_t i, n;

	if (!a || json_is_null(a))
		return;
	if (!json_is_array(a)) {
		doc_fail_type(c, "drilldown", "line_branches", "an array");
		return;
	}
	if (!json_array_size(a))
		return;
	n = json_array_size(a) < TDOC_MAX_LINE_BRANCHES ? json_array_size(a) : TDOC_MAX_LINE_BRANCHES;
	c->d->line_branches = tdp_calloc(n, sizeof(*c->d->line_branches));
	if (!c->d->line_branches) {
		doc_oom(c);
		return;
	}
	json_array_foreach(a, i, o) {
		struct tdoc_branch *b;

		if (i >= n)
			break;
		if (!json_is_object(o)) {
			doc_fail_type(c, "drilldown", "line_branches", "an array of objects");
			return;
		}
		b = &c->d->line_branches[c->d->nr_line_branches++];
		b->has_address = doc_u64(c, o, "address", "drilldown.line_branches", &b->address);
		b->text = doc_str(c, o, "text", "drilldown.line_branches");
		b->executions = doc_num(c, o, "executions", "drilldown.line_branches");
		b->mispredicts = doc_num(c, o, "mispredicts", "drilldown.line_branches");
		b->target = doc_bool(o, "target");
		if (c->ret)
			return;
	}
}
