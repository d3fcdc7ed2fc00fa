/* output.c: the result stream of a command (see output.h). */
#include "cli/output.h"
#include "base/err.h"
#include "base/file.h"
#include "base/strbuf.h"
#include "cli/exitcode.h"
#include "cli/msg.h"

#include <errno.h>
#include <string.h>

int output_open(struct output *out, const char *path)
{
	struct tdp_err err = TDP_ERR_INIT;

	*out = (struct output)OUTPUT_INIT;
	out->path = path;
	if (!path) {
		out->f = stdout;
		return EXIT_OK;
	}
	if (tdp_out_open(&out->o, path, &err)) {
		msg_err(&err);
		return EXIT_USAGE;
	}
	out->f = fdopen(out->o.fd, "w");
	if (!out->f) {
		msg_error("cannot open '%s' for writing: %s", path, strerror(errno));
		tdp_out_abandon(&out->o);
		return EXIT_USAGE;
	}
	out->o.fd = -1; /* fclose() closes it */
	return EXIT_OK;
}

int output_close(struct output *out, bool ok)
{
	struct tdp_err err = TDP_ERR_INIT;
	FILE *f = out->f;
	/* ferror() catches a failed write that an earlier fwrite()/fprintf() did not report */
	int failed, e;

	if (!f)
		return EXIT_OK;
	out->f = NULL;
	failed = fflush(f) != 0 || ferror(f);
	e = errno;
	if (f == stdout) {
		if (failed && ok) {
			msg_error("cannot write 'standard output': %s", strerror(e ? e : EIO));
			return EXIT_ANALYSIS;
		}
		return EXIT_OK;
	}
	if (fclose(f) != 0 && !failed) {
		failed = 1;
		e = errno;
	}
	if (!ok) {
		tdp_out_abandon(&out->o); /* the temporary goes; an old file at path stays */
		return EXIT_OK;
	}
	if (failed) {
		msg_error("cannot write '%s': %s", out->path, strerror(e ? e : EIO));
		tdp_out_abandon(&out->o);
		return EXIT_ANALYSIS;
	}
	if (tdp_out_commit(&out->o, &err)) {
		msg_err(&err);
		return EXIT_ANALYSIS;
	}
	return EXIT_OK;
}

int output_put(struct output *out, const struct renderer *r, const void *doc)
{
	struct strbuf sb = STRBUF_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	int rc = EXIT_OK;

	if (r->render(&sb, doc, &err)) {
		msg_err(&err);
		rc = EXIT_ANALYSIS;
	} else if (sb.len) {
		fwrite(sb.buf, 1, sb.len, out->f); /* a failed write is output_close()'s to report */
	}
	strbuf_release(&sb);
	return rc;
}

int output_write(const char *path, const void *buf, size_t len)
{
	struct output out;
	int rc = output_open(&out, path);

	if (rc)
		return rc;
	if (len)
		fwrite(buf, 1, len, out.f);
	return output_close(&out, true);
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

const char *output_format_csv(const char *cmd, const char *format, bool json, bool csv, const char *sep)
{
	if (sep && !*sep) {
		msg_usage(cmd, "'-x' needs a non-empty separator");
		return NULL;
	}
	if (json && (csv || sep)) {
		msg_usage(cmd, "'--json' and '%s' cannot be used together", sep ? "-x" : "--csv");
		return NULL;
	}
	return output_format(cmd, format, json ? "json" : csv || sep ? "csv" : NULL, "text");
}

int output_html_of(const char *path, enum render_kind k, const void *doc)
{
	const struct renderer *r = render_find(k, "html");

	if (!r) {
		msg_error("this document has no HTML page");
		return EXIT_USAGE;
	}
	return output_render(path, r, doc);
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
