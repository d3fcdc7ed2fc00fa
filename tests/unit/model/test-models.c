/*
 * Unit tests of the model tables and the evaluator: model_validate() on every
 * model, the registry, and each family on counts whose expected percentages are
 * computed by hand (the arithmetic is in the comments), including the event
 * spellings perf prints, group-aware evaluation, NAN never shown as 0, and the
 * classification.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/countset.h"
#include "base/err.h"
#include "model/model.h"

struct row {
	const char *name;
	double value;
	int group;
	enum count_status status;
};

#define ROWS_END { NULL, 0, 0, COUNT_OK }

static void fill(struct countset *cs, const struct row *rows)
{
	for (const struct row *r = rows; r->name; r++) {
		struct count *c = countset_add(cs, r->name, NULL, r->status == COUNT_OK ? r->value : 0, r->group);

		assert_non_null(c);
		c->status = r->status;
	}
	cs->backend = BACKEND_IMPORT;
}

/* Evaluate model `name` over rows at level 2 (slots: 0 for the model's). */
static int eval_rows(const char *name, const struct row *rows, double slots, struct metric_tree *t,
		     struct tdp_err *err)
{
	const struct model *m = model_find(name);
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct countset cs = COUNTSET_INIT;
	int rc;

	assert_non_null(m);
	fill(&cs, rows);
	o.slots = slots;
	rc = model_evaluate(m, &cs, &o, t, err);
	countset_release(&cs);
	return rc;
}

static void expect(const struct metric_tree *t, const char *key, double want)
{
	const struct metric_node *n = metric_tree_find(t, key);

	if (!n)
		fail_msg("%s: no node '%s'", t->model->name, key);
	if (isnan(want)) {
		if (!isnan(n->value))
			fail_msg("%s: %s = %.6f, want not measurable", t->model->name, key, n->value);
		return;
	}
	if (!(fabs(n->value - want) < 1e-6))
		fail_msg("%s: %s = %.9f, want %.9f (%s)", t->model->name, key, n->value, want, n->why);
}

static void test_validate_every_model(void **state)
{
	size_t nr;
	const struct model *const *all = model_all(&nr);

	(void)state;
	assert_true(nr >= 20);
	for (size_t i = 0; i < nr; i++) {
		struct tdp_err err = TDP_ERR_INIT;

		if (model_validate(all[i], &err))
			fail_msg("%s", err.msg);
		for (size_t j = 0; j < i; j++)
			assert_true(strcmp(all[i]->name, all[j]->name) != 0);
	}
}

/* model_validate() must catch broken tables, not only pass good ones. */
static void test_validate_rejects(void **state)
{
	static const struct model_event ev[] = {
		{ .name = "cycles", .clock = true },
		{ .name = "a" },
	};
	static const struct model_formula good[] = {
		{ .name = "f_ret", .expr = { "a / cycles" }, .source = "test" },
		{ .name = "f_bad", .expr = { "0.1" }, .source = "test" },
		{ .name = "f_fe", .expr = { "0.2" }, .source = "test" },
		{ .name = "f_be", .expr = { "1 - f_ret - f_bad - f_fe" }, .source = "test" },
		{ .name = "f_light", .expr = { "f_ret * 0.5" }, .source = "test" },
		{ .name = "f_heavy", .expr = { "f_ret * 0.4" }, .source = "test" }, /* 0.5 + 0.4 != 1 */
	};
	static const struct model_node_def nodes[] = {
		{ .key = "retiring", .formula = "f_ret", .threshold = 80 },
		{ .key = "bad_speculation", .formula = "f_bad", .threshold = 15 },
		{ .key = "frontend_bound", .formula = "f_fe", .threshold = 20 },
		{ .key = "backend_bound", .formula = "f_be", .threshold = 140 },
		{ .key = "light_operations", .parent = "retiring", .formula = "f_light", .threshold = 60 },
		{ .key = "heavy_operations", .parent = "retiring", .formula = "f_heavy", .threshold = 10 },
	};
	struct model m = {
		.name = "broken", .description = "test", .sources = "test", .kind = MODEL_KIND_SLOTS, .slots = 4,
		.events = ev, .nr_events = 2, .formulas = good, .nr_formulas = 6, .nodes = nodes, .nr_nodes = 6,
	};
	struct tdp_err err = TDP_ERR_INIT;
	static const struct model_formula cyc[] = {
		{ .name = "f_ret", .expr = { "f_be + a / cycles" }, .source = "test" },
		{ .name = "f_bad", .expr = { "0.1" }, .source = "test" },
		{ .name = "f_fe", .expr = { "0.2" }, .source = "test" },
		{ .name = "f_be", .expr = { "1 - f_ret" }, .source = "test" },
	};
	static const struct model_formula unknown[] = {
		{ .name = "f_ret", .expr = { "nosuchevent / cycles + a" }, .source = "test" },
		{ .name = "f_bad", .expr = { "0.1" }, .source = "test" },
		{ .name = "f_fe", .expr = { "0.2" }, .source = "test" },
		{ .name = "f_be", .expr = { "0.3" }, .source = "test" },
	};

	(void)state;
	assert_int_equal(model_validate(&m, &err), TDP_EFORMAT);
	assert_non_null(strstr(err.msg, "threshold 140"));
	tdp_err_clear(&err);
	/* fix the threshold: now the children do not add up */
	{
		struct model_node_def fixed[6];

		memcpy(fixed, nodes, sizeof(fixed));
		fixed[3].threshold = 40;
		m.nodes = fixed;
		assert_int_equal(model_validate(&m, &err), TDP_EFORMAT);
		assert_non_null(strstr(err.msg, "do not add up"));
		tdp_err_clear(&err);
		m.nr_nodes = 4;
		m.nr_formulas = 4;
		assert_int_equal(model_validate(&m, &err), 0);
		m.formulas = cyc;
		assert_int_equal(model_validate(&m, &err), TDP_EFORMAT);
		assert_non_null(strstr(err.msg, "depends on itself"));
		tdp_err_clear(&err);
		m.formulas = unknown;
		assert_int_equal(model_validate(&m, &err), TDP_EFORMAT);
		assert_non_null(strstr(err.msg, "'nosuchevent' is neither an event nor a formula"));
		tdp_err_clear(&err);
		m.formulas = good;
		m.kind = MODEL_KIND_CYCLE_ACCOUNTING; /* may not use the top-down names */
		assert_int_equal(model_validate(&m, &err), TDP_EFORMAT);
		assert_non_null(strstr(err.msg, "cycle-accounting"));
	}
}

static void test_registry(void **state)
{
	static const char *const design_names[] = {
		"skylake", "cascadelake", "icelake", "icelakex", "sapphirerapids", "alderlake", "zen2", "zen3",
		"zen4", "zen5", "neoverse-n1", "neoverse-v1", "neoverse-n2", "neoverse-v2", "neoverse-v3",
	};
	const struct model *m;

	(void)state;
	for (size_t i = 0; i < sizeof(design_names) / sizeof(design_names[0]); i++) {
		m = model_find(design_names[i]);
		assert_non_null(m);
		assert_string_equal(m->name, design_names[i]);
	}
	assert_ptr_equal(model_find("ZEN4"), model_find("zen4"));
	assert_string_equal(model_find("cascadelakex")->name, "cascadelake");
	assert_string_equal(model_for_uarch("cooperlake")->name, "cascadelake");
	/* cpu.h's hybrid core-type names */
	m = model_for_uarch("goldencove");
	assert_string_equal(m->name, "alderlake");
	assert_string_equal(m->core_type, "P-core");
	assert_string_equal(m->companion->name, "gracemont");
	m = model_for_uarch("gracemont");
	assert_string_equal(m->core_type, "E-core");
	assert_string_equal(m->pmu, "cpu_atom");
	assert_string_equal(model_for_uarch("crestmont")->companion->name, "meteorlake");
	assert_string_equal(model_for_uarch("raptorcove")->name, "alderlake");
	assert_null(model_find("pentium4"));
	assert_null(model_find(NULL));
	assert_int_equal(model_find("zen3")->kind, MODEL_KIND_CYCLE_ACCOUNTING);
	assert_int_equal(model_find("neoverse-n1")->kind, MODEL_KIND_CYCLE_ACCOUNTING);
	assert_string_equal(model_kind_name(MODEL_KIND_CYCLE_ACCOUNTING), "cycle_accounting");
	assert_true(model_find("sbsa")->slots == 0); /* #slots is an input (caps/slots) */
}

