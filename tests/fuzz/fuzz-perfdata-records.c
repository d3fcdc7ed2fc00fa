/*
 * fuzz-perfdata-records.c: records and samples (perfdata/perfdata.h:
 * perfdata_next) of one event whose sample layout the input chooses. The first
 * FIELDS bytes give the attr's sample_type, read_format, flag word (sample_id_all),
 * branch_sample_type, sample_regs_user, sample_regs_intr and sample_stack_user;
 * the rest follows a pipe-mode header and that attr's HEADER_ATTR record, so the
 * fuzzer spends its time in the record and sample decoders, not the header.
 */
#include "fuzz.h"

#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "perfdata/perfdata.h"

#define FIELDS 52
#define ATTR_SIZE 128
#define PREFIX (16 + 8 + ATTR_SIZE + 8) /* pipe header, HEADER_ATTR {header, attr, id 1} */

static void put64(uint8_t *b, uint64_t v) { memcpy(b, &v, 8); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int field_at[] = { 24, 32, 40, 72, 80, 96 }; /* attr offsets of the u64s */
	struct perfdata *p = NULL;
	struct perfdata_record rec;
	struct tdp_err err = TDP_ERR_INIT;
	uint8_t *img, *attr;
	size_t len = PREFIX + size - FIELDS;
	uint64_t v;
	int ret;

	if (size < FIELDS || !(img = tdp_calloc(1, len)))
		return 0;
	memcpy(img, "PERFILE2", 8);
	put64(img + 8, 16);
	put64(img + 16, (uint64_t)PERFDATA_RECORD_HEADER_ATTR | (uint64_t)(8 + ATTR_SIZE + 8) << 48);
	attr = img + 24;
	put64(attr, (uint64_t)ATTR_SIZE << 32 | 1); /* type 1 (software), size */
	for (int i = 0; i < 6; i++) {
		memcpy(&v, data + 8 * i, 8);
		if (i == 0)
			v &= PERFDATA_SAMPLE_KNOWN;
		put64(attr + field_at[i], v);
	}
	memcpy(attr + 88, data + 48, 4); /* sample_stack_user */
	put64(attr + ATTR_SIZE, 1);      /* its sample id */
	memcpy(img + PREFIX, data + FIELDS, size - FIELDS);
	ret = fuzz_check_ret(perfdata_open(&p, img, len, "fuzz.data", 0, &err), &err);
	while (!ret && (ret = perfdata_next(p, &rec, &err)) > 0)
		FUZZ_CHECK(rec.raw >= img + 16 && rec.size >= 8 && rec.raw + rec.raw_len <= img + len);
	fuzz_check_ret(ret < 0 ? ret : 0, &err);
	perfdata_close(p);
	tdp_free(img);
	return 0;
}
