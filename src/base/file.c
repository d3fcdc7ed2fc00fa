/* file.c: input files as byte ranges (see file.h). */
#include "base/file.h"
#include "base/alloc.h"
#include "base/err.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define STREAM_DEFAULT_MAX ((size_t)1 << 30)

/*
 * The mappings tdp_file_open() made, for the SIGBUS guard: a handler may read
 * them at any time, so a slot is filled before its `addr` is published and
 * emptied by clearing `addr` first.
 */
#define GUARD_SLOTS 8
static struct {
	const char *volatile path;
	volatile size_t len;
	const void *volatile addr;
} guarded[GUARD_SLOTS];

static void guard_add(const void *addr, size_t len, const char *path)
{
	for (size_t i = 0; i < GUARD_SLOTS; i++) {
		if (guarded[i].addr)
			continue;
		guarded[i].path = path;
		guarded[i].len = len;
		__atomic_store_n(&guarded[i].addr, addr, __ATOMIC_RELEASE);
		return;
	}
}

static void guard_remove(const void *addr)
{
	for (size_t i = 0; i < GUARD_SLOTS; i++)
		if (guarded[i].addr == addr)
			__atomic_store_n(&guarded[i].addr, NULL, __ATOMIC_RELEASE);
}

static void put_err(const char *s)
{
	if (write(STDERR_FILENO, s, strlen(s)) < 0)
		return; /* nothing else can be done in a signal handler */
}

static void on_sigbus(int sig, siginfo_t *si, void *uctx)
{
	const char *a = si->si_addr;

	(void)uctx;
	for (size_t i = 0; i < GUARD_SLOTS; i++) {
		const char *base = __atomic_load_n(&guarded[i].addr, __ATOMIC_ACQUIRE);

		if (base && a >= base && a < base + guarded[i].len) {
			put_err("tdprof: error: '");
			put_err(guarded[i].path);
			put_err("' shrank while it was read: another program truncated or rewrote it in place\n"
				"tdprof: hint: read it again once it is complete (tdprof branches record and perf "
				"record move an old file to FILE.old instead)\n");
			_exit(2);
		}
	}
	/* not ours: the default action, when the faulting access runs again */
	signal(sig, SIG_DFL);
}

void tdp_file_guard_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

static int open_error(struct tdp_err *err, const char *path, int e)
{
	if (e == ENOENT || e == ENOTDIR)
		return tdp_err_set(err, TDP_ENOENT, "cannot open '%s': no such file", path);
	if (e == EACCES || e == EPERM)
		return tdp_err_set(err, TDP_EPERM, "cannot open '%s': permission denied", path);
	return tdp_err_set(err, TDP_EIO, "cannot open '%s': %s", path, strerror(e));
}

static int read_stream(int fd, const char *name, size_t max, tdp_file_check_fn *check, void *ctx, char **out,
		       size_t *len, struct tdp_err *err);

int tdp_read_fd(int fd, const char *name, size_t max, char **out, size_t *len, struct tdp_err *err)
{
	return read_stream(fd, name, max, NULL, NULL, out, len, err);
}

static int read_stream(int fd, const char *name, size_t max, tdp_file_check_fn *check, void *ctx, char **out,
		       size_t *len, struct tdp_err *err)
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
			int rc = tdp_err_set(err, TDP_ELIMIT, "'%s' is larger than the limit of %zu bytes", name, max);

			tdp_free(buf);
			tdp_err_hint(err, "save it to a file and read the file (a regular file is mapped, not copied)");
			return rc;
		}
		if (check) {
			int rc = check(ctx, (const uint8_t *)buf, used, false, err);

			if (rc) {
				tdp_free(buf);
				return rc;
			}
		}
	}
	if (check) {
		int rc = check(ctx, (const uint8_t *)(buf ? buf : ""), used, true, err);

		if (rc) {
			tdp_free(buf);
			return rc;
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
	return tdp_file_open_checked(f, path, max, NULL, NULL, err);
}

int tdp_file_open_checked(struct tdp_file *f, const char *path, size_t max, tdp_file_check_fn *check, void *ctx,
			  struct tdp_err *err)
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

		rc = read_stream(fd, !strcmp(path, "-") ? "standard input" : path, max, check, ctx, &buf, &len, err);
		if (rc)
			goto fail;
		f->data = (const uint8_t *)buf;
		f->size = len;
		f->mapped = false;
		f->heap = true;
	}
	close(fd);
	f->path = name;
	if (f->mapped)
		guard_add(f->data, f->size, f->path);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	tdp_free(name);
	return rc;
}

void tdp_file_close(struct tdp_file *f)
{
	if (f->mapped) {
		guard_remove(f->data);
		munmap((void *)f->data, f->size);
	}
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

/* ---------------------------------------------------------------- output files */

static unsigned out_mode = 0600;

void tdp_out_set_mode(unsigned mode)
{
	out_mode = mode & 07777;
}

unsigned tdp_out_mode(void)
{
	return out_mode;
}

/* A link the caller may follow: its own, or root's (/dev/stdout). */
static bool trusted_link(const struct stat *st)
{
	return st->st_uid == geteuid() || st->st_uid == 0;
}

static int create_error(struct tdp_err *err, const char *path, int e)
{
	if (e == ENOMEM)
		return tdp_err_oom(err);
	if (e == EISDIR)
		return tdp_err_set(err, TDP_EUSAGE, "cannot open '%s' for writing: it is a directory", path);
	return tdp_err_set(err, TDP_EUSAGE, "cannot open '%s' for writing: %s", path, strerror(e));
}

/* Open an existing device, FIFO or trusted link's target in place. */
static int open_in_place(const char *path, bool follow, bool trunc, struct tdp_err *err, int *fdp)
{
	struct stat st;
	int fd = open(path, O_WRONLY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW) | (trunc ? O_TRUNC : 0));

	if (fd < 0)
		return create_error(err, path, errno);
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return create_error(err, path, EISDIR);
	}
	/* a file of ours reached through our link is an output like any other: private */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & 07777) != out_mode)
		(void)fchmod(fd, out_mode);
	*fdp = fd;
	return 0;
}

