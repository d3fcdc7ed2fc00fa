/*
 * stream.c: perf.data arriving on a pipe (perfdata_open_stream() and friends,
 * see perfdata.h "Streams"). A pipe-mode stream is decoded from a sliding
 * buffer: p->buf[0..p->len) holds the stream bytes from offset p->base, and
 * before each record perfdata_next() asks pd_stream_need_record() to make that
 * record whole in it. Bytes before the record being decoded are dropped when
 * room is needed, so the buffer is as large as the largest record (plus, while
 * perfdata_open() applies them, the leading header records), however long the
 * stream is. Offsets in records and messages stay offsets in the stream.
 */
#include "perfdata/perfdata-internal.h"

#include "base/alloc.h"
#include "base/err.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The buffer's usual size: two of the largest records, read 64 KiB at a time. */
#define PD_STREAM_CAP ((size_t)128 << 10)

static int read_error(struct perfdata *p, struct tdp_err *err, long e)
{
	p->eof = true;
	return pd_error(p, err, TDP_EIO, "cannot read the stream at offset 0x%" PRIx64 ": %s",
			p->base + p->len, strerror((int)-e));
}

/* Make room to append `need` bytes: drop what is before the first byte kept, grow if that is not enough. */
static int make_room(struct perfdata *p, size_t need, struct tdp_err *err)
{
	uint64_t keep = p->hold ? p->data_off : p->pos;
	size_t drop = keep > p->base ? (size_t)(keep - p->base) : 0;
	size_t want;

	if (p->len + need <= p->cap)
		return 0;
	if (drop > p->len)
		drop = p->len;
	if (drop) {
		memmove(p->mem, p->mem + drop, p->len - drop);
		p->len -= drop;
		p->base += drop;
	}
	want = p->len + need;
	if (want < PD_STREAM_CAP)
		want = PD_STREAM_CAP;
	if (want > p->cap || (p->cap > 2 * PD_STREAM_CAP && want <= PD_STREAM_CAP)) {
		/* grow for a large payload; shrink back to the usual size after one */
		uint8_t *m = tdp_reallocarray(p->mem, want, 1);

		if (!m)
			return tdp_err_oom(err);
		p->mem = m;
		p->cap = want;
		if (want > p->stats.buffer_peak)
			p->stats.buffer_peak = want;
	}
	p->buf = p->mem;
	return 0;
}

/*
 * Read until `need` bytes from p->pos are buffered, or the stream ends. The
 * buffer grows at most by as much as it holds at each step, so a record that
 * claims a large payload costs memory only as its bytes arrive (a 300-byte
 * stream claiming 600 MB is refused at its end, having held 128 KiB).
 */
static int fill(struct perfdata *p, size_t need, struct tdp_err *err)
{
	while (!p->eof) {
		size_t have = (size_t)(p->base + p->len - p->pos), step;
		long n;
		int ret;

		if (have >= need)
			return 0;
		step = need - have;
		if (step > (p->len > PD_STREAM_CAP ? p->len : PD_STREAM_CAP))
			step = p->len > PD_STREAM_CAP ? p->len : PD_STREAM_CAP;
		ret = make_room(p, step, err);
		if (ret)
			return ret;
		n = p->rd(p->rd_ctx, p->mem + p->len, p->cap - p->len);
		if (n == -EINTR)
			continue;
		if (n < 0)
			return read_error(p, err, n);
		if (n == 0)
			p->eof = true;
		else
			p->len += (size_t)n;
	}
	return 0;
}

