/*
 * doc-trim.c: a large document cut down to what the diff reads, before jansson
 * parses it (doc-internal.h).
 *
 * `branches report --json --all` of 200,000 samples is 180 MB: parsed whole,
 * jansson's tree of it took 2.2 GB and 9 s of CPU, for rows the diff then cut at
 * TDOC_MAX_SITES and TDOC_MAX_EDGES or never read (symbol_edges, blocks). A
 * structural scan (strings and brackets, nothing else) finds the top-level
 * members; the ranked tables keep their first TDOC_TRIM_ROWS rows (the worst:
 * the documents rank them), the tables the diff never reads become empty, and
 * everything else is copied as it is. The diff says which tables were cut. jansson parses
 * the copy and checks it; the rows skipped were only scanned, not checked.
 * Anything unexpected (not an object, an unterminated string, brackets that do
 * not match, nesting past TRIM_MAX_DEPTH) leaves the document whole, for jansson
 * to parse and to report where it is wrong.
 */
#include "doc/doc-internal.h"

#include "base/err.h"
#include "base/strbuf.h"

#include <string.h>

/* Nesting the scan follows (jansson's own limit is 2048). */
#define TRIM_MAX_DEPTH 2048

/* Top-level arrays cut, and the rows each keeps. */
static const struct {
	const char *key;
	size_t keep;
	unsigned cut; /* the bit of doc_trim()'s *cut */
} rules[] = {
	{ "sites", TDOC_TRIM_ROWS, TDOC_TRIM_SITES },
	{ "edges", TDOC_TRIM_ROWS, TDOC_TRIM_EDGES },
	{ "symbol_edges", 0, 0 },
	{ "blocks", 0, 0 },
};

/* The scan: buf[0..len), at pos; bad once anything unexpected was seen. */
struct scan {
	const uint8_t *buf;
	size_t len, pos;
	bool bad;
};

static void ws(struct scan *s)
{
	while (s->pos < s->len && (s->buf[s->pos] == ' ' || s->buf[s->pos] == '\t' || s->buf[s->pos] == '\n' ||
				   s->buf[s->pos] == '\r'))
		s->pos++;
}

static int peek(const struct scan *s)
{
	return !s->bad && s->pos < s->len ? s->buf[s->pos] : -1;
}

/* Past the string starting at pos (a '"'). */
static void skip_string(struct scan *s)
{
	for (s->pos++; s->pos < s->len; s->pos++) {
		if (s->buf[s->pos] == '\\')
			s->pos++;
		else if (s->buf[s->pos] == '"') {
			s->pos++;
			return;
		}
	}
	s->bad = true;
}

/* Past the value starting at pos: a string, an array or object (brackets matched), or a scalar. */
static void skip_value(struct scan *s)
{
	char stack[TRIM_MAX_DEPTH];
	size_t depth = 0, start = s->pos;
	int c = peek(s);

	if (c == '"') {
		skip_string(s);
		return;
	}
	if (c != '[' && c != '{') {
		while (s->pos < s->len && !strchr(",]} \t\n\r", s->buf[s->pos]))
			s->pos++;
		s->bad |= s->pos == start;
		return;
	}
	while (!s->bad && s->pos < s->len) {
		c = s->buf[s->pos];
		if (c == '"') {
			skip_string(s);
			continue;
		}
		if (c == '[' || c == '{') {
			if (depth == TRIM_MAX_DEPTH) {
				s->bad = true;
				return;
			}
			stack[depth++] = c == '[' ? ']' : '}';
		} else if (c == ']' || c == '}') {
			if (!depth || stack[depth - 1] != c) {
				s->bad = true;
				return;
			}
			if (--depth == 0) {
				s->pos++;
				return;
			}
		}
		s->pos++;
	}
	s->bad = true;
}

/* The rule of the top-level member named buf[ks..ke) (its quotes included); -1: none. */
static int rule_of(const uint8_t *buf, size_t ks, size_t ke)
{
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		size_t n = strlen(rules[i].key);

		if (ke - ks == n + 2 && !memcmp(buf + ks + 1, rules[i].key, n))
			return (int)i;
	}
	return -1;
}

/* An array at pos, its first keep elements copied to out; true when it had more. */
static bool cut_array(struct scan *s, size_t keep, struct strbuf *out)
{
	size_t n = 0;

	strbuf_addch(out, '[');
	s->pos++;
	ws(s);
	if (peek(s) == ']') {
		s->pos++;
		strbuf_addch(out, ']');
		return false;
	}
	for (;;) {
		size_t es;

		ws(s);
		es = s->pos;
		skip_value(s);
		if (s->bad)
			return false;
		if (n++ < keep) {
			if (n > 1)
				strbuf_addch(out, ',');
			strbuf_add(out, s->buf + es, s->pos - es);
		}
		ws(s);
		if (peek(s) == ',') {
			s->pos++;
			continue;
		}
		if (peek(s) == ']') {
			s->pos++;
			strbuf_addch(out, ']');
			return n > keep;
		}
		s->bad = true;
		return false;
	}
}

int doc_trim(const uint8_t *buf, size_t len, struct strbuf *out, unsigned *cut)
{
	struct scan s = { buf, len, 0, false };

	*cut = 0;
	if (len < TDOC_TRIM_MIN_BYTES)
		return 0;
	ws(&s);
	if (peek(&s) != '{')
		return 0;
	strbuf_addch(out, '{');
	s.pos++;
	ws(&s);
	if (peek(&s) == '}') {
		strbuf_release(out);
		return 0; /* nothing to cut */
	}
	while (!s.bad) {
		size_t ks, ke;
		int rule;

		ws(&s);
		if (peek(&s) != '"')
			break;
		ks = s.pos;
		skip_string(&s);
		ke = s.pos;
		ws(&s);
		if (peek(&s) != ':')
			break;
		s.pos++;
		ws(&s);
		rule = rule_of(buf, ks, ke);
		strbuf_add(out, buf + ks, ke - ks);
		strbuf_addch(out, ':');
		if (rule >= 0 && peek(&s) == '[') {
			if (cut_array(&s, rules[rule].keep, out))
				*cut |= rules[rule].cut;
		} else {
			size_t vs = s.pos;

			skip_value(&s);
			if (!s.bad)
				strbuf_add(out, buf + vs, s.pos - vs);
		}
		ws(&s);
		if (peek(&s) == ',') {
			s.pos++;
			strbuf_addch(out, ',');
			continue;
		}
		if (peek(&s) != '}')
			break;
		s.pos++;
		ws(&s);
		if (s.pos != len)
			break;
		strbuf_addch(out, '}');
		if (strbuf_failed(out))
			return TDP_ENOMEM;
		return 1;
	}
	strbuf_release(out);
	*cut = 0;
	return 0;
}
