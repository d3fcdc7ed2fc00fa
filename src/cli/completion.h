/*
 * completion.h: the parts of `tdprof completion` (cmd-completion.c: the command,
 * and the commands' specs gathered from their option tables; completion-bash.c:
 * the bash script; completion-zsh.c: the zsh one), shared inside the command only.
 *
 * Every command of the command table is asked for its spec (`CMD --completion-spec`,
 * opts.h), and so is every subcommand a spec names: a command added to the table
 * (src/cli/meson.build) is completed without a change here. What an option's value
 * is comes from the table too: its choices, or what its placeholder names (FILE,
 * DIR, MODEL for --cpu, M for --sim-machine, the events of -e/--event).
 */
#ifndef TDPROF_CLI_COMPLETION_H
#define TDPROF_CLI_COMPLETION_H

#include <stddef.h>
#include <stdio.h>

#define COMP_MAX_COMMANDS 64
#define COMP_MAX_OPTS 96
#define COMP_MAX_WORDS 16

/* What an option's value is completed with. */
enum comp_value {
	COMP_NONE = 0, /* a flag */
	COMP_TYPED,    /* a number, a list to type: nothing to offer */
	COMP_CHOICE,   /* the words of choices */
	COMP_FILE,
	COMP_DIR,
	COMP_EVENT,    /* the event names `tdprof list events` prints, comma lists too */
	COMP_MODEL,    /* the models and their aliases */
	COMP_MACHINE,  /* the simulated machines' presets, or a file */
};

struct comp_opt {
	char short_name[4];  /* "-e", or "" */
	char long_name[64];  /* "--event", or "" */
	enum comp_value value;
	char choices[256];   /* COMP_CHOICE: "text json csv" */
	char help[160];      /* one line, for zsh's descriptions */
};

struct comp_cmd {
	char path[64];       /* "stat", "branches record" */
	char summary[160];
	char subs[COMP_MAX_WORDS][32];
	size_t nr_subs;
	char words[COMP_MAX_WORDS][32];
	size_t nr_words;
	struct comp_opt opts[COMP_MAX_OPTS];
	size_t nr_opts;
};

struct comp_set {
	struct comp_cmd cmds[COMP_MAX_COMMANDS];
	size_t nr_cmds;
	const char *models;  /* "zen4 icelakex ...": every model name and alias */
	const char *presets; /* "generic zen4 ..." */
};

/** A word safe to put between single quotes in either shell: letters, digits, -_.,:+=/@% only. */
int comp_word_ok(const char *s);

/** The bash functions and data of set, without registering them (bash and zsh share them). */
void completion_bash_body(FILE *out, const struct comp_set *set);

/** Write the bash completion script of set to out. */
void completion_bash(FILE *out, const struct comp_set *set);

/** Write the zsh completion function (a #compdef file) of set to out. */
void completion_zsh(FILE *out, const struct comp_set *set);

#endif
