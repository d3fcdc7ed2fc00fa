/*
 * perfdata-count: read a perf.data the way `tdprof branches report -i` does
 * (perfdata_input_open: a file mapped, "-" or a FIFO read as a stream) and print
 * what the reader counted, for tests/e2e/test_pipe_stream.py:
 *
 *   perfdata-count [--partial] IN
 *   {"pipe": true, "records": N, "samples": N, "buffer_peak": N, "stopped_at": N, "tail_bytes": N}
 *
 * buffer_peak is the reader's own accounting of the stream buffer (0 for a mapped
 * file). Exit status 0, or 2 with the error on stderr.
 */
#include "base/err.h"
#include "perfdata/perfdata.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct perfdata_input in = PERFDATA_INPUT_INIT;
	struct perfdata *p = NULL;
	struct perfdata_record rec;
	const struct perfdata_stats *st;
	unsigned flags = 0;
	int i = 1, ret;

	if (argc > 1 && !strcmp(argv[1], "--partial")) {
		flags = PERFDATA_OPEN_PARTIAL;
		i++;
	}
	if (i + 1 != argc) {
		fprintf(stderr, "usage: perfdata-count [--partial] IN\n");
		return 2;
	}
	ret = perfdata_input_open(&in, argv[i], &err);
	if (!ret)
		ret = perfdata_input_read(&p, &in, flags, &err);
	while (!ret && (ret = perfdata_next(p, &rec, &err)) > 0)
		ret = 0;
	if (ret < 0) {
		fprintf(stderr, "perfdata-count: %s\n", err.msg);
		perfdata_close(p);
		perfdata_input_close(&in);
		return 2;
	}
	st = perfdata_stats(p);
	printf("{\"pipe\": %s, \"records\": %" PRIu64 ", \"samples\": %" PRIu64 ", \"buffer_peak\": %" PRIu64
	       ", \"stopped_at\": %" PRIu64 ", \"tail_bytes\": %" PRIu64 "}\n",
	       perfdata_is_pipe(p) ? "true" : "false", st->records, st->samples, st->buffer_peak,
	       st->unfinished_tail, st->tail_bytes);
	perfdata_close(p);
	perfdata_input_close(&in);
	return 0;
}
