/*
 * test-agg.c: branch aggregation (branch/branch.h) on hand-made stacks: counts,
 * edges, sites, types, ranking, timed blocks, and every allocation failing in
 * turn. The expected figures are worked out by hand in the comments.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "base/err.h"
#include "branch/branch.h"

#include <math.h>
#include <string.h>

/* An entry: from, to, mispredicted?, cycles, type. predicted = !mispred. */
static struct branch_entry ent(uint64_t from, uint64_t to, bool misp, unsigned cycles, unsigned type)
{
	struct branch_entry e;

	memset(&e, 0, sizeof(e));
	e.from = from;
	e.to = to;
	e.mispred = misp;
	e.predicted = !misp;
	e.cycles = (uint16_t)cycles;
	e.type = (uint8_t)type;
	return e;
}

static const struct branch_site *site(const struct branch_result *r, uint64_t addr)
{
	for (size_t i = 0; i < r->nr_sites; i++)
		if (r->sites[i].addr == addr)
			return &r->sites[i];
	return NULL;
}

static const struct branch_edge *edge(const struct branch_result *r, uint64_t from, uint64_t to)
{
	for (size_t i = 0; i < r->nr_edges; i++)
		if (r->edges[i].from == from && r->edges[i].to == to)
			return &r->edges[i];
	return NULL;
}

static const struct branch_block *block(const struct branch_result *r, uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < r->nr_blocks; i++)
		if (r->blocks[i].start == start && r->blocks[i].end == end)
			return &r->blocks[i];
	return NULL;
}

/*
 * Two untimed stacks (newest first):
 *   A: 0x100->0x200 P, 0x100->0x200 M, 0x300->0x100 P
 *   B: 0x100->0x280 M, 0x0->0x0 P (padding)
 * Edges: (0x100,0x200) count 2, mispredicts 1, predicted 1;
 *        (0x300,0x100) 1/0/1; (0x100,0x280) 1/1/0; (0,0) 1/0/1.
 * Sites: 0x100 executions 3 (2 + 1), mispredicts 2, targets 2, rate 2/3,
 *        share 2/2 = 1; 0x300 1/0; 0x0 1/0.
 * Totals: 5 entries, 2 mispredicted, 3 predicted, 1 with a zero address.
 */
static void test_counts_edges_sites(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct branch_agg *a = NULL;
	struct branch_result r = BRANCH_RESULT_INIT;
	struct branch_entry sa[] = { ent(0x100, 0x200, 0, 0, 0), ent(0x100, 0x200, 1, 0, 0), ent(0x300, 0x100, 0, 0, 0) };
	struct branch_entry sb[] = { ent(0x100, 0x280, 1, 0, 0), ent(0, 0, 0, 0, 0) };
	const struct branch_site *s;
	const struct branch_edge *e;

	(void)state;
	assert_int_equal(branch_agg_new(&a, &err), 0);
	assert_int_equal(branch_agg_add_stack(a, sa, 3, 7, &err), 0);
	assert_int_equal(branch_agg_add_stack(a, sb, 2, 8, &err), 0);
	branch_agg_count_samples(a, 2);
	branch_agg_add_lost(a, 3, 4);
	assert_int_equal(branch_agg_finish(a, &r, &err), 0);

	assert_int_equal(r.counts.samples, 2);
	assert_int_equal(r.counts.branch_entries, 5);
	assert_int_equal(r.counts.mispredicted_entries, 2);
	assert_int_equal(r.counts.predicted_entries, 3);
	assert_int_equal(r.counts.zero_entries, 1);
	assert_int_equal(r.counts.flagless_entries, 0);
	assert_int_equal(r.counts.lost, 3);
	assert_int_equal(r.counts.lost_samples, 4);
	assert_false(r.has_timing);
	assert_true(r.has_mispred_flags);
	assert_false(r.has_types);
	assert_int_equal(r.nr_blocks, 0);

	assert_int_equal(r.nr_edges, 4);
	e = edge(&r, 0x100, 0x200);
	assert_non_null(e);
	assert_int_equal(e->count, 2);
	assert_int_equal(e->mispredicts, 1);
	assert_int_equal(e->predicted, 1);
	assert_int_equal(e->pid, 7);
	e = edge(&r, 0, 0);
	assert_non_null(e);
	assert_int_equal(e->count, 1);
	assert_int_equal(e->predicted, 1);
	/* ranked by count, ties by (from, to): (0x100,0x200)=2 first, then (0,0), (0x100,0x280), (0x300,0x100) */
	assert_int_equal(r.edges[0].from, 0x100);
	assert_int_equal(r.edges[0].to, 0x200);
	assert_int_equal(r.edges[1].from, 0);
	assert_int_equal(r.edges[2].to, 0x280);
	assert_int_equal(r.edges[3].from, 0x300);

	assert_int_equal(r.nr_sites, 3);
	s = site(&r, 0x100);
	assert_non_null(s);
	assert_int_equal(s->executions, 3);
	assert_int_equal(s->mispredicts, 2);
	assert_int_equal(s->nr_targets, 2);
	assert_true(fabs(branch_site_rate(s) - 2.0 / 3.0) < 1e-12);
	assert_true(fabs(branch_site_share(s, &r.counts) - 1.0) < 1e-12);
	/* its pid is that of its most frequent edge (0x100->0x200, pid 7) */
	assert_int_equal(s->pid, 7);
	assert_ptr_equal(&r.sites[0], s); /* the most mispredicted first */
	s = site(&r, 0x300);
	assert_non_null(s);
	assert_int_equal(s->executions, 1);
	assert_int_equal(s->mispredicts, 0);
	assert_true(branch_site_rate(s) == 0.0);

	/* one type row, UNKNOWN: 3 sites, 5 executions, 2 mispredicts */
	assert_int_equal(r.nr_types, 1);
	assert_int_equal(r.types[0].type, BRANCH_TYPE_UNKNOWN);
	assert_int_equal(r.types[0].sites, 3);
	assert_int_equal(r.types[0].executions, 5);
	assert_int_equal(r.types[0].mispredicts, 2);
	assert_string_equal(branch_type_name(0, 0), "UNKNOWN");
	branch_result_release(&r);
	branch_agg_free(a);
}

