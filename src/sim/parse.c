/*
 * parse.c: one reader for cachegrind.out and callgrind.out (see profile.h).
 *
 * Callgrind's format is a superset of cachegrind's (valgrind 3.19, "Callgrind
 * Format Specification"), so one line-oriented reader serves both; the format
 * decides which constructs are allowed (name and subposition compression, calls=,
 * ob=, positions:) and which consistency checks apply (cachegrind: the summary:
 * line is required and equals the sum of the cost lines; callgrind: totals:, when
 * present, does).
 *
 * Every line is bounds-checked (never read past buf + len, never NUL-terminated
 * in place); every number is checked for overflow; every table is bounded by a
 * SIM_MAX_* limit.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/checked.h"
#include "base/err.h"
#include "base/str.h"
#include "sim/profile.h"
#include "sim/sim-internal.h"

#define MAX_POS 3 /* subpositions: instr, bb, line */

/* A map from callgrind's compressed ids `(N)` to interned names, one per namespace. */
struct idmap {
	struct sim_hashtab t;
	struct idmap_ent {
		uint64_t id;
		uint32_t name;
	} *v;
	size_t nr;
	size_t alloc;
};

enum id_space { ID_OBJ, ID_FILE, ID_FN, NR_ID_SPACES };

struct parser {
	struct sim_profile *p;
	const char *name;
	enum sim_format fmt;
	struct tdp_err *err;
	size_t lineno;

	int col_event[SIM_MAX_EVENTS]; /* enum sim_event of each column, -1 ignored */
	size_t nr_cols;
	bool have_events;
	uint32_t have_mask;

	unsigned npos;              /* subpositions on a cost line */
	int pos_instr, pos_line;    /* their index, -1 when absent */
	bool positions_seen;
	bool body_started;          /* a cost line was read: positions: is fixed */
	uint64_t last[MAX_POS];     /* the previous cost line's subpositions */

	uint32_t obj, fl, file, fn; /* current object, fl= file, cost file, function */
	bool expect_call_cost;      /* the previous line was calls= */

	struct sim_cost file_totals; /* self costs of this file */
	struct sim_cost summary;
	bool has_summary;
	struct sim_cost totals_line;
	bool has_totals;
	bool by_callgrind;          /* `creator: callgrind-...`: valgrind ends the file with totals: */

	struct idmap ids[NR_ID_SPACES];
};

