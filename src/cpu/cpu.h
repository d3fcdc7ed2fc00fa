/*
 * cpu.h: what machine this is and what it lets us measure.
 *
 * The module answers, for `tdprof info` and for every command that must decide
 * between the pmu and sim backends or explain a `<not supported>`:
 *   - which CPU this is (x86 CPUID or /proc/cpuinfo; arm64 MIDR), its
 *     micro-architecture name in design.md's spelling ("icelakex", "zen4",
 *     "neoverse-n2"), hybrid core types, SMT, online CPUs, counter numbers;
 *   - which PMUs the kernel registered (sysfs bus/event_source/devices) with
 *     their type, caps/, event aliases and format/ fields;
 *   - what perf_event_paranoid, our credentials and the NMI watchdog allow;
 *   - whether we run under a hypervisor;
 *   - whether a hardware event actually opens, and in words why not;
 *   - which branch-recording facility applies (Intel LBR, AMD LbrExtV2 or BRS,
 *     Arm BRBE or SPE), or why none does.
 *
 * Where the facts come from is a parameter (struct cpu_env): the running machine
 * ("live": CPUID executed here, perf_event_open tried here) or a snapshot of
 * another machine's sysfs (and optionally procfs) tree, which is also how the
 * unit tests build fake Ice Lake, hybrid, Arm and AMD machines in a temp dir.
 * In snapshot mode nothing is executed or opened: the facts come only from the
 * files, and what cannot be known from them is reported as unknown.
 *
 * Lifecycle (the common case):
 *   1. struct cpu_system sys;  struct cpu_env env = CPU_ENV_INIT;
 *   2. cpu_system_detect(&sys, &env, &err);
 *   3. read sys.cpu, sys.pmus, sys.perms, sys.virt, sys.probe, sys.branch;
 *   4. cpu_system_release(&sys).
 * Each part also has its own detect/release pair for callers that need one
 * piece (the stat command calls only cpu_probe_hw_events()).
 *
 * The micro-architecture tables (cpu_uarch_x86(), cpu_uarch_arm()) and the parsers
 * (cpu_cpuinfo_parse(), cpu_list_parse(), cpu_uarch_from_perf_cpuid()) are pure
 * functions over data: no I/O, no allocation except where stated.
 *
 * Nothing here prints, exits or reads the environment. Not thread-safe where it
 * pins the calling thread (hybrid detection on x86, see cpu_info_detect()).
 */
#ifndef TDPROF_CPU_CPU_H
#define TDPROF_CPU_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

struct strbuf;
struct cpu_pmu_list;

/* ---------------------------------------------------------------------------
 * Where the facts come from
 */

struct cpu_env {
	const char *sysfs_root;  /* "/sys" on the running machine; NULL: do not read sysfs */
	const char *procfs_root; /* "/proc" on the running machine; NULL: do not read procfs */
	/*
	 * true: the roots describe the machine we run on, so CPUID may be executed,
	 * perf_event_open tried and our credentials checked. false: a snapshot of
	 * another machine (tdprof info --sysfs DIR, the unit tests): files only.
	 */
	bool live;
};

#define CPU_ENV_INIT { "/sys", "/proc", true }

/* Named limits on what we read from sysfs/procfs (treated as untrusted input). */
#define CPU_VALUE_MAX 256           /* one sysfs attribute value, bytes */
#define CPU_LIST_TEXT_MAX 4096      /* a cpu list file ("0-3,8-11"), bytes */
#define CPU_NR_MAX 8192             /* CPU numbers accepted in a cpu list */
#define CPU_CPUINFO_MAX (8u << 20)  /* /proc/cpuinfo, bytes */
#define CPU_PMU_MAX 1024            /* PMUs listed */
#define CPU_PMU_ATTR_MAX 256        /* caps/ or format/ entries per PMU */
#define CPU_PMU_EVENTS_MAX 100000   /* event aliases counted per PMU */
#define CPU_CORE_TYPES_MAX 8        /* distinct core types (hybrid) */

/* ---------------------------------------------------------------------------
 * Pure helpers: micro-architecture tables and parsers
 */

