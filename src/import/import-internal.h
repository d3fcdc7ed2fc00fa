/*
 * import-internal.h: what the three readers of perf stat output (CSV, JSON, text)
 * share. Included only by the .c files of src/import.
 *
 * A reader walks the lines of the input and appends one imp_row per count row it
 * finds (and one imp_pmetric per metric annotation), exactly as printed: no
 * summing, no unit conversion, no grouping. import.c then combines the rows of
 * intervals and CPUs, converts units, rebuilds the groups and fills the result.
 */
#ifndef TDPROF_IMPORT_IMPORT_INTERNAL_H
#define TDPROF_IMPORT_IMPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/countset.h"
#include "import/import.h"

struct tdp_err;

/* One count row as printed. */
struct imp_row {
	char *event;              /* never NULL */
	char *unit;               /* never NULL ("" when none) */
	char *slice;              /* interval + aggregation id + cgroup; "" for a plain run */
	enum count_status status;
	double value;             /* as printed (msec stays msec here) */
	double pct;               /* running percentage; <0 when not printed */
	uint64_t runtime;         /* run time in ns when has_runtime */
	bool has_runtime;
	double stddev;            /* -r variance in percent; <0 when not printed */
	double interval;          /* -I timestamp in seconds; <0 when none */
	size_t line;              /* 1-based line number, for messages */
	unsigned run;             /* perf stat --append: the run it belongs to (0, 1, ...) */
};

/* One metric annotation as printed, tied to the row it follows. */
struct imp_pmetric {
	size_t row;    /* index in rows */
	double value;
	char *name;
	char *unit;
};

struct imp_parser {
	const char *name;             /* the file, for messages */
	struct tdp_err *err;
	struct import_result *r;      /* notes, runs, elapsed time, user/sys go here */
	const uint8_t *buf;
	size_t len;
	size_t off;                   /* next byte to read */
	size_t lineno;                /* number of the line last returned (1-based) */
	char *line;                   /* IMPORT_MAX_LINE + 1 bytes: the current line */
	unsigned run;                 /* runs appended before the current line (perf stat --append) */
	struct imp_row *rows;
	size_t nr_rows;
	size_t alloc_rows;
	struct imp_pmetric *metrics;
	size_t nr_metrics;
	size_t alloc_metrics;
};

/*
 * The next line, without its '\n' (and '\r'), NUL-terminated in p->line.
 * Returns 1 and sets *out; 0 at the end of the input; TDP_ELIMIT when a line is
 * longer than IMPORT_MAX_LINE, TDP_EFORMAT when it holds a NUL byte.
 */
int imp_next_line(struct imp_parser *p, char **out) __attribute__((warn_unused_result));

/*
 * Record a parse error on the current line: "'<file>': line <n>: <message>".
 * Returns code.
 */
int imp_fail(struct imp_parser *p, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * Append a row: copies event, unit and slice (none may be NULL), checks the
 * names (non-empty event, at most IMPORT_MAX_NAME bytes, no control characters)
 * and the row limit. Returns 0, TDP_EFORMAT, TDP_ELIMIT or TDP_ENOMEM.
 */
int imp_add_row(struct imp_parser *p, const struct imp_row *row) __attribute__((warn_unused_result));

/*
 * Append the metric perf printed after the last row: value, and the text that
 * followed it ("%  bad_speculation_mispredicts", "CPUs utilized", "GHz").
 * pct_glued: the number was printed as "2.51%". Empty text without a glued '%' is
 * no metric (returns 0). Without a row yet, the metric is dropped (returns 0).
 * Returns 0, TDP_ELIMIT or TDP_ENOMEM.
 */
/*
 * A comment line of perf stat (CSV, JSON): "# started on DATE" after rows starts
 * the next of several runs appended to one file (perf stat --append).
 */
void imp_comment(struct imp_parser *p, const char *line);

int imp_add_metric(struct imp_parser *p, double value, const char *text, bool pct_glued)
	__attribute__((warn_unused_result));

/* Add a note to the result (printf-style). Returns 0 or TDP_ENOMEM. */
int imp_note(struct import_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)))
	__attribute__((warn_unused_result));

/*
 * Numbers as perf prints them. Each parses all of s (NUL-terminated) and returns
 * false on anything else.
 *   imp_parse_count:   a non-negative count, with optional ',' thousands
 *                      separators in groups of three ("31,487,420,857",
 *                      "5,751.87", "0.53"), at most 64 bytes.
 *   imp_parse_decimal: a plain decimal number, optionally signed (allow_sign) and
 *                      with an exponent ("0.578", "-0.1", "1e+06"), finite.
 *   imp_parse_pct:     a percentage within 0..100 (a hair above 100 is clamped),
 *                      with or without a trailing '%'.
 *   imp_parse_u64:     decimal digits only.
 */
bool imp_parse_count(const char *s, double *out);
bool imp_parse_decimal(const char *s, bool allow_sign, double *out);
bool imp_parse_pct(const char *s, double *out);
bool imp_parse_u64(const char *s, uint64_t *out);

/*
 * The same under another locale. dec is the decimal mark, '.' or ','.
 *   imp_parse_count_in: thousands grouped by the other of ',' and '.', or by ' ',
 *                       U+00A0, U+202F, U+2009 or '\'' (one kind per number, groups
 *                       of three after the first): "21.958.894" (dec ','),
 *                       "21 958 894", "5 751,87" (dec ','), "1,234.5" (dec '.').
 *                       imp_parse_count(s) is imp_parse_count_in(s, '.').
 *   imp_parse_decimal_in, imp_parse_pct_in: a plain number whose decimal mark is
 *                       dec ("0,578", "100,00"); no thousands.
 */
bool imp_parse_count_in(const char *s, char dec, double *out);
bool imp_parse_decimal_in(const char *s, char dec, bool allow_sign, double *out);
bool imp_parse_pct_in(const char *s, char dec, double *out);

/*
 * True for a shell prompt line pasted with perf's output: its first word is '$',
 * '%' or '>' alone, or ends in one of them or '#' and looks like user@host:dir
 * (holds '@'; for '$', '%', '>' also a word starting with '~' or '/'), and holds
 * no ',', ';', '=' or '(': "$ perf stat ...", "user@host:~/src$ perf stat -x, ...",
 * "root@host:~# perf stat", "[u@h dir]$ ...". perf prints no such line.
 */
bool imp_is_prompt(const char *line);

/* True for "<not counted>", "<not supported>" and other "<not ...>" markers. */
bool imp_is_not_marker(const char *s);
/* The status a "<not ...>" marker stands for. */
enum count_status imp_not_status(const char *s);

/* The readers. Each returns 0 or a negative TDP_E* with p->err filled in. */
int imp_read_csv(struct imp_parser *p, char sep) __attribute__((warn_unused_result));
int imp_read_json(struct imp_parser *p) __attribute__((warn_unused_result));
int imp_read_text(struct imp_parser *p) __attribute__((warn_unused_result));

/*
 * CSV layout of one line split into fields: the number of prefix fields before
 * the value (0..3), or -1 when the line is not a perf stat CSV count row.
 * sep: the separator the fields were split at (with any but ',', a comma in a
 * number is its decimal mark). Used by detection and by the CSV reader.
 */
int imp_csv_layout(char **f, size_t n, char sep);

/*
 * Split line in place at sep into at most max fields; returns the number of
 * fields, or max + 1 when there are more.
 */
size_t imp_split(char *line, char sep, char **f, size_t max);

#endif