/* Event spellings as perf, libpfm and our tables write them. */
static void test_event_keys(void **state)
{
	char a[MODEL_EVKEY_MAX], b[MODEL_EVKEY_MAX], pmu[64];

	(void)state;
	assert_int_equal(model_event_key("cpu/INT_MISC.RECOVERY_CYCLES,cmask=1,edge/", a, sizeof(a), pmu, sizeof(pmu)), 0);
	assert_string_equal(a, "int_misc_recovery_cycles,cmask=1,edge=1");
	assert_string_equal(pmu, "cpu");
	assert_int_equal(model_event_key("cpu/INT_MISC.RECOVERY_CYCLES,edge,cmask=0x1/u", b, sizeof(b), NULL, 0), 0);
	assert_string_equal(a, b);
	assert_int_equal(model_event_key("INT_MISC:RECOVERY_CYCLES:c1:e1", b, sizeof(b), NULL, 0), 0);
	assert_string_equal(a, b);
	assert_int_equal(model_event_key("cpu@INT_MISC.RECOVERY_CYCLES\\,cmask\\=1\\,edge@", b, sizeof(b), NULL, 0), 0);
	assert_string_equal(a, b);
	assert_int_equal(model_event_key("cpu_core/TOPDOWN.SLOTS/", a, sizeof(a), pmu, sizeof(pmu)), 0);
	assert_string_equal(a, "topdown_slots");
	assert_string_equal(pmu, "cpu_core");
	assert_int_equal(model_event_key("topdown.slots:u", b, sizeof(b), pmu, sizeof(pmu)), 0);
	assert_string_equal(a, b);
	assert_string_equal(pmu, "");
	assert_int_equal(model_event_key("cpu/de_no_dispatch_per_slot.no_ops_from_frontend,cmask=0x6/", a, sizeof(a),
					 NULL, 0), 0);
	assert_string_equal(a, "de_no_dispatch_per_slot_no_ops_from_frontend,cmask=6");
	assert_int_equal(model_event_key("cpu/event=0xae,umask=0xff/", a, sizeof(a), NULL, 0), 0);
	assert_string_equal(a, ",event=174,umask=255");
	assert_int_equal(model_event_key("cpu_clk_unhalted:thread", a, sizeof(a), NULL, 0), 0);
	assert_string_equal(a, "cpu_clk_unhalted_thread");
	assert_int_equal(model_event_key("  armv8_pmuv3_0/stall_slot/  ", a, sizeof(a), pmu, sizeof(pmu)), 0);
	assert_string_equal(a, "stall_slot");
	assert_string_equal(pmu, "armv8_pmuv3_0");
	/* hostile names (imports are untrusted): 0 or -1, a terminated key, never a crash */
	{
		static const char alphabet[] = "/@\\,=:._-uk cpu0x1aeEdgecmask";
		char name[400];
		uint64_t s = 99;

		for (int round = 0; round < 20000; round++) {
			size_t len;

			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			len = (s >> 33) % (sizeof(name) - 1);
			for (size_t i = 0; i < len; i++) {
				s = s * 6364136223846793005ULL + 1442695040888963407ULL;
				name[i] = round % 2 ? alphabet[(s >> 33) % (sizeof(alphabet) - 1)] : (char)((s >> 40) | 1);
			}
			name[len] = '\0';
			if (model_event_key(name, a, sizeof(a), pmu, sizeof(pmu)) == 0)
				assert_true(strlen(a) < sizeof(a) && strlen(pmu) < sizeof(pmu));
		}
	}
	assert_int_equal(model_event_key("", a, sizeof(a), NULL, 0), -1);
	assert_int_equal(model_event_key("cpu/unterminated", a, sizeof(a), NULL, 0), -1);
	assert_int_equal(model_event_key("cycles", a, 3, NULL, 0), -1); /* too small a buffer */
}

static void test_skylake_no_smt(void **state)
{
	/*
	 * slots = 4 * 1000 = 4000
	 * FE  = 800 / 4000 = 20 %
	 * BAD = (2400 - 2000 + 4 * 50) / 4000 = 15 %
	 * RET = 2000 / 4000 = 50 %
	 * BE  = 1 - 0.20 - (2400 + 4 * 50) / 4000 = 15 %
	 * fetch_latency = 4 * 120 / 4000 = 12 %, fetch_bandwidth = 20 - 12 = 8 %
	 * branch_mispredicts = 90 / (90 + 10) * 15 = 13.5 %, machine_clears = 1.5 %
	 * memory_bound = (300 + 20) / (500 + (100 + 0.5 * 200) + 20) * 15 = 320 / 720 * 15 = 6.666... %
	 * core_bound = 15 - 6.666... = 8.333... %
	 * heavy = (2000 + 100 - 1500) / 4000 = 15 %, light = 50 - 15 = 35 %
	 */
	static const struct row rows[] = {
		{ "cycles", 1000, 0, COUNT_OK }, /* the generic name for CPU_CLK_UNHALTED.THREAD */
		{ "INST_RETIRED.ANY", 1500, 0, COUNT_OK },
		{ "cpu/IDQ_UOPS_NOT_DELIVERED.CORE/u", 800, 0, COUNT_OK },
		{ "uops_issued.any", 2400, 0, COUNT_OK },
		{ "UOPS_RETIRED.RETIRE_SLOTS:u", 2000, 0, COUNT_OK },
		{ "INT_MISC.RECOVERY_CYCLES", 50, 0, COUNT_OK },
		{ "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE", 120, 1, COUNT_OK },
		{ "BR_MISP_RETIRED.ALL_BRANCHES", 90, 1, COUNT_OK },
		{ "MACHINE_CLEARS.COUNT", 10, 1, COUNT_OK },
		{ "CYCLE_ACTIVITY.STALLS_MEM_ANY", 300, 1, COUNT_OK },
		{ "EXE_ACTIVITY.BOUND_ON_STORES", 20, 1, COUNT_OK },
		{ "CYCLE_ACTIVITY.STALLS_TOTAL", 500, 1, COUNT_OK },
		{ "EXE_ACTIVITY.1_PORTS_UTIL", 100, 1, COUNT_OK },
		{ "EXE_ACTIVITY.2_PORTS_UTIL", 200, 1, COUNT_OK },
		{ "UOPS_RETIRED.MACRO_FUSED", 100, 1, COUNT_OK },
		ROWS_END,
	};
	struct metric_tree t;

	(void)state;
	assert_int_equal(eval_rows("skylake", rows, 0, &t, NULL), 0);
	expect(&t, "frontend_bound", 20);
	expect(&t, "bad_speculation", 15);
	expect(&t, "retiring", 50);
	expect(&t, "backend_bound", 15);
	expect(&t, "fetch_latency", 12);
	expect(&t, "fetch_bandwidth", 8);
	expect(&t, "branch_mispredicts", 13.5);
	expect(&t, "machine_clears", 1.5);
	expect(&t, "memory_bound", 320.0 / 720.0 * 15);
	expect(&t, "core_bound", 15 - 320.0 / 720.0 * 15);
	expect(&t, "heavy_operations", 15);
	expect(&t, "light_operations", 35);
	assert_true(fabs(t.level1_sum - 100) < 1e-9);
	assert_false(t.sum_off);
	assert_int_equal(t.kind, MODEL_KIND_SLOTS);
	/* Cascade Lake shares the table: same numbers */
	assert_int_equal(eval_rows("cascadelake", rows, 0, &t, NULL), 0);
	expect(&t, "backend_bound", 15);
}

