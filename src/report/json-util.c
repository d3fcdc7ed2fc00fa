/* json-util.c: helpers shared by the JSON renderers (see json-util.h). */
#include "report/json-util.h"
#include "base/err.h"
#include "base/strbuf.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void jput(json_t *o, const char *key, json_t *v, bool *failed)
{
	if (!o) {
		json_decref(v);
		*failed = true;
	} else if (!v || json_object_set_new(o, key, v)) {
		*failed = true;
	}
}

void jappend(json_t *a, json_t *v, bool *failed)
{
	if (!a) {
		json_decref(v);
		*failed = true;
	} else if (!v || json_array_append_new(a, v)) {
		*failed = true;
	}
}

json_t *jstr_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *jstr_or_null_empty(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

json_t *jnum_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

json_t *jcount(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

json_t *jaddr(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	return json_string(buf);
}

int jfinish(json_t *doc, bool failed, FILE *out, int precision, struct tdp_err *err)
{
	int ret = 0;

	if (failed || !doc)
		ret = tdp_err_oom(err);
	else if (json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(precision)) ||
		 fputc('\n', out) == EOF)
		ret = tdp_err_set(err, TDP_EIO, "cannot write the JSON document");
	json_decref(doc);
	return ret;
}

int jdumps(struct strbuf *out, const json_t *doc, size_t flags, struct tdp_err *err)
{
	char *s = doc ? json_dumps(doc, flags) : NULL;
	int ret = 0;

	if (!s)
		return tdp_err_oom(err);
	strbuf_adds(out, s);
	strbuf_addch(out, '\n');
	if (strbuf_failed(out))
		ret = tdp_err_oom(err);
	free(s); /* jansson's allocator is the C library's */
	return ret;
}
