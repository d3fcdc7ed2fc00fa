/*
 * counter.h: the counting engine on perf_event_open(2).
 *
 * Opens a parsed event list (pmu/event.h) as counter groups on a target (tasks or
 * CPUs), reads every group in one read() with
 * PERF_FORMAT_GROUP|ID|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING (a singleton is a group
 * of one), and turns the readings into a struct countset (base/countset.h), scaled
 * for multiplexing, with totals or with deltas since the previous interval.
 *
 * An event that cannot be opened is not an error: it becomes COUNT_NOT_SUPPORTED
 * (its errno is kept to explain why) and the other groups keep going. A group whose
 * leader cannot be opened is entirely not supported; a member that fails alone is
 * not supported alone. A counter that never ran is COUNT_NOT_COUNTED. Neither is
 * ever reported as 0.
 *
 * Lifecycle:
 *   1. struct pmu_counters c = PMU_COUNTERS_INIT;
 *   2. pmu_counters_open(&c, &events, &target, &err);  (events opened disabled;
 *      with target.enable_on_exec the kernel enables them when the task execs)
 *   3. pmu_counters_enable(&c) when counting should start (not with enable_on_exec);
 *   4. pmu_counters_read(&c, &err) whenever a reading is wanted (interval or end);
 *      pmu_counters_countset(&c, false, &cs) for totals, (&c, true, &cs) for the
 *      change since the last pmu_counters_advance(&c);
 *   5. pmu_counters_close(&c).
 *
 * Slots: an event is opened once per slot, a slot being one task (pid, cpu=-1) or
 * one CPU (pid=-1, cpu). Values are summed over slots; each slot is scaled by its
 * own enabled/running times before summing.
 *
 * Units: clock events (unit "msec": task-clock, cpu-clock) are kept in nanoseconds as
 * base/countset.h requires; other events are multiplied by their sysfs scale.
 */
#ifndef TDPROF_PMU_COUNTER_H
#define TDPROF_PMU_COUNTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmu/event.h"

struct countset;
struct tdp_err;

#define PMU_GROUP_MAX_EVENTS 64      /* events in one group, leader included */
#define PMU_COUNTERS_MAX_EVENTS 1024 /* events in one counter set */
#define PMU_COUNTERS_MAX_SLOTS 8192  /* tasks or CPUs one event is opened on */

/* The read_format every group is opened with. */
#define PMU_READ_FORMAT \
	(PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)

/* What to count: tasks (tids non-NULL) or CPUs (cpus non-NULL); exactly one of them. */
struct pmu_target {
	const pid_t *tids;   /* tasks to count, each on every CPU; borrowed */
	size_t nr_tids;
	const int *cpus;     /* CPUs to count, every task on them; borrowed */
	size_t nr_cpus;
	bool inherit;        /* tasks: also count threads and children created later */
	bool enable_on_exec; /* tasks: the kernel enables the counters at the task's next exec */
};

/* One cumulative reading of one event on one slot, as the kernel returns it. */
struct pmu_slot_count {
	uint64_t value;
	uint64_t enabled;
	uint64_t running;
};

struct pmu_counter {
	char *name;                /* the event as the user spelled it */
	char *unit;                /* "msec" for clocks, the sysfs unit, or ""; never NULL */
	double scale;              /* sysfs scale (1.0 when none); not applied to clocks */
	bool is_hardware;          /* needs a hardware counter */
	bool is_clock;             /* value in ns (unit "msec") */
	int group;                 /* index in pmu_counters.groups */
	int list_group;            /* the event's group number in its list; -1 alone */
	struct perf_event_attr attr;
	int *fd;                   /* [nr_slots]; -1 where not open */
	uint64_t *id;              /* [nr_slots]; kernel id, matched in group reads */
	struct pmu_slot_count *cur;  /* [nr_slots] latest reading */
	struct pmu_slot_count *prev; /* [nr_slots] reading at the last pmu_counters_advance() */
	size_t nr_open;            /* slots where it is open */
	int open_errno;            /* errno of the first failed open; 0 when none failed */
	bool user_only;            /* kernel counting was refused: counts user space only (see
				    * pmu_counters_open(), as perf's fallback) */
};

struct pmu_group {
	size_t *members;           /* indices into pmu_counters.v, leader first */
	size_t nr;
};