static void test_skylake_smt_forms(void **state)
{
	/*
	 * SMT on, not core-wide (Intel's EBS form): core clocks = 1000 / 2 * (1 + 400 / 600) = 833.33...,
	 * slots = 4 * 833.33 = 3333.33; recovery = RECOVERY_CYCLES_ANY / 2 = 40
	 * FE  = 800 / 3333.33 = 24 %
	 * BAD = (2200 - 2000 + 4 * 40) / 3333.33 = 360 / 3333.33 = 10.8 %
	 * RET = 2000 / 3333.33 = 60 %
	 * BE  = 1 - 0.24 - (2200 + 160) / 3333.33 = 1 - 0.24 - 0.708 = 5.2 %
	 */
	static const struct row ebs[] = {
		{ "CPU_CLK_UNHALTED.THREAD", 1000, -1, COUNT_OK },
		{ "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", 400, -1, COUNT_OK },
		{ "CPU_CLK_UNHALTED.REF_XCLK", 600, -1, COUNT_OK },
		{ "IDQ_UOPS_NOT_DELIVERED.CORE", 800, -1, COUNT_OK },
		{ "UOPS_ISSUED.ANY", 2200, -1, COUNT_OK },
		{ "UOPS_RETIRED.RETIRE_SLOTS", 2000, -1, COUNT_OK },
		{ "INT_MISC.RECOVERY_CYCLES_ANY", 80, -1, COUNT_OK },
		ROWS_END,
	};
	/*
	 * SMT on, core-wide: core clocks = THREAD_ANY / 2 = 1000, slots = 4000
	 * FE = 800 / 4000 = 20 %, BAD = (2200 - 2000 + 160) / 4000 = 9 %, RET = 50 %,
	 * BE = 1 - 0.2 - (2200 + 160) / 4000 = 21 %
	 */
	static const struct row any[] = {
		{ "CPU_CLK_UNHALTED.THREAD", 1100, -1, COUNT_OK },
		{ "CPU_CLK_UNHALTED.THREAD_ANY", 2000, -1, COUNT_OK },
		{ "IDQ_UOPS_NOT_DELIVERED.CORE", 800, -1, COUNT_OK },
		{ "UOPS_ISSUED.ANY", 2200, -1, COUNT_OK },
		{ "UOPS_RETIRED.RETIRE_SLOTS", 2000, -1, COUNT_OK },
		{ "INT_MISC.RECOVERY_CYCLES_ANY", 80, -1, COUNT_OK },
		ROWS_END,
	};
	/* perf 5.x --topdown (generic events, already scaled): 20 / 15 / 50 / 15 */
	static const struct row generic[] = {
		{ "topdown-total-slots", 4000, -1, COUNT_OK },
		{ "topdown-slots-issued", 2400, -1, COUNT_OK },
		{ "topdown-slots-retired", 2000, -1, COUNT_OK },
		{ "topdown-fetch-bubbles", 800, -1, COUNT_OK },
		{ "topdown-recovery-bubbles", 200, -1, COUNT_OK },
		ROWS_END,
	};
	/*
	 * perf's own unit test (tools/perf/tests/parse-metric.c, Frontend_Bound_SMT): with
	 * idq_uops_not_delivered.core 300, cpu_clk_unhalted.thread 200, one_thread_active 400
	 * and ref_xclk 600, the SMT form of Frontend Bound is 0.45: 300 / (4 * 200 / 2 * (1 + 400 / 600)).
	 */
	static const struct row perf_test[] = {
		{ "idq_uops_not_delivered.core", 300, -1, COUNT_OK },
		{ "cpu_clk_unhalted.thread", 200, -1, COUNT_OK },
		{ "cpu_clk_unhalted.one_thread_active", 400, -1, COUNT_OK },
		{ "cpu_clk_unhalted.ref_xclk", 600, -1, COUNT_OK },
		ROWS_END,
	};
	struct metric_tree t;

	(void)state;
	assert_int_equal(eval_rows("skylake", perf_test, 0, &t, NULL), 0);
	expect(&t, "frontend_bound", 45);
	expect(&t, "retiring", NAN); /* its events are not there: not 0 */
	assert_int_equal(eval_rows("skylake", ebs, 0, &t, NULL), 0);
	expect(&t, "frontend_bound", 24);
	expect(&t, "bad_speculation", 10.8);
	expect(&t, "retiring", 60);
	expect(&t, "backend_bound", 5.2);
	expect(&t, "fetch_latency", NAN); /* not measured: not 0 */
	assert_int_equal(eval_rows("cascadelake", any, 0, &t, NULL), 0);
	expect(&t, "frontend_bound", 20);
	expect(&t, "bad_speculation", 9);
	expect(&t, "retiring", 50);
	expect(&t, "backend_bound", 21);
	assert_int_equal(eval_rows("skylake", generic, 0, &t, NULL), 0);
	expect(&t, "frontend_bound", 20);
	expect(&t, "bad_speculation", 15);
	expect(&t, "retiring", 50);
	expect(&t, "backend_bound", 15);
	assert_int_equal(eval_rows("haswell", generic, 0, &t, NULL), 0);
	expect(&t, "backend_bound", 15);
}

static void test_icelakex(void **state)
{
	/*
	 * sum of the four = 4000 + 1000 + 2000 + 3000 = 10000 = slots
	 * FE  = 2000 / 10000 - 100 / 10000 = 19 %
	 * BE  = 3000 / 10000 + 5 * 40 / 10000 = 32 %
	 * RET = 4000 / 10000 = 40 %
	 * BAD = max(1 - (0.19 + 0.32 + 0.40), 0) = 9 %
	 */
	static const struct row rows[] = {
		{ "TOPDOWN.SLOTS", 10000, 0, COUNT_OK },
		{ "topdown-retiring", 4000, 0, COUNT_OK },
		{ "cpu/topdown-bad-spec/", 1000, 0, COUNT_OK },
		{ "topdown-fe-bound", 2000, 0, COUNT_OK },
		{ "topdown-be-bound", 3000, 0, COUNT_OK },
		{ "INT_MISC.UOP_DROPPING", 100, 0, COUNT_OK },
		{ "cpu/INT_MISC.RECOVERY_CYCLES,cmask=1,edge/", 40, 0, COUNT_OK },
		ROWS_END,
	};
	/* perf 5.x --topdown: no corrections, plain normalised fractions 20 / 10 / 40 / 30 */
	static const struct row plain[] = {
		{ "TOPDOWN.SLOTS:perf_metrics", 20000, -1, COUNT_OK }, /* Intel's spelling */
		{ "topdown-retiring", 8000, -1, COUNT_OK },
		{ "topdown-bad-spec", 2000, -1, COUNT_OK },
		{ "topdown-fe-bound", 4000, -1, COUNT_OK },
		{ "topdown-be-bound", 6000, -1, COUNT_OK },
		ROWS_END,
	};
	struct metric_tree t;

	(void)state;
	assert_int_equal(eval_rows("icelakex", rows, 0, &t, NULL), 0);
	expect(&t, "frontend_bound", 19);
	expect(&t, "backend_bound", 32);
	expect(&t, "retiring", 40);
	expect(&t, "bad_speculation", 9);
	assert_true(fabs(t.level1_sum - 100) < 1e-9);
	assert_int_equal(eval_rows("icelake", plain, 0, &t, NULL), 0);
	expect(&t, "frontend_bound", 20);
	expect(&t, "backend_bound", 30);
	expect(&t, "retiring", 40);
	expect(&t, "bad_speculation", 10);
}