enum cpu_vendor {
	CPU_VENDOR_UNKNOWN = 0,
	CPU_VENDOR_INTEL, /* "GenuineIntel" */
	CPU_VENDOR_AMD,   /* "AuthenticAMD" */
	CPU_VENDOR_ARM,   /* any arm64 implementer (Arm, Ampere, Fujitsu, ...) */
};

/** The vendor for a CPUID vendor string ("GenuineIntel", "AuthenticAMD"); UNKNOWN otherwise. */
enum cpu_vendor cpu_vendor_from_string(const char *s);

/**
 * The micro-architecture of an x86 CPU, from its decoded family, model and
 * stepping (extended fields already added, as /proc/cpuinfo prints them).
 * Returns a static string in design.md's spelling ("skylake", "cascadelake",
 * "icelakex", "zen4", ...), or NULL when the CPU is not in the table.
 * Model 85 (0x55) depends on the stepping: <= 4 "skylakex", 5-7 "cascadelake",
 * 10-11 "cooperlake". For a hybrid part this is the name of the whole chip
 * ("alderlake"); cpu_uarch_hybrid_core() names its core types.
 */
const char *cpu_uarch_x86(enum cpu_vendor vendor, unsigned family, unsigned model, unsigned stepping);

/**
 * The micro-architecture of an arm64 core from the MIDR implementer and part
 * number ("neoverse-n1" for 0x41/0xd0c, "cortex-a76" for 0x41/0xd0b, ...), or NULL.
 */
const char *cpu_uarch_arm(unsigned implementer, unsigned part);

/**
 * The revision-specific name of an arm64 core whose definitions change with its
 * variant/revision (MIDR bits 23:20, 3:0): "neoverse-n2-r0p0" for Neoverse N2
 * r0p0-r0p2 (the STALL_SLOT erratum), or NULL when the data has none for it.
 * model_for_uarch() takes it like a uarch name.
 */
const char *cpu_arm_revision_name(unsigned implementer, unsigned part, unsigned variant, unsigned revision);

/** The name a MIDR_EL1 value selects a model by: its revision name, else its uarch, else NULL. */
const char *cpu_uarch_from_midr(uint64_t midr);

/** A name for an arm64 implementer code ("ARM" for 0x41, "Ampere" for 0xc0), or NULL. */
const char *cpu_arm_implementer_name(unsigned implementer);

/*
 * Intel hybrid core types (CPUID leaf 0x1A EAX[31:24]) and the names we give
 * their micro-architectures. The names are Intel's core code names, lower case:
 *   alderlake   core "goldencove"   atom "gracemont"
 *   raptorlake  core "raptorcove"   atom "gracemont"
 *   meteorlake  core "redwoodcove"  atom "crestmont"
 *   arrowlake   core "lioncove"     atom "skymont"
 *   lunarlake   core "lioncove"     atom "skymont"
 */
enum cpu_core_kind {
	CPU_CORE_KIND_UNKNOWN = 0,
	CPU_CORE_KIND_ATOM = 0x20, /* E-core; the kernel's cpu_atom PMU */
	CPU_CORE_KIND_CORE = 0x40, /* P-core; the kernel's cpu_core PMU */
};

/**
 * The micro-architecture of one core type of a hybrid chip whose whole-chip
 * name is `chip_uarch` (from cpu_uarch_x86()), or NULL when not known.
 */
const char *cpu_uarch_hybrid_core(const char *chip_uarch, enum cpu_core_kind kind);

/** True when chip_uarch names an Intel hybrid chip (alderlake, raptorlake, ...). */
bool cpu_uarch_is_hybrid(const char *chip_uarch);

/*
 * What a micro-architecture has, as data (data/cpus.json, through uarch.c), for
 * when the CPU cannot be asked (CPUID leaves a hypervisor hides, an import from
 * another machine).
 */
