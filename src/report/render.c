/* render.c: the renderer tables (see render.h). */
#include "report/render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "report/annotate.h"
#include "report/branches.h"
#include "report/diff.h"
#include "report/explain.h"
#include "report/html.h"
#include "report/info.h"
#include "report/list.h"
#include "report/loop.h"
#include "report/repeat.h"
#include "report/selftest.h"
#include "report/stat.h"
#include "report/topdown.h"
#include "report/why.h"

int render_capture(struct strbuf *out, render_file_fn *fn, const void *doc, struct tdp_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int ret;

	if (!mem)
		return tdp_err_oom(err);
	ret = fn(mem, doc, err);
	if (fclose(mem) && !ret)
		ret = tdp_err_oom(err);
	if (!ret) {
		strbuf_add(out, buf, len);
		if (strbuf_failed(out))
			ret = tdp_err_oom(err);
	}
	free(buf); /* open_memstream's buffer comes from the C library's malloc */
	return ret;
}

struct html_job {
	render_fn *json;
	const void *doc;
};

/* The page of the JSON document j->json renders (render_capture() takes it into memory). */
static int html_page(FILE *out, const void *arg, struct tdp_err *err)
{
	const struct html_job *j = arg;
	struct html_opts ho = HTML_OPTS_INIT;
	struct strbuf json = STRBUF_INIT;
	int ret = j->json(&json, j->doc, err);

	if (!ret && strbuf_failed(&json))
		ret = tdp_err_oom(err);
	if (!ret)
		ret = html_print_json_text(out, json.buf, json.len, "the JSON document", &ho, err);
	strbuf_release(&json);
	return ret;
}

int render_html_of_json(struct strbuf *out, render_fn *json, const void *doc, struct tdp_err *err)
{
	struct html_job j = { json, doc };

	return render_capture(out, html_page, &j, err);
}

static int topdown_text_file(FILE *out, const void *doc, struct tdp_err *err)
{
	const struct topdown_report *r = doc;

	(void)err;
	topdown_text_print(out, r);
	if (r->repeat)
		repeat_text_print(out, r->repeat, r->trees[0]);
	return 0;
}

static int topdown_json_file(FILE *out, const void *doc, struct tdp_err *err)
{
	return topdown_json_print(out, doc, err);
}

static int why_text_file(FILE *out, const void *doc, struct tdp_err *err)
{
	const struct why_report *r = doc;

	(void)err;
	why_text_print(out, r);
	if (r->repeat && r->d->has_tree)
		repeat_text_print(out, r->repeat, &r->d->tree);
	return 0;
}

static int why_json_file(FILE *out, const void *doc, struct tdp_err *err)
{
	return why_json_print(out, doc, err);
}

static int topdown_text(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	return render_capture(out, topdown_text_file, doc, err);
}

static int topdown_json(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	return render_capture(out, topdown_json_file, doc, err);
}

static int why_text(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	return render_capture(out, why_text_file, doc, err);
}

static int why_json(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	return render_capture(out, why_json_file, doc, err);
}

static int branches_text(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	report_branches_text(out, doc);
	return strbuf_failed(out) ? tdp_err_oom(err) : 0;
}

static int branches_json(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	int ret = report_branches_json(out, doc, err);

	return !ret && strbuf_failed(out) ? tdp_err_oom(err) : ret;
}

static int branches_csv(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	report_branches_csv(out, doc);
	return strbuf_failed(out) ? tdp_err_oom(err) : 0;
}

static int branches_folded(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	report_branches_folded(out, doc);
	return strbuf_failed(out) ? tdp_err_oom(err) : 0;
}

/* One row per node; with --by function, one row per function (byfunc_csv) */
static int topdown_csv_doc(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	const struct topdown_report *r = doc;

	if (r->functions)
		byfunc_csv(out, r->functions);
	else
		topdown_csv(out, r);
	return strbuf_failed(out) ? tdp_err_oom(err) : 0;
}

static int why_csv_doc(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	why_csv(out, doc);
	return strbuf_failed(out) ? tdp_err_oom(err) : 0;
}

static int topdown_html(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	return render_html_of_json(out, topdown_json, doc, err);
}

static int why_pprof(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	return report_why_pprof(out, doc, err);
}

static int branches_pprof(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	return report_branches_pprof(out, doc, err);
}

static int why_html(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	return render_html_of_json(out, why_json, doc, err);
}

static int branches_html(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	return render_html_of_json(out, branches_json, doc, err);
}

static const struct renderer topdown_renderers[] = {
	{ "text", topdown_text },
	{ "json", topdown_json },
	{ "csv", topdown_csv_doc },
	{ "html", topdown_html },
	{ NULL, NULL },
};

static const struct renderer why_renderers[] = {
	{ "text", why_text },
	{ "json", why_json },
	{ "csv", why_csv_doc },
	{ "html", why_html },
	{ "pprof", why_pprof },
	{ NULL, NULL },
};

static const struct renderer branches_renderers[] = {
	{ "text", branches_text },
	{ "json", branches_json },
	{ "csv", branches_csv },
	{ "folded", branches_folded },
	{ "html", branches_html },
	{ "pprof", branches_pprof },
	{ NULL, NULL },
};

