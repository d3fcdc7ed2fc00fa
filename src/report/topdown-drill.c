/* topdown-drill.c: the drill-down section of `tdprof topdown --drilldown` and of `why` (see topdown.h). */
#include "report/topdown.h"

#include <jansson.h>
#include <math.h>

#include "model/drilldown.h"
#include "report/json-util.h"
#include "report/palette.h"

void topdown_drill_step_line(const struct drill_step_info *s, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s; %zu node%s in %zu group%s, %zu run%s", s->why, s->nr_nodes,
			 s->nr_nodes == 1 ? "" : "s", s->groups, s->groups == 1 ? "" : "s", s->runs,
			 s->runs == 1 ? "" : "s");

	if (s->seconds > 0 && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, ", %.2f s", s->seconds);
}

void topdown_drill_steps_text(FILE *out, const struct drill_info *info, const char *indent)
{
	char line[400];

	for (size_t k = 0; k < info->nr_steps; k++) {
		topdown_drill_step_line(&info->steps[k], line, sizeof(line));
		fprintf(out, "%sstep %d: %s\n", indent, info->steps[k].index, line);
	}
}

void topdown_drill_node_text(FILE *out, const struct drill_node *d, const struct palette *pal)
{
	if (!d || !d->origin.step)
		return;
	fprintf(out, "step %d, run %d", d->origin.step, d->origin.run);
	if (d->origin.running_pct >= 0)
		fprintf(out, ", running %.0f %%", d->origin.running_pct);
	if (d->verdict.mismeasured)
		fprintf(out, "  %sMISMEASURED%s (%.1f %%): %s; %s", pal_on(pal, PAL_HOT), pal_off(pal), d->raw,
			d->verdict.why, drill_cause_text(d->verdict.cause));
}

void topdown_drill_text(FILE *out, const struct topdown_report *r)
{
	const struct metric_tree *t = r->nr_trees ? r->trees[0] : NULL;

	if (!r->drill || !t)
		return;
	fprintf(out, "\ndrill-down: %zu step%s; where each node was measured\n", r->drill->nr_steps,
		r->drill->nr_steps == 1 ? "" : "s");
	topdown_drill_steps_text(out, r->drill, "  ");
	for (size_t i = 0; i < t->nr; i++) {
		const struct drill_node *d = &r->drill->nodes[i];
		const struct metric_node *n = &t->v[i];

		if (!d->origin.step)
			continue;
		fprintf(out, "  %*s%-28s ", 2 * (n->level - 1), "", n->label ? n->label : n->key);
		topdown_drill_node_text(out, d, r->pal);
		fputc('\n', out);
	}
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *topdown_drill_node_json(const struct drill_node *d, bool *failed)
{
	json_t *n;

	if (!d || !d->origin.step)
		return json_null();
	if (!(n = json_object())) {
		*failed = true;
		return NULL;
	}
	jput(n, "step", json_integer(d->origin.step), failed);
	jput(n, "run", json_integer(d->origin.run), failed);
	jput(n, "running_pct", d->origin.running_pct >= 0 ? json_real(d->origin.running_pct) : json_null(), failed);
	jput(n, "mismeasured", json_boolean(d->verdict.mismeasured), failed);
	jput(n, "measured_value", num(d->raw), failed);
	jput(n, "why", d->verdict.mismeasured ? json_string(d->verdict.why) : json_null(), failed);
	jput(n, "cause", d->verdict.mismeasured ? json_string(drill_cause_text(d->verdict.cause)) : json_null(),
	     failed);
	return n;
}

json_t *topdown_drill_steps_json(const struct drill_info *info, bool *failed)
{
	json_t *a = json_array();

	if (!a) {
		*failed = true;
		return NULL;
	}
	for (size_t k = 0; k < info->nr_steps; k++) {
		const struct drill_step_info *s = &info->steps[k];
		json_t *o = json_object();

		if (!o) {
			*failed = true;
			break;
		}
		jput(o, "step", json_integer(s->index), failed);
		jput(o, "level", json_integer(s->level), failed);
		jput(o, "nodes", json_string(s->why), failed);
		jput(o, "nr_nodes", json_integer((json_int_t)s->nr_nodes), failed);
		jput(o, "groups", json_integer((json_int_t)s->groups), failed);
		jput(o, "runs", json_integer((json_int_t)s->runs), failed);
		jput(o, "seconds", s->seconds > 0 ? json_real(s->seconds) : json_null(), failed);
		jappend(a, o, failed);
	}
	return a;
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
	jput(o, "steps", json_integer((json_int_t)r->drill->nr_steps), failed);
	jput(o, "plan", topdown_drill_steps_json(r->drill, failed), failed);
	for (size_t i = 0; i < t->nr; i++) {
		json_t *n;

		if (!r->drill->nodes[i].origin.step)
			continue;
		n = topdown_drill_node_json(&r->drill->nodes[i], failed);
		if (!n)
			break;
		jput(n, "key", json_string(t->v[i].key), failed);
		jappend(nodes, n, failed);
	}
	jput(o, "nodes", nodes, failed);
	jput(doc, "drilldown", o, failed);
}