struct cpu_uarch_caps {
	const char *uarch;
	unsigned width;      /* pipeline width in the models' slots per cycle; 0 unknown */
	int gp_counters;     /* general-purpose counters per logical CPU (SMT on); -1 unknown */
	int fixed_counters;  /* fixed counters (Intel; Arm's cycle counter); -1 unknown */
	int lbr_depth;       /* branch-stack entries (Intel LBR, AMD LbrExtV2/BRS); -1 none or unknown */
	bool intel_lbr;      /* Intel LBR */
	bool perf_metrics;   /* Intel PERF_METRICS: topdown-* pseudo-events led by slots */
	bool slot_events;    /* slot-level top-down events (PERF_METRICS, AMD dispatch slots, STALL_SLOT) */
	bool amd_lbr_v2;     /* AMD LbrExtV2 (Zen 4 and later; CPUID 0x80000022 EAX[1]) */
	bool amd_brs;        /* AMD Branch Sampling (Zen 3; CPUID 0x80000008 EBX[31]) */
	bool arm_spe;        /* Arm Statistical Profiling Extension */
	bool arm_brbe;       /* Arm Branch Record Buffer Extension */
};

/** The capabilities of uarch (a name of cpu_uarch_x86()), or NULL when the table has none. */
const struct cpu_uarch_caps *cpu_uarch_caps(const char *uarch);

/**
 * Decode CPUID leaf 1 EAX into family, model and stepping (the extended family is
 * added when the base family is 0xF; the extended model is prepended when the
 * base family is 6 or 0xF), as the kernel and /proc/cpuinfo do.
 */
void cpu_x86_decode_signature(uint32_t eax, unsigned *family, unsigned *model, unsigned *stepping);

/** The parts of an arm64 MIDR_EL1 value. */
struct cpu_midr {
	unsigned implementer; /* [31:24] */
	unsigned variant;     /* [23:20] */
	unsigned architecture; /* [19:16] */
	unsigned part;        /* [15:4] */
	unsigned revision;    /* [3:0] */
};

/** Split a MIDR_EL1 value into its fields. */
void cpu_midr_decode(uint64_t midr, struct cpu_midr *out);

/** The identity a perf.data CPUID feature string describes. */
struct cpu_perf_cpuid {
	enum cpu_vendor vendor;
	char vendor_str[16];        /* "GenuineIntel", "AuthenticAMD", "" for arm64 */
	unsigned family, model, stepping; /* x86 only */
	bool is_arm;
	uint64_t midr;              /* arm64 only */
	const char *uarch;          /* static, or NULL when not in the tables */
};

/**
 * Parse the CPUID string perf records in perf.data (HEADER_CPUID) and prints as
 * "# cpuid : ...": x86 "GenuineIntel,6,78,3" (vendor,family,model,stepping in
 * decimal; the older "GenuineIntel-6-4E-3" form with a hex model is accepted too)
 * or arm64 "0x00000000410fd490" (the MIDR in hex). buf need not be NUL-terminated.
 * Returns 0 and fills out (uarch NULL when the CPU is not in the tables), or
 * TDP_EFORMAT naming the string when it is neither form.
 */
