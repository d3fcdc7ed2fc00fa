/*
 * record.c: perfdata_next(): framing records in the data section, decoding the
 * non-sample records and their sample_id trailers, and the pipe-mode header
 * records (HEADER_ATTR, HEADER_FEATURE, EVENT_UPDATE, ID_INDEX).
 */
#include "perfdata/perfdata-internal.h"

#include "base/alloc.h"
#include "base/checked.h"
#include "base/err.h"

#include <inttypes.h>

/* Bytes of the fixed part of each record body (after the 8-byte header). */
static size_t body_min(uint32_t type)
{
	switch (type) {
	case PERFDATA_RECORD_MMAP: return 32;          /* pid,tid, start,len,pgoff */
	case PERFDATA_RECORD_MMAP2: return 64;         /* + maj..ino_gen|build-id, prot,flags */
	case PERFDATA_RECORD_COMM: return 8;
	case PERFDATA_RECORD_EXIT:
	case PERFDATA_RECORD_FORK: return 24;
	case PERFDATA_RECORD_LOST: return 16;
	case PERFDATA_RECORD_LOST_SAMPLES: return 8;
	case PERFDATA_RECORD_THROTTLE:
	case PERFDATA_RECORD_UNTHROTTLE: return 24;
	case PERFDATA_RECORD_AUX: return 24;
	case PERFDATA_RECORD_ITRACE_START: return 8;
	case PERFDATA_RECORD_SWITCH_CPU_WIDE: return 8;
	case PERFDATA_RECORD_KSYMBOL: return 16;
	case PERFDATA_RECORD_HEADER_ATTR: return PD_ATTR_SIZE_VER0;
	case PERFDATA_RECORD_HEADER_TRACING_DATA: return 4;
	case PERFDATA_RECORD_HEADER_BUILD_ID: return 28;
	case PERFDATA_RECORD_ID_INDEX: return 8;
	case PERFDATA_RECORD_AUXTRACE: return 40;
	case PERFDATA_RECORD_EVENT_UPDATE: return 16;
	case PERFDATA_RECORD_HEADER_FEATURE: return 8;
	default: return 0;
	}
}

static bool has_trailer(uint32_t type)
{
	return type < PERFDATA_RECORD_USER_TYPE_START && type != PERFDATA_RECORD_SAMPLE;
}

void pd_sample_id_decode(const struct pd_attr *a, const uint8_t *end, struct perfdata_sample_id *sid)
{
	uint64_t st = a->pub.sample_type;
	const uint8_t *w = end - 8;

	/* perf's perf_evsel__parse_id_sample(): the trailer is read from its end */
	sid->fields = st & (PERFDATA_SAMPLE_TID | PERFDATA_SAMPLE_TIME | PERFDATA_SAMPLE_ID |
			    PERFDATA_SAMPLE_STREAM_ID | PERFDATA_SAMPLE_CPU |
			    PERFDATA_SAMPLE_IDENTIFIER);
	if (st & PERFDATA_SAMPLE_IDENTIFIER) {
		sid->id = pd_u64(w);
		w -= 8;
	}
	if (st & PERFDATA_SAMPLE_CPU) {
		sid->cpu = pd_u32(w);
		w -= 8;
	}
	if (st & PERFDATA_SAMPLE_STREAM_ID) {
		sid->stream_id = pd_u64(w);
		w -= 8;
	}
	if (st & PERFDATA_SAMPLE_ID) {
		sid->id = pd_u64(w);
		w -= 8;
	}
	if (st & PERFDATA_SAMPLE_TIME) {
		sid->time = pd_u64(w);
		w -= 8;
	}
	if (st & PERFDATA_SAMPLE_TID) {
		sid->pid = pd_u32(w);
		sid->tid = pd_u32(w + 4);
	}
}

static struct perfdata_str str_in(const uint8_t *s, size_t room)
{
	struct perfdata_str r = { (const char *)s, strnlen((const char *)s, room) };

	return r;
}