static int loop_text(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	return loop_text_render(out, doc, err);
}

static int loop_json(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	return loop_json_render(out, doc, err);
}

static const struct renderer loop_renderers[] = {
	{ "text", loop_text },
	{ "json", loop_json },
	{ NULL, NULL },
};

static int info_text(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	report_info_text(out, doc);
	return strbuf_failed(out) ? tdp_err_oom(err) : 0;
}

static int info_json(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	int ret = report_info_json(out, doc, err);

	return !ret && strbuf_failed(out) ? tdp_err_oom(err) : ret;
}

static const struct renderer info_renderers[] = {
	{ "text", info_text },
	{ "json", info_json },
	{ NULL, NULL },
};

static int diff_text_file(FILE *out, const void *doc, struct tdp_err *err)
{
	(void)err;
	diff_text_print(out, doc);
	return 0;
}

static int diff_json_file(FILE *out, const void *doc, struct tdp_err *err)
{
	return diff_json_print(out, doc, err);
}

static int diff_text(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	return render_capture(out, diff_text_file, doc, err);
}

static int diff_json(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	return render_capture(out, diff_json_file, doc, err);
}

/* The diff's page: A and B side by side, as many sites as the diff shows (their sources attached by the caller). */
static int diff_html_file(FILE *out, const void *doc, struct tdp_err *err)
{
	const struct diff_result *r = doc;
	struct html_opts ho = HTML_OPTS_INIT;

	ho.max_sites = r->opts.top;
	return html_print_diff(out, r, &ho, err);
}

static int diff_html(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	return render_capture(out, diff_html_file, doc, err);
}

static const struct renderer diff_renderers[] = {
	{ "text", diff_text },
	{ "json", diff_json },
	{ "html", diff_html },
	{ NULL, NULL },
};

static int selftest_text(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	return selftest_text_render(out, doc, err);
}

static int selftest_json(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	return selftest_json_render(out, doc, err);
}

static const struct renderer selftest_renderers[] = {
	{ "text", selftest_text },
	{ "json", selftest_json },
	{ NULL, NULL },
};

static int list_text(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	return list_text_render(out, doc, err);
}

static int list_json(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	return list_json_render(out, doc, err);
}

static const struct renderer list_renderers[] = {
	{ "text", list_text },
	{ "json", list_json },
	{ NULL, NULL },
};

static int explain_text(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	return explain_text_render(out, doc, err);
}

static int explain_json(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	return explain_json_render(out, doc, err);
}

static const struct renderer explain_renderers[] = {
	{ "text", explain_text },
	{ "json", explain_json },
	{ NULL, NULL },
};

static int stat_text_file(FILE *out, const void *doc, struct tdp_err *err)
{
	const struct stat_report *r = doc;

	(void)err;
	if (r->after_intervals)
		fputc('\n', out);
	stat_text_print(out, r);
	return 0;
}

static int stat_json_file(FILE *out, const void *doc, struct tdp_err *err)
{
	return stat_json_print(out, doc, err);
}

static int stat_csv_file(FILE *out, const void *doc, struct tdp_err *err)
{
	const struct stat_report *r = doc;

	(void)err;
	stat_csv_print(out, r->counts, r->runs, r->csv_sep ? r->csv_sep : ",");
	return 0;
}

static int stat_text(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	return render_capture(out, stat_text_file, doc, err);
}

static int stat_json(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	return render_capture(out, stat_json_file, doc, err);
}

static int stat_csv(struct strbuf *out, const void *doc, struct tdp_err *err)
{
	return render_capture(out, stat_csv_file, doc, err);
}

static const struct renderer stat_renderers[] = {
	{ "text", stat_text },
	{ "json", stat_json },
	{ "csv", stat_csv },
	{ NULL, NULL },
};

static const struct renderer annotate_renderers[] = {
	{ "text", report_annotate_text },
	{ "json", report_annotate_json },
	{ "html", report_annotate_html },
	{ NULL, NULL },
};

static const struct renderer *const tables[RENDER_KINDS] = {
	[RENDER_TOPDOWN] = topdown_renderers,
	[RENDER_WHY] = why_renderers,
	[RENDER_BRANCHES] = branches_renderers,
	[RENDER_LOOP] = loop_renderers,
	[RENDER_INFO] = info_renderers,
	[RENDER_DIFF] = diff_renderers,
	[RENDER_SELFTEST] = selftest_renderers,
	[RENDER_LIST] = list_renderers,
	[RENDER_EXPLAIN] = explain_renderers,
	[RENDER_STAT] = stat_renderers,
	[RENDER_ANNOTATE] = annotate_renderers,
};

const struct renderer *render_table(enum render_kind k)
{
	return (unsigned)k < RENDER_KINDS ? tables[k] : NULL;
}

const struct renderer *render_find(enum render_kind k, const char *format)
{
	const struct renderer *t = render_table(k);

	if (!t)
		return NULL;
	if (!format)
		return t;
	for (; t->format; t++)
		if (!strcmp(t->format, format))
			return t;
	return NULL;
}
