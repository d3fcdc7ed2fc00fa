/* util.c: lines, numbers, rows and metrics shared by the perf stat readers. */
#include "import/import-internal.h"
#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Longest number we accept, in bytes (perf's widest is about 26). */
#define IMP_MAX_NUMBER 64

int imp_next_line(struct imp_parser *p, char **out)
{
	const uint8_t *start, *nl;
	size_t n;

	if (p->off >= p->len)
		return 0;
	start = p->buf + p->off;
	nl = memchr(start, '\n', p->len - p->off);
	n = nl ? (size_t)(nl - start) : p->len - p->off;
	p->lineno++;
	if (n > IMPORT_MAX_LINE)
		return imp_fail(p, TDP_ELIMIT, "line is longer than %d bytes", IMPORT_MAX_LINE);
	if (memchr(start, '\0', n))
		return imp_fail(p, TDP_EFORMAT, "holds a NUL byte (binary data, not perf stat output)");
	p->off += n + (nl ? 1 : 0);
	if (n && start[n - 1] == '\r')
		n--;
	memcpy(p->line, start, n);
	p->line[n] = '\0';
	*out = p->line;
	return 1;
}

int imp_fail(struct imp_parser *p, int code, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (!p->err || p->err->code)
		return code;
	strbuf_addf(&sb, "'%s': line %zu: ", p->name, p->lineno);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (strbuf_failed(&sb))
		tdp_err_set(p->err, code, "'%s': line %zu: %s", p->name, p->lineno, tdp_strerror(code));
	else
		tdp_err_set(p->err, code, "%s", sb.buf);
	strbuf_release(&sb);
	return code;
}

static bool name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n > IMPORT_MAX_NAME)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

int imp_add_row(struct imp_parser *p, const struct imp_row *row)
{
	struct imp_row *r;
	char *ev, *unit, *slice;

	if (!row->event[0])
		return imp_fail(p, TDP_EFORMAT, "a count without an event name");
	/* The slice is an internal key (fields joined with 0x1f): only the names are checked. */
	if (!name_ok(row->event) || !name_ok(row->unit))
		return imp_fail(p, TDP_ELIMIT, "a name longer than %d bytes or with control characters",
				IMPORT_MAX_NAME);
	if (p->nr_rows >= IMPORT_MAX_ROWS)
		return imp_fail(p, TDP_ELIMIT, "more than %d counts", IMPORT_MAX_ROWS);
	if (TDP_GROW(p->rows, p->alloc_rows, p->nr_rows + 1))
		return tdp_err_oom(p->err);
	ev = tdp_strdup(row->event);
	unit = tdp_strdup(row->unit);
	slice = tdp_strdup(row->slice);
	if (!ev || !unit || !slice) {
		tdp_free(ev);
		tdp_free(unit);
		tdp_free(slice);
		return tdp_err_oom(p->err);
	}
	r = &p->rows[p->nr_rows++];
	*r = *row;
	r->event = ev;
	r->unit = unit;
	r->slice = slice;
	r->line = p->lineno;
	r->run = p->run;
	return 0;
}

/* Units perf prints after a metric's number that are not a name by themselves. */
static bool is_metric_unit_word(const char *w, size_t n)
{
	if (n == 0 || n > 16)
		return false;
	if (memchr(w, '/', n))
		return true; /* "K/sec", "M/sec", "/sec", "MB/s" */
	return (n == 3 && !memcmp(w, "GHz", 3)) || (n == 3 && !memcmp(w, "MHz", 3));
}

