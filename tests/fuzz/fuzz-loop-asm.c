/*
 * fuzz-loop-asm.c: the readers of `tdprof loop` (loop/loop.h): the input's first
 * line names a function, loop_asm_hot_block() looks for it in the rest; the
 * rest is also read as an llvm-mca summary (loop_mca_parse()) and Instruction Info
 * view (loop_mca_parse_uops(), the simulated backend's block model).
 */
#include "fuzz.h"

#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "loop/loop.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *nl = memchr(data, '\n', size);
	size_t name_len = nl ? (size_t)(nl - text) : 0, off = nl ? name_len + 1 : 0, lines = 1;
	struct strbuf block = STRBUF_INIT;
	struct loop_block blk;
	struct loop_mca m;
	char name[64];
	int ret;

	if (name_len >= sizeof(name))
		name_len = sizeof(name) - 1;
	memcpy(name, text, name_len);
	name[name_len] = '\0';
	for (size_t i = off; i < size; i++)
		lines += data[i] == '\n';

	ret = loop_asm_hot_block(text + off, size - off, name, &block, &blk);
	FUZZ_CHECK(ret == 0 || ret == TDP_ENOENT || ret == TDP_ELIMIT || ret == TDP_ENOMEM);
	if (ret == 0) {
		FUZZ_CHECK(blk.first <= blk.last);
		FUZZ_CHECK(blk.nr_insns <= lines);
		FUZZ_CHECK(memchr(blk.label, '\0', sizeof(blk.label)) != NULL);
		/* the block is lines of the input, each with its newline */
		FUZZ_CHECK(block.len <= size - off + lines);
		FUZZ_CHECK(!blk.is_loop || blk.label[0] != '\0');
	}
	strbuf_release(&block);

	memset(&m, 0, sizeof(m));
	ret = loop_mca_parse(text + off, size - off, &m);
	FUZZ_CHECK(ret == 0 || ret == TDP_EFORMAT);
	{
		unsigned uops[8];
		uint8_t mem[8];
		size_t nr = 99;

		ret = loop_mca_parse_uops(text + off, size - off, uops, mem, 8, &nr);
		FUZZ_CHECK(ret == 0 || ret == TDP_EFORMAT || ret == TDP_ELIMIT);
		FUZZ_CHECK(nr <= 8);
		for (size_t i = 0; ret == 0 && i < nr; i++)
			FUZZ_CHECK(uops[i] <= LOOP_MCA_MAX_UOPS &&
				   !(mem[i] & ~(unsigned)(LOOP_MCA_MAY_LOAD | LOOP_MCA_MAY_STORE)));
	}
	return 0;
}
