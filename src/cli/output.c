/* output.c: the result stream of a command (see output.h). */
#include "cli/output.h"
#include "base/err.h"
#include "base/file.h"
#include "base/strbuf.h"
#include "cli/exitcode.h"
#include "cli/msg.h"

#include <errno.h>
#include <string.h>

/*
 * The outputs open now (-o and --html at once at most): each FILE's tdp_out, so
 * that output_close() can publish it (rename the temporary over the path).
 */
#define OUTPUT_MAX 4
static struct {
	FILE *f;
	struct tdp_out o;
} open_outputs[OUTPUT_MAX];

FILE *output_open(const char *path)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct tdp_out o = TDP_OUT_INIT;
	FILE *f;
	size_t i;

	if (!path)
		return stdout;
	for (i = 0; i < OUTPUT_MAX && open_outputs[i].f; i++)
		;
	if (i == OUTPUT_MAX) {
		msg_error("cannot open '%s' for writing: too many outputs at once", path);
		return NULL;
	}
	if (tdp_out_open(&o, path, &err)) {
		msg_err(&err);
		return NULL;
	}
	f = fdopen(o.fd, "w");
	if (!f) {
		msg_error("cannot open '%s' for writing: %s", path, strerror(errno));
		tdp_out_abandon(&o);
		return NULL;
	}
	o.fd = -1; /* fclose() closes it */
	open_outputs[i].f = f;
	open_outputs[i].o = o;
	return f;
}

int output_close(FILE *f, const char *path)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct tdp_out *o = NULL;
	/* ferror() catches a failed write that an earlier fwrite()/fprintf() did not report */
	int failed = fflush(f) != 0 || ferror(f);
	int e = errno;

	for (size_t i = 0; i < OUTPUT_MAX; i++)
		if (open_outputs[i].f == f && f != stdout)
			o = &open_outputs[i].o;
	if (o && !path)
		path = o->path;
	if (f != stdout && fclose(f) != 0 && !failed) {
		failed = 1;
		e = errno;
	}
	if (o) {
		if (failed)
			tdp_out_abandon(o);
		else if (tdp_out_commit(o, &err))
			failed = 2;
		for (size_t i = 0; i < OUTPUT_MAX; i++)
			if (open_outputs[i].f == f)
				open_outputs[i].f = NULL;
	}
	if (failed == 2) {
		msg_err(&err);
		return EXIT_ANALYSIS;
	}
	if (failed) {
		msg_error("cannot write '%s': %s", path ? path : "standard output", strerror(e ? e : EIO));
		return EXIT_ANALYSIS;
	}
	return EXIT_OK;
}

int output_write(const char *path, const void *buf, size_t len)
{
	FILE *f = output_open(path);

	if (!f)
		return EXIT_USAGE;
	if (len)
		fwrite(buf, 1, len, f);
	return output_close(f, path);
}

int output_render(const char *path, const struct renderer *r, const void *doc)
{
	struct strbuf sb = STRBUF_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	int rc;

	if (r->render(&sb, doc, &err)) {
		msg_err(&err);
		rc = EXIT_ANALYSIS;
	} else {
		rc = output_write(path, sb.buf, sb.len);
	}
	strbuf_release(&sb);
	return rc;
}

const char *output_format(const char *cmd, const char *format, const char *alias, const char *dflt)
{
	if (alias && format && strcmp(format, alias)) {
		msg_usage(cmd, "'--%s' is '--format=%s': it cannot go with '--format=%s'", alias, alias, format);
		return NULL;
	}
	return alias ? alias : format ? format : dflt;
}

struct html_job {
	html_json_fn *fn;
	const void *doc;
	const char *path;
};

/* The page of the JSON document j->fn prints (render_capture() takes it into memory). */
static int html_page(FILE *out, const void *arg, struct tdp_err *err)
{
	const struct html_job *j = arg;
	struct html_opts ho = HTML_OPTS_INIT;

	return html_print_json(out, j->fn, j->doc, j->path, &ho, err);
}

int output_html(const char *path, html_json_fn *fn, const void *doc)
{
	struct html_job j = { fn, doc, path };
	struct strbuf sb = STRBUF_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	int ret = render_capture(&sb, html_page, &j, &err), rc;

	if (ret) {
		msg_err(&err);
		rc = exitcode_from_err(ret);
	} else {
		rc = output_write(path, sb.buf, sb.len);
	}
	strbuf_release(&sb);
	return rc;
}
