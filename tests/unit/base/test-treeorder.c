/* Unit tests of tree_order(): children under their parent, at any depth. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/treeorder.h"

/* A flat list as documents give it: level 1, then all of level 2, then level 3. */
static void test_children_under_their_parent(void **state)
{
	const char *keys[] = { "retiring", "bad_speculation", "frontend_bound", "backend_bound", "light_operations",
			       "branch_mispredicts", "fetch_latency", "memory_bound", "core_bound", "icache_misses",
			       "l1_bound", "dram_bound" };
	const char *parents[] = { NULL, NULL, NULL, NULL, "retiring", "bad_speculation", "frontend_bound",
				  "backend_bound", "backend_bound", "fetch_latency", "memory_bound", "memory_bound" };
	const size_t want[] = { 0, 4, 1, 5, 2, 6, 9, 3, 7, 10, 11, 8 };
	const int want_depth[] = { 0, 1, 0, 1, 0, 1, 2, 0, 1, 2, 2, 1 };
	size_t order[12];
	int depth[12];

	(void)state;
	assert_int_equal(tree_order(keys, parents, 12, order, depth), 12);
	for (size_t i = 0; i < 12; i++) {
		assert_int_equal(order[i], want[i]);
		assert_int_equal(depth[i], want_depth[i]);
	}
}

/* An extra at level 1 (SMT contention) is a root: its neighbours' children do not follow it. */
static void test_unknown_parent_and_cycle(void **state)
{
	const char *keys[] = { "frontend_bound", "smt_contention", "fetch_latency", "a", "b", "orphan" };
	const char *parents[] = { NULL, NULL, "frontend_bound", "b", "a", "gone" };
	size_t order[6];

	(void)state;
	assert_int_equal(tree_order(keys, parents, 6, order, NULL), 6);
	assert_int_equal(order[0], 0);
	assert_int_equal(order[1], 2); /* fetch_latency under frontend_bound, not after smt_contention */
	assert_int_equal(order[2], 1);
	assert_int_equal(order[3], 5); /* a parent that is not in the tree: a root, in place */
	assert_int_equal(order[4], 3); /* the cycle a <-> b: last, each once */
	assert_int_equal(order[5], 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_children_under_their_parent),
		cmocka_unit_test(test_unknown_parent_and_cycle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
