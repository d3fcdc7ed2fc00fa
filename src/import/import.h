/*
 * import.h: the output of `perf stat`, recorded anywhere, read into a countset.
 *
 * One entry point reads all three shapes perf prints, told apart by content (the
 * file name plays no part):
 *
 *   - CSV, `perf stat -x<SEP>` with any one-byte separator (perf-stat(1), CSV
 *     FORMAT): `[interval,][aggr-id,[nr,]]value,unit,event,[variance,]run-time,
 *     pcnt-running,metric-value,metric-unit`. Extra metrics of one event come on
 *     lines whose value field is empty. `-r N` puts the variance ("3.49%") right
 *     after the event name (perf 6.1; the man page says otherwise).
 *   - JSON lines, `perf stat -j` (perf 5.x and 6.x): one flat object per line with
 *     "counter-value" (a string), "unit", "event", "event-runtime", "pcnt-running",
 *     "variance", "metric-value" (a number in 6.1, a string in 6.13),
 *     "metric-unit", "interval", "cpu"/"core"/"die"/"socket"/"node"/"thread"/
 *     "cgroup". A trailing comma before '}' is accepted (perf printed it).
 *   - perf's human text, perf 3.x to 6.x: thousands separators, `<not counted>` and
 *     `<not supported>` rows, the `msec` unit (or the older `task-clock (msec)`),
 *     the `(NN.NN%)` running column, `( +- N% )` variance, `#` metric annotations
 *     and their continuation lines, the `Performance counter stats for ...` header,
 *     `seconds time elapsed/user/sys`, `-I` timestamps and `-A`/`--per-*` prefixes.
 *     Lines before the header (a shell prompt, the workload's own output) and
 *     after the closing `seconds ...` lines are skipped; between them every line
 *     must be one perf prints.
 *
 * Leniency (docs/import.md). Shell prompt lines pasted with the output ("$ perf
 * stat ...", "user@host:~$ ...") and "# started on" lines are skipped in every
 * format. Numbers printed under another locale are read: in text, thousands
 * grouped by ',', '.', blanks, U+00A0, U+202F or '\'' and a '.' or ',' decimal
 * mark, one mark per file, decided by the first number that shows it (else '.',
 * perf's C locale: a lone "1.234" is 1.234); in CSV a comma is the decimal mark
 * with any separator but ',', and `-x,` rows whose decimals perf split in two
 * fields are joined back (text.c and csv.c say how).
 *
 * What ends up in the countset:
 *   - one count per event row perf printed for the whole run. Rows of `-I`
 *     intervals and of `-A`/`--per-core`/`--per-socket`/`--per-thread`/... are
 *     summed per event (the k-th occurrence of an event in each interval/CPU is
 *     added to the k-th overall), and a note says so;
 *   - value: perf's printed (already multiplex-scaled) value; clock events printed
 *     in msec are converted to ns (countset.h), their unit stays "msec". raw = value;
 *   - status: `<not counted>`/`<not supported>` are statuses with value 0, never a
 *     count of 0. A summed event counted in some intervals only keeps the sum of
 *     those, with a note;
 *   - running_pct: perf's pcnt-running; in text, 100 when perf printed no `(N%)`
 *     (perf prints it only when the counter did not run all the time), -1 for
 *     rows that were not counted. Summed rows: total running / total enabled when
 *     the run time is known, else the mean. running_ns/enabled_ns come from
 *     CSV/JSON's run-time (enabled = run-time * 100 / pct), 0 in text;
 *   - stddev_pct: the `-r` variance (the largest one when rows were summed);
 *   - group: see Groups below; every count gets a group >= 0;
 *   - countset.elapsed_ns: `seconds time elapsed` (text), else the last `-I`
 *     timestamp, else a `duration_time` count; -1 when none of them is there.
 *
 * Groups. perf prints an event once per metric group that needs it (AMD's
 * `-MPipelineL2` prints ls_not_halted_cyc four times), and a model must take all
 * the events of one formula from one group, because only events scheduled
 * together saw the same slice of the run. perf does not print the grouping, so it
 * is rebuilt from two rules, applied in file order:
 *   1. an event whose name is already in the current group starts a new group;
 *   2. an event whose running percentage differs from the current group's starts
 *      a new group (a multiplexed group runs as one, so its events share one
 *      percentage); in CSV/JSON, when the percentage is below 100 a different
 *      run time also starts one (members of a group have identical run times;
 *      this separates two groups that happen to print the same percentage).
 * Rows that were not counted do not start a group by rule 2. Events that ran all
 * the time (100 %) stay together until rule 1 splits them: counted over the whole
 * run, any of them can be combined with any other.
 *
 * Metrics. What perf printed as metrics (`#  0.7 %  bad_speculation_mispredicts`,
 * CSV/JSON metric-value/metric-unit) is returned beside the counts in
 * import_result.metrics, each tied to the count it was printed against, so that
 * tests and `topdown --import` can compare our figures with perf's. perf's own
 * per-interval or per-CPU metrics are not kept when rows were summed (a note
 * says so).
 *
 * Lifecycle:
 *   1. struct import_result r = IMPORT_RESULT_INIT;
 *   2. import_perf_stat_result(buf, len, "x.csv", &r, &err);
 *   3. use r.counts, r.metrics, r.notes;
 *   4. import_result_release(&r);
 * or, when only the counts matter, import_perf_stat(buf, len, name, &cs, &err).
 *
 * Hostile input: input is bounded by IMPORT_MAX_INPUT, lines by IMPORT_MAX_LINE,
 * rows by IMPORT_MAX_ROWS, names by IMPORT_MAX_NAME; every number is checked
 * (finite, counts not negative, percentages within 0..100). Errors name the file
 * and the line: `'x.csv': line 12: count 'abc' of 'cycles' is not a number`.
 * Nothing here prints, exits or reads the environment; all functions are
 * reentrant (no state outside their arguments).
 */