static void test_sapphirerapids(void **state)
{
	/*
	 * sum = 3000 + 600 + 1200 + 1200 = 6000 = slots; UOP_DROPPING / slots = 60 / 6000 = 1 %
	 * FE = 20 - 1 = 19 %, BE = 20 %, RET = 50 %, BAD = 100 - 89 = 11 %
	 * fetch_latency = 900 / 6000 - 1 % = 14 %, fetch_bandwidth = 19 - 14 = 5 %
	 * branch_mispredicts = 480 / 6000 = 8 %, machine_clears = 11 - 8 = 3 %
	 * memory_bound = 700 / 6000 = 11.666... %, core_bound = 20 - 11.666... = 8.333... %
	 * heavy = 600 / 6000 = 10 %, light = 50 - 10 = 40 %
	 */
	static const struct row rows[] = {
		{ "cpu/TOPDOWN.SLOTS/", 6000, 2, COUNT_OK },
		{ "topdown-retiring", 3000, 2, COUNT_OK },
		{ "topdown-bad-spec", 600, 2, COUNT_OK },
		{ "topdown-fe-bound", 1200, 2, COUNT_OK },
		{ "topdown-be-bound", 1200, 2, COUNT_OK },
		{ "topdown-heavy-ops", 600, 2, COUNT_OK },
		{ "topdown-br-mispredict", 480, 2, COUNT_OK },
		{ "topdown-fetch-lat", 900, 2, COUNT_OK },
		{ "topdown-mem-bound", 700, 2, COUNT_OK },
		{ "INT_MISC.UOP_DROPPING", 60, 2, COUNT_OK },
		ROWS_END,
	};
	struct metric_tree t;

	(void)state;
	assert_int_equal(eval_rows("sapphirerapids", rows, 0, &t, NULL), 0);
	expect(&t, "frontend_bound", 19);
	expect(&t, "backend_bound", 20);
	expect(&t, "retiring", 50);
	expect(&t, "bad_speculation", 11);
	expect(&t, "fetch_latency", 14);
	expect(&t, "fetch_bandwidth", 5);
	expect(&t, "branch_mispredicts", 8);
	expect(&t, "machine_clears", 3);
	expect(&t, "memory_bound", 700.0 / 60);
	expect(&t, "core_bound", 20 - 700.0 / 60);
	expect(&t, "heavy_operations", 10);
	expect(&t, "light_operations", 40);
	assert_int_equal(metric_tree_find(&t, "frontend_bound")->group, 2);
}

static void test_hybrid_core_types(void **state)
{
	/*
	 * E-core (Gracemont, 5 slots): slots = 5 * 1000 = 5000
	 * FE = 1000 / 5000 = 20 %, BE = 1500 / 5000 = 30 %, RET = 2000 / 5000 = 40 %,
	 * BAD = (5000 - 4500) / 5000 = 10 %; heavy = 100 / 5000 = 2 %, light = (2000 - 100) / 5000 = 38 %
	 * P-core: sum 6000: RET = 3000 / 6000 = 50 %, BE = 20 %, FE = 20 % (no UOP_DROPPING), BAD = 10 %
	 */
	static const struct row rows[] = {
		{ "cpu_atom/CPU_CLK_UNHALTED.CORE/", 1000, 0, COUNT_OK },
		{ "cpu_atom/TOPDOWN_FE_BOUND.ALL/", 1000, 0, COUNT_OK },
		{ "cpu_atom/TOPDOWN_BE_BOUND.ALL/", 1500, 0, COUNT_OK },
		{ "cpu_atom/TOPDOWN_RETIRING.ALL/", 2000, 0, COUNT_OK },
		{ "cpu_atom/UOPS_RETIRED.MS/", 100, 0, COUNT_OK },
		{ "cpu_core/TOPDOWN.SLOTS/", 6000, 1, COUNT_OK },
		{ "cpu_core/topdown-retiring/", 3000, 1, COUNT_OK },
		{ "cpu_core/topdown-bad-spec/", 600, 1, COUNT_OK },
		{ "cpu_core/topdown-fe-bound/", 1200, 1, COUNT_OK },
		{ "cpu_core/topdown-be-bound/", 1200, 1, COUNT_OK },
		/* an E-core event on the P-core PMU must not be read by the E-core model */
		{ "cpu_core/TOPDOWN_FE_BOUND.ALL/", 4000, 1, COUNT_OK },
		ROWS_END,
	};
	struct metric_tree t;

	(void)state;
	assert_int_equal(eval_rows("gracemont", rows, 0, &t, NULL), 0);
	expect(&t, "frontend_bound", 20);
	expect(&t, "backend_bound", 30);
	expect(&t, "retiring", 40);
	expect(&t, "bad_speculation", 10);
	expect(&t, "heavy_operations", 2);
	expect(&t, "light_operations", 38);
	assert_int_equal(eval_rows("alderlake", rows, 0, &t, NULL), 0);
	expect(&t, "retiring", 50);
	expect(&t, "backend_bound", 20);
	expect(&t, "frontend_bound", 20);
	expect(&t, "bad_speculation", 10);
}

static void test_zen4_groups(void **state)
{
	/*
	 * PipelineL1 on one group: slots = 6 * 1000 = 6000
	 * FE = 600 / 6000 = 10 %, BAD = (3300 - 3000) / 6000 = 5 %, BE = 1800 / 6000 = 30 %,
	 * SMT = 300 / 6000 = 5 % (extra), RET = 3000 / 6000 = 50 %: the five add to 100 %
	 */
	static const struct row l1[] = {
		{ "ls_not_halted_cyc", 1000, 0, COUNT_OK },
		{ "de_no_dispatch_per_slot.no_ops_from_frontend", 600, 0, COUNT_OK },
		{ "de_src_op_disp.all", 3300, 0, COUNT_OK },
		{ "ex_ret_ops", 3000, 0, COUNT_OK },
		{ "de_no_dispatch_per_slot.backend_stalls", 1800, 0, COUNT_OK },
		{ "de_no_dispatch_per_slot.smt_contention", 300, 0, COUNT_OK },
		ROWS_END,
	};
	/*
	 * ls_not_halted_cyc once per group, different in each (multiplexed): each node
	 * must use its own group's copy. FE = 600 / (6 * 1000) = 10 %;
	 * BE = 2400 / (6 * 2000) = 20 % (with group 0's cycles it would be 40 %).
	 */
	static const struct row groups[] = {
		{ "ls_not_halted_cyc", 1000, 0, COUNT_OK },
		{ "de_no_dispatch_per_slot.no_ops_from_frontend", 600, 0, COUNT_OK },
		{ "ls_not_halted_cyc", 2000, 1, COUNT_OK },
		{ "de_no_dispatch_per_slot.backend_stalls", 2400, 1, COUNT_OK },
		ROWS_END,
	};
	struct metric_tree t;
	const struct metric_node *n;

	(void)state;
	assert_int_equal(eval_rows("zen4", l1, 0, &t, NULL), 0);
	expect(&t, "frontend_bound", 10);
	expect(&t, "bad_speculation", 5);
	expect(&t, "backend_bound", 30);
	expect(&t, "smt_contention", 5);
	expect(&t, "retiring", 50);
	assert_true(metric_tree_find(&t, "smt_contention")->extra);
	assert_true(fabs(t.level1_sum - 100) < 1e-9);
	assert_int_equal(eval_rows("zen4", groups, 0, &t, NULL), 0);
	expect(&t, "frontend_bound", 10);
	expect(&t, "backend_bound", 20);
	n = metric_tree_find(&t, "backend_bound");
	assert_int_equal(n->group, 1);
	assert_false(n->split);
	expect(&t, "retiring", NAN);
	assert_non_null(strstr(metric_tree_find(&t, "retiring")->why, "'ex_ret_ops' was not measured"));
	assert_true(isnan(t.level1_sum)); /* two of the four are missing: no sum */
	/* Zen 5: 8 slots. FE = 600 / 8000 = 7.5 % */
	assert_int_equal(eval_rows("zen5", l1, 0, &t, NULL), 0);
	expect(&t, "frontend_bound", 7.5);
}

