/*
 * <tdprof/harness.h>: measure one hot loop in isolation, cheaply and reproducibly.
 *
 * The harness runs a kernel (a function you register) pinned to one CPU, warms it
 * up, chooses an inner iteration count N so that one measurement lasts a target
 * time, and repeats. Each repetition measures N and 2N iterations and keeps the
 * difference divided by N, which cancels every cost paid once per measurement
 * (reading the clock and the counters, the call into the kernel, the first cold
 * iteration): see docs/harness.md. A repetition during which the thread was
 * preempted or migrated, or whose N and 2N disagree, is discarded (counted by
 * cause) and measured again; when most are, N is made smaller so that
 * measurements fit between preemptions. Across the kept repetitions it reports the minimum,
 * median, median absolute deviation (MAD) and relative spread (MAD / median) of the
 * time, cycles, instructions and branch misses per iteration, IPC, and top-down
 * level 1 where the PMU can count it; when the spread is high it says which
 * interruption it counted (context switches, migrations, page faults, frequency
 * changes, hypervisor steal time).
 *
 * Counters are read with the cheapest method the machine allows, in this order:
 *   rdpmc   user-space reads through the perf mmap page (x86 rdpmc; arm64 mrs of
 *           PMEVCNTR<n>_EL0 / PMCCNTR_EL0 when /proc/sys/kernel/perf_user_access = 1)
 *   read    one read() of the perf_event group per measurement
 *   clock   no hardware PMU (most VMs): time only, from the invariant TSC
 *           (calibrated against CLOCK_MONOTONIC_RAW) or CLOCK_MONOTONIC_RAW
 *
 * Lifecycle:
 *   1. struct tdp_harness_config cfg; tdp_harness_config_init(&cfg); adjust cfg.
 *   2. tdp_harness_open(&h, &cfg, errbuf, sizeof(errbuf)): pins the calling thread,
 *      opens the counters, calibrates the clock.
 *   3. tdp_harness_run(h, &kernel, &result) as often as needed (one kernel at a time).
 *   4. tdp_harness_format_text() / tdp_harness_format_json() to print a result.
 *   5. tdp_harness_close(h): closes the counters and restores the thread's affinity.
 * tdp_harness_measure() does 2-3-5 in one call.
 *
 * Threads: a harness belongs to the thread that opened it (pinning and the
 * counters are per thread) and must be run and closed by that thread. Separate
 * harnesses in separate threads are independent. The library has no global
 * mutable state, never prints (messages go to the optional log callback and into
 * the result), never exits and never reads the environment.
 *
 * Errors: functions that can fail return 0 or a negative errno value (-EINVAL,
 * -ENOMEM, ...) and describe the failure in words (tdp_harness_error(), or the
 * errbuf of tdp_harness_open()).
 *
 * Link with -ltdprof-harness (pkg-config: tdprof-harness).
 */
#ifndef TDPROF_HARNESS_H
#define TDPROF_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TDP_HARNESS_VERSION_MAJOR 0
#define TDP_HARNESS_VERSION_MINOR 1

/* The library is built with hidden visibility; this marks what it exports. */
#if defined(__GNUC__)
#define TDP_HARNESS_API __attribute__((visibility("default")))
#else
#define TDP_HARNESS_API
#endif

/** A harness: opaque; made by tdp_harness_open(), freed by tdp_harness_close(). */
struct tdp_harness;

/** How counters are read (tdp_harness_method_name() gives "rdpmc", "read", "clock"). */
enum tdp_harness_method {
	TDP_HARNESS_METHOD_CLOCK = 0, /* no counters: time only */
	TDP_HARNESS_METHOD_READ = 1,  /* read() of the perf_event group */
	TDP_HARNESS_METHOD_RDPMC = 2, /* user-space counter reads via the perf mmap page */
};

