/* expr.c: the metric expression parser and evaluator (see expr.h). */
#include "model/expr.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/str.h"

enum tok {
	T_END = 0,
	T_NUM,
	T_NAME,
	T_CONST,
	T_LP,
	T_RP,
	T_COMMA,
	T_PLUS,
	T_MINUS,
	T_STAR,
	T_SLASH,
	T_LT,
	T_GT,
	T_LE,
	T_GE,
	T_EQ,
	T_NE,
	T_AND,
	T_OR,
	T_IF,
	T_ELSE,
};

struct parser {
	const char *s;
	size_t len;
	size_t pos;
	struct expr *e;
	struct tdp_err *err;
	int depth;
	int rc;

	enum tok tok;
	size_t tok_off;
	double num;
	int cnst;
	char name[EXPR_MAX_NAME + 1];
	size_t name_len;
	bool raw;
	bool plain; /* a name written without escapes or quotes (may be a keyword or function) */
};

static const char *const const_names[EXPR_C_NR] = {
	[EXPR_C_SLOTS] = "slots",
	[EXPR_C_SMT_ON] = "smt_on",
	[EXPR_C_CORE_WIDE] = "core_wide",
};

int expr_const_lookup(const char *name, size_t len)
{
	for (int i = 0; i < EXPR_C_NR; i++)
		if (strlen(const_names[i]) == len && strncasecmp(const_names[i], name, len) == 0)
			return i;
	return -1;
}

const char *expr_const_name(int c)
{
	static const char *const shown[EXPR_C_NR] = {
		[EXPR_C_SLOTS] = "#slots",
		[EXPR_C_SMT_ON] = "#smt_on",
		[EXPR_C_CORE_WIDE] = "#core_wide",
	};
	return c >= 0 && c < EXPR_C_NR ? shown[c] : "#?";
}

/* Describe the byte at the error position in words. */
static void describe_char(const struct parser *p, size_t off, char *buf, size_t size)
{
	unsigned char c;

	if (off >= p->len) {
		snprintf(buf, size, "the end");
		return;
	}
	c = (unsigned char)p->s[off];
	if (isprint(c))
		snprintf(buf, size, "'%c'", c);
	else
		snprintf(buf, size, "byte 0x%02x", c);
}

static int fail(struct parser *p, int code, size_t off, const char *what)
{
	if (!p->rc) {
		char near[16];

		describe_char(p, off, near, sizeof(near));
		tdp_err_set(p->err, code, "at offset %zu: %s (found %s)", off, what, near);
		p->rc = code;
	}
	return -1;
}

static bool is_name_start(unsigned char c)
{
	return isalpha(c) || c == '_' || c == '\\';
}

static bool is_name_char(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '.';
}

/* Append one byte to the current name; fails beyond EXPR_MAX_NAME. */
static int name_add(struct parser *p, char c)
{
	if (p->name_len >= EXPR_MAX_NAME) {
		if (!p->rc) {
			tdp_err_set(p->err, TDP_ELIMIT, "at offset %zu: name longer than %d bytes", p->tok_off,
				    EXPR_MAX_NAME);
			p->rc = TDP_ELIMIT;
		}
		return -1;
	}
	if (c == '\0')
		return fail(p, TDP_EFORMAT, p->pos, "a name cannot hold a NUL byte");
	p->name[p->name_len++] = c;
	p->name[p->name_len] = '\0';
	return 0;
}

