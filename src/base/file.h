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

/** Release what tdp_file_open() took; f may be closed twice. */
void tdp_file_close(struct tdp_file *f);

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

#endif
