/* file.c: input files as byte ranges (see file.h). */
#include "base/file.h"
#include "base/alloc.h"
#include "base/err.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define STREAM_DEFAULT_MAX ((size_t)1 << 30)

static int open_error(struct tdp_err *err, const char *path, int e)
{
	if (e == ENOENT || e == ENOTDIR)
		return tdp_err_set(err, TDP_ENOENT, "cannot open '%s': no such file", path);
	if (e == EACCES || e == EPERM)
		return tdp_err_set(err, TDP_EPERM, "cannot open '%s': permission denied", path);
	return tdp_err_set(err, TDP_EIO, "cannot open '%s': %s", path, strerror(e));
}

int tdp_read_fd(int fd, const char *name, size_t max, char **out, size_t *len, struct tdp_err *err)
{
	size_t alloc = 0, used = 0;
	char *buf = NULL;

	if (!max)
		max = STREAM_DEFAULT_MAX;
	for (;;) {
		ssize_t n;

		if (used + 4096 + 1 > alloc && TDP_GROW(buf, alloc, used + 4096 + 1)) {
			tdp_free(buf);
			return tdp_err_oom(err);
		}
		n = read(fd, buf + used, alloc - used - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			tdp_free(buf);
			return tdp_err_set(err, TDP_EIO, "cannot read '%s': %s", name, strerror(errno));
		}
		if (n == 0)
			break;
		used += (size_t)n;
		if (used > max) {
			tdp_free(buf);
			return tdp_err_set(err, TDP_ELIMIT, "'%s' is larger than the limit of %zu bytes", name, max);
		}
	}
	if (!buf) {
		buf = tdp_malloc(1);
		if (!buf)
			return tdp_err_oom(err);
	}
	buf[used] = '\0';
	*out = buf;
	*len = used;
	return 0;
}

int tdp_file_open(struct tdp_file *f, const char *path, size_t max, struct tdp_err *err)
{
	struct stat st;
	char *name;
	int fd, rc = 0;

	f->data = NULL;
	f->size = 0;
	f->mapped = false;
	f->heap = false;
	f->path = NULL;
	name = tdp_strdup(path);
	if (!name)
		return tdp_err_oom(err);
	if (!strcmp(path, "-"))
		fd = dup(STDIN_FILENO);
	else
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = open_error(err, path, errno);
		goto fail;
	}
	if (fstat(fd, &st) < 0) {
		rc = tdp_err_set(err, TDP_EIO, "cannot stat '%s': %s", path, strerror(errno));
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		rc = tdp_err_set(err, TDP_EFORMAT, "'%s' is a directory, not a file", path);
		goto fail;
	}
	if (S_ISREG(st.st_mode)) {
		void *p;

		if (max && (uint64_t)st.st_size > max) {
			rc = tdp_err_set(err, TDP_ELIMIT, "'%s' is larger than the limit of %zu bytes", path, max);
			goto fail;
		}
		if (st.st_size == 0) {
			f->data = (const uint8_t *)"";
			f->size = 0;
		} else {
			p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
			if (p == MAP_FAILED) {
				rc = tdp_err_set(err, TDP_EIO, "cannot map '%s': %s", path, strerror(errno));
				goto fail;
			}
			madvise(p, (size_t)st.st_size, MADV_SEQUENTIAL);
			f->data = p;
			f->size = (size_t)st.st_size;
			f->mapped = true;
			f->heap = false;
		}
	} else {
		char *buf;
		size_t len;

		rc = tdp_read_fd(fd, path, max, &buf, &len, err);
		if (rc)
			goto fail;
		f->data = (const uint8_t *)buf;
		f->size = len;
		f->mapped = false;
		f->heap = true;
	}
	close(fd);
	f->path = name;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	tdp_free(name);
	return rc;
}

void tdp_file_close(struct tdp_file *f)
{
	if (f->mapped)
		munmap((void *)f->data, f->size);
	else if (f->heap)
		tdp_free((void *)f->data);
	tdp_free(f->path);
	f->data = NULL;
	f->size = 0;
	f->mapped = false;
	f->heap = false;
	f->path = NULL;
}

long tdp_read_small(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	if (!size)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	do
		n = read(fd, buf, size - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n < 0)
		return -1;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	buf[n] = '\0';
	return n;
}

int tdp_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
