/*
 * why-tree.c: the top-down section of `tdprof why` (see why.h): the tree, on a PMU
 * as its drill-down measured it (model/drilldown.h), and the verdict.
 */
#include "report/why.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/drilldown.h"
#include "report/json-util.h"
#include "report/palette.h"
#include "report/topdown.h"

static const char *est(const struct diag *d)
{
	return d->estimate ? ", estimate (simulated)" : "";
}

static const struct drill_node *origin(const struct diag *d, const struct metric_node *n)
{
	size_t i = (size_t)(n - d->tree.v);

	return d->tree_drill && i < MODEL_MAX_NODES && d->tree_drill->nodes[i].origin.step ? &d->tree_drill->nodes[i]
											   : NULL;
}

/* Whether node n is shown: levels 1 and 2 always (as `topdown` prints them); deeper ones when they hold a
 * value (the simulation's level 3); on a drilled-down tree, level 1 and what a step measured. */
static bool shown(const struct diag *d, const struct metric_node *n)
{
	if (d->tree_drill)
		return n->level == 1 || origin(d, n);
	return n->level <= 2 || !isnan(n->value);
}

/* "(step 2, run 1, running 100 %)": the run that measured a node and how long its counters ran. */
static void print_origin(FILE *out, const struct drill_node *o)
{
	fprintf(out, "(step %d, run %d", o->origin.step, o->origin.run);
	if (o->origin.running_pct >= 0)
		fprintf(out, ", running %.0f %%", o->origin.running_pct);
	fputc(')', out);
}

/* The column where the values start: the widest indented label shown, at least 26 (levels 1-2). */
static int label_column(const struct diag *d)
{
	size_t col = 26;

	for (size_t i = 0; i < d->tree.nr; i++) {
		const struct metric_node *n = &d->tree.v[i];
		size_t w = 2 * (size_t)n->level + strlen(n->label ? n->label : n->key) + 1;

		if (shown(d, n) && w > col)
			col = w;
	}
	return col < 60 ? (int)col : 60;
}

static void print_node(FILE *out, const struct diag *d, const struct metric_node *n, const struct palette *pal,
		       size_t width, int col)
{
	const struct drill_node *o = origin(d, n);
	int pad = 2 * n->level;
	int lw = col - pad > 6 ? col - pad : 6;
	char first[160];

	if (isnan(n->value)) {
		const char *why = n->why[0] ? n->why : "not measurable";

		if (o && o->verdict.mismeasured) {
			/* its raw value is no fact: say what was read and why it cannot be right */
			char line[700];

			snprintf(line, sizeof(line), "%s%s (%.1f %% read: %s; %s)%s", pal_on(pal, PAL_HOT), "MISMEASURED",
				 o->raw, o->verdict.why, drill_cause_text(o->verdict.cause), pal_off(pal));
			snprintf(first, sizeof(first), "   %*s%-*s      -", pad - 2, "", lw, n->label);
			why_wrap(out, first, strlen(first) + 3, line, width);
		} else {
			snprintf(first, sizeof(first), "   %*s%-*s      -", pad - 2, "", lw, n->label);
			why_wrap(out, first, strlen(first) + 3, why, width);
		}
		if (o) {
			fprintf(out, "   %*s%*s", pad - 2, "", lw + 10, "");
			print_origin(out, o);
			fputc('\n', out);
		}
		return;
	}
	fprintf(out, "   %*s%s%-*s %6.1f %%", pad - 2, "", n->flagged ? pal_on(pal, PAL_HOT) : "", lw, n->label,
		n->value);
	if (n->flagged) {
		char thr[32];

		snprintf(thr, sizeof(thr), "  above %g %%", n->threshold);
		fprintf(out, "%s%s%*s", thr, pal_off(pal), o && strlen(thr) < 14 ? (int)(14 - strlen(thr)) : 0, "");
	} else if (o) {
		fprintf(out, "%14s", "");
	}
	if (o) {
		fputs("  ", out);
		print_origin(out, o);
	}
	fputc('\n', out);
}

/* n and, depth first, the children of n that are shown. */
static void print_subtree(FILE *out, const struct diag *d, const struct metric_node *n, const struct palette *pal,
			  size_t width, int col)
{
	print_node(out, d, n, pal, width, col);
	for (size_t j = 0; j < d->tree.nr; j++)
		if (d->tree.v[j].parent && !strcmp(d->tree.v[j].parent, n->key) && shown(d, &d->tree.v[j]))
			print_subtree(out, d, &d->tree.v[j], pal, width, col);
}

