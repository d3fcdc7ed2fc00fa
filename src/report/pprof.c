/* pprof.c: the pprof profile builder and its encoding (pprof-internal.h). */
#include "report/pprof-internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "profile.pb-c.h"

void pprof_b_init(struct pprof_b *b)
{
	memset(b, 0, sizeof(*b));
	(void)pprof_b_str(b, ""); /* index 0 is "" (profile.proto) */
}

void pprof_b_release(struct pprof_b *b)
{
	for (size_t i = 0; i < b->nr_strs; i++)
		tdp_free(b->strs[i]);
	tdp_free(b->strs);
	tdp_free(b->hash);
	tdp_free(b->fns);
	tdp_free(b->fn_hash);
	tdp_free(b->maps);
	tdp_free(b->locs);
	tdp_free(b->lines);
	tdp_free(b->sample_locs);
	tdp_free(b->samples);
	tdp_free(b->values);
	tdp_free(b->comments);
	memset(b, 0, sizeof(*b));
}

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

#define FNV0 0xcbf29ce484222325ull

/* Double a table of indices + 1 (hash of entry i by key(i)); false on failure. */
static bool rehash(uint32_t **tab, size_t *size, size_t nr, uint64_t (*key)(const struct pprof_b *, size_t),
		   const struct pprof_b *b)
{
	size_t n = *size ? *size * 2 : 256;
	uint32_t *t = tdp_calloc(n, sizeof(*t));

	if (!t)
		return false;
	for (size_t i = 0; i < nr; i++) {
		size_t h = (size_t)key(b, i) & (n - 1);

		while (t[h])
			h = (h + 1) & (n - 1);
		t[h] = (uint32_t)(i + 1);
	}
	tdp_free(*tab);
	*tab = t;
	*size = n;
	return true;
}

static uint64_t str_key(const struct pprof_b *b, size_t i)
{
	return fnv(b->strs[i], strlen(b->strs[i]), FNV0);
}

static uint64_t fn_key(const struct pprof_b *b, size_t i)
{
	return fnv(&b->fns[i], sizeof(b->fns[i]), FNV0);
}

int64_t pprof_b_str(struct pprof_b *b, const char *s)
{
	size_t h;

	if (!s || b->failed)
		return 0;
	if ((b->nr_strs + 1) * 2 > b->hash_size && !rehash(&b->hash, &b->hash_size, b->nr_strs, str_key, b))
		goto fail;
	h = (size_t)fnv(s, strlen(s), FNV0) & (b->hash_size - 1);
	for (; b->hash[h]; h = (h + 1) & (b->hash_size - 1))
		if (!strcmp(b->strs[b->hash[h] - 1], s))
			return b->hash[h] - 1;
	if (TDP_GROW(b->strs, b->alloc_strs, b->nr_strs + 1) || !(b->strs[b->nr_strs] = tdp_strdup(s)))
		goto fail;
	b->hash[h] = (uint32_t)(b->nr_strs + 1);
	return (int64_t)b->nr_strs++;
fail:
	b->failed = true;
	return 0;
}

int pprof_b_type(struct pprof_b *b, const char *type, const char *unit)
{
	if (b->nr_types >= PPROF_MAX_TYPES)
		return -1;
	b->types[b->nr_types][0] = pprof_b_str(b, type);
	b->types[b->nr_types][1] = pprof_b_str(b, unit);
	return (int)b->nr_types++;
}

void pprof_b_comment(struct pprof_b *b, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (TDP_GROW(b->comments, b->alloc_comments, b->nr_comments + 1)) {
		b->failed = true;
		return;
	}
	b->comments[b->nr_comments++] = pprof_b_str(b, line);
}

uint64_t pprof_b_mapping(struct pprof_b *b, const char *file, const char *build_id, uint64_t start,
			 uint64_t limit, uint64_t offset, bool lines)
{
	if (TDP_GROW(b->maps, b->alloc_maps, b->nr_maps + 1)) {
		b->failed = true;
		return 0;
	}
	b->maps[b->nr_maps] = (struct pprof_map){ start, limit, offset, pprof_b_str(b, file),
						  pprof_b_str(b, build_id), lines };
	return ++b->nr_maps;
}

