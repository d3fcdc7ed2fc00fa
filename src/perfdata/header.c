/*
 * header.c: perfdata_open() and the accessors: the file header, the attrs with
 * their sample ids, the id -> attr map, and the feature index (see perfdata.h).
 */
#include "perfdata/perfdata-internal.h"

#include "base/alloc.h"
#include "base/checked.h"
#include "base/err.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int pd_error(const struct perfdata *p, struct tdp_err *err, int code, const char *fmt, ...)
{
	char msg[TDP_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tdp_err_set(err, code, "'%s': %s", p->name, msg);
}

/* An attr field at byte off, or 0 when the recorded attr is too short to hold it. */
static uint64_t attr_u64(const uint8_t *a, size_t size, size_t off)
{
	return off + 8 <= size ? pd_u64(a + off) : 0;
}

static uint32_t attr_u32(const uint8_t *a, size_t size, size_t off)
{
	return off + 4 <= size ? pd_u32(a + off) : 0;
}

static uint16_t attr_u16(const uint8_t *a, size_t size, size_t off)
{
	return off + 2 <= size ? pd_u16(a + off) : 0;
}

/* perf's __evsel__calc_id_pos(): where the id is in a SAMPLE, in u64 words. */
static int calc_id_pos(uint64_t st)
{
	int idx = 0;

	if (st & PERFDATA_SAMPLE_IDENTIFIER)
		return 0;
	if (!(st & PERFDATA_SAMPLE_ID))
		return -1;
	idx += !!(st & PERFDATA_SAMPLE_IP);
	idx += !!(st & PERFDATA_SAMPLE_TID);
	idx += !!(st & PERFDATA_SAMPLE_TIME);
	idx += !!(st & PERFDATA_SAMPLE_ADDR);
	return idx;
}

/* perf's __evsel__calc_is_pos(): where the id is in a trailer, counted from its end. */
static int calc_is_pos(uint64_t st)
{
	int idx = 1;

	if (st & PERFDATA_SAMPLE_IDENTIFIER)
		return 1;
	if (!(st & PERFDATA_SAMPLE_ID))
		return -1;
	idx += !!(st & PERFDATA_SAMPLE_CPU);
	idx += !!(st & PERFDATA_SAMPLE_STREAM_ID);
	return idx;
}

static size_t calc_id_hdr_size(uint64_t st)
{
	static const uint64_t bits[] = {
		PERFDATA_SAMPLE_TID, PERFDATA_SAMPLE_TIME, PERFDATA_SAMPLE_ID,
		PERFDATA_SAMPLE_STREAM_ID, PERFDATA_SAMPLE_CPU, PERFDATA_SAMPLE_IDENTIFIER,
	};
	size_t n = 0;

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		n += (st & bits[i]) ? 8 : 0;
	return n;
}

static void attr_free(struct pd_attr *a)
{
	if (!a)
		return;
	tdp_free(a->ids);
	tdp_free(a->name);
	tdp_free(a->raw_own);
	tdp_free(a);
}

int pd_set_attr_name(struct pd_attr *a, const char *name, size_t len)
{
	char *copy = tdp_strndup(name, len);

	if (!copy)
		return TDP_ENOMEM;
	tdp_free(a->name);
	a->name = copy;
	a->pub.name = copy;
	return 0;
}

int pd_id_add(struct perfdata *p, uint64_t id, uint32_t attr, struct tdp_err *err)
{
	if (p->nr_ids >= PERFDATA_MAX_IDS)
		return pd_error(p, err, TDP_ELIMIT, "more than %u sample ids (PERFDATA_MAX_IDS)",
				PERFDATA_MAX_IDS);
	if (TDP_GROW(p->ids, p->alloc_ids, p->nr_ids + 1))
		return tdp_err_oom(err);
	p->ids[p->nr_ids].id = id;
	p->ids[p->nr_ids].attr = attr;
	p->nr_ids++;
	return 0;
}

static int id_cmp(const void *a, const void *b)
{
	const struct pd_id *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->attr < y->attr ? -1 : x->attr > y->attr;
}

void pd_ids_sort(struct perfdata *p)
{
	if (p->nr_ids > 1)
		qsort(p->ids, p->nr_ids, sizeof(*p->ids), id_cmp);
	p->last_attr = NULL;
}

const struct pd_attr *pd_attr_by_id(struct perfdata *p, uint64_t id)
{
	size_t lo = 0, hi = p->nr_ids;

	if (p->nr_attrs == 1)
		return p->attrs[0];
	/* perf's evlist__event2evsel(): "synthesized events have an id of zero" */
	if (id == 0 && p->nr_attrs)
		return p->attrs[0];
	if (p->last_attr && p->last_id == id)
		return p->last_attr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < p->nr_ids && p->ids[lo].id == id && p->ids[lo].attr < p->nr_attrs) {
		p->last_attr = p->attrs[p->ids[lo].attr];
		p->last_id = id;
		return p->last_attr;
	}
	return NULL;
}

