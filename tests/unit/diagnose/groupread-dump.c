/*
 * groupread-dump FILE: the counts diagnose/groupread.h charges to each IP, one line
 * per (IP, event) with a non-zero count: "IP_HEX EVENT COUNT", for the e2e test that
 * compares them with perf script's periods (tests/e2e/test_groupread.py). A test
 * tool, not installed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/err.h"
#include "base/file.h"
#include "diagnose/groupread.h"

int main(int argc, char **argv)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct groupread r;
	struct tdp_file f = TDP_FILE_INIT;

	if (argc != 2) {
		fprintf(stderr, "usage: groupread-dump FILE\n");
		return 2;
	}
	if (tdp_file_open(&f, argv[1], 0, &err) || groupread_load(f.data, f.size, argv[1], &r, &err)) {
		fprintf(stderr, "groupread-dump: %s\n", err.msg);
		tdp_file_close(&f);
		return 2;
	}
	printf("# samples %" PRIu64 " other %" PRIu64 " unknown_ids %" PRIu64 "\n", r.samples, r.other_samples,
	       r.unknown_ids);
	for (size_t i = 0; i < r.nr; i++)
		for (size_t e = 0; e < r.nr_events && e < GROUPREAD_MAX_EVENTS; e++)
			if (r.v[i].v[e])
				printf("%" PRIx64 " %s %" PRIu64 "\n", r.v[i].ip, r.names[e] ? r.names[e] : "?", r.v[i].v[e]);
	groupread_release(&r);
	tdp_file_close(&f);
	return 0;
}
