/*
 * msg.h: the only place that writes diagnostics to stderr.
 *
 * Every line starts with "tdprof: " and a kind (error, warning, hint, note):
 *   tdprof: error: cannot open 'perf.data': no such file
 *   tdprof: hint: record one with 'tdprof branches record -o perf.data -- ./app'
 * Wording follows git: lower case, no final period, what failed first, the subject
 * in quotes. Results go to stdout (or -o); progress and diagnostics to stderr.
 */
#ifndef TDPROF_CLI_MSG_H
#define TDPROF_CLI_MSG_H

#include <stdbool.h>

struct tdp_err;

void msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** A neutral note ("tdprof: note: ..."), e.g. the simulated-backend banner. */
void msg_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** A progress line for long runs ("tdprof: [2/4] top-down ..."), unless quiet. */
void msg_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** Silence msg_progress() and msg_note() (for --quiet). */
void msg_set_quiet(bool quiet);

/** --quiet was given. */
bool msg_quiet(void);

/** Print err's message as an error and its hint, if any. */
void msg_err(const struct tdp_err *err);

/**
 * Print a usage error for command `cmd` (NULL: the top level) followed by
 * "tdprof: try 'tdprof CMD --help'". Returns 2, the usage exit status.
 */
int msg_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
