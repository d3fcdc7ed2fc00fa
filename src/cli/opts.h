/*
 * opts.h: table-driven option parsing, and the --help text and man page of each
 * command generated from the same table (one source for both, as curl does).
 *
 * A command declares:
 *   static const struct cmd_doc doc = { .name = "stat", .summary = ..., ... };
 *   struct opt opts[] = { OPT_STRING('e', "event", &events, "LIST", "events to count"), ..., OPT_END() };
 *   int i = opts_parse(opts, &doc, argc, argv);
 *   if (i < 0) return opts_exit(i);        (help shown: 0; usage error: 2)
 *   argv[i..argc) are the positional arguments (the workload after "--").
 *
 * Parsing stops at the first argument that is not an option, or after "--", so
 * `tdprof stat -e cycles ./app -x` passes "-x" to ./app, as perf does.
 * Accepted spellings: -e X, -eX, --event X, --event=X, bundled flags (-aq),
 * --no-FLAG for flags, unambiguous prefixes of long options (--rep for --repeat).
 * -h/--help print help to stdout; --man prints a man page; --completion-spec
 * what shell completion needs (opts_print_completion_spec()).
 */
#ifndef TDPROF_CLI_OPTS_H
#define TDPROF_CLI_OPTS_H

#include <stdbool.h>
#include <stdint.h>

enum opt_type {
	OPT_T_END = 0,
	OPT_T_GROUP,   /* a heading in --help; no option */
	OPT_T_BOOL,    /* bool *: set true; --no-X sets false */
	OPT_T_STRING,  /* const char **: the argument (last one wins) */
	OPT_T_LIST,    /* char **: repeated arguments joined with ',' (heap; caller frees) */
	OPT_T_LONG,    /* long *: integer within [min, max] */
	OPT_T_DOUBLE,  /* double *: a finite number within [min, max] */
	OPT_T_COUNT,   /* int *: incremented each time (-v -v) */
	OPT_T_CHOICE,  /* const char **: one of the '|'-separated words in argh */
};

struct opt {
	enum opt_type type;
	char short_name;       /* 0: none */
	const char *long_name; /* NULL: none */
	void *value;
	const char *argh;      /* argument placeholder ("EVENTS"), or choices "a|b|c" */
	const char *help;      /* one line */
	long min, max;         /* bounds for OPT_T_LONG / OPT_T_DOUBLE */
};

#define OPT_END() { OPT_T_END, 0, NULL, NULL, NULL, NULL, 0, 0 }
#define OPT_GROUP(h) { OPT_T_GROUP, 0, NULL, NULL, NULL, (h), 0, 0 }
#define OPT_BOOL(s, l, v, h) { OPT_T_BOOL, (s), (l), (v), NULL, (h), 0, 0 }
#define OPT_STRING(s, l, v, a, h) { OPT_T_STRING, (s), (l), (v), (a), (h), 0, 0 }
#define OPT_LIST(s, l, v, a, h) { OPT_T_LIST, (s), (l), (v), (a), (h), 0, 0 }
#define OPT_LONG(s, l, v, a, h, lo, hi) { OPT_T_LONG, (s), (l), (v), (a), (h), (lo), (hi) }
#define OPT_DOUBLE(s, l, v, a, h, lo, hi) { OPT_T_DOUBLE, (s), (l), (v), (a), (h), (lo), (hi) }
#define OPT_COUNT(s, l, v, h) { OPT_T_COUNT, (s), (l), (v), NULL, (h), 0, 0 }
#define OPT_CHOICE(s, l, v, choices, h) { OPT_T_CHOICE, (s), (l), (v), (choices), (h), 0, 0 }

/* The documentation of a command: --help and the man page are made from it. */
struct cmd_doc {
	const char *name;         /* "stat", or "branches record" */
	const char *summary;      /* one line, lower case, no period */
	const char *usage;        /* usage lines separated by '\n', without "usage: tdprof " */
	const char *description;  /* paragraphs separated by blank lines */
	const char *examples;     /* pairs of lines: a command, then what it does */
	const char *exit_status;  /* extra EXIT STATUS text (NULL: the common one) */
	const char *see_also;     /* "tdprof-topdown(1), perf-stat(1)" */
	/*
	 * perf's spellings this command does not take, each with what to use instead;
	 * an unknown option found here is still a usage error, with that as the hint.
	 * NULL or ended by { 0, NULL, NULL }.
	 */
	const struct opt_elsewhere *elsewhere;
	/*
	 * For shell completion (opts_print_completion_spec()): the subcommands, each
	 * with its own option table ("record|report"), or the words the first argument
	 * takes ("models|metrics|events"); NULL: none.
	 */
	const char *subcommands;
	const char *words;
};

struct opt_elsewhere {
	char short_name;       /* 0: none */
	const char *long_name; /* NULL: none */
	const char *hint;      /* "perf's -M metric groups: 'tdprof topdown -- CMD' computes ..." */
};

enum {
	OPTS_HELP_SHOWN = -1, /* --help or --man printed; exit 0 */
	OPTS_USAGE = -2,      /* a usage error was printed; exit 2 */
};

/**
 * Parse options of `doc->name` from argv[1..argc). Returns the index of the first
 * positional argument (argc when none), OPTS_HELP_SHOWN or OPTS_USAGE (the error
 * was printed). OPT_T_LIST values are heap strings the caller frees.
 */
int opts_parse(const struct opt *opts, const struct cmd_doc *doc, int argc, char **argv);

/** The exit status for a negative opts_parse() result. */
int opts_exit(int rc);

/** Print --help for a command to stdout. */
void opts_print_help(const struct opt *opts, const struct cmd_doc *doc);

/** Print a man page (roff) for a command to stdout. */
void opts_print_man(const struct opt *opts, const struct cmd_doc *doc);

/**
 * Print what shell completion needs of a command to stdout, one line each, fields
 * separated by tabs (`tdprof CMD --completion-spec`, read by `tdprof completion`):
 *   cmd   NAME
 *   sub   WORD              (doc->subcommands)
 *   word  WORD              (doc->words)
 *   opt   SHORT LONG KIND ARGH HELP    ("-" for a missing short or long name, or argh;
 *                                       KIND flag, count or value; choices are ARGH "a|b|c"
 *                                       of KIND choice)
 */
void opts_print_completion_spec(const struct opt *opts, const struct cmd_doc *doc);

/** Text shared by every man page's EXIT STATUS section. */
extern const char opts_common_exit_status[];

#endif
