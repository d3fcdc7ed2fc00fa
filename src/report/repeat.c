/* repeat.c: the runs of -r N in JSON and text (see repeat.h). */
#include "report/repeat.h"
#include "report/json-util.h"

#include <math.h>
#include <string.h>

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* The object of node i in a {level1 | cycle_accounting, level2: {parent}} shaped o. */
static json_t *slot(json_t *o, const struct metric_tree *t, size_t i, bool *failed)
{
	const struct metric_node *n = &t->v[i];
	const char *top = n->level == 2 ? "level2" : t->kind == MODEL_KIND_CYCLE_ACCOUNTING ? "cycle_accounting"
											    : "level1";
	json_t *p = json_object_get(o, top);

	if (!p) {
		p = json_object();
		jput(o, top, p, failed);
	}
	if (n->level == 2 && p) {
		json_t *q = json_object_get(p, n->parent);

		if (!q) {
			q = json_object();
			jput(p, n->parent, q, failed);
		}
		p = q;
	}
	return p;
}

static json_t *interval(const struct stats_summary *s, bool *failed)
{
	json_t *a;

	if (s->n < 2 || !isfinite(s->lo))
		return json_null();
	a = json_array();
	if (!a || json_array_append_new(a, json_real(s->lo)) || json_array_append_new(a, json_real(s->hi)))
		*failed = true;
	return a;
}

void repeat_json_put(json_t *doc, const struct model_runs *r, const struct metric_tree *mean, bool *failed)
{
	json_t *rep = json_object(), *runs = json_array(), *ci = json_object(), *sd = json_object();
	size_t nr = r->nr_nodes < mean->nr ? r->nr_nodes : mean->nr;

	if (!runs)
		*failed = true;
	jput(rep, "runs", json_integer((json_int_t)r->nr), failed);
	jput(rep, "requested", json_integer((json_int_t)(r->requested ? r->requested : r->nr)), failed);
	jput(rep, "confidence", json_real(STATS_CONFIDENCE), failed);
	jput(rep, "method", json_string("student_t"), failed);
	jput(rep, "deterministic", json_boolean(r->deterministic), failed);
	jput(rep, "note", r->note ? json_string(r->note) : json_null(), failed);
	for (size_t run = 0; run < r->nr; run++) {
		json_t *o = json_object();

		for (size_t i = 0; i < nr; i++)
			jput(slot(o, mean, i, failed), mean->v[i].key, num(r->v[run][i]), failed);
		if (!o || json_array_append_new(runs, o))
			*failed = true;
	}
	for (size_t i = 0; i < nr; i++) {
		jput(slot(ci, mean, i, failed), mean->v[i].key, interval(&r->s[i], failed), failed);
		jput(slot(sd, mean, i, failed), mean->v[i].key, num(r->s[i].sd), failed);
	}
	jput(doc, "repeat", rep, failed);
	jput(doc, "runs", runs, failed);
	jput(doc, "ci95", ci, failed);
	jput(doc, "stddev", sd, failed);
}

void repeat_text_print(FILE *out, const struct model_runs *r, const struct metric_tree *mean)
{
	size_t nr = r->nr_nodes < mean->nr ? r->nr_nodes : mean->nr;

	fprintf(out, "\nover %zu runs", r->nr);
	if (r->requested > r->nr)
		fprintf(out, " (of %zu asked)", r->requested);
	fputs(": the mean and its 95 % confidence interval (Student's t)\n", out);
	for (size_t i = 0; i < nr; i++) {
		const struct metric_node *n = &mean->v[i];
		const struct stats_summary *s = &r->s[i];
		char label[64];

		if (!isfinite(s->mean))
			continue;
		snprintf(label, sizeof(label), "%s%s", n->level == 2 ? "  " : "", n->label);
		fprintf(out, "  %-26s%6.1f %%", label, s->mean);
		if (s->n >= 2 && isfinite(s->lo))
			fprintf(out, "  [%5.1f, %5.1f]  \u00b1%.2f  sd %.2f", s->lo, s->hi, s->half, s->sd);
		fputc('\n', out);
	}
	if (r->note)
		fprintf(out, "  note: %s\n", r->note);
}
