/*
 * sampling.h: the sampling engine behind `tdprof branches record`: one sampling
 * event (with branch stacks on Intel LBR, AMD LbrExtV2 and BRS, Arm BRBE; plain
 * samples for software events; Arm SPE through its AUX area) over a workload or a
 * running process, every record the kernel writes handed on as it comes out of
 * the ring buffers, plus the records perf synthesizes for what existed before.
 *
 * The engine does not know the file format: records go to a callback (the
 * command writes them with perfdata/perfdata-write.h), so this module stays below
 * perfdata. The records are exactly those perf record would write: the kernel's
 * SAMPLE, MMAP2, COMM, FORK, EXIT, LOST, LOST_SAMPLES, THROTTLE, AUX, ...,
 * FINISHED_ROUND after each pass over the rings that found records (perf's
 * ordering barrier), the kernel map ([kernel.kallsyms]_text MMAP), for an attached
 * process its threads (COMM) and executable mappings (MMAP2 from /proc/PID/maps),
 * and for SPE the AUXTRACE_INFO, TIME_CONV and AUXTRACE records.
 *
 * How perf record opens events, and so do we: one event per online CPU on the
 * workload's pid (inherited sampling events need per-CPU ring buffers: the
 * kernel refuses to mmap an inherited per-task event), opened disabled with
 * enable_on_exec on a parked workload (pmu/workload.h), sample_type
 * IDENTIFIER|IP|TID|TIME|CPU|PERIOD (|BRANCH_STACK), sample_id_all, mmap, mmap2,
 * comm, comm_exec, task, and build_id in MMAP2 where the kernel has it (5.12+;
 * without it the build-ids are read from the files at the end).
 *
 * Lifecycle:
 *   1. struct pmu_sampling_opts o = PMU_SAMPLING_OPTS_INIT; fill it;
 *      pmu_sampling_open(&s, &o, &err): fork and park the workload (or check the
 *      -p process), open the events, map the rings. From here until
 *      pmu_sampling_close() SIGINT, SIGTERM and SIGHUP are blocked in the calling thread
 *      and read from a signalfd;
 *   2. for i < pmu_sampling_nr_events(s): pmu_sampling_event(s, i) gives each
 *      event's attr, ids and name (for the perf.data attrs);
 *   3. pmu_sampling_run(s, fn, arg, &err): synthesized records, then the workload
 *      runs (or the process is enabled) and every record goes to fn until it ends;
 *      a final drain after it ended; the workload is reaped;
 *   4. pmu_sampling_stats(s): counts, lost samples, the workload's status;
 *      pmu_sampling_build_ids(s, ...): the DSOs the samples hit, with build-ids;
 *   5. pmu_sampling_close(s): closes everything, kills a workload still running,
 *      restores the signal mask.
 *
 * Signals: a SIGINT, SIGTERM or SIGHUP sent to tdprof with kill(2) is forwarded to the
 * workload, and recording goes on until the workload ends (a terminal's ^C
 * reaches the workload's process group directly and is not sent twice); with -p
 * the signal ends the recording. Either way pmu_sampling_run() returns normally
 * so the caller can finish its file; stats.signal says what happened.
 *
 * Nothing here prints or exits. Not thread-safe.
 */
#ifndef TDPROF_PMU_SAMPLING_H
#define TDPROF_PMU_SAMPLING_H

#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cpu/cpu.h"
#include "pmu/event.h"

struct tdp_err;
struct strbuf;

/* ---------------------------------------------------------------------------
 * Branch filters (-j), as perf spells them, and the rules of each facility
 * ------------------------------------------------------------------------- */

/** Longest -j spec accepted, in bytes. */
#define PMU_BRANCH_FILTER_MAX 512

/* branch_sample_type bits newer than some uapi headers */
#define PMU_BRANCH_HW_INDEX (1ull << 17)
#define PMU_BRANCH_PRIV_SAVE (1ull << 18)
#define PMU_BRANCH_COUNTERS (1ull << 19)
/** The privilege bits (u, k, hv). */
#define PMU_BRANCH_PLM (PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV)