/* The id of function (name, file), added when new; 0 on failure. */
static uint64_t function_id(struct pprof_b *b, const char *name, const char *file)
{
	struct pprof_fn f = { pprof_b_str(b, name ? name : "??"), pprof_b_str(b, file) };
	size_t h;

	if (b->failed)
		return 0;
	if ((b->nr_fns + 1) * 2 > b->fn_hash_size && !rehash(&b->fn_hash, &b->fn_hash_size, b->nr_fns, fn_key, b))
		goto fail;
	h = (size_t)fnv(&f, sizeof(f), FNV0) & (b->fn_hash_size - 1);
	for (; b->fn_hash[h]; h = (h + 1) & (b->fn_hash_size - 1)) {
		const struct pprof_fn *o = &b->fns[b->fn_hash[h] - 1];

		if (o->name == f.name && o->file == f.file)
			return b->fn_hash[h];
	}
	if (TDP_GROW(b->fns, b->alloc_fns, b->nr_fns + 1))
		goto fail;
	b->fns[b->nr_fns++] = f;
	b->fn_hash[h] = (uint32_t)b->nr_fns;
	return b->nr_fns;
fail:
	b->failed = true;
	return 0;
}

uint64_t pprof_b_location(struct pprof_b *b, uint64_t mapping, uint64_t address, const struct pprof_line *lines,
			  size_t nr_lines)
{
	if (TDP_GROW(b->locs, b->alloc_locs, b->nr_locs + 1) ||
	    TDP_GROW(b->lines, b->alloc_lines, b->nr_lines + nr_lines)) {
		b->failed = true;
		return 0;
	}
	b->locs[b->nr_locs] = (struct pprof_loc){ mapping, address, b->nr_lines, nr_lines };
	for (size_t i = 0; i < nr_lines; i++) {
		b->lines[b->nr_lines].fn = function_id(b, lines[i].function, lines[i].file);
		b->lines[b->nr_lines++].line = (int64_t)lines[i].line;
	}
	return ++b->nr_locs;
}

void pprof_b_sample(struct pprof_b *b, const uint64_t *locs, size_t nr_locs, const int64_t *values)
{
	if (TDP_GROW(b->samples, b->alloc_samples, b->nr_samples + 1) ||
	    TDP_GROW(b->sample_locs, b->alloc_sample_locs, b->nr_sample_locs + nr_locs) ||
	    TDP_GROW(b->values, b->alloc_values, b->nr_values + b->nr_types)) {
		b->failed = true;
		return;
	}
	b->samples[b->nr_samples++] = (struct pprof_smp){ b->nr_sample_locs, nr_locs };
	memcpy(b->sample_locs + b->nr_sample_locs, locs, nr_locs * sizeof(*locs));
	b->nr_sample_locs += nr_locs;
	memcpy(b->values + b->nr_values, values, b->nr_types * sizeof(*values));
	b->nr_values += b->nr_types;
}

/* gzip in[0..n) onto out (pprof files are gzipped: profile.proto). */
static int gzip_onto(struct strbuf *out, const uint8_t *in, size_t n, struct tdp_err *err)
{
	z_stream z;
	unsigned char chunk[1 << 16];
	int zr;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return tdp_err_set(err, TDP_EIO, "cannot start zlib's gzip compression");
	z.next_in = (unsigned char *)(uintptr_t)in;
	z.avail_in = (uInt)n;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		zr = deflate(&z, Z_FINISH);
		strbuf_add(out, chunk, sizeof(chunk) - z.avail_out);
	} while (zr == Z_OK || (zr == Z_BUF_ERROR && z.avail_out == 0));
	deflateEnd(&z);
	if (zr != Z_STREAM_END)
		return tdp_err_set(err, TDP_EIO, "gzip compression of the pprof profile failed (zlib: %d)", zr);
	return strbuf_failed(out) ? tdp_err_oom(err) : 0;
}

typedef Perftools__Profiles__ValueType pb_type;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Mapping pb_mapping;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;

