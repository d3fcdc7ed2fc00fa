/*
 * Unit tests of model/groups (fitting events to counters) and model/plan (the
 * groups of a live run): every group fits its budget, each formula's events
 * stay in one group when they can, slots leads Intel's topdown group.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "model/groups.h"
#include "model/model.h"

enum { CYC, INS, A, B, C, D, E, F, SLOTS, TD1, TD2, NR_EV };

static const struct groups_event ev[NR_EV] = {
	[CYC] = { MODEL_CTR_FIXED, 1, false },
	[INS] = { MODEL_CTR_FIXED, 0, false },
	[A] = { MODEL_CTR_GP, 0, false },
	[B] = { MODEL_CTR_GP, 0, false },
	[C] = { MODEL_CTR_GP, 0, false },
	[D] = { MODEL_CTR_GP, 0, false },
	[E] = { MODEL_CTR_GP, 0, false },
	[F] = { MODEL_CTR_GP, 0, false },
	[SLOTS] = { MODEL_CTR_FIXED, 3, true },
	[TD1] = { MODEL_CTR_METRICS, 0, false },
	[TD2] = { MODEL_CTR_METRICS, 0, false },
};

static void test_fit(void **state)
{
	struct groups_budget b = { 4, 4, false };
	size_t four[] = { A, B, C, D }, five[] = { A, B, C, D, E }, fixed[] = { CYC, INS, A, B, C, D };
	size_t two_cycles[] = { CYC, CYC }, td[] = { TD1, TD2 }, td_led[] = { SLOTS, TD1, TD2, A };

	(void)state;
	assert_true(groups_fit(ev, four, 4, &b));
	assert_false(groups_fit(ev, five, 5, &b));
	assert_true(groups_fit(ev, fixed, 6, &b));      /* fixed counters are extra */
	assert_false(groups_fit(ev, two_cycles, 2, &b)); /* one fixed counter each */
	b.nmi_watchdog = true;                           /* the watchdog takes one general counter */
	assert_false(groups_fit(ev, four, 4, &b));
	assert_false(groups_fit(ev, td, 2, &b));         /* PERF_METRICS events need slots */
	assert_true(groups_fit(ev, td_led, 4, &b));
	b.fixed = 1;                                     /* no fixed counter 1: cycles needs a general one */
	assert_false(groups_fit(ev, fixed, 6, &b));
	b.gp = 0;
	b.fixed = 0;
	assert_false(groups_fit(ev, four, 1, &b));
}

static bool group_has_all(const struct groups_plan *p, const size_t *want, size_t nr)
{
	for (size_t g = 0; g < p->nr; g++) {
		size_t found = 0;

		for (size_t i = 0; i < nr; i++)
			for (size_t k = 0; k < p->v[g].nr; k++)
				if (p->v[g].ev[k] == want[i]) {
					found++;
					break;
				}
		if (found == nr)
			return true;
	}
	return false;
}

static void test_make(void **state)
{
	struct groups_set sets[] = {
		{ { CYC, A, B }, 3 },
		{ { CYC, A }, 2 },          /* inside the first: dropped */
		{ { CYC, C, D }, 3 },       /* merges with the first (4 general counters) */
		{ { CYC, E, F }, 3 },       /* no room left: a second group */
		{ { SLOTS, TD1, TD2 }, 3 }, /* no general counter: joins a group (one slots, no clash) */
	};
	struct groups_budget b = { 4, 4, false };
	struct groups_plan p = GROUPS_PLAN_INIT;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	assert_int_equal(groups_make(ev, NR_EV, sets, 5, &b, &p, &err), 0);
	assert_int_equal(p.nr, 2);
	assert_int_equal(p.nr_split, 0);
	for (size_t i = 0; i < 5; i++)
		assert_true(group_has_all(&p, sets[i].ev, sets[i].nr));
	for (size_t g = 0; g < p.nr; g++) {
		assert_true(groups_fit(ev, p.v[g].ev, p.v[g].nr, &b));
		for (size_t k = 1; k < p.v[g].nr; k++)
			assert_int_not_equal(p.v[g].ev[k], SLOTS); /* the leader is first */
	}
	groups_plan_release(&p);

	/* a set larger than any group is spread over groups and counted as split */
	{
		struct groups_set big = { { CYC, A, B, C, D, E, F }, 7 };

		assert_int_equal(groups_make(ev, NR_EV, &big, 1, &b, &p, &err), 0);
		assert_int_equal(p.nr, 2);
		assert_int_equal(p.nr_split, 1);
		assert_true(p.v[0].split && p.v[1].split);
		groups_plan_release(&p);
	}
	/* no counters at all (a VM without a PMU) */
	b.gp = 0;
	b.fixed = 0;
	assert_int_equal(groups_make(ev, NR_EV, sets, 1, &b, &p, &err), TDP_ENOTSUP);
	assert_non_null(strstr(err.msg, "needs a counter"));
	assert_int_equal(p.nr, 0);
	tdp_err_clear(&err);
	/* bad input from the caller */
	{
		struct groups_set bad = { { 99 }, 1 };

		b.gp = 4;
		assert_int_equal(groups_make(ev, NR_EV, &bad, 1, &b, &p, &err), TDP_EINVAL);
	}
}

