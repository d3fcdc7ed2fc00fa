/*
 * machine.h: the simulated machine (--sim-machine): the cache geometry valgrind
 * simulates and the costs the cost model (cost.h) charges per event. Everything the
 * estimate depends on is here, explicit and documented in docs/sim-machine.md.
 *
 * A machine comes from a named preset (`generic`, the default; `zen4`, `alderlake`,
 * `skylake`, `neoverse-n1`), optionally changed by KEY=VAL pairs, or from a file of
 * KEY=VAL lines. The cache geometry is always ours, never the host's: valgrind
 * otherwise takes the host's last level (this VM reports a 512 MiB LLC).
 *
 * Lifecycle:
 *   1. struct sim_machine m; sim_machine_preset(&m, "generic") (or sim_machine_parse());
 *   2. sim_machine_set() for each override, then sim_machine_validate();
 *   3. sim_machine_valgrind_args() for the runner, cost.h for the estimate.
 * A sim_machine owns no memory (no release).
 */
#ifndef TDPROF_SIM_MACHINE_H
#define TDPROF_SIM_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tdp_err;

/* Limits of a machine (valgrind's cache simulator's, and sanity). */
#define SIM_CACHE_MIN_LINE 16u            /* valgrind: smaller lines break its simulator */
#define SIM_CACHE_MAX_LINE 4096u
#define SIM_CACHE_MAX_ASSOC 1024u
#define SIM_CACHE_MAX_SIZE (1ull << 30)   /* valgrind keeps sizes in an int */
#define SIM_MACHINE_MAX_FILE 65536u       /* bytes in a machine file */
#define SIM_MACHINE_NAME_MAX 32u

struct sim_cache {
	uint64_t size;  /* bytes */
	uint32_t assoc; /* ways */
	uint32_t line;  /* bytes per line */
};

struct sim_machine {
	char name[SIM_MACHINE_NAME_MAX]; /* the preset it started from ("generic") */
	bool modified;                   /* a KEY=VAL changed the preset */
	struct sim_cache i1, d1, ll;     /* simulated by valgrind (--I1 --D1 --LL) */
	double width;          /* dispatch slots per cycle (top-down's slot width) */
	double uops_per_insn;  /* µops per instruction executed */
	double branch_penalty; /* cycles lost per mispredicted branch (conditional or indirect) */
	double i1_latency;     /* cycles per I1 miss that hits in LL */
	double ll_latency;     /* cycles per D1 read miss that hits in LL (L2 and L3 together) */
	double mem_latency;    /* cycles per LL miss (DRAM) */
	double mlp;            /* data misses in flight together on scattered accesses (>= 1) */
	double stream_mlp;     /* misses in flight together on a sequential stream (prefetch) */
	double stream_ratio;   /* a site with D1 read misses <= ratio * reads is a stream; 0: none */
	/* The core model (issue 19, docs/sim-machine.md "The core model"). */
	double resteer_latency;  /* of branch_penalty, the cycles after a mispredict in which the front end
				  * delivers nothing (Frontend Bound, fetch latency: branch resteers); the
				  * rest is wasted issue (Bad Speculation) */
	double indirect_resteer; /* cycles per executed indirect jump or call (a fetch bubble while the
				  * target comes from the indirect predictor; Frontend Bound) */
	double indep_mlp;        /* data misses in flight together when the block model sees the loads'
				  * addresses are independent (no pointer chase); chases get 1 */
	char mcpu[24];           /* llvm-mca's -mcpu for the block model ("skylake"); "" none */
	char mtriple[24];        /* llvm-mca's -mtriple ("" the default, x86-64) */
	/* tdprof's valgrind tool (vgtool/, docs/sim-machine.md "The tool"): three cache
	 * levels (i1, d1, l2, and ll as the L3), latencies per level, the interval
	 * model, the prefetchers, the BTB and the µop cache. */
	struct sim_cache l2;     /* unified L2 (any number of sets) */
	double l1_latency;       /* load-to-use cycles of an L1 hit */
	double l2_latency;       /* ... of an L2 hit */
	double l3_latency;       /* ... of an L3 (ll) hit; mem_latency: DRAM */
	double rob;              /* reorder buffer entries: misses this close together overlap */
	double mshr;             /* L1D misses in flight at most (fill buffers) */
	double l2_bw;            /* bytes per cycle one core moves from L2 at most; 0: unlimited */
	double l3_bw;            /* ... from L3 */
	double mem_bw;           /* ... from DRAM */
	double btb_entries;      /* BTB entries (0: no BTB model) */
	double btb_assoc;
	double btb_penalty;      /* cycles per taken branch predicted right whose BTB entry was missing
				  * (the decoder finds it and resteers: TMA's Unknown_Branches) */
	double dsb_windows;      /* µop-cache capacity in fetch windows (0: none) */
	double dsb_assoc;
	double dsb_window;       /* bytes of code per window */
	double decode_width;     /* instructions per cycle the legacy decoders deliver */
	double dsb_switch;       /* cycles lost per window fetched past the µop cache (the switch) */
	double pf_stride;        /* 1: the per-instruction stride prefetcher is on */
	double pf_stream;        /* 1: the stream (next-line) prefetcher is on */
	double pf_max_stride;    /* bytes: longer strides are not prefetched */
	double dep_range;        /* bytes above a loaded pointer whose loads depend on it */
	/* A repeated string instruction (rep movsb ...) is a microcode sequence: */
	double rep_start_uops;   /* µops of its start, whatever its count */
	double rep_bytes_per_uop; /* bytes its fast-string loop moves per µop */
};

