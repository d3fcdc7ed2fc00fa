/*
 * perfdata.h: a streaming reader of perf.data files (file mode and pipe mode).
 * The format's constants are in format.h and the branch record the reader
 * decodes into in branch-entry.h; both are included here.
 *
 * The reader walks a perf.data image that the caller holds in memory (normally a
 * read-only mmap from base/file.h): it never copies the file, and it decodes one
 * record at a time. Branch-stack entries, callchains and branch counters of a
 * sample are decoded into buffers owned by the reader and reused for the next
 * sample, so iterating allocates nothing per record.
 *
 * Format: tools/perf/Documentation/perf.data-file-format.txt, the uapi header
 * include/uapi/linux/perf_event.h, tools/perf/util/header.c and
 * tools/perf/util/evsel.c (evsel__parse_sample); summary in
 * ../shared/reference/formats.md §3.1-3.2. Files written by any perf since 3.4
 * (attr sizes 64..136 and larger future sizes), in the machine's byte order.
 * Files of the other byte order, the v1 "PERFFILE" format and compressed records
 * (perf record -z) are refused with a message and a hint.
 *
 * Lifecycle:
 *   1. map the file: tdp_file_open(&f, path, 0, &err);
 *   2. perfdata_open(&p, f.data, f.size, path, 0, &err): checks the header, reads
 *      the attrs (with their ids) and the feature sections (file mode), or the
 *      leading HEADER_ATTR/HEADER_FEATURE records (pipe mode);
 *   3. perfdata_attr(), perfdata_features() and the other accessors;
 *   4. while ((ret = perfdata_next(p, &rec, &err)) > 0) use rec; ret 0 is the end
 *      of the data, a negative ret an error;
 *   5. perfdata_close(p); then tdp_file_close(&f).
 * The image must stay mapped and unchanged until perfdata_close(): records point
 * into it. perfdata_close() frees the reader; it never touches the image.
 *
 * Hostile input: every offset and count is checked against the image and against
 * the named limits below before it is used; nothing is allocated from an unchecked
 * field. A malformed file gives TDP_EFORMAT (or TDP_ELIMIT for a named limit) with
 * a message naming the file and the byte offset, e.g.
 * "'perf.data': record at offset 0x1a40: size 4 is smaller than its header (8)".
 *
 * Unfinished recordings: perf (and our writer, perfdata-write.h) leave the data
 * size in the header at 0 until the recording ends. perfdata_open() refuses such a
 * file with "the recording was not finished" unless PERFDATA_OPEN_UNFINISHED is
 * given; with it, the data runs to the end of the file and iteration ends,
 * without an error, at the first record that is cut short or whose header is
 * impossible (a writer killed mid-record), recording that offset in
 * perfdata_stats()->unfinished_tail.
 *
 * Streams (perfdata_open_stream(), perfdata_open_fd(), perfdata_input_open()):
 * a pipe-mode stream (perf record -o -) is decoded as it arrives, from a buffer
 * that holds the record being decoded (at most 64 KiB, plus an AUXTRACE or
 * TRACING_DATA payload) and, while perfdata_open() applies them, the leading
 * HEADER_ATTR/HEADER_FEATURE records: memory is bounded by the largest record,
 * whatever the length of the stream (perfdata_stats()->buffer_peak says how
 * much). A record's pointers are then valid until the next perfdata_next() call
 * only, as in the contract below; attrs and features are copied. A file-mode
 * image on a pipe (cat perf.data |) needs its end to be read first: it is read
 * whole, up to PERFDATA_STREAM_MAX_IMAGE. Both are refused after the first 16
 * bytes when the magic or the header size is wrong.
 *
 * Pipe streams have no header to say where they end: a record that is cut short
 * or impossible is an error naming its offset, like a damaged file, unless
 * PERFDATA_OPEN_PARTIAL is given; with it, iteration ends there without an
 * error and perfdata_stats() says where (unfinished_tail) and how many bytes
 * were not read (tail_bytes), so that the caller can say what was lost.
 *
 * Not thread-safe: one reader per thread (several readers may share one image).
 */
#ifndef TDPROF_PERFDATA_PERFDATA_H
#define TDPROF_PERFDATA_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/file.h"
#include "perfdata/branch-entry.h"
#include "perfdata/format.h"

struct tdp_err;

/* ---------------------------------------------------------------------------
 * Named limits. Input beyond them is refused with TDP_ELIMIT.
 * ------------------------------------------------------------------------- */

