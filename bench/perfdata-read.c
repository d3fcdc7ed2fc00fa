/*
 * perfdata-read: time src/perfdata's reader alone on a perf.data.
 *
 *   perfdata-read FILE [REPEAT]     (REPEAT: passes over the file, default 3)
 *
 * Maps the file, then per pass opens the reader and decodes every record, counting
 * samples, branch entries and mispredicted entries (so the decode cannot be
 * optimized away). Prints the counts, the best pass's time, samples per second
 * (on one core) and the peak resident memory.
 */
#include "base/err.h"
#include "base/file.h"
#include "base/str.h"
#include "perfdata/perfdata.h"

#include <inttypes.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct tdp_file f = TDP_FILE_INIT;
	uint64_t repeat = 3, samples = 0, entries = 0, mispred = 0;
	double best = 0;
	struct rusage ru;
	int ret;

	if (argc < 2 || argc > 3 || (argc == 3 && (!str_to_u64(argv[2], &repeat) || !repeat))) {
		fprintf(stderr, "usage: perfdata-read FILE [REPEAT]\n");
		return 2;
	}
	ret = tdp_file_open(&f, argv[1], 0, &err);
	for (uint64_t pass = 0; !ret && pass < repeat; pass++) {
		struct perfdata *p = NULL;
		struct perfdata_record r;
		double t = now();

		samples = entries = mispred = 0;
		ret = perfdata_open(&p, f.data, f.size, argv[1], 0, &err);
		while (!ret && (ret = perfdata_next(p, &r, &err)) > 0) {
			ret = 0;
			if (r.type != PERFDATA_RECORD_SAMPLE || !r.attr)
				continue;
			samples++;
			entries += r.u.sample.nr_branches;
			for (size_t i = 0; i < r.u.sample.nr_branches; i++)
				mispred += r.u.sample.branches[i].mispred;
		}
		perfdata_close(p);
		t = now() - t;
		if (pass == 0 || t < best)
			best = t;
	}
	tdp_file_close(&f);
	if (ret) {
		fprintf(stderr, "perfdata-read: %s\n", err.msg);
		return 2;
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("samples %" PRIu64 " entries %" PRIu64 " mispredicted %" PRIu64 "\n", samples, entries,
	       mispred);
	printf("best of %" PRIu64 ": %.4f s, %.2f M samples/s, peak RSS %ld MiB (file mapped)\n", repeat,
	       best, best > 0 ? (double)samples / best / 1e6 : 0.0, ru.ru_maxrss / 1024);
	return 0;
}
