/*
 * test-live-specs.c: every event a live run of an Intel model counts at levels 1
 * and 2 has a live spelling our event parser accepts, with libpfm4 acting as that
 * CPU (LIBPFM_FORCE_PMU, read once per process: one CPU per run). The PERF_METRICS
 * events and the slots leader are sysfs aliases (cpu/topdown-*), not checked here.
 * Usage: test-live-specs MODEL LIBPFM_PMU [DEEPEST_LEVEL_TO_LIST]
 * Deeper levels are listed (not asserted): their events are for a multiplexed
 * live run and imports.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "model/groups.h"
#include "model/model.h"
#include "pmu/event.h"

static const char *model_name, *force;
static int list_level;

/* The events of the live plans of m at level, SMT off and on: unparseable ones are printed, and counted. */
static int check_level(const struct model *m, int level)
{
	struct model_compiled *mc;
	struct pmu_env env = { "/nonexistent-sysfs", true };
	int bad = 0;

	assert_int_equal(model_compile(m, &mc, NULL), 0);
	for (int smt = 0; smt < 2; smt++) {
		struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
		struct groups_budget b;
		struct groups_plan p = GROUPS_PLAN_INIT;

		o.max_level = level;
		o.smt_on = smt;
		model_default_budget(m, &b);
		assert_int_equal(model_plan(mc, &o, &b, &p, NULL), 0);
		for (size_t g = 0; g < p.nr; g++)
			for (size_t k = 0; k < p.v[g].nr; k++) {
				const struct model_event *ev = &m->events[p.v[g].ev[k]];
				const char *spec = ev->spec ? ev->spec : ev->name;
				struct pmu_event_list l = PMU_EVENT_LIST_INIT;
				struct tdp_err err = TDP_ERR_INIT;

				if (ev->counter == MODEL_CTR_METRICS || ev->leader || strchr(spec, '/'))
					continue;
				if (pmu_event_list_parse(&l, spec, &env, &err)) {
					printf("%s -l %d%s: '%s': %s\n", m->name, level, smt ? " (SMT)" : "", spec, err.msg);
					bad++;
				}
				pmu_event_list_release(&l);
			}
		groups_plan_release(&p);
	}
	model_compiled_free(mc);
	return bad;
}

static void test_live_specs(void **state)
{
	const struct model *m = model_find(model_name);

	(void)state;
	assert_non_null(m);
	setenv("LIBPFM_FORCE_PMU", force, 1);
	assert_int_equal(check_level(m, 1), 0);
	assert_int_equal(check_level(m, 2), 0);
	for (int l = 3; l <= list_level && l <= model_depth(m); l++)
		check_level(m, l);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_specs),
	};

	if (argc < 3) {
		fprintf(stderr, "usage: test-live-specs MODEL LIBPFM_PMU [LEVEL]\n");
		return 2;
	}
	model_name = argv[1];
	force = argv[2];
	list_level = argc > 3 ? (int)strtol(argv[3], NULL, 10) : 0;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