/* Read a name (with backslash escapes) starting at p->pos. */
static int lex_name(struct parser *p)
{
	p->name_len = 0;
	p->name[0] = '\0';
	p->plain = true;
	p->raw = false;
	while (p->pos < p->len) {
		unsigned char c = (unsigned char)p->s[p->pos];

		if (c == '\\') {
			if (p->pos + 1 >= p->len)
				return fail(p, TDP_EFORMAT, p->pos, "a backslash must escape a character");
			if (name_add(p, p->s[p->pos + 1]) < 0)
				return -1;
			p->plain = false;
			p->pos += 2;
		} else if (is_name_char(c)) {
			if (name_add(p, (char)c) < 0)
				return -1;
			p->pos++;
		} else {
			break;
		}
	}
	/* perf's raw event: pmu@event\,term\=value@ */
	if (p->pos < p->len && p->s[p->pos] == '@') {
		if (!p->plain)
			return fail(p, TDP_EFORMAT, p->pos, "a PMU name cannot hold escapes");
		if (name_add(p, '/') < 0)
			return -1;
		p->pos++;
		for (;;) {
			if (p->pos >= p->len)
				return fail(p, TDP_EFORMAT, p->pos, "unterminated raw event (expected '@')");
			if (p->s[p->pos] == '@')
				break;
			if (p->s[p->pos] == '\\') {
				if (p->pos + 1 >= p->len)
					return fail(p, TDP_EFORMAT, p->pos, "a backslash must escape a character");
				p->pos++;
			}
			if (name_add(p, p->s[p->pos]) < 0)
				return -1;
			p->pos++;
		}
		p->pos++;
		if (name_add(p, '/') < 0)
			return -1;
		p->raw = true;
		p->plain = false;
	}
	if (p->name_len == 0)
		return fail(p, TDP_EFORMAT, p->tok_off, "empty name");
	return 0;
}

static int lex_quoted(struct parser *p)
{
	p->name_len = 0;
	p->name[0] = '\0';
	p->plain = false;
	p->raw = false;
	p->pos++; /* opening quote */
	for (;;) {
		if (p->pos >= p->len)
			return fail(p, TDP_EFORMAT, p->tok_off, "unterminated quoted name");
		if (p->s[p->pos] == '\'')
			break;
		if (name_add(p, p->s[p->pos]) < 0)
			return -1;
		p->pos++;
	}
	p->pos++;
	if (p->name_len == 0)
		return fail(p, TDP_EFORMAT, p->tok_off, "empty quoted name");
	return 0;
}

static int lex_number(struct parser *p)
{
	char buf[EXPR_MAX_NUMBER + 1];
	size_t start = p->pos, n = 0;
	bool hex = false;

	if (p->pos + 1 < p->len && p->s[p->pos] == '0' && (p->s[p->pos + 1] == 'x' || p->s[p->pos + 1] == 'X')) {
		hex = true;
		p->pos += 2;
		while (p->pos < p->len && isxdigit((unsigned char)p->s[p->pos]))
			p->pos++;
	} else {
		while (p->pos < p->len && isdigit((unsigned char)p->s[p->pos]))
			p->pos++;
		if (p->pos < p->len && p->s[p->pos] == '.') {
			p->pos++;
			while (p->pos < p->len && isdigit((unsigned char)p->s[p->pos]))
				p->pos++;
		}
		if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
			size_t q = p->pos + 1;

			if (q < p->len && (p->s[q] == '+' || p->s[q] == '-'))
				q++;
			if (q < p->len && isdigit((unsigned char)p->s[q])) {
				p->pos = q;
				while (p->pos < p->len && isdigit((unsigned char)p->s[p->pos]))
					p->pos++;
			}
		}
	}
	if (p->pos < p->len && (is_name_char((unsigned char)p->s[p->pos]) || p->s[p->pos] == '\\'))
		return fail(p, TDP_EFORMAT, p->pos, "malformed number");
	n = p->pos - start;
	if (n > EXPR_MAX_NUMBER) {
		if (!p->rc) {
			tdp_err_set(p->err, TDP_ELIMIT, "at offset %zu: number longer than %d bytes", start,
				    EXPR_MAX_NUMBER);
			p->rc = TDP_ELIMIT;
		}
		return -1;
	}
	memcpy(buf, p->s + start, n);
	buf[n] = '\0';
	if (hex) {
		uint64_t v;

		if (!str_to_u64(buf, &v))
			return fail(p, TDP_EFORMAT, start, "malformed hexadecimal number");
		p->num = (double)v;
	} else if (!str_to_double(buf, &p->num)) {
		return fail(p, TDP_EFORMAT, start, "malformed number");
	}
	return 0;
}

