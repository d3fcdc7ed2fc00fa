/* opts.c: table-driven option parsing, --help and man pages (see opts.h). */
#include "cli/opts.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "base/alloc.h"
#include "base/file.h"
#include "base/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char opts_common_exit_status[] =
	"0: success.\n"
	"N: when a workload ran, its own exit status; 128+N when it died of signal N, as a shell reports it.\n"
	"126: the workload exists but cannot be executed (check its permissions).\n"
	"127: the workload was not found (check the name and PATH).\n"
	"1: the analysis failed (the message says why: no PMU, permissions, a helper failed).\n"
	"2: a usage error or bad input (the message names the option, file or offset).";

static bool takes_arg(const struct opt *o)
{
	return o->type == OPT_T_STRING || o->type == OPT_T_LIST || o->type == OPT_T_LONG ||
	       o->type == OPT_T_DOUBLE || o->type == OPT_T_CHOICE;
}

static void opt_name(const struct opt *o, char *buf, size_t size)
{
	if (o->long_name)
		snprintf(buf, size, "--%s", o->long_name);
	else
		snprintf(buf, size, "-%c", o->short_name);
}

static bool choice_ok(const char *choices, const char *arg)
{
	size_t la = strlen(arg);

	for (const char *p = choices; *p;) {
		const char *bar = strchr(p, '|');
		size_t n = bar ? (size_t)(bar - p) : strlen(p);

		if (n == la && strncmp(p, arg, n) == 0)
			return true;
		if (!bar)
			break;
		p = bar + 1;
	}
	return false;
}

/* Store the argument of option o. Returns 0 or OPTS_USAGE (message printed). */
static int set_value(const struct opt *o, const char *arg, const char *cmd)
{
	char name[64];

	opt_name(o, name, sizeof(name));
	switch (o->type) {
	case OPT_T_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OPT_T_CHOICE:
		if (!choice_ok(o->argh, arg)) {
			msg_usage(cmd, "%s: '%s' is not one of %s", name, arg, o->argh);
			return OPTS_USAGE;
		}
		*(const char **)o->value = arg;
		return 0;
	case OPT_T_LIST: {
		char **dst = o->value;
		size_t old = *dst ? strlen(*dst) : 0, la = strlen(arg);
		char *p = tdp_reallocarray(*dst, old + la + 2, 1);

		if (!p) {
			msg_error("out of memory");
			return OPTS_USAGE;
		}
		if (old)
			p[old++] = ',';
		memcpy(p + old, arg, la + 1);
		*dst = p;
		return 0;
	}
	case OPT_T_LONG: {
		long v;

		if (!str_to_long(arg, o->min, o->max, &v)) {
			msg_usage(cmd, "%s: '%s' is not a whole number from %ld to %ld", name, arg, o->min, o->max);
			return OPTS_USAGE;
		}
		*(long *)o->value = v;
		return 0;
	}
	case OPT_T_DOUBLE: {
		double v;

		if (!str_to_double(arg, &v) || v < (double)o->min || v > (double)o->max) {
			msg_usage(cmd, "%s: '%s' is not a number from %ld to %ld", name, arg, o->min, o->max);
			return OPTS_USAGE;
		}
		*(double *)o->value = v;
		return 0;
	}
	default:
		return 0;
	}
}

static const struct opt *find_long(const struct opt *opts, const char *name, size_t len, bool *negated)
{
	*negated = false;
	for (const struct opt *o = opts; o->type != OPT_T_END; o++)
		if (o->long_name && strlen(o->long_name) == len && !strncmp(o->long_name, name, len))
			return o;
	if (len > 3 && !strncmp(name, "no-", 3)) {
		for (const struct opt *o = opts; o->type != OPT_T_END; o++)
			if (o->type == OPT_T_BOOL && o->long_name && strlen(o->long_name) == len - 3 &&
			    !strncmp(o->long_name, name + 3, len - 3)) {
				*negated = true;
				return o;
			}
	}
	return NULL;
}

static const struct opt *find_short(const struct opt *opts, char c)
{
	for (const struct opt *o = opts; o->type != OPT_T_END; o++)
		if (o->short_name && o->short_name == c)
			return o;
	return NULL;
}

/* perf's option that this command takes elsewhere: say where (a hint), true when found */
static bool hint_elsewhere(const struct cmd_doc *doc, char short_name, const char *long_name, size_t len)
{
	for (const struct opt_elsewhere *e = doc->elsewhere; e && (e->short_name || e->long_name); e++)
		if ((short_name && e->short_name == short_name) ||
		    (long_name && e->long_name && strlen(e->long_name) == len && !strncmp(e->long_name, long_name, len))) {
			msg_hint("%s", e->hint);
			return true;
		}
	return false;
}

static void suggest_long(const struct opt *opts, const char *wanted)
{
	const char *names[128];
	size_t nr = 0, idx[3], n;

	for (const struct opt *o = opts; o->type != OPT_T_END && nr < 128; o++)
		if (o->long_name)
			names[nr++] = o->long_name;
	n = str_suggest(wanted, names, nr, idx, 3);
	for (size_t i = 0; i < n; i++)
		msg_hint("did you mean '--%s'?", names[idx[i]]);
}