/** Largest perf_event_attr accepted (the kernel's is 136 bytes in 6.3; leave room). */
#define PERFDATA_MAX_ATTR_SIZE 4096
/** Most attrs (events) in one file. */
#define PERFDATA_MAX_ATTRS 4096
/** Most sample ids over all attrs (one per event per CPU or thread). */
#define PERFDATA_MAX_IDS (1u << 22)
/** Largest record: header.size is a u16. */
#define PERFDATA_MAX_RECORD 65535
/** Most entries in one branch stack (perf's PERF_ITRACE_MAX_LAST_BRANCH_SZ). */
#define BRSTACK_MAX_NR 1024
/** Most entries in one callchain (a record of PERFDATA_MAX_RECORD bytes holds fewer). */
#define PERFDATA_MAX_CALLCHAIN 8192
/** Longest string in a feature section (hostname, cpudesc, one cmdline word, ...). */
#define PERFDATA_MAX_STRING 65536
/** Most entries in a counted feature list (cmdline words, build-ids, PMU mappings, events). */
#define PERFDATA_MAX_LIST (1u << 20)
/** Streams: the largest AUXTRACE or TRACING_DATA payload of one record (a larger claim is refused
 * before it is read; with PERFDATA_OPEN_PARTIAL the data ends at that record). */
#define PERFDATA_STREAM_MAX_PAYLOAD ((size_t)1 << 30)
/** Streams: most bytes of leading header records applied by perfdata_open (later ones
 * are applied as perfdata_next() meets them). */
#define PERFDATA_STREAM_MAX_HEADER ((size_t)64 << 20)
/** Streams: the largest file-mode image read from a pipe (it is read whole). */
#define PERFDATA_STREAM_MAX_IMAGE ((size_t)1 << 30)

/* ---------------------------------------------------------------------------
 * Attrs, features and records
 * ------------------------------------------------------------------------- */

/**
 * One event as recorded: its perf_event_attr fields (decoded by offset, so any
 * attr size works; fields beyond the recorded size are 0), its sample ids and its
 * name. Owned by the reader; valid until perfdata_close().
 */
struct perfdata_attr {
	size_t index;              /* position in the file's attr list */
	uint32_t type;             /* PERF_TYPE_* (4 = cpu on x86; see pmu_mappings) */
	uint32_t size;             /* attr.size as recorded (0 in the file reads as 64) */
	uint64_t config;
	uint64_t sample_period;    /* or sample_freq when flags & PERFDATA_ATTR_FLAG_FREQ */
	uint64_t sample_type;      /* PERFDATA_SAMPLE_* */
	uint64_t read_format;      /* PERFDATA_FORMAT_* */
	uint64_t flags;            /* the bit-field word at offset 40 (disabled, inherit, ...) */
	uint32_t wakeup_events;
	uint32_t bp_type;
	uint64_t config1;
	uint64_t config2;
	uint64_t branch_sample_type; /* PERFDATA_BRANCH_* */
	uint64_t sample_regs_user;
	uint32_t sample_stack_user;
	int32_t clockid;
	uint64_t sample_regs_intr;
	uint32_t aux_watermark;
	uint16_t sample_max_stack;
	uint32_t aux_sample_size;
	uint64_t sig_data;
	uint64_t config3;
	const uint8_t *raw;        /* the attr's bytes in the image (raw_size bytes) */
	size_t raw_size;           /* bytes of raw: min(attr.size, room in the entry) */
	const uint64_t *ids;       /* its sample ids (reader-owned copy), nr_ids of them */
	size_t nr_ids;
	const char *name;          /* from EVENT_DESC or EVENT_UPDATE; NULL when unnamed */
};

/** True when samples of a carry a branch stack. */
static inline bool perfdata_attr_has_branch_stack(const struct perfdata_attr *a)
{
	return (a->sample_type & PERFDATA_SAMPLE_BRANCH_STACK) != 0;
}

/** One entry of the BUILD_ID feature (or a HEADER_BUILD_ID record). */
struct perfdata_build_id {
	int32_t pid;           /* -1: the host */
	uint16_t misc;         /* cpumode (PERFDATA_MISC_*) of the binary */
	uint8_t size;          /* bytes of id used (20 for SHA-1, 16 for MD5) */
	uint8_t id[20];
	const char *filename;  /* reader-owned */
};

/** One entry of PMU_MAPPINGS: attr.type -> PMU name. */
struct perfdata_pmu_mapping {
	uint32_t type;
	const char *name;      /* reader-owned */
};