/** Where time comes from (tdp_harness_clock_name() gives "tsc", "monotonic_raw"). */
enum tdp_harness_clock {
	TDP_HARNESS_CLOCK_MONOTONIC_RAW = 0, /* clock_gettime(CLOCK_MONOTONIC_RAW) */
	TDP_HARNESS_CLOCK_TSC = 1,           /* rdtsc, invariant TSC, converted to ns */
};

/** The hardware counters of a result (index of tdp_harness_result.counter). */
enum tdp_harness_counter {
	TDP_HARNESS_CYCLES = 0,
	TDP_HARNESS_INSTRUCTIONS = 1,
	TDP_HARNESS_BRANCH_MISSES = 2,
	TDP_HARNESS_NR_COUNTERS = 3,
};

enum tdp_harness_log_level {
	TDP_HARNESS_LOG_NOTE = 0,    /* how the measurement is made (method, pinning) */
	TDP_HARNESS_LOG_WARNING = 1, /* the result is less trustworthy (high spread) */
};

/**
 * A log callback: receives one message (lower case, no final newline) per call.
 * msg is borrowed for the duration of the call. Called from the harness's thread.
 */
typedef void tdp_harness_log_fn(void *arg, enum tdp_harness_log_level level, const char *msg);

/** Flags of tdp_harness_config.flags. */
enum tdp_harness_flags {
	TDP_HARNESS_NO_PIN = 1u << 0,      /* leave the thread's affinity alone */
	TDP_HARNESS_NO_COUNTERS = 1u << 1, /* do not open hardware counters (method clock) */
	TDP_HARNESS_NO_TOPDOWN = 1u << 2,  /* skip the top-down pass */
	TDP_HARNESS_NO_RDPMC = 1u << 3,    /* read counters with read() even if rdpmc works */
	TDP_HARNESS_NO_TSC = 1u << 4,      /* time with CLOCK_MONOTONIC_RAW, not the TSC */
};

/** tdp_harness_config.cpu: pin to the CPU the thread is running on at open. */
#define TDP_HARNESS_CPU_CURRENT (-1)

#define TDP_HARNESS_MAX_REPETITIONS 100001u

/** What to measure and how; set every field with tdp_harness_config_init() first. */
struct tdp_harness_config {
	int cpu;                /* CPU to pin to (0..), or TDP_HARNESS_CPU_CURRENT (default) */
	unsigned repetitions;   /* measurements of N and 2N (default 31; 3..TDP_HARNESS_MAX_REPETITIONS) */
	double target_seconds;  /* duration of one measurement of N iterations (default 0.01) */
	double warmup_seconds;  /* run the kernel this long before measuring (default 0.1; 0: none) */
	uint64_t iterations;    /* N; 0 (default): chosen from target_seconds */
	double spread_warning;  /* warn when MAD / median exceeds this (default 0.01, i.e. 1 %) */
	unsigned flags;         /* enum tdp_harness_flags */
	tdp_harness_log_fn *log; /* NULL (default): no messages (they are still in results) */
	void *log_arg;           /* passed to log */
};

/**
 * A kernel. Give either `run` (preferred: it loops n times itself, so the
 * per-iteration figures include no call) or `call` (called once per iteration
 * through a pointer, which adds a call and return, about 3 cycles, to each
 * iteration). The kernel's results must be consumed (stored, or passed to an
 * empty asm volatile) or the compiler may delete the work being measured.
 */
struct tdp_harness_kernel {
	const char *name;                     /* for messages; may be NULL */
	void (*run)(void *arg, uint64_t n);   /* run n iterations (n may be 0) */
	void (*call)(void *arg);              /* run one iteration (used when run is NULL) */
	int (*setup)(void *arg);              /* optional, once before measuring; non-zero fails */
	void (*teardown)(void *arg);          /* optional, after measuring, when setup succeeded */
	void *arg;                            /* borrowed; passed to every function above */
};

/** Statistics of one figure across the kept repetitions. */
struct tdp_harness_stat {
	double min;    /* smallest repetition */
	double median; /* median repetition */
	double mad;    /* median absolute deviation from the median */
	double max;    /* largest repetition */
	double spread; /* mad / |median|; NAN when the median is 0 */
};

