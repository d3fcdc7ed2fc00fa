/*
 * event.h: event specifications, as perf spells them, turned into
 * perf_event_attr encodings.
 *
 * Accepted spellings (a comma-separated list; `{a,b}` makes a group whose first
 * member leads it, as in perf):
 *   - perf's generic names: cycles, instructions, branches, branch-misses,
 *     cache-references, cache-misses, ref-cycles, stalled-cycles-frontend, ...,
 *     the hardware cache events (L1-icache-load-misses, LLC-loads, dTLB-load-misses,
 *     ...) and the software events (task-clock, cpu-clock, context-switches/cs,
 *     cpu-migrations/migrations, page-faults/faults, minor-faults, major-faults,
 *     alignment-faults, emulation-faults, dummy);
 *   - PMU terms: `pmu/term=val,term,.../` with the fields of sysfs
 *     <pmu>/format/ (event, umask, cmask, edge, inv, any, ...), plus perf's
 *     own terms (config, config1, config2, period, freq, name);
 *   - sysfs aliases: `cpu/topdown-retiring/`, `armv8_pmuv3_0/stall_slot/` (from
 *     <pmu>/events/<alias>), alone or with extra terms;
 *   - raw: `rNNNN` (hex config of the core PMU);
 *   - libpfm4 names: `INT_MISC:RECOVERY_CYCLES:c=1`, `inst_retired.any`
 *     (case-insensitive, '.' or ':' between event and umask), with libpfm4's
 *     attributes (c=N, e, i, t, ...); a last ':' group made only of perf
 *     modifiers (`INST_RETIRED.ANY:upp`) is applied with perf's meaning;
 *   - modifiers after ':' on any of the above: u, k, h, G, H, p/pp/ppp, S (read
 *     group on sample), D (pinned), also P (maximum precision), I (exclude idle)
 *     and W (weak group), with perf's meaning; after `pmu/.../` they may follow
 *     the '/' directly (`cpu/event=0x3c/u`).
 *   - perf's names of the events the top-down models use where libpfm4 spells
 *     them differently (`de_no_dispatch_per_slot.no_ops_from_frontend` on Zen 4,
 *     `CPU_CLK_UNHALTED.THREAD` on Skylake), for the CPU libpfm4 detects.
 *
 * Resolution order of a name without '/': generic and software names, raw,
 * sysfs aliases of the core PMU, libpfm4. Generic, software and raw names touch
 * neither sysfs nor libpfm4 (start-up cost); sysfs is read only for the PMU
 * named or, for a bare alias, the list of PMUs; libpfm4 is initialised once per
 * process, on the first name that needs it.
 *
 * Defaults as perf sets them: every event has exclude_guest = 1; u/k/h exclude
 * the privilege levels not listed; G counts the guest only, H the host only.
 *
 * Lifecycle:
 *   1. struct pmu_event_list l = PMU_EVENT_LIST_INIT;
 *   2. pmu_event_list_parse(&l, "cycles,{slots,topdown-retiring}", &env, &err);
 *   3. use l.v[i].attr (the counting engine sets read_format, disabled, inherit,
 *      enable_on_exec; the parser sets size, type, config/config1/config2,
 *      exclude_*, precise_ip, and pinned (D), sample_period/freq (period=,
 *      freq= terms) when asked, nothing else);
 *   4. pmu_event_list_release(&l).
 *
 * Nothing here opens an event. Unknown names fail with TDP_ENOENT, naming the
 * event and suggesting the closest known names in err->hint.
 */
#ifndef TDPROF_PMU_EVENT_H
#define TDPROF_PMU_EVENT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tdp_err;

/* Where the parser looks things up; tests point it at a fake sysfs tree. */
struct pmu_env {
	const char *sysfs_root; /* "/sys" by default (NULL means "/sys") */
	bool use_libpfm;        /* try libpfm4 names (pfm_initialize is done on demand) */
};

#define PMU_ENV_INIT { "/sys", true }

enum pmu_event_source {
	PMU_EV_GENERIC = 0, /* perf generic hardware or cache event */
	PMU_EV_SOFTWARE,    /* software event (task-clock, ...) */
	PMU_EV_SYSFS,       /* pmu/terms/ or a sysfs alias */
	PMU_EV_RAW,         /* rNNNN */
	PMU_EV_LIBPFM,      /* encoded by libpfm4 */
};

/* Modifiers with no perf_event_attr field (pmu_event.flags). */
enum pmu_event_flags {
	PMU_EVF_SAMPLE_READ = 1u << 0, /* S: read the whole group on each sample */
	PMU_EVF_WEAK = 1u << 1,        /* W: weak group (split it if it cannot be scheduled) */
	PMU_EVF_PRECISE_MAX = 1u << 2, /* P: use the highest precise_ip the kernel accepts */
	PMU_EVF_NAMED = 1u << 3,       /* the name came from a name= term */
};

