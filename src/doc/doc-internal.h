/*
 * doc-internal.h: the parts of tdoc_parse() in the files of src/doc/ (include
 * only there): the parse in progress, the typed readers of JSON members
 * (doc-json.c) and the readers of sites, edges and findings (doc-sites.c).
 *
 * Every reader records the first error in the parse (c->ret, with its message in
 * c->err) and does nothing more once one is recorded, so a caller checks c->ret
 * after a series of reads.
 */
#ifndef TDPROF_DOC_DOC_INTERNAL_H
#define TDPROF_DOC_DOC_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "doc/doc.h"

struct strbuf;
struct tdp_err;

/* The parse in progress: the document, its name, the first error. */
struct pctx {
	struct tdoc *d;
	struct tdp_err *err;
	int ret;
};

/** Record "'FILE': WHERE: 'KEY' is not WANT" (TDP_EFORMAT); returns c->ret. */
int doc_fail_type(struct pctx *c, const char *where, const char *key, const char *want);

/** Record an allocation failure; returns c->ret. */
int doc_oom(struct pctx *c);

/** A string member of o (borrowed from the document); NULL when absent, null or of another type (an error). */
const char *doc_str(struct pctx *c, const json_t *o, const char *key, const char *where);

/** A number member of o; NAN when absent, null or of another type (an error). */
double doc_num(struct pctx *c, const json_t *o, const char *key, const char *where);

/** True when member key of o is true. */
bool doc_bool(const json_t *o, const char *key);

/** An address member: a number, or a string "0x..." or decimal. False when absent (or bad: an error). */
bool doc_u64(struct pctx *c, const json_t *o, const char *key, const char *where, uint64_t *out);

/** sb's string (heap, the caller's) and sb released; NULL on failure (an error). */
char *doc_own(struct pctx *c, struct strbuf *sb);

/** A member's value in words (heap, the caller's): strings as they are, objects "key: value, ...". */
char *doc_text(struct pctx *c, const json_t *v);

/* doc-trim.c */

/* Documents smaller than this are parsed whole (trimming them would save little). */
#define TDOC_TRIM_MIN_BYTES (8u << 20)
/* Rows kept of each ranked table of a larger document: a summary of its worst rows. */
#define TDOC_TRIM_ROWS 16384
/* doc_trim()'s *cut: which tables lost rows. */
#define TDOC_TRIM_SITES 1u
#define TDOC_TRIM_EDGES 2u

/**
 * A document of at least TDOC_TRIM_MIN_BYTES cut to what the diff reads: its
 * top-level "sites" and "edges" arrays to their first TDOC_TRIM_ROWS rows
 * (*cut says which had more), "symbol_edges" and "blocks" to none, the rest as
 * it is, into out (initialised by the caller with a cap of at least len + 1).
 * Returns 1 (out holds the text), 0 (parse buf itself: small, or not shaped as
 * expected, so that jansson says where it is wrong; out released, *cut 0) or
 * TDP_ENOMEM.
 */
int doc_trim(const uint8_t *buf, size_t len, struct strbuf *out, unsigned *cut);

/* doc-functions.c */
void doc_read_functions(struct pctx *c, const json_t *root);

/* doc-sites.c */
void doc_read_sites(struct pctx *c, const json_t *root);
void doc_read_side_disasm(struct pctx *c, const json_t *root);
void doc_read_edges(struct pctx *c, const json_t *root);
void doc_fill_edge_offsets(struct pctx *c);
void doc_read_findings(struct pctx *c, const json_t *root);

/* doc-metrics.c */
void doc_read_metrics(struct pctx *c, const json_t *root);
void doc_read_line_branches(struct pctx *c, const json_t *root);

#endif