/* HEADER_ATTR (pipe mode): {attr[attr.size]; u64 ids[]}. */
static int apply_header_attr(struct perfdata *p, const struct perfdata_record *rec,
			     struct tdp_err *err)
{
	const uint8_t *attr = rec->raw + PD_EVENT_HEADER_SIZE;
	size_t room = rec->size - PD_EVENT_HEADER_SIZE;
	uint32_t size = pd_u32(attr + 4);
	int ret;

	if (size == 0)
		size = PD_ATTR_SIZE_VER0;
	/* pd_attr_add() refuses an attr larger than the room the record has */
	ret = pd_attr_add(p, attr, room, size <= room ? attr + size : NULL,
			  size <= room ? (room - size) / 8 : 0, rec->offset, err);
	if (!ret)
		ret = pd_attrs_finish(p, rec->offset, err);
	return ret;
}

/* EVENT_UPDATE {u64 type; u64 id; ...}: type 2 (NAME) names the event of id. */
static int apply_event_update(struct perfdata *p, const struct perfdata_record *rec)
{
	const uint8_t *b = rec->raw + PD_EVENT_HEADER_SIZE;
	size_t room = rec->size - PD_EVENT_HEADER_SIZE;
	struct pd_attr *a;

	if (pd_u64(b) != 2 || !p->nr_attrs)
		return 0;
	a = (struct pd_attr *)pd_attr_by_id(p, pd_u64(b + 8));
	if (!a)
		return 0;
	return pd_set_attr_name(a, (const char *)b + 16, strnlen((const char *)b + 16, room - 16));
}

/* ID_INDEX {u64 nr; nr x {u64 id, idx, cpu, tid}}: ids of events in pipe mode. */
static int apply_id_index(struct perfdata *p, const struct perfdata_record *rec,
			  struct tdp_err *err)
{
	const struct perfdata_id_index *ix = &rec->u.id_index;
	bool added = false;
	int ret = 0;

	for (uint64_t i = 0; i < ix->nr && !ret; i++) {
		uint64_t id = pd_u64(ix->entries + 32 * i);
		uint64_t idx = pd_u64(ix->entries + 32 * i + 8);

		if (idx >= p->nr_attrs || (p->nr_attrs > 1 && pd_attr_by_id(p, id)))
			continue;
		ret = pd_id_add(p, id, (uint32_t)idx, err);
		added = true;
	}
	if (added)
		pd_ids_sort(p);
	return ret;
}

