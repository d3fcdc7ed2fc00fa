/*
 * perfdata-internal.h: the reader's state, shared by the files of src/perfdata/
 * only (header.c, feature.c, record.c, sample.c). Not part of the contract.
 */
#ifndef TDPROF_PERFDATA_PERFDATA_INTERNAL_H
#define TDPROF_PERFDATA_PERFDATA_INTERNAL_H

#include "perfdata/perfdata.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct tdp_err;

/* "PERFILE2" read as a little-endian u64, and as the other byte order. */
#define PD_MAGIC2 0x32454c4946524550ull
#define PD_MAGIC2_SWAPPED 0x50455246494c4532ull
#define PD_FILE_HEADER_SIZE 104u   /* with the feature bitmap */
#define PD_FILE_HEADER_SIZE_OLD 72u /* before the feature bitmap */
#define PD_PIPE_HEADER_SIZE 16u
#define PD_ATTR_SIZE_VER0 64u
#define PD_EVENT_HEADER_SIZE 8u

/* An attr with the memory it owns and what the parser derives from it. */
struct pd_attr {
	struct perfdata_attr pub;
	uint64_t *ids;
	char *name;
	uint8_t *raw_own;   /* streams: the copy pub.raw points at */
	size_t id_hdr_size; /* bytes of a sample_id trailer (0 without sample_id_all) */
	int id_pos;         /* u64 index of the id in a SAMPLE body, -1: none */
	int is_pos;         /* u64 index of the id from the end of a trailer, -1: none */
};

struct pd_id {
	uint64_t id;
	uint32_t attr;
};

/* Owned storage behind struct perfdata_features. */
struct pd_features {
	struct perfdata_features pub;
	char *str[PERFDATA_FEAT_BITS];      /* string features by id */
	char **cmdline;
	struct perfdata_build_id *build_ids; /* filenames owned */
	size_t build_ids_alloc;
	struct perfdata_pmu_mapping *pmus;   /* names owned */
	const uint8_t *raw[PERFDATA_FEAT_BITS];
	size_t raw_len[PERFDATA_FEAT_BITS];
	uint8_t *raw_own[PERFDATA_FEAT_BITS]; /* streams: the copies raw[] points at */
};

struct perfdata {
	const uint8_t *buf;  /* the image, or a stream's buffer (holding stream bytes base..base+len) */
	size_t len;
	uint64_t base;       /* stream offset of buf[0] (0 for an image) */
	char *name;
	unsigned flags;
	bool pipe;
	bool unfinished;
	uint64_t data_off;
	uint64_t data_end;   /* iteration stops here */
	uint64_t pos;        /* next record */
	uint64_t prescan_end; /* pipe mode: header records before this were applied at open */
	int failed;          /* sticky error code of perfdata_next() */

	struct pd_attr **attrs;
	size_t nr_attrs, alloc_attrs;
	struct pd_id *ids;   /* sorted by id */
	size_t nr_ids, alloc_ids;
	int id_pos, is_pos;  /* common to all attrs (checked), -1: none */
	bool sample_id_all;  /* common to all attrs (checked) */
	const struct pd_attr *last_attr; /* one-entry cache of the id lookup */
	uint64_t last_id;

	struct pd_features feat;
	struct perfdata_stats stats;

	/* a pipe stream read as it arrives (stream.c); rd NULL for an image */
	perfdata_read_fn *rd;
	void *rd_ctx;
	uint8_t *mem;        /* the stream buffer (buf), cap bytes */
	size_t cap;
	bool eof;            /* rd said the stream ended */
	bool stopped;        /* iteration ended early (--partial): read no more */
	bool hold;           /* prescan: keep the header records from data_off in the buffer */
	uint8_t *own_image;  /* a file-mode image read from a pipe, freed at close */
	void *rd_own;        /* rd_ctx when the reader allocated it (perfdata_open_fd) */

