/*
 * main.c: the command table and the global options. Everything else happens in
 * the commands (cmd-*.c).
 */
#include "cli/cmd.h"
#include "cli/colour.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "base/file.h"
#include "base/sigfwd.h"
#include "cli/opts.h"
#include "cli/progress.h"
#include "base/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef TDPROF_VERSION
#define TDPROF_VERSION "unknown"
#endif

struct command {
	const char *name;
	cmd_fn *fn;
	const char *summary;
};

/* Listed in the order of the workflow (design.md), tools last; see commands.h. */
static const struct command commands[] = {
#define CMD(name) { #name, cmd_##name, cmd_##name##_summary },
#include "commands.h"
#undef CMD
	{ "help", NULL, "show the help of a command ('tdprof help stat')" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void print_usage(FILE *f)
{
	fputs("usage: tdprof [--version] [--help] [-q] [-v] [--color=WHEN] COMMAND [ARGS]\n\n"
	      "tdprof answers \"why is my code slow, where, and what do I change?\":\n"
	      "it classifies the bottleneck from hardware counters (top-down), traces the\n"
	      "code responsible, and ends every finding with a next step.\n\n"
	      "commands:\n",
	      f);
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "    %-10s  %s\n", commands[i].name, commands[i].summary);
	fputs("\n'tdprof COMMAND --help' explains a command; 'tdprof info' tells what this\n"
	      "machine can measure.\n",
	      f);
}

/* The tdprof(1) man page: the commands and what every command shares. */
static void print_man(void)
{
	fputs(".TH TDPROF 1 \"\" \"tdprof\" \"tdprof manual\"\n"
	      ".SH NAME\ntdprof \\- top\\-down profiling: why is my code slow, where, and what do I change\n"
	      ".SH SYNOPSIS\n.B tdprof\n[\\-\\-version] [\\-\\-help] [\\-q] [\\-v] [\\-\\-color=WHEN] COMMAND [ARGS]\n"
	      ".SH DESCRIPTION\n"
	      "tdprof classifies a workload's bottleneck from hardware performance counters into the top\\-down "
	      "buckets (Retiring, Bad Speculation, Frontend Bound, Backend Bound, then the level below), traces "
	      "the code responsible (branch stacks, Arm SPE, or a simulation where no PMU exists), and ends "
	      "every finding with a concrete next step.\n"
	      ".PP\nThe workflow: triage with \\fBtdprof stat\\fR, classify with \\fBtdprof topdown\\fR, "
	      "trace with \\fBtdprof branches\\fR, isolate and measure a fix with \\fBtdprof loop\\fR; "
	      "or all of it at once with \\fBtdprof why\\fR.\n"
	      ".SH COMMANDS\n",
	      stdout);
	for (size_t i = 0; i < NR_COMMANDS; i++) {
		if (!commands[i].fn)
			continue;
		printf(".TP\n.BR tdprof\\-%s (1)\n%s\n", commands[i].name, commands[i].summary);
	}
	fputs(".SH OPTIONS\n"
	      ".TP\n.B \\-q, \\-\\-quiet\nno progress lines or notes on standard error\n"
	      ".TP\n.B \\-\\-color=WHEN, \\-\\-colour=WHEN\ncolour the verdict, the nodes above their threshold, the "
	      "bars and the hottest rows: auto (on a terminal, the default), always (also \\-\\-color) or never "
	      "(also \\-\\-no\\-color)\n"
	      ".TP\n.B \\-v, \\-\\-verbose\nmore detail (repeatable)\n"
	      ".TP\n.B \\-\\-version\nprint the version\n"
	      ".SH ENVIRONMENT\n"
	      ".TP\n.B NO_COLOR\nany value but the empty one: no colour with \\-\\-color=auto (no\\-color.org)\n"
	      ".TP\n.B TERM\n\\(lqdumb\\(rq: no colour with \\-\\-color=auto, and no live progress line\n"
	      ".TP\n.B COLUMNS\nthe width text wraps to (default: the terminal's, else 80)\n"
	      ".TP\n.B DEBUGINFOD_URLS\nservers to fetch missing debug information from (debuginfod(8))\n"
	      ".SH EXIT STATUS\n",
	      stdout);
	for (const char *p = opts_common_exit_status; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		printf("%.*s\n.br\n", (int)n, p);
		p += n;
		if (*p == '\n')
			p++;
	}
	fputs(".SH SEE ALSO\nperf(1), perf\\-stat(1), perf\\-record(1), valgrind(1)\n", stdout);
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* perf's commands that are subcommands or other commands here */
static const struct {
	const char *perf, *tdprof;
} perf_words[] = {
	{ "record", "branches record" },
	{ "report", "branches report" },
	{ "script", "branches report" },
};

static int unknown_command(const char *name)
{
	const char *names[NR_COMMANDS];
	size_t idx[3], n;

	for (size_t i = 0; i < NR_COMMANDS; i++)
		names[i] = commands[i].name;
	msg_error("'%s' is not a tdprof command", name);
	for (size_t i = 0; i < sizeof(perf_words) / sizeof(perf_words[0]); i++)
		if (!strcmp(name, perf_words[i].perf)) {
			msg_hint("did you mean 'tdprof %s'?", perf_words[i].tdprof);
			fputs("tdprof: try 'tdprof --help'\n", stderr);
			return EXIT_USAGE;
		}
	n = str_suggest(name, names, NR_COMMANDS, idx, 3);
	for (size_t i = 0; i < n; i++)
		msg_hint("did you mean 'tdprof %s'?", names[idx[i]]);
	fputs("tdprof: try 'tdprof --help'\n", stderr);
	return EXIT_USAGE;
}

/*
 * --color[=WHEN], --colour[=WHEN] (git's and perf's spellings; alone: always) and
 * --no-color: true when a is one, *when set to its enum colour_when, or to -1
 * for a WHEN that is not one.
 */
static bool colour_option(const char *a, int *when)
{
	enum colour_when w;
	const char *v;

	if (!strcmp(a, "--no-color") || !strcmp(a, "--no-colour")) {
		*when = COLOUR_NEVER;
		return true;
	}
	if (strncmp(a, "--color", 7) && strncmp(a, "--colour", 8))
		return false;
	v = a + (a[6] == 'u' ? 8 : 7);
	if (!*v) {
		*when = COLOUR_ALWAYS;
		return true;
	}
	if (*v != '=')
		return false;
	*when = colour_parse(v + 1, &w) ? (int)w : -1;
	return true;
}

const char *tdp_exe_path(void)
{
	static char exe[4096];
	ssize_t n;

	if (!exe[0]) {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
	}
	return exe[0] ? exe : NULL;
}

int main(int argc, char **argv)
{
	struct tdp_ctx ctx = { 0 };
	const struct command *c;
	int i, status, when = COLOUR_AUTO;

	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	tdp_file_guard_install(); /* an input truncated under its mapping: a message, not SIGBUS */
	ctx.stdout_tty = isatty(STDOUT_FILENO);

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (colour_option(a, &when)) {
			if (when < 0)
				return msg_usage(NULL, "'%s': WHEN is auto, always or never", a);
		} else if (!strcmp(a, "--version")) {
			printf("tdprof %s\n", TDPROF_VERSION);
			return EXIT_OK;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			print_usage(stdout);
			return EXIT_OK;
		} else if (!strcmp(a, "--man")) {
			print_man();
			return EXIT_OK;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			msg_set_quiet(true);
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			ctx.verbose++;
		} else {
			return msg_usage(NULL, "unknown option '%s'", a);
		}
	}
	ctx.palette = colour_palette((enum colour_when)when, ctx.stdout_tty, getenv("NO_COLOR"), getenv("TERM"));
	progress_allow(isatty(STDERR_FILENO) && !msg_quiet() && !(getenv("TERM") && !strcmp(getenv("TERM"), "dumb")));
	if (i >= argc) {
		print_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[i], "help")) {
		/* 'tdprof help branches record' is 'tdprof branches record --help' */
		char help[] = "--help";
		char *hargv[8];
		int n = 0;

		if (i + 1 >= argc) {
			print_usage(stdout);
			return EXIT_OK;
		}
		c = find_command(argv[i + 1]);
		if (!c || !c->fn)
			return unknown_command(argv[i + 1]);
		for (int k = i + 1; k < argc && n < 6; k++)
			hargv[n++] = argv[k];
		hargv[n++] = help;
		hargv[n] = NULL;
		return c->fn(n, hargv, &ctx);
	}
	c = find_command(argv[i]);
	if (!c || !c->fn)
		return unknown_command(argv[i]);
	status = c->fn(argc - i, argv + i, &ctx);
	/* a SIGINT/SIGTERM/SIGHUP passed on to a child (base/sigfwd.h) ends the command as it would the child */
	if (tdp_sigfwd_received())
		status = exitcode_signal(tdp_sigfwd_received());
	return status;
}
