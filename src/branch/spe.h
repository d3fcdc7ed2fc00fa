/*
 * spe.h: a decoder of the Arm Statistical Profiling Extension (SPE) packet
 * stream, into packets, into records, and from branch records into the branch
 * record every part of tdprof uses (struct branch_entry, perfdata/perfdata.h).
 *
 * Format: the Arm ARM chapter "Statistical Profiling Extension" (packet
 * headers, address and events payloads) as perf decodes it in
 * tools/perf/util/arm-spe-decoder/arm-spe-pkt-decoder.{c,h} and
 * arm-spe-decoder.c; summary in ../shared/reference/formats.md §3.4. All
 * payloads are little-endian. A record is the packets of one sampled operation,
 * closed by a TIMESTAMP packet (or an END packet when timestamps are off).
 *
 * Lifecycle (a trace buffer, e.g. the payload of a perf.data AUXTRACE record):
 *   1. struct spe_decoder d; spe_decoder_init(&d, buf, len);
 *   2. while (spe_decoder_next(&d, &rec) > 0) use rec (spe_record_branch() makes
 *      a branch entry of a branch record);
 *   3. read d.stats. Nothing to release: the decoder never allocates.
 * Or packet by packet: spe_packet_decode(), spe_packet_desc().
 *
 * Hostile input: any byte string is decoded without reading outside buf. An
 * undecodable header byte is skipped (counted in stats.bad_bytes, the record it
 * interrupted is dropped), as perf does; a packet cut short by the end of the
 * buffer ends decoding (stats.truncated), and so does a record left open there.
 * No limit applies: the decoder holds one record at a time.
 */
#ifndef TDPROF_BRANCH_SPE_H
#define TDPROF_BRANCH_SPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfdata/perfdata.h"

struct strbuf;

/** AUXTRACE_INFO type of Arm SPE (perf's PERF_AUXTRACE_ARM_SPE). */
#define SPE_AUXTRACE_TYPE 4
#define SPE_EVFR_MISPREDICTED (1ull << 7) /* PMSEVFR_EL1 E[7]: sample only mispredicted branches */

enum spe_packet_type {
	SPE_PKT_BAD = 0,     /* not a packet header */
	SPE_PKT_PAD,         /* 0x00 (one byte), or an extended alignment pad */
	SPE_PKT_END,         /* 0x01: end of a record without timestamp */
	SPE_PKT_TIMESTAMP,   /* 0x71: 8-byte timer value, ends a record */
	SPE_PKT_EVENTS,      /* (h & 0xcf) == 0x42: event bits */
	SPE_PKT_DATA_SOURCE, /* (h & 0xcf) == 0x43 */
	SPE_PKT_CONTEXT,     /* (h & 0xfc) == 0x64: CONTEXTIDR_EL1 (index 0) or EL2 (1) */
	SPE_PKT_OP_TYPE,     /* (h & 0xfc) == 0x48: class h & 3, 1-byte payload */
	SPE_PKT_ADDRESS,     /* (h & 0xf8) == 0xb0: index h & 7 (extended: 5 bits) */
	SPE_PKT_COUNTER,     /* (h & 0xf8) == 0x98: index h & 7 (extended: 5 bits) */
};

/** Address packet indexes. */
enum spe_addr_index {
	SPE_ADDR_PC = 0,     /* the sampled instruction */
	SPE_ADDR_TGT = 1,    /* branch target (for a not-taken branch: the next instruction) */
	SPE_ADDR_VA = 2,     /* data virtual address */
	SPE_ADDR_PA = 3,     /* data physical address */
	SPE_ADDR_PBT = 4,    /* previous branch target (SPEv1.2) */
	SPE_ADDR_NR = 5,
};

/** Counter packet indexes. */
enum spe_counter_index {
	SPE_CNT_TOTAL = 0,   /* total latency */
	SPE_CNT_ISSUE = 1,   /* issue latency */
	SPE_CNT_XLAT = 2,    /* translation latency */
	SPE_CNT_NR = 3,
};

/** OP-TYPE classes (header & 3). */
enum spe_op_class {
	SPE_OP_OTHER = 0,
	SPE_OP_LDST = 1,     /* load, store, atomic */
	SPE_OP_BRANCH = 2,   /* branch or exception return */
};

/** EVENTS bits. */
#define SPE_EV_EXCEPTION_GEN (1ull << 0)
#define SPE_EV_RETIRED (1ull << 1)
#define SPE_EV_L1D_ACCESS (1ull << 2)
#define SPE_EV_L1D_REFILL (1ull << 3)
#define SPE_EV_TLB_ACCESS (1ull << 4)
#define SPE_EV_TLB_WALK (1ull << 5)
#define SPE_EV_NOT_TAKEN (1ull << 6)
#define SPE_EV_MISPRED (1ull << 7)
#define SPE_EV_LLC_ACCESS (1ull << 8)
#define SPE_EV_LLC_MISS (1ull << 9)
#define SPE_EV_REMOTE_ACCESS (1ull << 10)
#define SPE_EV_ALIGNMENT (1ull << 11)

/** Branch OP-TYPE payload bits. */
#define SPE_OP_BR_COND (1u << 0)
#define SPE_OP_BR_INDIRECT (1u << 1)
#define SPE_OP_BR_GCS (1u << 2)
#define SPE_OP_BR_CR_SHIFT 3    /* bits 3-4: 1 BL (call), 2 RET, 3 other */
#define SPE_OP_BR_CR_BL 1u
#define SPE_OP_BR_CR_RET 2u

