/*
 * write.c: the perf.data writer (see perfdata-write.h).
 *
 * Layout written: [header 104][ids of each attr][attrs][data ...][feature
 * index][feature sections]. The header is written three times: a placeholder at
 * open, again when the attrs are laid down (still data size 0), and the final one
 * at close.
 */
#include "perfdata/perfdata-write.h"
#include "perfdata/perfdata-internal.h"

#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WBUF_SIZE (256u * 1024)
#define NAME_ALIGN 64 /* perf pads feature strings to 64 bytes */
#define PD_ATTR_SIZE_VER7 128u /* perf_event_attr of Linux 5.13 to 6.2 */

struct bytes {
	uint8_t *p;
	size_t len, alloc;
};

struct wattr {
	uint8_t *attr;     /* as given */
	size_t size;       /* bytes needed (trailing zeros dropped, multiple of 8) */
	uint64_t *ids;
	size_t nr_ids;
	char *name;
};

struct perfdata_writer {
	int fd;
	char *path;
	int failed;          /* sticky TDP_EIO */
	struct wattr *attrs;
	size_t nr_attrs, alloc_attrs;
	size_t attr_size;    /* common attr size, once the data started */
	bool data_started;
	uint64_t attrs_off;  /* where the attrs table starts (once the data started) */
	uint64_t data_off;
	uint64_t pos;        /* file offset of wbuf[0] */
	uint8_t *wbuf;
	size_t wlen;
	struct bytes feat[PERFDATA_FEAT_BITS];
	bool has_feat[PERFDATA_FEAT_BITS];
};

static int bytes_add(struct bytes *b, const void *data, size_t len)
{
	if (TDP_GROW(b->p, b->alloc, b->len + len + 1))
		return TDP_ENOMEM;
	if (len)
		memcpy(b->p + b->len, data, len);
	b->len += len;
	return 0;
}

static int bytes_zero(struct bytes *b, size_t len)
{
	if (TDP_GROW(b->p, b->alloc, b->len + len + 1))
		return TDP_ENOMEM;
	memset(b->p + b->len, 0, len);
	b->len += len;
	return 0;
}

static int bytes_u32(struct bytes *b, uint32_t v)
{
	return bytes_add(b, &v, sizeof(v));
}

static int bytes_u64(struct bytes *b, uint64_t v)
{
	return bytes_add(b, &v, sizeof(v));
}