static int decode_body(struct perfdata *p, struct perfdata_record *rec, const uint8_t *b,
		       size_t blen, struct tdp_err *err)
{
	switch (rec->type) {
	case PERFDATA_RECORD_MMAP:
	case PERFDATA_RECORD_MMAP2: {
		struct perfdata_mmap *m = &rec->u.mmap;
		size_t fn = 32;

		m->pid = pd_u32(b);
		m->tid = pd_u32(b + 4);
		m->start = pd_u64(b + 8);
		m->len = pd_u64(b + 16);
		m->pgoff = pd_u64(b + 24);
		if (rec->type == PERFDATA_RECORD_MMAP2) {
			if (rec->misc & PERFDATA_MISC_MMAP_BUILD_ID) {
				m->has_build_id = true;
				m->build_id_size = b[32] <= 20 ? b[32] : 20;
				memcpy(m->build_id, b + 36, 20);
			} else {
				m->maj = pd_u32(b + 32);
				m->min = pd_u32(b + 36);
				m->ino = pd_u64(b + 40);
				m->ino_generation = pd_u64(b + 48);
			}
			m->prot = pd_u32(b + 56);
			m->flags = pd_u32(b + 60);
			fn = 64;
		}
		m->filename = str_in(b + fn, blen - fn);
		break;
	}
	case PERFDATA_RECORD_COMM:
		rec->u.comm.pid = pd_u32(b);
		rec->u.comm.tid = pd_u32(b + 4);
		rec->u.comm.comm = str_in(b + 8, blen - 8);
		break;
	case PERFDATA_RECORD_EXIT:
	case PERFDATA_RECORD_FORK:
		rec->u.fork.pid = pd_u32(b);
		rec->u.fork.ppid = pd_u32(b + 4);
		rec->u.fork.tid = pd_u32(b + 8);
		rec->u.fork.ptid = pd_u32(b + 12);
		rec->u.fork.time = pd_u64(b + 16);
		break;
	case PERFDATA_RECORD_LOST:
		rec->u.lost.id = pd_u64(b);
		rec->u.lost.lost = pd_u64(b + 8);
		p->stats.lost += rec->u.lost.lost;
		break;
	case PERFDATA_RECORD_LOST_SAMPLES:
		rec->u.lost.lost = pd_u64(b);
		p->stats.lost_samples += rec->u.lost.lost;
		break;
	case PERFDATA_RECORD_THROTTLE:
	case PERFDATA_RECORD_UNTHROTTLE:
		rec->u.throttle.time = pd_u64(b);
		rec->u.throttle.id = pd_u64(b + 8);
		rec->u.throttle.stream_id = pd_u64(b + 16);
		break;
	case PERFDATA_RECORD_AUX:
		rec->u.aux.aux_offset = pd_u64(b);
		rec->u.aux.aux_size = pd_u64(b + 8);
		rec->u.aux.flags = pd_u64(b + 16);
		break;
	case PERFDATA_RECORD_ITRACE_START:
		rec->u.itrace_start.pid = pd_u32(b);
		rec->u.itrace_start.tid = pd_u32(b + 4);
		break;
	case PERFDATA_RECORD_SWITCH:
		rec->u.sw.out = (rec->misc & PERFDATA_MISC_SWITCH_OUT) != 0;
		break;
	case PERFDATA_RECORD_SWITCH_CPU_WIDE:
		rec->u.sw.out = (rec->misc & PERFDATA_MISC_SWITCH_OUT) != 0;
		rec->u.sw.next_prev_pid = pd_u32(b);
		rec->u.sw.next_prev_tid = pd_u32(b + 4);
		break;
	case PERFDATA_RECORD_KSYMBOL:
		rec->u.ksymbol.addr = pd_u64(b);
		rec->u.ksymbol.len = pd_u32(b + 8);
		rec->u.ksymbol.ksym_type = pd_u16(b + 12);
		rec->u.ksymbol.flags = pd_u16(b + 14);
		rec->u.ksymbol.name = str_in(b + 16, blen - 16);
		break;
	case PERFDATA_RECORD_HEADER_BUILD_ID:
		rec->u.build_id.pid = (int32_t)pd_u32(b);
		memcpy(rec->u.build_id.id, b + 4, 20);
		rec->u.build_id.size = 20;
		if ((rec->misc & PERFDATA_MISC_BUILD_ID_SIZE) && b[24] <= 20)
			rec->u.build_id.size = b[24];
		rec->u.build_id.filename = str_in(b + 28, blen - 28);
		break;
	case PERFDATA_RECORD_ID_INDEX:
		rec->u.id_index.nr = pd_u64(b);
		if (rec->u.id_index.nr > (blen - 8) / 32)
			return pd_error(p, err, TDP_EFORMAT,
					"record at offset 0x%" PRIx64 ": ID_INDEX of %" PRIu64
					" entries does not fit in its %u bytes",
					rec->offset, rec->u.id_index.nr, rec->size);
		rec->u.id_index.entries = b + 8;
		break;
	case PERFDATA_RECORD_AUXTRACE:
		rec->u.auxtrace.size = pd_u64(b);
		rec->u.auxtrace.offset = pd_u64(b + 8);
		rec->u.auxtrace.reference = pd_u64(b + 16);
		rec->u.auxtrace.idx = pd_u32(b + 24);
		rec->u.auxtrace.tid = pd_u32(b + 28);
		rec->u.auxtrace.cpu = pd_u32(b + 32);
		rec->u.auxtrace.data = rec->raw + rec->size;
		break;
	case PERFDATA_RECORD_HEADER_FEATURE:
		rec->u.feature = pd_u64(b);
		break;
	default:
		break;
	}
	return 0;
}

