/*
 * explain.c: knowledge-base entries as terminal text and JSON (see
 * report/explain.h): the Markdown of docs/tma-diagnosis-actions.md reflowed for a
 * terminal, an entry's sections, and the list of the nodes.
 */
#include "report/explain.h"

#include <ctype.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "report/json-util.h"

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

void explain_markdown(const char *md, size_t indent, size_t width, struct strbuf *out)
{
	struct strbuf para = STRBUF_INIT;
	size_t off = 0, len = strlen(md);
	bool wrote = false, gap = false;

	if (width < EXPLAIN_MIN_WIDTH)
		width = EXPLAIN_MIN_WIDTH;
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

void explain_entry_text(const struct advice_entry *e, size_t width, struct strbuf *out)
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

	if (width < EXPLAIN_MIN_WIDTH)
		width = EXPLAIN_MIN_WIDTH;
	strbuf_addf(out, "%s (%s)\n", e->title, e->key);
	if (e->parent)
		strbuf_addf(&line, "Level 2 of the top-down tree, under %s (%s).", title_of(e->parent), e->parent);
	else
		strbuf_adds(&line, "Level 1 of the top-down tree.");
	for (size_t i = 0; i < advice_count(); i++) {
		const struct advice_entry *c = advice_get(i);

		if (!c->parent || strcmp(c->parent, e->key))
			continue;
		strbuf_addf(&line, "%s%s", nchild++ ? ", " : " Level 2 below it: ", c->key);
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
	explain_markdown(e->summary, 0, width, out);
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		const char *md = *(const char *const *)((const char *)e + sections[i].field);

		strbuf_addf(out, "\n%s\n", sections[i].heading);
		explain_markdown(md, 4, width, out);
	}
	if (strbuf_failed(&line))
		out->failed = true;
	strbuf_release(&line);
}

/* ---- the documents of `tdprof explain` ----------------------------------- */

static json_t *entry_json(const struct advice_entry *e)
{
	json_t *o = json_object(), *aliases = json_array(), *children = json_array();

	if (!o || !aliases || !children) {
		json_decref(o);
		json_decref(aliases);
		json_decref(children);
		return NULL;
	}
	for (const char *const *a = e->aliases; *a; a++)
		json_array_append_new(aliases, json_string(*a));
	for (size_t i = 0; i < advice_count(); i++)
		if (advice_get(i)->parent && !strcmp(advice_get(i)->parent, e->key))
			json_array_append_new(children, json_string(advice_get(i)->key));
	json_object_set_new(o, "key", json_string(e->key));
	json_object_set_new(o, "title", json_string(e->title));
	json_object_set_new(o, "level", json_integer(e->level));
	json_object_set_new(o, "parent", e->parent ? json_string(e->parent) : json_null());
	json_object_set_new(o, "children", children);
	json_object_set_new(o, "aliases", aliases);
	json_object_set_new(o, "summary", json_string(e->summary));
	json_object_set_new(o, "meaning", json_string(e->meaning));
	json_object_set_new(o, "confirm", json_string(e->confirm));
	json_object_set_new(o, "causes", json_string(e->causes));
	json_object_set_new(o, "fixes", json_string(e->fixes));
	json_object_set_new(o, "sources", json_string(e->sources));
	return o;
}

static json_t *list_json(void)
{
	json_t *o = json_object(), *nodes = json_array();

	if (!o || !nodes) {
		json_decref(o);
		json_decref(nodes);
		return NULL;
	}
	for (size_t i = 0; i < advice_count(); i++) {
		const struct advice_entry *e = advice_get(i);
		json_t *n = json_object();

		if (!n)
			continue;
		json_object_set_new(n, "key", json_string(e->key));
		json_object_set_new(n, "title", json_string(e->title));
		json_object_set_new(n, "level", json_integer(e->level));
		json_object_set_new(n, "parent", e->parent ? json_string(e->parent) : json_null());
		json_object_set_new(n, "summary", json_string(e->summary));
		json_array_append_new(nodes, n);
	}
	json_object_set_new(o, "nodes", nodes);
	return o;
}

/* The four classic level-1 nodes; the others at level 1 are extra buckets. */
static bool is_extra(const struct advice_entry *e)
{
	static const char *const classic[] = { "frontend_bound", "bad_speculation", "backend_bound", "retiring" };

	if (e->parent)
		return false;
	for (size_t i = 0; i < sizeof(classic) / sizeof(classic[0]); i++)
		if (!strcmp(e->key, classic[i]))
			return false;
	return true;
}

/* One line per node: the key (level 2 indented under its parent) and its title. */
static void list_text(struct strbuf *out, size_t width)
{
	strbuf_adds(out, "Nodes of the top-down tree ('tdprof explain NODE' prints one):\n\n");
	for (size_t i = 0; i < advice_count(); i++) {
		const struct advice_entry *e = advice_get(i);
		size_t start = out->len;

		strbuf_addf(out, "  %s%-*s  %s%s", e->parent ? "  " : "", e->parent ? 22 : 24, e->key, e->title,
			    is_extra(e) ? " (extra level-1 bucket)" : "");
		if (out->len - start > width)
			strbuf_setlen(out, start + width);
		strbuf_addch(out, '\n');
	}
}

int explain_text_render(struct strbuf *out, const struct explain_report *r, struct tdp_err *err)
{
	if (r->entry)
		explain_entry_text(r->entry, r->width, out);
	else
		list_text(out, r->width);
	return strbuf_failed(out) ? tdp_err_oom(err) : 0;
}

int explain_json_render(struct strbuf *out, const struct explain_report *r, struct tdp_err *err)
{
	json_t *doc = r->entry ? entry_json(r->entry) : list_json();
	int ret;

	/* no "backend": nothing is measured (issue 16) */
	if (!doc)
		ret = tdp_err_oom(err);
	else
		ret = jdumps(out, doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER, err);
	json_decref(doc);
	return ret;
}