/* Copy a token for a message: at most 40 bytes, non-printable bytes as '?'. */
static const char *tok(char out[48], const char *s, size_t n)
{
	size_t i, m = n > 40 ? 40 : n;

	for (i = 0; i < m; i++)
		out[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
	if (n > m) {
		memcpy(out + m, "...", 3);
		m += 3;
	}
	out[m] = '\0';
	return out;
}

__attribute__((format(printf, 3, 4))) static int fail(struct parser *ps, int code, const char *fmt, ...)
{
	char msg[TDP_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (ps->lineno)
		tdp_err_set(ps->err, code, "'%s': line %zu: %s", ps->name, ps->lineno, msg);
	else
		tdp_err_set(ps->err, code, "'%s': %s", ps->name, msg);
	if (code == TDP_EFORMAT)
		tdp_err_hint(ps->err, "the file is damaged or not valgrind's; record it again with "
			     "'valgrind --tool=%s --cache-sim=yes --branch-sim=yes PROGRAM'",
			     ps->fmt == SIM_FORMAT_CALLGRIND ? "callgrind" : "cachegrind");
	return code;
}

/* Errors from the profile helpers (no message of their own). */
static int fail_code(struct parser *ps, int code)
{
	switch (code) {
	case TDP_ENOMEM:
		return tdp_err_oom(ps->err);
	case TDP_ELIMIT:
		return fail(ps, code, "more than %u names or %u cost entries", SIM_MAX_NAMES, SIM_MAX_ENTRIES);
	case TDP_EFORMAT:
		return fail(ps, code, "a cost sum overflows 64 bits");
	default:
		return fail(ps, code, "%s", tdp_strerror(code));
	}
}

/* ---- tokens ---- */

struct span {
	const char *s;
	size_t n;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Next space-separated token of *line (advancing it); false at the end. */
static bool next_tok(struct span *line, struct span *t)
{
	while (line->n && is_space(*line->s)) {
		line->s++;
		line->n--;
	}
	if (!line->n)
		return false;
	t->s = line->s;
	while (line->n && !is_space(*line->s)) {
		line->s++;
		line->n--;
	}
	t->n = (size_t)(line->s - t->s);
	return true;
}

static struct span trim(struct span x)
{
	while (x.n && is_space(*x.s)) {
		x.s++;
		x.n--;
	}
	while (x.n && is_space(x.s[x.n - 1]))
		x.n--;
	return x;
}

static bool starts(struct span l, const char *prefix, struct span *rest)
{
	size_t pl = strlen(prefix);

	if (l.n < pl || memcmp(l.s, prefix, pl) != 0)
		return false;
	rest->s = l.s + pl;
	rest->n = l.n - pl;
	return true;
}

/*
 * str_to_u64_n() with a fast path: at most 19 decimal or 16 hex digits cannot
 * overflow, and they are nearly every number of a cost file (a line holds ~30).
 */
static inline bool number(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (n >= 3 && n <= 18 && s[0] == '0' && s[1] == 'x') {
		for (size_t i = 2; i < n; i++) {
			unsigned c = (unsigned char)s[i], d;

			if (c - '0' < 10)
				d = c - '0';
			else if ((c | 0x20) - 'a' < 6)
				d = (c | 0x20) - 'a' + 10;
			else
				return str_to_u64_n(s, n, out);
			v = v << 4 | d;
		}
		*out = v;
		return true;
	}
	if (n == 0 || n > 19)
		return str_to_u64_n(s, n, out);
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)((unsigned char)s[i] - '0');

		if (d > 9)
			return str_to_u64_n(s, n, out);
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

/* A count: decimal, 0x hex, or '.' (zero). */
static inline bool parse_count(struct span t, uint64_t *out)
{
	if (t.n == 1 && t.s[0] == '.') {
		*out = 0;
		return true;
	}
	return number(t.s, t.n, out);
}

/* ---- callgrind compressed names ---- */

static uint64_t idmap_hash(const void *ctx, uint32_t value)
{
	const struct idmap *m = ctx;

	return sim_hash_u64(SIM_HASH_SEED, m->v[value].id);
}

static struct idmap_ent *idmap_find(struct idmap *m, uint64_t id)
{
	if (!m->t.cap)
		return NULL;
	for (size_t j = (size_t)sim_hash_u64(SIM_HASH_SEED, id) & (m->t.cap - 1); m->t.slot[j];
	     j = (j + 1) & (m->t.cap - 1))
		if (m->v[m->t.slot[j] - 1].id == id)
			return &m->v[m->t.slot[j] - 1];
	return NULL;
}

static int idmap_add(struct idmap *m, uint64_t id, uint32_t name)
{
	size_t j;
	int ret;

	if (m->nr >= SIM_MAX_NAMES)
		return TDP_ELIMIT;
	if ((ret = sim_hashtab_reserve(&m->t, idmap_hash, m)))
		return ret;
	if (TDP_GROW(m->v, m->alloc, m->nr + 1))
		return TDP_ENOMEM;
	m->v[m->nr].id = id;
	m->v[m->nr].name = name;
	for (j = (size_t)sim_hash_u64(SIM_HASH_SEED, id) & (m->t.cap - 1); m->t.slot[j]; j = (j + 1) & (m->t.cap - 1))
		;
	m->t.slot[j] = (uint32_t)m->nr + 1;
	m->t.nr++;
	m->nr++;
	return 0;
}

static void idmap_release(struct idmap *m)
{
	sim_hashtab_release(&m->t);
	tdp_free(m->v);
}

static const char *const space_names[NR_ID_SPACES] = { "object", "file", "function" };

/*
 * The name after `spec=`: "name", or in callgrind "(id) name" (defines id) or
 * "(id)" (refers to it). Writes the interned name index.
 */
static int parse_name(struct parser *ps, struct span v, enum id_space space, uint32_t *out)
{
	char b[48];
	int ret;

	v = trim(v);
	if (ps->fmt == SIM_FORMAT_CALLGRIND && v.n >= 2 && v.s[0] == '(' && isdigit((unsigned char)v.s[1])) {
		const char *close = memchr(v.s, ')', v.n);
		struct idmap_ent *e;
		struct span rest;
		uint64_t id;
		uint32_t idx;

		if (!close)
			return fail(ps, TDP_EFORMAT, "compressed name '%s' has no ')'", tok(b, v.s, v.n));
		if (!str_to_u64_n(v.s + 1, (size_t)(close - v.s - 1), &id) || id > SIM_MAX_NAME_ID)
			return fail(ps, TDP_EFORMAT, "bad %s id in '%s'", space_names[space], tok(b, v.s, v.n));
		rest.s = close + 1;
		rest.n = v.n - (size_t)(close + 1 - v.s);
		rest = trim(rest);
		e = idmap_find(&ps->ids[space], id);
		if (!rest.n) {
			if (!e)
				return fail(ps, TDP_EFORMAT, "%s id (%llu) is used before it is defined",
					    space_names[space], (unsigned long long)id);
			*out = e->name;
			return 0;
		}
		if ((ret = sim_profile_intern(ps->p, rest.s, rest.n, &idx)))
			return fail_code(ps, ret);
		if (e) {
			if (e->name != idx)
				return fail(ps, TDP_EFORMAT, "%s id (%llu) is defined twice with different names",
					    space_names[space], (unsigned long long)id);
		} else if ((ret = idmap_add(&ps->ids[space], id, idx))) {
			return fail_code(ps, ret);
		}
		*out = idx;
		return 0;
	}
	if ((ret = sim_profile_intern(ps->p, v.s, v.n, out)))
		return fail_code(ps, ret);
	return 0;
}

/* ---- header lines ---- */

static int parse_events(struct parser *ps, struct span v)
{
	int col_event[SIM_MAX_EVENTS];
	uint32_t mask = 0;
	size_t nr = 0;
	struct span t;
	char b[48];

	while (next_tok(&v, &t)) {
		int ev = -1;

		if (nr >= SIM_MAX_EVENTS)
			return fail(ps, TDP_ELIMIT, "more than %u events", SIM_MAX_EVENTS);
		for (int e = 0; e < SIM_NR_EVENTS; e++) {
			const char *en = sim_event_name((enum sim_event)e);

			if (strlen(en) == t.n && memcmp(en, t.s, t.n) == 0)
				ev = e;
		}
		if (ev >= 0) {
			if (mask & (1u << ev))
				return fail(ps, TDP_EFORMAT, "event '%s' is listed twice", tok(b, t.s, t.n));
			mask |= 1u << ev;
		}
		col_event[nr++] = ev;
	}
	if (!nr)
		return fail(ps, TDP_EFORMAT, "'events:' line names no event");
	if (ps->have_events) {
		/* A second part of the same run may repeat it; a different list cannot be summed. */
		if (nr != ps->nr_cols || memcmp(col_event, ps->col_event, nr * sizeof(int)) != 0)
			return fail(ps, TDP_EFORMAT, "a second 'events:' line differs from the first");
		return 0;
	}
	memcpy(ps->col_event, col_event, nr * sizeof(int));
	ps->nr_cols = nr;
	ps->have_events = true;
	ps->have_mask = mask;
	return 0;
}

static int parse_positions(struct parser *ps, struct span v)
{
	static const char *const kinds[MAX_POS] = { "instr", "bb", "line" };
	unsigned npos = 0, next_kind = 0;
	int pos_instr = -1, pos_line = -1;
	struct span t;
	char b[48];

	while (next_tok(&v, &t)) {
		unsigned k;

		for (k = next_kind; k < MAX_POS; k++)
			if (strlen(kinds[k]) == t.n && memcmp(kinds[k], t.s, t.n) == 0)
				break;
		if (k == MAX_POS)
			return fail(ps, TDP_EFORMAT, "bad 'positions:' entry '%s' (instr, bb, line in this order)",
				    tok(b, t.s, t.n));
		if (k == 0)
			pos_instr = (int)npos;
		if (k == 2)
			pos_line = (int)npos;
		next_kind = k + 1;
		npos++;
	}
	if (!npos)
		npos = 1, pos_line = 0; /* an empty list means the default, "line" */
	if (ps->body_started && (npos != ps->npos || pos_instr != ps->pos_instr || pos_line != ps->pos_line))
		return fail(ps, TDP_EFORMAT, "'positions:' changes after the first cost line");
	ps->npos = npos;
	ps->pos_instr = pos_instr;
	ps->pos_line = pos_line;
	ps->positions_seen = true;
	return 0;
}

/* Counts after `summary:`/`totals:`, in events order. */
static int parse_cost_list(struct parser *ps, struct span v, struct sim_cost *out, const char *what)
{
	struct span t;
	size_t col = 0;
	char b[48];

	if (!ps->have_events)
		return fail(ps, TDP_EFORMAT, "'%s' line before the 'events:' line", what);
	memset(out, 0, sizeof(*out));
	while (next_tok(&v, &t)) {
		uint64_t x;

		if (col >= ps->nr_cols)
			return fail(ps, TDP_EFORMAT, "'%s' line has more counts than the %zu events", what,
				    ps->nr_cols);
		if (!parse_count(t, &x))
			return fail(ps, TDP_EFORMAT, "bad count '%s' on the '%s' line", tok(b, t.s, t.n), what);
		if (ps->col_event[col] >= 0)
			out->v[ps->col_event[col]] = x;
		col++;
	}
	return 0;
}

/* "32768 B, 64 B, 8-way associative" (or "direct-mapped"); ignored when it does not parse. */
static void parse_cache_desc(struct span v, struct sim_cache_desc *c)
{
	char buf[128];
	unsigned long long size, line, assoc = 0;
	int n = 0;

	v = trim(v);
	if (!v.n || v.n >= sizeof(buf))
		return;
	memcpy(buf, v.s, v.n);
	buf[v.n] = '\0';
	if (sscanf(buf, "%llu B, %llu B, %llu-way associative%n", &size, &line, &assoc, &n) == 3 && n > 0)
		;
	else if (sscanf(buf, "%llu B, %llu B, direct-mapped%n", &size, &line, &n) == 2 && n > 0)
		assoc = 1;
	else
		return;
	if (c->size)
		return; /* the first file's description wins */
	c->size = size;
	c->line = line;
	c->assoc = assoc;
}

static void parse_desc(struct parser *ps, struct span v)
{
	struct span rest;

	v = trim(v);
	if (starts(v, "I1 cache:", &rest))
		parse_cache_desc(rest, &ps->p->i1);
	else if (starts(v, "D1 cache:", &rest))
		parse_cache_desc(rest, &ps->p->d1);
	else if (starts(v, "LL cache:", &rest))
		parse_cache_desc(rest, &ps->p->ll);
}

/* ---- body lines ---- */

/* Subpositions at the start of a cost or calls= line, resolved against ps->last. */
static int parse_subpositions(struct parser *ps, struct span *line, uint64_t pos[MAX_POS])
{
	char b[48];

	for (unsigned i = 0; i < ps->npos; i++) {
		struct span t;
		uint64_t x;

		/* next_tok(), inline (two a line) */
		while (line->n && is_space(*line->s)) {
			line->s++;
			line->n--;
		}
		t.s = line->s;
		while (line->n && !is_space(*line->s)) {
			line->s++;
			line->n--;
		}
		t.n = (size_t)(line->s - t.s);
		if (!t.n)
			return fail(ps, TDP_EFORMAT, "cost line has %u subpositions, 'positions:' wants %u", i,
				    ps->npos);
		if (t.n == 1 && t.s[0] == '*') {
			pos[i] = ps->last[i];
		} else if (t.s[0] == '+' || t.s[0] == '-') {
			if (ps->fmt != SIM_FORMAT_CALLGRIND)
				return fail(ps, TDP_EFORMAT, "relative position '%s' in a cachegrind file",
					    tok(b, t.s, t.n));
			if (!number(t.s + 1, t.n - 1, &x))
				return fail(ps, TDP_EFORMAT, "bad position '%s'", tok(b, t.s, t.n));
			if (t.s[0] == '+' ? !chk_add_u64(ps->last[i], x, &pos[i]) : x > ps->last[i])
				return fail(ps, TDP_EFORMAT, "position '%s' is out of range", tok(b, t.s, t.n));
			if (t.s[0] == '-')
				pos[i] = ps->last[i] - x;
		} else if (!number(t.s, t.n, &pos[i])) {
			return fail(ps, TDP_EFORMAT, "bad position '%s'", tok(b, t.s, t.n));
		}
		if ((int)i == ps->pos_line && pos[i] > SIM_MAX_LINE_NO)
			return fail(ps, TDP_EFORMAT, "line number %llu is out of range",
				    (unsigned long long)pos[i]);
	}
	return 0;
}

static int parse_cost_line(struct parser *ps, struct span line, bool inclusive)
{
	uint64_t pos[MAX_POS] = { 0 };
	struct sim_cost cost;
	struct span t;
	size_t col = 0;
	char b[48];
	int ret;

	if (!ps->have_events)
		return fail(ps, TDP_EFORMAT, "cost line before the 'events:' line");
	if (!ps->npos) {
		ps->npos = 1; /* default "positions: line" */
		ps->pos_line = 0;
		ps->pos_instr = -1;
	}
	ps->body_started = true;
	if ((ret = parse_subpositions(ps, &line, pos)))
		return ret;
	memset(&cost, 0, sizeof(cost));
	for (const char *c = line.s, *end = line.s + line.n;;) {
		uint64_t x;

		/* next_tok(), inline: this loop reads most of the file */
		while (c < end && is_space(*c))
			c++;
		if (c == end)
			break;
		t.s = c;
		while (c < end && !is_space(*c))
			c++;
		t.n = (size_t)(c - t.s);
		if (col >= ps->nr_cols)
			return fail(ps, TDP_EFORMAT, "cost line has more counts than the %zu events", ps->nr_cols);
		if (!parse_count(t, &x))
			return fail(ps, TDP_EFORMAT, "bad count '%s'", tok(b, t.s, t.n));
		if (ps->col_event[col] >= 0)
			cost.v[ps->col_event[col]] = x;
		col++;
	}
	memcpy(ps->last, pos, sizeof(ps->last));
	if (inclusive)
		return 0; /* the cost of a call: the callee's own lines carry it as self cost */
	/* this file's totals are part of the profile's: small ones cannot overflow */
	if (sim_cost_small(&ps->p->totals, &cost)) {
		for (size_t i = 0; i < SIM_NR_EVENTS; i++)
			ps->file_totals.v[i] += cost.v[i];
	} else {
		for (size_t i = 0; i < SIM_NR_EVENTS; i++)
			if (!chk_add_u64(ps->file_totals.v[i], cost.v[i], &ps->file_totals.v[i]))
				return fail(ps, TDP_EFORMAT, "the sum of '%s' overflows 64 bits",
					    sim_event_name((enum sim_event)i));
	}
	ret = sim_profile_add(ps->p, ps->obj, ps->file, ps->fn, ps->pos_line >= 0 ? pos[ps->pos_line] : 0,
			      ps->pos_instr >= 0 ? pos[ps->pos_instr] : 0, &cost);
	if (ret)
		return fail_code(ps, ret);
	return 0;
}

static int parse_calls(struct parser *ps, struct span v)
{
	uint64_t pos[MAX_POS] = { 0 }, saved[MAX_POS], count;
	struct span t;
	char b[48];
	int ret;

	if (!ps->have_events)
		return fail(ps, TDP_EFORMAT, "'calls=' line before the 'events:' line");
	if (!ps->npos) {
		ps->npos = 1;
		ps->pos_line = 0;
		ps->pos_instr = -1;
	}
	if (!next_tok(&v, &t) || !str_to_u64_n(t.s, t.n, &count))
		return fail(ps, TDP_EFORMAT, "'calls=' line has no call count");
	/* The target position is relative to the previous cost line but does not move
	 * it: the cost line that follows is relative to the same base (callgrind's dump). */
	memcpy(saved, ps->last, sizeof(saved));
	if ((ret = parse_subpositions(ps, &v, pos)))
		return ret;
	memcpy(ps->last, saved, sizeof(saved));
	if (next_tok(&v, &t))
		return fail(ps, TDP_EFORMAT, "unexpected '%s' after the 'calls=' target", tok(b, t.s, t.n));
	ps->expect_call_cost = true;
	return 0;
}

/* `spec=name` lines; returns 1 when the line was not one. */
static int parse_spec(struct parser *ps, struct span l)
{
	static const struct {
		const char *prefix;
		enum id_space space;
		bool callgrind_only;
	} specs[] = {
		{ "ob=", ID_OBJ, true },   { "fl=", ID_FILE, false },  { "fi=", ID_FILE, false },
		{ "fe=", ID_FILE, false }, { "fn=", ID_FN, false },    { "cob=", ID_OBJ, true },
		{ "cfi=", ID_FILE, true }, { "cfl=", ID_FILE, true },  { "cfn=", ID_FN, true },
	};
	struct span v;
	uint32_t idx;
	char b[48];
	int ret;

	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		if (!starts(l, specs[i].prefix, &v))
			continue;
		if (specs[i].callgrind_only && ps->fmt != SIM_FORMAT_CALLGRIND)
			return fail(ps, TDP_EFORMAT, "callgrind line '%s' in a cachegrind file", tok(b, l.s, l.n));
		if ((ret = parse_name(ps, v, specs[i].space, &idx)))
			return ret;
		switch (specs[i].prefix[0] == 'c' ? 'c' : specs[i].prefix[1]) {
		case 'b': /* ob= */
			ps->obj = idx;
			break;
		case 'l': /* fl= */
			ps->fl = idx;
			ps->file = idx;
			break;
		case 'i': /* fi= */
		case 'e': /* fe= */
			ps->file = idx;
			break;
		case 'n': /* fn= */
			ps->fn = idx;
			/* Inlined code (fi=/fe=) ends with its function: costs return to fl=. */
			if (ps->fmt == SIM_FORMAT_CALLGRIND)
				ps->file = ps->fl;
			break;
		default: /* cob= cfi= cfl= cfn=: only define names for the calls= line */
			break;
		}
		return 0;
	}
	return 1;
}

static bool is_key(struct span l, struct span *key, struct span *value)
{
	size_t i = 0;

	while (i < l.n && (isalnum((unsigned char)l.s[i]) || l.s[i] == '_' || l.s[i] == '-'))
		i++;
	if (i == 0 || i >= l.n || l.s[i] != ':')
		return false;
	key->s = l.s;
	key->n = i;
	value->s = l.s + i + 1;
	value->n = l.n - i - 1;
	return true;
}

static bool key_is(struct span key, const char *k)
{
	return key.n == strlen(k) && memcmp(key.s, k, key.n) == 0;
}

static int parse_header(struct parser *ps, struct span key, struct span v)
{
	char b[48];
	int ret;

	if (key_is(key, "events"))
		return parse_events(ps, v);
	if (key_is(key, "positions")) {
		if (ps->fmt != SIM_FORMAT_CALLGRIND)
			return fail(ps, TDP_EFORMAT, "callgrind line 'positions:' in a cachegrind file");
		return parse_positions(ps, v);
	}
	if (key_is(key, "summary") || key_is(key, "totals")) {
		bool is_summary = key.s[0] == 's';
		struct sim_cost c, *to = is_summary ? &ps->summary : &ps->totals_line;
		bool *seen = is_summary ? &ps->has_summary : &ps->has_totals;
		const char *what = is_summary ? "summary:" : "totals:";

		if ((ret = parse_cost_list(ps, v, &c, what)))
			return ret;
		/* A cachegrind file has one; callgrind writes one per part, and parts add up. */
		if (*seen && ps->fmt == SIM_FORMAT_CACHEGRIND)
			return fail(ps, TDP_EFORMAT, "a second '%s' line", what);
		for (size_t i = 0; i < SIM_NR_EVENTS; i++)
			if (!chk_add_u64(to->v[i], c.v[i], &to->v[i]))
				return fail(ps, TDP_EFORMAT, "the '%s' lines overflow 64 bits", what);
		*seen = true;
		return 0;
	}
	if (key_is(key, "desc")) {
		parse_desc(ps, v);
		return 0;
	}
	if (key_is(key, "cmd")) {
		v = trim(v);
		if (!ps->p->cmd && !(ps->p->cmd = tdp_strndup(v.s, v.n)))
			return tdp_err_oom(ps->err);
		return 0;
	}
	if (key_is(key, "version")) {
		uint64_t x;
		struct span t;

		if (!next_tok(&v, &t) || !str_to_u64_n(t.s, t.n, &x) || x > 1)
			return fail(ps, TDP_EFORMAT, "unsupported format version '%s' (1 is known)",
				    tok(b, v.s, v.n));
		return 0;
	}
	if (key_is(key, "creator")) {
		struct span rest;

		/* callgrind and tdprof's tool end their files with totals: (a truncated one has none) */
		ps->by_callgrind = starts(trim(v), "callgrind", &rest) || starts(trim(v), "tdpsim", &rest);
		if (!ps->p->creator[0]) {
			struct span c = trim(v);
			size_t n = c.n < sizeof(ps->p->creator) - 1 ? c.n : sizeof(ps->p->creator) - 1;

			for (size_t i = 0; i < n; i++)
				ps->p->creator[i] = isprint((unsigned char)c.s[i]) ? c.s[i] : '?';
			ps->p->creator[n] = '\0';
		}
		return 0;
	}
	/* pid:, part:, thread:, event: and unknown keys carry nothing we use. */
	return 0;
}

static int parse_line(struct parser *ps, struct span l)
{
	struct span key, v;
	char b[48];
	int ret;

	if (ps->expect_call_cost) {
		ps->expect_call_cost = false;
		if (!l.n || !(isdigit((unsigned char)l.s[0]) || l.s[0] == '+' || l.s[0] == '-' || l.s[0] == '*'))
			return fail(ps, TDP_EFORMAT, "a 'calls=' line must be followed by its cost line");
		return parse_cost_line(ps, l, true);
	}
	if (!l.n || l.s[0] == '#')
		return 0;
	if (isdigit((unsigned char)l.s[0]) || l.s[0] == '+' || l.s[0] == '-' || l.s[0] == '*')
		return parse_cost_line(ps, l, false);
	if ((ret = parse_spec(ps, l)) <= 0)
		return ret;
	if (starts(l, "calls=", &v)) {
		if (ps->fmt != SIM_FORMAT_CALLGRIND)
			return fail(ps, TDP_EFORMAT, "callgrind line 'calls=' in a cachegrind file");
		return parse_calls(ps, v);
	}
	if (starts(l, "jump=", &v) || starts(l, "jcnd=", &v)) {
		if (ps->fmt != SIM_FORMAT_CALLGRIND)
			return fail(ps, TDP_EFORMAT, "callgrind jump line in a cachegrind file");
		return 0; /* jumps (--collect-jumps) carry no cost */
	}
	if (is_key(l, &key, &v))
		return parse_header(ps, key, v);
	return fail(ps, TDP_EFORMAT, "unrecognised line '%s'", tok(b, l.s, l.n));
}

static int check_sum(struct parser *ps, const struct sim_cost *want, const char *what)
{
	for (size_t i = 0; i < SIM_NR_EVENTS; i++) {
		if (!(ps->have_mask & (1u << i)) || want->v[i] == ps->file_totals.v[i])
			continue;
		return fail(ps, TDP_EFORMAT, "the '%s' line does not match the cost lines: %s %llu there, %llu summed",
			    what, sim_event_name((enum sim_event)i), (unsigned long long)want->v[i],
			    (unsigned long long)ps->file_totals.v[i]);
	}
	return 0;
}

static int finish(struct parser *ps)
{
	struct sim_cost sum;
	const struct sim_cost *s = NULL;
	int ret;

	if (ps->expect_call_cost)
		return fail(ps, TDP_EFORMAT, "the file ends after a 'calls=' line (truncated?)");
	ps->lineno = 0;
	if (!ps->have_events)
		return fail(ps, TDP_EFORMAT, "no 'events:' line (not a valgrind cost file?)");
	if (ps->fmt == SIM_FORMAT_CACHEGRIND) {
		if (!ps->has_summary)
			return fail(ps, TDP_EFORMAT, "no 'summary:' line (truncated file?)");
		if ((ret = check_sum(ps, &ps->summary, "summary:")))
			return ret;
	} else if (ps->has_totals) {
		if ((ret = check_sum(ps, &ps->totals_line, "totals:")))
			return ret;
	} else if (ps->by_callgrind) {
		return fail(ps, TDP_EFORMAT, "no 'totals:' line (truncated file?)");
	}
	if (ps->has_summary)
		s = &ps->summary;
	else if (ps->has_totals)
		s = &ps->totals_line;
	if (s) {
		for (size_t i = 0; i < SIM_NR_EVENTS; i++)
			if (!chk_add_u64(ps->p->summary.v[i], s->v[i], &sum.v[i]))
				return fail(ps, TDP_EFORMAT, "the summaries of the merged files overflow 64 bits");
		ps->p->summary = sum;
	}
	ps->p->have |= ps->have_mask;
	ps->p->nr_files++;
	return 0;
}

int sim_parse(struct sim_profile *p, const uint8_t *buf, size_t len, const char *name, enum sim_format fmt,
	      struct tdp_err *err)
{
	struct parser ps;
	size_t off = 0;
	int ret = 0;

	memset(&ps, 0, sizeof(ps));
	ps.p = p;
	ps.name = name ? name : "(memory)";
	ps.fmt = fmt;
	ps.err = err;
	ps.pos_instr = -1;
	ps.pos_line = -1;
	ps.obj = ps.fl = ps.file = ps.fn = SIM_NO_NAME;
	if (!buf && len)
		return tdp_err_set(err, TDP_EINVAL, "no buffer for '%s'", ps.name);

	while (off < len) {
		const uint8_t *s = buf + off;
		const uint8_t *nl = memchr(s, '\n', len - off);
		size_t n = nl ? (size_t)(nl - s) : len - off;
		struct span l;

		ps.lineno++;
		if (n > SIM_MAX_LINE_LEN) {
			ret = fail(&ps, TDP_ELIMIT, "line is longer than %u bytes", SIM_MAX_LINE_LEN);
			goto out;
		}
		off += n + (nl ? 1 : 0);
		if (memchr(s, '\0', n)) {
			ret = fail(&ps, TDP_EFORMAT, "NUL byte in a text line");
			goto out;
		}
		l.s = (const char *)s;
		l.n = n;
		if (l.n && l.s[l.n - 1] == '\r')
			l.n--;
		if ((ret = parse_line(&ps, l)))
			goto out;
	}
	ret = finish(&ps);
out:
	for (int i = 0; i < NR_ID_SPACES; i++)
		idmap_release(&ps.ids[i]);
	return ret;
}