#ifndef TDPROF_IMPORT_IMPORT_H
#define TDPROF_IMPORT_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/countset.h"

struct tdp_err;

#define IMPORT_MAX_INPUT ((size_t)256 << 20) /* bytes in one input */

/**
 * A tdp_file_check_fn (base/file.h) for perf stat output arriving on a pipe or
 * from a device: refuses binary data at its first NUL byte ("'NAME': line N:
 * holds a NUL byte ..." as the importer says it), so that /dev/zero is refused
 * after one read, not after IMPORT_MAX_INPUT bytes. ctx is a struct
 * import_stream, zeroed, with name set.
 */
struct import_stream {
	const char *name;
	size_t checked, lines; /* bytes scanned so far, newlines among them */
};

int import_stream_check(void *ctx, const uint8_t *buf, size_t len, bool eof, struct tdp_err *err)
	__attribute__((warn_unused_result));
#define IMPORT_MAX_LINE 65536                 /* bytes in one line */
#define IMPORT_MAX_ROWS 262144                /* count rows (events x CPUs x intervals) */
#define IMPORT_MAX_NAME 1024                  /* bytes in an event, unit or metric name */
#define IMPORT_MAX_METRICS 262144             /* metric annotations */

enum import_format {
	IMPORT_FMT_UNKNOWN = 0,
	IMPORT_FMT_CSV,  /* perf stat -x<SEP> */
	IMPORT_FMT_JSON, /* perf stat -j */
	IMPORT_FMT_TEXT, /* perf stat's human output */
};

/* A metric perf printed, as perf printed it. */
struct import_metric {
	char *name;   /* "bad_speculation_mispredicts", "CPUs utilized", "of all branches"; never NULL */
	char *unit;   /* "%" (also when perf glued it to the number: "2.51%"), "GHz", "K/sec", or "" */
	double value; /* the number printed (a percentage stays 0..100) */
	size_t count; /* index in counts.v of the event it was printed against */
	int group;    /* counts.v[count].group */
};

struct import_result {
	struct countset counts;         /* backend BACKEND_IMPORT */
	struct import_metric *metrics;  /* nr_metrics entries, in file order */
	size_t nr_metrics;
	size_t alloc_metrics;
	char **notes;                   /* what the import did that a user should know */
	size_t nr_notes;
	size_t alloc_notes;
	enum import_format format;
	char sep;                       /* the CSV separator; 0 for other formats */
	unsigned runs;                  /* N of `-r N` (text header); 0 when CSV/JSON show -r variances
					   but not N; 1 otherwise */
	size_t nr_intervals;            /* -I intervals summed; 0 when not an interval output */
	size_t nr_aggr;                 /* CPUs/cores/sockets/threads/cgroups summed; 0 when fewer than 2 */
	double user_ns;                 /* `seconds user` in ns; <0 when absent */
	double sys_ns;                  /* `seconds sys` in ns; <0 when absent */
};

#define IMPORT_RESULT_INIT \
	{ { NULL, 0, 0, BACKEND_IMPORT, -1.0 }, NULL, 0, 0, NULL, 0, 0, IMPORT_FMT_UNKNOWN, 0, 1, 0, 0, -1.0, -1.0 }

/** Initialise r as IMPORT_RESULT_INIT does. */
void import_result_init(struct import_result *r);

/**
 * Free everything r holds and leave it as after import_result_init(). r may be
 * released twice.
 */
void import_result_release(struct import_result *r);

/**
 * Read perf stat output into r.
 *   buf, len: the file's contents (borrowed; need not be NUL-terminated).
 *   name:     the file name for messages (borrowed; "-" or "<stdin>" are fine).
 *   r:        out; must be as after import_result_init(). On success it holds the
 *             counts, metrics and notes (owned by r: import_result_release()).
 *   err:      may be NULL.
 * Returns 0;
 *   TDP_EFORMAT: not perf stat output, or a line that does not parse (the message
 *                names the file and the line);
 *   TDP_ELIMIT:  the input, a line, a name or the number of rows exceeds a limit;
 *   TDP_ENOMEM.
 * On failure r is left as after import_result_init(). Allocates; reentrant.
 */
int import_perf_stat_result(const uint8_t *buf, size_t len, const char *name, struct import_result *r,
			    struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Read perf stat output into the countset out: the counts of
 * import_perf_stat_result(), without the metrics and notes.
 *   out: its counts are appended to (group numbers shifted past the groups out
 *        already holds); out->backend becomes BACKEND_IMPORT and out->elapsed_ns
 *        is set when the input gives it.
 * Returns as import_perf_stat_result(); on failure out is unchanged.
 */
int import_perf_stat(const uint8_t *buf, size_t len, const char *name, struct countset *out, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Which format buf holds, as import_perf_stat() will read it. *sep (may be NULL)
 * receives the CSV separator. IMPORT_FMT_UNKNOWN when nothing looks like perf stat
 * output (import_perf_stat() then explains why).
 */
enum import_format import_detect(const uint8_t *buf, size_t len, char *sep);

/** "csv", "json", "text" or "unknown". */
const char *import_format_name(enum import_format f);

#endif
