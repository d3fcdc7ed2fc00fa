/*
 * harness-internal.h: the inside of the hot-loop harness (include/tdprof/harness.h).
 * Included only by the .c files of src/harness and the harness's unit tests; nothing here is
 * exported from the shared library (its version script exports tdp_* only).
 *
 * Pieces, one file each:
 *   stats.c     min, median, MAD, spread of a sample
 *   clock.c     the time source: invariant TSC calibrated against
 *               CLOCK_MONOTONIC_RAW, or CLOCK_MONOTONIC_RAW; a fake clock for tests
 *   pin.c       pinning the calling thread and checking it took
 *   counters.c  perf_event groups: open, enable, read by rdpmc (mmap page) or read()
 *   swcount.c   context switches, migrations and page faults (perf software events,
 *               or getrusage when those may not be opened), steal time, cpufreq
 *   topdown.c   which level-1 events this CPU has, and the level-1 formulas
 *   diagnose.c  the high-spread warning and its likely cause
 *   format.c    a result as text or JSON
 *   measure.c   warm-up, choice of N, the N/2N repetitions, the top-down pass
 *   harness.c   open/run/close, the configuration, the result
 */
#ifndef TDPROF_HARNESS_HARNESS_INTERNAL_H
#define TDPROF_HARNESS_HARNESS_INTERNAL_H

#include "tdprof/harness.h"

#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perf_event_mmap_page;

/* Limits, named. */
#define HARNESS_MAX_EVENTS 8          /* events in one perf_event group */
#define HARNESS_MAX_ITERATIONS (UINT64_C(1) << 40) /* N never exceeds this */
#define HARNESS_FIXED_COST_SAMPLES 101 /* empty measurements for fixed_cost_ns */
#define HARNESS_CALIBRATE_NS 20000000  /* TSC calibration window (20 ms) */
#define HARNESS_ERR_MAX 256

/* ---- stats.c ---- */

/**
 * Statistics of x[0..n) (n >= 1) into *out. scratch holds n doubles (may alias
 * nothing else); x is not modified. The median of an even count is the mean of
 * the two middle values; MAD is the median of |x - median| (unscaled).
 */
void harness_stats(const double *x, size_t n, double *scratch, struct tdp_harness_stat *out);

/** Median of x[0..n) (n >= 1), sorting x in place. */
double harness_median_inplace(double *x, size_t n);

/* ---- clock.c ---- */

typedef uint64_t harness_clock_fn(void *arg);

struct harness_clock {
	enum tdp_harness_clock kind;
	double ns_per_tick;         /* 1.0 for CLOCK_MONOTONIC_RAW and fake clocks */
	harness_clock_fn *fake;     /* test hook: when set, the only time source (ticks = ns) */
	void *fake_arg;
};

/**
 * Choose and calibrate the clock: the TSC when it is invariant, flags lack
 * TDP_HARNESS_NO_TSC and the calibration is sane (c->kind says which), else
 * CLOCK_MONOTONIC_RAW. Never fails: CLOCK_MONOTONIC_RAW is always there on
 * Linux. Blocks for HARNESS_CALIBRATE_NS when calibrating.
 */
void harness_clock_init(struct harness_clock *c, unsigned flags);

/** Read the clock in ticks (multiply differences by ns_per_tick). */
uint64_t harness_clock_now(const struct harness_clock *c);

/** CLOCK_MONOTONIC_RAW in ns. */
uint64_t harness_clock_raw_ns(void);

/* ---- pin.c ---- */

struct harness_pin {
	int cpu;          /* the pinned CPU, or -1 when not pinned */
	bool restore;     /* saved holds the affinity to restore at close */
	cpu_set_t saved;
};

/**
 * Pin the calling thread to cpu (TDP_HARNESS_CPU_CURRENT: the one it runs on)
 * and verify with sched_getaffinity() and sched_getcpu(). Returns 0 or -EINVAL
 * with a message in err (the affinity is restored on failure).
 */
int harness_pin(struct harness_pin *p, int cpu, char *err, size_t err_size);

/** Restore the affinity saved by harness_pin(); safe when not pinned. */
void harness_unpin(struct harness_pin *p);

/** The CPUs in set as a list ("0-3,8"), into buf. */
void harness_cpuset_format(const cpu_set_t *set, char *buf, size_t size);

/* ---- counters.c ---- */

/** One event of a group: perf_event_attr type and config (and config1). */
struct harness_event {
	uint32_t type;
	uint64_t config;
	uint64_t config1;
	const char *name;
};

/** A reading of a group: raw cumulative counts and the group's times. */
struct harness_reading {
	uint64_t count[HARNESS_MAX_EVENTS];
	uint64_t enabled, running;
};