/*
 * Add one attr: `attr` points at the recorded perf_event_attr with `room` bytes
 * available for it; `ids_raw` at nr_ids u64 sample ids (unaligned, in the image).
 */
int pd_attr_add(struct perfdata *p, const uint8_t *attr, size_t room, const uint8_t *ids_raw,
		size_t nr_ids, uint64_t off, struct tdp_err *err)
{
	struct pd_attr *a = NULL;
	struct perfdata_attr *pa;
	uint32_t size;
	size_t idx = p->nr_attrs;
	int ret = 0;

	if (room < PD_ATTR_SIZE_VER0) {
		ret = pd_error(p, err, TDP_EFORMAT,
			       "attr %zu at offset 0x%" PRIx64 ": %zu bytes are too few for an attr (64)",
			       idx, off, room);
		goto out;
	}
	size = pd_u32(attr + 4);
	if (size == 0)
		size = PD_ATTR_SIZE_VER0; /* perf's ABI0 */
	if (size > PERFDATA_MAX_ATTR_SIZE) {
		ret = pd_error(p, err, TDP_ELIMIT,
			       "attr %zu at offset 0x%" PRIx64 ": size %" PRIu32
			       " exceeds the limit of %d bytes (PERFDATA_MAX_ATTR_SIZE)",
			       idx, off, size, PERFDATA_MAX_ATTR_SIZE);
		goto out;
	}
	if (size < PD_ATTR_SIZE_VER0 || size > room) {
		ret = pd_error(p, err, TDP_EFORMAT,
			       "attr %zu at offset 0x%" PRIx64 ": size %" PRIu32
			       " does not fit its entry of %zu bytes",
			       idx, off, size, room);
		goto out;
	}
	if (p->nr_attrs >= PERFDATA_MAX_ATTRS) {
		ret = pd_error(p, err, TDP_ELIMIT,
			       "attr at offset 0x%" PRIx64 ": more than %d attrs (PERFDATA_MAX_ATTRS)",
			       off, PERFDATA_MAX_ATTRS);
		goto out;
	}
	if (nr_ids > PERFDATA_MAX_IDS - p->nr_ids) {
		ret = pd_error(p, err, TDP_ELIMIT,
			       "attr %zu at offset 0x%" PRIx64 ": more than %u sample ids (PERFDATA_MAX_IDS)",
			       idx, off, PERFDATA_MAX_IDS);
		goto out;
	}
	a = tdp_calloc(1, sizeof(*a));
	if (!a || TDP_GROW(p->attrs, p->alloc_attrs, p->nr_attrs + 1)) {
		ret = tdp_err_oom(err);
		goto out;
	}
	a->ids = tdp_calloc(nr_ids ? nr_ids : 1, sizeof(uint64_t));
	if (!a->ids) {
		ret = tdp_err_oom(err);
		goto out;
	}
	for (size_t i = 0; i < nr_ids; i++)
		a->ids[i] = pd_u64(ids_raw + 8 * i);

	pa = &a->pub;
	pa->index = idx;
	pa->type = pd_u32(attr);
	pa->size = size;
	pa->config = attr_u64(attr, size, 8);
	pa->sample_period = attr_u64(attr, size, 16);
	pa->sample_type = attr_u64(attr, size, 24);
	pa->read_format = attr_u64(attr, size, 32);
	pa->flags = attr_u64(attr, size, 40);
	pa->wakeup_events = attr_u32(attr, size, 48);
	pa->bp_type = attr_u32(attr, size, 52);
	pa->config1 = attr_u64(attr, size, 56);
	pa->config2 = attr_u64(attr, size, 64);
	pa->branch_sample_type = attr_u64(attr, size, 72);
	pa->sample_regs_user = attr_u64(attr, size, 80);
	pa->sample_stack_user = attr_u32(attr, size, 88);
	pa->clockid = (int32_t)attr_u32(attr, size, 92);
	pa->sample_regs_intr = attr_u64(attr, size, 96);
	pa->aux_watermark = attr_u32(attr, size, 104);
	pa->sample_max_stack = attr_u16(attr, size, 108);
	pa->aux_sample_size = attr_u32(attr, size, 112);
	pa->sig_data = attr_u64(attr, size, 120);
	pa->config3 = attr_u64(attr, size, 128);
	pa->raw = attr;
	if (p->rd) {
		/* a stream's buffer moves on: keep a copy */
		a->raw_own = pd_stream_keep(attr, size);
		if (!a->raw_own) {
			ret = tdp_err_oom(err);
			goto out;
		}
		pa->raw = a->raw_own;
	}
	pa->raw_size = size;
	pa->ids = a->ids;
	pa->nr_ids = nr_ids;

	if (pa->sample_type & ~(uint64_t)PERFDATA_SAMPLE_KNOWN) {
		ret = pd_error(p, err, TDP_EFORMAT,
			       "attr %zu at offset 0x%" PRIx64 ": sample_type 0x%" PRIx64
			       " has fields this reader does not know (0x%" PRIx64 ")",
			       idx, off, pa->sample_type,
			       pa->sample_type & ~(uint64_t)PERFDATA_SAMPLE_KNOWN);
		goto out;
	}
	a->id_pos = calc_id_pos(pa->sample_type);
	a->is_pos = calc_is_pos(pa->sample_type);
	a->id_hdr_size = (pa->flags & PERFDATA_ATTR_FLAG_SAMPLE_ID_ALL) ?
		calc_id_hdr_size(pa->sample_type) : 0;

	for (size_t i = 0; i < nr_ids; i++) {
		ret = pd_id_add(p, a->ids[i], (uint32_t)idx, err);
		if (ret)
			goto out;
	}
	p->attrs[p->nr_attrs++] = a;
	a = NULL;
out:
	if (ret && a) {
		/* drop the ids this attr added */
		while (p->nr_ids && p->ids[p->nr_ids - 1].attr == idx)
			p->nr_ids--;
	}
	attr_free(a);
	return ret;
}