static void test_not_measured_is_never_zero(void **state)
{
	static const struct row rows[] = {
		{ "ls_not_halted_cyc", 1000, 0, COUNT_OK },
		{ "de_no_dispatch_per_slot.no_ops_from_frontend", 600, 0, COUNT_OK },
		{ "ex_ret_ops", 0, 0, COUNT_NOT_COUNTED },
		{ "de_src_op_disp.all", 0, 0, COUNT_NOT_SUPPORTED },
		ROWS_END,
	};
	static const struct row idle[] = {
		{ "ls_not_halted_cyc", 0, 0, COUNT_OK },
		{ "de_no_dispatch_per_slot.no_ops_from_frontend", 0, 0, COUNT_OK },
		ROWS_END,
	};
	static const struct row none[] = {
		{ "task-clock", 12.5, -1, COUNT_OK },
		ROWS_END,
	};
	struct metric_tree t;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	assert_int_equal(eval_rows("zen4", rows, 0, &t, NULL), 0);
	expect(&t, "frontend_bound", 10);
	expect(&t, "retiring", NAN);
	assert_non_null(strstr(metric_tree_find(&t, "retiring")->why, "<not counted>"));
	expect(&t, "bad_speculation", NAN);
	assert_non_null(strstr(metric_tree_find(&t, "bad_speculation")->why, "<not"));
	expect(&t, "light_operations", NAN);
	/* a clock that counted 0: nothing ran, nothing to say (not 0 %) */
	assert_int_equal(eval_rows("zen4", idle, 0, &t, &err), TDP_EANALYSIS);
	expect(&t, "frontend_bound", NAN);
	assert_non_null(strstr(metric_tree_find(&t, "frontend_bound")->why, "counted 0"));
	tdp_err_clear(&err);
	/* nothing of the model at all: an analysis failure that names the events needed */
	assert_int_equal(eval_rows("zen4", none, 0, &t, &err), TDP_EANALYSIS);
	assert_non_null(strstr(err.msg, "no top-down node of the 'zen4' model could be computed"));
	assert_non_null(strstr(err.hint, "ls_not_halted_cyc"));
}

static void test_arm_models(void **state)
{
	/*
	 * Arm's current N2/V2 definitions (telemetry-solution, data/arm/) move the
	 * mispredict cycles into Bad Speculation: 1 x BR_MIS_PRED / CPU_CYCLES out of
	 * Frontend, 3 x out of Backend, 4 x into Bad Speculation. cycles 1000, BR_MIS_PRED 50:
	 * Neoverse N2 (r0p3, no erratum): FE = 1500 / 5000 - 0.05 = 25 %; BE = 1500 / 5000 - 0.15 = 15 %
	 *   stall = 3000 / 5000 = 0.6; RET = 0.9 * 0.4 = 36 %; BAD = 0.1 * 0.4 + 0.2 = 24 %
	 * Neoverse N2 r0p0 (erratum: one slot per cycle too many): FE = 500 / 5000 - 0.05 = 5 %; BE = 15 %
	 *   stall = 2000 / 5000 = 0.4; RET = 0.9 * 0.6 = 54 %; BAD = 0.1 * 0.6 + 0.2 = 26 %
	 * Neoverse V2 (8 slots): FE = 0.1875 - 0.05 = 13.75 %; BE = 0.1875 - 0.15 = 3.75 %
	 *   stall = 0.375; RET = 0.9 * 0.625 = 56.25 %; BAD = 0.0625 + 0.2 = 26.25 %
	 * Without BR_MIS_PRED (an import of perf's TopdownL1) the models fall back to perf's
	 * forms: r0p0 FE = 10, RET = 54, BAD = 6, BE = 30; r0p3 FE = 30, RET = 36, BAD = 4, BE = 30.
	 */
	static const struct row n2[] = {
		{ "cpu_cycles", 1000, 0, COUNT_OK },
		{ "stall_slot_frontend", 1500, 0, COUNT_OK },
		{ "armv8_pmuv3_0/stall_slot/", 3000, 0, COUNT_OK },
		{ "op_retired", 450, 0, COUNT_OK },
		{ "OP_SPEC", 500, 0, COUNT_OK },
		{ "stall_slot_backend", 1500, 0, COUNT_OK },
		{ "BR_MIS_PRED", 50, 0, COUNT_OK },
		ROWS_END,
	};
	static const struct row n2_perf[] = { /* perf 6.x's TopdownL1 group: no BR_MIS_PRED */
		{ "cpu_cycles", 1000, 0, COUNT_OK },
		{ "stall_slot_frontend", 1500, 0, COUNT_OK },
		{ "armv8_pmuv3_0/stall_slot/", 3000, 0, COUNT_OK },
		{ "op_retired", 450, 0, COUNT_OK },
		{ "OP_SPEC", 500, 0, COUNT_OK },
		{ "stall_slot_backend", 1500, 0, COUNT_OK },
		ROWS_END,
	};
	/*
	 * Neoverse V1 (perf's overrides): FE = 2400 / 8000 - 4 * 10 / 1000 = 26 %;
	 * stall = 4000 / 8000 = 0.5; RET = 0.8 * 0.5 = 40 %; BAD = 0.2 * 0.5 + 0.04 = 14 %;
	 * BE = 1600 / 8000 = 20 %
	 */
	static const struct row v1[] = {
		{ "CPU_CYCLES", 1000, 0, COUNT_OK },
		{ "STALL_SLOT_FRONTEND", 2400, 0, COUNT_OK },
		{ "STALL_SLOT", 4000, 0, COUNT_OK },
		{ "OP_RETIRED", 400, 0, COUNT_OK },
		{ "OP_SPEC", 500, 0, COUNT_OK },
		{ "STALL_SLOT_BACKEND", 1600, 0, COUNT_OK },
		{ "BR_MIS_PRED", 10, 0, COUNT_OK },
		ROWS_END,
	};
	/*
	 * Neoverse V3 (10 slots): FE = 3000 / 10000 - 50 / 1000 = 25 %; stall = 0.5;
	 * RET = 0.9 * 0.5 = 45 %; BAD = 0.5 * 0.1 + 0.05 = 10 %; BE = 2000 / 10000 = 20 %
	 */
	static const struct row v3[] = {
		{ "cycles", 1000, 0, COUNT_OK },
		{ "STALL_SLOT_FRONTEND", 3000, 0, COUNT_OK },
		{ "STALL_SLOT", 5000, 0, COUNT_OK },
		{ "OP_RETIRED", 450, 0, COUNT_OK },
		{ "OP_SPEC", 500, 0, COUNT_OK },
		{ "STALL_SLOT_BACKEND", 2000, 0, COUNT_OK },
		{ "STALL_FRONTEND_FLUSH", 50, 0, COUNT_OK },
		ROWS_END,
	};
	struct metric_tree t;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	assert_int_equal(eval_rows("neoverse-n2", n2, 0, &t, NULL), 0);
	expect(&t, "frontend_bound", 25);
	expect(&t, "backend_bound", 15);
	expect(&t, "retiring", 36);
	expect(&t, "bad_speculation", 24);
	assert_true(fabs(t.level1_sum - 100) < 1e-9);
	assert_int_equal(eval_rows("neoverse-n2-r0p3", n2, 0, &t, NULL), 0);
	assert_string_equal(t.model->name, "neoverse-n2");
	assert_int_equal(eval_rows("neoverse-n2-r0p0", n2, 0, &t, NULL), 0);
	expect(&t, "frontend_bound", 5);
	expect(&t, "backend_bound", 15);
	expect(&t, "retiring", 54);
	expect(&t, "bad_speculation", 26);
	assert_true(fabs(t.level1_sum - 100) < 1e-9);
	assert_int_equal(eval_rows("neoverse-n2-r0p2", n2_perf, 0, &t, NULL), 0);
	expect(&t, "frontend_bound", 10);
	expect(&t, "retiring", 54);
	expect(&t, "bad_speculation", 6);
	expect(&t, "backend_bound", 30);
	assert_non_null(strstr(metric_tree_find(&t, "frontend_bound")->source, "perf"));
	assert_int_equal(eval_rows("neoverse-n2", n2_perf, 0, &t, NULL), 0);
	expect(&t, "frontend_bound", 30);
	expect(&t, "retiring", 36);
	expect(&t, "bad_speculation", 4);
	expect(&t, "backend_bound", 30);
	assert_int_equal(eval_rows("neoverse-v2", n2, 0, &t, NULL), 0);
	expect(&t, "frontend_bound", 13.75);
	expect(&t, "backend_bound", 3.75);
	expect(&t, "retiring", 56.25);
	expect(&t, "bad_speculation", 26.25);
	assert_true(fabs(t.level1_sum - 100) < 1e-9);
	assert_int_equal(eval_rows("neoverse-v2", n2_perf, 0, &t, NULL), 0);
	expect(&t, "frontend_bound", 18.75);
	expect(&t, "retiring", 56.25);
	expect(&t, "bad_speculation", 6.25);
	expect(&t, "backend_bound", 18.75);
	/* the generic rule needs #slots from caps/slots: without it nothing is computed */
	assert_int_equal(eval_rows("sbsa", n2, 0, &t, &err), TDP_EANALYSIS);
	assert_non_null(strstr(metric_tree_find(&t, "frontend_bound")->why, "#slots is unknown"));
	/* with 5 slots and no erratum term: FE = 1500 / 5000 = 30 %, RET = 0.9 * (1 - 0.6) = 36 % */
	assert_int_equal(eval_rows("sbsa", n2, 5, &t, NULL), 0);
	expect(&t, "frontend_bound", 30);
	expect(&t, "retiring", 36);
	assert_int_equal(eval_rows("neoverse-v1", v1, 0, &t, NULL), 0);
	expect(&t, "frontend_bound", 26);
	expect(&t, "retiring", 40);
	expect(&t, "bad_speculation", 14);
	expect(&t, "backend_bound", 20);
	assert_int_equal(eval_rows("neoverse-v3", v3, 0, &t, NULL), 0);
	expect(&t, "frontend_bound", 25);
	expect(&t, "retiring", 45);
	expect(&t, "bad_speculation", 10);
	expect(&t, "backend_bound", 20);
	/* N3: the same rule with 5 slots: FE = 3000 / 5000 - 0.05 = 55 % */
	assert_int_equal(eval_rows("neoverse-n3", v3, 0, &t, NULL), 0);
	expect(&t, "frontend_bound", 55);
}

