/* opts.c: table-driven option parsing (see opts.h); --help and man pages are opts-help.c. */
#include "cli/opts.h"
#include "cli/opts-internal.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "base/alloc.h"
#include "base/file.h"
#include "base/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool opts_takes_arg(const struct opt *o)
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
bool opts_writes_files(const struct opt *opts)
{
	for (const struct opt *o = opts; o->type != OPT_T_END; o++)
		if (o->long_name && !strcmp(o->long_name, "output"))
			return true;
	return false;
}

const char opts_mode_help[] = "create the files written (-o, --html) with MODE (octal; default 0600, "
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

/*
 * The long option argv[*i] ("--name", "--name=value", "--no-flag", "--mode M"):
 * store it, taking its value from the next argument when needed (*i moves on).
 * Returns 0 or OPTS_USAGE (the message printed).
 */
static int parse_long(const struct opt *opts, const struct cmd_doc *doc, int argc, char **argv, int *ip)
{
	const char *cmd = doc->name;
	const char *name = argv[*ip] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	bool negated;
	const struct opt *o;
	int found = opts_find_long(opts, cmd, name, len, &o, &negated);

	if (found == OPTS_LONG_AMBIGUOUS)
		return OPTS_USAGE;
	if (found == OPTS_LONG_MODE) {
		if (!eq && *ip + 1 >= argc) {
			msg_usage(cmd, "option '--mode' needs a value (MODE)");
			return OPTS_USAGE;
		}
		return parse_mode(cmd, eq ? eq + 1 : argv[++*ip]) ? OPTS_USAGE : 0;
	}
	if (found == OPTS_LONG_UNKNOWN) {
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
		return 0;
	}
	if (negated) {
		msg_usage(cmd, "unknown option '--%.*s'", (int)len, name);
		return OPTS_USAGE;
	}
	const char *arg = eq ? eq + 1 : NULL;
	if (!arg) {
		if (*ip + 1 >= argc) {
			msg_usage(cmd, "option '--%s' needs a value (%s)", o->long_name,
				  o->argh ? o->argh : "VALUE");
			return OPTS_USAGE;
		}
		arg = argv[++*ip];
	}
	return set_value(o, arg, cmd) ? OPTS_USAGE : 0;
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
		if (!strcmp(a, "--completion-spec")) {
			opts_print_completion_spec(opts, doc);
			return OPTS_HELP_SHOWN;
		}
		if (a[1] == '-') {
			if (parse_long(opts, doc, argc, argv, &i))
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