/*
 * Frame the record at p->pos: check its header against the data that is left.
 * Returns 1 (framed), 0 (an unfinished recording ends here) or an error.
 */
static int frame(struct perfdata *p, struct perfdata_record *rec, struct tdp_err *err)
{
	uint64_t off = p->pos, left = p->data_end - p->pos;
	const uint8_t *r = p->buf + (off - p->base);
	uint64_t extra = 0;
	bool lenient = p->unfinished || (p->pipe && (p->flags & PERFDATA_OPEN_PARTIAL));
	int ret = 0;

	if (left < PD_EVENT_HEADER_SIZE) {
		ret = pd_error(p, err, TDP_EFORMAT,
			       "record at offset 0x%" PRIx64 ": only %" PRIu64
			       " bytes are left, fewer than a record header (8)",
			       off, left);
		goto out;
	}
	memset(rec, 0, sizeof(*rec));
	rec->type = pd_u32(r);
	rec->misc = pd_u16(r + 4);
	rec->size = pd_u16(r + 6);
	rec->offset = off;
	rec->raw = r;
	if (rec->size < PD_EVENT_HEADER_SIZE) {
		ret = pd_error(p, err, TDP_EFORMAT,
			       "record at offset 0x%" PRIx64 ": size %u is smaller than its header (8)",
			       off, rec->size);
		goto out;
	}
	if (rec->size > left) {
		ret = pd_error(p, err, TDP_EFORMAT,
			       "record at offset 0x%" PRIx64 ": size %u runs past the end of the data "
			       "(%" PRIu64 " bytes left)",
			       off, rec->size, left);
		goto out;
	}
	if (rec->size - PD_EVENT_HEADER_SIZE < body_min(rec->type)) {
		lenient = false;
		ret = pd_error(p, err, TDP_EFORMAT,
			       "record at offset 0x%" PRIx64 ": %s of size %u is shorter than its "
			       "fixed part (%zu)",
			       off, perfdata_record_type_name(rec->type), rec->size,
			       body_min(rec->type) + PD_EVENT_HEADER_SIZE);
		goto out;
	}
	/* AUXTRACE and TRACING_DATA carry a payload that header.size does not count */
	if (rec->type == PERFDATA_RECORD_AUXTRACE)
		extra = pd_u64(r + 8);
	else if (rec->type == PERFDATA_RECORD_HEADER_TRACING_DATA)
		extra = pd_u32(r + 8);
	if (extra > left - rec->size) {
		ret = pd_error(p, err, TDP_EFORMAT,
			       "record at offset 0x%" PRIx64 ": %s payload of %" PRIu64
			       " bytes runs past the end of the data (%" PRIu64 " bytes left)",
			       off, perfdata_record_type_name(rec->type), extra, left - rec->size);
		goto out;
	}
	rec->raw_len = rec->size + (size_t)extra;
	if (rec->type == PERFDATA_RECORD_COMPRESSED || rec->type == PERFDATA_RECORD_COMPRESSED2) {
		lenient = false;
		pd_error(p, err, TDP_EFORMAT,
			 "record at offset 0x%" PRIx64 ": compressed records (perf record -z) are not "
			 "supported",
			 off);
		ret = tdp_err_hint(err, "decompress the file first: 'perf inject -i FILE -o FILE.raw'");
		goto out;
	}
	return 1;
out:
	if (lenient) {
		/* a writer stopped mid-record: the data ends here */
		tdp_err_clear(err);
		p->stats.unfinished_tail = off;
		p->stats.tail_bytes = p->data_end - off;
		if (p->rd)
			p->stats.tail_bytes += pd_stream_drain(p); /* what was still to come */
		p->data_end = off;
		p->stopped = true;
		return 0;
	}
	return ret;
}

