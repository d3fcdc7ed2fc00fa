/*
 * advice.c: the knowledge base (see advice.h). The table itself is kb-data.h,
 * generated at build time from docs/tma-diagnosis-actions.md by gen-kb.py; this
 * file looks entries up and renders their Markdown as terminal text.
 */
#include "model/advice.h"
#include "base/str.h"
#include "base/strbuf.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "kb-data.h"

/* Names longer than this cannot be a node (the longest key or alias is 40 bytes). */
#define ADVICE_MAX_NAME 96
/* Keys plus aliases, for suggestions. */
#define ADVICE_MAX_NAMES 256

size_t advice_count(void)
{
	return KB_NR_ENTRIES;
}

const struct advice_entry *advice_get(size_t i)
{
	return i < KB_NR_ENTRIES ? &kb_entries[i] : NULL;
}

/* Lower case, '-', ' ', '.', ':' as '_', without "tma_"; false when too long. */
static bool normalise(const char *s, char *out, size_t size)
{
	size_t n = 0;

	while (*s == ' ')
		s++;
	for (; *s; s++) {
		char c = (char)tolower((unsigned char)*s);

		if (c == '-' || c == ' ' || c == '.' || c == ':')
			c = '_';
		if (n + 1 >= size)
			return false;
		out[n++] = c;
	}
	while (n && out[n - 1] == '_')
		n--;
	out[n] = '\0';
	if (!strncmp(out, "tma_", 4))
		memmove(out, out + 4, n - 4 + 1);
	return true;
}

static bool name_matches(const char *wanted_norm, const char *name)
{
	char n[ADVICE_MAX_NAME];

	return normalise(name, n, sizeof(n)) && !strcmp(n, wanted_norm);
}

const struct advice_entry *advice_find(const char *node)
{
	char want[ADVICE_MAX_NAME];

	if (!node || !normalise(node, want, sizeof(want)) || !want[0])
		return NULL;
	for (size_t i = 0; i < KB_NR_ENTRIES; i++) {
		const struct advice_entry *e = &kb_entries[i];

		if (name_matches(want, e->key))
			return e;
		for (const char *const *a = e->aliases; *a; a++)
			if (name_matches(want, *a))
				return e;
	}
	return NULL;
}

const char *advice_summary(const char *node)
{
	const struct advice_entry *e = advice_find(node);

	return e ? e->summary : NULL;
}

size_t advice_suggest(const char *wanted, const char **out, size_t max)
{
	const char *names[ADVICE_MAX_NAMES];
	const char *owner[ADVICE_MAX_NAMES];
	size_t nr = 0, idx[8], n, found = 0;

	for (size_t i = 0; i < KB_NR_ENTRIES && nr < ADVICE_MAX_NAMES; i++) {
		names[nr] = kb_entries[i].key;
		owner[nr++] = kb_entries[i].key;
		for (const char *const *a = kb_entries[i].aliases; *a && nr < ADVICE_MAX_NAMES; a++) {
			names[nr] = *a;
			owner[nr++] = kb_entries[i].key;
		}
	}
	n = str_suggest(wanted, names, nr, idx, sizeof(idx) / sizeof(idx[0]));
	for (size_t i = 0; i < n && found < max; i++) {
		bool dup = false;

		for (size_t j = 0; j < found; j++)
			dup = dup || out[j] == owner[idx[i]];
		if (!dup)
			out[found++] = owner[idx[i]];
	}
	return found;
}
