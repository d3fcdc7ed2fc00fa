/*
 * evname.c: the canonical form of an event name (model_event_key in model.h),
 * so that perf's, libpfm's and our tables' spellings of one event compare equal.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "model/model.h"

#define EVKEY_MAX_TERMS 16

struct term {
	char name[32];
	char value[48];
};

struct keybuild {
	char event[MODEL_EVKEY_MAX];
	size_t event_len;
	struct term terms[EVKEY_MAX_TERMS];
	size_t nr_terms;
};

/* perf's event modifiers (tools/perf/util/parse-events.l "modifier_event"), minus 'e'. */
static bool is_modifier(const char *t, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("ukhIGHpPSDWbR", t[i]))
			return false;
	return true;
}

static int event_add(struct keybuild *kb, const char *s, size_t n)
{
	if (kb->event_len && kb->event_len + 1 < sizeof(kb->event))
		kb->event[kb->event_len++] = '_';
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (kb->event_len + 1 >= sizeof(kb->event))
			return -1;
		if (c == '.' || c == ':')
			c = '_';
		kb->event[kb->event_len++] = (char)tolower((unsigned char)c);
	}
	kb->event[kb->event_len] = '\0';
	return 0;
}

/* Long names for libpfm's and perf's short term names. */
static const char *term_canon(const char *name)
{
	static const char *const map[][2] = {
		{ "c", "cmask" }, { "e", "edge" }, { "i", "inv" }, { "t", "any" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(name, map[i][0]))
			return map[i][1];
	return name;
}

/*
 * Add "name[=value]" (or libpfm's "c1") as a term. strict: only the short
 * counter-mask/edge/invert/any terms (for ':'-separated suffixes). Returns 1 when
 * added, 0 when the token is not a term, -1 on overflow.
 */
static int term_add(struct keybuild *kb, const char *s, size_t n, bool strict)
{
	char name[32], value[48];
	size_t i = 0, nl, vl;
	const char *canon;
	uint64_t num;

	while (i < n && isalpha((unsigned char)s[i]))
		i++;
	while (!strict && i < n && (isalnum((unsigned char)s[i]) || s[i] == '_') && s[i] != '=')
		i++;
	nl = i;
	if (nl == 0 || nl >= sizeof(name))
		return 0;
	for (size_t k = 0; k < nl; k++)
		name[k] = (char)tolower((unsigned char)s[k]);
	name[nl] = '\0';
	if (i < n && s[i] == '=')
		i++;
	vl = n - i;
	if (vl >= sizeof(value))
		return 0;
	for (size_t k = 0; k < vl; k++)
		value[k] = (char)tolower((unsigned char)s[i + k]);
	value[vl] = '\0';
	canon = term_canon(name);
	if (strict) {
		if (strcmp(canon, "cmask") && strcmp(canon, "edge") && strcmp(canon, "inv") && strcmp(canon, "any"))
			return 0;
		if (vl && !str_to_u64(value, &num))
			return 0;
	}
	/* perf's name= and period= do not change what is counted */
	if (!strcmp(canon, "name") || !strcmp(canon, "period") || !strcmp(canon, "freq"))
		return 1;
	if (!vl)
		snprintf(value, sizeof(value), "1");
	else if (str_to_u64(value, &num))
		snprintf(value, sizeof(value), "%llu", (unsigned long long)num);
	if (kb->nr_terms >= EVKEY_MAX_TERMS)
		return -1;
	snprintf(kb->terms[kb->nr_terms].name, sizeof(kb->terms[0].name), "%s", canon);
	snprintf(kb->terms[kb->nr_terms].value, sizeof(kb->terms[0].value), "%s", value);
	kb->nr_terms++;
	return 1;
}

/* An event token: "INT_MISC.RECOVERY_CYCLES", "INT_MISC:RECOVERY_CYCLES:c1:e1", "cycles:u". */
static int event_token(struct keybuild *kb, const char *s, size_t n)
{
	size_t start = 0;
	bool first = true;

	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != ':')
			continue;
		if (i > start) {
			const char *t = s + start;
			size_t tl = i - start;
			int r = 0;

			if (!first) {
				r = term_add(kb, t, tl, true);
				if (r < 0)
					return -1;
				if (!r && i == n && is_modifier(t, tl))
					r = 1;
			}
			if (!r && event_add(kb, t, tl) < 0)
				return -1;
		}
		first = false;
		start = i + 1;
	}
	return 0;
}

static int term_cmp(const void *a, const void *b)
{
	const struct term *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->value, y->value);
}

int model_event_key(const char *name, char *key, size_t size, char *pmu, size_t pmu_size)
{
	char buf[MODEL_EVKEY_MAX];
	struct keybuild kb;
	size_t n = 0, len;
	const char *body;
	size_t body_len;
	char *slash, *last;
	size_t off;

	if (pmu && pmu_size)
		pmu[0] = '\0';
	if (!name || !key || !size)
		return -1;
	while (isspace((unsigned char)*name))
		name++;
	/* unescape perf's metric syntax (\, \= \-) */
	for (const char *s = name; *s; s++) {
		if (*s == '\\' && s[1])
			s++;
		if (n + 1 >= sizeof(buf))
			return -1;
		buf[n++] = *s;
	}
	while (n && isspace((unsigned char)buf[n - 1]))
		n--;
	buf[n] = '\0';
	if (!n)
		return -1;
	/* perf's metric syntax pmu@body@ is pmu/body/ */
	slash = strchr(buf, '@');
	if (slash && buf[n - 1] == '@' && slash != &buf[n - 1]) {
		*slash = '/';
		buf[n - 1] = '/';
	}
	memset(&kb, 0, sizeof(kb));
	slash = strchr(buf, '/');
	if (slash) {
		last = strrchr(buf, '/');
		if (last == slash)
			return -1; /* "pmu/..." without the closing slash */
		len = (size_t)(slash - buf);
		if (pmu && pmu_size) {
			if (len + 1 > pmu_size)
				return -1;
			for (size_t i = 0; i < len; i++)
				pmu[i] = (char)tolower((unsigned char)buf[i]);
			pmu[len] = '\0';
		}
		body = slash + 1;
		body_len = (size_t)(last - slash - 1);
		/* what follows the closing slash is modifiers (":u", "u"): ignored */
	} else {
		body = buf;
		body_len = n;
	}
	off = 0;
	for (size_t i = 0; i <= body_len; i++) {
		if (i < body_len && body[i] != ',')
			continue;
		if (i > off) {
			const char *t = body + off;
			size_t tl = i - off;

			if (off == 0 && !memchr(t, '=', tl)) {
				if (event_token(&kb, t, tl) < 0)
					return -1;
			} else if (term_add(&kb, t, tl, false) <= 0) {
				return -1;
			}
		}
		off = i + 1;
	}
	if (!kb.event_len && !kb.nr_terms)
		return -1;
	qsort(kb.terms, kb.nr_terms, sizeof(kb.terms[0]), term_cmp);
	len = (size_t)snprintf(key, size, "%s", kb.event);
	for (size_t i = 0; i < kb.nr_terms && len < size; i++)
		len += (size_t)snprintf(key + len, size - len, ",%s=%s", kb.terms[i].name, kb.terms[i].value);
	return len < size ? 0 : -1;
}