struct pmu_event {
	char *name;                  /* as the user spelled it, modifiers included (group
	                                modifiers appended); the name= term replaces it */
	char *pmu;                   /* PMU name: "cpu", "software", "armv8_pmuv3_0", ...;
	                                "cpu" for generic hardware, cache, raw and libpfm4
	                                core events (the kernel routes them to the core PMU) */
	struct perf_event_attr attr; /* size, type, config*, exclude_*, precise_ip (see above) */
	enum pmu_event_source source;
	bool is_hardware;            /* needs a hardware counter (not software) */
	int group;                   /* group number within the list; -1 when alone */
	bool leader;                 /* first member of its group */
	double scale;                /* sysfs <alias>.scale (1.0 when none); 1e-6 for the
	                                clocks (cpu-clock, task-clock count ns, shown in msec) */
	char *unit;                  /* sysfs <alias>.unit or "msec" for clocks; never NULL */
	unsigned flags;              /* enum pmu_event_flags */
};

struct pmu_event_list {
	struct pmu_event *v;
	size_t nr;
	size_t alloc;
};

#define PMU_EVENT_LIST_INIT { NULL, 0, 0 }

/* Limits on hostile input (exceeding one is a TDP_ELIMIT or TDP_EUSAGE error). */
#define PMU_SPEC_MAX 65536   /* bytes in one event list */
#define PMU_EVENTS_MAX 4096  /* events in one list */
#define PMU_EVENT_NAME_MAX 1024 /* bytes in one event of the list */
#define PMU_TERMS_MAX 64     /* terms inside one pmu/.../ (alias terms included) */

/**
 * Parse a comma-separated event list and append its events to `list`.
 * env: borrowed, may be NULL (defaults). Group numbers continue after the groups
 * already in `list`. Returns 0, or on failure TDP_ENOENT (unknown event: message
 * names it, hint suggests close names; or a `pmu/` that does not exist: message
 * names the PMU, hint lists those that do), TDP_EUSAGE (syntax error: message
 * quotes the spec and the 1-based position; also an unknown term, a value too big
 * for its field, a bad modifier or an attribute libpfm4 rejects), TDP_ELIMIT (a
 * limit above), TDP_EFORMAT (an unreadable sysfs format or alias file),
 * TDP_ENOMEM; `list` keeps the events appended before the failing one (release it
 * either way). Reads sysfs and may initialise libpfm4 (see above); thread-safe
 * as long as each thread uses its own list.
 */
int pmu_event_list_parse(struct pmu_event_list *list, const char *spec, const struct pmu_env *env,
			 struct tdp_err *err) __attribute__((warn_unused_result));

/** Free the events; the list is left as after PMU_EVENT_LIST_INIT. */
void pmu_event_list_release(struct pmu_event_list *list);

/**
 * Describe an encoding the way perf's -vv does ("type=4 config=0x5300c0"), into buf:
 * type and config always, then config1/config2, exclude_* bits, precise_ip, pinned,
 * sample_period and freq when they are not zero. Truncated to fit; size 0 writes
 * nothing. Returns buf.
 */
char *pmu_event_describe(const struct pmu_event *ev, char *buf, size_t size);

/* One name `tdprof list events` shows. */
struct pmu_event_desc {
	char *name; /* as the user types it: "cycles", "topdown-retiring", "msr/tsc/",
	               "INT_MISC.RECOVERY_CYCLES" */
	char *desc; /* one line, never NULL (may be empty) */
	char *pmu;  /* "cpu", "software", a sysfs PMU, or the libpfm4 PMU ("skl") */
	enum pmu_event_source source;
};

struct pmu_event_desc_list {
	struct pmu_event_desc *v;
	size_t nr;
	size_t alloc;
};

#define PMU_EVENT_DESC_LIST_INIT { NULL, 0, 0 }

/**
 * Append every name known here to `out`, in this order: generic hardware names,
 * hardware cache names (perf's spellings, one per valid type/op/result), software
 * names, sysfs aliases (bare for core PMUs, `pmu/alias/` for the others; reads the
 * PMU directories under env->sysfs_root), and, when env->use_libpfm, the events
 * and EVENT.UMASK names of the core PMU libpfm4 detects plus perf's names for them.
 * env: borrowed, may be NULL (defaults). Returns 0 or TDP_ENOMEM (out keeps what
 * was appended; release it either way). A missing sysfs tree or a libpfm4 that
 * detects nothing is not an error: those names are simply absent.
 */
int pmu_event_known(struct pmu_event_desc_list *out, const struct pmu_env *env, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** Free the descriptions; the list is left as after PMU_EVENT_DESC_LIST_INIT. */
void pmu_event_desc_list_release(struct pmu_event_desc_list *list);

/**
 * perf's name of a generic event from its attr's type and config, as perf names an
 * attr that has no recorded name: "cycles", "instructions", "branch-misses",
 * "cpu-clock", "page-faults" (hardware and software events), "r1c2" (raw), into
 * buf (size bytes). Returns true, or false for any other type or an unknown config
 * (buf then ""). Pure.
 */
bool pmu_event_generic_name(uint32_t type, uint64_t config, char *buf, size_t size);

#endif