int imp_add_metric(struct imp_parser *p, double value, const char *text, bool pct_glued)
{
	const char *t = text, *end, *w_end, *rest;
	struct imp_pmetric *m;
	char *name = NULL, *unit = NULL;
	size_t tn;

	while (*t == ' ' || *t == '\t')
		t++;
	end = t + strlen(t);
	while (end > t && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	tn = (size_t)(end - t);
	if (!p->nr_rows || (!tn && !pct_glued))
		return 0;
	if (tn > IMPORT_MAX_NAME)
		return imp_fail(p, TDP_ELIMIT, "a metric name longer than %d bytes", IMPORT_MAX_NAME);
	if (p->nr_metrics >= IMPORT_MAX_METRICS)
		return imp_fail(p, TDP_ELIMIT, "more than %d metrics", IMPORT_MAX_METRICS);

	/*
	 * perf prints "%  name" for metrics of its JSON tables, "2.51% of all
	 * branches" (the '%' on the number) for its built-in ratios, "5.474 GHz" and
	 * "1.757 K/sec" for rates, "1.001 CPUs utilized" otherwise.
	 */
	for (w_end = t; w_end < end && *w_end != ' ' && *w_end != '\t'; w_end++)
		;
	rest = w_end;
	while (rest < end && (*rest == ' ' || *rest == '\t'))
		rest++;
	if (pct_glued) {
		unit = tdp_strdup("%");
		name = tn ? tdp_strndup(t, tn) : tdp_strdup("%");
	} else if (*t == '%') {
		const char *n0 = t + 1;

		while (n0 < end && (*n0 == ' ' || *n0 == '\t'))
			n0++;
		unit = tdp_strdup("%");
		name = n0 < end ? tdp_strndup(n0, (size_t)(end - n0)) : tdp_strdup("%");
	} else if (is_metric_unit_word(t, (size_t)(w_end - t))) {
		unit = tdp_strndup(t, (size_t)(w_end - t));
		name = rest < end ? tdp_strndup(rest, (size_t)(end - rest)) : tdp_strndup(t, (size_t)(w_end - t));
	} else {
		unit = tdp_strdup("");
		name = tdp_strndup(t, tn);
	}
	if (!unit || !name || TDP_GROW(p->metrics, p->alloc_metrics, p->nr_metrics + 1)) {
		tdp_free(unit);
		tdp_free(name);
		return tdp_err_oom(p->err);
	}
	m = &p->metrics[p->nr_metrics++];
	m->row = p->nr_rows - 1;
	m->value = value;
	m->name = name;
	m->unit = unit;
	return 0;
}

int imp_note(struct import_result *r, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	char *s;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	s = strbuf_detach(&sb);
	if (!s)
		return TDP_ENOMEM;
	if (TDP_GROW(r->notes, r->alloc_notes, r->nr_notes + 1)) {
		tdp_free(s);
		return TDP_ENOMEM;
	}
	r->notes[r->nr_notes++] = s;
	return 0;
}

static bool strtod_all(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno == ERANGE || !isfinite(v))
		return false;
	*out = v;
	return true;
}

bool imp_parse_decimal(const char *s, bool allow_sign, double *out)
{
	size_t i = 0, digits = 0, n = strlen(s);

	if (n == 0 || n > IMP_MAX_NUMBER)
		return false;
	if (s[i] == '-' || s[i] == '+') {
		if (!allow_sign)
			return false;
		i++;
	}
	for (; isdigit((unsigned char)s[i]); i++)
		digits++;
	if (s[i] == '.')
		for (i++; isdigit((unsigned char)s[i]); i++)
			digits++;
	if (!digits)
		return false;
	if (s[i] == 'e' || s[i] == 'E') {
		size_t exp_digits = 0;

		i++;
		if (s[i] == '-' || s[i] == '+')
			i++;
		for (; isdigit((unsigned char)s[i]); i++)
			exp_digits++;
		if (!exp_digits)
			return false;
	}
	if (s[i])
		return false;
	return strtod_all(s, out);
}

/*
 * The thousands separator at s, as perf's %' prints it under some locale: ','
 * (C/English) or '.' (de_DE...), whichever is not the decimal mark; ' ' (joined
 * back by text.c), U+00A0 and U+202F (fr_FR...), U+2009, '\'' (de_CH). Returns its
 * length in bytes, 0 when s holds none.
 */
static size_t group_sep_len(const char *s, char dec)
{
	const unsigned char *u = (const unsigned char *)s;

	if (*s == ' ' || *s == '\'' || *s == (dec == '.' ? ',' : '.'))
		return 1;
	if (u[0] == 0xc2 && u[1] == 0xa0)
		return 2;
	if (u[0] == 0xe2 && u[1] == 0x80 && (u[2] == 0xaf || u[2] == 0x89))
		return 3;
	return 0;
}

bool imp_parse_count_in(const char *s, char dec, double *out)
{
	char clean[IMP_MAX_NUMBER + 1];
	size_t i = 0, o = 0, group = 0, groups = 0, n = strlen(s), sep_len = 0;
	const char *sep = NULL;

	if (n == 0 || n > IMP_MAX_NUMBER || (dec != '.' && dec != ','))
		return false;
	/*
	 * Integer part: digits, optionally with one kind of thousands separator
	 * between groups: the first of 1-3 digits, every later one of 3.
	 */
	for (; s[i] && s[i] != dec;) {
		size_t k;

		if (isdigit((unsigned char)s[i])) {
			clean[o++] = s[i++];
			group++;
		} else if ((k = group_sep_len(s + i, dec))) {
			if (group == 0 || group > 3 || (groups > 0 && group != 3))
				return false;
			if (sep && (k != sep_len || memcmp(sep, s + i, k)))
				return false; /* "1,234.567 890": two kinds of separator */
			sep = s + i;
			sep_len = k;
			groups++;
			group = 0;
			i += k;
		} else {
			return false;
		}
	}
	if (o == 0 || (groups > 0 && group != 3))
		return false;
	if (s[i] == dec) {
		size_t frac = 0;

		clean[o++] = '.';
		for (i++; isdigit((unsigned char)s[i]); i++, frac++)
			clean[o++] = s[i];
		if (!frac || s[i])
			return false;
	}
	clean[o] = '\0';
	return strtod_all(clean, out);
}