/*
 * After attrs were added: check that records can be told apart as perf requires
 * (evlist__valid_sample_type / valid_sample_id_all) and sort the id map.
 */
int pd_attrs_finish(struct perfdata *p, uint64_t off, struct tdp_err *err)
{
	const struct pd_attr *first;

	pd_ids_sort(p);
	if (!p->nr_attrs)
		return 0;
	first = p->attrs[0];
	p->id_pos = first->id_pos;
	p->is_pos = first->is_pos;
	p->sample_id_all = (first->pub.flags & PERFDATA_ATTR_FLAG_SAMPLE_ID_ALL) != 0;
	for (size_t i = 1; i < p->nr_attrs; i++) {
		const struct pd_attr *a = p->attrs[i];
		bool sia = (a->pub.flags & PERFDATA_ATTR_FLAG_SAMPLE_ID_ALL) != 0;

		if (sia != p->sample_id_all)
			return pd_error(p, err, TDP_EFORMAT,
					"attrs at offset 0x%" PRIx64 ": events 0 and %zu disagree on sample_id_all",
					off, i);
		if (first->id_pos < 0 || a->id_pos != first->id_pos ||
		    (p->sample_id_all && (first->is_pos < 0 || a->is_pos != first->is_pos)))
			return pd_error(p, err, TDP_EFORMAT,
					"attrs at offset 0x%" PRIx64 ": events 0 and %zu cannot be told apart "
					"(sample_type 0x%" PRIx64 " and 0x%" PRIx64
					" need IDENTIFIER or ID at the same place)",
					off, i, first->pub.sample_type, a->pub.sample_type);
	}
	return 0;
}