/**
 * Parse a comma-separated -j filter as perf spells it (case-insensitive): u, k,
 * hv, any, any_call, any_ret, ind_call, abort_tx, in_tx, no_tx, cond, ind_jmp,
 * call, save_type, stack (or call_stack), hw_index, priv, counter, and the
 * kernel's no_flags, no_cycles. A filter without a branch type (privilege
 * levels, save_type, tx filters, or "") gets `any` added, keeping the rest
 * (perf adds `any` to levels alone). Writes *out.
 * Returns 0; TDP_EUSAGE naming the unknown filter (hint: the closest names and
 * the whole list) or an empty element; TDP_ELIMIT beyond PMU_BRANCH_FILTER_MAX.
 * Pure.
 */
int pmu_branch_filter_parse(const char *spec, uint64_t *out, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** Append perf's names of the bits of filter to sb, comma-separated ("any,u,save_type"). */
void pmu_branch_filter_describe(uint64_t filter, struct strbuf *sb);

/**
 * Check a filter against what the facility's kernel driver accepts, before
 * anything is opened, so that the user learns why instead of an EOPNOTSUPP:
 *   LBR (Intel): everything but `counter` without caps/branch_counter_nr
 *     (branch_counters says how many; <= 0 refuses it);
 *   LbrExtV2 (AMD Zen 4+, arch/x86/events/amd/lbr.c): no stack, no_flags,
 *     no_cycles, abort_tx, in_tx, no_tx, counter;
 *   BRS (AMD Zen 3, arch/x86/events/amd/brs.c): exactly `any` plus privilege
 *     levels (no type filter, no save_type, ...);
 *   BRBE (Arm, drivers/perf/arm_brbe.c): no stack, abort_tx, in_tx, no_tx, counter;
 *   NONE/SPE: no branch stack at all.
 * Returns 0 or TDP_EUSAGE naming the refused filters and the facility. Pure.
 */
int pmu_branch_filter_check(enum cpu_branch_facility f, uint64_t filter, long branch_counters,
			    struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * The default sampling event of a facility as an event spec: "cycles" for LBR,
 * LbrExtV2 and BRBE; "r0c4" (retired taken branches, PMCx0C4) for BRS; NULL for
 * NONE and SPE (SPE's event is built by pmu_spe_event_spec()). Static string.
 */
const char *pmu_branch_default_event(enum cpu_branch_facility f);

/**
 * The rules a facility puts on the sampling event, checked before opening.
 * BRS: the event must be 0xC4 (retired taken branches) on the core PMU (raw or
 * core-PMU type, core_type the core PMU's type; event select and unit mask only),
 * sampled with a fixed period above `depth` (the kernel subtracts the depth) and
 * never in frequency mode. SPE: no frequency mode. Others: a hardware event.
 * name: the event as the user spelled it (for messages). freq: -F was given.
 * Returns 0 or TDP_EUSAGE saying which rule is broken and what to give instead.
 * Pure.
 */
int pmu_branch_event_check(enum cpu_branch_facility f, const struct perf_event_attr *attr, const char *name,
			   long core_type, uint64_t period, bool freq, int depth, struct tdp_err *err)
	__attribute__((warn_unused_result));

/* ---------------------------------------------------------------------------
 * Arm SPE
 * ------------------------------------------------------------------------- */

/** PMSEVFR_EL1 (SPE config1 event_filter) bits. */
#define PMU_SPE_EV_RETIRED (1ull << 1)
#define PMU_SPE_EV_MISPRED (1ull << 7)

/** perf's AUXTRACE_INFO type of Arm SPE (PERF_AUXTRACE_ARM_SPE). */
#define PMU_AUXTRACE_ARM_SPE 4
/** Bytes of the AUXTRACE_INFO record we write for SPE (header, type, priv[2]). */
#define PMU_SPE_AUXTRACE_INFO_SIZE 32
/** Bytes of an AUXTRACE record header (the data follows it). */
#define PMU_AUXTRACE_HEADER_SIZE 48
/** Bytes of the TIME_CONV record we write (perf 5.12+ layout). */
#define PMU_TIME_CONV_SIZE 56

/**
 * Build the event spec of an SPE PMU (spe: borrowed, from the PMU list) for
 * branch recording, as perf users type it: "arm_spe_0/branch_filter=1,
 * ts_enable=1,jitter=1,event_filter=0x80/". Only terms the PMU's format/ lists
 * are used; branch_filter is required. mispred_only: event_filter = bit 7
 * (mispredicted; else all sampled branches). Appends to sb.
 * Returns 0, or TDP_ENOTSUP when the PMU has no branch_filter format. Pure.
 */
int pmu_spe_event_spec(const struct cpu_pmu *spe, bool mispred_only, struct strbuf *sb, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * The same for load recording (perf c2c's and perf mem's SPE event): "arm_spe_0/
 * load_filter=1,ts_enable=1,jitter=1/"; each sampled load's record carries its PC,
 * data virtual address and latencies. Returns 0, or TDP_ENOTSUP when the PMU has no
 * load_filter format. Pure.
 */
int pmu_spe_load_spec(const struct cpu_pmu *spe, struct strbuf *sb, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Write perf's AUXTRACE_INFO record for SPE (PMU_SPE_AUXTRACE_INFO_SIZE bytes)
 * to buf: header {type 70, size 32}, type 4, priv = { pmu_type, per_cpu } (the
 * layout tools/perf/util/arm-spe.h calls ARM_SPE_PMU_TYPE, ARM_SPE_PER_CPU_MMAPS,
 * which perf 6.1 and later read). Returns the size.
 */
size_t pmu_spe_auxtrace_info(uint8_t buf[PMU_SPE_AUXTRACE_INFO_SIZE], uint32_t pmu_type, bool per_cpu);

/**
 * Write an AUXTRACE record header (PMU_AUXTRACE_HEADER_SIZE bytes) to buf:
 * {type 71, size 48} then size (bytes of data that follow the record, not
 * counted in header.size), offset (AUX position), reference, idx, tid, cpu.
 * Returns the header size.
 */
size_t pmu_auxtrace_header(uint8_t buf[PMU_AUXTRACE_HEADER_SIZE], uint64_t size, uint64_t offset,
			   uint64_t reference, uint32_t idx, uint32_t tid, uint32_t cpu);

/**
 * Write a TIME_CONV record (PMU_TIME_CONV_SIZE bytes) from a ring's control page
 * (borrowed): time_shift, time_mult, time_zero, time_cycles, time_mask and the
 * cap_user_time_zero/short flags, as perf does for AUX tracing (it converts the
 * hardware timestamps of the trace). Returns the size.
 */
size_t pmu_time_conv(uint8_t buf[PMU_TIME_CONV_SIZE], const struct perf_event_mmap_page *pc);

/* ---------------------------------------------------------------------------
 * Records for what existed before recording started (perf's synthesized events)
 * ------------------------------------------------------------------------- */

/** Most bytes of a /proc/PID/maps read. */
#define PMU_MAPS_MAX (64u << 20)
/** Most bytes of /proc/kallsyms read. */
#define PMU_KALLSYMS_MAX (64u << 20)

/** One line of /proc/PID/maps. */
struct pmu_maps_entry {
	uint64_t start, end, pgoff;
	uint32_t prot;      /* PROT_READ|PROT_WRITE|PROT_EXEC from "rwxp" */
	uint32_t flags;     /* MAP_PRIVATE or MAP_SHARED from the 4th letter */
	uint32_t maj, min;
	uint64_t ino;
	const char *name;   /* the path or "[vdso]", "[heap]", "" for anonymous; borrowed */
	size_t name_len;
};

/** Called per line; return 0 to go on or a negative TDP_E* to stop. */
typedef int pmu_maps_fn(void *arg, const struct pmu_maps_entry *e, struct tdp_err *err);

/**
 * Parse /proc/PID/maps text buf[0..len) (untrusted; need not end in a newline).
 * Returns 0, the callback's error, or TDP_EFORMAT naming the line that does not
 * parse. Pure.
 */
int pmu_maps_parse(const char *buf, size_t len, pmu_maps_fn *fn, void *arg, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Build an MMAP2 record for an executable mapping of pid into buf (size bytes,
 * room for PERFDATA_MAX_RECORD is enough), as perf synthesizes it: misc USER,
 * tid = pid, maj/min/ino from the maps line, ino_generation 0, the file name
 * NUL-padded to 8, then id_size zero bytes (the sample_id trailer).
 * Returns the record size, or 0 when it does not fit (a name too long).
 */
size_t pmu_synth_mmap2(uint8_t *buf, size_t size, uint32_t pid, const struct pmu_maps_entry *e, size_t id_size);

/** Build a COMM record (pid, tid, comm, then id_size zero bytes); returns its size or 0. */
size_t pmu_synth_comm(uint8_t *buf, size_t size, uint32_t pid, uint32_t tid, const char *comm, size_t id_size);

/**
 * Build perf's kernel map record: MMAP, misc KERNEL, pid -1, start = _text,
 * len = _etext - _text (or up to the top of memory without _etext), pgoff =
 * _text, file "[kernel.kallsyms]_text", then id_size zero bytes. Returns its size.
 */
size_t pmu_synth_kernel_mmap(uint8_t *buf, size_t size, uint64_t text, uint64_t etext, size_t id_size);

/**
 * Find _text and _etext in /proc/kallsyms text buf[0..len) (untrusted).
 * Returns true with *text set (and *etext, 0 when absent) when _text is there
 * with a non-zero address (kptr_restrict hides addresses as zeros). Pure.
 */
bool pmu_kallsyms_text(const char *buf, size_t len, uint64_t *text, uint64_t *etext);

/* ---------------------------------------------------------------------------
 * Build-ids
 * ------------------------------------------------------------------------- */

/** Most bytes of a build-id kept (SHA-1; perf's BUILD_ID_SIZE). */
#define PMU_BUILD_ID_MAX 20
/** Most program headers or sections walked in one ELF file. */
#define PMU_ELF_MAX_HEADERS 65536

/**
 * Find the GNU build-id (note "GNU", NT_GNU_BUILD_ID) of an ELF image
 * buf[0..len) (untrusted: every offset is checked): program headers PT_NOTE
 * first, then SHT_NOTE sections. ELF32 or ELF64 in this machine's byte order.
 * Writes up to PMU_BUILD_ID_MAX bytes to id and their number to *size.
 * Returns 1 found, 0 not an ELF of this byte order or no build-id note,
 * TDP_EFORMAT for a malformed ELF (message names `what` and the offset). Pure.
 */
int pmu_elf_build_id(const uint8_t *buf, size_t len, const char *what, uint8_t id[PMU_BUILD_ID_MAX],
		     size_t *size, struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * The same over a bare sequence of ELF notes (the kernel's /sys/kernel/notes).
 * Returns 1 found, 0 none, TDP_EFORMAT for a malformed note. Pure.
 */
int pmu_notes_build_id(const uint8_t *buf, size_t len, const char *what, uint8_t id[PMU_BUILD_ID_MAX],
		       size_t *size, struct tdp_err *err) __attribute__((warn_unused_result));

/** One DSO the samples hit, with its build-id when one was found. */
struct pmu_dso_hit {
	const char *filename;    /* as in the MMAP records ("[kernel.kallsyms]" for the kernel); engine-owned */
	bool kernel;             /* the kernel (build-id entry misc KERNEL) */
	uint8_t build_id[PMU_BUILD_ID_MAX];
	uint8_t build_id_size;   /* 0: none found (the file is gone, or has no note) */
	uint64_t hits;           /* sample IPs and branch addresses that fell in it */
};

/* ---------------------------------------------------------------------------
 * The host, for the perf.data header
 * ------------------------------------------------------------------------- */

struct pmu_host_info {
	char hostname[256];
	char osrelease[256];
	char arch[80];           /* uname -m */
	uint32_t nr_cpus_avail;  /* configured */
	uint32_t nr_cpus_online;
	uint64_t total_mem_kb;   /* MemTotal from /proc/meminfo; 0 unknown */
	char cpuid[64];          /* perf's spelling: "AuthenticAMD,25,17,1", arm64 "0x00000000410fd490"; "" unknown */
	char cpudesc[128];       /* the brand string ("AMD EPYC"); "" unknown */
};

/**
 * Describe this machine for the header features (cpu: borrowed, may be NULL:
 * no cpuid/cpudesc). Never fails; what cannot be read is left empty or 0.
 */
void pmu_host_info_read(struct pmu_host_info *out, const struct cpu_info *cpu);

/**
 * Encode the PMU_MAPPINGS feature ({u32 nr; {u32 type; u32 len; name padded to
 * 64}...}, perf's layout) of pmus (borrowed) into a new buffer (*out, caller
 * frees with tdp_free; *len its size). PMUs without a type are skipped.
 * Returns 0 or TDP_ENOMEM.
 */
int pmu_host_pmu_mappings(const struct cpu_pmu_list *pmus, uint8_t **out, size_t *len, struct tdp_err *err)
	__attribute__((warn_unused_result));

/* ---------------------------------------------------------------------------
 * The engine
 * ------------------------------------------------------------------------- */

/** Default data pages per CPU ring (perf record's 512 KiB with 4 KiB pages). */
#define PMU_SAMPLING_DEFAULT_PAGES 128
/** Default AUX pages per CPU for SPE (perf's 4 MiB for a privileged user). */
#define PMU_SAMPLING_DEFAULT_AUX_PAGES 1024
/** perf record's default sampling frequency, in Hz. */
#define PMU_SAMPLING_DEFAULT_FREQ 4000
/** Highest -F accepted. */
#define PMU_SAMPLING_MAX_FREQ 1000000
/** Most executable mappings and DSOs tracked to find the DSOs the samples hit. */
#define PMU_SAMPLING_MAX_MAPS (1u << 20)
#define PMU_SAMPLING_MAX_DSOS 65536

struct pmu_sampling_opts {
	char *const *argv;              /* workload, NULL-terminated; NULL with pid */
	pid_t pid;                      /* > 0: record this running process (-p) */
	bool no_inherit;                /* do not follow threads and children */
	const struct pmu_event *event;  /* the sampling event (its attr from the parser); borrowed */
	uint64_t period;                /* -c: sample every period events (> 0), or 0 */
	uint64_t freq;                  /* -F: samples per second (> 0), or 0; neither: PMU_SAMPLING_DEFAULT_FREQ */
	uint64_t branch_sample_type;    /* != 0: sample branch stacks with this filter */
	bool spe;                       /* event is an Arm SPE event: record its AUX area */
	uint32_t spe_pmu_type;          /* with spe: the SPE PMU's type (for AUXTRACE_INFO) */
	unsigned mmap_pages;            /* data pages per CPU (a power of two); 0: default */
	unsigned aux_pages;             /* SPE: AUX pages per CPU (a power of two); 0: default */
	bool no_build_id_mmap;          /* do not ask the kernel for build-ids in MMAP2 */
	const struct pmu_event *members; /* group reads: events counted in the sampling event's group,
	                                   read whole by each sample (PERF_SAMPLE_READ with
	                                   PERF_FORMAT_ID|GROUP|LOST, perf record -e '{a,b}:S'); with them
	                                   inherit is off, as perf 6.1 sets it (the kernel reads no
	                                   inherited group before 6.12); borrowed; NULL: none */
	size_t nr_members;              /* at most PMU_SAMPLING_MAX_MEMBERS */
	bool data_addr;                 /* each sample's data address (PERF_SAMPLE_ADDR, and the data mappings
	                                   as MMAP2 records: perf record -d); meaningful with a precise load or
	                                   store event (Intel PEBS), 0 where the event gives none */
};

/** Most members of a sampled group (a PMU has no more counters). */
#define PMU_SAMPLING_MAX_MEMBERS 15

#define PMU_SAMPLING_OPTS_INIT { 0 }

struct pmu_sampling_stats {
	uint64_t records;        /* records handed to the callback (synthesized ones included) */
	uint64_t samples;        /* SAMPLE records */
	uint64_t branch_entries; /* branch-stack entries in them */
	uint64_t lost;           /* samples the kernel dropped, from LOST records (the ring was full) */
	uint64_t lost_records;   /* LOST records */
	uint64_t lost_samples;   /* from LOST_SAMPLES records */
	uint64_t throttled;      /* THROTTLE records (the kernel lowered the sampling rate) */
	uint64_t aux_bytes;      /* AUX (SPE) bytes written as AUXTRACE */
	uint64_t aux_truncated;  /* AUX records flagged truncated (the AUX area was full) */
	bool build_id_mmap;      /* the kernel put build-ids in MMAP2 records */
	bool user_only;          /* perf_event_paranoid refused kernel samples: user space only */
	bool workload_ran;       /* a workload was executed: wstatus is valid */
	int wstatus;             /* its wait status */
	int signal;              /* SIGINT, SIGTERM or SIGHUP received while recording; 0 none */
};

/** One event as opened, for the perf.data attrs. All engine-owned. */
struct pmu_sampling_event {
	const struct perf_event_attr *attr; /* as opened (size = sizeof(struct perf_event_attr)) */
	const uint64_t *ids;                /* one per CPU it is open on */
	size_t nr_ids;
	const char *name;                   /* as perf names it ("cycles", "dummy:u") */
};

struct pmu_sampling;

/**
 * Called per record: rec (borrowed for the call) is a perf_event_header and its
 * body of len bytes; for AUXTRACE, len also covers the data that follows it.
 * Return 0, or a negative TDP_E* with err set to stop the recording (the
 * workload is then killed by pmu_sampling_close()).
 */
typedef int pmu_sampling_record_fn(void *arg, const void *rec, size_t len, struct tdp_err *err);

/**
 * Prepare a recording as o (borrowed; o->argv and o->event must outlive the
 * engine) says. On success *out is the engine (pmu_sampling_close() frees it).
 * Returns 0; TDP_EUSAGE (contradictory options: message names them);
 * TDP_ENOENT (the -p process does not exist); TDP_ENOTSUP (the event cannot be
 * opened here: for a hardware event the words of cpu_explain_open_error(), e.g.
 * no PMU in a VM; EOPNOTSUPP/EINVAL for a branch stack: the kernel refused the
 * filter or the event); TDP_EPERM (perf_event_paranoid, the mlock limit; an
 * event the paranoid level refuses with kernel samples is retried for user
 * space only, as perf does, and stats.user_only says so);
 * TDP_ELIMIT (too many open files); TDP_EIO; TDP_ENOMEM. On failure nothing is
 * left open and the signal mask is restored.
 */
int pmu_sampling_open(struct pmu_sampling **out, const struct pmu_sampling_opts *o, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** Events opened (1, or 2 with SPE: the SPE event and its dummy:u tracking event, or 1 + the group's members). */
size_t pmu_sampling_nr_events(const struct pmu_sampling *s);

/** Event i (< pmu_sampling_nr_events()), filled into *out. */
void pmu_sampling_event(const struct pmu_sampling *s, size_t i, struct pmu_sampling_event *out);

/**
 * Record: hand the synthesized records to fn, start the workload (or enable the
 * events on the -p process), hand every record the kernel writes to fn until the
 * workload (or process) ends or, with -p, a signal arrives; drain the rings a
 * last time; reap the workload. Blocks while the workload runs.
 * Returns 0 (also when the workload failed or was killed: see the stats);
 * TDP_ENOCMD / TDP_ENOEXEC when the workload could not be executed (message as
 * a shell's); the callback's error; TDP_EFORMAT when a ring holds an impossible
 * record; TDP_EIO (poll failed); TDP_ENOMEM. Call once.
 */
int pmu_sampling_run(struct pmu_sampling *s, pmu_sampling_record_fn *fn, void *arg, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** The counts so far (engine-owned, valid until close). Never NULL. */
const struct pmu_sampling_stats *pmu_sampling_stats(const struct pmu_sampling *s);

/**
 * The DSOs that sample IPs or branch addresses fell in, most hit first, with
 * their build-ids: from the MMAP2 records when the kernel gave them, else read
 * from the file's ELF notes (the kernel's from /sys/kernel/notes, [vdso] from
 * our own vdso, which is the same image), else none. *out (engine-owned, valid
 * until close) and *nr. Reads files; call after pmu_sampling_run().
 * Returns 0 or TDP_ENOMEM. A file that cannot be read is not an error.
 */
int pmu_sampling_build_ids(struct pmu_sampling *s, const struct pmu_dso_hit **out, size_t *nr,
			   struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Close the events and rings, kill (SIGKILL) and reap a workload still running,
 * restore the signal mask (a SIGINT/SIGTERM still pending is consumed and
 * counted in stats.signal first, so it cannot kill tdprof before its file is
 * finished) and free s. s may be NULL.
 */
void pmu_sampling_close(struct pmu_sampling *s);

#endif
