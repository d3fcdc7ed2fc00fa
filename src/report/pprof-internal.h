/*
 * pprof-internal.h: a pprof profile (perftools.profiles.Profile, third_party/pprof/
 * profile.proto) built up in memory and written gzipped, for the pprof renderers of
 * report/ (pprof-why.c, pprof-branches.c). Encoding is protobuf-c's, from code that
 * protoc-c generates at build time; gzip is zlib's.
 *
 * Lifecycle:
 *   1. struct pprof_b b; pprof_b_init(&b);
 *   2. pprof_b_type() for each value of a sample (in order), pprof_b_comment(),
 *      pprof_b_mapping(), pprof_b_location() with its lines (innermost first),
 *      pprof_b_sample() with one value per type;
 *   3. pprof_b_finish(&b, out, err): packed, gzipped, appended to out;
 *   4. pprof_b_release(&b).
 * Allocation failures are sticky (b.failed): step 3 reports them.
 * Strings are copied and deduplicated (a hash table); functions are one per (name, file).
 */
#ifndef TDPROF_REPORT_PPROF_INTERNAL_H
#define TDPROF_REPORT_PPROF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf;
struct tdp_err;

/** Most sample types (values per sample). */
#define PPROF_MAX_TYPES 16

struct pprof_line {
	const char *function; /* NULL: "??" */
	const char *file;     /* NULL: none */
	uint64_t line;        /* 0: unknown */
};

struct pprof_b {
	char **strs;                  /* the string table; strs[0] is "" */
	size_t nr_strs, alloc_strs;
	uint32_t *hash;               /* open addressing: index + 1 into strs, 0 empty */
	size_t hash_size;
	struct pprof_fn { int64_t name, file; } *fns;
	size_t nr_fns, alloc_fns;
	uint32_t *fn_hash;            /* index + 1 into fns, 0 empty */
	size_t fn_hash_size;
	struct pprof_map { uint64_t start, limit, offset; int64_t file, build_id; bool lines; } *maps;
	size_t nr_maps, alloc_maps;
	struct pprof_loc { uint64_t mapping, address; size_t first_line, nr_lines; } *locs;
	size_t nr_locs, alloc_locs;
	struct pprof_ln { uint64_t fn; int64_t line; } *lines;
	size_t nr_lines, alloc_lines;
	uint64_t *sample_locs;        /* the stacks, one after another */
	size_t nr_sample_locs, alloc_sample_locs;
	struct pprof_smp { size_t first_loc, nr_locs; } *samples;
	size_t nr_samples, alloc_samples;
	int64_t *values;              /* nr_types per sample */
	size_t nr_values, alloc_values;
	int64_t types[PPROF_MAX_TYPES][2];
	size_t nr_types;
	int64_t *comments;
	size_t nr_comments, alloc_comments;
	int64_t default_type;         /* string index of the default sample type; 0: the first */
	bool failed;
};

void pprof_b_init(struct pprof_b *b);
void pprof_b_release(struct pprof_b *b);

/** The index of s in the string table (added when new); 0 for NULL, and on failure. */
int64_t pprof_b_str(struct pprof_b *b, const char *s);

/** Add a sample type ("mispredicts", "count"); returns its index, or -1 past PPROF_MAX_TYPES. */
int pprof_b_type(struct pprof_b *b, const char *type, const char *unit);

/** A comment line of the profile. */
void pprof_b_comment(struct pprof_b *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** A mapping: its id (1, 2, ...), 0 on failure. build_id: hex text or NULL. */
uint64_t pprof_b_mapping(struct pprof_b *b, const char *file, const char *build_id, uint64_t start,
			 uint64_t limit, uint64_t offset, bool lines);

/** A location with its lines (innermost first): its id, 0 on failure. mapping 0: none. */
uint64_t pprof_b_location(struct pprof_b *b, uint64_t mapping, uint64_t address, const struct pprof_line *lines,
			  size_t nr_lines);

/** A sample: its stack (leaf first) and b->nr_types values. */
void pprof_b_sample(struct pprof_b *b, const uint64_t *locs, size_t nr_locs, const int64_t *values);

/** Encode, gzip and append the profile to out. Returns 0, TDP_ENOMEM or TDP_EIO (zlib failed). */
int pprof_b_finish(struct pprof_b *b, struct strbuf *out, struct tdp_err *err) __attribute__((warn_unused_result));

#endif