static int check_magic(struct perfdata *p, struct tdp_err *err)
{
	uint64_t magic;

	if (p->len < 8)
		return pd_error(p, err, TDP_EFORMAT,
				"not a perf.data file: %zu bytes at offset 0x0 are too few for its magic",
				p->len);
	magic = pd_u64(p->buf);
	if (magic == PD_MAGIC2)
		return 0;
	if (magic == PD_MAGIC2_SWAPPED) {
		pd_error(p, err, TDP_EFORMAT,
			 "magic at offset 0x0: the file was written on a machine of the other byte order, "
			 "which this reader does not support");
		return tdp_err_hint(err, "perf swaps byte order when it reads such a file: "
				    "'perf script -i FILE' or 'perf report -i FILE'");
	}
	if (!memcmp(p->buf, "PERFFILE", 8))
		return pd_error(p, err, TDP_EFORMAT,
				"magic at offset 0x0: version 1 of the format (PERFFILE, before Linux 2.6.37) "
				"is not supported");
	return pd_error(p, err, TDP_EFORMAT, "not a perf.data file: bad magic at offset 0x0");
}

static int read_attrs(struct perfdata *p, uint64_t attr_size, uint64_t aoff, uint64_t asize,
		      struct tdp_err *err)
{
	uint64_t nr;

	if (asize == 0)
		return 0;
	if (attr_size > PERFDATA_MAX_ATTR_SIZE + 16)
		return pd_error(p, err, TDP_ELIMIT,
				"header at offset 0x10: attr size %" PRIu64
				" exceeds the limit of %d bytes (PERFDATA_MAX_ATTR_SIZE)",
				attr_size, PERFDATA_MAX_ATTR_SIZE + 16);
	if (attr_size < PD_ATTR_SIZE_VER0 + 16)
		return pd_error(p, err, TDP_EFORMAT,
				"header at offset 0x10: attr size %" PRIu64 " is smaller than %u",
				attr_size, PD_ATTR_SIZE_VER0 + 16);
	if (asize % attr_size)
		return pd_error(p, err, TDP_EFORMAT,
				"header at offset 0x18: attrs section of %" PRIu64
				" bytes is not a multiple of the attr size %" PRIu64,
				asize, attr_size);
	if (!chk_range(aoff, asize, p->len))
		return pd_error(p, err, TDP_EFORMAT,
				"attrs section at offset 0x%" PRIx64 " (%" PRIu64
				" bytes) runs past the end of the file (%zu bytes)",
				aoff, asize, p->len);
	nr = asize / attr_size;
	if (nr > PERFDATA_MAX_ATTRS)
		return pd_error(p, err, TDP_ELIMIT,
				"attrs section at offset 0x%" PRIx64 ": %" PRIu64
				" attrs exceed the limit of %d (PERFDATA_MAX_ATTRS)",
				aoff, nr, PERFDATA_MAX_ATTRS);
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t eoff = aoff + i * attr_size;
		const uint8_t *entry = p->buf + eoff;
		uint64_t ids_off = pd_u64(entry + attr_size - 16);
		uint64_t ids_size = pd_u64(entry + attr_size - 8);
		int ret;

