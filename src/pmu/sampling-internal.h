/*
 * sampling-internal.h: shared by the sampling*.c files (and their unit tests)
 * only. Two parts: the engine's state (struct pmu_sampling: sampling.c opens and
 * closes it, sampling-run.c records, sampling-track.c notes what each record
 * says), and the DSO tracker (sampling-dso.c), which follows the executable
 * mappings, forks and execs a recording announces, in time order, counts which
 * DSO each sample address falls in, and finds the build-ids of those that were
 * hit at the end.
 */
#ifndef TDPROF_PMU_SAMPLING_INTERNAL_H
#define TDPROF_PMU_SAMPLING_INTERNAL_H

#include "pmu/ring.h"
#include "pmu/sampling.h"
#include "pmu/workload.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- the DSO tracker ---------------------------------------------------------- */

/* The pid the kernel map is filed under (perf's -1). */
#define SMP_KERNEL_PID UINT32_MAX
#define SMP_KERNEL_NAME "[kernel.kallsyms]"

struct smp_dso {
	char *name;
	bool kernel;
	uint8_t bid[PMU_BUILD_ID_MAX];
	uint8_t bid_size;
	uint64_t hits;
};

struct smp_map {
	uint32_t pid;        /* process (tgid); SMP_KERNEL_PID for the kernel */
	uint32_t dso;        /* index into dso[] */
	uint64_t start, end;
};

struct smp_parent {
	uint32_t pid, ppid;
};

/* What a record says about address spaces, queued until it can be applied in time order. */
enum smp_item_kind {
	SMP_ITEM_MMAP,       /* an executable mapping (mmap holds it) */
	SMP_ITEM_FORK,       /* pid forked from ppid */
	SMP_ITEM_EXEC,       /* pid exec'ed */
	SMP_ITEM_HIT,        /* a sample address (addr) in pid, kernel or user */
};

struct smp_mmap {
	uint64_t start, len;
	uint8_t bid[PMU_BUILD_ID_MAX];
	uint8_t bid_size;
	size_t name_len;
	char name[];         /* name_len bytes, NUL-terminated */
};

struct smp_item {
	uint64_t time;       /* the record's timestamp (0 for synthesized records) */
	uint64_t seq;        /* arrival order, to keep records of one time in order */
	uint64_t addr;       /* HIT */
	struct smp_mmap *mmap; /* MMAP (heap, freed once applied) */
	uint32_t pid, ppid;
	uint8_t kind;        /* enum smp_item_kind */
	bool kernel;         /* HIT: a kernel-mode sample IP; MMAP: the kernel map */
};

struct smp_dsos {
	struct smp_dso *dso;
	size_t nr_dso, alloc_dso;
	struct smp_map *map;
	size_t nr_map, alloc_map;
	struct smp_parent *par;
	size_t nr_par, alloc_par;
	size_t last;                /* the map that matched last (most samples hit the same one) */
	struct smp_item *q;         /* items not applied yet */
	size_t nr_q, alloc_q;
	uint64_t seq;
	uint64_t round_max;         /* latest time queued in the current round */
	uint64_t prev_round_max;    /* ... in the previous round: items up to it can be applied */
	bool full;                  /* a limit was reached: later mappings are not followed */
	struct pmu_dso_hit *hits;   /* smp_dsos_result() */
	size_t nr_hits;
};

#define SMP_DSOS_INIT { 0 }

/* ---- the engine (sampling.c opens and closes, sampling-run.c records) ---------- */

#define SMP_REC_FINISHED_ROUND 68

struct smp_event {
	struct perf_event_attr attr;
	char *name;
	int *fd;        /* [nr_cpus * nr_tids], cpu-major; -1 where not open */
	uint64_t *ids;  /* the ids of the open fds, in the same order */
	size_t nr_ids;
};