static int event_index(const struct model *m, const char *name)
{
	for (size_t i = 0; i < m->nr_events; i++)
		if (!strcmp(m->events[i].name, name))
			return (int)i;
	fail_msg("%s has no event %s", m->name, name);
	return -1;
}

static void plan(const char *name, int level, bool nmi, struct groups_plan *p)
{
	const struct model *m = model_find(name);
	struct model_compiled *mc;
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct groups_budget b;
	struct tdp_err err = TDP_ERR_INIT;

	assert_int_equal(model_compile(m, &mc, &err), 0);
	model_default_budget(m, &b);
	b.nmi_watchdog = nmi;
	o.max_level = level;
	if (model_plan(mc, &o, &b, p, &err))
		fail_msg("%s", err.msg);
	/* every group fits the budget it was planned for */
	{
		struct groups_event gev[MODEL_MAX_EVENTS];

		for (size_t i = 0; i < m->nr_events; i++) {
			gev[i].counter = m->events[i].counter;
			gev[i].fixed_idx = m->events[i].fixed_idx;
			gev[i].leader = m->events[i].leader;
		}
		for (size_t g = 0; g < p->nr; g++)
			assert_true(groups_fit(gev, p->v[g].ev, p->v[g].nr, &b));
	}
	model_compiled_free(mc);
}

static void test_plan_zen4(void **state)
{
	const struct model *m = model_find("zen4");
	struct groups_plan p = GROUPS_PLAN_INIT;
	size_t misp[5];
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	/* level 1: five general counters (six less the watchdog's) */
	plan("zen4", 1, true, &p);
	for (size_t g = 0; g < p.nr; g++)
		assert_true(p.v[g].nr <= 5);
	assert_true(p.nr >= 2);
	groups_plan_release(&p);
	/* level 2: the mispredict split needs its five events together, as perf's PipelineL2 group */
	plan("zen4", 2, true, &p);
	misp[0] = (size_t)event_index(m, "ex_ret_brn_misp");
	misp[1] = (size_t)event_index(m, "resyncs_or_nc_redirects");
	misp[2] = (size_t)event_index(m, "de_src_op_disp.all");
	misp[3] = (size_t)event_index(m, "ex_ret_ops");
	misp[4] = (size_t)event_index(m, "ls_not_halted_cyc");
	assert_true(group_has_all(&p, misp, 5));
	assert_int_equal(p.nr_split, 0);
	for (size_t g = 0; g < p.nr; g++)
		assert_true(p.v[g].nr <= 5);
	model_plan_spec(m, &p, 0, 1, &sb);
	assert_true(sb.buf[0] == '{' && strstr(sb.buf, "cpu/event=0x") != NULL);
	strbuf_release(&sb);
	groups_plan_release(&p);
}

