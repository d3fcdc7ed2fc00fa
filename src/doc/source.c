/* source.c: the source lines around a document's sites (tdoc_attach_sources, see doc.h). */
#include "doc/doc.h"

#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"
#include "base/strbuf.h"

#define SOURCE_MAX_LINE 512 /* bytes of one source line kept (longer ones are cut) */

/* Open file (or dir/file) as a regular file; false when none can be read. */
static bool open_source(const char *file, const char *const *dirs, size_t nr_dirs, struct tdp_file *f)
{
	struct strbuf path = STRBUF_INIT;
	bool ok = false;

	for (size_t i = 0; i <= nr_dirs && !ok; i++) {
		struct stat st;

		strbuf_reset(&path);
		if (i > 0) {
			if (file[0] == '/' || !dirs || !dirs[i - 1])
				break;
			strbuf_addf(&path, "%s/", dirs[i - 1]);
		}
		strbuf_adds(&path, file);
		if (strbuf_failed(&path))
			break;
		/* never a FIFO or a device named by a hostile document: they could block */
		if (stat(path.buf, &st) || !S_ISREG(st.st_mode) || (size_t)st.st_size > TDOC_MAX_SOURCE_BYTES)
			continue;
		ok = !tdp_file_open(f, path.buf, TDOC_MAX_SOURCE_BYTES, NULL);
	}
	strbuf_release(&path);
	return ok;
}

/* Copy lines [first, last] of f into s->source. */
static int take_lines(const struct tdp_file *f, uint64_t first, uint64_t last, struct tdoc_site *s,
		      struct tdp_err *err)
{
	const uint8_t *p = f->data, *end = f->data + f->size;
	uint64_t line = 1;

	s->source = tdp_calloc((size_t)(last - first + 1), sizeof(*s->source));
	if (!s->source)
		return tdp_err_oom(err);
	while (p < end && line <= last) {
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);

		if (line >= first) {
			struct tdoc_src *src = &s->source[s->nr_source];

			if (len && p[len - 1] == '\r')
				len--;
			src->line = line;
			src->text = tdp_strndup((const char *)p, len < SOURCE_MAX_LINE ? len : SOURCE_MAX_LINE);
			if (!src->text)
				return tdp_err_oom(err);
			s->nr_source++;
		}
		if (!nl)
			break;
		p = nl + 1;
		line++;
	}
	return 0;
}

int tdoc_attach_sources(struct tdoc *d, size_t max_sites, unsigned context, const char *const *dirs,
			size_t nr_dirs, struct tdp_err *err)
{
	size_t done = 0;
	int ret = 0;

	if (context > TDOC_MAX_SOURCE_LINES / 2)
		context = TDOC_MAX_SOURCE_LINES / 2;
	for (size_t i = 0; i < d->nr_sites && done < max_sites && !ret; i++) {
		struct tdoc_site *s = &d->sites[i];
		struct tdp_file f = TDP_FILE_INIT;
		uint64_t first;

		if (!s->file || !s->line || s->source)
			continue;
		done++;
		if (!open_source(s->file, dirs, nr_dirs, &f))
			continue;
		first = s->line > context ? s->line - context : 1;
		ret = take_lines(&f, first, s->line + context, s, err);
		tdp_file_close(&f);
	}
	return ret;
}
