/* diagnose-internal.h: helpers shared by the files of src/diagnose/ (not a contract for others). */
#ifndef TDPROF_DIAGNOSE_DIAGNOSE_INTERNAL_H
#define TDPROF_DIAGNOSE_DIAGNOSE_INTERNAL_H

#include "diagnose/diagnose.h"

struct strbuf;

/**
 * Append to sb the first bullet of the knowledge base's Fixes for `node` that
 * contains `keyword` (case-insensitive; NULL or not found: the first bullet), as
 * one plain sentence (Markdown backticks removed, a final ':' made a '.').
 * Returns false when the node has no fixes.
 */
bool diag_kb_fix(const char *node, const char *keyword, struct strbuf *sb);

/** The next step `tdprof why` gives for a category (static; "" for NULL). */
const char *diag_next_step(const char *category);

/**
 * Add a copy of finding f (its strings are borrowed and copied; NULL file and
 * function stay NULL). Returns 0 or TDP_ENOMEM; ignored past DIAG_MAX_FINDINGS.
 */
int diag_add_finding(struct diag *d, const struct diag_finding *f);

/** Sort the findings by share, largest first (NAN last), keeping the order of equals. */
void diag_sort_findings(struct diag *d);

/** The largest measurable level-2 child of `parent` in t, or NULL. */
const struct metric_node *diag_largest_child(const struct metric_tree *t, const char *parent);

/** Append v with thousands separators ("1,234,567"). */
void diag_add_grouped(struct strbuf *sb, uint64_t v);

/*
 * Below this many instructions a run is mostly start-up (the dynamic loader and
 * the C library's initialisation alone run a few hundred thousand): its figures
 * are said to be too short to act on.
 */
#define DIAG_SHORT_RUN_INSTRUCTIONS 10000000.0

/** Add the short-run note to d when its counts hold fewer instructions than that. */
void diag_note_short_run(struct diag *d);

/** Fill s's derived figures (branches, mispredicts, their rate, its share of d->totals' instructions). */
void diag_site_derive(const struct diag *d, struct diag_site *s);

/** part as a percentage of whole (0 when whole is 0). */
double diag_pct(uint64_t part, uint64_t whole);

/** Append "FILE:LINE in FUNC", with ??? for an unknown file or function and ? for line 0. */
void diag_add_where(struct strbuf *sb, const char *file, uint64_t line, const char *fn);

/**
 * The `tdprof loop` command for the hot function `function` (valgrind's or the
 * symbolizer's spelling) of source `abs` (normalised; shown as `shown`), with the
 * compiler flags of its unit, into d->loop_command, but only when it would run:
 * tdprof loop calls a function of no arguments by its plain name and builds with
 * $CC. A C++ function gets "CC=g++"; a function with arguments, a method, template
 * or namespaced function, or Rust code gets d->loop_note instead (what to write).
 * x may be NULL (no executable). Returns 0 or TDP_ENOMEM.
 */
int diag_suggest_loop(struct diag *d, struct symbol_exe *x, const char *abs, const char *shown, const char *function,
		      struct tdp_err *err) __attribute__((warn_unused_result));

/** Add a note (static text) to d, ignored past DIAG_MAX_NOTES. */
void diag_add_note(struct diag *d, const char *note);

#endif
