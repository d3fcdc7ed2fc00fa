/*
 * output.h: the result stream of a command: standard output, or the file of
 * `-o FILE`. One place opens and finishes it, so every command reports a file it
 * cannot open or write the same way, and exits 1 for it.
 *
 * Lifecycle:
 *   1. FILE *out = output_open(path);      (path NULL: stdout; NULL return: the error was printed)
 *   2. write the results to out;
 *   3. rc = output_close(out, path);       (flushes, closes a file; EXIT_OK or EXIT_ANALYSIS)
 * Or, for a result already in memory: rc = output_write(path, buf, len); or for a
 * document and its renderer (report/render.h): rc = output_render(path, r, doc).
 */
#ifndef TDPROF_CLI_OUTPUT_H
#define TDPROF_CLI_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/html.h"
#include "report/render.h"

/**
 * Open `path` for writing, or return stdout when path is NULL. The report goes to
 * a temporary file (mode 0600 or --mode) that output_close() renames over path
 * (tdp_out_open(): links of other users are never followed, readers of the old
 * file keep it). On failure prints why and returns NULL: the caller exits
 * EXIT_USAGE (2), as a path that cannot be created is a bad argument; a write that
 * fails later is an analysis failure (1, output_close()).
 */
FILE *output_open(const char *path);

/**
 * Finish the stream from output_open(): flush it, close it when it is a file and
 * rename it into place. A write error anywhere on the stream (ENOSPC, EIO) is
 * reported here, naming the file (path; NULL: the path given to output_open()),
 * and leaves the old file as it was. Returns EXIT_OK or EXIT_ANALYSIS.
 */
int output_close(FILE *f, const char *path);

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
 * --html FILE: the page report/html.h draws from the JSON document that fn prints
 * of doc, with the default options. Prints the error; returns an exit status.
 */
int output_html(const char *path, html_json_fn *fn, const void *doc);

#endif