/** Bits of tdp_harness_result.warnings: the likely causes of a high spread. */
enum tdp_harness_warning {
	TDP_HARNESS_WARN_SPREAD = 1u << 0,       /* spread above config.spread_warning */
	TDP_HARNESS_WARN_CSWITCH = 1u << 1,      /* context switches during measurements */
	TDP_HARNESS_WARN_MIGRATION = 1u << 2,    /* the thread changed CPU */
	TDP_HARNESS_WARN_FREQUENCY = 1u << 3,    /* the core clock changed between repetitions */
	TDP_HARNESS_WARN_PAGE_FAULTS = 1u << 4,  /* page faults during measurements */
	TDP_HARNESS_WARN_STEAL = 1u << 5,        /* the hypervisor ran something else on this CPU */
	TDP_HARNESS_WARN_MULTIPLEXED = 1u << 6,  /* the counters were time-shared (scaled) */
	TDP_HARNESS_WARN_FEW_KEPT = 1u << 7,     /* fewer repetitions kept than asked for (discards) */
};

#define TDP_HARNESS_TEXT_MAX 512

/**
 * The result of one run. All per-iteration figures are differences between the
 * 2N and N measurements divided by N. Plain data: copy it freely; `kernel` is
 * borrowed from the kernel's name.
 */
struct tdp_harness_result {
	const char *kernel;              /* the kernel's name (borrowed), or NULL */
	enum tdp_harness_method method;  /* how counters were read */
	enum tdp_harness_clock clock;    /* where time came from */
	int cpu;                         /* the CPU measured on (pinned), or -1 when not pinned */
	uint64_t iterations;             /* N (each repetition runs N and 2N) */
	unsigned repetitions;            /* repetitions asked for (config.repetitions) */
	struct tdp_harness_stat ns;      /* nanoseconds per iteration */
	double fixed_cost_ns;            /* median cost of one empty measurement (removed) */
	double seconds;                  /* wall time of the run, warm-up included */
	bool has_counter[TDP_HARNESS_NR_COUNTERS];           /* false: not counted */
	struct tdp_harness_stat counter[TDP_HARNESS_NR_COUNTERS]; /* per iteration */
	double ipc;                      /* instructions / cycles (medians); NAN when absent */
	double ghz;                      /* cycles per ns (median); NAN when absent */
	bool has_topdown;                /* the four fields below are valid */
	double retiring, bad_speculation, frontend_bound, backend_bound; /* % of slots */
	double smt_contention;           /* AMD Zen 4+ extra level-1 node (%); NAN elsewhere */
	uint64_t context_switches;       /* during the repetitions (every attempt) */
	uint64_t migrations;             /* idem */
	uint64_t page_faults;            /* idem */
	unsigned kept;                   /* repetitions the figures come from (<= repetitions; 0: figures NAN) */
	unsigned remeasured;             /* attempts discarded and measured again (the sum of the four below) */
	unsigned discarded_preempted;    /* discarded: the thread was preempted during the pair */
	unsigned discarded_migrated;     /* discarded: the thread changed CPU during the pair */
	unsigned discarded_nonpositive;  /* discarded: t(2N) - t(N) was not positive */
	unsigned discarded_inconsistent; /* discarded: t(2N) was not about twice t(N) (an uncounted interruption) */
	double steal_ms;                 /* hypervisor steal time on the CPU; NAN when unknown */
	unsigned warnings;               /* enum tdp_harness_warning bits */
	char note[TDP_HARNESS_TEXT_MAX];     /* how it was measured, why counters are absent */
	char warning[TDP_HARNESS_TEXT_MAX];  /* the spread warning and its cause; "" when none */
};

/** Fill cfg with the defaults documented in struct tdp_harness_config. */
TDP_HARNESS_API void tdp_harness_config_init(struct tdp_harness_config *cfg);

