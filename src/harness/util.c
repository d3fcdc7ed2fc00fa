/*
 * util.c: bounded text helpers shared by the harness files. The harness is a
 * library of its own (libtdprof-harness, linked into users' benchmarks), so it
 * keeps these few lines rather than depend on the tool's src/base.
 */
#include "harness-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void harness_appendf(char *buf, size_t size, const char *fmt, ...)
{
	size_t len;
	va_list ap;

	if (!size)
		return;
	len = strnlen(buf, size);
	if (len >= size - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

long harness_read_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	if (size == 0)
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
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return (long)n;
}