	/* buffers reused from sample to sample */
	struct branch_entry *br;
	size_t br_alloc;
	uint64_t *cnt;
	size_t cnt_alloc;
	uint64_t *cc;
	size_t cc_alloc;
};

static inline uint64_t pd_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t pd_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint16_t pd_u16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * perf_branch_entry.flags (include/uapi/linux/perf_event.h, little-endian bit
 * numbers): mispred 0, predicted 1, in_tx 2, abort 3, cycles 4..19, type 20..23,
 * spec 24..25, new_type 26..29, priv 30..32. Inline: it runs once per branch entry
 * (32 per LBR sample), where a call costs as much as the decoding.
 */
static inline void pd_branch_flags_decode(uint64_t f, struct branch_entry *e)
{
	e->mispred = f & 1;
	e->predicted = (f >> 1) & 1;
	e->in_tx = (f >> 2) & 1;
	e->abort = (f >> 3) & 1;
	e->cycles = (uint16_t)(f >> 4);
	e->type = (f >> 20) & 0xf;
	e->spec = (f >> 24) & 0x3;
	e->new_type = (f >> 26) & 0xf;
	e->priv = (f >> 30) & 0x7;
	e->not_taken = false;
}

/* Record an error "'<file>': <message>" and return code. */
int pd_error(const struct perfdata *p, struct tdp_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* header.c */
int pd_attr_add(struct perfdata *p, const uint8_t *attr, size_t room, const uint8_t *ids_raw,
		size_t nr_ids, uint64_t off, struct tdp_err *err) __attribute__((warn_unused_result));
int pd_attrs_finish(struct perfdata *p, uint64_t off, struct tdp_err *err)
	__attribute__((warn_unused_result));
int pd_id_add(struct perfdata *p, uint64_t id, uint32_t attr, struct tdp_err *err)
	__attribute__((warn_unused_result));
void pd_ids_sort(struct perfdata *p);
const struct pd_attr *pd_attr_by_id(struct perfdata *p, uint64_t id);
int pd_set_attr_name(struct pd_attr *a, const char *name, size_t len)
	__attribute__((warn_unused_result));

/* feature.c: parse feature feat from data[0..len) found at file offset off. */
int pd_feature_parse(struct perfdata *p, unsigned feat, const uint8_t *data, size_t len,
		     uint64_t off, struct tdp_err *err) __attribute__((warn_unused_result));
void pd_features_release(struct pd_features *f);
/* Add a build-id seen in a HEADER_BUILD_ID record (unless the list has it already). */
int pd_build_id_add(struct perfdata *p, const struct perfdata_record *rec, struct tdp_err *err)
	__attribute__((warn_unused_result));

/* names.c: true for the record types perfdata_record_type_name() knows */
bool pd_record_type_known(uint32_t type);

/* record.c */
int pd_record_decode(struct perfdata *p, struct perfdata_record *rec, bool apply,
		     struct tdp_err *err) __attribute__((warn_unused_result));
int pd_prescan_pipe(struct perfdata *p, struct tdp_err *err) __attribute__((warn_unused_result));

/* stream.c: make the record at p->pos (and its payload) whole in the buffer, or
 * meet the end of the stream; sets data_end to the end of what is buffered. */
int pd_stream_need_record(struct perfdata *p, struct tdp_err *err) __attribute__((warn_unused_result));
/* Read and drop the rest of the stream; returns the bytes dropped. */
uint64_t pd_stream_drain(struct perfdata *p);
/* Copy n bytes of the buffer that must outlive it (attrs, features); NULL: no memory. */
uint8_t *pd_stream_keep(const uint8_t *data, size_t n);
void pd_stream_release(struct perfdata *p);

/* sample.c */
int pd_sample_decode(struct perfdata *p, struct perfdata_record *rec, struct tdp_err *err)
	__attribute__((warn_unused_result));
void pd_sample_id_decode(const struct pd_attr *a, const uint8_t *end, struct perfdata_sample_id *sid);

#endif
