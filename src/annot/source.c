/*
 * source.c: the source files of a listing (annot_sources(), annot.h): where
 * each is, how it is shown, and the text of the lines the source view shows.
 */
#include "annot/annot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"
#include "base/strbuf.h"
#include "symbol/exe.h"

#define BODY_MAX_LINES 1000 /* a function body up to this many lines is shown whole */

/* The first readable regular file of comp_dir/file, file (relative to the working directory); NULL. */
static char *find_path(const char *file, const char *comp_dir, char *norm, size_t size)
{
	struct strbuf sb = STRBUF_INIT;
	char *found = NULL;

	for (int i = 0; i < 2 && !found; i++) {
		struct stat st;

		strbuf_reset(&sb);
		if (i == 0 && file[0] != '/' && comp_dir && comp_dir[0])
			strbuf_addf(&sb, "%s/", comp_dir);
		else if (i == 0 && file[0] != '/')
			continue;
		strbuf_adds(&sb, file);
		if (strbuf_failed(&sb) || !strcmp(sb.buf, "-"))
			break;
		if (!symbol_path_normalise(sb.buf, norm, size))
			continue;
		/* never a FIFO or a device: they could block */
		if (stat(norm, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > ANNOT_MAX_SOURCE_BYTES)
			continue;
		found = norm;
	}
	strbuf_release(&sb);
	return found;
}

/* How a file is shown: relative to cwd when under it, else its normalised path. */
static const char *display(struct annot_doc *d, const char *norm, const char *cwd)
{
	size_t n = cwd ? strlen(cwd) : 0;

	if (n > 1 && !strncmp(norm, cwd, n) && norm[n] == '/' && norm[n + 1])
		return annot_intern(d, norm + n + 1);
	return annot_intern(d, norm);
}

static int u32_cmp(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

/* Is line n wanted: within ctx of a code line (codes sorted), or inside the body range [lo, hi]? */
static bool wanted(const uint32_t *codes, size_t nr, uint32_t n, unsigned ctx, uint32_t lo, uint32_t hi)
{
	size_t a = 0, b = nr;

	if (n >= lo && n <= hi)
		return true;
	while (a < b) { /* the first code line >= n */
		size_t m = a + (b - a) / 2;

		if (codes[m] < n)
			a = m + 1;
		else
			b = m;
	}
	return (a < nr && codes[a] - n <= ctx) || (a > 0 && n - codes[a - 1] <= ctx);
}

static size_t line_index(const struct annot_doc *d, const char *file, uint32_t n, size_t nr_code)
{
	for (size_t i = 0; i < nr_code; i++)
		if (d->lines[i].file == file && d->lines[i].line == n)
			return i;
	return ANNOT_NONE;
}

/* Read the wanted lines of one file: texts of its code lines, new context lines for the others. */
static int read_lines(struct annot_doc *d, const char *raw, const char *path, const uint32_t *codes,
		      size_t nr, unsigned ctx, uint32_t lo, uint32_t hi, size_t nr_code, size_t *alloc)
{
	struct tdp_file f = TDP_FILE_INIT;
	const uint8_t *p, *end;
	uint32_t n = 1, last = codes[nr - 1] + ctx > hi ? codes[nr - 1] + ctx : hi;

	if (tdp_file_open(&f, path, ANNOT_MAX_SOURCE_BYTES, NULL))
		return 0; /* unreadable now: the lines stay without text */
	p = f.data;
	end = f.data + f.size;
	while (p < end && n <= last) {
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p), i;
		char buf[ANNOT_MAX_SOURCE_LINE + 1];

		if (wanted(codes, nr, n, ctx, lo, hi)) {
			if (len && p[len - 1] == '\r')
				len--;
			len = len < ANNOT_MAX_SOURCE_LINE ? len : ANNOT_MAX_SOURCE_LINE;
			memcpy(buf, p, len);
			buf[len] = 0;
			i = line_index(d, raw, n, nr_code);
			if (i == ANNOT_NONE) {
				if (TDP_GROW(d->lines, *alloc, d->nr_lines + 1))
					goto oom;
				i = d->nr_lines++;
				memset(&d->lines[i], 0, sizeof(d->lines[i]));
				d->lines[i].line = n;
				d->lines[i].rate = d->lines[i].pct = NAN;
			}
			d->lines[i].file = raw; /* renamed with the code lines at the end */
			if (!(d->lines[i].text = annot_str(d, buf)))
				goto oom;
		}
		if (!nl)
			break;
		p = nl + 1;
		n++;
	}
	tdp_file_close(&f);
	return 0;
oom:
	tdp_file_close(&f);
	return TDP_ENOMEM;
}

/* One file of the listing: its code lines, where it is, how it is shown (*shown, *path), its text. */
static int one_file(struct annot_doc *d, const char *raw, bool entry, const char *comp_dir, const char *cwd,
		    unsigned ctx, size_t nr_code, size_t *alloc, const char **shown, const char **path)
{
	uint32_t *codes = tdp_calloc(nr_code + 1, sizeof(*codes)), lo = UINT32_MAX, hi = 0;
	char norm[4096];
	size_t nr = 0;
	int rc = 0;

	if (!codes)
		return TDP_ENOMEM;
	for (size_t i = 0; i < nr_code; i++) {
		if (d->lines[i].file != raw)
			continue;
		codes[nr++] = d->lines[i].line;
		/* the body: the function's own lines (not those of functions inlined into it) */
		if (entry && !d->lines[i].inlined) {
			lo = d->lines[i].line < lo ? d->lines[i].line : lo;
			hi = d->lines[i].line > hi ? d->lines[i].line : hi;
		}
	}
	qsort(codes, nr, sizeof(*codes), u32_cmp);
	if (hi < lo || hi - lo > BODY_MAX_LINES) {
		lo = 1;
		hi = 0;
	}
	*path = find_path(raw, comp_dir, norm, sizeof(norm));
	if (*path) {
		*path = annot_intern(d, *path);
		rc = *path ? read_lines(d, raw, *path, codes, nr, ctx, lo, hi, nr_code, alloc) : TDP_ENOMEM;
	} else if (raw[0] == '/' || !comp_dir) {
		if (!symbol_path_normalise(raw, norm, sizeof(norm)))
			snprintf(norm, sizeof(norm), "%s", raw);
	} else {
		char joined[8200];

		snprintf(joined, sizeof(joined), "%s/%s", comp_dir, raw);
		if (!symbol_path_normalise(joined, norm, sizeof(norm)))
			snprintf(norm, sizeof(norm), "%s", raw);
	}
	*shown = display(d, *path ? *path : norm, cwd);
	if (!rc && !*shown)
		rc = TDP_ENOMEM;
	tdp_free(codes);
	return rc;
}

int annot_sources(struct annot_doc *d, const char *comp_dir, const char *cwd, unsigned context, struct tdp_err *err)
{
	size_t nr_code = d->nr_lines, alloc = d->nr_lines, nr_raw = 0;
	const char **raw = tdp_calloc(3 * nr_code + 1, sizeof(*raw)), **shown = raw + nr_code, **path = raw + 2 * nr_code;
	const char *entry = d->nr_insns && d->insns[0].line != ANNOT_NONE ? d->lines[d->insns[0].line].file : NULL;
	int rc = 0;

	if (!raw)
		return tdp_err_oom(err);
	if (context > ANNOT_MAX_CONTEXT)
		context = ANNOT_MAX_CONTEXT;
	for (size_t i = 0; i < nr_code; i++) {
		size_t k = 0;

		while (k < nr_raw && raw[k] != d->lines[i].file)
			k++;
		if (k == nr_raw)
			raw[nr_raw++] = d->lines[i].file;
	}
	for (size_t k = 0; k < nr_raw && !rc; k++)
		rc = one_file(d, raw[k], raw[k] == entry, comp_dir, cwd, context, nr_code, &alloc, &shown[k], &path[k]);
	/* renamed at the end: a name shown for one file may be another's name as DWARF spells it */
	for (size_t i = 0; !rc && i < d->nr_lines; i++) {
		for (size_t k = 0; k < nr_raw; k++) {
			if (d->lines[i].file == raw[k]) {
				d->lines[i].file = shown[k];
				d->lines[i].path = path[k];
				break;
			}
		}
	}
	tdp_free(raw);
	if (!rc && d->nr_insns && d->insns[0].line != ANNOT_NONE)
		d->file = d->lines[d->insns[0].line].file;
	return rc ? tdp_err_oom(err) : 0;
}
