/*
 * test-topdown-extra.c: what `tdprof topdown` shows beside the tree
 * (report/topdown-extra.c), on a small model made here: Arm's stage 2 for the
 * dominant level-1 node (data-driven: any model with MODEL_METRIC_STAGE2 metrics
 * and an explore table), the Bottlenecks ranking, --info, --nodes and the nested
 * JSON tree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "report/topdown.h"

static const struct model_metric_def metrics[] = {
	{ .key = "branch_mpki", .formula = "f", .kind = MODEL_METRIC_STAGE2, .group = "Branch_Effectiveness",
	  .unit = "per_kilo_instructions", .threshold = NAN },
	{ .key = "l1i_mpki", .formula = "f", .kind = MODEL_METRIC_STAGE2, .group = "L1I_Cache_Effectiveness",
	  .unit = "per_kilo_instructions", .threshold = NAN },
	{ .key = "Small", .formula = "f", .kind = MODEL_METRIC_BOTTLENECK, .unit = "percent_of_slots", .threshold = 20 },
	{ .key = "Large", .formula = "f", .kind = MODEL_METRIC_BOTTLENECK, .unit = "percent_of_slots", .threshold = 20 },
	{ .key = "IPC", .formula = "f", .kind = MODEL_METRIC_INFO, .group = "Info.Thread", .threshold = NAN },
};

static const struct model_explore explore[] = {
	{ .node = "frontend_bound", .groups = "L1I_Cache_Effectiveness;ITLB_Effectiveness" },
	{ .node = "bad_speculation", .groups = "Branch_Effectiveness" },
};

static const struct model_node_def defs[] = {
	{ .key = "frontend_bound", .description = "the front end", .hint = "lay out the code" },
	{ .key = "fetch_latency", .parent = "frontend_bound" },
	{ .key = "icache_misses", .parent = "fetch_latency", .level = 3 },
	{ .key = "backend_bound" },
};

static const struct model model = {
	.name = "test", .description = "a test model", .sources = "this test", .vendor = MODEL_VENDOR_ARM,
	.metrics = metrics, .nr_metrics = 5, .explore = explore, .nr_explore = 2,
};

static void make_tree(struct metric_tree *t)
{
	static const struct { const char *key, *parent, *label; int level; double value; } n[] = {
		{ "frontend_bound", NULL, "Frontend Bound", 1, 50 },
		{ "backend_bound", NULL, "Backend Bound", 1, 20 },
		{ "fetch_latency", "frontend_bound", "Fetch Latency", 2, 30 },
		{ "icache_misses", "fetch_latency", "ICache Misses", 3, 12 },
	};
	static const double values[] = { 3.5, 21.25, 5, 40, 1.5 };

	memset(t, 0, sizeof(*t));
	t->model = &model;
	t->max_level = 3;
	t->nr = 4;
	for (size_t i = 0; i < 4; i++) {
		t->v[i].key = n[i].key;
		t->v[i].parent = n[i].parent;
		t->v[i].label = n[i].label;
		t->v[i].level = n[i].level;
		t->v[i].value = n[i].value;
		t->v[i].threshold = NAN;
		t->v[i].group = -1;
		t->v[i].def = !strcmp(n[i].key, "frontend_bound") ? &defs[0] : NULL;
	}
	t->nr_metrics = 5;
	for (size_t i = 0; i < 5; i++) {
		t->metrics[i].def = &metrics[i];
		t->metrics[i].value = values[i];
		t->metrics[i].flagged = metrics[i].kind == MODEL_METRIC_BOTTLENECK && values[i] > 20;
	}
	t->verdict.category = "frontend_bound";
}

static char *text_of(const struct topdown_report *r, const struct metric_tree *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	topdown_text_extra(f, r, t);
	fclose(f);
	{
		char *copy = strdup(buf); /* (a copy: gcc cannot follow open_memstream's buffer) */

		free(buf);
		assert_non_null(copy);
		return copy;
	}
}

