/*
 * fit.h: text that fits its column. A name too long for its column ends in "..."
 * (never cut silently); a path keeps its end (the file name and line matter most)
 * and Rust's toolchain paths, /rustc/<40-hex commit>/library/..., lose the commit.
 * Widths follow the terminal: the caller (cli/columns.h) gives the columns.
 */
#ifndef TDPROF_REPORT_FIT_H
#define TDPROF_REPORT_FIT_H

#include <stddef.h>

#define FIT_DEFAULT_COLUMNS 80 /* not a terminal, nor COLUMNS */
#define FIT_MIN_COLUMNS 60
#define FIT_MAX_COLUMNS 400

/** columns clamped to [FIT_MIN_COLUMNS, FIT_MAX_COLUMNS]; 0 is FIT_DEFAULT_COLUMNS. */
size_t fit_columns(unsigned columns);

/**
 * s in at most w columns into buf (size bytes, size > w): s itself when it fits,
 * else its first w - 3 characters and "..." (UTF-8 sequences are not split).
 * Returns buf.
 */
char *fit_name(const char *s, size_t w, char *buf, size_t size);

/**
 * A source path in at most w columns into buf: "/rustc/<hash>/" becomes
 * "/rustc/.../"; then, when still too long, ".../" and the last components that
 * fit, else the file name alone, else "..." and its last w - 3 characters.
 * Returns buf.
 */
char *fit_path(const char *s, size_t w, char *buf, size_t size);

#endif
