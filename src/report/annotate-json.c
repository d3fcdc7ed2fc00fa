/* annotate-json.c: `tdprof annotate --json` (keys in annotate.h). */
#include "report/annotate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "branch/branch.h"
#include "report/json-util.h"

/* A string from a binary or a source file: as is when it is UTF-8, else with its bad bytes as \xNN. */
static json_t *jtext(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *j;

	if (!s)
		return json_null();
	if ((j = json_string(s)))
		return j;
	strbuf_add_name(&sb, s);
	j = strbuf_failed(&sb) ? NULL : json_string(sb.buf);
	strbuf_release(&sb);
	return j;
}

static json_t *counts(const struct annot_doc *d, const uint64_t *v, bool *failed)
{
	json_t *o = json_object();

	for (size_t c = 0; c < d->nr_cols; c++)
		jput(o, d->cols[c].key, jcount(v[c]), failed);
	return o;
}

static json_t *line_json(const struct annot_doc *d, const struct annot_line *l, bool *failed)
{
	json_t *o = json_object();

	jput(o, "file", jtext(l->file), failed);
	jput(o, "line", json_integer(l->line), failed);
	jput(o, "text", jtext(l->text), failed);
	jput(o, "function", jtext(l->function), failed);
	jput(o, "inlined", json_boolean(l->inlined), failed);
	jput(o, "has_code", json_boolean(l->has_code), failed);
	jput(o, "instructions", jcount(l->nr_insns), failed);
	jput(o, "counts", counts(d, l->v, failed), failed);
	jput(o, "rate", jnum_or_null(l->rate), failed);
	jput(o, "percent", jnum_or_null(l->pct), failed);
	jput(o, "cycles", d->has_timing ? jcount(l->cycles) : json_null(), failed);
	jput(o, "hot", l->hot ? json_integer(l->hot) : json_null(), failed);
	return o;
}

static json_t *insn_json(const struct annot_doc *d, const struct annot_insn *in, bool *failed)
{
	json_t *o = json_object(), *chain = json_array();
	char bytes[3 * sizeof(in->bytes) + 1] = "";
	const struct annot_line *l = in->line != ANNOT_NONE ? &d->lines[in->line] : NULL;

	for (size_t k = 0, n = 0; k < in->size && k < sizeof(in->bytes); k++, n = strlen(bytes))
		snprintf(bytes + n, sizeof(bytes) - n, k ? " %02x" : "%02x", in->bytes[k]);
	jput(o, "address", jaddr(in->addr), failed);
	jput(o, "size", json_integer(in->size), failed);
	jput(o, "bytes", in->size ? json_string(bytes) : json_null(), failed);
	jput(o, "text", in->size ? jtext(in->text) : json_null(), failed);
	jput(o, "target", jtext(in->target), failed);
	jput(o, "branch_type", in->branch_type ? json_string(branch_type_name(in->branch_type, 0)) : json_null(),
	     failed);
	jput(o, "file", l ? jtext(l->file) : json_null(), failed);
	jput(o, "line", l ? json_integer(l->line) : json_null(), failed);
	for (size_t k = 0; k < in->nr_frames; k++) {
		json_t *f = json_object();

		jput(f, "function", jtext(in->frames[k].function), failed);
		jput(f, "file", jtext(in->frames[k].file), failed);
		jput(f, "line", in->frames[k].line ? json_integer(in->frames[k].line) : json_null(), failed);
		jappend(chain, f, failed);
	}
	jput(o, "inline", chain, failed);
	jput(o, "counts", counts(d, in->v, failed), failed);
	jput(o, "rate", jnum_or_null(in->rate), failed);
	jput(o, "percent", jnum_or_null(in->pct), failed);
	jput(o, "block_cycles", d->has_timing ? jcount(in->blk_cycles) : json_null(), failed);
	jput(o, "block_timed", d->has_timing ? jcount(in->blk_timed) : json_null(), failed);
	jput(o, "avg_cycles", jnum_or_null(in->avg_cycles), failed);
	jput(o, "ipc", jnum_or_null(in->ipc), failed);
	return o;
}

