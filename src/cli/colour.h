/*
 * colour.h: whether the text on standard output is coloured. One rule, decided
 * once in main() and handed to the renderers as a palette (report/palette.h)
 * through struct tdp_ctx; renderers never look at the environment.
 *
 *   --color=never (--no-color)   never
 *   --color=always (--color)     always, whatever NO_COLOR or TERM say (an
 *                                argument overrides the environment: no-color.org)
 *   --color=auto (the default)   when stdout is a terminal, NO_COLOR is unset or
 *                                empty and TERM is not "dumb"
 * "colour" is the same option, as is git's and perf's spelling.
 */
#ifndef TDPROF_CLI_COLOUR_H
#define TDPROF_CLI_COLOUR_H

#include <stdbool.h>

#include "report/palette.h"

enum colour_when {
	COLOUR_AUTO = 0,
	COLOUR_ALWAYS,
	COLOUR_NEVER,
};

/** "auto", "always" or "never" (also git's "true"/"false") into *out; false for anything else. */
bool colour_parse(const char *s, enum colour_when *out);

/**
 * The palette for a stream that is (or not) a terminal, with the environment's
 * NO_COLOR and TERM (NULL when unset): &palette_ansi, or NULL for no colour.
 */
const struct palette *colour_palette(enum colour_when when, bool tty, const char *no_color, const char *term);

#endif
