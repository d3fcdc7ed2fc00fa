/* fit.c: text that fits its column (see fit.h). */
#include "report/fit.h"

#include <stdio.h>
#include <string.h>

size_t fit_columns(unsigned columns)
{
	if (!columns)
		return FIT_DEFAULT_COLUMNS;
	return columns < FIT_MIN_COLUMNS ? FIT_MIN_COLUMNS : columns > FIT_MAX_COLUMNS ? FIT_MAX_COLUMNS : columns;
}

/* Columns of a UTF-8 string (one per code point: what a terminal shows for these names). */
static size_t width_of(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* The byte offset after the first `cols` code points of s. */
static size_t bytes_for(const char *s, size_t cols)
{
	size_t i = 0, n = 0;

	for (; s[i]; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80) {
			if (n == cols)
				break;
			n++;
		}
	}
	return i;
}

char *fit_name(const char *s, size_t w, char *buf, size_t size)
{
	size_t keep;

	if (!size)
		return buf;
	if (!s)
		s = "";
	if (width_of(s) <= w || w < 4) {
		snprintf(buf, size, "%s", s);
		return buf;
	}
	keep = bytes_for(s, w - 3);
	snprintf(buf, size, "%.*s...", (int)keep, s);
	return buf;
}

/* "/rustc/<hex>/" at p, 40 hex digits (a commit) or more: the length of the hex part, else 0. */
static size_t rustc_hash(const char *p)
{
	size_t n = 0;

	if (strncmp(p, "/rustc/", 7))
		return 0;
	p += 7;
	while ((p[n] >= '0' && p[n] <= '9') || (p[n] >= 'a' && p[n] <= 'f'))
		n++;
	return n >= 12 && p[n] == '/' ? n : 0;
}

char *fit_path(const char *s, size_t w, char *buf, size_t size)
{
	char tmp[4096];
	size_t o = 0, cols;
	const char *tail;

	if (!size)
		return buf;
	if (!s)
		s = "";
	for (const char *p = s; *p && o + 1 < sizeof(tmp);) {
		size_t h = rustc_hash(p);

		if (h && o + 12 < sizeof(tmp)) {
			memcpy(tmp + o, "/rustc/...", 10);
			o += 10;
			p += 7 + h;
			continue;
		}
		tmp[o++] = *p++;
	}
	tmp[o] = '\0';
	cols = width_of(tmp);
	if (cols <= w || w < 4) {
		snprintf(buf, size, "%s", tmp);
		return buf;
	}
	/* whole components first: ".../dir/file.c:12", else the file name alone, else its end */
	for (const char *p = tmp; (p = strchr(p, '/')); p++) {
		if (width_of(p + 1) + 4 <= w) {
			snprintf(buf, size, ".../%s", p + 1);
			return buf;
		}
	}
	tail = strrchr(tmp, '/');
	if (tail && width_of(tail + 1) <= w) {
		snprintf(buf, size, "%s", tail + 1);
		return buf;
	}
	tail = tmp + bytes_for(tmp, cols - (w - 3));
	snprintf(buf, size, "...%s", tail);
	return buf;
}
