/*
 * The Zen 4 model against real perf output: every metric perf printed for
 * `perf stat -MPipelineL2` in ../shared/data/counters/amd-zen4-kinematics
 * (expected_metrics.json: the events of the metric's group as perf printed them,
 * the percentage perf printed, and the value recomputed from those events).
 *
 * Two checks:
 *   1. each metric from its own group's events alone: within print rounding
 *      (perf prints one decimal: |ours - printed| <= 0.05) and within 1e-4 of the
 *      recomputed value;
 *   2. each `-MPipelineL2` run rebuilt as perf printed it, its four groups in one
 *      countset (ls_not_halted_cyc four times, with four different values): all
 *      eight level-2 values at once, as `tdprof topdown --import` computes them.
 * Skips (exit 77) when the shared data is absent.
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

#include "base/countset.h"
#include "base/err.h"
#include "model/model.h"

static json_t *expected;

static const struct metric_node *by_vendor(const struct metric_tree *t, const char *name)
{
	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->v[i].vendor, name))
			return &t->v[i];
	return NULL;
}

static void add_events(struct countset *cs, json_t *events, int group)
{
	const char *name;
	json_t *v;

	json_object_foreach(events, name, v) {
		assert_true(json_is_number(v));
		assert_non_null(countset_add(cs, name, NULL, json_number_value(v), group));
	}
}

static void check_metric(const struct metric_tree *t, json_t *entry, size_t idx)
{
	const char *metric = json_string_value(json_object_get(entry, "metric"));
	double printed = json_number_value(json_object_get(entry, "printed_pct"));
	double recomputed = json_number_value(json_object_get(entry, "recomputed_pct"));
	const struct metric_node *n = by_vendor(t, metric);

	if (!n)
		fail_msg("entry %zu: the zen4 model has no node for perf's '%s'", idx, metric);
	if (!(fabs(n->value - printed) <= 0.05 + 1e-9))
		fail_msg("entry %zu (%s): %s = %.4f, perf printed %.1f", idx,
			 json_string_value(json_object_get(entry, "file")), metric, n->value, printed);
	if (!(fabs(n->value - recomputed) <= 1e-4))
		fail_msg("entry %zu: %s = %.6f, recomputed %.6f", idx, metric, n->value, recomputed);
}

static void test_each_metric_from_its_group(void **state)
{
	const struct model *m = model_find("zen4");
	size_t idx;
	json_t *entry;

	(void)state;
	assert_true(json_array_size(expected) >= 100);
	json_array_foreach(expected, idx, entry) {
		struct countset cs = COUNTSET_INIT;
		struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
		struct metric_tree t;
		struct tdp_err err = TDP_ERR_INIT;

		add_events(&cs, json_object_get(entry, "events"), 0);
		if (model_evaluate(m, &cs, &o, &t, &err))
			fail_msg("entry %zu: %s", idx, err.msg);
		check_metric(&t, entry, idx);
		countset_release(&cs);
	}
}

/* Evaluate one run (entries [first, end)) with its groups numbered in file order. */
static void check_run(json_t *arr, size_t first, size_t end, size_t *nr_groups)
{
	const struct model *m = model_find("zen4");
	struct countset cs = COUNTSET_INIT;
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct metric_tree t;
	struct tdp_err err = TDP_ERR_INIT;
	json_t *prev = NULL;
	int group = -1;

	for (size_t i = first; i < end; i++) {
		json_t *ev = json_object_get(json_array_get(arr, i), "events");

		if (!prev || !json_equal(prev, ev)) {
			add_events(&cs, ev, ++group);
			prev = ev;
		}
	}
	*nr_groups = (size_t)group + 1;
	if (model_evaluate(m, &cs, &o, &t, &err))
		fail_msg("run at entry %zu: %s", first, err.msg);
	for (size_t i = first; i < end; i++)
		check_metric(&t, json_array_get(arr, i), i);
	/* the four level-1 nodes come out too, each from the group that holds its events */
	for (size_t i = 0; i < 4; i++)
		assert_false(isnan(t.v[i].value));
	countset_release(&cs);
}

static void test_each_run_as_perf_printed_it(void **state)
{
	size_t n = json_array_size(expected), first = 0, runs = 0;

	(void)state;
	while (first < n) {
		const char *file = json_string_value(json_object_get(json_array_get(expected, first), "file"));
		size_t end = first, groups;
		json_t *prev = NULL;
		int distinct = 0;

		/* a run: entries of one file, up to the fifth distinct event group */
		while (end < n) {
			json_t *e = json_array_get(expected, end);
			json_t *ev = json_object_get(e, "events");

			if (strcmp(json_string_value(json_object_get(e, "file")), file))
				break;
			if (!prev || !json_equal(prev, ev)) {
				if (++distinct > 4)
					break;
				prev = ev;
			}
			end++;
		}
		check_run(expected, first, end, &groups);
		assert_int_equal(groups, 4);
		assert_int_equal(end - first, 8);
		runs++;
		first = end;
	}
	assert_int_equal(runs, 14); /* 7 programs x (gcc, clang) */
}

int main(void)
{
	const char *dir = getenv("TDPROF_SHARED_DATA");
	char path[4096];
	json_error_t jerr;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_metric_from_its_group),
		cmocka_unit_test(test_each_run_as_perf_printed_it),
	};
	int rc;

	snprintf(path, sizeof(path), "%s/counters/amd-zen4-kinematics/expected_metrics.json", dir ? dir : "../shared/data");
	expected = json_load_file(path, 0, &jerr);
	if (!expected) {
		printf("skip: shared data not found: %s (%s)\n", path, jerr.text);
		return 77;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	json_decref(expected);
	return rc;
}
