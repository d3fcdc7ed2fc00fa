/*
 * fuzz-spe.c: an Arm SPE trace buffer (branch/spe.h: spe_decoder_next, and
 * packet by packet spe_packet_decode/spe_packet_desc), as found in the payload
 * of a perf.data AUXTRACE record.
 */
#include "fuzz.h"

#include "base/strbuf.h"
#include "branch/spe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spe_decoder d;
	struct spe_record rec;
	struct spe_packet pkt;
	struct branch_entry e;
	struct strbuf sb = STRBUF_INIT;
	uint64_t n = 0;
	int ret;

	spe_decoder_init(&d, data, size);
	while ((ret = spe_decoder_next(&d, &rec)) > 0) {
		FUZZ_CHECK(rec.offset < size && ++n <= size);
		if (spe_record_branch(&rec, &e))
			FUZZ_CHECK(rec.op_class == SPE_OP_BRANCH && (rec.present & SPE_HAS_ADDR(SPE_ADDR_PC)));
	}
	FUZZ_CHECK(ret == 0 && d.stats.records == n && d.stats.truncated <= 1);
	/* packet by packet, as perf report -D prints them */
	for (size_t pos = 0; pos < size;) {
		int sz = spe_packet_decode(data, size, pos, &pkt);

		if (sz == 0)
			break;
		FUZZ_CHECK(sz < 0 ? pkt.type == SPE_PKT_BAD : (size_t)sz <= size - pos && pkt.size == sz);
		strbuf_reset(&sb);
		spe_packet_desc(&pkt, &sb);
		pos += sz > 0 ? (size_t)sz : 1;
	}
	strbuf_release(&sb);
	return 0;
}