int pd_stream_need_record(struct perfdata *p, struct tdp_err *err)
{
	const uint8_t *r;
	size_t have;
	uint64_t size, extra = 0;
	uint32_t type;
	int ret;

	if (p->stopped)
		return 0;
	ret = fill(p, PD_EVENT_HEADER_SIZE, err);
	have = (size_t)(p->base + p->len - p->pos);
	if (!ret && have >= PD_EVENT_HEADER_SIZE) {
		r = p->buf + (p->pos - p->base);
		type = pd_u32(r);
		size = pd_u16(r + 6);
		if (size > PD_EVENT_HEADER_SIZE)
			ret = fill(p, (size_t)size, err);
		have = (size_t)(p->base + p->len - p->pos);
		r = p->buf + (p->pos - p->base);
		if (!ret && size >= PD_EVENT_HEADER_SIZE && have >= size) {
			/*
			 * frame() checks these fields again; here they only say how much to read.
			 * Only a record with its whole fixed part (AUXTRACE: 8 + 40 bytes) names a
			 * payload: a shorter one is refused by frame() as the in-memory reader refuses
			 * it, not taken for a cut stream (fuzz-perfdata-stream).
			 */
			if (type == PERFDATA_RECORD_AUXTRACE && size >= PD_EVENT_HEADER_SIZE + 40)
				extra = pd_u64(r + 8);
			else if (type == PERFDATA_RECORD_HEADER_TRACING_DATA && size >= 12)
				extra = pd_u32(r + 8);
			if (extra > PERFDATA_STREAM_MAX_PAYLOAD && (p->flags & PERFDATA_OPEN_PARTIAL)) {
				/* as a record cut short: the data ends here (what follows is counted, not read) */
				p->stats.unfinished_tail = p->pos;
				p->stats.tail_bytes = p->base + p->len - p->pos;
				p->stats.tail_bytes += pd_stream_drain(p);
				p->data_end = p->pos;
				return 0;
			}
			if (extra > PERFDATA_STREAM_MAX_PAYLOAD)
				ret = pd_error(p, err, TDP_ELIMIT,
					       "record at offset 0x%" PRIx64 ": %s payload of %" PRIu64
					       " bytes runs past the limit of %zu bytes for a stream "
					       "(PERFDATA_STREAM_MAX_PAYLOAD)",
					       p->pos, perfdata_record_type_name(type), extra,
					       PERFDATA_STREAM_MAX_PAYLOAD);
			else if (extra)
				ret = fill(p, (size_t)(size + extra), err);
		}
	}
	p->data_end = p->base + p->len;
	return ret;
}

uint64_t pd_stream_drain(struct perfdata *p)
{
	uint8_t scratch[4096];
	uint64_t n = 0;

	/* the unread tail is counted, not kept (the buffer may still hold header records) */
	while (p->rd && !p->eof) {
		long got = p->rd(p->rd_ctx, scratch, sizeof(scratch));

		if (got == -EINTR)
			continue;
		if (got <= 0)
			break;
		n += (uint64_t)got;
	}
	p->eof = true;
	p->stopped = true;
	return n;
}

uint8_t *pd_stream_keep(const uint8_t *data, size_t n)
{
	uint8_t *c = tdp_malloc(n ? n : 1);

	if (c && n)
		memcpy(c, data, n);
	return c;
}

void pd_stream_release(struct perfdata *p)
{
	tdp_free(p->mem);
	tdp_free(p->own_image);
	tdp_free(p->rd_own);
	p->mem = NULL;
	p->own_image = NULL;
	p->rd_own = NULL;
}

/* A file-mode image on a pipe: read it whole (its attrs and features are found by offset). */
static int read_image(struct perfdata *p, struct tdp_err *err)
{
	for (;;) {
		long n;

		if (p->len == p->cap) {
			size_t want = p->cap * 2;
			uint8_t *m;

			if (p->cap >= PERFDATA_STREAM_MAX_IMAGE) {
				pd_error(p, err, TDP_ELIMIT,
					 "a file-mode perf.data on a pipe is read whole, and this one is larger "
					 "than the limit of %zu bytes (PERFDATA_STREAM_MAX_IMAGE)",
					 PERFDATA_STREAM_MAX_IMAGE);
				return tdp_err_hint(err, "save it to a file and read the file (a regular file "
						    "is mapped, not copied), or record with 'perf record -o -' "
						    "(pipe mode, read as it arrives)");
			}
			if (want > PERFDATA_STREAM_MAX_IMAGE)
				want = PERFDATA_STREAM_MAX_IMAGE;
			m = tdp_reallocarray(p->mem, want, 1);
			if (!m)
				return tdp_err_oom(err);
			p->mem = m;
			p->cap = want;
		}
		n = p->rd(p->rd_ctx, p->mem + p->len, p->cap - p->len);
		if (n == -EINTR)
			continue;
		if (n < 0)
			return read_error(p, err, n);
		if (n == 0)
			return 0;
		p->len += (size_t)n;
	}
}

