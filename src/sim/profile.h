/*
 * profile.h: valgrind's cost files (cachegrind.out, callgrind.out) parsed into one
 * structure: self costs per (object, source file, function, line, instruction).
 *
 * Both formats are untrusted input (a file may be truncated, hand-edited or
 * hostile): the parsers take (buf, len), check every number for overflow, bound
 * every table by a named limit below and never allocate from a field they have not
 * checked. Errors name the file and the line number.
 *
 * Lifecycle:
 *   1. struct sim_profile p; sim_profile_init(&p);
 *   2. sim_cachegrind_parse() / sim_callgrind_parse() / sim_profile_parse() once per
 *      file; several files (a workload and its children) are merged: costs of the
 *      same (object, file, function, line, address) are summed;
 *   3. read p.v[0..p.nr), p.totals, sim_profile_name();
 *   4. sim_profile_release(&p).
 *
 * Invariants: every entry's name indices are < p.names_nr or SIM_NO_NAME; p.totals
 * is the sum of every entry's cost (no overflow: a sum that would overflow is a
 * parse error); an event absent from every file has bit (1u << e) clear in p.have
 * and is 0 everywhere.
 */
#ifndef TDPROF_SIM_PROFILE_H
#define TDPROF_SIM_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tdp_err;

/* Limits on untrusted input (a file beyond them is rejected with TDP_ELIMIT). */
#define SIM_MAX_LINE_LEN 65536u      /* bytes in one line of a cost file */
#define SIM_MAX_EVENTS 64u           /* columns on an `events:` line */
#define SIM_MAX_NAMES (1u << 20)     /* distinct object, file and function names */
#define SIM_MAX_ENTRIES (1u << 21)   /* distinct (object, file, fn, line, addr) entries */
#define SIM_MAX_NAME_ID (1u << 30)   /* largest callgrind compressed-name id `(N)` */
#define SIM_MAX_LINE_NO (1u << 30)   /* largest source line number */
#define SIM_MAX_FILE_SIZE (1ul << 30) /* bytes in one cost file */

/* The events valgrind's tools record; other columns of a file are ignored. */
enum sim_event {
	SIM_IR = 0, /* instructions executed */
	SIM_I1MR,   /* I1 misses (instruction fetch) */
	SIM_ILMR,   /* LL misses on instruction fetch */
	SIM_DR,     /* data reads */
	SIM_D1MR,   /* D1 read misses */
	SIM_DLMR,   /* LL read misses (data) */
	SIM_DW,     /* data writes */
	SIM_D1MW,   /* D1 write misses */
	SIM_DLMW,   /* LL write misses */
	SIM_BC,     /* conditional branches executed */
	SIM_BCM,    /* conditional branches mispredicted */
	SIM_BI,     /* indirect branches executed */
	SIM_BIM,    /* indirect branches mispredicted */
	/* tdprof's valgrind tool (vgtool/, src/sim/mach.h) adds these: */
	SIM_I2MR,   /* instruction fetches missing L2 too */
	SIM_D2MR,   /* D1 read misses that miss L2 too (the tool's LL misses are L3 misses) */
	SIM_D2MW,   /* D1 write misses that miss L2 too */
	SIM_BR,     /* returns (not in Bi with the tool) */
	SIM_BRM,    /* returns mispredicted */
	SIM_BTK,    /* taken branches */
	SIM_BTBM,   /* taken branches predicted right that missed the BTB */
	SIM_DPF,    /* D1 read misses a hardware prefetcher covers */
	SIM_DSW,    /* software prefetches that missed D1 */
	SIM_DDEP,   /* D1 read misses that waited for a load in flight (pointer chases) */
	SIM_DCY2,   /* exposed cycles of loads served by L2 (the interval model) */
	SIM_DCY3,   /* ... by L3 */
	SIM_DCYM,   /* ... by DRAM */
	SIM_IDSBM,  /* fetch windows missing the µop cache */
	SIM_IMITE,  /* instructions decoded by the legacy decoders (in those windows) */
	SIM_NR_EVENTS
};

/** valgrind's name of an event ("Ir", "D1mr", ...); never NULL. */
const char *sim_event_name(enum sim_event e);

struct sim_cost {
	uint64_t v[SIM_NR_EVENTS];
};

#define SIM_NO_NAME UINT32_MAX

