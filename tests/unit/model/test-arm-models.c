/*
 * Unit tests of the Arm models generated from Arm's telemetry specifications
 * (data/arm/, src/model/gen/gen-arm.py): the stage-2 metrics evaluated by
 * model_eval() on made-up counts (values worked by hand in the comments), their
 * units and groups, and the methodology's explore table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/countset.h"
#include "base/err.h"
#include "model/groups.h"
#include "model/model.h"

static const struct metric_value *metric(const struct metric_tree *t, const char *key)
{
	for (size_t i = 0; i < t->nr_metrics; i++)
		if (!strcmp(t->metrics[i].def->key, key))
			return &t->metrics[i];
	fail_msg("%s: no metric '%s'", t->model->name, key);
	return NULL;
}

static void expect_metric(const struct metric_tree *t, const char *key, double want, const char *unit,
			  const char *group)
{
	const struct metric_value *v = metric(t, key);

	assert_int_equal(v->def->kind, MODEL_METRIC_STAGE2);
	assert_string_equal(v->def->unit, unit);
	if (group)
		assert_string_equal(v->def->group, group);
	assert_non_null(v->def->description);
	if (isnan(want)) {
		assert_true(isnan(v->value));
		assert_true(v->why[0] != '\0');
		return;
	}
	if (!(fabs(v->value - want) < 1e-9))
		fail_msg("%s: %s = %.12f, want %.12f (%s)", t->model->name, key, v->value, want, v->why);
}

static void eval_model(const char *name, struct metric_tree *t)
{
	/* made-up counts of one run */
	static const struct {
		const char *name;
		double value;
	} rows[] = {
		{ "CPU_CYCLES", 1000000 },        { "INST_RETIRED", 2000000 },     { "BR_MIS_PRED_RETIRED", 5000 },
		{ "BR_RETIRED", 250000 },         { "L1D_CACHE", 800000 },         { "L1D_CACHE_REFILL", 20000 },
		{ "L1I_CACHE", 500000 },          { "L1I_CACHE_REFILL", 1000 },    { "L2D_CACHE", 60000 },
		{ "L2D_CACHE_REFILL", 6000 },     { "DTLB_WALK", 400 },            { "L1D_TLB", 800000 },
		{ "LD_SPEC", 600000 },            { "INST_SPEC", 2400000 },        { "STALL_SLOT_FRONTEND", 1500000 },
		{ "STALL_SLOT_BACKEND", 1500000 }, { "STALL_SLOT", 3000000 },      { "OP_RETIRED", 2250000 },
		{ "OP_SPEC", 2500000 },           { "BR_MIS_PRED", 50000 },        { "STALL_FRONTEND", 300000 },
		{ "STALL_BACKEND", 200000 },
	};
	const struct model *m = model_find(name);
	struct countset cs = COUNTSET_INIT;
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;

	assert_non_null(m);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		assert_non_null(countset_add(&cs, rows[i].name, NULL, rows[i].value, -1));
	cs.backend = BACKEND_IMPORT;
	assert_int_equal(model_evaluate(m, &cs, &o, t, NULL), 0);
	countset_release(&cs);
}

static void test_stage2_values(void **state)
{
	static struct metric_tree t;

	(void)state;
	eval_model("neoverse-n2", &t);
	/* branch MPKI = 5000 / 2e6 * 1000 = 2.5; misprediction ratio = 5000 / 250000 = 0.02 */
	expect_metric(&t, "branch_mpki", 2.5, "per_kilo_instructions", "Branch_Effectiveness");
	expect_metric(&t, "branch_misprediction_ratio", 0.02, "ratio", "Branch_Effectiveness");
	/* L1D miss ratio = 20000 / 800000 = 0.025; MPKI = 20000 / 2e6 * 1000 = 10 */
	expect_metric(&t, "l1d_cache_miss_ratio", 0.025, "ratio", "L1D_Cache_Effectiveness");
	expect_metric(&t, "l1d_cache_mpki", 10, "per_kilo_instructions", "L1D_Cache_Effectiveness");
	/* L1I: 1000 / 500000 = 0.002; L2: 6000 / 60000 = 0.1 and 3 MPKI */
	expect_metric(&t, "l1i_cache_miss_ratio", 0.002, "ratio", "L1I_Cache_Effectiveness");
	expect_metric(&t, "l2_cache_miss_ratio", 0.1, "ratio", "L2_Cache_Effectiveness");
	expect_metric(&t, "l2_cache_mpki", 3, "per_kilo_instructions", "L2_Cache_Effectiveness");
	/* DTLB walks: 400 / 800000 = 0.0005 per access, 0.2 MPKI */
	expect_metric(&t, "dtlb_walk_ratio", 0.0005, "ratio", "DTLB_Effectiveness");
	expect_metric(&t, "dtlb_mpki", 0.2, "per_kilo_instructions", "DTLB_Effectiveness");
	/* operation mix: loads 600000 / 2.4e6 = 25 % */
	expect_metric(&t, "load_percentage", 25, "percent", "Operation_Mix");
	/* IPC = 2; cycle accounting: 30 % and 20 % of cycles */
	expect_metric(&t, "ipc", 2, "per_cycle", "General");
	expect_metric(&t, "frontend_stalled_cycles", 30, "percent", "Cycle_Accounting");
	/* an event not counted: not measurable, never 0 */
	expect_metric(&t, "itlb_mpki", NAN, "per_kilo_instructions", NULL);
	/* N1: the same metrics beside its cycle-accounting tree */
	eval_model("neoverse-n1", &t);
	assert_int_equal(t.kind, MODEL_KIND_CYCLE_ACCOUNTING);
	expect_metric(&t, "branch_mpki", 2.5, "per_kilo_instructions", "Branch_Effectiveness");
	expect_metric(&t, "l1d_cache_miss_ratio", 0.025, "ratio", NULL);
}

