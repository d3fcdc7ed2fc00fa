/* opts-help.c: --help and the man page of a command, from its option table and cmd_doc (see opts.h). */
#include "cli/opts.h"
#include "cli/opts-internal.h"

#include <stdio.h>
#include <string.h>

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

/* Print text with each line indented; used for description and examples. */
static void print_indented(const char *text, const char *indent)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n)
			printf("%s%.*s\n", indent, (int)n, p);
		else
			putchar('\n');
		p += n;
		if (*p == '\n')
			p++;
	}
}

void opts_print_help(const struct opt *opts, const struct cmd_doc *doc)
{
	const char *u = doc->usage;

	printf("tdprof %s: %s\n\n", doc->name, doc->summary);
	while (u && *u) {
		const char *nl = strchr(u, '\n');
		size_t n = nl ? (size_t)(nl - u) : strlen(u);

		printf("%s tdprof %.*s\n", u == doc->usage ? "usage:" : "   or:", (int)n, u);
		u += n;
		if (*u == '\n')
			u++;
	}
	if (doc->description) {
		putchar('\n');
		print_indented(doc->description, "");
	}
	putchar('\n');
	for (const struct opt *o = opts; o->type != OPT_T_END; o++) {
		char label[96];

		if (o->type == OPT_T_GROUP) {
			printf("\n%s\n", o->help);
			continue;
		}
		option_label(o, label, sizeof(label));
		if (strlen(label) > 26)
			printf("    %s\n%32s%s\n", label, "", o->help);
		else
			printf("    %-26s  %s\n", label, o->help);
	}
	if (opts_writes_files(opts))
		printf("    %-26s  %s\n", "--mode MODE", opts_mode_help);
	printf("    %-26s  %s\n", "-h, --help", "show this help");
	if (doc->examples) {
		printf("\nexamples:\n");
		print_indented(doc->examples, "    ");
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
