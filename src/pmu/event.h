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
 *     own terms (config, config1, config2, period, name);
 *   - sysfs aliases: `cpu/topdown-retiring/`, `armv8_pmuv3_0/stall_slot/` (from
 *     <pmu>/events/<alias>), alone or with extra terms;
 *   - raw: `rNNNN` (hex config of the core PMU);
 *   - libpfm4 names: `INT_MISC:RECOVERY_CYCLES:c=1`, `inst_retired.any`
 *     (case-insensitive, '.' or ':' between event and umask);
 *   - modifiers after ':' on any of the above: u, k, h, G, H, p/pp/ppp, S (read
 *     group on sample), D (pinned).
 *
 * Lifecycle:
 *   1. struct pmu_event_list l = PMU_EVENT_LIST_INIT;
 *   2. pmu_event_list_parse(&l, "cycles,{slots,topdown-retiring}", &env, &err);
 *   3. use l.v[i].attr (the counting engine sets read_format, disabled, inherit,
 *      enable_on_exec; the parser sets type/config/config1/config2/exclude_*,
 *      precise_ip and nothing else);
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

struct pmu_event {
	char *name;                  /* as the user spelled it, modifiers included */
	char *pmu;                   /* PMU name: "cpu", "software", "armv8_pmuv3_0", ... */
	struct perf_event_attr attr; /* size, type, config*, exclude_*, precise_ip */
	enum pmu_event_source source;
	bool is_hardware;            /* needs a hardware counter (not software) */
	int group;                   /* group number within the list; -1 when alone */
	bool leader;                 /* first member of its group */
	double scale;                /* sysfs <alias>.scale (1.0 when none) */
	char *unit;                  /* sysfs <alias>.unit or "msec" for clocks; never NULL */
};

struct pmu_event_list {
	struct pmu_event *v;
	size_t nr;
	size_t alloc;
};

#define PMU_EVENT_LIST_INIT { NULL, 0, 0 }

/**
 * Parse a comma-separated event list and append its events to `list`.
 * env: borrowed, may be NULL (defaults). On failure returns TDP_ENOENT (unknown
 * event: message names it, hint suggests close names), TDP_EUSAGE (syntax error:
 * message quotes the spec and the position), TDP_ENOMEM; `list` keeps the events
 * appended before the failing one (release it either way).
 */
int pmu_event_list_parse(struct pmu_event_list *list, const char *spec, const struct pmu_env *env,
			 struct tdp_err *err) __attribute__((warn_unused_result));

/** Free the events; the list is left as after PMU_EVENT_LIST_INIT. */
void pmu_event_list_release(struct pmu_event_list *list);

/**
 * Describe an encoding the way perf's -vv does ("type=4 config=0x5300c0"), into buf.
 * Returns buf.
 */
char *pmu_event_describe(const struct pmu_event *ev, char *buf, size_t size);

#endif
