/* opts-internal.h: what the parser (opts.c) and the help and man pages (opts-help.c) share. */
#ifndef TDPROF_CLI_OPTS_INTERNAL_H
#define TDPROF_CLI_OPTS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/opts.h"

/** The option takes an argument (string, list, number, choice). */
bool opts_takes_arg(const struct opt *o);

/** The command writes files (it has -o/--output), so it also takes --mode. */
bool opts_writes_files(const struct opt *opts);

enum {
	OPTS_LONG_FOUND = 0,      /* *out is the option (*negated: its --no- form) */
	OPTS_LONG_MODE = 1,       /* --mode (opts_writes_files()) */
	OPTS_LONG_UNKNOWN = -1,   /* no option is spelt so (nothing printed) */
	OPTS_LONG_AMBIGUOUS = -2, /* a prefix of several: the usage error was printed */
};

/**
 * The long option name[0..len) of command cmd means: its exact spelling, else
 * the one option it is a prefix of (getopt_long's rule). Returns an OPTS_LONG_*.
 */
int opts_find_long(const struct opt *opts, const char *cmd, const char *name, size_t len, const struct opt **out,
		   bool *negated);

/** --mode's help line. */
extern const char opts_mode_help[];

#endif