/* Read the next token into p->tok. */
static int next(struct parser *p)
{
	unsigned char c;

	if (p->rc)
		return -1;
	while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\n' ||
				   p->s[p->pos] == '\r'))
		p->pos++;
	p->tok_off = p->pos;
	if (p->pos >= p->len) {
		p->tok = T_END;
		return 0;
	}
	c = (unsigned char)p->s[p->pos];
	if (isdigit(c) || (c == '.' && p->pos + 1 < p->len && isdigit((unsigned char)p->s[p->pos + 1]))) {
		p->tok = T_NUM;
		return lex_number(p);
	}
	if (is_name_start(c)) {
		if (lex_name(p) < 0)
			return -1;
		p->tok = T_NAME;
		if (p->plain && !strcmp(p->name, "if"))
			p->tok = T_IF;
		else if (p->plain && !strcmp(p->name, "else"))
			p->tok = T_ELSE;
		return 0;
	}
	if (c == '\'') {
		p->tok = T_NAME;
		return lex_quoted(p);
	}
	if (c == '#') {
		size_t start = ++p->pos;

		while (p->pos < p->len && (isalnum((unsigned char)p->s[p->pos]) || p->s[p->pos] == '_'))
			p->pos++;
		p->cnst = expr_const_lookup(p->s + start, p->pos - start);
		if (p->cnst < 0)
			return fail(p, TDP_EFORMAT, p->tok_off, "unknown constant (known: #slots, #smt_on, #core_wide)");
		p->tok = T_CONST;
		return 0;
	}
	p->pos++;
	switch (c) {
	case '(': p->tok = T_LP; return 0;
	case ')': p->tok = T_RP; return 0;
	case ',': p->tok = T_COMMA; return 0;
	case '+': p->tok = T_PLUS; return 0;
	case '-': p->tok = T_MINUS; return 0;
	case '*': p->tok = T_STAR; return 0;
	case '/': p->tok = T_SLASH; return 0;
	case '&': p->tok = T_AND; return 0;
	case '|': p->tok = T_OR; return 0;
	case '<':
	case '>':
	case '=':
	case '!': {
		bool eq = p->pos < p->len && p->s[p->pos] == '=';

		if (eq)
			p->pos++;
		if (c == '<')
			p->tok = eq ? T_LE : T_LT;
		else if (c == '>')
			p->tok = eq ? T_GE : T_GT;
		else if (!eq)
			return fail(p, TDP_EFORMAT, p->tok_off, c == '=' ? "expected '=='" : "expected '!='");
		else
			p->tok = c == '=' ? T_EQ : T_NE;
		return 0;
	}
	default:
		return fail(p, TDP_EFORMAT, p->tok_off, "unexpected character");
	}
}

static int add_node(struct parser *p, enum expr_op op, int a, int b, int c, size_t off)
{
	struct expr *e = p->e;
	struct expr_node *n;

	if (p->rc)
		return -1;
	if (e->nr >= EXPR_MAX_NODES) {
		tdp_err_set(p->err, TDP_ELIMIT, "at offset %zu: expression has more than %d terms", off,
			    EXPR_MAX_NODES);
		p->rc = TDP_ELIMIT;
		return -1;
	}
	if (TDP_GROW(e->v, e->alloc, e->nr + 1)) {
		tdp_err_oom(p->err);
		p->rc = TDP_ENOMEM;
		return -1;
	}
	n = &e->v[e->nr];
	memset(n, 0, sizeof(*n));
	n->op = op;
	n->a = a;
	n->b = b;
	n->c = c;
	n->ref = -1;
	n->offset = off;
	return (int)e->nr++;
}