static void test_cycle_accounting(void **state)
{
	/* N1: 123 / 1000 = 12.3 % and 342 / 1000 = 34.2 % of cycles */
	static const struct row n1[] = {
		{ "CPU_CYCLES", 1000, -1, COUNT_OK },
		{ "stall_frontend", 123, -1, COUNT_OK },
		{ "stalled-cycles-backend", 342, -1, COUNT_OK },
		ROWS_END,
	};
	/* Zen 3: 250 / 1000 = 25 %; (300 + 100) / 1000 = 40 %; then min(1, (900 + 300) / 1000) = 100 % */
	static const struct row zen3[] = {
		{ "ls_not_halted_cyc", 1000, -1, COUNT_OK },
		{ "de_dis_uop_queue_empty_di0", 250, -1, COUNT_OK },
		{ "cpu/event=0xae,umask=0xff/", 300, -1, COUNT_OK },
		{ "cpu/umask=0xff,event=0xaf/", 100, -1, COUNT_OK },
		ROWS_END,
	};
	static const struct row zen3_sat[] = {
		{ "cycles", 1000, -1, COUNT_OK },
		{ "stalled-cycles-frontend", 250, -1, COUNT_OK },
		{ "cpu/event=0xae,umask=0xff/", 900, -1, COUNT_OK },
		{ "cpu/event=0xaf,umask=0xff/", 300, -1, COUNT_OK },
		ROWS_END,
	};
	struct metric_tree t;

	(void)state;
	assert_int_equal(eval_rows("neoverse-n1", n1, 0, &t, NULL), 0);
	assert_int_equal(t.kind, MODEL_KIND_CYCLE_ACCOUNTING);
	expect(&t, "frontend_stalled_cycles", 12.3);
	expect(&t, "backend_stalled_cycles", 34.2);
	assert_null(metric_tree_find(&t, "retiring")); /* never the four names */
	assert_null(metric_tree_find(&t, "frontend_bound"));
	assert_false(t.sum_off); /* buckets of cycles need not add to 100 */
	assert_non_null(strstr(t.model->note, "no four-way split"));
	assert_int_equal(eval_rows("cortex-a76", n1, 0, &t, NULL), 0);
	expect(&t, "backend_stalled_cycles", 34.2);
	assert_int_equal(eval_rows("zen3", zen3, 0, &t, NULL), 0);
	expect(&t, "frontend_stalled_cycles", 25);
	expect(&t, "backend_stalled_cycles", 40);
	assert_int_equal(eval_rows("zen2", zen3_sat, 0, &t, NULL), 0);
	expect(&t, "backend_stalled_cycles", 100);
	assert_non_null(strstr(t.model->note, "cycle accounting, not top-down"));
}

static void test_classification(void **state)
{
	/* zen4: FE 5 %, BAD 2 %, BE 63 %, RET 30 %; memory 63 * 0.75 = 47.25 %, cpu 15.75 % */
	static const struct row backend[] = {
		{ "ls_not_halted_cyc", 1000, 0, COUNT_OK },
		{ "de_no_dispatch_per_slot.no_ops_from_frontend", 300, 0, COUNT_OK },
		{ "de_src_op_disp.all", 1920, 0, COUNT_OK },
		{ "ex_ret_ops", 1800, 0, COUNT_OK },
		{ "de_no_dispatch_per_slot.backend_stalls", 3780, 0, COUNT_OK },
		{ "de_no_dispatch_per_slot.smt_contention", 0, 0, COUNT_OK },
		{ "ex_no_retire.load_not_complete", 300, 0, COUNT_OK },
		{ "ex_no_retire.not_complete", 400, 0, COUNT_OK },
		ROWS_END,
	};
	/* zen4: BAD = (4200 - 3000) / 6000 = 20 % > 15 %; RET 50 %; mispredicts 20 * 9 / 10 = 18 % */
	static const struct row badspec[] = {
		{ "ls_not_halted_cyc", 1000, 0, COUNT_OK },
		{ "de_no_dispatch_per_slot.no_ops_from_frontend", 600, 0, COUNT_OK },
		{ "de_src_op_disp.all", 4200, 0, COUNT_OK },
		{ "ex_ret_ops", 3000, 0, COUNT_OK },
		{ "de_no_dispatch_per_slot.backend_stalls", 1200, 0, COUNT_OK },
		{ "ex_ret_brn_misp", 90, 0, COUNT_OK },
		{ "resyncs_or_nc_redirects", 10, 0, COUNT_OK },
		ROWS_END,
	};
	/* zen4: RET = 5100 / 6000 = 85 % > 80 %, the rest small: near peak */
	static const struct row peak[] = {
		{ "ls_not_halted_cyc", 1000, 0, COUNT_OK },
		{ "de_no_dispatch_per_slot.no_ops_from_frontend", 300, 0, COUNT_OK },
		{ "de_src_op_disp.all", 5160, 0, COUNT_OK },
		{ "ex_ret_ops", 5100, 0, COUNT_OK },
		{ "de_no_dispatch_per_slot.backend_stalls", 540, 0, COUNT_OK },
		ROWS_END,
	};
	/* nothing above its threshold: FE 15, BAD 5, BE 30, RET 50: the largest stall, not flagged */
	static const struct row calm[] = {
		{ "ls_not_halted_cyc", 1000, 0, COUNT_OK },
		{ "de_no_dispatch_per_slot.no_ops_from_frontend", 900, 0, COUNT_OK },
		{ "de_src_op_disp.all", 3300, 0, COUNT_OK },
		{ "ex_ret_ops", 3000, 0, COUNT_OK },
		{ "de_no_dispatch_per_slot.backend_stalls", 1800, 0, COUNT_OK },
		ROWS_END,
	};
	struct metric_tree t;

	(void)state;
	assert_int_equal(eval_rows("zen4", backend, 0, &t, NULL), 0);
	model_classify(&t);
	expect(&t, "backend_bound", 63);
	expect(&t, "memory_bound", 47.25);
	assert_true(metric_tree_find(&t, "backend_bound")->flagged);
	assert_true(metric_tree_find(&t, "memory_bound")->flagged);  /* 47.25 > 20 and parent flagged */
	assert_true(metric_tree_find(&t, "core_bound")->flagged);    /* 15.75 > 10 and parent flagged */
	assert_false(metric_tree_find(&t, "frontend_bound")->flagged);
	assert_false(metric_tree_find(&t, "retiring")->flagged);
	assert_string_equal(t.verdict.category, "backend_bound");
	assert_string_equal(t.verdict.node, "memory_bound");
	assert_true(t.verdict.over_threshold);
	assert_non_null(strstr(t.verdict.next_step, "memory"));
	assert_int_equal(eval_rows("zen4", badspec, 0, &t, NULL), 0);
	model_classify(&t);
	assert_string_equal(t.verdict.category, "bad_speculation");
	assert_string_equal(t.verdict.node, "branch_mispredicts");
	expect(&t, "branch_mispredicts", 18);
	assert_non_null(strstr(t.verdict.next_step, "tdprof branches record"));
	assert_int_equal(eval_rows("zen4", peak, 0, &t, NULL), 0);
	model_classify(&t);
	expect(&t, "retiring", 85);
	assert_string_equal(t.verdict.category, "retiring");
	assert_non_null(strstr(t.verdict.next_step, "tdprof loop"));
	assert_int_equal(eval_rows("zen4", calm, 0, &t, NULL), 0);
	model_classify(&t);
	assert_string_equal(t.verdict.category, "backend_bound");
	assert_false(t.verdict.over_threshold);
	assert_null(t.verdict.node); /* its children were not measured */
	assert_string_equal(model_node_label("bad_speculation"), "Bad Speculation");
}

