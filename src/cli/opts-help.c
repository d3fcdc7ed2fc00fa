/* opts-help.c: --help and the man page of a command, from its option table and cmd_doc (see opts.h). */
#include "cli/opts.h"
#include "cli/columns.h"
#include "cli/opts-internal.h"

#include <stdio.h>
#include <string.h>

/* --help wraps at the terminal's width (cli/columns.h; 80 when not a terminal), never
 * narrower than HELP_MIN_COLUMNS; option help starts at HELP_COLUMN, or, when that
 * leaves less than HELP_MIN_TEXT columns, on its own line below the option. */
#define HELP_DEFAULT_COLUMNS 80
#define HELP_MIN_COLUMNS 40
#define HELP_COLUMN 32
#define HELP_MIN_TEXT 30

static size_t help_columns(void)
{
	unsigned c = cli_columns();

	if (!c)
		return HELP_DEFAULT_COLUMNS;
	return c < HELP_MIN_COLUMNS ? HELP_MIN_COLUMNS : c;
}

/*
 * Print the n bytes of text (one line, no newline) with words wrapped at width:
 * the first line continues at column col (the caller has printed that much),
 * continuation lines start at column indent. A word longer than a line is
 * printed whole on its own line (never cut). With groups, a bracketed group
 * ("[-o FILE]", "(-p PID | -a)") is one word: a usage line never breaks inside one. Ends the line.
 */
static void wrap_words(const char *text, size_t n, size_t col, size_t indent, size_t width, bool groups)
{
	const char *end = text + n;
	bool first = true;

	while (text < end && *text == ' ')
		text++;
	while (text < end) {
		const char *w = text;
		size_t len;

		for (int depth = 0; text < end && (*text != ' ' || depth > 0); text++)
			if (groups && (*text == '[' || *text == '('))
				depth++;
			else if (groups && (*text == ']' || *text == ')') && depth > 0)
				depth--;
		len = (size_t)(text - w);
		if (groups && indent + len > width) { /* a group wider than any line: split it into words */
			text = w + strcspn(w, " ");
			if (text > end)
				text = end;
			len = (size_t)(text - w);
		}
		if (!first && col + 1 + len > width) {
			printf("\n%*s", (int)indent, "");
			col = indent;
			first = true;
		}
		if (!first) {
			putchar(' ');
			col++;
		}
		fwrite(w, 1, len, stdout);
		col += len;
		first = false;
		while (text < end && *text == ' ')
			text++;
	}
	putchar('\n');
}

static void wrap(const char *text, size_t n, size_t col, size_t indent, size_t width)
{
	wrap_words(text, n, col, indent, width, false);
}

const char opts_common_exit_status[] =
	"0: success.\n"
	"N: when a workload ran, its own exit status; 128+N when it died of signal N, as a shell reports it.\n"
	"126: the workload exists but cannot be executed (check its permissions).\n"
	"127: the workload was not found (check the name and PATH).\n"
	"1: the analysis failed (the message says why: no PMU, permissions, a helper failed).\n"
	"2: a usage error or bad input (the message names the option, file or offset).";

static void option_label(const struct opt *o, char *buf, size_t size)
{
	int n = 0;

	if (o->short_name && o->long_name)
		n = snprintf(buf, size, "-%c, --%s", o->short_name, o->long_name);
	else if (o->short_name)
		n = snprintf(buf, size, "-%c", o->short_name);
	else
		n = snprintf(buf, size, "    --%s", o->long_name);
	if (opts_takes_arg(o) && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " %s", o->argh ? o->argh : "VALUE");
}

/*
 * Print text line by line, each line wrapped at width and indented by indent.
 * With examples, text alternates a command (printed whole, to be copied) and its
 * description (indented four more columns), as in cmd_doc.examples.
 */
static void print_wrapped(const char *text, size_t indent, bool examples, size_t width)
{
	const char *p = text;
	int line = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (!n)
			putchar('\n');
		else if (examples && line % 2 == 0)
			printf("%*s%.*s\n", (int)indent, "", (int)n, p);
		else {
			size_t in = examples ? indent + 4 : indent;

			printf("%*s", (int)in, "");
			wrap(p, n, in, in, width);
		}
		if (n)
			line++;
		p += n;
		if (*p == '\n')
			p++;
	}
}

/* One row of the option table: the label, then its help at HELP_COLUMN. */
static void print_option(const char *label, const char *help, size_t width)
{
	size_t lw = 4 + strlen(label);

	printf("    %s", label);
	if (width < HELP_COLUMN + HELP_MIN_TEXT) {
		printf("\n%*s", 8, "");
		wrap(help, strlen(help), 8, 8, width);
		return;
	}
	if (lw + 2 > HELP_COLUMN) {
		printf("\n%*s", HELP_COLUMN, "");
	} else
		printf("%*s", (int)(HELP_COLUMN - lw), "");
	wrap(help, strlen(help), HELP_COLUMN, HELP_COLUMN, width);
}