/* perf's do_write_string(): {u32 len; s; NUL padding}, len counting the NUL, to 64. */
static int bytes_string(struct bytes *b, const char *s)
{
	size_t n = strlen(s) + 1, padded = (n + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
	int ret;

	if (padded > UINT32_MAX)
		return TDP_EINVAL;
	ret = bytes_u32(b, (uint32_t)padded);
	if (!ret)
		ret = bytes_add(b, s, n);
	if (!ret)
		ret = bytes_zero(b, padded - n);
	return ret;
}

static int werr_io(struct perfdata_writer *w, struct tdp_err *err, int errnum)
{
	w->failed = TDP_EIO;
	return tdp_err_set(err, TDP_EIO, "cannot write '%s': %s", w->path, strerror(errnum));
}

static int write_at(struct perfdata_writer *w, uint64_t off, const void *data, size_t len,
		    struct tdp_err *err)
{
	const uint8_t *p = data;

	while (len) {
		ssize_t n = pwrite(w->fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return werr_io(w, err, n < 0 ? errno : ENOSPC);
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

static int flush(struct perfdata_writer *w, struct tdp_err *err)
{
	int ret;

	if (!w->wlen)
		return 0;
	ret = write_at(w, w->pos, w->wbuf, w->wlen, err);
	if (ret)
		return ret;
	w->pos += w->wlen;
	w->wlen = 0;
	return 0;
}

static int out(struct perfdata_writer *w, const void *data, size_t len, struct tdp_err *err)
{
	int ret;

	if (!len)
		return 0;
	if (w->wlen + len > WBUF_SIZE) {
		ret = flush(w, err);
		if (ret)
			return ret;
	}
	if (len > WBUF_SIZE) {
		ret = write_at(w, w->pos, data, len, err);
		if (!ret)
			w->pos += len;
		return ret;
	}
	memcpy(w->wbuf + w->wlen, data, len);
	w->wlen += len;
	return 0;
}

static uint64_t out_offset(const struct perfdata_writer *w)
{
	return w->pos + w->wlen;
}

static int write_header(struct perfdata_writer *w, uint64_t aoff, uint64_t asize, uint64_t dsize,
			const uint64_t feat_bits[4], struct tdp_err *err)
{
	uint8_t h[PD_FILE_HEADER_SIZE] = { 0 };
	uint64_t v[12] = {
		PD_MAGIC2, PD_FILE_HEADER_SIZE, w->attr_size + 16, aoff, asize, w->data_off, dsize,
		0, 0, feat_bits[0], feat_bits[1], feat_bits[2],
	};

	memcpy(h, v, sizeof(v));
	memcpy(h + 96, &feat_bits[3], 8);
	return write_at(w, 0, h, sizeof(h), err);
}

int perfdata_writer_open(struct perfdata_writer **outp, const char *path, struct tdp_err *err)
{
	static const uint64_t no_feat[4] = { 0 };
	struct perfdata_writer *w;
	int ret = 0;

	w = tdp_calloc(1, sizeof(*w));
	if (!w)
		return tdp_err_oom(err);
	w->fd = -1;
	w->path = tdp_strdup(path);
	w->wbuf = tdp_malloc(WBUF_SIZE);
	if (!w->path || !w->wbuf) {
		ret = tdp_err_oom(err);
		goto out;
	}
	/* an existing recording becomes PATH.old (perf's way): its readers keep their inode */
	ret = tdp_out_recording(path, &w->fd, err);
	if (ret)
		goto out;
	w->data_off = PD_FILE_HEADER_SIZE;
	w->pos = PD_FILE_HEADER_SIZE;
	w->attr_size = PD_ATTR_SIZE_VER0;
	ret = write_header(w, 0, 0, 0, no_feat, err);
out:
	if (ret) {
		perfdata_writer_free(w);
		return ret;
	}
	*outp = w;
	return 0;
}

/* perf's names for the generic event types, for attrs added without a name. */
static char *default_name(const uint8_t *attr, size_t size)
{
	static const char *const hw[] = {
		"cycles", "instructions", "cache-references", "cache-misses", "branches",
		"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
		"ref-cycles",
	};
	static const char *const sw[] = {
		"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
		"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
		"bpf-output", "cgroup-switches",
	};
	uint32_t type = pd_u32(attr);
	uint64_t config = size >= 16 ? pd_u64(attr + 8) : 0;
	char buf[64];

	if (type == 0 && config < sizeof(hw) / sizeof(hw[0]))
		return tdp_strdup(hw[config]);
	if (type == 1 && config < sizeof(sw) / sizeof(sw[0]))
		return tdp_strdup(sw[config]);
	if (type == 4)
		snprintf(buf, sizeof(buf), "r%" PRIx64, config);
	else
		snprintf(buf, sizeof(buf), "type%" PRIu32 "/config=0x%" PRIx64 "/", type, config);
	return tdp_strdup(buf);
}

int perfdata_writer_add_attr(struct perfdata_writer *w, const void *attr, size_t size,
			     const uint64_t *ids, size_t nr_ids, const char *name,
			     struct tdp_err *err)
{
	struct wattr a = { 0 };
	size_t need = size;
	int ret = 0;

	if (w->data_started || !attr || size < PD_ATTR_SIZE_VER0 || size > PERFDATA_MAX_ATTR_SIZE ||
	    w->nr_attrs >= PERFDATA_MAX_ATTRS || (nr_ids && !ids) || nr_ids > PERFDATA_MAX_IDS)
		return tdp_err_set(err, TDP_EINVAL,
				   "perfdata_writer_add_attr: bad attr (size %zu, %zu ids) or called after "
				   "the first record",
				   size, nr_ids);
	/* perf 6.1 refuses attrs larger than its own (128 bytes): drop zero tails beyond it */
	while (need > PD_ATTR_SIZE_VER7 && ((const uint8_t *)attr)[need - 1] == 0)
		need--;
	need = (need + 7) / 8 * 8;
	a.attr = tdp_malloc(size);
	a.ids = tdp_calloc(nr_ids ? nr_ids : 1, sizeof(uint64_t));
	a.name = name ? tdp_strdup(name) : default_name(attr, size);
	if (!a.attr || !a.ids || !a.name || TDP_GROW(w->attrs, w->alloc_attrs, w->nr_attrs + 1)) {
		ret = tdp_err_oom(err);
		goto out;
	}
	memcpy(a.attr, attr, size);
	if (nr_ids)
		memcpy(a.ids, ids, nr_ids * sizeof(uint64_t));
	a.size = need;
	a.nr_ids = nr_ids;
	w->attrs[w->nr_attrs++] = a;
	return 0;
out:
	tdp_free(a.attr);
	tdp_free(a.ids);
	tdp_free(a.name);
	return ret;
}

/* One attr as written: size w->attr_size, its size field set to it. */
static int put_attr(struct perfdata_writer *w, const struct wattr *a, struct bytes *b)
{
	size_t n = a->size < w->attr_size ? a->size : w->attr_size;
	size_t at = b->len;
	uint32_t sz = (uint32_t)w->attr_size;
	int ret = bytes_add(b, a->attr, n);

	if (!ret)
		ret = bytes_zero(b, w->attr_size - n);
	if (!ret)
		memcpy(b->p + at + 4, &sz, 4);
	return ret;
}

/* Lay down the ids and the attrs table; the data section starts after them. */
static int start_data(struct perfdata_writer *w, struct tdp_err *err)
{
	static const uint64_t no_feat[4] = { 0 };
	struct bytes tbl = { 0 };
	uint64_t ids_off = PD_FILE_HEADER_SIZE;
	int ret = 0;

	w->attr_size = PD_ATTR_SIZE_VER0;
	for (size_t i = 0; i < w->nr_attrs; i++)
		if (w->attrs[i].size > w->attr_size)
			w->attr_size = w->attrs[i].size;
	for (size_t i = 0; i < w->nr_attrs && !ret; i++) {
		ret = out(w, w->attrs[i].ids, w->attrs[i].nr_ids * 8, err);
		if (ret)
			goto out;
		ret = put_attr(w, &w->attrs[i], &tbl);
		if (!ret)
			ret = bytes_u64(&tbl, ids_off);
		if (!ret)
			ret = bytes_u64(&tbl, w->attrs[i].nr_ids * 8);
		if (ret) {
			ret = tdp_err_oom(err);
			goto out;
		}
		ids_off += w->attrs[i].nr_ids * 8;
	}
	w->attrs_off = out_offset(w);
	ret = out(w, tbl.p, tbl.len, err);
	if (ret)
		goto out;
	w->data_off = out_offset(w);
	w->data_started = true;
	/* the attrs are on disk before the header points at them */
	ret = flush(w, err);
	if (!ret)
		ret = write_header(w, w->attrs_off, tbl.len, 0, no_feat, err);
out:
	tdp_free(tbl.p);
	return ret;
}

int perfdata_writer_add_record(struct perfdata_writer *w, const void *rec, size_t len,
			       struct tdp_err *err)
{
	const uint8_t *r = rec;
	uint64_t want;
	uint32_t type;
	int ret;

	if (w->failed)
		return tdp_err_set(err, w->failed, "cannot write '%s': an earlier write failed", w->path);
	if (!rec || len < PD_EVENT_HEADER_SIZE || pd_u16(r + 6) < PD_EVENT_HEADER_SIZE)
		return tdp_err_set(err, TDP_EINVAL, "perfdata_writer_add_record: %zu bytes are no record",
				   len);
	type = pd_u32(r);
	want = pd_u16(r + 6);
	if (type == PERFDATA_RECORD_AUXTRACE && want >= 16)
		want += pd_u64(r + 8);
	else if (type == PERFDATA_RECORD_HEADER_TRACING_DATA && want >= 12)
		want += pd_u32(r + 8);
	if (want != len)
		return tdp_err_set(err, TDP_EINVAL,
				   "perfdata_writer_add_record: a %s record of %" PRIu64
				   " bytes was given as %zu bytes",
				   perfdata_record_type_name(type), want, len);
	if (!w->data_started) {
		ret = start_data(w, err);
		if (ret)
			return ret;
	}
	return out(w, rec, len, err);
}

int perfdata_writer_set_string(struct perfdata_writer *w, unsigned feat, const char *s,
			       struct tdp_err *err)
{
	struct bytes b = { 0 };

	switch (feat) {
	case PERFDATA_FEAT_HOSTNAME:
	case PERFDATA_FEAT_OSRELEASE:
	case PERFDATA_FEAT_VERSION:
	case PERFDATA_FEAT_ARCH:
	case PERFDATA_FEAT_CPUDESC:
	case PERFDATA_FEAT_CPUID:
		break;
	default:
		return tdp_err_set(err, TDP_EINVAL, "perfdata_writer_set_string: feature %u is no string",
				   feat);
	}
	if (!s || bytes_string(&b, s)) {
		tdp_free(b.p);
		return s ? tdp_err_oom(err) : tdp_err_set(err, TDP_EINVAL, "perfdata_writer_set_string: NULL");
	}
	tdp_free(w->feat[feat].p);
	w->feat[feat] = b;
	w->has_feat[feat] = true;
	return 0;
}

static int set_feat(struct perfdata_writer *w, unsigned feat, struct bytes *b, int ret,
		    struct tdp_err *err)
{
	if (ret) {
		tdp_free(b->p);
		return ret == TDP_ENOMEM ? tdp_err_oom(err) : tdp_err_set(err, ret, "bad feature data");
	}
	tdp_free(w->feat[feat].p);
	w->feat[feat] = *b;
	w->has_feat[feat] = true;
	return 0;
}

int perfdata_writer_set_nrcpus(struct perfdata_writer *w, uint32_t avail, uint32_t online,
			       struct tdp_err *err)
{
	struct bytes b = { 0 };
	int ret = bytes_u32(&b, avail);

	if (!ret)
		ret = bytes_u32(&b, online);
	return set_feat(w, PERFDATA_FEAT_NRCPUS, &b, ret, err);
}

int perfdata_writer_set_total_mem(struct perfdata_writer *w, uint64_t kb, struct tdp_err *err)
{
	struct bytes b = { 0 };

	return set_feat(w, PERFDATA_FEAT_TOTAL_MEM, &b, bytes_u64(&b, kb), err);
}

int perfdata_writer_set_cmdline(struct perfdata_writer *w, const char *const *argv, size_t argc,
				struct tdp_err *err)
{
	struct bytes b = { 0 };
	int ret;

	if (argc > PERFDATA_MAX_LIST)
		return tdp_err_set(err, TDP_EINVAL, "perfdata_writer_set_cmdline: %zu arguments", argc);
	ret = bytes_u32(&b, (uint32_t)argc);
	for (size_t i = 0; i < argc && !ret; i++)
		ret = bytes_string(&b, argv[i] ? argv[i] : "");
	return set_feat(w, PERFDATA_FEAT_CMDLINE, &b, ret, err);
}

int perfdata_writer_add_build_id(struct perfdata_writer *w, int32_t pid, uint16_t misc,
				 const uint8_t *id, size_t size, const char *filename,
				 struct tdp_err *err)
{
	struct bytes *b = &w->feat[PERFDATA_FEAT_BUILD_ID];
	size_t n, padded, start = b->len;
	uint8_t e[36] = { 0 };
	uint16_t hsize;
	int ret;

	if (size > 20 || (size && !id) || !filename)
		return tdp_err_set(err, TDP_EINVAL, "perfdata_writer_add_build_id: bad build-id");
	n = strlen(filename) + 1;
	padded = (n + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
	if (sizeof(e) + padded > PERFDATA_MAX_RECORD)
		return tdp_err_set(err, TDP_EINVAL, "perfdata_writer_add_build_id: file name too long");
	/* perf's perf_record_header_build_id, as write_buildid() lays it out */
	hsize = (uint16_t)(sizeof(e) + padded);
	misc |= PERFDATA_MISC_BUILD_ID_SIZE;
	memcpy(e + 4, &misc, 2);
	memcpy(e + 6, &hsize, 2);
	memcpy(e + 8, &pid, 4);
	if (size)
		memcpy(e + 12, id, size);
	e[32] = (uint8_t)size;
	ret = bytes_add(b, e, sizeof(e));
	if (!ret)
		ret = bytes_add(b, filename, n);
	if (!ret)
		ret = bytes_zero(b, padded - n);
	if (ret) {
		b->len = start;
		return tdp_err_oom(err);
	}
	w->has_feat[PERFDATA_FEAT_BUILD_ID] = true;
	return 0;
}

int perfdata_writer_set_feature_raw(struct perfdata_writer *w, unsigned feat, const void *data,
				    size_t len, struct tdp_err *err)
{
	struct bytes b = { 0 };

	if (feat == 0 || feat >= PERFDATA_FEAT_BITS || feat == PERFDATA_FEAT_EVENT_DESC ||
	    feat == PERFDATA_FEAT_AUXTRACE || (len && !data))
		return tdp_err_set(err, TDP_EINVAL, "perfdata_writer_set_feature_raw: feature %u refused",
				   feat);
	return set_feat(w, feat, &b, bytes_add(&b, data, len), err);
}

uint64_t perfdata_writer_data_size(const struct perfdata_writer *w)
{
	return w->data_started ? out_offset(w) - w->data_off : 0;
}

/* EVENT_DESC: {u32 nr; u32 attr_size; nr x {attr; u32 nr_ids; string name; ids}}. */
static int build_event_desc(struct perfdata_writer *w, struct bytes *b)
{
	int ret = bytes_u32(b, (uint32_t)w->nr_attrs);

	if (!ret)
		ret = bytes_u32(b, (uint32_t)w->attr_size);
	for (size_t i = 0; i < w->nr_attrs && !ret; i++) {
		const struct wattr *a = &w->attrs[i];

		ret = put_attr(w, a, b);
		if (!ret)
			ret = bytes_u32(b, (uint32_t)a->nr_ids);
		if (!ret)
			ret = bytes_string(b, a->name);
		if (!ret)
			ret = bytes_add(b, a->ids, a->nr_ids * 8);
	}
	return ret;
}

int perfdata_writer_close(struct perfdata_writer *w, struct tdp_err *err)
{
	uint64_t bits[4] = { 0 }, dsize, index_off, sec_off;
	struct bytes index = { 0 };
	size_t nfeat = 0;
	int ret = w->failed;

	if (ret) {
		tdp_err_set(err, ret, "cannot write '%s': an earlier write failed", w->path);
		goto out;
	}
	if (!w->data_started) {
		ret = start_data(w, err);
		if (ret)
			goto out;
	}
	dsize = out_offset(w) - w->data_off;

	tdp_free(w->feat[PERFDATA_FEAT_EVENT_DESC].p);
	memset(&w->feat[PERFDATA_FEAT_EVENT_DESC], 0, sizeof(struct bytes));
	w->has_feat[PERFDATA_FEAT_EVENT_DESC] = false;
	if (w->nr_attrs) {
		ret = build_event_desc(w, &w->feat[PERFDATA_FEAT_EVENT_DESC]);
		if (ret) {
			ret = tdp_err_oom(err);
			goto out;
		}
		w->has_feat[PERFDATA_FEAT_EVENT_DESC] = true;
	}
	for (size_t i = 0; i < w->nr_attrs; i++)
		if (pd_u64(w->attrs[i].attr + 24) & PERFDATA_SAMPLE_BRANCH_STACK)
			w->has_feat[PERFDATA_FEAT_BRANCH_STACK] = true;

	/* the feature index follows the data, then the sections in bit order */
	for (unsigned f = 1; f < PERFDATA_FEAT_BITS; f++)
		nfeat += w->has_feat[f];
	index_off = out_offset(w);
	sec_off = index_off + nfeat * 16;
	for (unsigned f = 1; f < PERFDATA_FEAT_BITS && !ret; f++) {
		if (!w->has_feat[f])
			continue;
		bits[f / 64] |= 1ull << (f % 64);
		ret = bytes_u64(&index, sec_off);
		if (!ret)
			ret = bytes_u64(&index, w->feat[f].len);
		sec_off += w->feat[f].len;
	}
	if (ret) {
		ret = tdp_err_oom(err);
		goto out;
	}
	ret = out(w, index.p, index.len, err);
	for (unsigned f = 1; f < PERFDATA_FEAT_BITS && !ret; f++)
		if (w->has_feat[f])
			ret = out(w, w->feat[f].p, w->feat[f].len, err);
	if (!ret)
		ret = flush(w, err);
	/* the last write: only now does the header say the file is complete */
	if (!ret)
		ret = write_header(w, w->attrs_off, w->nr_attrs * (w->attr_size + 16), dsize, bits, err);
	if (!ret && close(w->fd) < 0) {
		w->fd = -1;
		ret = werr_io(w, err, errno);
	}
	w->fd = -1;
out:
	tdp_free(index.p);
	if (ret)
		w->failed = ret; /* the buffer may hold part of the features: do not flush it */
	perfdata_writer_free(w);
	return ret;
}

void perfdata_writer_free(struct perfdata_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0) {
		/* keep what was recorded; the header still says unfinished */
		if (!w->failed)
			(void)flush(w, NULL);
		close(w->fd);
	}
	for (size_t i = 0; i < w->nr_attrs; i++) {
		tdp_free(w->attrs[i].attr);
		tdp_free(w->attrs[i].ids);
		tdp_free(w->attrs[i].name);
	}
	tdp_free(w->attrs);
	for (size_t i = 0; i < PERFDATA_FEAT_BITS; i++)
		tdp_free(w->feat[i].p);
	tdp_free(w->wbuf);
	tdp_free(w->path);
	tdp_free(w);
}
