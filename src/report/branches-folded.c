/*
 * branches-folded.c: `tdprof branches report --folded`: "FROM;TO N" lines for
 * flamegraph.pl (branches.h). perf's rows (symbol_edges) already merge the
 * addresses of one function; here the rows of one (source, target) pair, which
 * differ only in their mispredict flag, are merged into one line.
 */
#include "report/branches.h"
#include "base/alloc.h"
#include "base/strbuf.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/*
 * perf's text without its "[k] " / "[.] " level, with ';' (the frame separator)
 * replaced and control characters escaped (a newline would split the record).
 */
static void frame(struct strbuf *sb, const char *perf_text)
{
	const char *s = perf_text;
	size_t at = sb->len;

	if (s[0] == '[' && s[1] && s[2] == ']' && s[3] == ' ')
		s += 4;
	strbuf_add_name(sb, s);
	for (size_t i = at; !strbuf_failed(sb) && i < sb->len; i++)
		if (sb->buf[i] == ';')
			sb->buf[i] = ':';
}

static int pair_cmp(const void *pa, const void *pb)
{
	const struct branch_sym_edge *a = *(const struct branch_sym_edge *const *)pa;
	const struct branch_sym_edge *b = *(const struct branch_sym_edge *const *)pb;

	if (a->from->group != b->from->group)
		return a->from->group < b->from->group ? -1 : 1;
	return a->to->group < b->to->group ? -1 : a->to->group > b->to->group;
}

void report_branches_folded(struct strbuf *out, const struct branches_report *r)
{
	const struct branch_symbols *sy = r->syms;
	const struct branch_sym_edge **v;
	size_t n = 0;

	v = tdp_calloc(sy->nr_sym_edges + 1, sizeof(*v));
	if (!v) {
		out->failed = true;
		return;
	}
	for (size_t i = 0; i < sy->nr_sym_edges; i++)
		if (r->sort_executions || sy->sym_edges[i].flag == BRANCH_PRED_Y)
			v[n++] = &sy->sym_edges[i];
	if (n > 1)
		qsort(v, n, sizeof(*v), pair_cmp);
	for (size_t i = 0; i < n;) {
		uint64_t sum = 0;
		size_t j = i;

		for (; j < n && !pair_cmp(&v[i], &v[j]); j++)
			sum += v[j]->count;
		frame(out, v[i]->from->perf_text);
		strbuf_addch(out, ';');
		frame(out, v[i]->to->perf_text);
		strbuf_addf(out, " %" PRIu64 "\n", sum);
		i = j;
	}
	tdp_free(v);
}
