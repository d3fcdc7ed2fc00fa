/*
 * json-util.h: the small helpers every JSON renderer uses over jansson.
 *
 * A renderer builds its document with jput()/jappend() and one `bool failed`
 * that remembers any failure (jansson returns NULL when it cannot allocate);
 * it checks the flag once at the end instead of after every call.
 * Values are always taken ("_new" semantics): on failure, and when the container
 * itself is NULL, the value is released here.
 */
#ifndef TDPROF_REPORT_JSON_UTIL_H
#define TDPROF_REPORT_JSON_UTIL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct tdp_err;

/** Set o[key] = v (taken). Sets *failed when o or v is NULL or the set fails. */
void jput(json_t *o, const char *key, json_t *v, bool *failed);

/** Append v (taken) to a. Sets *failed when a or v is NULL or the append fails. */
void jappend(json_t *a, json_t *v, bool *failed);

/** A string, or null when s is NULL. */
json_t *jstr_or_null(const char *s);

/** A string, or null when s is NULL or empty. */
json_t *jstr_or_null_empty(const char *s);

/** A number, or null when v is NaN (a value that was not measured: never 0). */
json_t *jnum_or_null(double v);

/** A count (an integer; counts above 2^63 are clamped, never wrapped negative). */
json_t *jcount(uint64_t v);

/** An address as design.md spells it in JSON: the string "0x..." (lower-case hex). */
json_t *jaddr(uint64_t v);

/**
 * Finish a renderer: write doc to out (two-space indent, keys in insertion order,
 * reals with `precision` significant digits) and a newline, then release doc.
 * Returns 0, TDP_ENOMEM when `failed` is set or doc is NULL, or TDP_EIO when the
 * write fails (err says which).
 */
int jfinish(json_t *doc, bool failed, FILE *out, int precision, struct tdp_err *err);

struct strbuf;

/**
 * Append doc as json_dumps() writes it with `flags`, and a newline, to out (doc
 * is not released). Returns 0, or TDP_ENOMEM when doc is NULL or memory runs out.
 */
int jdumps(struct strbuf *out, const json_t *doc, size_t flags, struct tdp_err *err);

#endif
