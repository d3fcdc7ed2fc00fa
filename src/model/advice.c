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
/* The narrowest text advice_render_*() produces. */
#define ADVICE_MIN_WIDTH 40

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

/* ---- Markdown to terminal text ------------------------------------------ */


/*
 * Whether w[i] is Markdown markup rather than text: a backtick (inline code reads
 * plainly on a terminal), or the '*' of *emphasis* at the start or end of a word.
 */
static bool is_markup(const char *w, size_t n, size_t i)
{
	if (w[i] == '`')
		return true;
	if (w[i] != '*')
		return false;
	if (i + 1 < n && (w[i + 1] == '*' || isalnum((unsigned char)w[i + 1])))
		return i == 0 || w[i - 1] == '*' || w[i - 1] == '(' || w[i - 1] == '"';
	return i > 0 && (isalnum((unsigned char)w[i - 1]) || w[i - 1] == '*' || w[i - 1] == ')' ||
			 w[i - 1] == '.') && (i + 1 == n || strchr(",.;:)\"*", w[i + 1]));
}

/* Columns a word takes once its markup is dropped: UTF-8 continuation bytes take none. */
static size_t columns(const char *s, size_t n)
{
	size_t w = 0;

	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80 && !is_markup(s, n, i);
	return w;
}

static void add_spaces(struct strbuf *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		strbuf_addch(out, ' ');
}

/* Append a word without its markup. */
static void add_word(struct strbuf *out, const char *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_markup(w, n, i))
			strbuf_addch(out, w[i]);
}

/*
 * Reflow the words of text[0..len) into lines of at most `width` columns: the
 * first line starts after `first` columns of prefix already written by the caller
 * (`col0`), later lines with `indent` spaces. A word longer than a line gets a
 * line of its own. Ends with a newline.
 */
static void reflow(struct strbuf *out, const char *text, size_t len, size_t col0, size_t indent, size_t width)
{
	size_t col = col0, i = 0;
	bool empty = true;

	while (i < len) {
		size_t start, wn, ww;

		while (i < len && isspace((unsigned char)text[i]))
			i++;
		if (i >= len)
			break;
		start = i;
		while (i < len && !isspace((unsigned char)text[i]))
			i++;
		wn = i - start;
		ww = columns(text + start, wn);
		if (!ww)
			continue; /* a lone backtick pair */
		if (!empty && col + 1 + ww > width) {
			strbuf_addch(out, '\n');
			add_spaces(out, indent);
			col = indent;
			empty = true;
		}
		if (!empty) {
			strbuf_addch(out, ' ');
			col++;
		}
		add_word(out, text + start, wn);
		col += ww;
		empty = false;
	}
	strbuf_addch(out, '\n');
}

static size_t leading_spaces(const char *l, size_t n)
{
	size_t i = 0;

	while (i < n && l[i] == ' ')
		i++;
	return i;
}

static bool is_blank(const char *l, size_t n)
{
	return leading_spaces(l, n) == n;
}

static bool is_fence(const char *l, size_t n)
{
	size_t i = leading_spaces(l, n);

	return n - i >= 3 && (!strncmp(l + i, "```", 3) || !strncmp(l + i, "~~~", 3));
}

/* Length of a list marker ("- ", "* ", "12. ") at l, or 0. */
static size_t list_marker(const char *l, size_t n)
{
	size_t i = leading_spaces(l, n), d = i;

	if (n - i >= 2 && (l[i] == '-' || l[i] == '*') && l[i + 1] == ' ')
		return i + 2;
	while (d < n && isdigit((unsigned char)l[d]))
		d++;
	if (d > i && d + 1 < n && l[d] == '.' && l[d + 1] == ' ')
		return d + 2;
	return 0;
}

/* The line starting at md + off: its length, and where the next one starts. */
static size_t line_at(const char *md, size_t off, size_t *next)
{
	const char *nl = strchr(md + off, '\n');
	size_t n = nl ? (size_t)(nl - (md + off)) : strlen(md + off);

	*next = off + n + (nl ? 1 : 0);
	return n;
}

