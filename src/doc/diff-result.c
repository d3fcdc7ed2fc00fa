/* diff-result.c: the names and the release of the diff document (see diff-result.h). */
#include "doc/diff-result.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "base/treeorder.h"

const char *diff_rule_name(enum diff_rule r)
{
	return r == DIFF_RULE_INTERVALS ? "intervals" : "noise_floor";
}

const char *diff_match_name(enum diff_match m)
{
	static const char *const names[] = { "location", "function+offset", "address", "only_a", "only_b" };

	return (size_t)m < sizeof(names) / sizeof(names[0]) ? names[m] : "unknown";
}

void diff_site_name(const struct tdoc_site *s, struct strbuf *sb)
{
	const char *file = s->file ? strrchr(s->file, '/') : NULL;

	file = file ? file + 1 : s->file;
	if (file && s->line) {
		strbuf_addf(sb, "%s:%" PRIu64, file, s->line);
		if (s->function)
			strbuf_addf(sb, " in %s", s->function);
	} else if (s->function && s->has_offset) {
		strbuf_addf(sb, "%s+0x%" PRIx64, s->function, s->offset);
	} else if (s->function) {
		strbuf_adds(sb, s->function);
	} else if (s->has_address) {
		strbuf_addf(sb, "0x%" PRIx64, s->address);
	} else {
		strbuf_addf(sb, "site %zu", s->rank);
	}
}

void diff_change_words(double va, double vb, struct strbuf *sb)
{
	if (isnan(va) || isnan(vb) || (va == 0 && vb == 0))
		return;
	if (va == 0)
		strbuf_adds(sb, "new");
	else if (vb == 0)
		strbuf_adds(sb, "gone");
	else
		strbuf_addf(sb, "%+.0f %%", 100.0 * (vb - va) / va);
}

size_t diff_node_order(const struct diff_result *r, size_t *order, int *depth)
{
	const char *keys[2 * TDOC_MAX_NODES], *parents[2 * TDOC_MAX_NODES];

	for (size_t i = 0; i < r->nr_nodes; i++) {
		keys[i] = r->nodes[i].key;
		parents[i] = r->nodes[i].parent;
	}
	return tree_order(keys, parents, r->nr_nodes, order, depth);
}

void diff_result_release(struct diff_result *r)
{
	tdp_free(r->sites);
	tdp_free(r->edges);
	tdp_free(r->verdict.text);
	memset(r, 0, sizeof(*r));
}