struct harness_group {
	size_t nr;                                  /* events open (0: none) */
	int fd[HARNESS_MAX_EVENTS];                 /* fd[0] leads */
	struct perf_event_mmap_page *page[HARNESS_MAX_EVENTS]; /* rdpmc only, else NULL */
	bool rdpmc;                                 /* read by rdpmc through page[] */
	uint64_t rdpmc_fallbacks;                   /* reads that found index 0 and used read() */
};

/** Open state of a group; fds are -1. */
void harness_group_init(struct harness_group *g);

enum harness_group_flags {
	HARNESS_GROUP_RDPMC = 1u << 0,  /* mmap each event so it can be read by rdpmc */
	HARNESS_GROUP_KERNEL = 1u << 1, /* count in the kernel too (software events) */
};

/**
 * Open ev[0..nr) (nr <= HARNESS_MAX_EVENTS) as one disabled group counting the
 * calling thread (user mode only unless HARNESS_GROUP_KERNEL). Returns 0, or the
 * negative errno of the first perf_event_open() that failed, with the event named
 * in err; on failure nothing stays open.
 */
int harness_group_open(struct harness_group *g, const struct harness_event *ev, size_t nr,
		       unsigned flags, char *err, size_t err_size);

/** Enable (true) or disable the whole group. Returns 0 or -errno. */
int harness_group_enable(struct harness_group *g, bool on);

/**
 * Check that the group counts: enable it, run a short loop, read it. Sets
 * g->rdpmc when every event reads by rdpmc (cap_user_rdpmc and a non-zero index).
 * Returns 0; -ENODATA when the group never ran (time_running 0: it could not be
 * scheduled); other -errno.
 */
int harness_group_probe(struct harness_group *g);

/**
 * Read all counts of g into r: by rdpmc when g->rdpmc (falling back to read()
 * for this reading when an index is 0), else by one read(). Returns 0 or -errno.
 */
int harness_group_read(struct harness_group *g, struct harness_reading *r);

/** Close every fd and mapping; g is left as after harness_group_init(). */
void harness_group_close(struct harness_group *g);

/*
 * The arithmetic of an mmap-page read, separate so tests can check it without
 * a PMU (perf_event.h, struct perf_event_mmap_page comments).
 */
/** Sign-extend the low `width` bits of a raw counter value (width 1..64). */
uint64_t harness_pmc_sign_extend(uint64_t raw, unsigned width);
/** Convert a time-counter delta to ns with the page's time_mult/time_shift/time_offset. */
uint64_t harness_mmap_time(uint64_t cyc, uint32_t mult, uint16_t shift, uint64_t offset);
/** The count scaled for multiplexing: delta * enabled / running (delta when running >= enabled). */
double harness_scale(double delta, uint64_t enabled, uint64_t running);

/* ---- swcount.c ---- */

struct harness_swcount {
	uint64_t cswitch;     /* context switches (voluntary and involuntary) */
	uint64_t involuntary; /* of which preemptions (getrusage ru_nivcsw) */
	uint64_t migrations;  /* CPU migrations */
	uint64_t faults;      /* page faults (minor and major) */
};

struct harness_sw {
	struct harness_group group; /* perf software events; nr 0 when using getrusage */
	int last_cpu;               /* getrusage path: CPU seen at the last read */
	uint64_t migrations;        /* getrusage path: changes of CPU seen so far */
};

typedef void harness_sw_fn(void *arg, struct harness_swcount *out);

/** Open the software counters (perf, else getrusage). Never fails. */
void harness_sw_open(struct harness_sw *s);
/** Read cumulative counts. */
void harness_sw_read(struct harness_sw *s, struct harness_swcount *out);
void harness_sw_close(struct harness_sw *s);
/** Steal time of cpu (-1: all CPUs) in ms from /proc/stat; NAN when unknown. */
double harness_steal_ms(int cpu);
/** Current frequency of cpu in kHz from cpufreq; 0 when unknown. */
uint64_t harness_cpufreq_khz(int cpu);

/* ---- topdown.c ---- */

enum harness_td_kind {
	HARNESS_TD_NONE = 0,
	HARNESS_TD_INTEL_METRICS, /* Ice Lake+: slots + topdown-* (PERF_METRICS) */
	HARNESS_TD_AMD,           /* Zen 4/5: dispatch-slot events */
	HARNESS_TD_ARM,           /* Armv8.4+ PMU with STALL_SLOT* and OP_* events */
};

