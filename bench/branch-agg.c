/*
 * branch-agg: time src/branch's aggregation alone, apart from the perf.data
 * reader, on one core (CPU time of this thread).
 *
 *   branch-agg FILE [REPEAT]     (REPEAT: aggregation passes, default 5)
 *
 * Decodes every sample of FILE once (timing the reader) and keeps the first
 * REPLAY_STACKS stacks, then aggregates as many stacks as the file has, cycling
 * through the kept ones (so that they come from cache, as they do from the
 * reader's buffer in `tdprof branches report`), REPEAT times into fresh
 * aggregators, and prints the best pass: nanoseconds per entry, with the counts
 * (so that nothing is optimized away).
 *
 * Then decoding and aggregation together, as `tdprof branches report` does them
 * but on this one thread (branch_load() without its threads, over the mapped
 * file with PERFDATA_OPEN_RAW_BRANCHES, page faults included): the best of REPEAT passes, in ns per entry
 * (issue 21's target: at most 8).
 */
#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"
#include "base/str.h"
#include "branch/branch.h"
#include "perfdata/perfdata.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Stacks kept for replay: 1024 x 32 entries x 32 bytes = 1 MiB, an L2's worth. */
#define REPLAY_STACKS 1024

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct tdp_file f = TDP_FILE_INIT;
	struct perfdata *p = NULL;
	struct perfdata_record rec;
	struct branch_entry *ent = NULL;
	size_t nr_ent = 0, alloc_ent = 0, *stack_nr = NULL, nr_st = 0, alloc_st = 0, nr_file = 0;
	uint64_t file_entries = 0;
	uint64_t repeat = 5;
	double t0, t_read, best = 0;
	int ret;

	if (argc < 2 || argc > 3 || (argc == 3 && (!str_to_u64(argv[2], &repeat) || !repeat))) {
		fprintf(stderr, "usage: branch-agg FILE [REPEAT]\n");
		return 2;
	}
	if (tdp_file_open(&f, argv[1], 0, &err) || perfdata_open(&p, f.data, f.size, argv[1], 0, &err)) {
		fprintf(stderr, "branch-agg: %s\n", err.msg);
		return 1;
	}
	t0 = cpu_now();
	while ((ret = perfdata_next(p, &rec, &err)) > 0) {
		const struct perfdata_sample *s = &rec.u.sample;

		if (rec.type != PERFDATA_RECORD_SAMPLE || !rec.attr || !(s->fields & PERFDATA_SAMPLE_BRANCH_STACK))
			continue;
		nr_file++;
		file_entries += s->nr_branches;
		if (nr_st == REPLAY_STACKS)
			continue;
		if (TDP_GROW(ent, alloc_ent, nr_ent + s->nr_branches) || TDP_GROW(stack_nr, alloc_st, nr_st + 1)) {
			fprintf(stderr, "branch-agg: out of memory\n");
			return 1;
		}
		memcpy(ent + nr_ent, s->branches, s->nr_branches * sizeof(*ent));
		nr_ent += s->nr_branches;
		stack_nr[nr_st++] = s->nr_branches;
	}
	t_read = cpu_now() - t0;
	if (ret < 0) {
		fprintf(stderr, "branch-agg: %s\n", err.msg);
		return 1;
	}
	for (uint64_t r = 0; r < repeat; r++) {
		struct branch_agg *a = NULL;
		size_t at = 0, k = 0;
		double t;

		if (branch_agg_new(&a, &err))
			return 1;
		t = cpu_now();
		for (size_t i = 0; i < nr_file; i++, k++) {
			if (k == nr_st)
				k = at = 0;
			if (branch_agg_add_stack(a, ent + at, stack_nr[k], 1, &err)) {
				fprintf(stderr, "branch-agg: %s\n", err.msg);
				return 1;
			}
			at += stack_nr[k];
		}
		t = cpu_now() - t;
		if (!r || t < best)
			best = t;
		if (r + 1 == repeat) {
			struct branch_result res = BRANCH_RESULT_INIT;

			if (branch_agg_finish(a, &res, &err))
				return 1;
			printf("stacks %zu entries %" PRIu64 " mispredicted %" PRIu64 " blocks %" PRIu64 "\n", nr_file,
			       res.counts.branch_entries, res.counts.mispredicted_entries, res.counts.blocks_seen);
			branch_result_release(&res);
		}
		branch_agg_free(a);
	}
	printf("reader (and copy): %.1f ms CPU; aggregation: best of %" PRIu64 " %.1f ms CPU, %.2f ns/entry, "
	       "%.2f M stacks/s\n",
	       t_read * 1e3, repeat, best * 1e3, best * 1e9 / (double)(file_entries ? file_entries : 1),
	       (double)nr_file / best / 1e6);
	best = 0;
	for (uint64_t r = 0; r < repeat; r++) {
		struct branch_agg *a = NULL;
		struct perfdata *q = NULL;
		double t;

		if (perfdata_open(&q, f.data, f.size, argv[1], PERFDATA_OPEN_RAW_BRANCHES, &err) ||
		    branch_agg_new(&a, &err)) {
			fprintf(stderr, "branch-agg: %s\n", err.msg);
			return 1;
		}
		t = cpu_now();
		if (branch_load(q, a, NULL, NULL, &err)) {
			fprintf(stderr, "branch-agg: %s\n", err.msg);
			return 1;
		}
		t = cpu_now() - t;
		if (!r || t < best)
			best = t;
		if (branch_agg_counts(a)->branch_entries != file_entries) {
			fprintf(stderr, "branch-agg: branch_load counted %" PRIu64 " entries, the reader %" PRIu64 "\n",
				branch_agg_counts(a)->branch_entries, file_entries);
			return 1;
		}
		branch_agg_free(a);
		perfdata_close(q);
	}
	printf("decode and aggregate (branch_load, one thread): best of %" PRIu64 " %.1f ms CPU, %.2f ns/entry\n",
	       repeat, best * 1e3, best * 1e9 / (double)(file_entries ? file_entries : 1));
	tdp_free(ent);
	tdp_free(stack_nr);
	perfdata_close(p);
	tdp_file_close(&f);
	return 0;
}
