/*
 * output.h: the result stream of a command: standard output, or the file of
 * `-o FILE`. One place opens and finishes it, so every command reports a file it
 * cannot open or write the same way, and exits 1 for it.
 *
 * The stream is a struct output that the command owns (on its stack): no table of
 * open files lives here, so two outputs at once (-o and --html) are two structs,
 * and nothing outlives the command.
 *
 * Lifecycle, for a result written as it comes (stat's intervals):
 *   1. struct output out = OUTPUT_INIT;
 *      rc = output_open(&out, path);       (path NULL: stdout; EXIT_USAGE: the error was printed)
 *   2. write to out.f, or output_put(&out, r, doc) for a rendered document;
 *   3. rc = output_close(&out, ok);       ok: publish (flush, rename into place); !ok: the
 *                                          command failed: the temporary is removed and an old
 *                                          file at path stays as it was
 * Or, for a result already in memory: rc = output_write(path, buf, len); or for a
 * document and its renderer (report/render.h): rc = output_render(path, r, doc).
 *
 * A file is a temporary in path's directory until output_close() renames it
 * (base/file.h: tdp_out_open()), so a failed or interrupted command never leaves
 * half a report at path. SIGINT, SIGTERM and SIGHUP during a run (the only long
 * time an output is open: stat's) are passed on to the workload (pmu/session.h,
 * base/sigfwd.h) and the command then finishes through output_close() as usual,
 * so no process-global list of temporaries is needed. A signal in the moment the
 * finished report is written, or SIGKILL, can still leave the temporary
 * (".NAME.tdprof-XXXXXX"), never a partial NAME.
 */
#ifndef TDPROF_CLI_OUTPUT_H
#define TDPROF_CLI_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/file.h"
#include "report/html.h"
#include "report/render.h"

struct output {
	FILE *f;            /* write here: stdout, or the temporary of path; NULL: not open */
	const char *path;   /* NULL: stdout (borrowed) */
	struct tdp_out o;   /* the temporary renamed over path (base/file.h) */
};

#define OUTPUT_INIT { NULL, NULL, TDP_OUT_INIT }

/**
 * Open `path` for writing into out, or standard output when path is NULL. The
 * report goes to a temporary file (mode 0600 or --mode) that output_close()
 * renames over path (tdp_out_open(): links of other users are never followed,
 * readers of the old file keep it). Returns EXIT_OK, or prints why and returns
 * EXIT_USAGE (2), as a path that cannot be created is a bad argument; a write
 * that fails later is an analysis failure (1, output_close()).
 */
int output_open(struct output *out, const char *path) __attribute__((warn_unused_result));

/**
 * Finish out: with ok, flush it, close a file and rename it into place; a write
 * error anywhere on the stream (ENOSPC, EIO) is reported here, naming the file,
 * and leaves the old file as it was. Without ok (the command failed before its
 * result was whole), flush stdout or remove the temporary. Returns EXIT_OK or
 * EXIT_ANALYSIS. Does nothing on an output never opened or already closed.
 */
int output_close(struct output *out, bool ok);

/** Render doc with r into memory and write it to out. Prints the error; returns EXIT_OK or EXIT_ANALYSIS. */
int output_put(struct output *out, const struct renderer *r, const void *doc);

/**
 * Write len bytes of buf to `path` (NULL: stdout) and finish. Returns EXIT_OK,
 * EXIT_USAGE (the file cannot be created) or EXIT_ANALYSIS (the write failed).
 */
int output_write(const char *path, const void *buf, size_t len);

/**
 * Render doc with r into memory and write it to `path` (NULL: stdout). Prints the
 * error; returns EXIT_OK, EXIT_USAGE (the file cannot be created) or EXIT_ANALYSIS
 * (rendering or the write failed).
 */
int output_render(const char *path, const struct renderer *r, const void *doc);

/**
 * --format: the value of `--format F` given as `format` (NULL when absent), or
 * `alias` when one of its aliases (--json, --csv, --folded: alias "json", ...) was
 * given; the command's default when neither. Returns the format, or NULL after
 * printing the usage error of an alias and a --format that disagree.
 */
const char *output_format(const char *cmd, const char *format, const char *alias, const char *dflt);

/**
 * output_format() for a command with --json, --csv and perf stat's -x SEP (CSV
 * with SEP between fields): the aliases that disagree, or an empty SEP, are a
 * usage error (printed; NULL returned).
 */
const char *output_format_csv(const char *cmd, const char *format, bool json, bool csv, const char *sep);

/**
 * --html FILE, the shortcut of `--format html` beside another format: the "html"
 * renderer of kind k (report/render.h) on doc, written to path. Every kind whose
 * table has an "html" row takes it the same way (topdown, why, branches report,
 * diff). Prints the error; returns an exit status (EXIT_USAGE when k has no page).
 */
int output_html_of(const char *path, enum render_kind k, const void *doc);

/**
 * --html FILE, the older form: the page report/html.h draws from the JSON
 * document that fn prints of doc, with the default options (the same page as
 * output_html_of()). Prints the error; returns an exit status.
 */
int output_html(const char *path, html_json_fn *fn, const void *doc);

#endif