struct harness_topdown {
	enum harness_td_kind kind;
	unsigned width;            /* slots per cycle (AMD, Arm) */
	bool n2_erratum;           /* Arm Neoverse N2: STALL_SLOT* count one slot too many per cycle */
	size_t nr;                 /* events in ev[] */
	size_t nr_required;        /* the first nr_required are needed; the rest may be dropped */
	struct harness_event ev[HARNESS_MAX_EVENTS];
	char why_not[256];         /* kind NONE: why (for the note) */
};

/** The identity of the CPU, for choosing top-down events (tests fill it by hand). */
struct harness_cpu_id {
	char vendor[13];           /* "GenuineIntel", "AuthenticAMD", "" elsewhere */
	unsigned family, model;    /* x86 display family and model */
	uint64_t midr;             /* arm64 MIDR_EL1 of the measured CPU; 0 elsewhere */
};

/** Read the identity of cpu (CPUID on x86, sysfs MIDR_EL1 on arm64; zeroes elsewhere). */
void harness_cpu_id_read(struct harness_cpu_id *id, int cpu);

/**
 * Choose the top-down level-1 events for cpu (-1: any): Intel from the
 * kernel's sysfs events under sysfs_root (normally "/sys"), AMD from the
 * family/model, Arm from the core PMU's caps/slots and events. Fills *td
 * (kind NONE and why_not when there are none).
 */
void harness_topdown_detect(struct harness_topdown *td, const struct harness_cpu_id *id,
			    const char *sysfs_root, int cpu);

/**
 * The perf type of the arm64 core PMU that covers cpu (-1: the first one),
 * found under sysfs_root; its directory name into name. Returns 0 or -ENOENT.
 */
int harness_arm_core_pmu(const char *sysfs_root, int cpu, uint32_t *type, char *name, size_t size);

/** True when cpu is in a sysfs CPU list such as "0-3,8". */
bool harness_cpulist_has(const char *list, int cpu);

struct harness_level1 {
	double retiring, bad_speculation, frontend_bound, backend_bound; /* percent */
	double smt_contention; /* AMD only; NAN elsewhere or when not counted */
};

/**
 * Level 1 in percent from event deltas d[0..td->nr) counted together (d[i]
 * belongs to td->ev[i]; nr may be td->nr_required when the optional ones were
 * dropped). Returns 0, or -EDOM when the slots are 0.
 */
int harness_topdown_level1(const struct harness_topdown *td, const double *d, size_t nr,
			   struct harness_level1 *out);

/* ---- diagnose.c ---- */

/* What becomes of one measured pair of N and 2N. */
enum harness_verdict {
	HARNESS_KEEP = 0,
	HARNESS_DISCARD_PREEMPTED,   /* an involuntary context switch during the pair */
	HARNESS_DISCARD_MIGRATED,    /* the thread changed CPU during the pair */
	HARNESS_DISCARD_NONPOSITIVE, /* t(2N) <= t(N): no cost can be derived */
	HARNESS_DISCARD_INCONSISTENT, /* t(2N) - c is not about 2 (t(N) - c): an uncounted interruption */
	HARNESS_NR_VERDICTS,
};

/** What was counted during the repetitions, for naming the cause of a spread. */
struct harness_evidence {
	double spread;              /* MAD / median of the time per iteration */
	double threshold;           /* config spread_warning */
	int cpu;                    /* measured CPU or -1 */
	struct harness_swcount sw;  /* totals over the repetitions */
	double steal_ms;            /* NAN when unknown */
	double ghz_min, ghz_max;    /* per-repetition cycles/ns; NAN without cycles */
	uint64_t khz_min, khz_max;  /* cpufreq samples; 0 when unknown */
	bool multiplexed;
	unsigned kept, wanted;      /* repetitions kept, of those asked for */
	unsigned discarded[HARNESS_NR_VERDICTS]; /* attempts discarded, by cause (HARNESS_KEEP unused) */
};

/**
 * Set the cause bits in *warnings from ev, and, when the spread is above the
 * threshold, TDP_HARNESS_WARN_SPREAD and a sentence naming the likely cause in
 * text (empty otherwise).
 */
void harness_diagnose(const struct harness_evidence *ev, unsigned *warnings, char *text, size_t size);

/* ---- format.c / misc ---- */

/** Append printf text to buf (NUL-terminated, size bytes), truncating safely. */
void harness_appendf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/** Read a small text file into buf (trailing newline removed); -1 when unreadable. */
long harness_read_file(const char *path, char *buf, size_t size);

/* ---- measure.c ---- */

/* One measurement: clock ticks and scaled counter deltas. */
struct harness_sample {
	uint64_t ticks;
	double count[HARNESS_MAX_EVENTS];
	bool counted;     /* the group ran (time_running advanced) */
	bool multiplexed; /* it ran only part of the time: counts are scaled */
};

