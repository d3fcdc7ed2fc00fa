/*
 * branch-entry.h: the branch record every part of tdprof uses, whatever made it:
 * one struct for Intel LBR, AMD LbrExtV2/BRS, Arm BRBE, decoded Arm SPE and
 * simulated branches. The perf.data reader (perfdata.h) fills it from struct
 * perf_branch_entry {u64 from, to, flags}; the SPE decoder and the simulated
 * backend produce the same struct; src/branch/ aggregates it.
 *
 * Its own header so that a producer or a consumer of branches needs neither the
 * perf.data format constants (format.h) nor the reader's API.
 */
#ifndef TDPROF_PERFDATA_BRANCH_ENTRY_H
#define TDPROF_PERFDATA_BRANCH_ENTRY_H

#include <stdbool.h>
#include <stdint.h>

/** Branch types (perf_branch_entry.type, PERF_BR_*). */
enum branch_type {
	BRANCH_TYPE_UNKNOWN = 0,
	BRANCH_TYPE_COND = 1,       /* conditional */
	BRANCH_TYPE_UNCOND = 2,     /* unconditional direct jump */
	BRANCH_TYPE_IND = 3,        /* indirect jump */
	BRANCH_TYPE_CALL = 4,       /* direct call */
	BRANCH_TYPE_IND_CALL = 5,   /* indirect call */
	BRANCH_TYPE_RET = 6,        /* return */
	BRANCH_TYPE_SYSCALL = 7,
	BRANCH_TYPE_SYSRET = 8,
	BRANCH_TYPE_COND_CALL = 9,
	BRANCH_TYPE_COND_RET = 10,
	BRANCH_TYPE_ERET = 11,      /* exception return */
	BRANCH_TYPE_IRQ = 12,
	BRANCH_TYPE_SERROR = 13,
	BRANCH_TYPE_NO_TX = 14,
	BRANCH_TYPE_EXTEND_ABI = 15, /* the type is in new_type */
};

/** Extended branch types (new_type, valid when type is BRANCH_TYPE_EXTEND_ABI). */
enum branch_new_type {
	BRANCH_NEW_FAULT_ALGN = 0,
	BRANCH_NEW_FAULT_DATA = 1,
	BRANCH_NEW_FAULT_INST = 2,
	BRANCH_NEW_ARCH_1 = 3, /* arm64: FIQ */
	BRANCH_NEW_ARCH_2 = 4, /* arm64: debug halt */
	BRANCH_NEW_ARCH_3 = 5, /* arm64: debug exit */
	BRANCH_NEW_ARCH_4 = 6, /* arm64: debug instruction */
	BRANCH_NEW_ARCH_5 = 7, /* arm64: debug data */
};

/** Speculation outcome (perf_branch_entry.spec, PERF_BR_SPEC_*; AMD LbrExtV2, BRBE). */
enum branch_spec {
	BRANCH_SPEC_NA = 0,
	BRANCH_SPEC_WRONG_PATH = 1,
	BRANCH_SPEC_NON_SPEC_CORRECT_PATH = 2,
	BRANCH_SPEC_CORRECT_PATH = 3,
};

/** Privilege level of the branch target (perf_branch_entry.priv, PERF_BR_PRIV_*). */
enum branch_priv {
	BRANCH_PRIV_UNKNOWN = 0,
	BRANCH_PRIV_USER = 1,
	BRANCH_PRIV_KERNEL = 2,
	BRANCH_PRIV_HV = 3,
};

/**
 * One taken branch. Entry 0 of a stack is the most recent branch.
 * `mispred` and `predicted` are both false when the hardware does not say (AMD BRS,
 * some synthesized stacks); perf prints that as '-'. `cycles` is 0 when the
 * hardware has no timing (everything but Intel LBR and BRBE). The 4-bit, 2-bit and
 * 3-bit fields hold the raw values of the enums above (an unknown value is kept).
 */
struct branch_entry {
	uint64_t from;      /* source address */
	uint64_t to;        /* target address */
	uint16_t cycles;    /* cycles since the previous entry (timed LBR), 0 = unknown */
	uint8_t type;       /* enum branch_type */
	uint8_t spec;       /* enum branch_spec */
	uint8_t new_type;   /* enum branch_new_type (when type == BRANCH_TYPE_EXTEND_ABI) */
	uint8_t priv;       /* enum branch_priv */
	bool mispred;       /* the branch was mispredicted */
	bool predicted;     /* the branch was predicted correctly */
	bool in_tx;         /* inside a hardware transaction (Intel TSX) */
	bool abort;         /* a transaction abort */
	bool not_taken;     /* a not-taken branch (Arm SPE only; never set from perf.data) */
};

/** Decode the u64 flags word of a perf_branch_entry into e (from and to untouched). */
void perfdata_branch_flags_decode(uint64_t flags, struct branch_entry *e);

/** Encode e's flags into a perf_branch_entry flags word (not_taken is not encoded). */
uint64_t perfdata_branch_flags_encode(const struct branch_entry *e);

/**
 * perf's name of a branch type as `perf script -F brstack` prints it with
 * save_type ("COND", "IND_CALL", ..., or the new_type name for EXTEND_ABI);
 * "" for BRANCH_TYPE_UNKNOWN. Never NULL.
 */
const char *perfdata_branch_type_name(unsigned type, unsigned new_type);

/** perf's name of a speculation outcome ("SPEC_WRONG_PATH", ...; "-" for NA). Never NULL. */
const char *perfdata_branch_spec_name(unsigned spec);

#endif