struct pmu_sampling {
	char *const *argv;
	pid_t pid;                /* the workload or the -p process */
	bool spe;
	uint32_t spe_type;
	int *cpus;
	size_t nr_cpus;
	pid_t *tids;              /* tasks the events are opened on (the workload, or the threads of -p) */
	size_t nr_tids;
	struct smp_event ev[1 + PMU_SAMPLING_MAX_MEMBERS]; /* the sampling event first; SPE's dummy or the group's
	                                                      members after it */
	size_t nr_ev;
	bool group;               /* ev[1..nr_ev) are members of ev[0]'s group (group reads) */
	struct pmu_ring *rings;   /* [nr_cpus] */
	size_t data_pages;        /* per ring */
	size_t aux_pages;         /* per ring; 0 without SPE */
	int *ring_fd;             /* [nr_cpus] the fd each ring is mapped on */
	struct pmu_workload w;
	int own_pidfd;            /* -p: pidfd of the process */
	sigset_t old_mask;
	bool masked;
	int sfd;
	uint64_t branch_sample_type;
	bool data_addr;           /* samples carry PERF_SAMPLE_ADDR (8 bytes after TIME) */
	size_t id_size;           /* bytes of the sample_id trailer of non-sample records */
	struct pmu_sampling_stats st;
	struct smp_dsos dsos;      /* which DSOs the samples hit (sampling-dso.c) */
	uint8_t *buf;             /* synthesized and AUXTRACE records */
	size_t buf_alloc;
	pmu_sampling_record_fn *fn;
	void *arg;
	size_t aux_cpu;           /* the ring pmu_ring_read_aux() is reading */
	uint64_t reference;
	bool ran;
};

static inline uint64_t smp_get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t smp_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/**
 * Note what record rec[0..len) says for the counts and the DSO tracker
 * (sampling-track.c). Returns 0 or TDP_ENOMEM.
 */
int smp_track(struct pmu_sampling *s, const uint8_t *rec, size_t len) __attribute__((warn_unused_result));


/** Most items queued before they are applied regardless of order. */
#define SMP_MAX_QUEUE (1u << 20)

/**
 * Queue what a record says (it is applied in time order by smp_dsos_round()).
 * For SMP_ITEM_MMAP, name/name_len/bid/bid_size/start/len describe it (copied).
 * Returns 0 or TDP_ENOMEM.
 */
int smp_dsos_queue(struct smp_dsos *d, const struct smp_item *it, const char *name, size_t name_len,
		   const uint8_t *bid, size_t bid_size, uint64_t start, uint64_t len) __attribute__((warn_unused_result));

/**
 * The end of a pass over the rings (perf's FINISHED_ROUND): apply, in time
 * order, the queued items no later than the latest time of the previous pass
 * (records of a later pass cannot be older than that), or all of them (final).
 * Returns 0 or TDP_ENOMEM.
 */
int smp_dsos_round(struct smp_dsos *d, bool final) __attribute__((warn_unused_result));

/**
 * An executable mapping of pid: [start, start+len) of name (name_len bytes),
 * with the build-id the kernel gave (bid_size 0: none). Returns 0 or TDP_ENOMEM;
 * beyond PMU_SAMPLING_MAX_MAPS/DSOS the mapping is dropped (d->full).
 */
int smp_dsos_mmap(struct smp_dsos *d, uint32_t pid, uint64_t start, uint64_t len, const char *name,
		  size_t name_len, const uint8_t *bid, size_t bid_size, bool kernel) __attribute__((warn_unused_result));

/** pid forked from ppid (a new process: pid != ppid): it sees ppid's mappings until it execs. */
int smp_dsos_fork(struct smp_dsos *d, uint32_t pid, uint32_t ppid) __attribute__((warn_unused_result));

/** pid exec'ed: its old mappings and its parent's are gone. */
void smp_dsos_exec(struct smp_dsos *d, uint32_t pid);

/** Count a hit at addr in pid's address space (kernel: the kernel map). */
void smp_dsos_hit(struct smp_dsos *d, uint32_t pid, uint64_t addr, bool kernel);

/**
 * The DSOs hit, most first, with build-ids (read from files where the kernel did
 * not give them). *out is owned by d. Returns 0 or TDP_ENOMEM.
 */
int smp_dsos_result(struct smp_dsos *d, const struct pmu_dso_hit **out, size_t *nr, struct tdp_err *err) __attribute__((warn_unused_result));

void smp_dsos_release(struct smp_dsos *d);

#endif