		if (ids_size % 8 || !chk_range(ids_off, ids_size, p->len))
			return pd_error(p, err, TDP_EFORMAT,
					"attr %" PRIu64 " at offset 0x%" PRIx64 ": its ids (offset 0x%" PRIx64
					", %" PRIu64 " bytes) are not inside the file (%zu bytes)",
					i, eoff, ids_off, ids_size, p->len);
		ret = pd_attr_add(p, entry, attr_size - 16, p->buf + ids_off, ids_size / 8, eoff, err);
		if (ret)
			return ret;
	}
	return pd_attrs_finish(p, aoff, err);
}

static int read_features(struct perfdata *p, const uint8_t *bitmap, uint64_t index_off,
			 struct tdp_err *err)
{
	uint64_t bits[PERFDATA_FEAT_BITS / 64];
	size_t n = 0, k = 0;

	for (size_t i = 0; i < PERFDATA_FEAT_BITS / 64; i++) {
		bits[i] = pd_u64(bitmap + 8 * i);
		n += (size_t)__builtin_popcountll(bits[i]);
	}
	if (!n)
		return 0;
	if (!chk_range(index_off, (uint64_t)n * 16, p->len))
		return pd_error(p, err, TDP_EFORMAT,
				"feature index at offset 0x%" PRIx64 " (%zu entries) runs past the end of "
				"the file (%zu bytes)",
				index_off, n, p->len);
	for (unsigned feat = 0; feat < PERFDATA_FEAT_BITS; feat++) {
		uint64_t eoff, soff, ssize;
		int ret;

		if (!((bits[feat / 64] >> (feat % 64)) & 1))
			continue;
		eoff = index_off + 16 * k++;
		soff = pd_u64(p->buf + eoff);
		ssize = pd_u64(p->buf + eoff + 8);
		if (!chk_range(soff, ssize, p->len))
			return pd_error(p, err, TDP_EFORMAT,
					"feature %s at offset 0x%" PRIx64 ": its section (offset 0x%" PRIx64
					", %" PRIu64 " bytes) runs past the end of the file (%zu bytes)",
					perfdata_feature_name(feat), eoff, soff, ssize, p->len);
		ret = pd_feature_parse(p, feat, p->buf + soff, (size_t)ssize, soff, err);
		if (ret)
			return ret;
	}
	return 0;
}

static int open_file_mode(struct perfdata *p, struct tdp_err *err)
{
	uint64_t hsize, attr_size, aoff, asize, doff, dsize;
	const uint8_t *b = p->buf;
	bool has_feat_bits = false;
	int ret;

	if (p->len < 16)
		return pd_error(p, err, TDP_EFORMAT,
				"header at offset 0x8: the file ends after %zu bytes", p->len);
	hsize = pd_u64(b + 8);
	if (hsize != PD_FILE_HEADER_SIZE && hsize != PD_FILE_HEADER_SIZE_OLD)
		return pd_error(p, err, TDP_EFORMAT,
				"header at offset 0x8: size %" PRIu64 " is neither %u (file) nor %u (pipe)",
				hsize, PD_FILE_HEADER_SIZE, PD_PIPE_HEADER_SIZE);
	if (p->len < hsize)
		return pd_error(p, err, TDP_EFORMAT,
				"header at offset 0x0: the file ends after %zu of its %" PRIu64 " bytes",
				p->len, hsize);
	attr_size = pd_u64(b + 16);
	aoff = pd_u64(b + 24);
	asize = pd_u64(b + 32);
	doff = pd_u64(b + 40);
	dsize = pd_u64(b + 48);
	if (hsize == PD_FILE_HEADER_SIZE)
		for (size_t i = 0; i < 4; i++)
			has_feat_bits |= pd_u64(b + 72 + 8 * i) != 0;

	if (!chk_range(doff, dsize, p->len))
		return pd_error(p, err, TDP_EFORMAT,
				"data section at offset 0x%" PRIx64 " (%" PRIu64 " bytes) runs past the end "
				"of the file (%zu bytes): the file is truncated",
				doff, dsize, p->len);
	p->data_off = doff;
	p->data_end = doff + dsize;
	if (dsize == 0 && !has_feat_bits && p->len > doff) {
		/* perf's convention: the size is written when the recording ends */
		p->unfinished = true;
		if (!(p->flags & PERFDATA_OPEN_UNFINISHED)) {
			pd_error(p, err, TDP_EFORMAT,
				 "the recording was not finished: the data at offset 0x%" PRIx64
				 " has size 0 in the header",
				 doff);
			return tdp_err_hint(err, "the program that wrote it was stopped before it "
					    "completed the file; record again");
		}
		p->data_end = p->len;
	}
	p->pos = p->data_off;
	p->prescan_end = p->data_off;

	ret = read_attrs(p, attr_size, aoff, asize, err);
	if (ret)
		return ret;
	if (has_feat_bits)
		ret = read_features(p, b + 72, doff + dsize, err);
	return ret;
}