/* ".NAME.tdprof-XXXXXX" next to path. */
static char *temp_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dir = slash ? (size_t)(slash - path) + 1 : 0, n = strlen(path) + sizeof(".tdprof-XXXXXX") + 1;
	char *t = tdp_malloc(n);

	if (t)
		snprintf(t, n, "%.*s.%s.tdprof-XXXXXX", (int)dir, path, path + dir);
	return t;
}

int tdp_out_open(struct tdp_out *o, const char *path, struct tdp_err *err)
{
	struct stat st;
	bool in_place = false, follow = false;
	int rc = 0;

	o->fd = -1;
	o->tmp = NULL;
	o->path = tdp_strdup(path);
	if (!o->path)
		return tdp_err_oom(err);
	if (lstat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			rc = create_error(err, path, EISDIR);
			goto out;
		}
		if (S_ISLNK(st.st_mode) && trusted_link(&st)) {
			struct stat t;

			/* a link to a directory is refused; one to nothing yet is created through */
			in_place = follow = stat(path, &t) == 0;
			if (in_place && S_ISDIR(t.st_mode)) {
				rc = create_error(err, path, EISDIR);
				goto out;
			}
		} else if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
			in_place = true; /* /dev/null, a FIFO */
		}
	}
	if (in_place) {
		rc = open_in_place(path, follow, true, err, &o->fd);
		goto out;
	}
	o->tmp = temp_name(path);
	if (!o->tmp) {
		rc = tdp_err_oom(err);
		goto out;
	}
	o->fd = mkostemp(o->tmp, O_CLOEXEC); /* O_EXCL, mode 0600 */
	if (o->fd < 0 && (errno == EACCES || errno == EPERM || errno == EROFS) && lstat(path, &st) == 0 &&
	    S_ISREG(st.st_mode) && st.st_uid == geteuid()) {
		/* a file of ours in a directory we cannot write: rewritten in place, never through a link */
		tdp_free(o->tmp);
		o->tmp = NULL;
		rc = open_in_place(path, false, true, err, &o->fd);
		goto out;
	}
	if (o->fd < 0) {
		rc = create_error(err, path, errno);
		goto out;
	}
	if (out_mode != 0600 && fchmod(o->fd, out_mode) < 0) {
		rc = tdp_err_set(err, TDP_EUSAGE, "cannot set mode %04o on '%s': %s", out_mode, path, strerror(errno));
		goto out;
	}
out:
	if (rc)
		tdp_out_abandon(o);
	return rc;
}

int tdp_out_commit(struct tdp_out *o, struct tdp_err *err)
{
	int rc = 0;

	if (o->fd >= 0 && close(o->fd) < 0)
		rc = tdp_err_set(err, TDP_EIO, "cannot write '%s': %s", o->path, strerror(errno));
	o->fd = -1;
	if (!rc && o->tmp && rename(o->tmp, o->path) < 0)
		rc = tdp_err_set(err, TDP_EIO, "cannot write '%s': renaming '%s' over it: %s", o->path, o->tmp,
				 strerror(errno));
	if (!rc) {
		tdp_free(o->tmp);
		o->tmp = NULL;
	}
	tdp_out_abandon(o);
	return rc;
}

void tdp_out_abandon(struct tdp_out *o)
{
	if (o->fd >= 0)
		close(o->fd);
	if (o->tmp)
		unlink(o->tmp);
	tdp_free(o->tmp);
	tdp_free(o->path);
	o->fd = -1;
	o->tmp = NULL;
	o->path = NULL;
}

int tdp_out_recording(const char *path, int *fdp, struct tdp_err *err)
{
	struct stat st;
	int fd;

	if (lstat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return create_error(err, path, EISDIR);
		if (S_ISLNK(st.st_mode) && trusted_link(&st)) {
			struct stat t;

			if (stat(path, &t) == 0 && S_ISDIR(t.st_mode))
				return create_error(err, path, EISDIR);
			return open_in_place(path, true, true, err, fdp);
		}
		if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
			return open_in_place(path, false, false, err, fdp);
		if (S_ISREG(st.st_mode) && st.st_size == 0) {
			if (unlink(path) < 0 && errno != ENOENT)
				return create_error(err, path, errno);
		} else {
			/* perf's convention: the previous recording (or a planted link) becomes PATH.old */
			size_t n = strlen(path) + sizeof(".old");
			char *old = tdp_malloc(n);
			int e;

			if (!old)
				return tdp_err_oom(err);
			snprintf(old, n, "%s.old", path);
			e = rename(path, old) < 0 ? errno : 0;
			if (e) {
				int code = tdp_err_set(err, e == EACCES || e == EPERM ? TDP_EUSAGE : TDP_EIO,
						       "cannot move the existing '%s' to '%s': %s", path, old,
						       strerror(e));

				tdp_free(old);
				return code;
			}
			tdp_free(old);
		}
	}
	/* O_EXCL | O_NOFOLLOW: a link planted since the lstat() is refused, never followed */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return create_error(err, path, errno);
	if (out_mode != 0600 && fchmod(fd, out_mode) < 0) {
		int e = errno;

		close(fd);
		return tdp_err_set(err, TDP_EUSAGE, "cannot set mode %04o on '%s': %s", out_mode, path, strerror(e));
	}
	*fdp = fd;
	return 0;
}