/**
 * The feature sections the analysis uses. A string is NULL and a number 0 when
 * its feature is absent. All memory is the reader's.
 */
struct perfdata_features {
	uint64_t present[PERFDATA_FEAT_BITS / 64]; /* bit i: feature i was in the file */
	const char *hostname;
	const char *osrelease;
	const char *version;      /* perf's version */
	const char *arch;         /* uname -m of the recording machine */
	const char *cpudesc;      /* "Intel(R) Core(TM) m7-6Y75 CPU @ 1.20GHz" */
	const char *cpuid;        /* "GenuineIntel,6,78,3", "AuthenticAMD,25,17,0", arm64 MIDR */
	uint32_t nr_cpus_avail;
	uint32_t nr_cpus_online;
	uint64_t total_mem_kb;
	const char *const *cmdline; /* argv of the recording command (perf's path first) */
	size_t nr_cmdline;
	const struct perfdata_build_id *build_ids;
	size_t nr_build_ids;
	const struct perfdata_pmu_mapping *pmu_mappings;
	size_t nr_pmu_mappings;
	bool branch_stack;        /* the BRANCH_STACK flag feature */
};

/** True when feature feat was present. */
static inline bool perfdata_has_feature(const struct perfdata_features *f, unsigned feat)
{
	return feat < PERFDATA_FEAT_BITS && (f->present[feat / 64] >> (feat % 64)) & 1;
}

/** A string inside the image (not NUL-terminated; print with "%.*s"). */
struct perfdata_str {
	const char *s;
	size_t len;
};

/**
 * The sample_id trailer of a non-sample record (attr.sample_id_all), or the same
 * fields of a sample. `fields` holds the PERFDATA_SAMPLE_* bits that are valid.
 */
struct perfdata_sample_id {
	uint64_t fields;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu;
};

/**
 * A decoded PERF_RECORD_SAMPLE. `fields` is its attr's sample_type: only the
 * members of the bits set there are meaningful. Pointers point into the image or
 * into buffers the reader reuses for the next sample: copy what must outlive the
 * next perfdata_next() call.
 */
struct perfdata_sample {
	uint64_t fields;
	uint64_t id;                 /* IDENTIFIER or ID */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	const uint8_t *read;         /* READ: the raw values (layout from attr.read_format) */
	size_t read_len;
	const uint64_t *callchain;   /* CALLCHAIN: nr_callchain ips (PERF_CONTEXT_* markers kept) */
	size_t nr_callchain;
	const uint8_t *raw;          /* RAW: raw_size bytes */
	uint32_t raw_size;
	const struct branch_entry *branches; /* BRANCH_STACK: nr_branches entries, newest first;
	                                      * NULL with PERFDATA_OPEN_RAW_BRANCHES */
	const uint8_t *branch_raw;   /* BRANCH_STACK: the same as nr_branches struct perf_branch_entry
	                                {u64 from, to, flags} in the record (24 bytes each, bounds checked) */
	size_t nr_branches;
	bool has_hw_idx;             /* branch_sample_type had HW_INDEX */
	uint64_t hw_idx;             /* the raw LBR top-of-stack index (-1: unknown) */
	const uint64_t *branch_counters; /* BRANCH_COUNTERS: nr_branches values, or NULL */
	uint64_t regs_user_abi;      /* REGS_USER: 0 = none */
	const uint8_t *regs_user;    /* 8 * nr_regs_user bytes */
	size_t nr_regs_user;
	const uint8_t *stack_user;   /* STACK_USER: stack_user_size bytes */
	uint64_t stack_user_size;
	uint64_t stack_user_dyn_size;
	uint64_t weight;             /* WEIGHT (or the whole WEIGHT_STRUCT word) */
	uint32_t weight_var1;        /* WEIGHT_STRUCT parts */
	uint16_t weight_var2, weight_var3;
	uint64_t data_src;
	uint64_t transaction;
	uint64_t regs_intr_abi;
	const uint8_t *regs_intr;
	size_t nr_regs_intr;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
	const uint8_t *aux;          /* AUX: aux_size bytes */
	uint64_t aux_size;
};

/** MMAP and MMAP2. */
struct perfdata_mmap {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	/* MMAP2 only: */
	bool has_build_id;           /* misc & PERFDATA_MISC_MMAP_BUILD_ID */
	uint8_t build_id_size;
	uint8_t build_id[20];
	uint32_t maj, min;           /* when !has_build_id */
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	struct perfdata_str filename;
};

/** COMM. */
struct perfdata_comm {
	uint32_t pid, tid;
	struct perfdata_str comm;
};