/*
 * Sorting. Sites: X 0x10 (10 executions, 2 mispredicts: rate 0.2),
 * Y 0x20 (4 executions, 2 mispredicts: rate 0.5), Z 0x30 (100 executions,
 * 1 mispredict: rate 0.01).
 *   by mispredicts: X and Y tie at 2, X has more executions -> X, Y, Z;
 *   by executions: Z (100), X (10), Y (4);
 *   by rate: Y (0.5), X (0.2), Z (0.01).
 */
static void test_sort(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct branch_agg *a = NULL;
	struct branch_result r = BRANCH_RESULT_INIT;
	enum branch_sort by;

	(void)state;
	assert_int_equal(branch_agg_new(&a, &err), 0);
	for (int i = 0; i < 10; i++) {
		struct branch_entry e = ent(0x10, 0x11, i < 2, 0, 0);

		assert_int_equal(branch_agg_add_stack(a, &e, 1, 1, &err), 0);
	}
	for (int i = 0; i < 4; i++) {
		struct branch_entry e = ent(0x20, 0x21, i < 2, 0, 0);

		assert_int_equal(branch_agg_add_stack(a, &e, 1, 1, &err), 0);
	}
	for (int i = 0; i < 100; i++) {
		struct branch_entry e = ent(0x30, 0x31, i < 1, 0, 0);

		assert_int_equal(branch_agg_add_stack(a, &e, 1, 1, &err), 0);
	}
	assert_int_equal(branch_agg_finish(a, &r, &err), 0);
	assert_int_equal(r.nr_sites, 3);
	assert_int_equal(r.sites[0].addr, 0x10);
	assert_int_equal(r.sites[1].addr, 0x20);
	assert_int_equal(r.sites[2].addr, 0x30);
	assert_true(branch_sort_parse("executions", &by));
	branch_sites_sort(r.sites, r.nr_sites, by);
	assert_int_equal(r.sites[0].addr, 0x30);
	assert_int_equal(r.sites[1].addr, 0x10);
	assert_int_equal(r.sites[2].addr, 0x20);
	assert_true(branch_sort_parse("rate", &by));
	branch_sites_sort(r.sites, r.nr_sites, by);
	assert_int_equal(r.sites[0].addr, 0x20);
	assert_int_equal(r.sites[1].addr, 0x10);
	assert_int_equal(r.sites[2].addr, 0x30);
	assert_false(branch_sort_parse("cycles", &by));
	branch_result_release(&r);
	branch_agg_free(a);
}

/*
 * Types recorded with save_type, and entries with neither flag (AMD BRS):
 *   0x40->0x50 COND M x1, COND P x3; 0x60->0x70 RET (flagless) x2;
 *   0x80->0x90 EXTEND_ABI new_type FAULT_DATA (1), flagless x1.
 * Types view, by mispredicts then executions: COND (1 site, 4, 1), RET (1, 2, 0),
 * FAULT_DATA (1, 1, 0). Flagless: 3 entries; edge 0x60->0x70 predicted 0.
 */