/**
 * Open a harness: check cfg, pin the calling thread to cfg->cpu (unless
 * TDP_HARNESS_NO_PIN) and verify it runs there, open the counters (falling back
 * to the clock when there is no PMU or no permission, which is not an error:
 * the reason is in every result's note) and calibrate the clock (about 20 ms).
 * cfg is copied; errbuf (may be NULL) receives a message on failure.
 * On success *out is a new harness the caller closes with tdp_harness_close().
 * Returns 0; -EINVAL (bad configuration, or cfg->cpu is not a CPU this thread
 * may run on); -ENOMEM. On failure *out is untouched and the affinity restored.
 * Not thread-safe with respect to the same harness; allocates.
 */
TDP_HARNESS_API int tdp_harness_open(struct tdp_harness **out, const struct tdp_harness_config *cfg,
		     char *errbuf, size_t errlen);

/**
 * Measure kernel k (borrowed): setup, warm-up, choice of N, repetitions,
 * statistics, diagnosis, teardown. Writes *out (fully, also on failure, when
 * it holds what is known). Blocks for about warmup + 3 * repetitions * target
 * seconds (twice the repetitions' share when top-down is counted).
 * Returns 0; -EINVAL (k has neither run nor call); -ECANCELED (k->setup
 * returned non-zero); -EIO (the thread was moved off its CPU, or reading the
 * counters failed); -ENOMEM. The message is in tdp_harness_error(h).
 */
TDP_HARNESS_API int tdp_harness_run(struct tdp_harness *h, const struct tdp_harness_kernel *k,
		    struct tdp_harness_result *out);

/** The message of the last failure of h ("" when none); owned by h. */
TDP_HARNESS_API const char *tdp_harness_error(const struct tdp_harness *h);

/** The method h reads counters with (fixed at open). */
TDP_HARNESS_API enum tdp_harness_method tdp_harness_method(const struct tdp_harness *h);

/** Close h: counters, mappings, the thread's original affinity. NULL does nothing. */
TDP_HARNESS_API void tdp_harness_close(struct tdp_harness *h);

/**
 * One-shot: open with cfg (NULL: defaults), run k, close. Returns as
 * tdp_harness_open() / tdp_harness_run(); errbuf (may be NULL) gets the message.
 */
TDP_HARNESS_API int tdp_harness_measure(const struct tdp_harness_kernel *k, const struct tdp_harness_config *cfg,
			struct tdp_harness_result *out, char *errbuf, size_t errlen);

/** "rdpmc", "read" or "clock"; "unknown" for other values. Never NULL. */
TDP_HARNESS_API const char *tdp_harness_method_name(enum tdp_harness_method m);

/** "tsc" or "monotonic_raw"; "unknown" for other values. Never NULL. */
TDP_HARNESS_API const char *tdp_harness_clock_name(enum tdp_harness_clock c);

/**
 * Write r as human-readable lines into buf (size bytes, always NUL-terminated
 * when size > 0), like snprintf. Returns the length the full text needs (excluding
 * the NUL): when it is >= size the text was truncated.
 */
TDP_HARNESS_API size_t tdp_harness_format_text(const struct tdp_harness_result *r, char *buf, size_t size);

/**
 * Write r as one JSON object (keys: kernel, method, clock, cpu, iterations,
 * repetitions, median_ns_per_iteration, min_ns_per_iteration, max_ns_per_iteration,
 * mad_ns_per_iteration, spread_pct, fixed_cost_ns, seconds, counters (null without a
 * PMU), level1 (null when not counted), context_switches, migrations, page_faults,
 * kept_repetitions, remeasured, discarded (preempted, migrated, nonpositive,
 * inconsistent), steal_ms, notes, warnings),
 * like snprintf. Returns the length the full text needs, as tdp_harness_format_text().
 */
TDP_HARNESS_API size_t tdp_harness_format_json(const struct tdp_harness_result *r, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
