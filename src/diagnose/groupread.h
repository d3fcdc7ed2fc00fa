/*
 * groupread.h: the counts of a sampling group attributed by instruction pointer,
 * from a perf.data whose samples read their group (PERF_SAMPLE_READ with
 * PERF_FORMAT_GROUP: `perf record -e '{cycles,instructions,...}:S'`, or
 * '{slots,topdown-retiring,...}:S' on Intel's PERF_METRICS): each sample carries
 * every member's running total, and the part of it since that member's previous
 * sample (the same sample id) is charged to the sample's IP, as perf's
 * deliver_sample_value() charges it (a zero part is no sample). Per-function
 * top-down (byfunc-pmu.h) evaluates the model over each function's counts.
 *
 * Event names: EVENT_DESC's (as perf recorded them: "cycles", "cpu/topdown-retiring/",
 * "cpu-clock:u"); an attr without one is named from its type and config as perf
 * names generic events ("cycles", "instructions", "r1c2": pmu_event_generic_name()).
 *
 * Input is hostile: the READ block's group count is bounded by the record (the
 * perfdata reader checks it) and by GROUPREAD_MAX_EVENTS here; an id no attr owns is
 * counted in unknown_ids, never indexed.
 *
 * Lifecycle: struct groupread r; groupread_load(buf, len, name, &r, &err) (or, on a
 * reader the caller opened, groupread_read(p, &opts, &r, &err), which also hands every
 * other record to opts.on_record: the maps for a symbol session); r.v sorted by
 * (IP, pid); groupread_release(&r).
 */
#ifndef TDPROF_DIAGNOSE_GROUPREAD_H
#define TDPROF_DIAGNOSE_GROUPREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tdp_err;
struct perfdata;
struct perfdata_record;

#define GROUPREAD_MAX_EVENTS 16      /* members of one group read */
#define GROUPREAD_MAX_IDS 65536      /* distinct sample ids (one per event per CPU or thread) */
#define GROUPREAD_MAX_IPS (1u << 22) /* distinct (IP, pid) */
#define GROUPREAD_NAME_MAX 256       /* bytes of an event's name */

struct groupread_ip {
	uint64_t ip;
	uint32_t pid;                     /* the sample's process (UINT32_MAX without PERF_SAMPLE_TID) */
	uint64_t v[GROUPREAD_MAX_EVENTS]; /* per attr index: the counts charged to this IP */
	uint64_t samples;                 /* samples at it (group reads) */
};

struct groupread {
	size_t nr_events;                       /* attrs of the file (at most GROUPREAD_MAX_EVENTS used) */
	char *names[GROUPREAD_MAX_EVENTS];      /* their names (see above), owned; NULL: none can be made */
	bool in_group[GROUPREAD_MAX_EVENTS];    /* some group read holds the attr */
	size_t leader;                          /* the attr whose samples read the group (the first seen) */
	uint64_t totals[GROUPREAD_MAX_EVENTS];  /* counts charged over all IPs */
	struct groupread_ip *v;                 /* sorted by ip, then pid */
	size_t nr;
	uint64_t samples;                       /* samples with a group read */
	uint64_t other_samples;                 /* samples without one */
	uint64_t unknown_ids;                   /* group members whose id no attr has */
};

/** Called with every record that is not a group-read sample, in file order; 0 or a TDP_E* to stop. */
typedef int groupread_record_fn(void *ctx, const struct perfdata_record *rec, struct tdp_err *err);

struct groupread_opts {
	groupread_record_fn *on_record; /* NULL: none */
	void *ctx;
};

/**
 * Read the records of p (open, borrowed; read to its end) into out. Returns 0;
 * TDP_EANALYSIS when no sample reads its group (the message, naming `name`, says how
 * to record one); the reader's TDP_EFORMAT / TDP_ELIMIT (naming the file and
 * offset); TDP_ELIMIT beyond the limits above; TDP_ENOMEM; the callback's error.
 * out is released on failure.
 */
int groupread_read(struct perfdata *p, const char *name, const struct groupread_opts *o, struct groupread *out,
		   struct tdp_err *err) __attribute__((warn_unused_result));

/** groupread_read() over the perf.data image buf[0..len) (name for messages), no callback. */
int groupread_load(const uint8_t *buf, size_t len, const char *name, struct groupread *out, struct tdp_err *err)
	__attribute__((warn_unused_result));

void groupread_release(struct groupread *r);

#endif
