/*
 * fuzz-perfmap.c: perf's JIT maps, /tmp/perf-PID.map (symbol/symbol.h:
 * symbol_perfmap_parse): every symbol found is one of the parsed lines, and
 * every address of a symbol finds a symbol that holds it.
 */
#include "fuzz.h"

#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "symbol/symbol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = tdp_malloc(size + 1);
	struct symbol_perfmap_sym *v = NULL;
	size_t nr = 0, bad = 0;
	int ret;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	ret = symbol_perfmap_parse(buf, size, &v, &nr, &bad);
	FUZZ_CHECK(ret == 0 || ret == TDP_EFORMAT || ret == TDP_ENOMEM);
	FUZZ_CHECK(ret != TDP_EFORMAT || (bad >= 1 && !v && !nr));
	for (size_t i = 0; !ret && i < nr; i++) {
		const struct symbol_perfmap_sym *s;

		FUZZ_CHECK(v[i].name >= buf && v[i].name < buf + size && strlen(v[i].name) <= SYMBOL_PERFMAP_MAX_NAME);
		FUZZ_CHECK(v[i].start + v[i].size >= v[i].start);
		FUZZ_CHECK(i == 0 || v[i - 1].start <= v[i].start);
		if (v[i].size) {
			s = symbol_perfmap_find(v, nr, v[i].start);
			FUZZ_CHECK(s && v[i].start - s->start < s->size);
		}
	}
	tdp_free(v);
	tdp_free(buf);
	return 0;
}