/* The self cost of one source position (one instruction with callgrind --dump-instr). */
struct sim_entry {
	uint32_t obj;   /* ELF object name index (callgrind ob=); SIM_NO_NAME when unknown */
	uint32_t file;  /* source file name index; SIM_NO_NAME when the file gave none */
	uint32_t fn;    /* function name index; SIM_NO_NAME when the file gave none */
	uint64_t line;  /* source line; 0 when unknown (valgrind writes 0 without debug info) */
	uint64_t addr;  /* instruction address in obj; 0 when unknown (cachegrind, positions: line) */
	struct sim_cost cost;
};

/* Cache geometry from a file's `desc:` lines; size 0 when the file does not say. */
struct sim_cache_desc {
	uint64_t size;
	uint64_t assoc;
	uint64_t line;
};

struct sim_profile {
	struct sim_entry *v; /* entries in order of first appearance */
	size_t nr;
	size_t alloc;
	char **names;        /* interned names: object, file and function names share it */
	size_t names_nr;
	size_t names_alloc;
	uint32_t have;       /* bit (1u << e): some file had a column for event e */
	bool has_addr;       /* some entry carries an instruction address */
	size_t nr_files;     /* files merged so far */
	struct sim_cost totals;  /* sum of all self costs */
	struct sim_cost summary; /* sum of the files' summary:/totals: lines */
	char *cmd;               /* the first file's `cmd:` value; NULL when none */
	char creator[32];        /* the first file's `creator:` ("callgrind-3.19.0", "tdpsim-1"); "" none */
	struct sim_cache_desc i1, d1, ll; /* from the first file that gave them */
	struct sim_profile_index *index;  /* private lookup tables (profile.c) */
};

/** Make an empty profile. */
void sim_profile_init(struct sim_profile *p);

/** Free everything p owns and leave it as after sim_profile_init(). */
void sim_profile_release(struct sim_profile *p);

/**
 * A name of the profile: idx < p->names_nr gives the name (borrowed, valid until
 * release), SIM_NO_NAME or an invalid index gives "???" (valgrind's spelling).
 */
const char *sim_profile_name(const struct sim_profile *p, uint32_t idx);

/** True when p recorded every event in `mask` (bits 1u << enum sim_event). */
static inline bool sim_profile_has(const struct sim_profile *p, uint32_t mask)
{
	return (p->have & mask) == mask;
}

/**
 * Parse a cachegrind.out file in buf[0..len) (need not be NUL-terminated) and merge
 * it into p. `name` (borrowed; used in messages) names the file. The file must end
 * with a `summary:` line equal to the sum of its cost lines (a truncated file has
 * none).
 * Returns 0; TDP_EFORMAT (malformed, the message names the file and line),
 * TDP_ELIMIT (beyond a SIM_MAX_* limit) or TDP_ENOMEM. On failure p holds the
 * entries merged before the failing file's first error: release it.
 * Allocates; does not block; not thread-safe on the same p.
 */
int sim_cachegrind_parse(struct sim_profile *p, const uint8_t *buf, size_t len, const char *name,
			 struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Parse a callgrind.out file (Callgrind format version 1: name compression
 * `fn=(id) name`, subposition compression `+n -n *`, `positions: instr line`, hex
 * numbers, `fl= fi= fe=` switching, `calls=` lines whose following cost line is an
 * inclusive call cost and is never added to the caller's self cost) and merge it
 * into p. A `totals:` line, when present, must equal the sum of the self costs.
 * Parameters, returns and state on failure as sim_cachegrind_parse().
 */
int sim_callgrind_parse(struct sim_profile *p, const uint8_t *buf, size_t len, const char *name,
			struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Parse either format, telling them apart by the callgrind markers (`# callgrind
 * format`, `version:`, `creator: callgrind`, `positions:`) at the start of the file.
 * As sim_cachegrind_parse().
 */
int sim_profile_parse(struct sim_profile *p, const uint8_t *buf, size_t len, const char *name,
		      struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Read the file at `path` (at most SIM_MAX_FILE_SIZE bytes) and parse it with
 * sim_profile_parse(). Returns as sim_profile_parse(), or TDP_ENOENT / TDP_EPERM /
 * TDP_EIO / TDP_ELIMIT when the file cannot be read. Blocks on I/O.
 */
int sim_profile_load(struct sim_profile *p, const char *path, struct tdp_err *err)
	__attribute__((warn_unused_result));

#endif
