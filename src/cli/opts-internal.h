/* opts-internal.h: what the parser (opts.c) and the help and man pages (opts-help.c) share. */
#ifndef TDPROF_CLI_OPTS_INTERNAL_H
#define TDPROF_CLI_OPTS_INTERNAL_H

#include <stdbool.h>

#include "cli/opts.h"

/** The option takes an argument (string, list, number, choice). */
bool opts_takes_arg(const struct opt *o);

/** The command writes files (it has -o/--output), so it also takes --mode. */
bool opts_writes_files(const struct opt *opts);

/** --mode's help line. */
extern const char opts_mode_help[];

#endif
