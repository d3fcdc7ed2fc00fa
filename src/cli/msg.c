/* msg.c: diagnostics on stderr, one style for the whole tool (see msg.h). */
#include "cli/msg.h"
#include "cli/exitcode.h"
#include "cli/progress.h"
#include "base/err.h"
#include "base/strbuf.h"

#include <stdarg.h>
#include <stdio.h>

/*
 * --quiet is a property of the process's stderr, set once in main() before any
 * command runs; keeping it here avoids threading it through every module.
 */
static bool quiet;

void msg_set_quiet(bool q)
{
	quiet = q;
}

bool msg_quiet(void)
{
	return quiet;
}

/*
 * Messages quote names and values from the input, which may be hostile: control
 * characters (an escape sequence would reach the user's terminal) and bytes that
 * are not UTF-8 are written as \xNN (base/strbuf.h strbuf_add_printable()).
 * Newlines and tabs stay.
 */
static void put_escaped(const char *s, size_t len)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_add_printable(&sb, s, len, true);
	if (strbuf_failed(&sb)) {
		for (size_t i = 0; i < len; i++)
			fputc((unsigned char)s[i] < 0x20 && s[i] != '\n' && s[i] != '\t' ? '?' : s[i], stderr);
	} else {
		fwrite(sb.buf, 1, sb.len, stderr);
	}
	strbuf_release(&sb);
}

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;
	va_list copy;

	progress_hold(); /* a live progress line (progress.h) is erased first */
	fputs("tdprof: ", stderr);
	if (kind)
		fprintf(stderr, "%s: ", kind);
	va_copy(copy, ap);
	strbuf_vaddf(&sb, fmt, copy);
	va_end(copy);
	if (strbuf_failed(&sb))
		vfprintf(stderr, fmt, ap);
	else
		put_escaped(sb.buf, sb.len);
	strbuf_release(&sb);
	fputc('\n', stderr);
	progress_release();
}

#define DEFINE_MSG(fn, kind, cond)              \
	void fn(const char *fmt, ...)           \
	{                                       \
		va_list ap;                     \
		if (!(cond))                    \
			return;                 \
		va_start(ap, fmt);              \
		vmsg(kind, fmt, ap);            \
		va_end(ap);                     \
	}

DEFINE_MSG(msg_error, "error", 1)
DEFINE_MSG(msg_warning, "warning", 1)
DEFINE_MSG(msg_hint, "hint", 1)
DEFINE_MSG(msg_note, "note", !quiet)
DEFINE_MSG(msg_progress, NULL, !quiet)

void msg_err(const struct tdp_err *err)
{
	if (!err->code)
		return;
	msg_error("%s", err->msg[0] ? err->msg : tdp_strerror(err->code));
	if (err->hint[0])
		msg_hint("%s", err->hint);
}

int msg_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error", fmt, ap);
	va_end(ap);
	progress_hold();
	if (cmd)
		fprintf(stderr, "tdprof: try 'tdprof %s --help'\n", cmd);
	else
		fputs("tdprof: try 'tdprof --help'\n", stderr);
	progress_release();
	return EXIT_USAGE;
}
