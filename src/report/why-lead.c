/*
 * why-lead.c: the lead of `tdprof why` where the model has a Bottlenecks view
 * (Intel's): the costs, most first, each with the node it comes from, its located
 * code and its fix (diagnose.h: struct diag_bottleneck; see why.h).
 */
#include "report/why.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "base/strbuf.h"
#include "model/model.h"
#include "report/fit.h"
#include "report/json-util.h"

void why_wrap(FILE *out, const char *first, size_t indent, const char *text, size_t width)
{
	size_t col = strlen(first);
	bool start = true;

	fputs(first, out);
	if (col >= indent) {
		fputc(' ', out);
		col++;
	}
	for (; col < indent; col++)
		fputc(' ', out);
	while (*text) {
		size_t w = strcspn(text, " ");

		/* a unit ("%", "%)") stays with its number */
		if (!start && col + 1 + w > width && *text != '%') {
			fprintf(out, "\n%*s", (int)indent, "");
			col = indent;
			start = true;
		}
		if (!start) {
			fputc(' ', out);
			col++;
		}
		fwrite(text, 1, w, out);
		col += w;
		start = false;
		text += w;
		while (*text == ' ')
			text++;
	}
	fputc('\n', out);
}

/* Where the cost's code is: the drill-down's site, else the event that would locate it. */
static void where(const struct diag *d, const struct diag_bottleneck *b, struct strbuf *sb)
{
	if (b->site >= 0 && (size_t)b->site < d->nr_sites) {
		const struct diag_site *s = &d->sites[b->site];

		strbuf_add_name(sb, s->function ? s->function : "???");
		strbuf_adds(sb, " at ");
		strbuf_add_name(sb, s->file ? s->file : "???");
		strbuf_addf(sb, ":%llu (the top site of the drill-down, %.0f %% of what it ranked by)",
			    (unsigned long long)s->line, s->share);
	} else if (b->branches) {
		strbuf_adds(sb, "not located in this run: record its branches, 'tdprof branches record -o br.data -- CMD' "
			    "then 'tdprof branches report -i br.data'");
	} else if (b->locate_with[0]) {
		strbuf_addf(sb, "not located in this run: sample %s (the vendor's Locate-with for %s)", b->locate_with,
			    b->leaf_label ? b->leaf_label : b->leaf);
	} else {
		strbuf_adds(sb, "not located: the vendor names no event to locate it");
	}
}

bool why_lead_text(FILE *out, const struct diag *d, size_t width)
{
	char head[64], line[1024];
	size_t shown = 0;

	if (!d->nr_bottlenecks)
		return false;
	fputs("\nbottlenecks (the vendor's view: what each costs, most first, in % of slots; they overlap)\n", out);
	for (size_t i = 0; i < d->nr_bottlenecks; i++) {
		const struct diag_bottleneck *b = &d->bottlenecks[i];
		struct strbuf sb = STRBUF_INIT;

		/* every flagged cost, and at least the three largest */
		if (!b->flagged && shown >= 3)
			continue;
		shown++;
		snprintf(head, sizeof(head), "  %zu.", i + 1);
		snprintf(line, sizeof(line), "%s %.1f %%%s", b->name, b->value,
			 b->flagged ? ", above its threshold" : "");
		if (b->leaf)
			snprintf(line + strlen(line), sizeof(line) - strlen(line), "; mostly %s (%.1f %%)",
				 b->leaf_label ? b->leaf_label : b->leaf, b->leaf_value);
		why_wrap(out, head, 5, line, width);
		where(d, b, &sb);
		if (!strbuf_failed(&sb))
			why_wrap(out, "      where:", 13, sb.buf, width);
		if (b->fix)
			why_wrap(out, "      fix:", 13, b->fix, width);
		if (b->hint)
			why_wrap(out, "      hint:", 13, b->hint, width);
		if (b->node)
			fprintf(out, "      more:  tdprof explain %s\n", b->node);
		strbuf_release(&sb);
	}
	if (shown < d->nr_bottlenecks)
		fprintf(out, "  (%zu smaller costs below their thresholds: --json lists them)\n", d->nr_bottlenecks - shown);
	return true;
}

void why_lead_json(json_t *doc, const struct diag *d, bool *failed)
{
	json_t *a = json_array();

	if (!a) {
		*failed = true;
		return;
	}
	for (size_t i = 0; i < d->nr_bottlenecks; i++) {
		const struct diag_bottleneck *b = &d->bottlenecks[i];
		json_t *o = json_object(), *site = json_null();

		if (!o) {
			*failed = true;
			break;
		}
		if (b->site >= 0 && (size_t)b->site < d->nr_sites) {
			const struct diag_site *s = &d->sites[b->site];

			site = json_object();
			jput(site, "rank", json_integer(b->site + 1), failed);
			jput(site, "file", jstr_or_null(s->file), failed);
			jput(site, "line", s->line ? json_integer((json_int_t)s->line) : json_null(), failed);
			jput(site, "function", jstr_or_null(s->function), failed);
		}
		jput(o, "rank", json_integer((json_int_t)i + 1), failed);
		jput(o, "name", json_string(b->name), failed);
		jput(o, "value", jnum_or_null(b->value), failed);
		jput(o, "threshold", jnum_or_null(b->threshold), failed);
		jput(o, "flagged", json_boolean(b->flagged), failed);
		jput(o, "description", jstr_or_null(b->description), failed);
		jput(o, "leaf", jstr_or_null(b->leaf), failed);
		jput(o, "leaf_value", jnum_or_null(b->leaf_value), failed);
		jput(o, "node", jstr_or_null(b->node), failed);
		jput(o, "fix", jstr_or_null(b->fix), failed);
		jput(o, "hint", jstr_or_null(b->hint), failed);
		jput(o, "site", site, failed);
		jput(o, "locate_with", b->locate_with[0] ? json_string(b->locate_with) : json_null(), failed);
		jput(o, "located_by", json_string(b->site >= 0 ? "drilldown" : b->branches ? "branch_records" : "locate_with"),
		     failed);
		jappend(a, o, failed);
	}
	jput(doc, "bottlenecks", a, failed);
}
