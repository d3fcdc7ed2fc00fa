/*
 * Unit tests of why's Bottlenecks lead (diagnose/bottlenecks.c, report/why-lead.c):
 * `why` needs a PMU, so this is its seam. Counts made up by drill-fixture.h's
 * fx_model_tree() go through the import path (perf stat -j lines,
 * import_perf_stat_result()), are evaluated with the Sapphire Rapids model to level
 * 6, and diagnosed by diag_from_counts() as `why` diagnoses the PMU's: the lead must rank the view's measured costs as the tree
 * computed them, point each at a node its "Bv" group covers, give that node's fix
 * from the knowledge base, point at the drill-down's top site when the drill-down
 * located that bucket, and lead the text and the JSON. A model without the view
 * (zen4) has no lead.
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

#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "diagnose/diagnose.h"
#include "import/import.h"
#include "model/model.h"
#include "report/why.h"

#include "drill-fixture.h"

/* The diagnosis of those counts, as `why` makes it on a PMU. */
static void diagnose(const char *model, double ret, double bad, double mem, struct diag *d, struct metric_tree *t)
{
	struct countset cs = COUNTSET_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	struct diag_opts dopt = { .command = "./app", .level = 2, .top = 10 };

	assert_int_equal(fx_model_tree(model, ret, bad, mem, &cs, t), 0);
	diag_init(d);
	assert_int_equal(diag_from_counts(d, BACKEND_PMU, &cs, t, &dopt, &err), 0);
	countset_release(&cs);
}

static bool in_groups(const char *groups, const char *code)
{
	size_t n = strlen(code);

	for (const char *p = groups; p && (p = strstr(p, code)); p += n)
		if ((p == groups || p[-1] == ';') && (p[n] == ';' || !p[n]))
			return true;
	return false;
}

static void test_lead_ranks_the_view_and_points_at_its_nodes(void **state)
{
	struct diag *d = tdp_calloc(1, sizeof(*d));
	struct metric_tree *t = tdp_calloc(1, sizeof(*t));
	size_t measured = 0;

	(void)state;
	diagnose("sapphirerapids", 0.30, 0.45, 0.05, d, t);
	for (size_t i = 0; i < t->nr_metrics; i++)
		measured += t->metrics[i].def->kind == MODEL_METRIC_BOTTLENECK && !isnan(t->metrics[i].value);
	assert_true(measured >= 8);
	assert_int_equal(d->nr_bottlenecks, measured);
	/* Branch Mispredicts at 40.5 % of slots: Mispredictions is the largest cost */
	assert_string_equal(d->bottlenecks[0].name, "Mispredictions");
	assert_true(d->bottlenecks[0].flagged);
	assert_string_equal(d->bottlenecks[0].node, "branch_mispredicts");
	assert_non_null(d->bottlenecks[0].fix);
	assert_true(strlen(d->bottlenecks[0].fix) > 20);
	assert_true(d->bottlenecks[0].locate_with[0] != '\0');
	assert_int_equal(d->bottlenecks[0].site, -1); /* nothing located yet */
	for (size_t i = 0; i < d->nr_bottlenecks; i++) {
		const struct diag_bottleneck *b = &d->bottlenecks[i];
		const struct model_metric_def *def = NULL;
		const struct metric_node *leaf;
		char code[8];

		for (size_t k = 0; k < t->nr_metrics; k++)
			if (!strcmp(t->metrics[k].def->key, b->name)) {
				def = t->metrics[k].def;
				assert_true(t->metrics[k].value == b->value); /* as the tree computed it */
			}
		assert_non_null(def);
		if (i)
			assert_true(b->value <= d->bottlenecks[i - 1].value);
		/* its leaf carries the cost's Bv group, as the vendor's data says */
		assert_non_null(strstr(def->groups, "Bv"));
		snprintf(code, sizeof(code), "%.4s", strstr(def->groups, "Bv"));
		if (b->leaf) {
			leaf = metric_tree_find(&d->tree, b->leaf);
			assert_non_null(leaf);
			assert_true(in_groups(leaf->def->groups, code));
			assert_true(leaf->value == b->leaf_value);
		}
		assert_non_null(b->node); /* every cost has a fix to point to */
	}
	diag_release(d);
	tdp_free(d);
	tdp_free(t);
}