int perfdata_open_stream(struct perfdata **out, perfdata_read_fn *rd, void *ctx, const char *name,
			 unsigned flags, struct tdp_err *err)
{
	struct perfdata *p;
	uint64_t hsize;
	int ret;

	if (!out || !rd)
		return tdp_err_set(err, TDP_EINVAL, "perfdata_open_stream: bad arguments");
	p = tdp_calloc(1, sizeof(*p));
	if (!p)
		return tdp_err_oom(err);
	p->name = tdp_strdup(name ? name : "perf.data");
	p->mem = tdp_malloc(PD_STREAM_CAP);
	if (!p->name || !p->mem) {
		ret = tdp_err_oom(err);
		goto out;
	}
	p->buf = p->mem;
	p->cap = PD_STREAM_CAP;
	p->stats.buffer_peak = PD_STREAM_CAP;
	p->flags = flags;
	p->id_pos = p->is_pos = -1;
	p->rd = rd;
	p->rd_ctx = ctx;
	ret = fill(p, PD_PIPE_HEADER_SIZE, err);
	if (ret)
		goto out;
	hsize = p->len >= 16 ? pd_u64(p->buf + 8) : 0;
	if (p->len < 16 || pd_u64(p->buf) != PD_MAGIC2 || hsize != PD_PIPE_HEADER_SIZE) {
		struct perfdata *q = NULL;

		/* not a pipe stream: a bad header is refused after these 16 bytes ... */
		if (p->len < 16 || pd_u64(p->buf) != PD_MAGIC2 ||
		    (hsize != PD_FILE_HEADER_SIZE && hsize != PD_FILE_HEADER_SIZE_OLD)) {
			ret = perfdata_open(&q, p->buf, p->len, p->name, flags, err);
			if (!ret) { /* cannot happen for such a header; refuse it all the same */
				perfdata_close(q);
				ret = pd_error(p, err, TDP_EFORMAT, "not a perf.data file: bad header at offset 0x0");
			}
			goto out;
		}
		/* ... a file-mode image is read whole and opened as one */
		ret = read_image(p, err);
		if (!ret)
			ret = perfdata_open(&q, p->mem, p->len, p->name, flags, err);
		if (!ret) {
			q->own_image = p->mem;
			q->stats.buffer_peak = p->cap;
			p->mem = NULL;
			*out = q;
		}
		goto out;
	}
	p->pipe = true;
	p->data_off = p->pos = p->prescan_end = PD_PIPE_HEADER_SIZE;
	p->data_end = p->base + p->len;
	ret = pd_prescan_pipe(p, err);
	if (!ret) {
		*out = p;
		return 0;
	}
out:
	perfdata_close(p);
	return ret;
}

static long read_fd(void *ctx, uint8_t *buf, size_t len)
{
	ssize_t n = read(*(int *)ctx, buf, len);

	return n < 0 ? -(long)errno : (long)n;
}

int perfdata_open_fd(struct perfdata **out, int fd, const char *name, unsigned flags, struct tdp_err *err)
{
	int *ctx = tdp_malloc(sizeof(*ctx));
	int ret;

	/* the reader keeps ctx until perfdata_close(): it owns this copy of fd */
	if (!ctx)
		return tdp_err_oom(err);
	*ctx = fd;
	ret = perfdata_open_stream(out, read_fd, ctx, name, flags, err);
	if (ret) {
		tdp_free(ctx);
		return ret;
	}
	if ((*out)->rd)
		(*out)->rd_own = ctx;
	else
		tdp_free(ctx); /* a file-mode image: read whole already */
	return 0;
}

int perfdata_input_open(struct perfdata_input *in, const char *path, struct tdp_err *err)
{
	struct stat st;
	int fd;

	in->fd = -1;
	in->path = path;
	fd = !strcmp(path, "-") ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		in->fd = fd;
		return 0;
	}
	if (fd >= 0)
		close(fd);
	/* a regular file is mapped; tdp_file_open() says what is wrong with anything else */
	return tdp_file_open(&in->file, path, 0, err);
}

int perfdata_input_read(struct perfdata **out, struct perfdata_input *in, unsigned flags, struct tdp_err *err)
{
	if (in->fd >= 0)
		return perfdata_open_fd(out, in->fd, in->path, flags, err);
	return perfdata_open(out, in->file.data, in->file.size, in->path, flags, err);
}

void perfdata_input_close(struct perfdata_input *in)
{
	if (in->fd >= 0)
		close(in->fd);
	in->fd = -1;
	tdp_file_close(&in->file);
}