/** FORK and EXIT. */
struct perfdata_fork {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

/** LOST (id, lost) and LOST_SAMPLES (lost). */
struct perfdata_lost {
	uint64_t id;
	uint64_t lost;
};

/** THROTTLE and UNTHROTTLE. */
struct perfdata_throttle {
	uint64_t time, id, stream_id;
};

/** AUX. */
struct perfdata_aux {
	uint64_t aux_offset, aux_size, flags;
};

/** AUXTRACE: the trace bytes follow the record in the image (not in header.size). */
struct perfdata_auxtrace {
	uint64_t size, offset, reference;
	uint32_t idx, tid, cpu;
	const uint8_t *data;         /* size bytes */
};

/** SWITCH and SWITCH_CPU_WIDE (next_prev_* for the latter only). */
struct perfdata_switch {
	bool out;                    /* misc & PERFDATA_MISC_SWITCH_OUT */
	uint32_t next_prev_pid, next_prev_tid;
};

/** ITRACE_START. */
struct perfdata_itrace_start {
	uint32_t pid, tid;
};

/** KSYMBOL. */
struct perfdata_ksymbol {
	uint64_t addr;
	uint32_t len;
	uint16_t ksym_type, flags;
	struct perfdata_str name;
};

/** HEADER_BUILD_ID record. */
struct perfdata_build_id_record {
	int32_t pid;
	uint8_t size;
	uint8_t id[20];
	struct perfdata_str filename;
};

/** ID_INDEX: nr entries of {id, idx, cpu, tid} u64s at entries (in the image). */
struct perfdata_id_index {
	uint64_t nr;
	const uint8_t *entries;
};

/**
 * One record. Which union member is valid depends on type:
 *   SAMPLE: sample (when attr != NULL; a sample whose id matches no attr is
 *     yielded undecoded, with attr NULL, and counted in stats.unknown_id);
 *   MMAP, MMAP2: mmap;  COMM: comm;  FORK, EXIT: fork;  LOST, LOST_SAMPLES: lost;
 *   THROTTLE, UNTHROTTLE: throttle;  AUX: aux;  AUXTRACE: auxtrace;
 *   SWITCH, SWITCH_CPU_WIDE: sw;  ITRACE_START: itrace_start;  KSYMBOL: ksymbol;
 *   HEADER_BUILD_ID: build_id;  ID_INDEX: id_index;  HEADER_FEATURE: feature;
 *   anything else: none (use raw).
 */
struct perfdata_record {
	uint32_t type;               /* PERFDATA_RECORD_* (unknown types are yielded too) */
	uint16_t misc;
	uint16_t size;               /* header.size */
	uint64_t offset;             /* byte offset of the record in the image */
	const uint8_t *raw;          /* the record in the image, header included */
	size_t raw_len;              /* bytes it occupies: size, plus the AUXTRACE or
	                                TRACING_DATA payload that follows it */
	const struct perfdata_attr *attr; /* the event it belongs to, or NULL */
	struct perfdata_sample_id sid;    /* trailer of a non-sample record (sid.fields 0 if none) */
	union {
		struct perfdata_sample sample;
		struct perfdata_mmap mmap;
		struct perfdata_comm comm;
		struct perfdata_fork fork;
		struct perfdata_lost lost;
		struct perfdata_throttle throttle;
		struct perfdata_aux aux;
		struct perfdata_auxtrace auxtrace;
		struct perfdata_switch sw;
		struct perfdata_itrace_start itrace_start;
		struct perfdata_ksymbol ksymbol;
		struct perfdata_build_id_record build_id;
		struct perfdata_id_index id_index;
		uint64_t feature;          /* HEADER_FEATURE: its feature id */
	} u;
};

/** Counts kept while iterating (perfdata_stats()). */
struct perfdata_stats {
	uint64_t records;            /* records yielded */
	uint64_t samples;            /* SAMPLE records yielded */
	uint64_t unknown_id;         /* samples (and trailers) whose id matched no attr */
	uint64_t unknown_type;       /* records of a type this reader does not know */
	uint64_t lost;               /* sum of LOST.lost */
	uint64_t lost_samples;       /* sum of LOST_SAMPLES.lost */
	uint64_t unfinished_tail;    /* PERFDATA_OPEN_UNFINISHED (files) or _PARTIAL
	                                (pipes): offset where the data stopped early
	                                (0: it did not) */
	uint64_t tail_bytes;         /* bytes from unfinished_tail to the end, not read */
	uint64_t buffer_peak;        /* streams: the largest the stream buffer grew (bytes;
	                                0 for an image in memory) */
};

/* ---------------------------------------------------------------------------
 * The reader
 * ------------------------------------------------------------------------- */

struct perfdata;

/** perfdata_open() flags. */
enum perfdata_open_flags {
	/* read a recording whose header was never finished (data size 0) up to the
	 * end of the file instead of refusing it */
	PERFDATA_OPEN_UNFINISHED = 1u << 0,
	/* leave a sample's branch entries in the record (branch_raw) and branches
	 * NULL, for a reader that decodes them itself in one pass
	 * (branch_agg_add_raw()): no copy, no per-entry decoding here */
	PERFDATA_OPEN_RAW_BRANCHES = 1u << 1,
	/* read a damaged or cut pipe stream up to the damage instead of refusing it */
	PERFDATA_OPEN_PARTIAL = 1u << 2,
};

/**
 * Start reading the perf.data image buf[0..len).
 *   out:   set to a new reader on success (free with perfdata_close()); untouched
 *          on failure.
 *   buf:   borrowed; must stay valid and unchanged until perfdata_close().
 *   name:  the file name for messages (copied); NULL reads as "perf.data".
 *   flags: enum perfdata_open_flags.
 * Returns 0; TDP_EFORMAT (not a perf.data, malformed header, attrs or features,
 * unfinished recording without PERFDATA_OPEN_UNFINISHED, other byte order, v1
 * format); TDP_ELIMIT (beyond a named limit); TDP_ENOMEM. err names the file and
 * the offset. Allocates the attr table, the id map and the parsed features.
 */
int perfdata_open(struct perfdata **out, const uint8_t *buf, size_t len, const char *name,
		  unsigned flags, struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Where a stream's bytes come from: read up to len bytes into buf. Returns the
 * bytes read (> 0), 0 at the end of the stream, or a negative errno.
 */
typedef long perfdata_read_fn(void *ctx, uint8_t *buf, size_t len);

/**
 * Start reading a perf.data that arrives through rd (see "Streams" above). Reads
 * the 16-byte header, then in pipe mode the leading header records; a file-mode
 * image is read whole. name and flags as for perfdata_open(). Returns as
 * perfdata_open(), or TDP_EIO when rd fails. rd and ctx must stay valid until
 * perfdata_close(); every later read happens in perfdata_next().
 */
int perfdata_open_stream(struct perfdata **out, perfdata_read_fn *rd, void *ctx, const char *name,
			 unsigned flags, struct tdp_err *err) __attribute__((warn_unused_result));

/** perfdata_open_stream() reading the descriptor fd (not closed by the reader). */
int perfdata_open_fd(struct perfdata **out, int fd, const char *name, unsigned flags,
		     struct tdp_err *err) __attribute__((warn_unused_result));

/*
 * An input named on the command line (-i PATH, "-" for stdin): a regular file is
 * mapped (tdp_file_open()), anything else (pipe, FIFO, device) stays an open
 * descriptor read as a stream:
 *   struct perfdata_input in = PERFDATA_INPUT_INIT;
 *   perfdata_input_open(&in, path, &err);  in.file.mapped: in.file.data/size are the file
 *   perfdata_input_read(&p, &in, flags, &err);  perfdata_open() or perfdata_open_fd()
 *   ... perfdata_close(p); perfdata_input_close(&in);
 * Errors are those of tdp_file_open() (they name the path).
 */
struct perfdata_input {
	struct tdp_file file;
	int fd;              /* a stream's descriptor, or -1 */
	const char *path;
};

#define PERFDATA_INPUT_INIT { TDP_FILE_INIT, -1, NULL }

int perfdata_input_open(struct perfdata_input *in, const char *path, struct tdp_err *err)
	__attribute__((warn_unused_result));
int perfdata_input_read(struct perfdata **out, struct perfdata_input *in, unsigned flags, struct tdp_err *err)
	__attribute__((warn_unused_result));
void perfdata_input_close(struct perfdata_input *in);

/*
 * A perf.data arriving on a pipe (-i -, a FIFO, a device), checked as it arrives
 * so that a stream that is not a perf.data, or is damaged, is refused after the
 * bytes that show it instead of after reading all of it:
 *   struct perfdata_stream s = PERFDATA_STREAM_INIT;
 *   after each read: perfdata_stream_check(&s, buf, len, max, eof, name, flags, &err)
 * buf[0..len) is everything read so far, max the most the caller will read.
 * Checks the magic and header size once 16 bytes are in (the message is
 * perfdata_open()'s), then, for a pipe stream, frames each record as soon as it
 * is complete (the messages of perfdata_next(), naming the offset), and refuses
 * a record whose size or payload would run past max (TDP_ELIMIT). File-mode
 * images on a pipe are only checked by their header here. With
 * PERFDATA_OPEN_PARTIAL in flags, a framing error stops the checks instead
 * (the reader then ends there). Returns 0 or the error.
 */
struct perfdata_stream {
	uint64_t next;   /* offset of the first record not yet framed; 0: header not checked */
	bool pipe;       /* a pipe-mode stream */
	bool done;       /* nothing more to check */
};

#define PERFDATA_STREAM_INIT { 0, false, false }

int perfdata_stream_check(struct perfdata_stream *s, const uint8_t *buf, size_t len, size_t max, bool eof,
			  const char *name, unsigned flags, struct tdp_err *err) __attribute__((warn_unused_result));

/** Free the reader and everything it owns (not the image). p may be NULL. */
void perfdata_close(struct perfdata *p);

/**
 * Decode the next record into *out (overwritten; its pointers are valid until the
 * next call or perfdata_close()).
 * Returns 1: a record is in *out; 0: the end of the data; TDP_EFORMAT/TDP_ELIMIT:
 * the data is malformed at the offset named in err; TDP_ENOMEM (growing a reused
 * buffer, or a pipe-mode attr). After an error every later call returns the same
 * code without reading further. Allocates only when a reused buffer must grow
 * (bounded by BRSTACK_MAX_NR and PERFDATA_MAX_CALLCHAIN), for pipe-mode
 * HEADER_ATTR/HEADER_FEATURE/EVENT_UPDATE/ID_INDEX records and for new
 * HEADER_BUILD_ID records.
 */
int perfdata_next(struct perfdata *p, struct perfdata_record *out, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** Number of attrs (events); in pipe mode, those seen so far. */
size_t perfdata_nr_attrs(const struct perfdata *p);

/** Attr i (i < perfdata_nr_attrs()), or NULL. Owned by the reader. */
const struct perfdata_attr *perfdata_attr(const struct perfdata *p, size_t i);

/**
 * The attr a sample id belongs to, or NULL. As in perf: with one attr, that attr
 * for any id; id 0 (records perf synthesized) belongs to the first attr.
 */
const struct perfdata_attr *perfdata_attr_by_id(const struct perfdata *p, uint64_t id);

/**
 * The parsed features. Never NULL. In pipe mode they are those seen so far. In
 * both modes, build-ids of HEADER_BUILD_ID records (pipe streams, files written by
 * perf inject -b) are added to build_ids as perfdata_next() meets them: that array
 * may then grow and move, so read the pointer again after perfdata_next().
 */
const struct perfdata_features *perfdata_features(const struct perfdata *p);

/**
 * The raw bytes of feature section feat (file mode: the section; pipe mode: the
 * payload of its HEADER_FEATURE record). Returns true and sets *data and *len when
 * present; false otherwise.
 */
bool perfdata_feature_raw(const struct perfdata *p, unsigned feat, const uint8_t **data, size_t *len);

/** True for a pipe-mode stream (perf record -o -). */
bool perfdata_is_pipe(const struct perfdata *p);

/**
 * True when a record's bytes (rec->raw, and a sample's branch_raw) stay valid
 * until perfdata_close(): an image in memory (perfdata_open()). False for a
 * stream read as it arrives, whose buffer is reused from record to record.
 */
bool perfdata_records_stable(const struct perfdata *p);

/** File mode: offset and size of the data section (size as read, or as inferred for an
 * unfinished recording). Pipe mode: 16 and the rest of the image. */
uint64_t perfdata_data_offset(const struct perfdata *p);
uint64_t perfdata_data_size(const struct perfdata *p);

/** True when the header said the recording was not finished (data size 0). */
bool perfdata_is_unfinished(const struct perfdata *p);

/** Counts since perfdata_open(). Never NULL. */
const struct perfdata_stats *perfdata_stats(const struct perfdata *p);

/** perf's name of a record type ("SAMPLE", "MMAP2", ...); "UNKNOWN" otherwise. */
const char *perfdata_record_type_name(uint32_t type);

/** perf's name of a feature ("BUILD_ID", "CMDLINE", ...); "UNKNOWN" otherwise. */
const char *perfdata_feature_name(unsigned feat);

#endif