static void test_drilled_bucket_is_located(void **state)
{
	struct diag *d = tdp_calloc(1, sizeof(*d));
	struct metric_tree *t = tdp_calloc(1, sizeof(*t));
	struct tdp_err err = TDP_ERR_INIT;
	size_t mem = SIZE_MAX;

	(void)state;
	diagnose("sapphirerapids", 0.30, 0.45, 0.05, d, t);
	assert_string_equal(d->category, "bad_speculation");
	/* what diag_pmu_drill() leaves: the branch sites of the category */
	d->sites = tdp_calloc(1, sizeof(*d->sites));
	d->sites[0].file = tdp_strdup("app.c");
	d->sites[0].function = tdp_strdup("branchy");
	d->sites[0].line = 39;
	d->sites[0].share = 62;
	d->nr_sites = 1;
	d->drill = DIAG_DRILL_BRANCHES;
	assert_int_equal(diag_bottlenecks(d, &err), 0);
	assert_int_equal(d->bottlenecks[0].site, 0);
	for (size_t i = 0; i < d->nr_bottlenecks; i++)
		if (!strcmp(d->bottlenecks[i].name, "Data_Cache_Memory_Latency"))
			mem = i;
	assert_true(mem < d->nr_bottlenecks);
	assert_int_equal(d->bottlenecks[mem].site, -1); /* a Backend cost: not what the drill-down located */
	assert_string_equal(d->bottlenecks[mem].node, "memory_bound");
	diag_release(d);
	tdp_free(d);
	tdp_free(t);
}

static char *render(const struct diag *d, bool json)
{
	struct why_report r = { .d = d, .command = "./app", .columns = 100 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (json)
		assert_int_equal(why_json_print(f, &r, NULL), 0);
	else
		why_text_print(f, &r);
	fclose(f);
	return buf;
}

static void test_lead_leads_the_text_and_the_json(void **state)
{
	struct diag *d = tdp_calloc(1, sizeof(*d));
	struct metric_tree *t = tdp_calloc(1, sizeof(*t));
	char *text, *js;
	json_t *doc, *b;

	(void)state;
	diagnose("sapphirerapids", 0.30, 0.45, 0.05, d, t);
	text = render(d, false);
	assert_non_null(strstr(text, "bottlenecks (the vendor's view"));
	assert_true(strstr(text, "bottlenecks (the vendor's view") < strstr(text, "1. triage"));
	assert_non_null(strstr(text, "  1. Mispredictions "));
	assert_non_null(strstr(text, "tdprof explain branch_mispredicts"));
	js = render(d, true);
	doc = json_loads(js, 0, NULL);
	assert_non_null(doc);
	b = json_object_get(doc, "bottlenecks");
	assert_true(json_is_array(b) && json_array_size(b) == d->nr_bottlenecks);
	assert_string_equal(json_string_value(json_object_get(json_array_get(b, 0), "name")), "Mispredictions");
	assert_string_equal(json_string_value(json_object_get(json_array_get(b, 0), "node")), "branch_mispredicts");
	json_decref(doc);
	free(text);
	free(js);
	diag_release(d);
	/* Memory Bound dominating: a memory cost leads (which one, the deeper made-up counts decide) */
	diagnose("sapphirerapids", 0.10, 0.02, 0.60, d, t);
	assert_non_null(strstr(d->bottlenecks[0].name, "Memory"));
	assert_string_equal(d->bottlenecks[0].node, "memory_bound");
	diag_release(d);
	tdp_free(d);
	tdp_free(t);
}

static void test_no_view_no_lead(void **state)
{
	struct diag *d = tdp_calloc(1, sizeof(*d));
	struct metric_tree *t = tdp_calloc(1, sizeof(*t));
	char *text;

	(void)state;
	diagnose("zen4", 0.30, 0.3, 0.1, d, t);
	assert_int_equal(d->nr_bottlenecks, 0);
	text = render(d, false);
	assert_null(strstr(text, "bottlenecks (the vendor's view"));
	free(text);
	diag_release(d);
	tdp_free(d);
	tdp_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lead_ranks_the_view_and_points_at_its_nodes),
		cmocka_unit_test(test_drilled_bucket_is_located),
		cmocka_unit_test(test_lead_leads_the_text_and_the_json),
		cmocka_unit_test(test_no_view_no_lead),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