/* Zen 4's and Zen 5's level-1 events (the same names on both). */
static const struct row zen[] = {
	{ "ls_not_halted_cyc", 1000, 0, COUNT_OK },
	{ "de_no_dispatch_per_slot.no_ops_from_frontend", 600, 0, COUNT_OK },
	{ "de_src_op_disp.all", 3300, 0, COUNT_OK },
	{ "ex_ret_ops", 3000, 0, COUNT_OK },
	{ "de_no_dispatch_per_slot.backend_stalls", 1800, 0, COUNT_OK },
	ROWS_END,
};

static void test_coverage_for_inference(void **state)
{
	struct countset cs = COUNTSET_INIT;
	struct model_compiled *mc;

	(void)state;
	fill(&cs, zen);
	assert_int_equal(model_compile(model_find("zen4"), &mc, NULL), 0);
	assert_int_equal(model_coverage(mc, &cs, 1), 4);
	model_compiled_free(mc);
	assert_int_equal(model_compile(model_find("zen5"), &mc, NULL), 0);
	assert_int_equal(model_coverage(mc, &cs, 1), 4); /* the same events: zen4 or zen5 is ambiguous */
	model_compiled_free(mc);
	assert_int_equal(model_compile(model_find("skylake"), &mc, NULL), 0);
	assert_int_equal(model_coverage(mc, &cs, 1), 0);
	model_compiled_free(mc);
	countset_release(&cs);
}

/* model_infer_import(): Zen 4/5's level-1 events fit both; nothing fits an unrelated event. */
static void test_infer_import(void **state)
{
	static const struct row other[] = {
		{ "task-clock", 1000, 0, COUNT_OK },
		ROWS_END,
	};
	const struct model *fit[MODEL_INFER_MAX];
	struct countset cs = COUNTSET_INIT, none = COUNTSET_INIT;
	size_t n;
	bool zen4 = false, zen5 = false;

	(void)state;
	fill(&cs, zen);
	n = model_infer_import(&cs, fit);
	assert_true(n >= 2);
	for (size_t i = 0; i < n; i++) {
		zen4 |= fit[i] == model_find("zen4");
		zen5 |= fit[i] == model_find("zen5");
		assert_true(fit[i] != model_find("skylake"));
	}
	assert_true(zen4 && zen5);
	fill(&none, other);
	assert_int_equal(model_infer_import(&none, fit), 0);
	countset_release(&cs);
	countset_release(&none);
}

static void test_allocation_failures(void **state)
{
	static const struct row rows[] = {
		{ "ls_not_halted_cyc", 1000, 0, COUNT_OK },
		{ "de_no_dispatch_per_slot.no_ops_from_frontend", 600, 0, COUNT_OK },
		ROWS_END,
	};
	struct countset cs = COUNTSET_INIT;
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct metric_tree t;
	long total;

	(void)state;
	fill(&cs, rows);
	tdp_alloc_fail_after(-1);
	assert_int_equal(model_evaluate(model_find("zen4"), &cs, &o, &t, NULL), 0);
	total = tdp_alloc_fail_after(-1);
	for (long n = 0; n < total; n++) {
		int rc;

		tdp_alloc_fail_after(n);
		rc = model_evaluate(model_find("zen4"), &cs, &o, &t, NULL);
		tdp_alloc_fail_after(-1);
		assert_true(rc == 0 || rc == TDP_ENOMEM);
	}
	countset_release(&cs);
}


/* Evaluate rows with model name down to level 6. */
static int eval_deep(const char *name, const struct row *rows, struct metric_tree *t)
{
	const struct model *m = model_find(name);
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct countset cs = COUNTSET_INIT;
	int rc;

	assert_non_null(m);
	fill(&cs, rows);
	o.max_level = 6;
	rc = model_evaluate(m, &cs, &o, t, NULL);
	countset_release(&cs);
	return rc;
}

static void test_intel_generated_depth(void **state)
{
	/* Intel TMA 5.2 defines levels 1-6 from Ice Lake on (e.g. Load_STLB_Miss_4K, L6) */
	static const char *const deep[] = { "icelake", "rocketlake", "tigerlake", "icelakex", "sapphirerapids",
					     "emeraldrapids", "graniterapids", "alderlake", "meteorlake", "lioncove" };
	size_t nr;
	const struct model *const *all = model_all(&nr);

	(void)state;
	for (size_t i = 0; i < sizeof(deep) / sizeof(deep[0]); i++) {
		const struct model *m = model_find(deep[i]);
		bool l6 = false;
		size_t nb = 0;

		assert_non_null(m);

		assert_int_equal(model_depth(m), 6);
		for (size_t k = 0; k < m->nr_metrics; k++)
			nb += m->metrics[k].kind == MODEL_METRIC_BOTTLENECK;
		assert_int_equal(nb, 12);
		for (size_t k = 0; k < m->nr_nodes; k++)
			l6 |= m->nodes[k].level == 6 && m->nodes[k].description && m->nodes[k].parent;
		assert_true(l6);
	}
	for (size_t i = 0; i < nr; i++) {
		struct tdp_err err = TDP_ERR_INIT;
		size_t bottlenecks = 0;

		if (all[i]->vendor != MODEL_VENDOR_INTEL)
			continue;
		if (model_validate(all[i], &err))
			fail_msg("%s", err.msg);
		for (size_t k = 0; k < all[i]->nr_metrics; k++)
			bottlenecks += all[i]->metrics[k].kind == MODEL_METRIC_BOTTLENECK;
		/* TMA 5.2 defines the Bottlenecks view (12 rows) from Skylake on (SKL/KBL cells), P-cores only */
		if (!strcmp(all[i]->name, "skylake") || !strcmp(all[i]->name, "cascadelake"))
			assert_int_equal(bottlenecks, 12);
	}
}

