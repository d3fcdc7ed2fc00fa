/* doc-functions.c: the functions of `--by function` (topdown, why) read back for the HTML report (see doc.h). */
#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "doc/doc-internal.h"

static const char *const l1_keys[4] = { "retiring", "bad_speculation", "frontend_bound", "backend_bound" };

/* One function object o into f (where: for messages). */
static void read_one(struct pctx *c, const json_t *o, struct tdoc_function *f)
{
	const char *where = "functions";
	const json_t *l1 = json_object_get(o, "level1");
	double v;

	f->name = doc_str(c, o, "function", where);
	f->dso = doc_str(c, o, "dso", where);
	f->kernel = doc_bool(o, "kernel");
	f->share = doc_num(c, o, "share_pct", where);
	f->dominant = doc_str(c, o, "dominant", where);
	f->dominant_node = doc_str(c, o, "dominant_node", where);
	f->why = doc_str(c, o, "why", where);
	f->file = doc_str(c, o, "file", where);
	v = doc_num(c, o, "line", where);
	f->line = isfinite(v) && v >= 1 && v < 1e12 ? (uint64_t)v : 0;
	f->line_share = doc_num(c, o, "line_share_pct", where);
	v = doc_num(c, o, "samples", where);
	f->samples = isfinite(v) && v >= 0 && v < 1.8e19 ? (uint64_t)v : 0;
	for (size_t k = 0; k < 4; k++)
		f->level1[k] = json_is_object(l1) ? doc_num(c, l1, l1_keys[k], "functions.level1") : NAN;
	if (!c->ret && !f->name)
		doc_fail_type(c, where, "function", "a string");
}

void doc_read_functions(struct pctx *c, const json_t *root)
{
	const json_t *a = json_object_get(root, "functions"), *by = json_object_get(root, "by_function"), *o;
	size_t i, n;

	c->d->functions_other = NAN;
	if (!a || json_is_null(a))
		return;
	if (!json_is_array(a)) {
		doc_fail_type(c, NULL, "functions", "an array");
		return;
	}
	c->d->functions_other = doc_num(c, root, "functions_other_pct", NULL);
	if (json_is_object(by)) {
		c->d->functions_source = doc_str(c, by, "source", "by_function");
		c->d->functions_leader = doc_str(c, by, "leader", "by_function");
	}
	n = json_array_size(a) < TDOC_MAX_FUNCTIONS ? json_array_size(a) : TDOC_MAX_FUNCTIONS;
	if (c->ret || !n)
		return;
	if (!(c->d->functions = tdp_calloc(n, sizeof(*c->d->functions)))) {
		doc_oom(c);
		return;
	}
	json_array_foreach(a, i, o) {
		if (i >= n || c->ret)
			break;
		if (!json_is_object(o)) {
			doc_fail_type(c, NULL, "functions", "an array of objects");
			return;
		}
		read_one(c, o, &c->d->functions[c->d->nr_functions++]);
	}
}