/** One decoded packet. */
struct spe_packet {
	enum spe_packet_type type;
	uint8_t index;       /* ADDRESS/COUNTER index, CONTEXT EL index, OP-TYPE class */
	uint8_t size;        /* bytes the packet occupies, header(s) included */
	bool extended;       /* a two-byte header */
	uint64_t payload;    /* raw little-endian payload (0 for PAD/END) */
};

/**
 * Decode the packet at buf[pos..len). pos is the offset from the start of the
 * trace buffer, which the hardware aligns, so that an alignment pad knows its
 * length.
 * Returns the packet's size (> 0) with *out filled; 0 when the packet runs past
 * len (truncated: out->type says which packet it started); -1 for a byte that
 * starts no packet (out->type SPE_PKT_BAD; skip one byte).
 */
int spe_packet_decode(const uint8_t *buf, size_t len, size_t pos, struct spe_packet *out);

/**
 * Append perf's text for a packet ("PC 0xffba66eda1c2d0 el2 ns=1", "LAT 4 ISSUE",
 * "EV RETIRED NOT-TAKEN", "B COND", "TS 44731163950", "PAD", ...), as
 * `perf report -D` prints it.
 */
void spe_packet_desc(const struct spe_packet *p, struct strbuf *sb);

/** The address of an address payload (bits 0-55), as perf prints it. */
static inline uint64_t spe_addr_value(uint64_t payload)
{
	return payload & ((1ull << 56) - 1);
}

/** The exception level of a PC/TGT/PBT payload (bits 61-62). */
static inline unsigned spe_addr_el(uint64_t payload)
{
	return (unsigned)(payload >> 61) & 3;
}

/** The non-secure bit of a PC/TGT/PBT/PA payload (bit 63). */
static inline bool spe_addr_ns(uint64_t payload)
{
	return payload >> 63;
}

/**
 * The virtual address of a PC/TGT/PBT payload as perf computes it
 * (arm-spe-decoder.c arm_spe_calc_ip): bits 0-55, with the top byte set to 0xff
 * for a non-secure EL1 or EL2 address (a kernel address).
 */
static inline uint64_t spe_addr_ip(uint64_t payload)
{
	uint64_t a = spe_addr_value(payload);
	unsigned el = spe_addr_el(payload);

	if (spe_addr_ns(payload) && (el == 1 || el == 2))
		a |= 0xffull << 56;
	return a;
}

/** One SPE record: the packets of one sampled operation. */
struct spe_record {
	uint32_t present;                   /* SPE_HAS_* bits */
	uint64_t addr[SPE_ADDR_NR];         /* raw address payloads by index */
	uint16_t counter[SPE_CNT_NR];       /* latencies by index */
	uint64_t events;                    /* EVENTS payload */
	uint64_t data_source;
	uint32_t context;                   /* CONTEXTIDR value */
	uint8_t context_el;                 /* 1 or 2 */
	uint8_t op_class;                   /* enum spe_op_class */
	uint8_t op;                         /* OP-TYPE payload */
	uint64_t timestamp;
	uint32_t nr_packets;                /* packets other than PAD */
	size_t offset;                      /* where the record starts in the buffer */
};

/* spe_record.present bits: an address of index i is SPE_HAS_ADDR(i). */
#define SPE_HAS_ADDR(i) (1u << (i))
#define SPE_HAS_COUNTER(i) (1u << (8 + (i)))
#define SPE_HAS_EVENTS (1u << 16)
#define SPE_HAS_DATA_SOURCE (1u << 17)
#define SPE_HAS_CONTEXT (1u << 18)
#define SPE_HAS_OP_TYPE (1u << 19)
#define SPE_HAS_TIMESTAMP (1u << 20)

/** Decoding statistics. */
struct spe_stats {
	uint64_t packets;      /* packets decoded, pads included */
	uint64_t records;      /* records returned */
	uint64_t bad_bytes;    /* bytes that start no packet (skipped) */
	uint64_t dropped;      /* records interrupted by a bad byte */
	uint64_t truncated;    /* a packet or record cut short by the end (0 or 1 per buffer) */
	uint64_t unknown_index; /* address or counter packets of an index we do not keep */
};

struct spe_decoder {
	const uint8_t *buf;
	size_t len;
	size_t pos;
	struct spe_stats stats;
};

/** Start decoding buf[0..len) (borrowed until done). */
void spe_decoder_init(struct spe_decoder *d, const uint8_t *buf, size_t len);

/**
 * Decode the next record into *out. Returns 1 (a record), 0 (the end of the
 * buffer; a record left open there is counted in stats.truncated, not returned).
 * Never fails otherwise (see "Hostile input" above).
 */
int spe_decoder_next(struct spe_decoder *d, struct spe_record *out);

/**
 * Make a branch entry of a branch record (OP-TYPE class branch with a PC):
 * from = PC and to = TGT (perf's virtual addresses, spe_addr_ip(); to is 0 when
 * the record has no TGT), mispred from EVENTS bit 7, not_taken from bit 6,
 * predicted when EVENTS is present without bit 7, type from OP-TYPE (COND,
 * UNCOND, IND, CALL, IND_CALL, RET, COND_CALL, COND_RET), cycles 0 (the SPE
 * latencies are not LBR timing), priv from the PC's exception level.
 * Returns true and fills *out; false for any other record.
 */
bool spe_record_branch(const struct spe_record *r, struct branch_entry *out);

#endif
