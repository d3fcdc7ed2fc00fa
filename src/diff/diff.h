/*
 * diff.h: `tdprof diff A.json B.json`: what changed between two documents of the
 * same kind (topdown, why, branches report), whether it is beyond the noise, and
 * where: the analysis behind the diff renderers (report/diff.h, report/html.h).
 * It works on documents only (diff/doc.h) and never measures. docs/diff.md is
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
 * diff_compare(a, b, &opts, &res, &err), read res, diff_result_release(&res).
 * a and b are borrowed and must outlive res.
 */
#ifndef TDPROF_DIFF_DIFF_H
#define TDPROF_DIFF_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "doc/doc.h"

struct strbuf;
struct tdp_err;

#define DIFF_NOISE_FLOOR_DEFAULT 2.0 /* points of slots a single-run change must exceed */
#define DIFF_NOISE_FLOOR_MAX 100.0
#define DIFF_TOP_DEFAULT 10          /* sites and edges the renderers show */

struct diff_opts {
	double noise_floor;  /* points; single-run changes at or below it are noise */
	size_t top;          /* sites and edges to show (all are compared) */
};

#define DIFF_OPTS_INIT { DIFF_NOISE_FLOOR_DEFAULT, DIFF_TOP_DEFAULT }

enum diff_rule {
	DIFF_RULE_NOISE_FLOOR = 0, /* single runs: |change| > noise floor */
	DIFF_RULE_INTERVALS,       /* runs on both sides: the 95 % intervals do not overlap */
};

/** "noise_floor" or "intervals" (JSON). */
const char *diff_rule_name(enum diff_rule r);

struct diff_node {
	const char *key, *parent, *label;
	int level;
	const struct tdoc_node *a, *b; /* NULL when that document lacks the node */
	double delta;                  /* b - a in points; NAN when either is not measured */
	double half;                   /* half-width of the change's 95 % interval; NAN with single runs */
	enum diff_rule rule;           /* how `flagged` was decided for this node */
	bool flagged;                  /* moved beyond the noise */
	double cycles_a, cycles_b;     /* the node's cycles (its share of each document's cycles);
					* NAN when a document gives no cycles */
	double cycles_delta;           /* cycles_b - cycles_a; NAN when either is unknown */
};

enum diff_match {
	DIFF_MATCH_LOCATION = 0, /* file and line (and function) */
	DIFF_MATCH_OFFSET,       /* function and offset within it */
	DIFF_MATCH_ADDRESS,      /* the same address (unresolved code) */
	DIFF_ONLY_A,             /* gone in B */
	DIFF_ONLY_B,             /* new in B */
};

/** "location", "function+offset", "address", "only_a", "only_b" (JSON). */
const char *diff_match_name(enum diff_match m);

struct diff_site {
	const struct tdoc_site *a, *b; /* the pair; one is NULL when unmatched */
	enum diff_match how;
	double va, vb;                 /* the measure in A and B (0 on the side that lacks the site) */
	double delta;                  /* vb - va */
	double pct;                    /* 100 * delta / va; NAN when va is 0 */
};

struct diff_edge {
	const struct tdoc_edge *a, *b;
	enum diff_match how;
	double va, vb, delta, pct;     /* mispredicts (count when no edge has mispredicts) */
};

struct diff_verdict {
	const struct diff_node *node;  /* the level-1 node that moved most beyond the noise; NULL: none */
	const struct diff_node *child; /* its level-2 child that moved most the same way; NULL */
	const struct diff_node *largest; /* the level-1 node with the largest change, flagged or not */
	const struct diff_site *top;   /* B's site with the most of the measure (its pair); NULL: no sites */
	bool top_is_new;               /* A's site with the most of it was another one */
	double summary_a, summary_b;   /* branches: mispredicted entries in A and B; NAN otherwise */
	bool by_cycles;                /* node was chosen by its change in cycles */
	bool scopes_differ;            /* A's and B's scope differ (both why documents that say) */
	char *text;                    /* heap: the paragraph */
};

struct diff_result {
	const struct tdoc *a, *b;      /* borrowed */
	struct diff_opts opts;
	enum tdoc_kind kind;
	enum diff_rule rule;           /* intervals when both documents have runs */
	struct diff_node nodes[2 * TDOC_MAX_NODES];
	size_t nr_nodes;               /* A's tree order, then nodes only B has */
	size_t rank[2 * TDOC_MAX_NODES]; /* indices into nodes with a change, largest |change| first */
	size_t nr_rank;
	const char *measure;           /* what sites are compared on ("mispredicts"); NULL: no sites */
	struct diff_site *sites;       /* heap: every site of A and B, paired, largest |change| first */
	size_t nr_sites;
	size_t nr_sites_nonzero;       /* the first ones, whose measure is not 0 on both sides (the
	                                  others sort last: renderers leave them out) */
	size_t sites_matched, sites_only_a, sites_only_b;
	struct diff_edge *edges;       /* heap: as sites */
	size_t nr_edges;
	size_t nr_edges_nonzero;
	size_t edges_matched;
	const char *edge_measure;      /* what edges are compared on: "mispredicts" when both documents
	                                  recorded them, else "count"; NULL: no edges */
	struct diff_verdict verdict;
};

#define DIFF_RESULT_INIT { 0 }

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

/**
 * Append a site's name for people: "parse.c:212 in parse_token" (the file's base
 * name), else "parse_token+0x1a", "parse_token", "0x401136" or "site N".
 */
void diff_site_name(const struct tdoc_site *s, struct strbuf *sb);

/**
 * Append the relative change of a count from va to vb for people: "+41 %";
 * "new" when va is 0 (a percentage of 0 means nothing: "+16399669 %" is a
 * rounding of nothing); "gone" when vb is 0; nothing when both are 0 or either
 * is NAN.
 */
void diff_change_words(double va, double vb, struct strbuf *sb);

/**
 * The nodes of r in tree order (each under its parent, any depth: base/treeorder.h)
 * into order[0..r->nr_nodes), with each one's depth (0: level 1) in depth (may be
 * NULL). Returns r->nr_nodes.
 */
size_t diff_node_order(const struct diff_result *r, size_t *order, int *depth);

/** Free what diff_compare() allocated; out is left as after DIFF_RESULT_INIT. */
void diff_result_release(struct diff_result *r);

#endif
