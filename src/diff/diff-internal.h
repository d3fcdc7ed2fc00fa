/* diff-internal.h: the parts of diff_compare() in other files of src/diff/ (include only there). */
#ifndef TDPROF_DIFF_DIFF_INTERNAL_H
#define TDPROF_DIFF_DIFF_INTERNAL_H

#include "diff/diff.h"

/** Pair r->a's and r->b's sites (match.c) into r->sites, ranked. Returns 0 or TDP_ENOMEM. */
int diff_match_sites(struct diff_result *r, struct tdp_err *err) __attribute__((warn_unused_result));

/** Pair the edges (match.c) into r->edges, ranked. Returns 0 or TDP_ENOMEM. */
int diff_match_edges(struct diff_result *r, struct tdp_err *err) __attribute__((warn_unused_result));

/** Write r->verdict.text (verdict.c). Returns 0 or TDP_ENOMEM. */
int diff_verdict_text(struct diff_result *r, struct tdp_err *err) __attribute__((warn_unused_result));

#endif