/* A preset: the machine and where its numbers come from. */
struct sim_machine_preset {
	const char *name;
	const char *description; /* one line for `tdprof list` */
	const char *sources;     /* documents the numbers come from */
	const char *hosts;       /* the micro-architectures (data/cpus.json's names, space-separated) it
				  * stands for when no --sim-machine is given; NULL: none */
	struct sim_machine m;
};

/** The presets, in the order `tdprof list` prints them; *nr receives the count. */
const struct sim_machine_preset *sim_machine_presets(size_t *nr);

/**
 * The preset that stands for micro-architecture uarch (cpu/'s name: "zen4",
 * "skylakex", "raptorlake"), or NULL when none does (the caller's default is
 * "generic"). Pure.
 */
const char *sim_machine_preset_for_uarch(const char *uarch);

/**
 * Load the preset `name` into m. Returns 0, or TDP_EUSAGE for an unknown name with
 * a message suggesting the closest names and a hint listing them (m unchanged).
 */
int sim_machine_preset(struct sim_machine *m, const char *name, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Set one parameter: `key` as in docs/sim-machine.md (i1-size, d1-assoc, ll-line,
 * i1=SIZE:ASSOC:LINE, width, branch-penalty, mem-latency, mlp, ...), value as text
 * (sizes take K/KiB/M/MiB/G/GiB). Does not validate the machine as a whole.
 * Returns 0, or TDP_EUSAGE (unknown key, with a suggestion; bad value) leaving m
 * unchanged.
 */
int sim_machine_set(struct sim_machine *m, const char *key, const char *value, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Check m as a whole: every cache valid for valgrind (line a power of two >= 16,
 * size a multiple of assoc * line, a power-of-two number of sets), every cost
 * positive and within its range. Returns 0 or TDP_EUSAGE naming the key, with a hint
 * giving the nearest valid values.
 */
int sim_machine_validate(const struct sim_machine *m, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Parse a --sim-machine argument: "PRESET", "KEY=VAL,KEY=VAL,..." (starting from
 * `generic`) or "PRESET,KEY=VAL,...", then validate. Returns 0 or TDP_EUSAGE; on
 * failure m is unspecified.
 */
int sim_machine_parse(struct sim_machine *m, const char *spec, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Parse a machine file buf[0..len): one KEY=VAL (or KEY = VAL) per line, `#`
 * comments, blank lines; an optional `preset = NAME` line first chooses the base
 * (default `generic`). `name` (borrowed) names the file in messages, with the line.
 * Validates. Returns 0, TDP_EUSAGE or TDP_ELIMIT (longer than SIM_MACHINE_MAX_FILE).
 */
int sim_machine_parse_file(struct sim_machine *m, const uint8_t *buf, size_t len, const char *name,
			   struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Resolve a --sim-machine argument that may also be a file: a preset name or a
 * KEY=VAL list is parsed with sim_machine_parse(); anything else is read as a file
 * path (blocks on I/O). Returns 0, TDP_EUSAGE, or the file's TDP_ENOENT/TDP_EPERM/
 * TDP_EIO (an unknown word that is no file says so and lists the presets).
 */
int sim_machine_load(struct sim_machine *m, const char *spec, struct tdp_err *err)
	__attribute__((warn_unused_result));

#define SIM_VG_ARG_MAX 64
#define SIM_TOOL_ARGS 16 /* options sim_machine_tool_args() writes at most */

/**
 * The options of tdprof's valgrind tool (vgtool/) that make it simulate m:
 * "--tdp-l1i=32768,8,64", "--tdp-latency=5,15,50,400", ... into args[0..*nr),
 * SIM_VG_ARG_MAX bytes each. m must be valid.
 */
void sim_machine_tool_args(const struct sim_machine *m, char args[SIM_TOOL_ARGS][SIM_VG_ARG_MAX], size_t *nr);

/**
 * The valgrind options that make it simulate m's caches: "--I1=32768,8,64" etc.
 * written into i1, d1, ll (SIM_VG_ARG_MAX bytes each). m must be valid.
 */
void sim_machine_valgrind_args(const struct sim_machine *m, char i1[SIM_VG_ARG_MAX], char d1[SIM_VG_ARG_MAX],
			       char ll[SIM_VG_ARG_MAX]);

/**
 * Describe m in one line for reports: "generic: I1 32 KiB 8-way, D1 48 KiB 12-way,
 * LL 32 MiB 16-way, 64 B lines; 6-wide; mispredict 15 cycles; ..." into buf.
 */
void sim_machine_describe(const struct sim_machine *m, char *buf, size_t size);

/**
 * The same for a run of tdprof's valgrind tool, which simulates other parameters:
 * "generic: L1I 32 KiB, L1D 48 KiB, L2 1.25 MiB, L3 32 MiB, 64 B lines; 6 slots/cycle;
 * ROB 512, 16 misses in flight; load latency 5/15/50/400 cycles; ...".
 */
void sim_machine_describe_tool(const struct sim_machine *m, char *buf, size_t size);

#endif