static void test_stage2_for_the_dominant_node(void **state)
{
	struct metric_tree t;
	struct topdown_report r = { .level = 2 };
	char *s;

	(void)state;
	make_tree(&t);
	s = text_of(&r, &t);
	/* Frontend Bound dominates: its groups (L1I, ITLB), not Bad Speculation's (branches) */
	assert_non_null(strstr(s, "stage 2"));
	assert_non_null(strstr(s, "l1i_mpki"));
	assert_null(strstr(s, "branch_mpki"));
	free(s);
	/* at level 1 no stage 2 */
	r.level = 1;
	s = text_of(&r, &t);
	assert_null(strstr(s, "stage 2"));
	free(s);
	/* another dominant node, its own groups */
	t.verdict.category = "bad_speculation";
	r.level = 2;
	s = text_of(&r, &t);
	assert_non_null(strstr(s, "branch_mpki"));
	assert_null(strstr(s, "l1i_mpki"));
	free(s);
}

static void test_bottlenecks_ranked_and_info(void **state)
{
	struct metric_tree t;
	struct topdown_report r = { .level = 1 };
	char *s, *large, *small;

	(void)state;
	make_tree(&t);
	s = text_of(&r, &t);
	large = strstr(s, "1. Large");
	small = strstr(s, "2. Small");
	assert_non_null(large);
	assert_non_null(small);
	assert_non_null(strstr(large, "above its threshold"));
	assert_null(strstr(s, "info metrics"));
	free(s);
	r.info = true;
	s = text_of(&r, &t);
	assert_non_null(strstr(s, "info metrics"));
	assert_non_null(strstr(s, "IPC"));
	free(s);
}

static void test_nodes_and_json_tree(void **state)
{
	struct metric_tree t;
	struct topdown_report r = { .level = 3, .nodes = "Fetch_Latency" };
	json_t *o = json_object(), *tree, *fe, *fl;
	bool failed = false;
	char unknown[64];

	(void)state;
	make_tree(&t);
	/* the named node, its subtree and its ancestors; nothing else */
	assert_true(topdown_node_shown(&r, &t, &t.v[0]));
	assert_true(topdown_node_shown(&r, &t, &t.v[2]));
	assert_true(topdown_node_shown(&r, &t, &t.v[3]));
	assert_false(topdown_node_shown(&r, &t, &t.v[1]));
	r.nodes = "fetch_latency,-ICache_Misses";
	assert_false(topdown_node_shown(&r, &t, &t.v[3]));
	r.nodes = "Memory_Bound,fetch_latency";
	topdown_nodes_unknown(&r, &t, unknown, sizeof(unknown));
	assert_string_equal(unknown, "Memory_Bound");
	r.nodes = NULL;
	topdown_json_extra(o, &r, &t, &failed);
	assert_false(failed);
	tree = json_object_get(o, "tree");
	assert_int_equal(json_array_size(tree), 2);
	fe = json_array_get(tree, 0);
	assert_string_equal(json_string_value(json_object_get(fe, "key")), "frontend_bound");
	assert_string_equal(json_string_value(json_object_get(fe, "hint")), "lay out the code");
	fl = json_array_get(json_object_get(fe, "children"), 0);
	assert_string_equal(json_string_value(json_object_get(fl, "key")), "fetch_latency");
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(fl, "children"), 0),
								"key")), "icache_misses");
	assert_int_equal(json_array_size(json_object_get(o, "bottlenecks")), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(o, "bottlenecks"), 0),
								"name")), "Large");
	assert_int_equal(json_array_size(json_object_get(o, "info")), 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(o, "stage2"), "node")), "frontend_bound");
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stage2_for_the_dominant_node),
		cmocka_unit_test(test_bottlenecks_ranked_and_info),
		cmocka_unit_test(test_nodes_and_json_tree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
