/*
 * groupread.h: the counts of a sampling group attributed by instruction pointer,
 * from a perf.data whose samples read their group (PERF_SAMPLE_READ with
 * PERF_FORMAT_GROUP: `perf record -e '{cycles,instructions,...}:S'`, or
 * '{slots,topdown-retiring,...}:S' on Intel's PERF_METRICS): each sample carries
 * every member's running total, and the part of it since that member's previous
 * sample (the same sample id) is charged to the sample's IP, as perf's
 * deliver_sample_value() charges it (a zero part is no sample). Per-function
 * top-down on a real PMU evaluates the model over each function's counts (the
 * caller symbolises the IPs).
 *
 * Input is hostile: the READ block's group count is bounded by the record (the
 * perfdata reader checks it) and by GROUPREAD_MAX_EVENTS here; an id no attr owns is
 * counted in unknown_ids, never indexed.
 *
 * Lifecycle: struct groupread r; groupread_load(buf, len, name, &r, &err); r.v sorted
 * by IP; groupread_release(&r).
 */
#ifndef TDPROF_DIAGNOSE_GROUPREAD_H
#define TDPROF_DIAGNOSE_GROUPREAD_H

#include <stddef.h>
#include <stdint.h>

struct tdp_err;

#define GROUPREAD_MAX_EVENTS 16      /* members of one group read */
#define GROUPREAD_MAX_IDS 65536      /* distinct sample ids (one per event per CPU or thread) */
#define GROUPREAD_MAX_IPS (1u << 22) /* distinct IPs */

struct groupread_ip {
	uint64_t ip;
	uint64_t v[GROUPREAD_MAX_EVENTS]; /* per attr index: the counts charged to this IP */
	uint64_t samples;                 /* samples at it (group reads) */
};

struct groupread {
	size_t nr_events;                       /* attrs of the file */
	char *names[GROUPREAD_MAX_EVENTS];      /* their names (EVENT_DESC), owned; NULL unnamed */
	uint64_t totals[GROUPREAD_MAX_EVENTS];  /* counts charged over all IPs */
	struct groupread_ip *v;                 /* sorted by ip */
	size_t nr;
	uint64_t samples;                       /* samples with a group read */
	uint64_t other_samples;                 /* samples without one */
	uint64_t unknown_ids;                   /* group members whose id no attr has */
};

/**
 * Read the perf.data image buf[0..len) (name for messages) into out. Returns 0;
 * TDP_EANALYSIS when no sample reads its group (the message says how to record
 * one); the reader's TDP_EFORMAT / TDP_ELIMIT (naming the file and offset);
 * TDP_ELIMIT beyond the limits above; TDP_ENOMEM. out is released on failure.
 */
int groupread_load(const uint8_t *buf, size_t len, const char *name, struct groupread *out, struct tdp_err *err)
	__attribute__((warn_unused_result));

void groupread_release(struct groupread *r);

#endif
