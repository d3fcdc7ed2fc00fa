/*
 * json.c: `perf stat -j` output (perf 5.x and 6.x; perf_json_output_lint.py in perf's
 * tests): one flat JSON object per line,
 *
 *   {"counter-value" : "2.781637", "unit" : "msec", "event" : "task-clock",
 *    "event-runtime" : 2781637, "pcnt-running" : 100.00,
 *    "metric-value" : 0.554475, "metric-unit" : "CPUs utilized"}
 *
 * with "interval", "cpu", "core", "die", "socket", "node", "cluster", "cache",
 * "thread", "cgroup" in front when perf was asked for them, and "variance" after
 * the event with -r. An object without "event" but with a metric is one more
 * metric of the count before it. Spellings seen: counter-value is a string (also
 * "<not counted>"); metric-value is a number in 6.1 and a string in 6.13; perf
 * has printed ", }" (a trailing comma), accepted here. Unknown keys are ignored.
 *
 * The objects are flat, so the reader below is a small strict scanner for one
 * object of string/number/literal values, not a general JSON parser.
 */
#include "import/import-internal.h"
#include "base/alloc.h"
#include "base/err.h"
#include "base/str.h"
#include "base/strbuf.h"

#include <string.h>

#define JSON_MAX_KEYS 64 /* perf prints at most about 16 */

enum jtype { J_STRING, J_NUMBER, J_LITERAL };

struct jfield {
	const char *key;  /* decoded, NUL-terminated (in the scratch buffer) */
	enum jtype type;
	const char *text; /* decoded string, or the number's/literal's characters */
};

struct jobj {
	struct jfield f[JSON_MAX_KEYS];
	size_t n;
};

struct jscan {
	const char *s;  /* next character of the line */
	char *out;      /* next free byte of the scratch buffer */
	char *out_end;
};

static void skip_ws(struct jscan *j)
{
	while (*j->s == ' ' || *j->s == '\t')
		j->s++;
}

/* Put one byte into the scratch buffer; false when it is full. */
static bool put(struct jscan *j, char c)
{
	if (j->out >= j->out_end)
		return false;
	*j->out++ = c;
	return true;
}

/* A string at j->s (after skip_ws): decoded into the scratch buffer. */
static const char *scan_string(struct jscan *j, const char **why)
{
	const char *start = j->out;

	if (*j->s != '"') {
		*why = "a string was expected";
		return NULL;
	}
	j->s++;
	for (;;) {
		char c = *j->s++;

		if (c == '\0') {
			*why = "a string is not closed";
			return NULL;
		}
		if (c == '"')
			break;
		if ((unsigned char)c < 0x20) {
			*why = "a control character inside a string";
			return NULL;
		}
		if (c == '\\') {
			char e = *j->s++;
			unsigned cp = 0;

			switch (e) {
			case '"': case '\\': case '/': c = e; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u':
				for (int k = 0; k < 4; k++) {
					int h = str_hexval(j->s[k]);

					if (h < 0) {
						*why = "a bad \\u escape";
						return NULL;
					}
					cp = cp * 16 + (unsigned)h;
				}
				j->s += 4;
				/* UTF-8 for the BMP; a surrogate half stays as U+FFFD. */
				if (cp >= 0xd800 && cp < 0xe000)
					cp = 0xfffd;
				if (cp < 0x80) {
					c = (char)cp;
				} else if (cp < 0x800) {
					if (!put(j, (char)(0xc0 | (cp >> 6))))
						goto full;
					c = (char)(0x80 | (cp & 0x3f));
				} else {
					if (!put(j, (char)(0xe0 | (cp >> 12))) ||
					    !put(j, (char)(0x80 | ((cp >> 6) & 0x3f))))
						goto full;
					c = (char)(0x80 | (cp & 0x3f));
				}
				break;
			default:
				*why = "a bad escape in a string";
				return NULL;
			}
		}
		if (!put(j, c))
			goto full;
	}
	if (!put(j, '\0'))
		goto full;
	return start;
full:
	*why = "a string too long";
	return NULL;
}

/* A number or a literal (true, false, null, nan): its characters, copied. */
static const char *scan_bare(struct jscan *j, const char **why)
{
	const char *start = j->out;
	size_t n = 0;

	while ((*j->s >= '0' && *j->s <= '9') || (*j->s >= 'a' && *j->s <= 'z') || (*j->s >= 'A' && *j->s <= 'Z') ||
	       *j->s == '.' || *j->s == '-' || *j->s == '+') {
		if (!put(j, *j->s++)) {
			*why = "a value too long";
			return NULL;
		}
		n++;
	}
	if (!n || !put(j, '\0')) {
		*why = "a value was expected";
		return NULL;
	}
	return start;
}

/* Parse the one object on line into o. Returns NULL, or why it does not parse. */
static const char *scan_object(const char *line, char *scratch, size_t scratch_size, struct jobj *o)
{
	struct jscan j = { line, scratch, scratch + scratch_size };
	const char *why = NULL;

	o->n = 0;
	skip_ws(&j);
	if (*j.s++ != '{')
		return "an object ('{') was expected";
	for (;;) {
		struct jfield *fl;

		skip_ws(&j);
		if (*j.s == '}') {
			j.s++;
			break; /* also after a trailing comma, as perf printed it */
		}
		if (o->n == JSON_MAX_KEYS)
			return "too many keys";
		fl = &o->f[o->n];
		if (!(fl->key = scan_string(&j, &why)))
			return why;
		skip_ws(&j);
		if (*j.s++ != ':')
			return "':' was expected after a key";
		skip_ws(&j);
		if (*j.s == '"') {
			fl->type = J_STRING;
			fl->text = scan_string(&j, &why);
		} else if (*j.s == '{' || *j.s == '[') {
			return "nested objects and arrays are not perf stat output";
		} else {
			fl->text = scan_bare(&j, &why);
			fl->type = (fl->text && (fl->text[0] == '-' || (fl->text[0] >= '0' && fl->text[0] <= '9')))
					   ? J_NUMBER : J_LITERAL;
		}
		if (!fl->text)
			return why;
		o->n++;
		skip_ws(&j);
		if (*j.s == ',') {
			j.s++;
			continue;
		}
		if (*j.s == '}') {
			j.s++;
			break;
		}
		return "',' or '}' was expected";
	}
	skip_ws(&j);
	if (*j.s)
		return "text after the object";
	return NULL;
}