bool imp_parse_count(const char *s, double *out)
{
	return imp_parse_count_in(s, '.', out);
}

/* s with a decimal comma made a decimal point, in buf; NULL when too long. */
static const char *point_decimal(const char *s, char dec, char *buf, size_t size)
{
	size_t n = strlen(s);
	char *c;

	if (dec != ',')
		return s;
	if (n >= size || strchr(s, '.'))
		return n >= size ? NULL : s;
	memcpy(buf, s, n + 1);
	if ((c = strchr(buf, ',')) && !strchr(c + 1, ','))
		*c = '.';
	return buf;
}

bool imp_parse_decimal_in(const char *s, char dec, bool allow_sign, double *out)
{
	char buf[IMP_MAX_NUMBER + 1];
	const char *t = point_decimal(s, dec, buf, sizeof(buf));

	return t && imp_parse_decimal(t, allow_sign, out);
}

bool imp_parse_pct_in(const char *s, char dec, double *out)
{
	char buf[IMP_MAX_NUMBER + 1];
	const char *t = point_decimal(s, dec, buf, sizeof(buf));

	return t && imp_parse_pct(t, out);
}

bool imp_is_prompt(const char *line)
{
	const char *s = line, *end;
	char last;

	while (*s == ' ' || *s == '\t')
		s++;
	/* "[user@host dir]$ ...": the bracketed part may hold blanks */
	if (*s == '[' && (end = strchr(s, ']')) && end[1] && strchr("$#%>", end[1]))
		return strchr(s, '@') && strchr(s, '@') < end;
	for (end = s; *end && *end != ' ' && *end != '\t'; end++)
		;
	if (end == s)
		return false;
	last = end[-1];
	/* perf's own lines: counts, CSV fields, "#" metric lines, "(50.00%)" */
	for (const char *c = s; c < end; c++)
		if (*c == ',' || *c == ';' || *c == '=' || *c == '(')
			return false;
	if (end - s == 1)
		return last == '$' || last == '%' || last == '>';
	if (!strchr("$#%>", last))
		return false;
	/* longer words: user@host:dir$, root@host:~#, ~/src$, /tmp% */
	return memchr(s, '@', (size_t)(end - s)) || (last != '#' && (*s == '~' || *s == '/'));
}

bool imp_parse_pct(const char *s, double *out)
{
	char tmp[IMP_MAX_NUMBER + 1];
	size_t n = strlen(s);
	double v;

	if (n == 0 || n > IMP_MAX_NUMBER)
		return false;
	memcpy(tmp, s, n + 1);
	if (tmp[n - 1] == '%')
		tmp[n - 1] = '\0';
	if (!imp_parse_decimal(tmp, false, &v) || v > 100.01)
		return false;
	*out = v > 100.0 ? 100.0 : v;
	return true;
}

bool imp_parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return false;
		if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, (uint64_t)(*s - '0'), &v))
			return false;
	}
	*out = v;
	return true;
}

bool imp_is_not_marker(const char *s)
{
	size_t n = strlen(s);

	return n > 6 && !strncmp(s, "<not ", 5) && s[n - 1] == '>';
}

enum count_status imp_not_status(const char *s)
{
	return !strcmp(s, "<not supported>") ? COUNT_NOT_SUPPORTED : COUNT_NOT_COUNTED;
}

size_t imp_split(char *line, char sep, char **f, size_t max)
{
	size_t n = 0;
	char *s = line;

	for (;;) {
		char *e = strchr(s, sep);

		if (n == max)
			return max + 1;
		f[n++] = s;
		if (!e)
			break;
		*e = '\0';
		s = e + 1;
	}
	return n;
}

void imp_comment(struct imp_parser *p, const char *line)
{
	while (*line == ' ' || *line == '\t' || *line == '#')
		line++;
	if (!strncmp(line, "started on", 10) && p->nr_rows && p->rows[p->nr_rows - 1].run == p->run)
		p->run++;
}