static int parse_cond(struct parser *p);

static int enter(struct parser *p)
{
	if (++p->depth > EXPR_MAX_DEPTH) {
		if (!p->rc) {
			tdp_err_set(p->err, TDP_ELIMIT, "at offset %zu: expression nested deeper than %d", p->tok_off,
				    EXPR_MAX_DEPTH);
			p->rc = TDP_ELIMIT;
		}
		return -1;
	}
	return 0;
}

static int expect(struct parser *p, enum tok t, const char *what)
{
	if (p->rc)
		return -1;
	if (p->tok != t)
		return fail(p, TDP_EFORMAT, p->tok_off, what);
	return next(p);
}

static int parse_call(struct parser *p, enum expr_op op, size_t off)
{
	int a, b;

	if (next(p) < 0 || expect(p, T_LP, "expected '(' after a function name") < 0)
		return -1;
	a = parse_cond(p);
	if (a < 0 || expect(p, T_COMMA, "expected ',' between the two arguments") < 0)
		return -1;
	b = parse_cond(p);
	if (b < 0 || expect(p, T_RP, "expected ')' after the second argument") < 0)
		return -1;
	return add_node(p, op, a, b, -1, off);
}

static int parse_primary(struct parser *p)
{
	size_t off = p->tok_off;
	int i;

	switch (p->tok) {
	case T_NUM:
		i = add_node(p, EXPR_NUM, -1, -1, -1, off);
		if (i >= 0)
			p->e->v[i].num = p->num;
		if (i < 0 || next(p) < 0)
			return -1;
		return i;
	case T_CONST:
		i = add_node(p, EXPR_CONST, -1, -1, -1, off);
		if (i >= 0)
			p->e->v[i].cnst = p->cnst;
		if (i < 0 || next(p) < 0)
			return -1;
		return i;
	case T_NAME: {
		char *name;

		if (p->plain) {
			if (!strcmp(p->name, "d_ratio"))
				return parse_call(p, EXPR_DRATIO, off);
			if (!strcmp(p->name, "max"))
				return parse_call(p, EXPR_MAX, off);
			if (!strcmp(p->name, "min"))
				return parse_call(p, EXPR_MIN, off);
		}
		name = tdp_strndup(p->name, p->name_len);
		if (!name) {
			tdp_err_oom(p->err);
			p->rc = TDP_ENOMEM;
			return -1;
		}
		i = add_node(p, EXPR_NAME, -1, -1, -1, off);
		if (i < 0) {
			tdp_free(name);
			return -1;
		}
		p->e->v[i].name = name;
		p->e->v[i].raw = p->raw;
		if (next(p) < 0)
			return -1;
		if (p->tok == T_LP)
			return fail(p, TDP_EFORMAT, off, "unknown function (known: d_ratio, max, min)");
		return i;
	}
	case T_LP:
		if (enter(p) < 0 || next(p) < 0)
			return -1;
		i = parse_cond(p);
		p->depth--;
		if (i < 0 || expect(p, T_RP, "expected ')'") < 0)
			return -1;
		return i;
	default:
		return fail(p, TDP_EFORMAT, off, "expected a number, a name, a #constant or '('");
	}
}

static int parse_unary(struct parser *p)
{
	size_t off = p->tok_off;
	int a;

	if (p->tok != T_MINUS)
		return parse_primary(p);
	if (enter(p) < 0 || next(p) < 0)
		return -1;
	a = parse_unary(p);
	p->depth--;
	if (a < 0)
		return -1;
	return add_node(p, EXPR_NEG, a, -1, -1, off);
}

static int parse_mul(struct parser *p)
{
	int a = parse_unary(p);

	while (a >= 0 && (p->tok == T_STAR || p->tok == T_SLASH)) {
		enum expr_op op = p->tok == T_STAR ? EXPR_MUL : EXPR_DIV;
		size_t off = p->tok_off;
		int b;

		if (next(p) < 0)
			return -1;
		b = parse_unary(p);
		if (b < 0)
			return -1;
		a = add_node(p, op, a, b, -1, off);
	}
	return a;
}