int pd_record_decode(struct perfdata *p, struct perfdata_record *rec, bool apply,
		     struct tdp_err *err)
{
	const uint8_t *b = rec->raw + PD_EVENT_HEADER_SIZE;
	size_t blen = rec->size - PD_EVENT_HEADER_SIZE;
	int ret = 0;

	if (rec->type == PERFDATA_RECORD_SAMPLE)
		return pd_sample_decode(p, rec, err);

	if (p->nr_attrs == 1)
		rec->attr = &p->attrs[0]->pub;
	if (has_trailer(rec->type) && p->sample_id_all && p->nr_attrs) {
		const struct pd_attr *a = p->attrs[0];

		if (p->nr_attrs > 1) {
			/* the id is is_pos words from the end (evlist__event2id) */
			size_t need = 8 * (size_t)p->is_pos;

			a = NULL;
			if (blen >= need)
				a = pd_attr_by_id(p, pd_u64(rec->raw + rec->size - need));
			if (!a)
				p->stats.unknown_id++;
		}
		if (a) {
			if (blen < a->id_hdr_size + body_min(rec->type))
				return pd_error(p, err, TDP_EFORMAT,
						"record at offset 0x%" PRIx64 ": %s of size %u is too short "
						"for its sample_id trailer (%zu bytes)",
						rec->offset, perfdata_record_type_name(rec->type), rec->size,
						a->id_hdr_size);
			pd_sample_id_decode(a, rec->raw + rec->size, &rec->sid);
			blen -= a->id_hdr_size;
			rec->attr = &a->pub;
		}
	}
	ret = decode_body(p, rec, b, blen, err);
	if (ret || !apply)
		return ret;
	switch (rec->type) {
	case PERFDATA_RECORD_HEADER_ATTR:
		ret = apply_header_attr(p, rec, err);
		break;
	case PERFDATA_RECORD_EVENT_UPDATE:
		ret = apply_event_update(p, rec);
		if (ret)
			ret = tdp_err_oom(err);
		break;
	case PERFDATA_RECORD_ID_INDEX:
		ret = apply_id_index(p, rec, err);
		break;
	case PERFDATA_RECORD_HEADER_BUILD_ID:
		ret = pd_build_id_add(p, rec, err);
		break;
	case PERFDATA_RECORD_HEADER_FEATURE:
		if (p->pipe && rec->u.feature < PERFDATA_FEAT_BITS)
			ret = pd_feature_parse(p, (unsigned)rec->u.feature, b + 8, blen - 8,
					       rec->offset + 16, err);
		break;
	default:
		break;
	}
	return ret;
}

/* Pipe mode: apply the header records that open the stream, before any event. */
int pd_prescan_pipe(struct perfdata *p, struct tdp_err *err)
{
	struct perfdata_record rec;
	int ret = 0;

	/* a stream keeps them in its buffer to yield them again (up to a bound) */
	p->hold = p->rd != NULL;
	for (;;) {
		if (p->rd) {
			if (p->pos - p->data_off > PERFDATA_STREAM_MAX_HEADER)
				break; /* the rest are applied as perfdata_next() meets them */
			ret = pd_stream_need_record(p, err);
			if (ret)
				break;
		}
		if (p->pos >= p->data_end)
			break;
		ret = frame(p, &rec, err);
		if (ret <= 0)
			break;
		if (rec.type < PERFDATA_RECORD_USER_TYPE_START ||
		    rec.type == PERFDATA_RECORD_FINISHED_ROUND)
			break;
		ret = pd_record_decode(p, &rec, true, err);
		if (ret)
			break;
		p->pos += rec.raw_len;
	}
	p->hold = false;
	p->prescan_end = p->pos;
	p->pos = p->data_off;
	/* the counts start again with the iteration; where a damaged stream ends stays */
	p->stats = (struct perfdata_stats){ .unfinished_tail = p->stats.unfinished_tail,
					    .tail_bytes = p->stats.tail_bytes,
					    .buffer_peak = p->stats.buffer_peak };
	return ret < 0 ? ret : 0;
}

