/*
 * cmd.h: the commands of tdprof. Each lives in its own file (cmd-<name>.c), has
 * one entry point with this signature, and is registered in one table in main.c.
 *
 * A command parses its options from a table (opts.h), validates them, calls the
 * modules, picks a renderer and returns the exit status (exitcode.h). It prints
 * diagnostics only through msg.h and results only to stdout or its -o file.
 */
#ifndef TDPROF_CLI_CMD_H
#define TDPROF_CLI_CMD_H

#include <stdbool.h>

struct palette;

/* State shared by every command, made once in main() (no globals). */
struct tdp_ctx {
	bool stdout_tty;      /* stdout is a terminal: bars are allowed */
	const struct palette *palette; /* colours of the text on stdout (cli/colour.h); NULL: none */
	int verbose;          /* -v count */
};

/*
 * The absolute path of this binary (for selftest, loop, branches record), or NULL
 * when /proc/self/exe cannot be read. Read on first use, not in main(): the
 * readlink costs a path walk that `tdprof stat` should not pay at start-up.
 */
const char *tdp_exe_path(void);

typedef int cmd_fn(int argc, char **argv, struct tdp_ctx *ctx);

/*
 * Declarations of every command present in this build: commands.h is generated
 * by src/cli/meson.build as a list of CMD(name) lines.
 */
#define CMD(name)        \
	cmd_fn cmd_##name; \
	extern const char cmd_##name##_summary[];
#include "commands.h"
#undef CMD

#endif