static const struct jfield *get(const struct jobj *o, const char *key)
{
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->f[i].key, key))
			return &o->f[i];
	return NULL;
}

/* The metric of an object (metric-value, metric-unit), if it has one. */
static int add_metric(struct imp_parser *p, const struct jobj *o)
{
	const struct jfield *mv = get(o, "metric-value"), *mu = get(o, "metric-unit");
	double v;

	if (!mv || !mu || mu->type != J_STRING || !mu->text[0])
		return 0;
	if (mv->type == J_LITERAL)
		return 0; /* nan, null: perf had no value */
	if (!imp_parse_decimal(mv->text, true, &v)) {
		if (!strcmp(mv->text, "nan") || !strcmp(mv->text, "-nan") || !mv->text[0])
			return 0;
		return imp_fail(p, TDP_EFORMAT, "metric-value '%s' is not a number", mv->text);
	}
	return imp_add_metric(p, v, mu->text, false);
}

/* The keys that tell one interval, CPU, core, socket, thread or cgroup from another. */
static const char *const slice_keys[] = {
	"interval", "cpu", "core", "die", "socket", "node", "cluster", "cache", "thread", "cgroup",
};

static int parse_count(struct imp_parser *p, const struct jobj *o, struct strbuf *slice)
{
	const struct jfield *ev = get(o, "event"), *cv = get(o, "counter-value"), *f;
	struct imp_row row = { 0 };
	int rc;

	row.pct = -1;
	row.stddev = -1;
	row.interval = -1;
	if (ev->type != J_STRING)
		return imp_fail(p, TDP_EFORMAT, "\"event\" is not a string");
	row.event = (char *)ev->text;
	if (!cv)
		return imp_fail(p, TDP_EFORMAT, "'%s' has no \"counter-value\"", row.event);
	if (imp_is_not_marker(cv->text))
		row.status = imp_not_status(cv->text);
	else if (!imp_parse_decimal(cv->text, false, &row.value))
		return imp_fail(p, TDP_EFORMAT, "counter-value '%s' of '%s' is not a number", cv->text, row.event);
	f = get(o, "unit");
	row.unit = (char *)(f && f->type == J_STRING ? f->text : "");
	if ((f = get(o, "event-runtime"))) {
		if (!imp_parse_u64(f->text, &row.runtime))
			return imp_fail(p, TDP_EFORMAT, "event-runtime '%s' of '%s' is not a number", f->text,
					row.event);
		row.has_runtime = true;
	}
	if ((f = get(o, "pcnt-running")) && !imp_parse_pct(f->text, &row.pct))
		return imp_fail(p, TDP_EFORMAT, "pcnt-running '%s' of '%s' is not within 0..100", f->text, row.event);
	if ((f = get(o, "variance")) && !imp_parse_pct(f->text, &row.stddev))
		return imp_fail(p, TDP_EFORMAT, "variance '%s' of '%s' is not within 0..100", f->text, row.event);

	strbuf_reset(slice);
	for (size_t i = 0; i < sizeof(slice_keys) / sizeof(slice_keys[0]); i++) {
		if (!(f = get(o, slice_keys[i])))
			continue;
		if (i == 0 && !imp_parse_decimal(f->text, false, &row.interval))
			return imp_fail(p, TDP_EFORMAT, "interval '%s' is not a number", f->text);
		strbuf_addf(slice, "%s=%s\x1f", slice_keys[i], f->text);
	}
	if (strbuf_failed(slice))
		return tdp_err_oom(p->err);
	row.slice = slice->buf;
	rc = imp_add_row(p, &row);
	return rc ? rc : add_metric(p, o);
}

int imp_read_json(struct imp_parser *p)
{
	struct strbuf slice = STRBUF_INIT;
	/* Decoded strings never outgrow the line they come from (plus NULs). */
	size_t scratch_size = IMPORT_MAX_LINE + JSON_MAX_KEYS * 2 + 8;
	char *scratch = tdp_malloc(scratch_size);
	struct jobj *o = tdp_calloc(1, sizeof(*o));
	char *line;
	int rc;

	if (!scratch || !o) {
		rc = tdp_err_oom(p->err);
		goto out;
	}
	while ((rc = imp_next_line(p, &line)) > 0) {
		const char *why, *t = line;

		while (*t == ' ' || *t == '\t')
			t++;
		if (*t == '#')
			imp_comment(p, t);
		if (!*t || *t == '#' || imp_is_prompt(t))
			continue; /* blank, "# started on", a pasted shell prompt */
		why = scan_object(t, scratch, scratch_size, o);
		if (why) {
			rc = imp_fail(p, TDP_EFORMAT, "not a perf stat -j object: %s", why);
			break;
		}
		if (get(o, "event"))
			rc = parse_count(p, o, &slice);
		else
			rc = add_metric(p, o);
		if (rc)
			break;
	}
out:
	tdp_free(o);
	tdp_free(scratch);
	strbuf_release(&slice);
	return rc < 0 ? rc : 0;
}