static void print_whole(FILE *out, const struct diag *d, size_t width)
{
	const struct metric_tree *w = &d->whole;
	const struct metric_node *rt = metric_tree_find(w, "retiring"), *bs = metric_tree_find(w, "bad_speculation");
	const struct metric_node *fe = metric_tree_find(w, "frontend_bound"), *be = metric_tree_find(w, "backend_bound");
	char line[256];

	if (!rt || !bs || !fe || !be)
		return;
	snprintf(line, sizeof(line), "(start-up and libraries included): Retiring %.1f, Bad Speculation %.1f, "
		 "Frontend %.1f, Backend %.1f %%", rt->value, bs->value, fe->value, be->value);
	why_wrap(out, "   whole run", 6, line, width);
}

static void print_verdict(FILE *out, const struct diag *d, const struct palette *pal, size_t width)
{
	char line[512];
	size_t o;

	if (!d->category) {
		fputs("\n   verdict: none (no level-1 node could be computed)\n", out);
		return;
	}
	o = (size_t)snprintf(line, sizeof(line), "%s, %.1f %% of slots%s", model_node_label(d->category),
			     d->category_value,
			     d->over_threshold ? " (above its threshold)" : " (nothing above its threshold: the largest stall)");
	if (d->node && o < sizeof(line)) {
		const struct metric_node *n = metric_tree_find(&d->tree, d->node);

		o += (size_t)snprintf(line + o, sizeof(line) - o, ", mostly %s", model_node_label(d->node));
		if (n && !isnan(n->value) && o < sizeof(line))
			snprintf(line + o, sizeof(line) - o, " (%.1f %%)", n->value);
	}
	fputc('\n', out);
	fputs(pal_on(pal, PAL_VERDICT), out);
	why_wrap(out, "   verdict:", 12, line, width);
	fputs(pal_off(pal), out);
	if (d->next_step)
		why_wrap(out, "   next:", 12, d->next_step, width);
}

void why_tree_text(FILE *out, const struct diag *d, const struct palette *pal, size_t width)
{
	const struct drill_info *di = d->tree_drill;

	fprintf(out, "\n2. top-down, %% of slots%s%s", est(d), d->scope == DIAG_SCOPE_PROGRAM ? ", the program's own code" : "");
	if (di)
		fprintf(out, ", drilled down in %zu step%s", di->nr_steps, di->nr_steps == 1 ? "" : "s");
	fputc('\n', out);
	for (size_t i = 0; i < d->tree.nr; i++)
		if (d->tree.v[i].level == 1)
			print_subtree(out, d, &d->tree.v[i], pal, width, label_column(d));
	if (d->has_whole)
		print_whole(out, d, width);
	if (di) {
		why_wrap(out, "   each step reran the workload", 5,
			 di->no_multiplex ? "(each counter group in a run of its own: --no-multiplex):" : "(its counter groups "
			 "in one run, multiplexed when they do not all fit):", width);
		for (size_t k = 0; k < di->nr_steps; k++) {
			char head[32], line[400];

			snprintf(head, sizeof(head), "     step %d:", di->steps[k].index);
			topdown_drill_step_line(&di->steps[k], line, sizeof(line));
			why_wrap(out, head, 14, line, width);
		}
		if (d->tree_drill_stopped[0])
			why_wrap(out, "     stopped:", 15, d->tree_drill_stopped, width);
	}
	print_verdict(out, d, pal, width);
}

void why_tree_json(json_t *doc, const struct diag *d, bool *failed)
{
	struct topdown_report r = { 0 };
	json_t *o;

	if (!d->has_tree) {
		jput(doc, "tree", json_null(), failed);
		jput(doc, "tree_drilldown", json_null(), failed);
		return;
	}
	r.trees[0] = &d->tree;
	r.nr_trees = 1;
	r.drill = d->tree_drill;
	jput(doc, "tree", topdown_tree_json(&r, &d->tree, failed), failed);
	if (!d->tree_drill) {
		jput(doc, "tree_drilldown", json_null(), failed);
		return;
	}
	if (!(o = json_object())) {
		*failed = true;
		return;
	}
	jput(o, "steps", json_integer((json_int_t)d->tree_drill->nr_steps), failed);
	jput(o, "no_multiplex", json_boolean(d->tree_drill->no_multiplex), failed);
	jput(o, "plan", topdown_drill_steps_json(d->tree_drill, failed), failed);
	jput(o, "stopped", jstr_or_null_empty(d->tree_drill_stopped), failed);
	jput(doc, "tree_drilldown", o, failed);
}