/* Commands that write files (-o) also take --mode: the mode those files are created with. */
static bool writes_files(const struct opt *opts)
{
	for (const struct opt *o = opts; o->type != OPT_T_END; o++)
		if (o->long_name && !strcmp(o->long_name, "output"))
			return true;
	return false;
}

static const char mode_help[] = "create the files written (-o, --html) with MODE (octal; default 0600, "
				"as they hold the recording's addresses)";

/* --mode MODE: octal 0..07777. Returns 0 or OPTS_USAGE (the message printed). */
static int parse_mode(const char *cmd, const char *arg)
{
	unsigned long v = 0;
	const char *c = arg;

	for (; *c >= '0' && *c <= '7' && v <= 07777; c++)
		v = v * 8 + (unsigned long)(*c - '0');
	if (!*arg || *c || v > 07777) {
		msg_usage(cmd, "--mode: '%s' is not an octal file mode (0000..7777, e.g. 0644)", arg);
		return OPTS_USAGE;
	}
	tdp_out_set_mode((unsigned)v);
	return 0;
}

int opts_parse(const struct opt *opts, const struct cmd_doc *doc, int argc, char **argv)
{
	const char *cmd = doc->name;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--"))
			return i + 1;
		if (a[0] != '-' || !a[1])
			return i;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			opts_print_help(opts, doc);
			return OPTS_HELP_SHOWN;
		}
		if (!strcmp(a, "--man")) {
			opts_print_man(opts, doc);
			return OPTS_HELP_SHOWN;
		}
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			bool negated;
			const struct opt *o = find_long(opts, name, len, &negated);

			if (!o && len == 4 && !strncmp(name, "mode", 4) && writes_files(opts)) {
				if (!eq && i + 1 >= argc) {
					msg_usage(cmd, "option '--mode' needs a value (MODE)");
					return OPTS_USAGE;
				}
				if (parse_mode(cmd, eq ? eq + 1 : argv[++i]))
					return OPTS_USAGE;
				continue;
			}

			if (!o) {
				msg_usage(cmd, "unknown option '--%.*s'", (int)len, name);
				if (!hint_elsewhere(doc, 0, name, len))
					suggest_long(opts, name);
				return OPTS_USAGE;
			}
			if (o->type == OPT_T_BOOL || o->type == OPT_T_COUNT) {
				if (eq) {
					msg_usage(cmd, "option '--%s' takes no value", o->long_name);
					return OPTS_USAGE;
				}
				if (o->type == OPT_T_BOOL)
					*(bool *)o->value = !negated;
				else
					(*(int *)o->value)++;
				continue;
			}
			if (negated) {
				msg_usage(cmd, "unknown option '--%.*s'", (int)len, name);
				return OPTS_USAGE;
			}
			const char *arg = eq ? eq + 1 : NULL;
			if (!arg) {
				if (i + 1 >= argc) {
					msg_usage(cmd, "option '--%s' needs a value (%s)", o->long_name,
						  o->argh ? o->argh : "VALUE");
					return OPTS_USAGE;
				}
				arg = argv[++i];
			}
			if (set_value(o, arg, cmd))
				return OPTS_USAGE;
			continue;
		}
		/* one or more short options: -a, -aq, -e X, -eX */
		for (const char *p = a + 1; *p; p++) {
			const struct opt *o = find_short(opts, *p);

			if (!o) {
				msg_usage(cmd, "unknown option '-%c'", *p);
				hint_elsewhere(doc, *p, NULL, 0);
				return OPTS_USAGE;
			}
			if (o->type == OPT_T_BOOL) {
				*(bool *)o->value = true;
				continue;
			}
			if (o->type == OPT_T_COUNT) {
				(*(int *)o->value)++;
				continue;
			}
			const char *arg = p[1] ? p + 1 : NULL;
			if (!arg) {
				if (i + 1 >= argc) {
					msg_usage(cmd, "option '-%c' needs a value (%s)", *p, o->argh ? o->argh : "VALUE");
					return OPTS_USAGE;
				}
				arg = argv[++i];
			}
			if (set_value(o, arg, cmd))
				return OPTS_USAGE;
			break;
		}
	}
	return i;
}

int opts_exit(int rc)
{
	return rc == OPTS_HELP_SHOWN ? EXIT_OK : EXIT_USAGE;
}

static void option_label(const struct opt *o, char *buf, size_t size)
{
	int n = 0;

	if (o->short_name && o->long_name)
		n = snprintf(buf, size, "-%c, --%s", o->short_name, o->long_name);
	else if (o->short_name)
		n = snprintf(buf, size, "-%c", o->short_name);
	else
		n = snprintf(buf, size, "    --%s", o->long_name);
	if (takes_arg(o) && n >= 0 && (size_t)n < size)
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
	if (writes_files(opts))
		printf("    %-26s  %s\n", "--mode MODE", mode_help);
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
	if (writes_files(opts)) {
		fputs(".TP\n.B ", stdout);
		roff("--mode MODE", strlen("--mode MODE"));
		putchar('\n');
		roff(mode_help, strlen(mode_help));
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