/* The state of one tdp_harness_run(). */
struct harness_run {
	const struct tdp_harness_kernel *k;
	uint64_t n;          /* N */
	uint64_t n_chosen;   /* N before any shrinking */
	uint64_t n_floor;    /* smallest N to shrink to (0: never shrink) */
	double est_ns;       /* ns per iteration seen in the warm-up */
	double *ns;          /* [repetitions] ns per iteration */
	double *cnt[HARNESS_MAX_EVENTS]; /* [repetitions] count per iteration of each hw event */
	double *ghz;         /* [repetitions] cycles per ns */
	double *scratch;     /* [repetitions] */
	void *block;         /* the one allocation behind the arrays */
	size_t counted;      /* repetitions with counter values */
	double fixed_ns;     /* the fixed cost of a measurement (harness_fixed_cost) */
	unsigned kept;       /* repetitions kept (<= the configured repetitions) */
	unsigned remeasured; /* attempts discarded and measured again */
	unsigned discarded[HARNESS_NR_VERDICTS]; /* of which, by cause */
	unsigned shrinks;    /* times N was divided by HARNESS_SHRINK */
	struct harness_evidence ev;
};

/** Allocate the arrays of run for `reps` repetitions. Returns 0 or -ENOMEM. */
int harness_run_alloc(struct harness_run *run, unsigned reps);
void harness_run_free(struct harness_run *run);

/** One measurement of n iterations of run->k, reading group g around it. Returns 0 or -errno (h->err set). */
int harness_measure(struct tdp_harness *h, struct harness_group *g, const struct tdp_harness_kernel *k, uint64_t n,
		    struct harness_sample *s);

/** Warm up and choose N (run->n, n_chosen, n_floor, est_ns). Returns 0 or -errno. */
int harness_warmup(struct tdp_harness *h, struct harness_run *run);

/** The median cost of an empty measurement, in ns. Returns 0 or -errno. */
int harness_fixed_cost(struct tdp_harness *h, struct harness_run *run, double *out);

/**
 * The verdict on a pair measured in t1_ns (N) and t2_ns (2N) with a fixed cost
 * of fixed_ns per measurement, in this order: migrated, preempted, a difference
 * that is not positive, 2N not within HARNESS_PAIR_TOLERANCE of twice N (both
 * less the fixed cost). Pure, for the tests.
 */
enum harness_verdict harness_pair_verdict(double t1_ns, double t2_ns, double fixed_ns, bool preempted,
					  bool migrated);

/**
 * The repetitions of N and 2N: fills run->ns[0..kept), cnt, ghz, counted, kept,
 * the discards and the evidence; may shrink run->n when disturbances keep
 * spoiling repetitions. Never keeps a discarded pair: at most
 * HARNESS_ATTEMPTS_PER_REP attempts per repetition, so kept may be short of the
 * configured repetitions (even 0).
 */
int harness_repetitions(struct tdp_harness *h, struct harness_run *run);

/** The top-down pass; *ok tells whether *l1 was computed. Returns 0 or -errno. */
int harness_topdown_pass(struct tdp_harness *h, struct harness_run *run, struct harness_level1 *l1, bool *ok);

/* ---- harness.c ---- */

struct tdp_harness {
	struct tdp_harness_config cfg;
	struct harness_pin pin;
	struct harness_clock clock;
	enum tdp_harness_method method;
	struct harness_group hw;       /* cycles, instructions, branch-misses (nr 0: none) */
	int hw_role[HARNESS_MAX_EVENTS]; /* enum tdp_harness_counter of each hw event */
	struct harness_topdown td;     /* the level-1 events, when the CPU has them */
	struct harness_group tdg;      /* their group (nr 0: none) */
	struct harness_sw sw;
	harness_sw_fn *fake_sw;        /* test hook: replaces harness_sw_read() when set */
	void *fake_sw_arg;
	char note[TDP_HARNESS_TEXT_MAX];
	char err[HARNESS_ERR_MAX];
};

/**
 * Test hook: replace the clock with fn (ticks are ns). Pass NULL to restore the
 * real clock. Used by the unit tests to feed known durations. A fake clock also
 * fakes the software counters as "never preempted" (until harness_set_fake_sw()),
 * so that the real scheduler cannot make a synthetic run remeasure.
 */
void harness_set_fake_clock(struct tdp_harness *h, harness_clock_fn *fn, void *arg);

/** Test hook: read the software counters with fn instead (NULL: the real ones). */
void harness_set_fake_sw(struct tdp_harness *h, harness_sw_fn *fn, void *arg);

/** The software counters, real or faked. */
void harness_sw_now(struct tdp_harness *h, struct harness_swcount *out);

#endif