static void test_types_and_flags(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct branch_agg *a = NULL;
	struct branch_result r = BRANCH_RESULT_INIT;
	struct branch_entry e[7];
	const struct branch_site *s;

	(void)state;
	e[0] = ent(0x40, 0x50, 1, 0, BRANCH_TYPE_COND);
	for (int i = 1; i < 4; i++)
		e[i] = ent(0x40, 0x50, 0, 0, BRANCH_TYPE_COND);
	for (int i = 4; i < 6; i++) {
		e[i] = ent(0x60, 0x70, 0, 0, BRANCH_TYPE_RET);
		e[i].predicted = false;
	}
	e[6] = ent(0x80, 0x90, 0, 0, BRANCH_TYPE_EXTEND_ABI);
	e[6].new_type = BRANCH_NEW_FAULT_DATA;
	e[6].predicted = false;
	assert_int_equal(branch_agg_new(&a, &err), 0);
	assert_int_equal(branch_agg_add_stack(a, e, 7, BRANCH_PID_NONE, &err), 0);
	assert_int_equal(branch_agg_finish(a, &r, &err), 0);
	assert_true(r.has_types);
	assert_int_equal(r.counts.typed_entries, 7);
	assert_int_equal(r.counts.flagless_entries, 3);
	assert_int_equal(r.counts.predicted_entries, 3);
	assert_int_equal(edge(&r, 0x60, 0x70)->predicted, 0);
	assert_int_equal(edge(&r, 0x40, 0x50)->predicted, 3);
	s = site(&r, 0x40);
	assert_int_equal(s->type, BRANCH_TYPE_COND);
	assert_int_equal(s->type_source, BRANCH_TYPE_FROM_RECORD);
	assert_int_equal(r.nr_types, 3);
	assert_string_equal(branch_type_name(r.types[0].type, r.types[0].new_type), "COND");
	assert_int_equal(r.types[0].executions, 4);
	assert_int_equal(r.types[0].mispredicts, 1);
	/* the derived figures the renderers print: per execution and of all mispredicted entries */
	assert_true(r.types[0].rate == 0.25);
	assert_true(r.counts.mispredicted_entries > 0);
	assert_true(r.types[0].share == 1.0 / (double)r.counts.mispredicted_entries);
	assert_string_equal(branch_type_name(r.types[1].type, r.types[1].new_type), "RET");
	assert_int_equal(r.types[1].executions, 2);
	assert_string_equal(branch_type_name(r.types[2].type, r.types[2].new_type), "FAULT_DATA");

	/* a type decoded later (annotate) moves the site to its type's row */
	s = site(&r, 0x60);
	((struct branch_site *)s)->type = BRANCH_TYPE_IND;
	assert_int_equal(branch_result_retype(&r, &err), 0);
	assert_string_equal(branch_type_name(r.types[1].type, r.types[1].new_type), "IND");
	branch_result_release(&r);
	branch_agg_free(a);
}

/*
 * Timed blocks (timed LBR). One stack, newest first:
 *   e0: 0x1040->0x2000 cycles 12
 *   e1: 0x1020->0x1030 cycles 7
 *   e2: 0x0f00->0x1000 cycles 5
 * Blocks: [e1.to, e0.from] = [0x1030, 0x1040] in e0.cycles = 12;
 *         [e2.to, e1.from] = [0x1000, 0x1020] in e1.cycles = 7;
 *         e2's cycles (5) close a block whose start is not in the stack: dropped.
 * The same stack twice more, with e0's cycles 18 and then 0 (no timing for that
 * one entry): [0x1030,0x1040] seen 3 times, timed 2, cycles 12 + 18 = 30, average
 * 15; [0x1000,0x1020] seen 3 times, timed 3, 21 cycles, average 7.
 * Ranked by total cycles: [0x1030,0x1040] (30) before [0x1000,0x1020] (21).
 * With 6 instructions in [0x1030,0x1040], IPC = 6 / 15 = 0.4.
 */