static int parse_add(struct parser *p)
{
	int a = parse_mul(p);

	while (a >= 0 && (p->tok == T_PLUS || p->tok == T_MINUS)) {
		enum expr_op op = p->tok == T_PLUS ? EXPR_ADD : EXPR_SUB;
		size_t off = p->tok_off;
		int b;

		if (next(p) < 0)
			return -1;
		b = parse_mul(p);
		if (b < 0)
			return -1;
		a = add_node(p, op, a, b, -1, off);
	}
	return a;
}

static int parse_cmp(struct parser *p)
{
	int a = parse_add(p), b;
	enum expr_op op;
	size_t off = p->tok_off;

	if (a < 0)
		return -1;
	switch (p->tok) {
	case T_LT: op = EXPR_LT; break;
	case T_GT: op = EXPR_GT; break;
	case T_LE: op = EXPR_LE; break;
	case T_GE: op = EXPR_GE; break;
	case T_EQ: op = EXPR_EQ; break;
	case T_NE: op = EXPR_NE; break;
	default: return a;
	}
	if (next(p) < 0)
		return -1;
	b = parse_add(p);
	if (b < 0)
		return -1;
	return add_node(p, op, a, b, -1, off);
}

static int parse_and(struct parser *p)
{
	int a = parse_cmp(p);

	while (a >= 0 && p->tok == T_AND) {
		size_t off = p->tok_off;
		int b;

		if (next(p) < 0)
			return -1;
		b = parse_cmp(p);
		if (b < 0)
			return -1;
		a = add_node(p, EXPR_AND, a, b, -1, off);
	}
	return a;
}

static int parse_or(struct parser *p)
{
	int a = parse_and(p);

	while (a >= 0 && p->tok == T_OR) {
		size_t off = p->tok_off;
		int b;

		if (next(p) < 0)
			return -1;
		b = parse_and(p);
		if (b < 0)
			return -1;
		a = add_node(p, EXPR_OR, a, b, -1, off);
	}
	return a;
}

/* X if C else Y: the lowest precedence, right-associative (as perf's grammar). */
static int parse_cond(struct parser *p)
{
	int then, cond, other, r;
	size_t off;

	if (enter(p) < 0)
		return -1;
	then = parse_or(p);
	if (then < 0 || p->tok != T_IF) {
		p->depth--;
		return then;
	}
	off = p->tok_off;
	if (next(p) < 0)
		return -1;
	cond = parse_or(p);
	if (cond < 0 || expect(p, T_ELSE, "expected 'else' after the condition") < 0)
		return -1;
	other = parse_cond(p);
	if (other < 0)
		return -1;
	r = add_node(p, EXPR_IF, then, cond, other, off);
	p->depth--;
	return r;
}

int expr_parse(struct expr *e, const char *src, size_t len, struct tdp_err *err)
{
	struct parser p;
	int root;

	if (len > EXPR_MAX_LEN)
		return tdp_err_set(err, TDP_ELIMIT, "expression longer than %d bytes", EXPR_MAX_LEN);
	memset(&p, 0, sizeof(p));
	p.s = src;
	p.len = len;
	p.e = e;
	p.err = err;
	e->root = -1;
	if (next(&p) < 0)
		goto out;
	if (p.tok == T_END) {
		fail(&p, TDP_EFORMAT, 0, "empty expression");
		goto out;
	}
	root = parse_cond(&p);
	if (root < 0)
		goto out;
	if (p.tok != T_END) {
		fail(&p, TDP_EFORMAT, p.tok_off, "unexpected text after the expression");
		goto out;
	}
	e->root = root;
out:
	if (p.rc || e->root < 0) {
		if (!p.rc)
			p.rc = tdp_err_set(err, TDP_EFORMAT, "malformed expression");
		expr_release(e);
		return p.rc;
	}
	return 0;
}