static void test_plan_intel(void **state)
{
	const struct model *icx = model_find("icelakex");
	struct groups_plan p = GROUPS_PLAN_INIT;
	struct strbuf sb = STRBUF_INIT;
	size_t td[3];

	(void)state;
	plan("icelakex", 1, false, &p);
	/* one group: slots leads the four topdown events and the two corrections */
	assert_int_equal(p.nr, 1);
	assert_int_equal(p.v[0].ev[0], (size_t)event_index(icx, "TOPDOWN.SLOTS"));
	model_plan_spec(icx, &p, 0, p.nr, &sb);
	assert_true(strncmp(sb.buf, "{cpu/slots/,", 12) == 0);
	assert_non_null(strstr(sb.buf, "cpu/topdown-fe-bound/"));
	/* TMA 5.2 ICX Backend_Bound: INT_MISC.CLEARS_COUNT, counted live as its encoding RECOVERY_CYCLES,cmask=1,edge */
	assert_non_null(strstr(sb.buf, "INT_MISC:RECOVERY_CYCLES:c=1:e=1"));
	strbuf_release(&sb);
	groups_plan_release(&p);
	/* Sapphire Rapids level 2 comes from PERF_METRICS: still one group */
	plan("sapphirerapids", 2, false, &p);
	assert_int_equal(p.nr, 1);
	td[0] = (size_t)event_index(model_find("sapphirerapids"), "TOPDOWN.SLOTS");
	td[1] = (size_t)event_index(model_find("sapphirerapids"), "topdown-mem-bound");
	td[2] = (size_t)event_index(model_find("sapphirerapids"), "topdown-heavy-ops");
	assert_true(group_has_all(&p, td, 3));
	groups_plan_release(&p);
	/* Skylake level 2: Memory Bound needs more events than 4 counters: split, and said so */
	plan("skylake", 2, false, &p);
	assert_true(p.nr_split >= 1);
	assert_true(p.nr >= 3);
	groups_plan_release(&p);
	/* the hybrid P-core counts on cpu_core */
	plan("alderlake", 1, false, &p);
	model_plan_spec(model_find("alderlake"), &p, 0, p.nr, &sb);
	assert_true(strncmp(sb.buf, "{cpu_core/slots/,", 17) == 0);
	strbuf_release(&sb);
	groups_plan_release(&p);
}

static void test_plan_smt_variants(void **state)
{
	const struct model *m = model_find("skylake");
	struct model_compiled *mc;
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct groups_budget b;
	struct groups_plan p = GROUPS_PLAN_INIT;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_int_equal(model_compile(m, &mc, NULL), 0);
	model_default_budget(m, &b);
	o.max_level = 1;
	/* SMT off: the per-thread forms; never perf 5.x's generic events */
	assert_int_equal(model_plan(mc, &o, &b, &p, NULL), 0);
	model_plan_spec(m, &p, 0, p.nr, &sb);
	assert_non_null(strstr(sb.buf, "INT_MISC.RECOVERY_CYCLES"));
	assert_null(strstr(sb.buf, "RECOVERY_CYCLES:t=1"));
	assert_null(strstr(sb.buf, "topdown-"));
	strbuf_reset(&sb);
	groups_plan_release(&p);
	/* SMT on, one process: the EBS form and the any-thread recovery cycles */
	o.smt_on = true;
	assert_int_equal(model_plan(mc, &o, &b, &p, NULL), 0);
	model_plan_spec(m, &p, 0, p.nr, &sb);
	assert_non_null(strstr(sb.buf, "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE"));
	assert_non_null(strstr(sb.buf, "INT_MISC:RECOVERY_CYCLES:t=1"));
	strbuf_release(&sb);
	groups_plan_release(&p);
	model_compiled_free(mc);
}

/* Every model, at every level it has: its events fit its counters (fixed + general, less the watchdog's). */
static void test_plan_every_model(void **state)
{
	size_t nr;
	const struct model *const *all = model_all(&nr);

	(void)state;
	for (size_t i = 0; i < nr; i++)
		for (int level = 1; level <= model_depth(all[i]); level++)
			for (int nmi = 0; nmi < 2; nmi++) {
				struct groups_plan p = GROUPS_PLAN_INIT;
				size_t events = 0;

				plan(all[i]->name, level, nmi, &p); /* fails the test when it cannot plan */
				assert_true(p.nr >= 1);
				for (size_t g = 0; g < p.nr; g++) {
					events += p.v[g].nr;
					/* Intel: never an event only imports hold (perf's tool events, a named
					 * event with a umask or offcore_rsp term libpfm4 cannot spell) */
					for (size_t k = 0; k < p.v[g].nr && all[i]->vendor == MODEL_VENDOR_INTEL; k++) {
						const struct model_event *mev = &all[i]->events[p.v[g].ev[k]];
						const char *live = mev->spec ? mev->spec : mev->name;

						if (!strcmp(live, "duration_time") || !strncmp(live, "msr/", 4) ||
						    strstr(live, "umask=") || strstr(live, "offcore_rsp="))
							fail_msg("%s -l %d plans '%s'", all[i]->name, level, live);
					}
				}
				assert_true(events >= 1);
				groups_plan_release(&p);
			}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fit),
		cmocka_unit_test(test_make),
		cmocka_unit_test(test_plan_zen4),
		cmocka_unit_test(test_plan_intel),
		cmocka_unit_test(test_plan_smt_variants),
		cmocka_unit_test(test_plan_every_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
