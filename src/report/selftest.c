/* selftest.c: the result of `tdprof selftest` as text or JSON (see report/selftest.h). */
#include "report/selftest.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "report/json-util.h"

int selftest_text_render(struct strbuf *out, const struct selftest_report *r, struct tdp_err *err)
{
	strbuf_addf(out, "tdprof selftest: backend %s%s\n\n", r->backend,
		    r->estimate ? ", every figure an estimate (simulated)" : "");
	strbuf_addf(out, "  %-14s %-16s %-16s %-34s %s\n", "example", "expected", "got", "key figure", "result");
	for (size_t i = 0; i < r->nr_rows; i++) {
		const struct selftest_row *w = &r->rows[i];
		char key[64];

		if (w->error[0])
			snprintf(key, sizeof(key), "%s", w->error);
		else
			snprintf(key, sizeof(key), "%s %.1f %% of slots", w->expected_label, w->expected_pct);
		strbuf_addf(out, "  %-14s %-16s %-16s %-34s %s\n", w->name, w->expected, w->got ? w->got : "-", key,
			    w->pass ? "pass" : "FAIL");
	}
	strbuf_addf(out, "\n%zu passed, %zu failed\n", r->passed, r->nr_rows - r->passed);
	return strbuf_failed(out) ? tdp_err_oom(err) : 0;
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

int selftest_json_render(struct strbuf *out, const struct selftest_report *r, struct tdp_err *err)
{
	json_t *root = json_object(), *arr = json_array();
	int ret;

	if (!root || !arr) {
		json_decref(root);
		json_decref(arr);
		return tdp_err_oom(err);
	}
	json_object_set_new(root, "backend", json_string(r->backend));
	json_object_set_new(root, "estimate", json_boolean(r->estimate));
	for (size_t i = 0; i < r->nr_rows; i++) {
		const struct selftest_row *w = &r->rows[i];
		json_t *e = json_object();

		if (!e)
			continue;
		json_object_set_new(e, "name", json_string(w->name));
		json_object_set_new(e, "path", json_string(w->path));
		json_object_set_new(e, "args", w->args ? json_string(w->args) : json_null());
		json_object_set_new(e, "expected", json_string(w->expected));
		json_object_set_new(e, "got", w->got ? json_string(w->got) : json_null());
		json_object_set_new(e, "expected_pct", num(w->expected_pct));
		json_object_set_new(e, "got_pct", num(w->got_pct));
		json_object_set_new(e, "exit_status", json_integer(w->exit_status));
		json_object_set_new(e, "error", w->error[0] ? json_string(w->error) : json_null());
		json_object_set_new(e, "pass", json_boolean(w->pass));
		json_array_append_new(arr, e);
	}
	json_object_set_new(root, "examples", arr);
	json_object_set_new(root, "passed", json_integer((json_int_t)r->passed));
	json_object_set_new(root, "failed", json_integer((json_int_t)(r->nr_rows - r->passed)));
	ret = jdumps(out, root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6), err);
	json_decref(root);
	return ret;
}