int perfdata_open(struct perfdata **out, const uint8_t *buf, size_t len, const char *name,
		  unsigned flags, struct tdp_err *err)
{
	struct perfdata *p;
	int ret;

	if (!out || (!buf && len))
		return tdp_err_set(err, TDP_EINVAL, "perfdata_open: bad arguments");
	p = tdp_calloc(1, sizeof(*p));
	if (!p)
		return tdp_err_oom(err);
	p->name = tdp_strdup(name ? name : "perf.data");
	if (!p->name) {
		ret = tdp_err_oom(err);
		goto out;
	}
	p->buf = buf;
	p->len = len;
	p->flags = flags;
	p->id_pos = p->is_pos = -1;

	ret = check_magic(p, err);
	if (ret)
		goto out;
	if (len >= 16 && pd_u64(buf + 8) == PD_PIPE_HEADER_SIZE) {
		p->pipe = true;
		p->data_off = p->pos = p->prescan_end = PD_PIPE_HEADER_SIZE;
		p->data_end = len;
		ret = pd_prescan_pipe(p, err);
	} else {
		ret = open_file_mode(p, err);
	}
out:
	if (ret) {
		perfdata_close(p);
		return ret;
	}
	*out = p;
	return 0;
}

void perfdata_close(struct perfdata *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr_attrs; i++)
		attr_free(p->attrs[i]);
	tdp_free(p->attrs);
	tdp_free(p->ids);
	pd_features_release(&p->feat);
	tdp_free(p->br);
	tdp_free(p->cnt);
	tdp_free(p->cc);
	tdp_free(p->name);
	pd_stream_release(p);
	tdp_free(p);
}

size_t perfdata_nr_attrs(const struct perfdata *p)
{
	return p->nr_attrs;
}

const struct perfdata_attr *perfdata_attr(const struct perfdata *p, size_t i)
{
	return i < p->nr_attrs ? &p->attrs[i]->pub : NULL;
}

const struct perfdata_attr *perfdata_attr_by_id(const struct perfdata *p, uint64_t id)
{
	const struct pd_attr *a = pd_attr_by_id((struct perfdata *)p, id);

	return a ? &a->pub : NULL;
}

const struct perfdata_features *perfdata_features(const struct perfdata *p)
{
	return &p->feat.pub;
}

bool perfdata_feature_raw(const struct perfdata *p, unsigned feat, const uint8_t **data, size_t *len)
{
	if (feat >= PERFDATA_FEAT_BITS || !perfdata_has_feature(&p->feat.pub, feat))
		return false;
	*data = p->feat.raw[feat];
	*len = p->feat.raw_len[feat];
	return true;
}

bool perfdata_is_pipe(const struct perfdata *p)
{
	return p->pipe;
}

bool perfdata_records_stable(const struct perfdata *p)
{
	return !p->rd;
}

uint64_t perfdata_data_offset(const struct perfdata *p)
{
	return p->data_off;
}

uint64_t perfdata_data_size(const struct perfdata *p)
{
	return p->data_end - p->data_off;
}

bool perfdata_is_unfinished(const struct perfdata *p)
{
	return p->unfinished;
}

const struct perfdata_stats *perfdata_stats(const struct perfdata *p)
{
	return &p->stats;
}