int perfdata_next(struct perfdata *p, struct perfdata_record *out, struct tdp_err *err)
{
	int ret;

	if (p->failed)
		return pd_error(p, err, p->failed,
				"reading stopped at offset 0x%" PRIx64 " after an earlier error", p->pos);
	if (p->rd) {
		ret = pd_stream_need_record(p, err);
		if (ret < 0) {
			p->failed = ret;
			return ret;
		}
	}
	if (p->pos >= p->data_end)
		return 0;
	ret = frame(p, out, err);
	if (ret == 1)
		ret = pd_record_decode(p, out, p->pos >= p->prescan_end, err);
	else if (ret == 0)
		return 0;
	if (ret < 0) {
		p->failed = ret;
		return ret;
	}
	p->pos += out->raw_len;
	p->stats.records++;
	if (out->type == PERFDATA_RECORD_SAMPLE)
		p->stats.samples++;
	else if (!pd_record_type_known(out->type))
		p->stats.unknown_type++;
	return 1;
}

int perfdata_stream_check(struct perfdata_stream *s, const uint8_t *buf, size_t len, size_t max, bool eof,
			  const char *name, unsigned flags, struct tdp_err *err)
{
	struct perfdata p = { 0 };
	struct perfdata_record rec;
	int ret = 0;

	if (s->done)
		return 0;
	if (!s->next) {
		struct perfdata *q = NULL;
		uint64_t hsize = len >= 16 ? pd_u64(buf + 8) : 0;

		if (len < 16 && !eof)
			return 0;
		if (len < 16 || memcmp(buf, "PERFILE2", 8) ||
		    (hsize != PD_PIPE_HEADER_SIZE && hsize != PD_FILE_HEADER_SIZE &&
		     hsize != PD_FILE_HEADER_SIZE_OLD)) {
			/* perfdata_open() says what is wrong with the header */
			ret = perfdata_open(&q, buf, len, name, flags, err);
			if (!ret) {
				perfdata_close(q);
				return 0;
			}
			return ret;
		}
		s->pipe = hsize == PD_PIPE_HEADER_SIZE;
		s->next = s->pipe ? PD_PIPE_HEADER_SIZE : hsize;
		s->done = !s->pipe;
		if (s->done)
			return 0;
	}
	p.buf = buf;
	p.len = len;
	p.name = (char *)(name ? name : "perf.data");
	p.pipe = true;
	p.data_end = len;
	while (!ret && s->next + PD_EVENT_HEADER_SIZE <= len) {
		const uint8_t *r = buf + s->next;
		uint32_t type = pd_u32(r);
		uint64_t size = pd_u16(r + 6), extra = 0, left = len - s->next;

		if (size >= PD_EVENT_HEADER_SIZE) {
			if (size > left)
				break; /* not all here yet */
			if (type == PERFDATA_RECORD_AUXTRACE && size >= 16)
				extra = pd_u64(r + 8);
			else if (type == PERFDATA_RECORD_HEADER_TRACING_DATA && size >= 12)
				extra = pd_u32(r + 8);
			if (extra > max || s->next + size > max - extra) {
				ret = pd_error(&p, err, TDP_ELIMIT,
					       "record at offset 0x%" PRIx64 ": %s payload of %" PRIu64
					       " bytes runs past the limit of %zu bytes for a stream",
					       s->next, perfdata_record_type_name(type), extra, max);
				break;
			}
			if (extra > left - size)
				break;
		}
		p.pos = s->next;
		ret = frame(&p, &rec, err);
		if (ret == 1) {
			s->next += rec.raw_len;
			ret = 0;
		}
	}
	if (ret && (flags & PERFDATA_OPEN_PARTIAL) && ret != TDP_ENOMEM) {
		/* the reader will end at this record */
		tdp_err_clear(err);
		s->done = true;
		ret = 0;
	}
	return ret;
}