/* The groups Arm's methodology explores under each level-1 node name metrics of the model. */
static void test_explore(void **state)
{
	size_t nr;
	const struct model *const *all = model_all(&nr);
	size_t arm = 0;

	(void)state;
	for (size_t i = 0; i < nr; i++) {
		const struct model *m = all[i];

		if (m->vendor != MODEL_VENDOR_ARM || !m->nr_explore)
			continue;
		arm++;
		for (size_t e = 0; e < m->nr_explore; e++) {
			char buf[512], *save = NULL;
			bool node = false;

			for (size_t n = 0; n < m->nr_nodes; n++)
				node |= !strcmp(m->nodes[n].key, m->explore[e].node) && m->nodes[n].level == 1;
			if (!node)
				fail_msg("%s: explore names '%s', not a level-1 node", m->name, m->explore[e].node);
			snprintf(buf, sizeof(buf), "%s", m->explore[e].groups);
			for (char *g = strtok_r(buf, ";", &save); g; g = strtok_r(NULL, ";", &save)) {
				size_t k = 0;

				for (size_t j = 0; j < m->nr_metrics; j++)
					k += m->metrics[j].group && !strcmp(m->metrics[j].group, g);
				if (!k)
					fail_msg("%s: group '%s' under %s has no metric", m->name, g, m->explore[e].node);
			}
		}
	}
	assert_true(arm >= 8);
	/* Arm's methodology: after Bad Speculation, Branch_Effectiveness; after Frontend Bound on V3, the
	 * frontend drill-down first */
	assert_string_equal(model_find("neoverse-n2")->explore[3].node, "bad_speculation");
	assert_string_equal(model_find("neoverse-n2")->explore[3].groups, "Branch_Effectiveness");
	assert_non_null(strstr(model_find("neoverse-v3")->explore[0].groups, "Topdown_Frontend"));
}

/* Is event `name` of m in some group of p? */
static bool planned(const struct model *m, const struct groups_plan *p, const char *name)
{
	for (size_t g = 0; g < p->nr; g++)
		for (size_t i = 0; i < p->v[g].nr; i++)
			if (!strcmp(m->events[p->v[g].ev[i]].name, name))
				return true;
	return false;
}

/* A live run counts Arm's current level 1 (never the import-only perf form), and from -l 2 the
 * stage-2 metrics' events too, in groups that fit 6 counters and the cycle counter. */
static void test_live_plan(void **state)
{
	size_t nr;
	const struct model *const *all = model_all(&nr);

	(void)state;
	for (size_t i = 0; i < nr; i++) {
		const struct model *m = all[i];

		if (m->vendor != MODEL_VENDOR_ARM)
			continue;
		for (int level = 1; level <= 2; level++) {
			struct model_compiled *mc;
			struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
			struct groups_budget b;
			struct groups_plan p = GROUPS_PLAN_INIT;
			struct groups_event gev[MODEL_MAX_EVENTS];
			struct tdp_err err = TDP_ERR_INIT;

			assert_int_equal(model_compile(m, &mc, NULL), 0);
			model_default_budget(m, &b);
			b.nmi_watchdog = true;
			o.max_level = level;
			o.slots = m->slots > 0 ? m->slots : 8;
			if (model_plan(mc, &o, &b, &p, &err))
				fail_msg("%s -l %d: %s", m->name, level, err.msg);
			for (size_t e = 0; e < m->nr_events; e++) {
				gev[e].counter = m->events[e].counter;
				gev[e].fixed_idx = m->events[e].fixed_idx;
				gev[e].leader = m->events[e].leader;
			}
			for (size_t g = 0; g < p.nr; g++)
				assert_true(groups_fit(gev, p.v[g].ev, p.v[g].nr, &b));
			if (!strcmp(m->name, "neoverse-n2")) {
				assert_true(planned(m, &p, "BR_MIS_PRED")); /* Arm's form, not the fallback */
				assert_int_equal(planned(m, &p, "L1D_CACHE_REFILL"), level >= 2);
				assert_int_equal(planned(m, &p, "BR_MIS_PRED_RETIRED"), level >= 2);
			}
			groups_plan_release(&p);
			model_compiled_free(mc);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stage2_values),
		cmocka_unit_test(test_explore),
		cmocka_unit_test(test_live_plan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