void expr_release(struct expr *e)
{
	for (size_t i = 0; i < e->nr; i++)
		tdp_free(e->v[i].name);
	tdp_free(e->v);
	e->v = NULL;
	e->nr = 0;
	e->alloc = 0;
	e->root = -1;
}

static double ev(const struct expr *e, int i, const struct expr_env *env)
{
	const struct expr_node *n = &e->v[i];
	double a, b, c;

	switch (n->op) {
	case EXPR_NUM:
		return n->num;
	case EXPR_CONST:
		return env->consts[n->cnst];
	case EXPR_NAME:
		return env->lookup ? env->lookup(env->arg, n) : NAN;
	case EXPR_NEG:
		return -ev(e, n->a, env);
	case EXPR_IF:
		c = ev(e, n->b, env);
		if (isnan(c))
			return NAN;
		return c != 0 ? ev(e, n->a, env) : ev(e, n->c, env);
	default:
		break;
	}
	if ((n->op == EXPR_MAX || n->op == EXPR_MIN) && env->unclamped) {
		if (e->v[n->a].op == EXPR_NUM)
			return ev(e, n->b, env);
		if (e->v[n->b].op == EXPR_NUM)
			return ev(e, n->a, env);
	}
	a = ev(e, n->a, env);
	b = ev(e, n->b, env);
	if (isnan(a) || isnan(b))
		return NAN;
	switch (n->op) {
	case EXPR_ADD: return a + b;
	case EXPR_SUB: return a - b;
	case EXPR_MUL: return a * b;
	case EXPR_DIV: return b == 0 ? NAN : a / b;
	case EXPR_LT: return a < b;
	case EXPR_GT: return a > b;
	case EXPR_LE: return a <= b;
	case EXPR_GE: return a >= b;
	case EXPR_EQ: return a == b;
	case EXPR_NE: return a != b;
	case EXPR_AND: return a != 0 && b != 0;
	case EXPR_OR: return a != 0 || b != 0;
	case EXPR_DRATIO:
		if (b == 0)
			return env->unclamped ? NAN : 0;
		return a / b;
	case EXPR_MAX: return a > b ? a : b;
	case EXPR_MIN: return a < b ? a : b;
	default: return NAN;
	}
}

double expr_eval(const struct expr *e, const struct expr_env *env)
{
	if (!e->v || e->root < 0)
		return NAN;
	return ev(e, e->root, env);
}

/* True when the subtree holds no name (its value is known without counts). */
static bool is_constant(const struct expr *e, int i)
{
	const struct expr_node *n = &e->v[i];

	if (n->op == EXPR_NAME)
		return false;
	return (n->a < 0 || is_constant(e, n->a)) && (n->b < 0 || is_constant(e, n->b)) &&
	       (n->c < 0 || is_constant(e, n->c));
}

static bool walk(const struct expr *e, int i, const struct expr_env *env, expr_name_fn *fn, void *arg)
{
	const struct expr_node *n = &e->v[i];

	if (n->op == EXPR_NAME)
		return fn(arg, n);
	if (n->op == EXPR_IF && is_constant(e, n->b)) {
		struct expr_env cenv = *env;
		double c;

		cenv.lookup = NULL;
		c = ev(e, n->b, &cenv);
		if (!isnan(c))
			return walk(e, c != 0 ? n->a : n->c, env, fn, arg);
	}
	if (n->a >= 0 && !walk(e, n->a, env, fn, arg))
		return false;
	if (n->b >= 0 && !walk(e, n->b, env, fn, arg))
		return false;
	if (n->c >= 0 && !walk(e, n->c, env, fn, arg))
		return false;
	return true;
}

void expr_walk_names(const struct expr *e, const struct expr_env *env, expr_name_fn *fn, void *arg)
{
	if (e->v && e->root >= 0)
		walk(e, e->root, env, fn, arg);
}