int pprof_b_finish(struct pprof_b *b, struct strbuf *out, struct tdp_err *err)
{
	Perftools__Profiles__Profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
	pb_type types[PPROF_MAX_TYPES], *ptypes[PPROF_MAX_TYPES];
	pb_sample *smp = NULL, **psmp = NULL;
	pb_mapping *map = NULL, **pmap = NULL;
	pb_location *loc = NULL, **ploc = NULL;
	pb_line *lin = NULL, **plin = NULL;
	pb_function *fn = NULL, **pfn = NULL;
	uint8_t *packed = NULL;
	size_t len;
	int ret = TDP_ENOMEM;

	if (b->failed)
		goto out;
	/* calloc(0) may be NULL: one more than needed keeps NULL meaning failure */
	smp = tdp_calloc(b->nr_samples + 1, sizeof(*smp));
	psmp = tdp_calloc(b->nr_samples + 1, sizeof(*psmp));
	map = tdp_calloc(b->nr_maps + 1, sizeof(*map));
	pmap = tdp_calloc(b->nr_maps + 1, sizeof(*pmap));
	loc = tdp_calloc(b->nr_locs + 1, sizeof(*loc));
	ploc = tdp_calloc(b->nr_locs + 1, sizeof(*ploc));
	lin = tdp_calloc(b->nr_lines + 1, sizeof(*lin));
	plin = tdp_calloc(b->nr_lines + 1, sizeof(*plin));
	fn = tdp_calloc(b->nr_fns + 1, sizeof(*fn));
	pfn = tdp_calloc(b->nr_fns + 1, sizeof(*pfn));
	if (!smp || !psmp || !map || !pmap || !loc || !ploc || !lin || !plin || !fn || !pfn)
		goto out;
	for (size_t i = 0; i < b->nr_types; i++) {
		types[i] = (pb_type)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
		types[i].type = b->types[i][0];
		types[i].unit = b->types[i][1];
		ptypes[i] = &types[i];
	}
	for (size_t i = 0; i < b->nr_samples; i++) {
		smp[i] = (pb_sample)PERFTOOLS__PROFILES__SAMPLE__INIT;
		smp[i].n_location_id = b->samples[i].nr_locs;
		smp[i].location_id = b->sample_locs + b->samples[i].first_loc;
		smp[i].n_value = b->nr_types;
		smp[i].value = b->values + i * b->nr_types;
		psmp[i] = &smp[i];
	}
	for (size_t i = 0; i < b->nr_maps; i++) {
		map[i] = (pb_mapping)PERFTOOLS__PROFILES__MAPPING__INIT;
		map[i].id = i + 1;
		map[i].memory_start = b->maps[i].start;
		map[i].memory_limit = b->maps[i].limit;
		map[i].file_offset = b->maps[i].offset;
		map[i].filename = b->maps[i].file;
		map[i].build_id = b->maps[i].build_id;
		map[i].has_functions = true;
		map[i].has_filenames = map[i].has_line_numbers = map[i].has_inline_frames = b->maps[i].lines;
		pmap[i] = &map[i];
	}
	for (size_t i = 0; i < b->nr_lines; i++) {
		lin[i] = (pb_line)PERFTOOLS__PROFILES__LINE__INIT;
		lin[i].function_id = b->lines[i].fn;
		lin[i].line = b->lines[i].line;
		plin[i] = &lin[i];
	}
	for (size_t i = 0; i < b->nr_locs; i++) {
		loc[i] = (pb_location)PERFTOOLS__PROFILES__LOCATION__INIT;
		loc[i].id = i + 1;
		loc[i].mapping_id = b->locs[i].mapping;
		loc[i].address = b->locs[i].address;
		loc[i].n_line = b->locs[i].nr_lines;
		loc[i].line = plin + b->locs[i].first_line;
		ploc[i] = &loc[i];
	}
	for (size_t i = 0; i < b->nr_fns; i++) {
		fn[i] = (pb_function)PERFTOOLS__PROFILES__FUNCTION__INIT;
		fn[i].id = i + 1;
		fn[i].name = fn[i].system_name = b->fns[i].name;
		fn[i].filename = b->fns[i].file;
		pfn[i] = &fn[i];
	}
	p.n_sample_type = b->nr_types;
	p.sample_type = ptypes;
	p.n_sample = b->nr_samples;
	p.sample = psmp;
	p.n_mapping = b->nr_maps;
	p.mapping = pmap;
	p.n_location = b->nr_locs;
	p.location = ploc;
	p.n_function = b->nr_fns;
	p.function = pfn;
	p.n_string_table = b->nr_strs;
	p.string_table = b->strs;
	p.n_comment = b->nr_comments;
	p.comment = b->comments;
	p.default_sample_type = b->default_type;
	len = perftools__profiles__profile__get_packed_size(&p);
	packed = tdp_malloc(len + 1);
	if (!packed)
		goto out;
	perftools__profiles__profile__pack(&p, packed);
	ret = gzip_onto(out, packed, len, err);
	goto done;
out:
	ret = tdp_err_oom(err);
done:
	tdp_free(packed);
	tdp_free(smp);
	tdp_free(psmp);
	tdp_free(map);
	tdp_free(pmap);
	tdp_free(loc);
	tdp_free(ploc);
	tdp_free(lin);
	tdp_free(plin);
	tdp_free(fn);
	tdp_free(pfn);
	return ret;
}
