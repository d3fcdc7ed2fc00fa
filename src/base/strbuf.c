/* strbuf.c: growing string buffer (see strbuf.h). */
#include "base/strbuf.h"
#include "base/alloc.h"

#include <stdio.h>
#include <string.h>

#define STRBUF_DEFAULT_CAP ((size_t)64 << 20)

char strbuf_empty[1];

void strbuf_init(struct strbuf *sb, size_t cap)
{
	sb->buf = strbuf_empty;
	sb->len = 0;
	sb->alloc = 0;
	sb->cap = cap;
	sb->failed = false;
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		tdp_free(sb->buf);
	strbuf_init(sb, sb->cap);
}

static size_t effective_cap(const struct strbuf *sb)
{
	return sb->cap ? sb->cap : STRBUF_DEFAULT_CAP;
}

/* Make room for `extra` more bytes plus the NUL. Returns false (and fails sb) if not. */
static bool reserve(struct strbuf *sb, size_t extra)
{
	size_t need;
	char *p;

	if (sb->failed)
		return false;
	if (extra > effective_cap(sb) - sb->len) {
		sb->failed = true;
		return false;
	}
	need = sb->len + extra + 1;
	if (need <= sb->alloc)
		return true;
	if (!sb->alloc) {
		size_t a = need < 64 ? 64 : need;

		p = tdp_malloc(a);
		if (!p) {
			sb->failed = true;
			return false;
		}
		p[0] = '\0';
		sb->buf = p;
		sb->alloc = a;
		return true;
	}
	p = sb->buf;
	if (tdp_grow((void **)&p, &sb->alloc, need, 1)) {
		sb->failed = true;
		return false;
	}
	sb->buf = p;
	return true;
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	if (!reserve(sb, len))
		return;
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_adds(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

void strbuf_add_shell_word(struct strbuf *sb, const char *word)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+./:=,@%";

	if (*word && strspn(word, safe) == strlen(word)) {
		strbuf_adds(sb, word);
		return;
	}
	strbuf_addch(sb, '\'');
	for (; *word; word++)
		if (*word == '\'')
			strbuf_adds(sb, "'\\''");
		else
			strbuf_addch(sb, *word);
	strbuf_addch(sb, '\'');
}

void strbuf_add_shell_words(struct strbuf *sb, char *const *argv)
{
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			strbuf_addch(sb, ' ');
		strbuf_add_shell_word(sb, argv[i]);
	}
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	if (sb->failed)
		return;
	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0) {
		sb->failed = true;
		return;
	}
	if (!reserve(sb, (size_t)n))
		return;
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (len > sb->len || !sb->alloc)
		return;
	sb->len = len;
	sb->buf[len] = '\0';
}

char *strbuf_detach(struct strbuf *sb)
{
	char *s;

	if (sb->failed) {
		strbuf_release(sb);
		sb->failed = false;
		return NULL;
	}
	s = sb->alloc ? sb->buf : tdp_strdup("");
	strbuf_init(sb, sb->cap);
	return s;
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 (RFC 3629: no overlongs, surrogates or > U+10FFFF). */
static size_t utf8_len(const unsigned char *s, size_t left)
{
	size_t n;
	unsigned lo = 0x80, hi = 0xbf;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (n > left)
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

void strbuf_add_printable(struct strbuf *sb, const char *s, size_t len, bool keep_lines)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0; i < len;) {
		size_t n = utf8_len(u + i, len - i);
		bool c0 = n == 1 && (u[i] < 0x20 || u[i] == 0x7f) && !(keep_lines && (u[i] == '\n' || u[i] == '\t'));
		bool c1 = n == 2 && u[i] == 0xc2 && u[i + 1] < 0xa0;

		if (!n || c0 || c1) {
			for (size_t k = 0; k < (n ? n : 1); k++)
				strbuf_addf(sb, "\\x%02x", u[i + k]);
			i += n ? n : 1;
			continue;
		}
		strbuf_add(sb, s + i, n);
		i += n;
	}
}

void strbuf_add_name(struct strbuf *sb, const char *s)
{
	strbuf_add_printable(sb, s, strlen(s), false);
}

void strbuf_add_csv_field_sep(struct strbuf *sb, const char *s, const char *sep)
{
	struct strbuf t = STRBUF_INIT;
	const char *v;

	if (!s)
		return;
	if (!sep || !*sep)
		sep = ",";
	strbuf_add_name(&t, s);
	v = strbuf_failed(&t) ? "" : t.buf;
	if (!strstr(v, sep) && !strpbrk(v, "\"\r\n")) {
		strbuf_adds(sb, v);
	} else {
		strbuf_addch(sb, '"');
		for (; *v; v++) {
			if (*v == '"')
				strbuf_addch(sb, '"');
			strbuf_addch(sb, *v);
		}
		strbuf_addch(sb, '"');
	}
	strbuf_release(&t);
}

void strbuf_add_csv_field(struct strbuf *sb, const char *s)
{
	strbuf_add_csv_field_sep(sb, s, ",");
}
