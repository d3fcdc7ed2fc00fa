/*
 * str.h: small string helpers shared by the parsers and the command line:
 * strict number parsing, name matching, "did you mean" suggestions and the one
 * digit grouping ("1,234,567") of every text output.
 */
#ifndef TDPROF_BASE_STR_H
#define TDPROF_BASE_STR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * Parse all of s as an unsigned 64-bit number (decimal, or hex with 0x).
 * Returns true and writes *out on success; false for empty, trailing garbage,
 * a sign or overflow.
 */
bool str_to_u64(const char *s, uint64_t *out);

/** As str_to_u64() but for a signed long within [min, max]. */
bool str_to_long(const char *s, long min, long max, long *out);

/** Parse all of s as a finite double. */
bool str_to_double(const char *s, double *out);

/** As str_to_u64() on the first len bytes of s (s need not be NUL-terminated). */
bool str_to_u64_n(const char *s, size_t len, uint64_t *out);

/** The value of hexadecimal digit c (0-9, a-f, A-F), or -1. */
int str_hexval(char c);

/** True when s starts with prefix. */
bool str_starts_with(const char *s, const char *prefix);

/** True when s ends with suffix. */
bool str_ends_with(const char *s, const char *suffix);

/**
 * Compare two event names the way perf's users expect them to match:
 * case-insensitively, with '.', ':' and '_' counted as the same character.
 * Returns true when they match.
 */
bool str_event_name_eq(const char *a, const char *b);

/**
 * Damerau-Levenshtein distance (with adjacent transpositions) between a and b,
 * case-insensitively; strings longer than 256 bytes count as far from anything.
 */
size_t str_edit_distance(const char *a, const char *b);

/**
 * Pick up to `max_out` names from `names[0..nr)` closest to `wanted` (by edit
 * distance, ties in table order) that are plausibly what the user meant (distance
 * at most a third of the length, or `wanted` is a prefix/substring). Writes the
 * chosen indices to out and returns how many.
 */
size_t str_suggest(const char *wanted, const char *const *names, size_t nr, size_t *out, size_t max_out);

/** Longest output of str_grouped_u64() with its NUL: 20 digits, 6 commas. */
#define STR_GROUPED_U64_MAX 27

/**
 * Copy the formatted number `num` ("-1234567.25", "inf") to buf with a ',' between
 * each group of three digits of its integer part ("-1,234,567.25"); anything after
 * the digits is copied as is. Cut to size - 1 bytes and NUL-terminated (size > 0).
 * Returns buf.
 */
char *str_group_digits(const char *num, char *buf, size_t size);

/** "1,234,567": v in decimal, grouped (str_group_digits). Returns buf. */
char *str_grouped_u64(uint64_t v, char *buf, size_t size);

/** v printed with `decimals` decimals ("%.*f"), grouped (str_group_digits). Returns buf. */
char *str_grouped_double(double v, int decimals, char *buf, size_t size);

/** Remove leading and trailing whitespace in place; returns s. */
char *str_trim(char *s);

#endif
