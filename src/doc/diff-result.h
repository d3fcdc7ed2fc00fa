/*
 * diff-result.h: the diff document: what `tdprof diff` found between two
 * documents of one kind (the nodes side by side, the sites and edges paired, the
 * verdict), as diff/ computes it (diff_compare(), diff/diff.h, where the rules
 * are) and report/ draws it (report/diff.h: text, JSON; report/html.h: the page).
 * It lives in the document layer so that the renderers need not include the
 * analysis: report/ and diff/ sit on one layer and include neither the other.
 *
 * The names keep the diff_ prefix of the command they belong to (docs/hacking.md,
 * the prefix table). Everything here is borrowed from the two documents (struct
 * tdoc, doc.h) but for the heap arrays diff_result_release() frees.
 */
#ifndef TDPROF_DOC_DIFF_RESULT_H
#define TDPROF_DOC_DIFF_RESULT_H

#include <stdbool.h>
#include <stddef.h>

#include "doc/doc.h"

struct strbuf;

/* How the comparison was made (diff/diff.h: DIFF_OPTS_INIT, the defaults). */
struct diff_opts {
	double noise_floor;  /* points; single-run changes at or below it are noise */
	size_t top;          /* sites and edges to show (all are compared) */
};


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
 * Append a site's name for people: "parse.c:212 in parse_token" (the file's base
 * name), else "parse_token+0x1a", "parse_token", "0x401136" or "site N".
 */
void diff_site_name(const struct tdoc_site *s, struct strbuf *sb);

/** Free what diff_compare() allocated; out is left as after DIFF_RESULT_INIT. */
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

void diff_result_release(struct diff_result *r);

#endif