struct pmu_counters {
	struct pmu_counter *v;     /* in the order of the event list */
	size_t nr;
	struct pmu_group *groups;
	size_t nr_groups;
	size_t nr_slots;
	bool per_cpu;              /* slots are CPUs */
	size_t nr_user_only;       /* counters that fell back to user space only */
};

#define PMU_COUNTERS_INIT { NULL, 0, NULL, 0, 0, false, 0 }

/* One group read (PERF_FORMAT_GROUP), parsed. */
struct pmu_group_read {
	uint64_t nr;               /* entries in v */
	uint64_t enabled;          /* 0 unless TOTAL_TIME_ENABLED */
	uint64_t running;          /* 0 unless TOTAL_TIME_RUNNING */
	struct {
		uint64_t value;
		uint64_t id;           /* 0 unless PERF_FORMAT_ID */
		uint64_t lost;         /* 0 unless PERF_FORMAT_LOST */
	} v[PMU_GROUP_MAX_EVENTS];
};

/**
 * Parse the bytes a read() of a group leader returned (read_format must contain
 * PERF_FORMAT_GROUP). buf: borrowed, untrusted. Returns 0 and fills out;
 * TDP_ELIMIT when nr exceeds PMU_GROUP_MAX_EVENTS; TDP_EFORMAT when len is shorter
 * than nr entries need or read_format lacks PERF_FORMAT_GROUP (message gives the
 * offset). Pure; does not allocate.
 */
int pmu_group_read_parse(const uint8_t *buf, size_t len, uint64_t read_format, struct pmu_group_read *out,
			 struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Open every event of `events` (borrowed; copied) on the slots of `t` (borrowed),
 * disabled. Events sharing a group number are opened as one group (the leader is
 * the member with `leader` set, or the first). Failures of single events are
 * recorded in them, not returned.
 * Returns 0; TDP_EPERM when no event at all could be opened because of permissions
 * (hint: perf_event_paranoid); TDP_ENOENT when a target task does not exist;
 * TDP_ELIMIT for too many events/slots/members or "too many open files";
 * TDP_ENOMEM; TDP_EINVAL for a bad target. On failure c is closed.
 */
int pmu_counters_open(struct pmu_counters *c, const struct pmu_event_list *events, const struct pmu_target *t,
		      struct tdp_err *err) __attribute__((warn_unused_result));

/** Enable every open group (PERF_EVENT_IOC_ENABLE on the leaders). Returns 0 or TDP_EIO. */
int pmu_counters_enable(struct pmu_counters *c, struct tdp_err *err) __attribute__((warn_unused_result));

/** Disable every open group. Returns 0 or TDP_EIO. */
int pmu_counters_disable(struct pmu_counters *c, struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Read every open group on every slot into the counters' `cur` readings.
 * Returns 0; TDP_EIO when a read fails; TDP_EFORMAT/TDP_ELIMIT when the kernel's
 * answer does not parse. Does not block (counter reads never do).
 */
int pmu_counters_read(struct pmu_counters *c, struct tdp_err *err) __attribute__((warn_unused_result));

/** Remember the current readings as the base of the next delta. */
void pmu_counters_advance(struct pmu_counters *c);

/** Forget the readings (cur and prev become 0), e.g. before a new run on the same fds. */
void pmu_counters_reset_readings(struct pmu_counters *c);

/**
 * Append one count per event, in list order, to `out` (whose backend is left as
 * it is): totals (delta false) or the change since the last pmu_counters_advance().
 * Each count: name, unit, group (its list group, -1 alone), raw/enabled/running
 * summed over slots, value scaled per slot, running_pct, status (not supported
 * when it never opened, not counted when it never ran).
 * Returns 0 or TDP_ENOMEM (out keeps the counts appended so far).
 */
int pmu_counters_countset(const struct pmu_counters *c, bool delta, struct countset *out, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** Close every fd and free everything; c is left as after PMU_COUNTERS_INIT. */
void pmu_counters_close(struct pmu_counters *c);

/**
 * Scale one slot's reading into *value and *running_pct, applying `scale` to
 * non-clock events; returns false when it never ran. Pure.
 */
bool pmu_slot_scale(const struct pmu_slot_count *s, double scale, bool is_clock, double *value,
		    double *running_pct);

#endif
