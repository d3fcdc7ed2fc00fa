/*
 * spe-desc.c: perf's one-line text of an SPE packet (spe.h), as `perf report -D`
 * prints it (tools/perf/util/arm-spe-decoder/arm-spe-pkt-decoder.c,
 * arm_spe_pkt_desc()), so that decodes can be compared with perf's.
 */
#include "branch/spe.h"
#include "base/strbuf.h"

static const char *const event_names[] = {
	[0] = "EXCEPTION-GEN", [1] = "RETIRED", [2] = "L1D-ACCESS", [3] = "L1D-REFILL",
	[4] = "TLB-ACCESS", [5] = "TLB-REFILL", [6] = "NOT-TAKEN", [7] = "MISPRED",
	[8] = "LLC-ACCESS", [9] = "LLC-REFILL", [10] = "REMOTE-ACCESS", [11] = "ALIGNMENT",
	[16] = "TXN", [17] = "SVE-PARTIAL-PRED", [18] = "SVE-EMPTY-PRED", [19] = "L2D-ACCESS",
	[20] = "L2D-MISS", [21] = "HITM", [22] = "LFB", [23] = "SNOOPED", [24] = "STREAMING-SVE",
	[25] = "SMCU",
};

static void desc_events(uint64_t ev, struct strbuf *sb)
{
	strbuf_adds(sb, "EV");
	for (unsigned i = 0; i < sizeof(event_names) / sizeof(event_names[0]); i++)
		if ((ev >> i) & 1 && event_names[i])
			strbuf_addf(sb, " %s", event_names[i]);
}

static void desc_ldst(uint64_t p, struct strbuf *sb)
{
	unsigned sub = (unsigned)(p & 0xfe);

	strbuf_adds(sb, p & 1 ? "ST" : "LD");
	if ((p & 0xe2) == 0x02) {
		/* atomic, exclusive, acquire/release */
		if (p & 0x04)
			strbuf_adds(sb, " AT");
		if (p & 0x08)
			strbuf_adds(sb, " EXCL");
		if (p & 0x10)
			strbuf_adds(sb, " AR");
	} else if (sub == 0x00) {
		strbuf_adds(sb, " GP-REG");
	} else if (sub == 0x04) {
		strbuf_adds(sb, " SIMD-FP");
	} else if (sub == 0x10) {
		strbuf_adds(sb, " UNSPEC-REG");
	} else if (sub == 0x30) {
		strbuf_adds(sb, " NV-SYSREG");
	} else if (sub == 0x14) {
		strbuf_adds(sb, " MTE-TAG");
	} else if (sub == 0x20) {
		strbuf_adds(sb, " MEMCPY");
	} else if (sub == 0x24) {
		strbuf_adds(sb, " MEMSET");
	}
}

static void desc_op(const struct spe_packet *p, struct strbuf *sb)
{
	uint64_t v = p->payload;
	unsigned cr = (unsigned)(v >> SPE_OP_BR_CR_SHIFT) & 3;

	switch (p->index) {
	case SPE_OP_OTHER:
		strbuf_adds(sb, v & 1 ? "COND-SELECT" : "INSN-OTHER");
		break;
	case SPE_OP_LDST:
		desc_ldst(v, sb);
		break;
	case SPE_OP_BRANCH:
		strbuf_adds(sb, "B");
		if (v & SPE_OP_BR_COND)
			strbuf_adds(sb, " COND");
		if (v & SPE_OP_BR_INDIRECT)
			strbuf_adds(sb, " IND");
		if (v & SPE_OP_BR_GCS)
			strbuf_adds(sb, " GCS");
		if (cr == 1)
			strbuf_adds(sb, " CR-BL");
		else if (cr == 2)
			strbuf_adds(sb, " CR-RET");
		else if (cr == 3)
			strbuf_adds(sb, " CR-NON-BL-RET");
		break;
	default:
		strbuf_addf(sb, "OP-TYPE %u 0x%llx", p->index, (unsigned long long)v);
		break;
	}
}

static void desc_addr(const struct spe_packet *p, struct strbuf *sb)
{
	static const char *const names[] = { "PC", "TGT", "VA", "PA", "PBT" };
	uint64_t v = p->payload;

	switch (p->index) {
	case SPE_ADDR_PC:
	case SPE_ADDR_TGT:
	case SPE_ADDR_PBT:
		strbuf_addf(sb, "%s 0x%llx el%u ns=%d", names[p->index],
			    (unsigned long long)spe_addr_value(v), spe_addr_el(v), spe_addr_ns(v));
		break;
	case SPE_ADDR_VA:
		strbuf_addf(sb, "VA 0x%llx", (unsigned long long)v);
		break;
	case SPE_ADDR_PA:
		strbuf_addf(sb, "PA 0x%llx ns=%d ch=%d pat=%x", (unsigned long long)spe_addr_value(v),
			    spe_addr_ns(v), (int)((v >> 62) & 1), (unsigned)((v >> 56) & 0xf));
		break;
	default:
		strbuf_addf(sb, "ADDR%u 0x%llx", p->index, (unsigned long long)v);
		break;
	}
}

void spe_packet_desc(const struct spe_packet *p, struct strbuf *sb)
{
	static const char *const lat[] = { "TOT", "ISSUE", "XLAT" };

	switch (p->type) {
	case SPE_PKT_PAD:
		strbuf_adds(sb, "PAD");
		break;
	case SPE_PKT_END:
		strbuf_adds(sb, "END");
		break;
	case SPE_PKT_TIMESTAMP:
		strbuf_addf(sb, "TS %llu", (unsigned long long)p->payload);
		break;
	case SPE_PKT_EVENTS:
		desc_events(p->payload, sb);
		break;
	case SPE_PKT_DATA_SOURCE:
		strbuf_addf(sb, "DATA-SOURCE %llu", (unsigned long long)p->payload);
		break;
	case SPE_PKT_CONTEXT:
		strbuf_addf(sb, "CONTEXT 0x%llx el%u", (unsigned long long)p->payload, p->index + 1u);
		break;
	case SPE_PKT_OP_TYPE:
		desc_op(p, sb);
		break;
	case SPE_PKT_ADDRESS:
		desc_addr(p, sb);
		break;
	case SPE_PKT_COUNTER:
		strbuf_addf(sb, "LAT %u", (unsigned)(uint16_t)p->payload);
		if (p->index < SPE_CNT_NR)
			strbuf_addf(sb, " %s", lat[p->index]);
		break;
	default:
		strbuf_adds(sb, "BAD");
		break;
	}
}
