/* util.c: path building and small-file reading for src/cpu/ (see cpu-internal.h). */
#include "cpu/cpu-internal.h"
#include "base/err.h"
#include "base/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const struct cpu_env *cpu_env_or_default(const struct cpu_env *env)
{
	static const struct cpu_env live = CPU_ENV_INIT;

	return env ? env : &live;
}

static bool vpath(char *buf, size_t size, const char *root, const char *fmt, va_list ap)
{
	int n, m;

	if (!root)
		return false;
	n = snprintf(buf, size, "%s/", root);
	if (n < 0 || (size_t)n >= size)
		return false;
	m = vsnprintf(buf + n, size - (size_t)n, fmt, ap);
	return m >= 0 && (size_t)m < size - (size_t)n;
}

bool cpu_path(char *buf, size_t size, const char *root, const char *fmt, ...)
{
	va_list ap;
	bool ok;

	va_start(ap, fmt);
	ok = vpath(buf, size, root, fmt, ap);
	va_end(ap);
	return ok;
}

long cpu_read_attr(char *buf, size_t size, const char *root, const char *fmt, ...)
{
	char path[4096];
	va_list ap;
	bool ok;

	if (size)
		buf[0] = '\0';
	va_start(ap, fmt);
	ok = vpath(path, sizeof(path), root, fmt, ap);
	va_end(ap);
	if (!ok)
		return -1;
	return tdp_read_small(path, buf, size);
}

int cpu_read_file(const char *path, size_t max, char **out, size_t *len, struct tdp_err *err)
{
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return tdp_err_set(err, TDP_ENOENT, "cannot open '%s': no such file", path);
		if (errno == EACCES || errno == EPERM)
			return tdp_err_set(err, TDP_EPERM, "cannot open '%s': permission denied", path);
		return tdp_err_set(err, TDP_EIO, "cannot open '%s': %s", path, strerror(errno));
	}
	rc = tdp_read_fd(fd, path, max, out, len, err);
	close(fd);
	return rc;
}

void cpu_printable(const char *buf, size_t len, char *out, size_t max)
{
	size_t n = len < max ? len : max;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)buf[i];

		out[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	out[n] = '\0';
}

void cpu_strlcpy(char *dst, const char *src, size_t size)
{
	size_t n;

	if (!size)
		return;
	n = strnlen(src, size - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}
