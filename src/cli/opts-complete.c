/*
 * opts-complete.c: what shell completion needs of a command, printed from its
 * option table and cmd_doc (see opts.h: opts_print_completion_spec()), so that the
 * completion scripts `tdprof completion` writes come from the same tables as
 * --help and the man pages.
 */
#include "cli/opts.h"
#include "cli/opts-internal.h"

#include <stdio.h>
#include <string.h>

/* A field: tabs and newlines would break the line format; help text keeps its words. */
static void field(const char *s)
{
	putchar('\t');
	if (!s || !*s) {
		putchar('-');
		return;
	}
	for (; *s; s++)
		putchar(*s == '\t' || *s == '\n' ? ' ' : *s);
}

static void words(const char *kind, const char *list)
{
	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, "|");

		printf("%s\t%.*s\n", kind, (int)n, p);
		p += n;
		if (*p == '|')
			p++;
	}
}

static const char *kind_of(const struct opt *o)
{
	switch (o->type) {
	case OPT_T_BOOL:
		return "flag";
	case OPT_T_COUNT:
		return "count";
	case OPT_T_CHOICE:
		return "choice";
	default:
		return "value";
	}
}

void opts_print_completion_spec(const struct opt *opts, const struct cmd_doc *doc)
{
	printf("cmd\t%s\n", doc->name);
	words("sub", doc->subcommands);
	words("word", doc->words);
	for (const struct opt *o = opts; o->type != OPT_T_END; o++) {
		char s[3] = { '-', o->short_name, '\0' };

		if (o->type == OPT_T_GROUP)
			continue;
		fputs("opt", stdout);
		field(o->short_name ? s : NULL);
		if (o->long_name)
			printf("\t--%s", o->long_name);
		else
			field(NULL);
		field(kind_of(o));
		field(opts_takes_arg(o) ? o->argh : NULL);
		field(o->help);
		putchar('\n');
	}
	if (opts_writes_files(opts))
		printf("opt\t-\t--mode\tvalue\tMODE\t%s\n", opts_mode_help);
	printf("opt\t-h\t--help\tflag\t-\tthis help\n");
}
