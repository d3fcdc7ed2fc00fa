/*
 * file.h: read-only access to an input file as one byte range, without copying
 * it when it can be mapped.
 *
 * Regular files are mmap()ed (the kernel pages them in as a streaming reader
 * touches them, so a parser sees all of the file without reading it into memory).
 * Pipes, FIFOs and /dev/stdin ("-") are read into a heap buffer up to `max` bytes.
 *
 * Lifecycle:
 *   1. struct tdp_file f = TDP_FILE_INIT;
 *   2. tdp_file_open(&f, path, max, &err);   f.data / f.size are the contents
 *   3. tdp_file_close(&f);
 */
#ifndef TDPROF_BASE_FILE_H
#define TDPROF_BASE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tdp_err;

struct tdp_file {
	const uint8_t *data; /* the contents; never NULL after a successful open */
	size_t size;
	bool mapped;         /* data is an mmap of the file: munmap on close */
	bool heap;           /* data is a heap copy (a stream): free on close */
	char *path;          /* copy of the path, for messages */
};

#define TDP_FILE_INIT { NULL, 0, false, false, NULL }

/**
 * Open `path` ("-" for standard input) for reading as one range of at most `max`
 * bytes (0: no limit for mapped files, 1 GiB for streams).
 * Returns 0; TDP_ENOENT (missing), TDP_EPERM (no permission), TDP_ELIMIT (larger
 * than max), TDP_EIO or TDP_ENOMEM, with a message naming the file. On failure f is
 * left as after TDP_FILE_INIT. Blocks while reading a stream.
 */
int tdp_file_open(struct tdp_file *f, const char *path, size_t max, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Checks a stream as it is read: buf[0..len) is all of it so far, eof true on the
 * last call. Returns 0 to go on reading, or an error (in err) that stops it.
 */
typedef int tdp_file_check_fn(void *ctx, const uint8_t *buf, size_t len, bool eof, struct tdp_err *err);

/**
 * tdp_file_open(), where a stream (pipe, FIFO, device) is given to check after
 * every read, so that input that is not what the caller reads (/dev/zero for a
 * perf.data) is refused after the bytes that show it, not after `max` bytes.
 * Mapped files are not checked (the caller's parser sees them whole). Returns as
 * tdp_file_open(), or check's error.
 */
int tdp_file_open_checked(struct tdp_file *f, const char *path, size_t max, tdp_file_check_fn *check, void *ctx,
			  struct tdp_err *err) __attribute__((warn_unused_result));

/** Release what tdp_file_open() took; f may be closed twice. */
void tdp_file_close(struct tdp_file *f);

/**
 * Guard the mapped inputs against another program truncating them while they are
 * read (a recorder that rewrites the file in place): a SIGBUS on a page of a file
 * tdp_file_open() mapped then prints "tdprof: error: 'PATH' shrank while it was
 * read ..." to stderr and exits 2 (bad input), instead of the process dying of the
 * signal with no word. Other SIGBUS keep their default action. Called once, by
 * main(); the message is the only output below cli/, as no caller can handle it.
 */
void tdp_file_guard_install(void);

/**
 * Read all of fd into a heap buffer (NUL-terminated, the NUL not counted), at most
 * max bytes. On success *out is the caller's (tdp_free) and *len its length.
 * Returns 0, TDP_ELIMIT, TDP_EIO or TDP_ENOMEM (name is used in messages).
 */
int tdp_read_fd(int fd, const char *name, size_t max, char **out, size_t *len, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Read a small text file (sysfs, procfs) into buf (NUL-terminated, trailing
 * newline removed). Returns the length, or -1 when it cannot be read.
 */
long tdp_read_small(const char *path, char *buf, size_t size);

/** Write all of len bytes to fd, retrying short writes. Returns 0 or -errno. */
int tdp_write_all(int fd, const void *data, size_t len);

/*
 * Output files: reports (-o, --json, --html) and recordings. Created with mode
 * 0600 (tdp_out_set_mode() changes it: --mode), and never written through a
 * symbolic link that someone else planted.
 *
 * A report goes to a temporary file in the same directory (".NAME.tdprof-XXXXXX",
 * created O_EXCL) that tdp_out_commit() renames over path: a reader that has the
 * old file open or mapped keeps its inode, a reader never sees half a report, and
 * a link at path is replaced, not followed. A recording follows perf's
 * convention instead (tdp_out_recording()): an existing path is renamed to
 * PATH.old and path is created afresh with O_EXCL | O_NOFOLLOW, so that a killed
 * recorder still leaves its unfinished file at path.
 *
 * A file of the caller's in a directory it cannot write is rewritten in place
 * (O_NOFOLLOW | O_TRUNC), as no temporary can be made next to it.
 *
 * Links: a link owned by the caller or by root (/dev/stdout) is followed and its
 * target written in place; a link owned by another user is never followed (it is
 * replaced, or renamed to .old). Devices and FIFOs (/dev/null, a pipe) are written
 * in place, opened with O_NOFOLLOW and without O_CREAT. A directory is refused.
 *
 * Lifecycle:
 *   1. struct tdp_out o = TDP_OUT_INIT;
 *   2. tdp_out_open(&o, path, &err);     write to o.fd
 *   3. tdp_out_commit(&o, &err);  or  tdp_out_abandon(&o) (removes the temporary)
 */
struct tdp_out {
	int fd;     /* write here; -1 when closed */
	char *path; /* the path asked for */
	char *tmp;  /* the temporary renamed over path at commit; NULL: written in place */
};

#define TDP_OUT_INIT { -1, NULL, NULL }

/** The mode new outputs are created with (default 0600; bits above 07777 ignored). */
void tdp_out_set_mode(unsigned mode);
unsigned tdp_out_mode(void);

/**
 * Open a report output at path (see above). Returns 0; TDP_EUSAGE (path is a
 * directory, its directory does not exist or cannot be written: a bad -o) or
 * TDP_ENOMEM, with a message naming path. On failure o is as after TDP_OUT_INIT.
 */
int tdp_out_open(struct tdp_out *o, const char *path, struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Finish o: close it and rename the temporary over path. Returns 0, or TDP_EIO
 * naming path (the temporary is removed). o is closed either way.
 */
int tdp_out_commit(struct tdp_out *o, struct tdp_err *err) __attribute__((warn_unused_result));

/** Close o without publishing it (the temporary is removed); o may be closed twice. */
void tdp_out_abandon(struct tdp_out *o);

/**
 * Create the file of a recording at path, perf's way (see above), for writing.
 * On success *fd is the new descriptor (the caller closes it).
 * Returns 0, TDP_EUSAGE (a directory, a missing directory, no permission) or
 * TDP_EIO (the rename to .old failed), with a message naming the path.
 */
int tdp_out_recording(const char *path, int *fd, struct tdp_err *err) __attribute__((warn_unused_result));

#endif