static void test_icelake_level3_by_hand(void **state)
{
	/*
	 * Intel TMA 5.2, ICL column (inherited cells named):
	 *   CLKS = CPU_CLK_UNHALTED.THREAD = 1000; SLOTS = TOPDOWN.SLOTS = 5000
	 *   ICache_Misses (L3) = ICACHE_DATA.STALLS / CLKS = 100 / 1000 = 10 %
	 *   ITLB_Misses (L3, SKL/KBL cell) = ICACHE_TAG.STALLS / CLKS = 50 / 1000 = 5 %
	 *   Microcode_Sequencer (L3, SNB cell) = #Retire_Fraction * IDQ.MS_UOPS / SLOTS with
	 *     #Retire_Fraction (ICL) = UOPS_RETIRED.SLOTS / UOPS_ISSUED.ANY = 2500 / 4000:
	 *     0.625 * 500 / 5000 = 6.25 %
	 *   perf 6.1 (TMA 4.4) without UOPS_RETIRED.SLOTS: Retiring * SLOTS / UOPS_ISSUED.ANY with
	 *     Retiring = 2000 / (2000 + 500 + 1000 + 1500) = 0.4: 0.4 * 5000 / 4000 * 500 / 5000 = 5 %
	 */
	static const struct row rows[] = {
		{ "TOPDOWN.SLOTS", 5000, 0, COUNT_OK },
		{ "topdown-retiring", 2000, 0, COUNT_OK },
		{ "topdown-bad-spec", 500, 0, COUNT_OK },
		{ "topdown-fe-bound", 1000, 0, COUNT_OK },
		{ "topdown-be-bound", 1500, 0, COUNT_OK },
		{ "INT_MISC.UOP_DROPPING", 0, 0, COUNT_OK },
		{ "INT_MISC.CLEARS_COUNT", 0, 0, COUNT_OK },
		{ "CPU_CLK_UNHALTED.THREAD", 1000, 0, COUNT_OK },
		{ "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE", 100, 0, COUNT_OK },
		{ "ICACHE_DATA.STALLS", 100, 0, COUNT_OK },
		{ "ICACHE_TAG.STALLS", 50, 0, COUNT_OK },
		{ "UOPS_ISSUED.ANY", 4000, 0, COUNT_OK },
		{ "IDQ.MS_UOPS", 500, 0, COUNT_OK },
		{ "UOPS_RETIRED.SLOTS", 2500, 0, COUNT_OK },
		ROWS_END,
	};
	struct metric_tree t;
	const struct metric_node *ms;

	(void)state;
	assert_int_equal(eval_deep("icelake", rows, &t), 0);
	expect(&t, "icache_misses", 10);
	expect(&t, "itlb_misses", 5);
	expect(&t, "microcode_sequencer", 6.25);
	assert_int_equal(metric_tree_find(&t, "icache_misses")->level, 3);
	assert_string_equal(metric_tree_find(&t, "icache_misses")->parent, "fetch_latency");
	ms = metric_tree_find(&t, "microcode_sequencer");
	assert_false(ms->older);
	assert_non_null(strstr(ms->variant_source, "TMA_Metrics-full.csv 5.2"));
	/* the same counts without UOPS_RETIRED.SLOTS, as perf 6.1 printed them: the older formula, said so */
	{
		struct row old[sizeof(rows) / sizeof(rows[0])];

		memcpy(old, rows, sizeof(rows));
		old[13] = (struct row)ROWS_END;
		assert_int_equal(eval_deep("icelake", old, &t), 0);
		expect(&t, "microcode_sequencer", 5);
		ms = metric_tree_find(&t, "microcode_sequencer");
		/* it reads #Retire_Fraction's older formula: the tree says so and names it */
		assert_true(ms->older);
		assert_non_null(strstr(ms->variant_source, "perf 6.1"));
		assert_non_null(strstr(ms->expr, "tma_aux_retire_fraction"));
		assert_false(metric_tree_find(&t, "icache_misses")->older);
	}
}

static void test_ecore_core_bound_current_and_older(void **state)
{
	/*
	 * Gracemont, slots = 5 * 1000 = 5000; Backend_Bound = 1500 / 5000 = 30 %.
	 * Intel E-core TMA 4 (and current perf): Core_Bound = TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS / SLOTS
	 *   = 250 / 5000 = 5 %.
	 * E-core TMA 3.52 / perf 6.1 (no ALLOC_RESTRICTIONS): Backend_Bound - Memory_Bound with
	 *   Memory_Bound = min(BE, LD_HEAD.ANY_AT_RET / CLKS + MEM_SCHEDULER / SLOTS * ST_BUF / ALL)
	 *   = min(0.3, 200 / 1000 + 500 / 5000 * 100 / 400) = 0.225: Core_Bound = 7.5 %, said to be older.
	 */
	static const struct row rows[] = {
		{ "cpu_atom/CPU_CLK_UNHALTED.CORE/", 1000, 0, COUNT_OK },
		{ "cpu_atom/TOPDOWN_FE_BOUND.ALL/", 1000, 0, COUNT_OK },
		{ "cpu_atom/TOPDOWN_BE_BOUND.ALL/", 1500, 0, COUNT_OK },
		{ "cpu_atom/TOPDOWN_RETIRING.ALL/", 2000, 0, COUNT_OK },
		{ "cpu_atom/LD_HEAD.ANY_AT_RET/", 200, 0, COUNT_OK },
		{ "cpu_atom/TOPDOWN_BE_BOUND.MEM_SCHEDULER/", 500, 0, COUNT_OK },
		{ "cpu_atom/MEM_SCHEDULER_BLOCK.ST_BUF/", 100, 0, COUNT_OK },
		{ "cpu_atom/MEM_SCHEDULER_BLOCK.ALL/", 400, 0, COUNT_OK },
		{ "cpu_atom/TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS/", 250, 0, COUNT_OK },
		ROWS_END,
	};
	struct row old[sizeof(rows) / sizeof(rows[0])];
	struct metric_tree t;
	const struct metric_node *cb;

	(void)state;
	assert_int_equal(eval_rows("gracemont", rows, 0, &t, NULL), 0);
	expect(&t, "backend_bound", 30);
	expect(&t, "core_bound", 5);
	assert_false(metric_tree_find(&t, "core_bound")->older);
	memcpy(old, rows, sizeof(rows));
	old[8] = (struct row)ROWS_END;
	assert_int_equal(eval_rows("gracemont", old, 0, &t, NULL), 0);
	expect(&t, "core_bound", 7.5);
	cb = metric_tree_find(&t, "core_bound");
	assert_true(cb->older);
	assert_non_null(strstr(cb->variant_source, "3.52"));
}

static void test_import_infers_smt(void **state)
{
	/* perf counts CPU_CLK_UNHALTED.THREAD_ANY on Skylake only with SMT on (TMA: CORE_CLKS = THREAD_ANY / 2 if
	 * #SMT_on): an import holding it is evaluated with #smt_on, one without it not */
	static const struct row smt[] = {
		{ "CPU_CLK_UNHALTED.THREAD", 1000, 0, COUNT_OK },
		{ "CPU_CLK_UNHALTED.THREAD_ANY", 3000, 0, COUNT_OK },
		{ "IDQ_UOPS_NOT_DELIVERED.CORE", 400, 0, COUNT_OK },
		ROWS_END,
	};
	const struct model *m = model_find("skylake");
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct countset cs = COUNTSET_INIT;
	struct metric_tree t;

	(void)state;
	fill(&cs, smt);
	o.infer_smt = true;
	assert_int_equal(model_evaluate(m, &cs, &o, &t, NULL), 0);
	assert_true(t.smt_on);
	/* FE = 400 / (4 * 3000 / 2) = 6.67 % */
	expect(&t, "frontend_bound", 400.0 / 6000 * 100);
	o.infer_smt = false;
	assert_int_equal(model_evaluate(m, &cs, &o, &t, NULL), 0);
	assert_false(t.smt_on);
	countset_release(&cs);
	/* without THREAD_ANY: no SMT, and the per-thread clocks: FE = 400 / (4 * 1000) = 10 % */
	cs = (struct countset)COUNTSET_INIT;
	fill(&cs, (const struct row[]){ smt[0], smt[2], ROWS_END });
	o.infer_smt = true;
	assert_int_equal(model_evaluate(m, &cs, &o, &t, NULL), 0);
	assert_false(t.smt_on);
	expect(&t, "frontend_bound", 10);
	countset_release(&cs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_validate_every_model),
		cmocka_unit_test(test_intel_generated_depth),
		cmocka_unit_test(test_icelake_level3_by_hand),
		cmocka_unit_test(test_ecore_core_bound_current_and_older),
		cmocka_unit_test(test_import_infers_smt),
		cmocka_unit_test(test_validate_rejects),
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_event_keys),
		cmocka_unit_test(test_skylake_no_smt),
		cmocka_unit_test(test_skylake_smt_forms),
		cmocka_unit_test(test_icelakex),
		cmocka_unit_test(test_sapphirerapids),
		cmocka_unit_test(test_hybrid_core_types),
		cmocka_unit_test(test_zen4_groups),
		cmocka_unit_test(test_not_measured_is_never_zero),
		cmocka_unit_test(test_arm_models),
		cmocka_unit_test(test_cycle_accounting),
		cmocka_unit_test(test_classification),
		cmocka_unit_test(test_coverage_for_inference),
		cmocka_unit_test(test_infer_import),
		cmocka_unit_test(test_allocation_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