int cpu_uarch_from_perf_cpuid(const char *buf, size_t len, struct cpu_perf_cpuid *out, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** What /proc/cpuinfo says about the first processor listed. */
struct cpu_cpuinfo {
	bool has_x86;               /* vendor_id/cpu family/model lines were present */
	char vendor[16];            /* vendor_id, e.g. "AuthenticAMD" */
	unsigned family, model, stepping;
	char brand[64];             /* "model name" */
	bool has_flags;             /* a flags line was present */
	bool hypervisor_flag;       /* "hypervisor" in flags (CPUID.1:ECX[31]) */
	bool has_arm;               /* CPU implementer/part lines were present */
	unsigned implementer, variant, architecture, part, revision;
	unsigned nr_processors;     /* "processor" lines */
};

/**
 * Parse /proc/cpuinfo text (x86 or arm64). Only the first value of each key is
 * kept. Returns 0; TDP_EFORMAT when a field we use does not parse as a number
 * (the message names the key and the line); TDP_ENOENT when the text describes
 * no processor at all. Never allocates.
 */
int cpu_cpuinfo_parse(const uint8_t *buf, size_t len, struct cpu_cpuinfo *out, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Parse a kernel cpu list ("0-3,8,10-11\n") into a sorted array of CPU numbers
 * without duplicates. On success *out is a new array the caller frees with
 * tdp_free() (NULL when the list is empty) and *nr its length. Returns 0,
 * TDP_EFORMAT (bad syntax, a range backwards) or TDP_ELIMIT (a CPU number
 * >= CPU_NR_MAX), naming `what` (a path) in the message, or TDP_ENOMEM.
 */
int cpu_list_parse(const char *buf, size_t len, const char *what, unsigned **out, size_t *nr,
		   struct tdp_err *err) __attribute__((warn_unused_result));

/** Append the kernel list form of sorted cpus[0..nr) ("0-3,8") to sb. */
void cpu_list_format(const unsigned *cpus, size_t nr, struct strbuf *sb);

/** True when sorted cpus[0..nr) contains cpu. */
bool cpu_list_contains(const unsigned *cpus, size_t nr, unsigned cpu);

/* ---------------------------------------------------------------------------
 * CPU identification
 */

struct cpu_core_type {
	char type[32];       /* "core", "atom" (Intel); on Arm the MIDR "implementer/part" ("0x41/0xd0b") */
	const char *uarch;   /* static name ("goldencove"), or NULL when unknown */
	char *cpus;          /* heap: kernel list form ("0-15"); never NULL in a detected info */
	char pmu[64];        /* the PMU whose cpus file covers them ("cpu_core"), "" when none */
	int gp_counters;     /* general-purpose counters per logical CPU; -1 unknown */
	int fixed_counters;  /* fixed counters; -1 unknown */
};

struct cpu_info {
	enum cpu_vendor vendor;
	char vendor_str[24];        /* "GenuineIntel", "AuthenticAMD", an Arm implementer ("ARM"), or "" */
	const char *source;         /* static: where identity came from ("cpuid", "/proc/cpuinfo",
	                               "midr_el1"), or NULL when nothing was found */
	bool is_x86;                /* family/model/stepping are valid */
	unsigned family, model, stepping;
	bool is_arm;                /* midr and its fields are valid */
	uint64_t midr;
	struct cpu_midr midr_fields;
	char brand[64];             /* CPUID brand string / "model name"; "" when unknown */
	const char *uarch;          /* static name, NULL when unknown */
	const char *uarch_revision; /* arm64: the revision-specific name (cpu_arm_revision_name()), else NULL */

	bool hybrid;                /* more than one core type */
	struct cpu_core_type core_types[CPU_CORE_TYPES_MAX];
	size_t nr_core_types;       /* 0 unless hybrid */

	int smt;                    /* 1 on, 0 off, -1 unknown (devices/system/cpu/smt/active) */
	unsigned cpus_online;       /* 0 when unknown */
	char *online;               /* heap: the online list ("0-1"), NULL when unknown */

	/*
	 * Counters per logical CPU: -1 when unknown. When no core PMU is registered
	 * (a VM without a virtual PMU) both are 0: there is nothing to count with.
	 * For a hybrid chip these describe the first core type; see core_types[].
	 */
	int gp_counters;
	int fixed_counters;
	const char *counters_source; /* static text saying where the numbers came from, or NULL */

	/* AMD features the branch-recording decision needs: 1 yes, 0 no, -1 unknown. */
	int amd_lbr_v2;             /* CPUID 0x80000022 EAX[1] LbrExtV2 */
	int amd_lbr_v2_depth;       /* CPUID 0x80000022 EBX[9:4]; -1 unknown */
	int amd_brs;                /* CPUID 0x80000008 EBX[31] BRS */
};

/**
 * Identify the CPU. Live on x86: CPUID (vendor, signature, brand, counters, AMD
 * LbrExtV2/BRS, and, on a hybrid chip, leaf 0x1A on each online CPU by pinning
 * the calling thread to it in turn and restoring its affinity). Live on arm64 or
 * in a snapshot: <sysfs>/devices/system/cpu/cpuN/regs/identification/midr_el1,
 * then <procfs>/cpuinfo. Hybrid core types also come from the cpu_core/cpu_atom
 * PMUs' cpus files; SMT and online CPUs from <sysfs>/devices/system/cpu.
 * pmus (may be NULL) is the PMU list already discovered: it tells whether a core
 * PMU exists (counters are 0 without one) and which PMU covers each core type.
 *
 * out is overwritten; on success release it with cpu_info_release(). An unknown
 * CPU is not an error (uarch NULL, source NULL). Returns 0, TDP_ENOMEM, or
 * TDP_EFORMAT/TDP_ELIMIT for a malformed file (named in err); on failure out is
 * released. Blocks briefly on file reads; allocates.
 */
int cpu_info_detect(struct cpu_info *out, const struct cpu_env *env, const struct cpu_pmu_list *pmus,
		    struct tdp_err *err) __attribute__((warn_unused_result));

/** Free what cpu_info_detect() allocated; info is left zeroed. NULL-safe. */
void cpu_info_release(struct cpu_info *info);

/* ---------------------------------------------------------------------------
 * PMU discovery
 */

enum cpu_pmu_kind {
	CPU_PMU_OTHER = 0,  /* uncore, power, msr, ... */
	CPU_PMU_CORE,       /* the CPU's own counters: cpu, cpu_core, cpu_atom, armv8_*, armv9_* */
	CPU_PMU_SOFTWARE,   /* software, tracepoint, breakpoint, kprobe, uprobe */
	CPU_PMU_SPE,        /* arm_spe_N: Arm Statistical Profiling Extension */
};

struct cpu_kv {
	char *name;  /* heap */
	char *value; /* heap; the file's contents, trailing newline removed */
};

struct cpu_pmu {
	char *name;              /* heap: directory name ("cpu", "armv8_pmuv3_0") */
	long type;               /* perf_event_attr.type from the type file; -1 unreadable */
	enum cpu_pmu_kind kind;
	struct cpu_kv *caps;     /* caps/<name>, sorted by name */
	size_t nr_caps;
	struct cpu_kv *format;   /* format/<name>, sorted by name ("event" = "config:0-7") */
	size_t nr_format;
	size_t nr_events;        /* event aliases in events/ (.scale/.unit/... files not counted) */
	char *cpus;              /* heap: the cpus or cpumask file, NULL when absent */
};

struct cpu_pmu_list {
	struct cpu_pmu *v;       /* sorted by name */
	size_t nr;
	size_t alloc;
};

#define CPU_PMU_LIST_INIT { NULL, 0, 0 }

/**
 * List every PMU under <sysfs>/bus/event_source/devices. A missing directory
 * gives an empty list (a kernel without perf events). In snapshot mode
 * (env->live false) a sysfs root that is not a directory is TDP_ENOENT naming it.
 * out must be empty (CPU_PMU_LIST_INIT). Returns 0, TDP_ENOENT, TDP_ELIMIT (more
 * than CPU_PMU_MAX PMUs or CPU_PMU_ATTR_MAX attributes), TDP_EIO or TDP_ENOMEM;
 * on failure out is released. Allocates.
 */
int cpu_pmu_list_detect(struct cpu_pmu_list *out, const struct cpu_env *env, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** Free the list and leave it as CPU_PMU_LIST_INIT. */
void cpu_pmu_list_release(struct cpu_pmu_list *l);

/** The PMU called name, or NULL. */
const struct cpu_pmu *cpu_pmu_list_find(const struct cpu_pmu_list *l, const char *name);

/** The first PMU of a kind (in name order), or NULL. */
const struct cpu_pmu *cpu_pmu_list_first(const struct cpu_pmu_list *l, enum cpu_pmu_kind kind);

/** The value of caps/<name> of p, or NULL when absent. */
const char *cpu_pmu_cap(const struct cpu_pmu *p, const char *name);

/** caps/<name> as a non-negative number, or -1 when absent or not a number. */
long cpu_pmu_cap_long(const struct cpu_pmu *p, const char *name);

/** The kind of a PMU from its name (exposed for tests). */
enum cpu_pmu_kind cpu_pmu_kind_of(const char *name);

/* ---------------------------------------------------------------------------
 * Permissions
 */

#define CPU_PARANOID_UNKNOWN (-100)

struct cpu_perms {
	int paranoid;          /* kernel.perf_event_paranoid, CPU_PARANOID_UNKNOWN when unreadable */
	bool privileges_known; /* false in snapshot mode */
	bool root;             /* effective uid 0 */
	bool cap_perfmon;      /* CAP_PERFMON in the effective set */
	bool cap_sys_admin;    /* CAP_SYS_ADMIN in the effective set */
	bool privileged;       /* CAP_PERFMON or CAP_SYS_ADMIN effective (root when CapEff is
	                          unreadable): perf_event_paranoid does not apply */
	int nmi_watchdog;      /* 1 on, 0 off, -1 unknown (kernel.nmi_watchdog) */
};

/**
 * Read perf_event_paranoid and nmi_watchdog from <procfs>/sys/kernel/, and in
 * live mode our effective uid and capabilities (<procfs>/self/status CapEff).
 * Never fails: what cannot be read is reported as unknown.
 */
void cpu_perms_detect(struct cpu_perms *out, const struct cpu_env *env);

/**
 * What a perf_event_paranoid level allows an unprivileged user, in one line
 * ("2: user-space profiling of your own processes only; ..."). Levels above 2
 * are Debian's and Ubuntu's patch ("no perf_event_open at all"). Static text;
 * CPU_PARANOID_UNKNOWN gives "unknown (...)".
 */
const char *cpu_paranoid_meaning(int level);

/* What a refused perf_event_open tried to count. */
enum cpu_perm_scope {
	CPU_PERM_OWN_USER,   /* our own processes, user space only */
	CPU_PERM_OWN_KERNEL, /* our own processes, the kernel included */
	CPU_PERM_FOREIGN,    /* a process of another user (-p, -t) */
	CPU_PERM_CPU_WIDE,   /* every task on some CPUs (-a, -C) */
};

/**
 * The remedy for an EACCES/EPERM from perf_event_open, one line for a hint: the
 * level each scope needs (own user space 2, the kernel 1, CPU-wide 0), or, for
 * another user's process, that ptrace access is the cause (no paranoid level
 * lifts it). paranoid: the current level (CPU_PARANOID_UNKNOWN when unknown).
 * Static text.
 */
const char *cpu_perm_remedy(enum cpu_perm_scope scope, int paranoid);

/* ---------------------------------------------------------------------------
 * Virtualization
 */

struct cpu_virt {
	int hypervisor;        /* 1 present, 0 absent, -1 unknown */
	char vendor[32];       /* hypervisor name ("KVM", "Hyper-V", "Xen", "VMware"), "" unknown */
	char signature[13];    /* CPUID 0x40000000 signature ("KVMKVMKVM"), "" when not read */
	char product[160];     /* DMI "sys_vendor product_name" ("QEMU Standard PC ..."), "" */
	const char *source;    /* static: what said so ("cpuid", "/sys/hypervisor/type",
	                          "/proc/cpuinfo flags", "dmi"), NULL when nothing did */
};

/**
 * Detect a hypervisor: CPUID.1:ECX[31] and the leaf 0x40000000 signature (live
 * x86), the "hypervisor" flag in <procfs>/cpuinfo, <sysfs>/hypervisor/type, and
 * DMI <sysfs>/class/dmi/id/{sys_vendor,product_name} (a known VM vendor there
 * counts as a hypervisor). Never fails.
 */
void cpu_virt_detect(struct cpu_virt *out, const struct cpu_env *env);

/* ---------------------------------------------------------------------------
 * The hardware-event probe and the explanation of perf_event_open failures
 */

/* The facts an explanation draws on. */
struct cpu_open_context {
	int paranoid;          /* CPU_PARANOID_UNKNOWN when unknown */
	bool privileged;
	int hypervisor;        /* 1, 0, -1 unknown */
	char hv_vendor[32];    /* "KVM", "" when unknown */
	int nmi_watchdog;      /* 1, 0, -1 */
};

/**
 * Read the context of cpu_explain_open_error() from the machine (env NULL: the
 * running machine). Never fails.
 */
void cpu_open_context_read(struct cpu_open_context *out, const struct cpu_env *env);

/**
 * Explain why perf_event_open of a hardware event failed with errno `errnum`,
 * in words a user can act on, with the exact remedy as the hint:
 *   ENOENT, EOPNOTSUPP, ENODEV: "no hardware PMU is exposed to this machine",
 *       plus " (virtual machine without PMU passthrough)" under a hypervisor
 *       -> TDP_ENOTSUP, hint: use --backend=sim (or enable the VM's virtual PMU);
 *   EACCES, EPERM: the paranoid level and what it allows
 *       -> TDP_EPERM, hint: cpu_perm_remedy(CPU_PERM_OWN_USER, level) (the probe
 *       counts its own user space: level 2 allows it) + "; or use --backend=sim";
 *   EBUSY: a counter is in use (NMI watchdog, another profiler)
 *       -> TDP_EBUSY, hint "sudo sysctl -w kernel.nmi_watchdog=0" when it is on;
 *   ENOSYS: the kernel has no perf events -> TDP_ENOTSUP; other: TDP_EIO.
 * ctx NULL reads the running machine's context. Returns the TDP_E* code it
 * recorded in err (err may be NULL). errnum 0 returns 0 and records nothing.
 */
int cpu_explain_open_error(int errnum, const struct cpu_open_context *ctx, struct tdp_err *err);

struct cpu_probe {
	bool tried;            /* false in snapshot mode: nothing was opened */
	bool opened;           /* a hardware event opened (then it was closed) */
	int errnum;            /* errno of the failure, 0 when opened or not tried */
	int code;              /* TDP_E* of the failure, 0 when opened or not tried */
	char msg[TDP_ERR_MSG_MAX];   /* why not, "" when opened */
	char hint[TDP_ERR_HINT_MAX]; /* the remedy, "" when none */
};

/**
 * Try to open PERF_COUNT_HW_INSTRUCTIONS (user space only, this thread, any CPU),
 * close it again, and explain a failure with cpu_explain_open_error(). env NULL
 * or live: the running machine; a snapshot env records "not probed" (tried false,
 * msg says why). Returns 0 when the event opened, else the negative TDP_E* code
 * also copied to out->code and, with the message and hint, to err (may be NULL).
 * out may be NULL. Makes one syscall pair; no allocation.
 */
int cpu_probe_hw_events(const struct cpu_env *env, struct cpu_probe *out, struct tdp_err *err);

/* ---------------------------------------------------------------------------
 * Branch recording
 */

enum cpu_branch_facility {
	CPU_BRANCH_NONE = 0,
	CPU_BRANCH_LBR,        /* Intel Last Branch Record: "lbr" */
	CPU_BRANCH_LBR_EXT_V2, /* AMD Zen 4+ LbrExtV2: "lbr_ext_v2" */
	CPU_BRANCH_BRS,        /* AMD Zen 3 Branch Sampling: "brs" */
	CPU_BRANCH_BRBE,       /* Arm Branch Record Buffer Extension: "brbe" */
	CPU_BRANCH_SPE,        /* Arm Statistical Profiling Extension: "spe" */
};

struct cpu_branch {
	enum cpu_branch_facility facility;
	int depth;             /* records per sample; -1 unknown or not applicable (SPE) */
	char pmu[64];          /* the PMU to record with ("cpu", "arm_spe_0"), "" when none */
	char reason[320];      /* why this facility, or why none */
};

/** The JSON/text name of a facility ("lbr", "lbr_ext_v2", ...), NULL for NONE. */
const char *cpu_branch_facility_name(enum cpu_branch_facility f);

/**
 * Decide which branch-recording facility applies to cpu with pmus. Pure: uses
 * only its arguments (LBR from the core PMU's caps/branches; AMD from CPUID
 * LbrExtV2/BRS when known, else the uarch, and the kernel's caps/branches and
 * events/branch-brs; Arm BRBE from caps/branches, SPE from an arm_spe_N PMU).
 */
void cpu_branch_detect(struct cpu_branch *out, const struct cpu_info *cpu, const struct cpu_pmu_list *pmus);

/* ---------------------------------------------------------------------------
 * Everything at once
 */

struct cpu_system {
	bool live;             /* env->live */
	struct cpu_info cpu;
	struct cpu_pmu_list pmus;
	struct cpu_perms perms;
	struct cpu_virt virt;
	struct cpu_probe probe;
	struct cpu_branch branch;
};

/**
 * Detect everything above (env NULL: the running machine). In snapshot mode the
 * sysfs root must be a directory holding bus/event_source/devices or
 * devices/system/cpu, else TDP_ENOENT / TDP_EUSAGE naming it. A hardware event
 * that does not open is not an error (see sys->probe). Returns 0 or a negative
 * TDP_E*; on failure sys is released. Release with cpu_system_release().
 */
int cpu_system_detect(struct cpu_system *sys, const struct cpu_env *env, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** Free what cpu_system_detect() allocated. NULL-safe; sys is left zeroed. */
void cpu_system_release(struct cpu_system *sys);

#endif
