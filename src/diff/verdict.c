/* verdict.c: the one paragraph that says what changed (see diff.h). */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "diff/diff-internal.h"

static const char *scope_words(const char *scope)
{
	return !strcmp(scope, "program")     ? "the program's own code"
	       : !strcmp(scope, "whole_run") ? "the whole run, start-up and libraries included"
					     : scope;
}

/* A count of cycles for people: "17.8 M", "950 k", "420". */
static void add_cycles(struct strbuf *sb, double c)
{
	if (fabs(c) >= 1e9)
		strbuf_addf(sb, "%.1f G", c / 1e9);
	else if (fabs(c) >= 1e6)
		strbuf_addf(sb, "%.1f M", c / 1e6);
	else if (fabs(c) >= 1e4)
		strbuf_addf(sb, "%.0f k", c / 1e3);
	else
		strbuf_addf(sb, "%.0f", c);
}

static void nodes_part(const struct diff_result *r, struct strbuf *sb)
{
	const struct diff_verdict *v = &r->verdict;
	const struct diff_node *n = v->node;

	if (v->scopes_differ)
		strbuf_addf(sb, "The scopes differ (A: %s, B: %s): the shares are of different code, compare the "
			    "cycles. ", scope_words(r->a->scope), scope_words(r->b->scope));
	if (n) {
		strbuf_addf(sb, "%s %s %.1f points", n->label, n->delta > 0 ? "rose" : "fell", fabs(n->delta));
		if (!isnan(n->half))
			strbuf_addf(sb, " (\u00b1%.1f)", n->half);
		else
			strbuf_addf(sb, " (single runs: beyond the %.1f-point noise floor)", r->opts.noise_floor);
		if (v->by_cycles) {
			strbuf_adds(sb, ", from ");
			add_cycles(sb, n->cycles_a);
			strbuf_adds(sb, " to ");
			add_cycles(sb, n->cycles_b);
			strbuf_adds(sb, " cycles, the largest change in cycles (the run: ");
			add_cycles(sb, r->a->cycles);
			strbuf_adds(sb, " to ");
			add_cycles(sb, r->b->cycles);
			strbuf_adds(sb, ")");
		}
		if (v->child)
			strbuf_addf(sb, ": %s %+.1f", v->child->key, v->child->delta);
		return;
	}
	if (v->largest) {
		strbuf_addf(sb, "No level-1 node moved beyond the noise: the largest change is %s, %+.1f points",
			    v->largest->label, v->largest->delta);
		if (v->largest->rule == DIFF_RULE_INTERVALS)
			strbuf_adds(sb, " (the 95 % intervals of A and B overlap)");
		else
			strbuf_addf(sb, " (within the %.1f-point noise floor)", r->opts.noise_floor);
		return;
	}
	if (!isnan(v->summary_a) && !isnan(v->summary_b)) {
		strbuf_addf(sb, "Mispredicted branch entries %s from %.0f to %.0f",
			    v->summary_b >= v->summary_a ? "rose" : "fell", v->summary_a, v->summary_b);
		if (v->summary_a > 0) {
			strbuf_adds(sb, " (");
			diff_change_words(v->summary_a, v->summary_b, sb);
			strbuf_adds(sb, ")");
		}
		return;
	}
	if (r->kind != TDOC_BRANCHES)
		strbuf_adds(sb, "No node of the tree was measured in both documents");
}

static void site_part(const struct diff_result *r, struct strbuf *sb)
{
	const struct diff_site *t = r->verdict.top;
	const char *measure = r->measure ? r->measure : "";
	size_t start;

	if (!t)
		return;
	strbuf_adds(sb, sb->len ? "; " : "");
	start = sb->len;
	strbuf_adds(sb, r->verdict.top_is_new ? "the new top site is " : "the top site is still ");
	if (start == 0 && sb->len)
		sb->buf[0] = 'T';
	diff_site_name(t->b, sb);
	if (!t->a) {
		strbuf_addf(sb, ", new in B (%.0f %s)", t->vb, measure);
	} else if (t->va > 0) {
		strbuf_adds(sb, ", ");
		diff_change_words(t->va, t->vb, sb);
		strbuf_addf(sb, " %s (%.0f to %.0f)", measure, t->va, t->vb);
	} else if (t->vb > 0) {
		strbuf_addf(sb, ", %.0f %s (none in A)", t->vb, measure);
	}
}

int diff_verdict_text(struct diff_result *r, struct tdp_err *err)
{
	struct strbuf sb = STRBUF_INIT;

	nodes_part(r, &sb);
	site_part(r, &sb);
	if (!sb.len)
		strbuf_adds(&sb, "Nothing to compare: neither document has a tree or sites");
	strbuf_addch(&sb, '.');
	r->verdict.text = strbuf_failed(&sb) ? NULL : strbuf_detach(&sb);
	strbuf_release(&sb);
	return r->verdict.text ? 0 : tdp_err_oom(err);
}
