/*
 * Unit tests of model/locate: the dominant leaf follows the flagged (else largest)
 * children from the verdict down; its Locate-with event comes from the vendor's data
 * (or its nearest ancestor's); Intel's _PS events become ":pp" only where the PMU
 * samples precisely; a model without Locate-with data plans nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/countset.h"
#include "base/err.h"
#include "model/locate.h"
#include "model/model.h"
#include "sim/cost.h"

static bool is_leaf(const struct model *m, size_t i)
{
	for (size_t j = 0; j < m->nr_nodes; j++)
		if (m->nodes[j].parent && !strcmp(m->nodes[j].parent, m->nodes[i].key))
			return false;
	return true;
}

/* t: every node of skylake at 1 % and not flagged, but the path from `key` up flagged at 30 %. */
static void path_tree(const struct model *m, struct metric_tree *t, const char *key)
{
	struct countset cs = COUNTSET_INIT;
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	const struct metric_node *n;

	for (size_t e = 0; e < m->nr_events; e++)
		assert_non_null(countset_add(&cs, m->events[e].name, NULL, 1e9, -1));
	o.max_level = MODEL_MAX_LEVEL;
	assert_int_equal(model_evaluate(m, &cs, &o, t, &err), 0);
	countset_release(&cs);
	for (size_t i = 0; i < t->nr; i++) {
		t->v[i].value = 1;
		t->v[i].flagged = false;
	}
	for (n = metric_tree_find(t, key); n; n = n->parent ? metric_tree_find(t, n->parent) : NULL) {
		((struct metric_node *)n)->value = 30;
		((struct metric_node *)n)->flagged = true;
		if (!n->parent)
			t->verdict.category = n->key;
	}
}

static void test_precise_leaf(void **state)
{
	const struct model *m = model_find("skylake");
	struct metric_tree *t = calloc(1, sizeof(*t));
	struct locate_plan p;
	size_t ps = 0, list = 0, inherit = 0;

	(void)state;
	assert_non_null(m);
	assert_non_null(t);
	for (size_t i = 0; i < m->nr_nodes; i++) {
		const char *lw = m->nodes[i].locate_with;
		size_t len = lw ? strcspn(lw, ";") : 0;

		if (!is_leaf(m, i))
			continue;
		path_tree(m, t, m->nodes[i].key);
		if (!lw) {
			/* a leaf without its own event: its nearest ancestor's, if any */
			if (locate_plan(t, 3, &p) == 0) {
				assert_string_equal(p.leaf, m->nodes[i].key);
				assert_string_not_equal(p.node, m->nodes[i].key);
				assert_non_null(strstr(p.reason, "nearest node above"));
				inherit++;
			}
			continue;
		}
		assert_int_equal(locate_plan(t, 3, &p), 0);
		assert_string_equal(p.leaf, m->nodes[i].key);
		assert_string_equal(p.node, m->nodes[i].key);
		assert_int_equal(strlen(p.event), len);
		assert_memory_equal(p.event, lw, len);
		if (len > 3 && !strncmp(lw + len - 3, "_PS", 3)) {
			assert_true(p.precise);
			assert_int_equal(strlen(p.spec), len - 3 + 3);
			assert_memory_equal(p.spec, lw, len - 3);
			assert_string_equal(p.spec + len - 3, ":pp");
			assert_int_equal(locate_plan(t, 0, &p), 0); /* no PEBS: plain samples, said */
			assert_false(p.precise);
			assert_null(strstr(p.spec, ":pp"));
			assert_null(strstr(p.spec, "_PS"));
			assert_non_null(strstr(p.reason, "cannot sample precisely"));
			ps++;
		} else {
			assert_false(p.precise);
			assert_string_equal(p.spec, p.event);
		}
		if (lw[len] == ';') {
			assert_string_equal(p.others, lw + len + 1);
			list++;
		}
	}
	assert_true(ps > 3);  /* skylake's data has precise events ... */
	assert_true(list > 0); /* ... and lists of them */
	(void)inherit;
	free(t);
}

static void test_nothing_to_locate(void **state)
{
	struct metric_tree *t = calloc(1, sizeof(*t));
	struct sim_topdown td = { .retiring = 10, .bad_speculation = 70, .frontend_bound = 10, .backend_bound = 10 };
	struct locate_plan p;

	(void)state;
	assert_non_null(t);
	model_tree_from_sim(&td, 4, 2, t);
	model_classify(t);
	assert_int_equal(locate_plan(t, 3, &p), -1); /* the simulated model has no Locate-with */
	assert_string_equal(p.leaf, "branch_mispredicts");
	assert_non_null(strstr(p.reason, "no Locate-with"));
	t->verdict.category = NULL;
	assert_int_equal(locate_plan(t, 3, &p), -1);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_precise_leaf),
		cmocka_unit_test(test_nothing_to_locate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