static void test_blocks(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct branch_agg *a = NULL;
	struct branch_result r = BRANCH_RESULT_INIT;
	struct branch_entry s[3] = { ent(0x1040, 0x2000, 0, 12, 0), ent(0x1020, 0x1030, 0, 7, 0),
				     ent(0x0f00, 0x1000, 0, 5, 0) };
	const struct branch_block *b;

	(void)state;
	assert_int_equal(branch_agg_new(&a, &err), 0);
	assert_int_equal(branch_agg_add_stack(a, s, 3, 5, &err), 0);
	s[0].cycles = 18;
	assert_int_equal(branch_agg_add_stack(a, s, 3, 5, &err), 0);
	s[0].cycles = 0;
	assert_int_equal(branch_agg_add_stack(a, s, 3, 5, &err), 0);
	assert_int_equal(branch_agg_finish(a, &r, &err), 0);
	assert_true(r.has_timing);
	/* 9 entries, of which 8 with cycles (the third stack's e0 has 0) */
	assert_int_equal(r.counts.timed_entries, 8);
	assert_int_equal(r.counts.blocks_seen, 6);
	assert_int_equal(r.counts.blocks_skipped, 0);
	assert_int_equal(r.nr_blocks, 2);
	b = &r.blocks[0];
	assert_int_equal(b->start, 0x1030);
	assert_int_equal(b->end, 0x1040);
	assert_int_equal(b->count, 3);
	assert_int_equal(b->timed, 2);
	assert_int_equal(b->cycles, 30);
	assert_int_equal(b->pid, 5);
	assert_true(fabs(branch_block_avg_cycles(b) - 15.0) < 1e-12);
	assert_true(fabs(branch_block_ipc(b, 6) - 0.4) < 1e-12);
	assert_true(branch_block_ipc(b, -1) < 0);
	b = block(&r, 0x1000, 0x1020);
	assert_non_null(b);
	assert_int_equal(b->count, 3);
	assert_int_equal(b->timed, 3);
	assert_int_equal(b->cycles, 21);
	assert_true(fabs(branch_block_avg_cycles(b) - 7.0) < 1e-12);
	branch_result_release(&r);
	branch_agg_free(a);
}

/*
 * What is not a block: a 0x0/0x0 padding entry on either side (as in
 * perf.data.branch-4.14), a start after the end (the older branch landed beyond
 * the newer one: not straight-line), and a range of BRANCH_MAX_BLOCK_BYTES or
 * more. Stack (newest first):
 *   e0 0x5000->0x6000 c3 | e1 0x5100->0x4000 c4 | e2 0x1000->0x4f00 c5 |
 *   e3 0x0->0x0 c0 | e4 0x0->0x0 c0
 * Candidates: [e1.to=0x4000, e0.from=0x5000] ok (3 cycles);
 *   [e2.to=0x4f00, e1.from=0x5100] ok (4);
 *   [e3.to=0, e2.from=0x1000] zero start: skipped;
 *   [e4.to=0, e3.from=0] zero: skipped.
 * A second stack: e0 0x3000->0x1 c2 | e1 0x2000->0x3500 c9: [0x3500, 0x3000]
 * start > end: skipped. A third: e0 0x20000->0 c1 | e1 0x1->0x1000 c1:
 * [0x1000, 0x20000] is 0x1f000 bytes long: skipped.
 * Totals: 6 candidates, 4 skipped, 2 blocks.
 */
static void test_block_rules(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct branch_agg *a = NULL;
	struct branch_result r = BRANCH_RESULT_INIT;
	struct branch_entry s1[5] = { ent(0x5000, 0x6000, 0, 3, 0), ent(0x5100, 0x4000, 0, 4, 0),
				      ent(0x1000, 0x4f00, 0, 5, 0), ent(0, 0, 0, 0, 0), ent(0, 0, 0, 0, 0) };
	struct branch_entry s2[2] = { ent(0x3000, 0x1, 0, 2, 0), ent(0x2000, 0x3500, 0, 9, 0) };
	struct branch_entry s3[2] = { ent(0x20000, 0, 0, 1, 0), ent(0x1, 0x1000, 0, 1, 0) };

	(void)state;
	assert_int_equal(branch_agg_new(&a, &err), 0);
	assert_int_equal(branch_agg_add_stack(a, s1, 5, 1, &err), 0);
	assert_int_equal(branch_agg_add_stack(a, s2, 2, 1, &err), 0);
	assert_int_equal(branch_agg_add_stack(a, s3, 2, 1, &err), 0);
	assert_int_equal(branch_agg_finish(a, &r, &err), 0);
	assert_int_equal(r.counts.blocks_seen, 6);
	assert_int_equal(r.counts.blocks_skipped, 4);
	assert_int_equal(r.nr_blocks, 2);
	assert_non_null(block(&r, 0x4000, 0x5000));
	assert_int_equal(block(&r, 0x4000, 0x5000)->cycles, 3);
	assert_non_null(block(&r, 0x4f00, 0x5100));
	assert_int_equal(block(&r, 0x4f00, 0x5100)->cycles, 4);
	branch_result_release(&r);
	branch_agg_free(a);
}

