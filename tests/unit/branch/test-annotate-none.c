/*
 * test-annotate-none.c: the annotator of a build without the symbol module
 * (src/branch/annotate-none.c, linked here instead of annotate.c): every address
 * stays unresolved and is printed as perf prints an address it cannot place,
 * "[k] 0x%016llx" for a kernel address and "[.] 0x%016llx" otherwise, 0 as
 * sixteen zeros without "0x" (perf's "%#.16llx"); perf's rows are then one per
 * (from, to, flag).
 *
 * Stacks: 0xffffffff81000010 -> 0xffffffff81000040 P twice, M once;
 *         0x401000 -> 0x401100 P; 0x0 -> 0x0 P.
 * Rows: kernel edge N 2, kernel edge Y 1, user edge N 1, zero edge N 1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/err.h"
#include "branch/annotate.h"
#include "branch/branch.h"

#include <string.h>

static struct branch_entry ent(uint64_t from, uint64_t to, bool misp)
{
	struct branch_entry e;

	memset(&e, 0, sizeof(e));
	e.from = from;
	e.to = to;
	e.mispred = misp;
	e.predicted = !misp;
	return e;
}

static void test_unresolved(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct branch_agg *a = NULL;
	struct branch_annot *an = NULL;
	struct branch_result r = BRANCH_RESULT_INIT;
	struct branch_entry s[5] = { ent(0xffffffff81000010ull, 0xffffffff81000040ull, 0),
				     ent(0xffffffff81000010ull, 0xffffffff81000040ull, 1),
				     ent(0xffffffff81000010ull, 0xffffffff81000040ull, 0), ent(0x401000, 0x401100, 0),
				     ent(0, 0, 0) };
	const struct branch_symbols *sy;
	const struct branch_loc *l;

	(void)state;
	assert_int_equal(branch_agg_new(&a, &err), 0);
	assert_int_equal(branch_agg_add_stack(a, s, 5, 1, &err), 0);
	assert_int_equal(branch_agg_finish(a, &r, &err), 0);
	assert_int_equal(branch_annot_new(&an, NULL, &err), 0);
	assert_int_equal(branch_annot_run(an, &r, &err), 0);
	sy = branch_annot_symbols(an);
	assert_string_equal(sy->symbolizer, "none");
	assert_int_equal(sy->nr_resolved, 0);
	assert_int_equal(sy->nr_locs, 5);
	l = branch_symbols_find(sy, 0xffffffff81000010ull);
	assert_non_null(l);
	assert_true(l->kernel);
	assert_false(l->resolved);
	assert_string_equal(l->perf_text, "[k] 0xffffffff81000010");
	assert_string_equal(branch_symbols_find(sy, 0x401100)->perf_text, "[.] 0x0000000000401100");
	assert_string_equal(branch_symbols_find(sy, 0)->perf_text, "[.] 0000000000000000");
	assert_int_equal(sy->nr_sym_edges, 4);
	assert_int_equal(sy->sym_edges[0].count, 2);
	assert_string_equal(sy->sym_edges[0].from->perf_text, "[k] 0xffffffff81000010");
	assert_int_equal(sy->sym_edges[0].flag, BRANCH_PRED_N);
	for (size_t i = 1; i < 4; i++)
		assert_int_equal(sy->sym_edges[i].count, 1);
	assert_int_equal(sy->nr_disasm, 0);
	assert_int_equal(sy->nr_block_insns, 0);
	/* the result's edge i -> its locations */
	for (size_t i = 0; i < r.nr_edges; i++) {
		assert_int_equal(branch_symbols_edge(sy, i, false)->addr, r.edges[i].from);
		assert_int_equal(branch_symbols_edge(sy, i, true)->addr, r.edges[i].to);
	}
	branch_annot_free(an);
	branch_result_release(&r);
	branch_agg_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unresolved),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
