/*
 * perfdata-write.h: write a perf.data file (file mode) that perf report, perf
 * script and our reader (perfdata.h) read, streaming records as they arrive.
 *
 * Lifecycle:
 *   1. perfdata_writer_open(&w, path, &err): creates path with mode 0600
 *      (tdp_out_recording(): an existing file is renamed to PATH.old, as perf
 *      does, and a link planted by another user is never followed) and writes a
 *      header that marks the file unfinished;
 *   2. perfdata_writer_add_attr() once per event, before the first record;
 *   3. perfdata_writer_add_record() for each record, in the order they should be
 *      read (for a recording: as they come out of the ring buffers); records are
 *      buffered and written in large blocks;
 *   4. the feature setters, at any time before closing;
 *   5. perfdata_writer_close(w, &err): writes the features and then the final
 *      header, and frees w. Or perfdata_writer_free(w) to abandon the file.
 *
 * Unfinished files: the header's data size stays 0, and its feature bitmap
 * empty, until perfdata_writer_close() rewrites the header as its very last
 * write (perf's convention). A writer that is killed, or abandoned with
 * perfdata_writer_free(), therefore leaves a file that perf warns about and that
 * our reader refuses as "the recording was not finished" unless asked to read
 * what it holds (PERFDATA_OPEN_UNFINISHED).
 *
 * Attrs are written with one common size (the format has one per file): the
 * largest given, where zero bytes beyond the first 128 do not count (an attr of
 * 136 bytes whose config3 is 0 is written as 128 bytes, so that perf 6.1, whose
 * attr has 128 bytes, reads it); smaller attrs are padded with zeros. EVENT_DESC is generated from the attrs and their names, and
 * BRANCH_STACK is set when an attr samples branch stacks.
 *
 * Errors: TDP_EIO with "cannot write 'PATH': <strerror>" (a full disk, a closed
 * pipe), TDP_ENOMEM, or TDP_EINVAL for calls out of order or malformed arguments
 * (a bug in the caller). After a TDP_EIO every later call fails with it.
 * Not thread-safe.
 */
#ifndef TDPROF_PERFDATA_PERFDATA_WRITE_H
#define TDPROF_PERFDATA_PERFDATA_WRITE_H

#include <stddef.h>
#include <stdint.h>

struct tdp_err;
struct perfdata_writer;

/**
 * Create path (mode 0600 or tdp_out_mode(); an existing file is renamed to
 * PATH.old; it must be seekable: a regular file) and write the unfinished header.
 *   out: set to the new writer on success; untouched on failure.
 * Returns 0, TDP_EUSAGE (path cannot be created: a directory, no such
 * directory), TDP_EIO (cannot write, with the path and the cause) or
 * TDP_ENOMEM. On failure nothing is left open.
 */
int perfdata_writer_open(struct perfdata_writer **out, const char *path, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Add an event: attr is a struct perf_event_attr of size bytes (the kernel's
 * struct, or perfdata_attr.raw/raw_size from the reader), ids its sample ids
 * (nr_ids of them, may be NULL when 0), name its name as perf spells it
 * ("cycles:ppp"; NULL: a name is derived from type and config). All are copied.
 * Returns 0, TDP_EINVAL (after the first record, size below 64 or above
 * PERFDATA_MAX_ATTR_SIZE, too many attrs) or TDP_ENOMEM.
 */
int perfdata_writer_add_attr(struct perfdata_writer *w, const void *attr, size_t size,
			     const uint64_t *ids, size_t nr_ids, const char *name,
			     struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Append one record: rec[0..len) is a perf_event_header and its body, with
 * len == header.size; for AUXTRACE (and TRACING_DATA) len also covers the
 * payload that follows the record. The bytes are copied (buffered).
 * Returns 0, TDP_EINVAL (len disagrees with the header) or TDP_EIO.
 */
int perfdata_writer_add_record(struct perfdata_writer *w, const void *rec, size_t len,
			       struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Set a string feature: feat is PERFDATA_FEAT_HOSTNAME, OSRELEASE, VERSION, ARCH,
 * CPUDESC or CPUID. s is copied. Returns 0, TDP_EINVAL (another feature) or
 * TDP_ENOMEM.
 */
int perfdata_writer_set_string(struct perfdata_writer *w, unsigned feat, const char *s,
			       struct tdp_err *err) __attribute__((warn_unused_result));

/** NRCPUS: CPUs present (avail) and online. Returns 0 or TDP_ENOMEM. */
int perfdata_writer_set_nrcpus(struct perfdata_writer *w, uint32_t avail, uint32_t online,
			       struct tdp_err *err) __attribute__((warn_unused_result));

/** TOTAL_MEM in kB. Returns 0 or TDP_ENOMEM. */
int perfdata_writer_set_total_mem(struct perfdata_writer *w, uint64_t kb, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * CMDLINE: the recording command, argv[0] first (perf writes its own path there).
 * Strings are copied. Returns 0 or TDP_ENOMEM.
 */
int perfdata_writer_set_cmdline(struct perfdata_writer *w, const char *const *argv, size_t argc,
				struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Add a BUILD_ID entry: pid -1 for the host, misc the binary's cpumode
 * (PERFDATA_MISC_USER or PERFDATA_MISC_KERNEL), id[0..size) with size <= 20.
 * Returns 0, TDP_EINVAL (size > 20) or TDP_ENOMEM.
 */
int perfdata_writer_add_build_id(struct perfdata_writer *w, int32_t pid, uint16_t misc,
				 const uint8_t *id, size_t size, const char *filename,
				 struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Set feature feat to raw bytes (copied), for features without a setter (the
 * reader's perfdata_feature_raw() gives them). EVENT_DESC is refused (it is
 * generated from the attrs), and so is AUXTRACE (it holds file offsets).
 * Returns 0, TDP_EINVAL or TDP_ENOMEM.
 */
int perfdata_writer_set_feature_raw(struct perfdata_writer *w, unsigned feat, const void *data,
				    size_t len, struct tdp_err *err) __attribute__((warn_unused_result));

/** Bytes of records written so far (the data section). */
uint64_t perfdata_writer_data_size(const struct perfdata_writer *w);

/**
 * Finish the file (attrs if no record came, buffered records, features, then
 * the final header), close it and free w (always, also on failure).
 * Returns 0, TDP_EIO (the file is then unfinished or partial) or TDP_ENOMEM.
 */
int perfdata_writer_close(struct perfdata_writer *w, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Abandon the file: write out the buffered records (best effort), leave the
 * header unfinished (see above) and free w. w may be NULL.
 */
void perfdata_writer_free(struct perfdata_writer *w);

#endif