static json_t *function_json(const struct annot_doc *d, bool *failed)
{
	json_t *f = json_object();

	jput(f, "name", jtext(d->function), failed);
	jput(f, "dso", jtext(d->dso), failed);
	jput(f, "binary", jtext(d->binary), failed);
	jput(f, "build_id", jstr_or_null_empty(d->build_id), failed);
	jput(f, "address", jaddr(d->addr), failed);
	jput(f, "size", jcount(d->size), failed);
	jput(f, "file", jtext(d->file), failed);
	jput(f, "instructions", jcount(d->nr_insns), failed);
	return f;
}

static void head_json(json_t *o, const struct annot_doc *d, bool *failed)
{
	json_t *cols = json_array(), *timing = json_null();

	jput(o, "backend", json_string(d->backend ? d->backend : "import"), failed);
	jput(o, "estimate", json_boolean(d->estimate), failed);
	jput(o, "input", jtext(d->input), failed);
	jput(o, "command", jtext(d->command), failed);
	jput(o, "machine", jtext(d->machine), failed);
	jput(o, "function", function_json(d, failed), failed);
	jput(o, "selected", json_string(d->hottest ? "hottest" : "named"), failed);
	jput(o, "hottest_by", jstr_or_null(d->hottest ? d->hottest_by : NULL), failed);
	jput(o, "scope", jstr_or_null(d->scope), failed);
	for (size_t c = 0; c < d->nr_cols; c++) {
		json_t *k = json_object();

		jput(k, "key", json_string(d->cols[c].key), failed);
		jput(k, "description", json_string(d->cols[c].description), failed);
		jput(k, "line_value", json_string(d->cols[c].agg == ANNOT_AGG_MAX ? "max" : "sum"), failed);
		jappend(cols, k, failed);
	}
	jput(o, "columns", cols, failed);
	jput(o, "sort", d->sort_col < d->nr_cols ? json_string(d->cols[d->sort_col].key) : json_null(), failed);
	jput(o, "totals", counts(d, d->totals, failed), failed);
	jput(o, "rate", jnum_or_null(d->rate), failed);
	if (d->has_timing) {
		timing = json_object();
		jput(timing, "cycles", jcount(d->cycles), failed);
		jput(timing, "ipc", jnum_or_null(d->ipc), failed);
		jput(timing, "coverage_pct", jnum_or_null(d->coverage_pct), failed);
	}
	jput(o, "timing", timing, failed);
	jput(o, "disassembled", json_boolean(d->disassembled), failed);
	jput(o, "no_disassembly", jtext(d->no_disasm), failed);
	jput(o, "truncated", json_boolean(d->truncated), failed);
	jput(o, "unplaced", jcount(d->unplaced), failed);
}

int report_annotate_json(struct strbuf *out, const void *report, struct tdp_err *err)
{
	const struct annotate_report *r = report;
	const struct annot_doc *d = r->d;
	json_t *o = json_object(), *lines = json_array(), *insns = json_array(), *notes = json_array();
	bool failed = false;
	int ret;

	head_json(o, d, &failed);
	jput(o, "hottest_line", d->hottest_line != ANNOT_NONE ? line_json(d, &d->lines[d->hottest_line], &failed)
							     : json_null(), &failed);
	jput(o, "hottest_instruction", d->hottest_insn != ANNOT_NONE ? jaddr(d->insns[d->hottest_insn].addr) : json_null(),
	     &failed);
	for (size_t i = 0; i < d->nr_lines; i++)
		jappend(lines, line_json(d, &d->lines[i], &failed), &failed);
	jput(o, "lines", lines, &failed);
	for (size_t i = 0; i < d->nr_insns; i++)
		jappend(insns, insn_json(d, &d->insns[i], &failed), &failed);
	jput(o, "instructions", insns, &failed);
	for (size_t i = 0; i < d->nr_notes; i++)
		jappend(notes, jtext(d->notes[i]), &failed);
	jput(o, "notes", notes, &failed);
	ret = failed || !o ? tdp_err_oom(err) : jdumps(out, o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10),
							 err);
	json_decref(o);
	return ret;
}