void advice_render_markdown(const char *md, size_t indent, size_t width, struct strbuf *out)
{
	struct strbuf para = STRBUF_INIT;
	size_t off = 0, len = strlen(md);
	bool wrote = false, gap = false;

	if (width < ADVICE_MIN_WIDTH)
		width = ADVICE_MIN_WIDTH;
	if (indent + 20 > width)
		indent = width - 20;
	while (off < len) {
		size_t next, n = line_at(md, off, &next), lead = leading_spaces(md + off, n), mark;
		const char *l = md + off;

		if (is_blank(l, n)) {
			gap = wrote;
			off = next;
			continue;
		}
		if (gap) {
			strbuf_addch(out, '\n');
			gap = false;
		}
		wrote = true;
		if (is_fence(l, n)) {
			/* A code block: verbatim, 4 columns in, never wrapped. */
			size_t fence_lead = lead;

			if (out->len && (out->len < 2 || out->buf[out->len - 2] != '\n'))
				strbuf_addch(out, '\n');
			for (off = next; off < len; off = next) {
				n = line_at(md, off, &next);
				l = md + off;
				if (is_fence(l, n)) {
					off = next;
					break;
				}
				lead = leading_spaces(l, n);
				if (!is_blank(l, n)) {
					add_spaces(out, indent + 4);
					strbuf_add(out, l + (lead < fence_lead ? lead : fence_lead),
						   n - (lead < fence_lead ? lead : fence_lead));
				}
				strbuf_addch(out, '\n');
			}
			gap = true;
			continue;
		}
		if (l[lead] == '|') {
			/* A table row: kept as written. */
			add_spaces(out, indent);
			strbuf_add(out, l + lead, n - lead);
			strbuf_addch(out, '\n');
			off = next;
			continue;
		}
		/* A list item or a paragraph: gather its lines, then reflow. */
		mark = list_marker(l, n);
		strbuf_reset(&para);
		strbuf_add(&para, l + (mark ? mark : lead), n - (mark ? mark : lead));
		for (off = next; off < len; off = next) {
			size_t m = line_at(md, off, &next);

			if (is_blank(md + off, m) || is_fence(md + off, m) || list_marker(md + off, m) ||
			    md[off + leading_spaces(md + off, m)] == '|')
				break;
			strbuf_addch(&para, ' ');
			strbuf_add(&para, md + off, m);
		}
		if (mark) {
			size_t bullet = indent + lead;

			add_spaces(out, bullet);
			strbuf_add(out, l + lead, mark - lead);
			reflow(out, para.buf, para.len, bullet + (mark - lead), bullet + (mark - lead), width);
		} else {
			add_spaces(out, indent + lead);
			reflow(out, para.buf, para.len, indent + lead, indent + lead, width);
		}
	}
	if (strbuf_failed(&para))
		out->failed = true; /* the caller checks out only */
	strbuf_release(&para);
}

static const char *title_of(const char *key)
{
	const struct advice_entry *e = advice_find(key);

	return e ? e->title : key;
}

void advice_render_text(const struct advice_entry *e, size_t width, struct strbuf *out)
{
	static const struct {
		const char *heading;
		size_t field;
	} sections[] = {
		{ "MEANING", offsetof(struct advice_entry, meaning) },
		{ "HOW TO CONFIRM", offsetof(struct advice_entry, confirm) },
		{ "TYPICAL CAUSES", offsetof(struct advice_entry, causes) },
		{ "FIXES", offsetof(struct advice_entry, fixes) },
		{ "SOURCES", offsetof(struct advice_entry, sources) },
	};
	struct strbuf line = STRBUF_INIT;
	size_t nchild = 0;

	if (width < ADVICE_MIN_WIDTH)
		width = ADVICE_MIN_WIDTH;
	strbuf_addf(out, "%s (%s)\n", e->title, e->key);
	if (e->parent)
		strbuf_addf(&line, "Level 2 of the top-down tree, under %s (%s).", title_of(e->parent), e->parent);
	else
		strbuf_adds(&line, "Level 1 of the top-down tree.");
	for (size_t i = 0; i < KB_NR_ENTRIES; i++) {
		if (!kb_entries[i].parent || strcmp(kb_entries[i].parent, e->key))
			continue;
		strbuf_addf(&line, "%s%s", nchild++ ? ", " : " Level 2 below it: ", kb_entries[i].key);
	}
	if (nchild)
		strbuf_addch(&line, '.');
	if (e->aliases[0]) {
		strbuf_adds(&line, " Also called");
		for (const char *const *a = e->aliases; *a; a++)
			strbuf_addf(&line, "%s %s", a == e->aliases ? "" : ",", *a);
		strbuf_addch(&line, '.');
	}
	reflow(out, line.buf, line.len, 0, 0, width);
	strbuf_addch(out, '\n');
	advice_render_markdown(e->summary, 0, width, out);
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		const char *md = *(const char *const *)((const char *)e + sections[i].field);

		strbuf_addf(out, "\n%s\n", sections[i].heading);
		advice_render_markdown(md, 4, width, out);
	}
	if (strbuf_failed(&line))
		out->failed = true;
	strbuf_release(&line);
}
