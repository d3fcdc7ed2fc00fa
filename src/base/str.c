/* str.c: strict number parsing, event-name matching, suggestions (see str.h). */
#include "base/str.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool str_to_u64_n(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = 10;
	size_t i = 0;

	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == len)
		return false;
	for (; i < len; i++) {
		unsigned d;
		char c = s[i];

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return false;
		if (__builtin_mul_overflow(v, base, &v) || __builtin_add_overflow(v, d, &v))
			return false;
	}
	*out = v;
	return true;
}

bool str_to_u64(const char *s, uint64_t *out)
{
	return str_to_u64_n(s, strlen(s), out);
}

bool str_to_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!*s || isspace((unsigned char)*s))
		return false;
	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

bool str_to_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!*s || isspace((unsigned char)*s))
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return false;
	*out = v;
	return true;
}

int str_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool str_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool str_ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && memcmp(s + ls - lx, suffix, lx) == 0;
}

static int fold_event_char(unsigned char c)
{
	if (c == '.' || c == ':')
		return '_';
	return tolower(c);
}

bool str_event_name_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (fold_event_char((unsigned char)*a) != fold_event_char((unsigned char)*b))
			return false;
	return *a == *b;
}

#define EDIT_MAX 256

size_t str_edit_distance(const char *a, const char *b)
{
	/* Three rows of the Damerau-Levenshtein (optimal string alignment) table. */
	size_t la = strlen(a), lb = strlen(b);
	size_t rows[3][EDIT_MAX + 1];
	size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];

	if (la > EDIT_MAX || lb > EDIT_MAX)
		return SIZE_MAX / 2;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
			size_t cost = ca != cb;
			size_t best = prev[j] + 1;

			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (prev[j - 1] + cost < best)
				best = prev[j - 1] + cost;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
		size_t *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

static bool contains_ci(const char *hay, const char *needle)
{
	size_t ln = strlen(needle);

	if (!ln)
		return false;
	for (; *hay; hay++)
		if (strncasecmp(hay, needle, ln) == 0)
			return true;
	return false;
}

size_t str_suggest(const char *wanted, const char *const *names, size_t nr, size_t *out, size_t max_out)
{
	size_t n_out = 0;
	size_t dist[16];
	size_t wl = strlen(wanted);
	size_t limit = wl / 3 + 1;

	if (max_out > 16)
		max_out = 16;
	for (size_t i = 0; i < nr; i++) {
		size_t d = str_edit_distance(wanted, names[i]);

		if (d > limit) {
			/* a substring match ("misses" in "branch-misses") is a weaker hint */
			if (wl >= 4 && contains_ci(names[i], wanted))
				d = limit + 1 + strlen(names[i]) - wl;
			else
				continue;
		}
		/* insertion sort into the best max_out */
		size_t pos = n_out;
		while (pos > 0 && dist[pos - 1] > d)
			pos--;
		if (pos >= max_out)
			continue;
		if (n_out < max_out)
			n_out++;
		for (size_t k = n_out - 1; k > pos; k--) {
			out[k] = out[k - 1];
			dist[k] = dist[k - 1];
		}
		out[pos] = i;
		dist[pos] = d;
	}
	return n_out;
}

char *str_trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	*end = '\0';
	return s;
}

char *str_group_digits(const char *num, char *buf, size_t size)
{
	size_t start = (num[0] == '-' || num[0] == '+') ? 1 : 0, end = start, k = 0;

	if (!size)
		return buf;
	while (num[end] >= '0' && num[end] <= '9')
		end++;
	for (size_t i = 0; num[i] && k + 1 < size; i++) {
		buf[k++] = num[i];
		/* a comma after digit i when a multiple of three digits follow it */
		if (i >= start && i + 1 < end && (end - 1 - i) % 3 == 0 && k + 1 < size)
			buf[k++] = ',';
	}
	buf[k] = '\0';
	return buf;
}

char *str_grouped_u64(uint64_t v, char *buf, size_t size)
{
	char digits[24];

	snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v);
	return str_group_digits(digits, buf, size);
}

char *str_grouped_double(double v, int decimals, char *buf, size_t size)
{
	char tmp[400]; /* %.0f of DBL_MAX is 309 digits */

	snprintf(tmp, sizeof(tmp), "%.*f", decimals, v);
	return str_group_digits(tmp, buf, size);
}
