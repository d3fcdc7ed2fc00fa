/*
 * diff.h: `tdprof diff A.json B.json`: what changed between two documents of the
 * same kind (topdown, why, branches report), whether it is beyond the noise, and
 * where: the analysis behind the diff renderers (report/diff.h, report/html.h).
 * It works on documents only (doc/doc.h) and never measures; its result, the
 * diff document that the renderers draw, is doc/diff-result.h (below report/,
 * which does not include diff/). docs/diff.md is
 * the user's account of the rules below.
 *
 * Nodes. Every level-1 and level-2 node of either tree, side by side: A's value,
 * B's, the change in points (B - A). A change is flagged (moved beyond the noise)
 *   - when both documents carry runs (-r N, N >= 2): when the 95 % intervals of A
 *     and B do not overlap (model/stats.h); the change's own interval (Welch) is
 *     given as +- half;
 *   - otherwise (a single run on either side): when |B - A| exceeds the noise
 *     floor (DIFF_NOISE_FLOOR_DEFAULT points, --noise-floor).
 * The nodes that moved most are ranked by |B - A|.
 *
 * Sites (why, branches report) and edges (branches report). Two builds of one
 * program put the same code at other addresses, so sites are matched in passes,
 * each over the sites the earlier passes left unmatched:
 *   1. location: the same source file (its base name) and line, in the same function;
 *   2. function and offset within the function ("parse_token+0x1a");
 *   3. address, only between sites neither of which names a function or a file
 *      (unresolved code: two runs of one binary).
 * Within a pass equal keys pair up in rank order. A site left unmatched is
 * "only in A" (gone) or "only in B" (new). Edges are matched by their two ends,
 * each end by function and offset (an edge that names only the function, as
 * perf's symbol column does, takes the offset from where the sites say the
 * function starts), else by the function alone, else, for unresolved code, by
 * address. Each pair is compared on one
 * measure (mispredicts for branch reports and Bad Speculation; the bucket's own
 * count for why's other categories: see diff_site_measure()), and ranked by the
 * change in that measure, largest gain or loss first.
 *
 * Verdict. One paragraph: the level-1 node that moved most beyond the noise, its
 * level-2 child that moved most the same way, and the top site (B's site with the
 * most of the measure; "new" when A's was another) with its change:
 *   "Bad Speculation rose 9.1 points (±0.8): branch_mispredicts +9.0; the new top
 *    site is parse.c:212 in parse_token, +41 % mispredicts (1000 to 1410)".
 * "Moved most" is in cycles when both documents give their cycles (why): a fix
 * that removes most mispredicts shrinks the run, and every other bucket's share
 * rises though its cycles did not; the shares alone would lead with a false
 * regression. Without cycles (topdown), in points, a stall that rose first.
 * When the documents' scopes differ (why: the program's own code in one, the whole
 * run in the other), the paragraph starts by saying so: the shares are of
 * different code. A change from 0 is "new", never a percentage.
 *
 * Lifecycle: diff_check(a, b) (refuses documents that cannot be compared), then
 * diff_compare(a, b, &opts, &res, &err), read res, diff_result_release(&res)
 * (doc/diff-result.h).
 * a and b are borrowed and must outlive res.
 */
#ifndef TDPROF_DIFF_DIFF_H
#define TDPROF_DIFF_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "doc/diff-result.h"
#include "doc/doc.h"

struct strbuf;
struct tdp_err;

#define DIFF_NOISE_FLOOR_DEFAULT 2.0 /* points of slots a single-run change must exceed */
#define DIFF_NOISE_FLOOR_MAX 100.0
#define DIFF_TOP_DEFAULT 10          /* sites and edges the renderers show */

#define DIFF_OPTS_INIT { DIFF_NOISE_FLOOR_DEFAULT, DIFF_TOP_DEFAULT }


/**
 * Refuse documents that cannot be compared: of different kinds, models (cpu, or
 * model kind) or backends. Returns 0, or TDP_EUSAGE with a message naming what
 * differs and both values (and a hint).
 */
int diff_check(const struct tdoc *a, const struct tdoc *b, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * The measure sites of d are compared on for a change led by node_key (may be
 * NULL): "mispredicts" for branch reports and Bad Speculation; for why's other
 * categories the first count its sites have among those the category uses
 * (backend: ll_misses, l1d_misses; frontend: l1i_misses; retiring: instructions),
 * then "cycles", then the sites' first count. NULL when d has no sites.
 */
const char *diff_site_measure(const struct tdoc *a, const struct tdoc *b, const char *node_key);

/**
 * Compare a with b (both borrowed, checked with diff_check()) into *out
 * (overwritten). Returns 0 or TDP_ENOMEM (out is then released).
 */
int diff_compare(const struct tdoc *a, const struct tdoc *b, const struct diff_opts *o, struct diff_result *out,
		 struct tdp_err *err) __attribute__((warn_unused_result));


#endif
