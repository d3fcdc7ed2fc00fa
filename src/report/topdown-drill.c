/* topdown-drill.c: the drill-down section of `tdprof topdown --drilldown` (see topdown.h). */
#include "report/topdown.h"

#include <jansson.h>
#include <math.h>

#include "model/drilldown.h"
#include "report/json-util.h"

void topdown_drill_text(FILE *out, const struct topdown_report *r)
{
	const struct metric_tree *t = r->nr_trees ? r->trees[0] : NULL;

	if (!r->drill || !t)
		return;
	fprintf(out, "\ndrill-down: %zu step%s; where each node was measured\n", r->drill_steps,
		r->drill_steps == 1 ? "" : "s");
	for (size_t i = 0; i < t->nr; i++) {
		const struct drill_node *d = &r->drill[i];
		const struct metric_node *n = &t->v[i];

		if (!d->origin.step)
			continue;
		fprintf(out, "  %*s%-28s step %d, run %d", 2 * (n->level - 1), "", n->label ? n->label : n->key,
			d->origin.step, d->origin.run);
		if (d->origin.running_pct >= 0)
			fprintf(out, ", running %.0f %%", d->origin.running_pct);
		if (d->verdict.mismeasured)
			fprintf(out, "  MISMEASURED (%.1f %%): %s; %s", d->raw, d->verdict.why,
				drill_cause_text(d->verdict.cause));
		fputc('\n', out);
	}
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

void topdown_drill_json(json_t *doc, const struct topdown_report *r, bool *failed)
{
	const struct metric_tree *t = r->nr_trees ? r->trees[0] : NULL;
	json_t *o, *nodes;

	if (!r->drill || !t)
		return;
	o = json_object();
	nodes = json_array();
	if (!o || !nodes) {
		json_decref(o);
		json_decref(nodes);
		*failed = true;
		return;
	}
	jput(o, "steps", json_integer((json_int_t)r->drill_steps), failed);
	for (size_t i = 0; i < t->nr; i++) {
		const struct drill_node *d = &r->drill[i];
		json_t *n;

		if (!d->origin.step)
			continue;
		if (!(n = json_object())) {
			*failed = true;
			break;
		}
		jput(n, "key", json_string(t->v[i].key), failed);
		jput(n, "step", json_integer(d->origin.step), failed);
		jput(n, "run", json_integer(d->origin.run), failed);
		jput(n, "running_pct", d->origin.running_pct >= 0 ? json_real(d->origin.running_pct) : json_null(),
		     failed);
		jput(n, "mismeasured", json_boolean(d->verdict.mismeasured), failed);
		jput(n, "measured_value", num(d->raw), failed);
		jput(n, "why", d->verdict.mismeasured ? json_string(d->verdict.why) : json_null(), failed);
		jput(n, "cause", d->verdict.mismeasured ? json_string(drill_cause_text(d->verdict.cause)) : json_null(),
		     failed);
		jappend(nodes, n, failed);
	}
	jput(o, "nodes", nodes, failed);
	jput(doc, "drilldown", o, failed);
}