/* No cycles anywhere (AMD LbrExtV2, BRS, SPE): no timing and no blocks at all. */
static void test_no_timing(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct branch_agg *a = NULL;
	struct branch_result r = BRANCH_RESULT_INIT;
	struct branch_entry s[3] = { ent(0x1040, 0x2000, 0, 0, 0), ent(0x1020, 0x1030, 1, 0, 0),
				     ent(0x0f00, 0x1000, 0, 0, 0) };

	(void)state;
	assert_int_equal(branch_agg_new(&a, &err), 0);
	assert_int_equal(branch_agg_add_stack(a, s, 3, 1, &err), 0);
	assert_int_equal(branch_agg_finish(a, &r, &err), 0);
	assert_false(r.has_timing);
	assert_int_equal(r.counts.blocks_seen, 0);
	assert_int_equal(r.nr_blocks, 0);
	branch_result_release(&r);
	branch_agg_free(a);
}

/*
 * Many distinct edges: the tables grow (from 1024 slots) and keep every count.
 * 5000 edges (i, i + 1) for i in 1..5000, edge i seen i % 7 + 1 times and
 * mispredicted once when i % 3 == 0. Entries: sum of (i % 7 + 1) over 5000
 * values of i; per block of 7 consecutive i the sum is 1+..+7 = 28, 5000 =
 * 714 * 7 + 2, so 714 * 28 = 19992 plus i = 4999, 5000 (i % 7 = 1, 2 -> 2 + 3):
 * 19997. Mispredicted: i in 1..5000 divisible by 3: 1666.
 */
static void test_growth(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct branch_agg *a = NULL;
	struct branch_result r = BRANCH_RESULT_INIT;

	(void)state;
	assert_int_equal(branch_agg_new(&a, &err), 0);
	for (uint64_t i = 1; i <= 5000; i++)
		for (uint64_t k = 0; k <= i % 7; k++) {
			struct branch_entry e = ent(i * 16, i * 16 + 1, k == 0 && i % 3 == 0, 0, 0);

			assert_int_equal(branch_agg_add_stack(a, &e, 1, 1, &err), 0);
		}
	assert_int_equal(branch_agg_finish(a, &r, &err), 0);
	assert_int_equal(r.nr_edges, 5000);
	assert_int_equal(r.nr_sites, 5000);
	assert_int_equal(r.counts.branch_entries, 19997);
	assert_int_equal(r.counts.mispredicted_entries, 1666);
	for (uint64_t i = 1; i <= 5000; i += 499) {
		const struct branch_edge *e = edge(&r, i * 16, i * 16 + 1);

		assert_non_null(e);
		assert_int_equal(e->count, i % 7 + 1);
		assert_int_equal(e->mispredicts, i % 3 == 0);
	}
	branch_result_release(&r);
	branch_agg_free(a);
}

/* Every allocation failing in turn: TDP_ENOMEM, never a crash or a leak. */
static void test_alloc_failures(void **state)
{
	(void)state;
	for (long n = 0;; n++) {
		struct tdp_err err = TDP_ERR_INIT;
		struct branch_agg *a = NULL;
		struct branch_result r = BRANCH_RESULT_INIT;
		int rc;

		tdp_alloc_fail_after(n);
		rc = branch_agg_new(&a, &err);
		for (uint64_t i = 1; !rc && i <= 1500; i++) {
			struct branch_entry s[2] = { ent(i * 32, i * 32 + 8, i & 1, 3, 0), ent(i * 32 - 64, i * 32 - 8, 0, 2, 0) };

			rc = branch_agg_add_stack(a, s, 2, 1, &err);
		}
		if (!rc)
			rc = branch_agg_finish(a, &r, &err);
		tdp_alloc_fail_after(-1);
		branch_result_release(&r);
		branch_agg_free(a);
		if (!rc) {
			assert_true(n > 2);
			break;
		}
		assert_int_equal(rc, TDP_ENOMEM);
		assert_int_equal(err.code, TDP_ENOMEM);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_edges_sites),
		cmocka_unit_test(test_sort),
		cmocka_unit_test(test_types_and_flags),
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_block_rules),
		cmocka_unit_test(test_no_timing),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_alloc_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
