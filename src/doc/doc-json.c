/* doc-json.c: typed readers of a document's JSON members (see doc-internal.h). */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "base/err.h"
#include "base/str.h"
#include "base/strbuf.h"
#include "doc/doc-internal.h"

#define TDOC_TEXT_DEPTH 4     /* nesting shown when an object becomes text */
#define TDOC_TEXT_MAX 4096    /* bytes of such a text */

int doc_fail_type(struct pctx *c, const char *where, const char *key, const char *want)
{
	if (!c->ret)
		c->ret = tdp_err_set(c->err, TDP_EFORMAT, "'%s': %s%s'%s' is not %s", c->d->name, where ? where : "",
				     where ? ": " : "", key, want);
	return c->ret;
}

int doc_oom(struct pctx *c)
{
	if (!c->ret)
		c->ret = tdp_err_oom(c->err);
	return c->ret;
}

/* A string member (NULL when absent or null). */
const char *doc_str(struct pctx *c, const json_t *o, const char *key, const char *where)
{
	const json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return NULL;
	if (!json_is_string(v)) {
		doc_fail_type(c, where, key, "a string");
		return NULL;
	}
	return json_string_value(v);
}

/* A number member (NAN when absent or null). */
double doc_num(struct pctx *c, const json_t *o, const char *key, const char *where)
{
	const json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return NAN;
	if (!json_is_number(v)) {
		doc_fail_type(c, where, key, "a number");
		return NAN;
	}
	return json_number_value(v);
}

bool doc_bool(const json_t *o, const char *key)
{
	return json_is_true(json_object_get(o, key));
}

/* An address or offset: a number, or a string "0x..." or decimal. */
bool doc_u64(struct pctx *c, const json_t *o, const char *key, const char *where, uint64_t *out)
{
	const json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return false;
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return true;
	}
	if (json_is_string(v) && str_to_u64(json_string_value(v), out))
		return true;
	doc_fail_type(c, where, key, "an address (\"0x...\" or a number)");
	return false;
}

/* A heap copy kept until tdoc_free (strings made here rather than borrowed). */
char *doc_own(struct pctx *c, struct strbuf *sb)
{
	char *s;

	if (strbuf_failed(sb)) {
		strbuf_release(sb);
		doc_oom(c);
		return NULL;
	}
	s = strbuf_detach(sb);
	if (!s)
		doc_oom(c);
	return s;
}

/* A JSON value in words: strings as they are, objects as "key: value, ...". */
static void value_text(const json_t *v, int depth, struct strbuf *sb)
{
	const char *k;
	const json_t *m;
	size_t i, n = 0;

	if (sb->len > TDOC_TEXT_MAX)
		return;
	if (json_is_string(v)) {
		strbuf_adds(sb, json_string_value(v));
	} else if (json_is_integer(v)) {
		strbuf_addf(sb, "%lld", (long long)json_integer_value(v));
	} else if (json_is_real(v)) {
		strbuf_addf(sb, "%.4g", json_real_value(v));
	} else if (json_is_boolean(v)) {
		strbuf_adds(sb, json_is_true(v) ? "yes" : "no");
	} else if (json_is_null(v)) {
		strbuf_adds(sb, "-");
	} else if (depth >= TDOC_TEXT_DEPTH) {
		strbuf_adds(sb, "...");
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, m) {
			if (i)
				strbuf_adds(sb, "; ");
			value_text(m, depth + 1, sb);
		}
	} else if (json_is_object(v)) {
		json_object_foreach((json_t *)v, k, m) {
			if (json_is_null(m))
				continue;
			strbuf_addf(sb, "%s%s: ", n++ ? ", " : "", k);
			value_text(m, depth + 1, sb);
		}
	}
}

char *doc_text(struct pctx *c, const json_t *v)
{
	struct strbuf sb = STRBUF_INIT;

	if (!v || json_is_null(v))
		return NULL;
	value_text(v, 0, &sb);
	return doc_own(c, &sb);
}