void opts_print_help(const struct opt *opts, const struct cmd_doc *doc)
{
	const char *u = doc->usage;
	size_t width = help_columns();
	char head[256];
	int hn;

	hn = snprintf(head, sizeof(head), "tdprof %s: %s", doc->name, doc->summary);
	wrap(head, hn < 0 ? 0 : (size_t)hn < sizeof(head) ? (size_t)hn : sizeof(head) - 1, 0, 4, width);
	putchar('\n');
	while (u && *u) {
		const char *nl = strchr(u, '\n');
		size_t n = nl ? (size_t)(nl - u) : strlen(u);

		/* continuation lines of a usage line start under its first argument */
		printf("%s tdprof ", u == doc->usage ? "usage:" : "   or:");
		wrap_words(u, n, 14, 14 + strcspn(u, " \n") + 1, width, true);
		u += n;
		if (*u == '\n')
			u++;
	}
	if (doc->description) {
		putchar('\n');
		print_wrapped(doc->description, 0, false, width);
	}
	putchar('\n');
	for (const struct opt *o = opts; o->type != OPT_T_END; o++) {
		char label[96];

		if (o->type == OPT_T_GROUP) {
			putchar('\n');
			wrap(o->help, strlen(o->help), 0, 0, width);
			continue;
		}
		option_label(o, label, sizeof(label));
		print_option(label, o->help, width);
	}
	if (opts_writes_files(opts))
		print_option("    --mode MODE", opts_mode_help, width);
	print_option("-h, --help", "show this help", width);
	if (doc->examples) {
		printf("\nexamples:\n");
		print_wrapped(doc->examples, 4, true, width);
	}
}

/* Print s escaped for roff: backslashes and leading dots/quotes. */
static void roff(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\')
			fputs("\\e", stdout);
		else if (s[i] == '-')
			fputs("\\-", stdout);
		else if ((s[i] == '.' || s[i] == '\'') && (i == 0 || s[i - 1] == '\n'))
			fputs("\\&.", stdout);
		else
			putchar(s[i]);
	}
}

static void roff_lines(const char *text, bool examples)
{
	const char *p = text;
	int line = 0;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (!n)
			fputs(".PP\n", stdout);
		else if (examples && line % 2 == 0) {
			fputs(".TP\n.B ", stdout);
			roff(p, n);
			putchar('\n');
		} else {
			roff(p, n);
			putchar('\n');
		}
		if (n)
			line++;
		p += n;
		if (*p == '\n')
			p++;
	}
}

void opts_print_man(const struct opt *opts, const struct cmd_doc *doc)
{
	char title[64];

	snprintf(title, sizeof(title), "tdprof-%s", doc->name);
	for (char *c = title; *c; c++)
		if (*c == ' ')
			*c = '-';
		else if (*c >= 'a' && *c <= 'z')
			*c = (char)(*c - 'a' + 'A');
	printf(".TH %s 1 \"\" \"tdprof\" \"tdprof manual\"\n", title);
	printf(".SH NAME\ntdprof\\-");
	roff(doc->name, strlen(doc->name));
	printf(" \\- ");
	roff(doc->summary, strlen(doc->summary));
	printf("\n.SH SYNOPSIS\n");
	for (const char *u = doc->usage; u && *u;) {
		const char *nl = strchr(u, '\n');
		size_t n = nl ? (size_t)(nl - u) : strlen(u);

		fputs(".B tdprof ", stdout);
		roff(u, n);
		fputs("\n.br\n", stdout);
		u += n;
		if (*u == '\n')
			u++;
	}
	if (doc->description) {
		fputs(".SH DESCRIPTION\n", stdout);
		roff_lines(doc->description, false);
	}
	fputs(".SH OPTIONS\n", stdout);
	for (const struct opt *o = opts; o->type != OPT_T_END; o++) {
		char label[96];

		if (o->type == OPT_T_GROUP) {
			fputs(".SS ", stdout);
			roff(o->help, strlen(o->help));
			putchar('\n');
			continue;
		}
		option_label(o, label, sizeof(label));
		fputs(".TP\n.B ", stdout);
		roff(label, strlen(label));
		putchar('\n');
		roff(o->help, strlen(o->help));
		putchar('\n');
	}
	if (opts_writes_files(opts)) {
		fputs(".TP\n.B ", stdout);
		roff("--mode MODE", strlen("--mode MODE"));
		putchar('\n');
		roff(opts_mode_help, strlen(opts_mode_help));
		putchar('\n');
	}
	if (doc->examples) {
		fputs(".SH EXAMPLES\n", stdout);
		roff_lines(doc->examples, true);
	}
	fputs(".SH EXIT STATUS\n", stdout);
	roff_lines(doc->exit_status ? doc->exit_status : opts_common_exit_status, false);
	fputs(".SH SEE ALSO\n", stdout);
	roff_lines(doc->see_also ? doc->see_also : "tdprof(1), perf(1)", false);
}
