/*
 * Unit tests of model/live: the model of the machine being measured, as topdown and
 * why --backend=pmu both choose it, on fake sysfs/procfs trees of real machines.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "cpu/cpu.h"
#include "fake-tree.h"
#include "model/live.h"

struct machine {
	struct fake_tree t;
	char sys[512], proc[512];
	struct cpu_system s;
};

static void detect(struct machine *m)
{
	struct cpu_env env = { m->sys, m->proc, false };

	snprintf(m->sys, sizeof(m->sys), "%s/sys", m->t.root);
	snprintf(m->proc, sizeof(m->proc), "%s/proc", m->t.root);
	assert_int_equal(cpu_system_detect(&m->s, &env, NULL), 0);
}

static void done(struct machine *m)
{
	cpu_system_release(&m->s);
	fake_tree_remove(&m->t);
}

static void x86(struct machine *m, const char *vendor, unsigned family, unsigned model, const char *nmi)
{
	char text[512];

	fake_tree_init(&m->t);
	fake_file(&m->t, "0-7\n", "sys/devices/system/cpu/online");
	snprintf(text, sizeof(text), "processor\t: 0\nvendor_id\t: %s\ncpu family\t: %u\nmodel\t\t: %u\n"
		 "model name\t: x\nstepping\t: 1\nflags\t\t: fpu\n\n", vendor, family, model);
	fake_file(&m->t, text, "proc/cpuinfo");
	fake_file(&m->t, nmi, "proc/sys/kernel/nmi_watchdog");
	fake_pmu(&m->t, "sys", "software", 1, NULL, NULL);
}

/* QEMU's "max" CPU (MIDR implementer 0, part 0x051: no model of its own) with a PMUv3. */
static void arm_unknown(struct machine *m, const char *slots)
{
	const char *caps[] = { slots, NULL };

	fake_tree_init(&m->t);
	fake_file(&m->t, "0\n", "sys/devices/system/cpu/online");
	fake_file(&m->t, "0x00000000000f0510\n", "sys/devices/system/cpu/cpu0/regs/identification/midr_el1");
	fake_pmu(&m->t, "sys", "armv8_pmuv3_0", 8, slots ? caps : NULL, "0");
	fake_pmu(&m->t, "sys", "software", 1, NULL, NULL);
	fake_file(&m->t, "0\n", "proc/sys/kernel/nmi_watchdog");
}

/* A Neoverse N2 of the given MIDR, with its PMU's caps/slots. */
static void arm_n2(struct machine *m, const char *midr)
{
	const char *caps[] = { "slots=5", NULL };

	fake_tree_init(&m->t);
	fake_file(&m->t, "0-1\n", "sys/devices/system/cpu/online");
	fake_file(&m->t, midr, "sys/devices/system/cpu/cpu0/regs/identification/midr_el1");
	fake_file(&m->t, midr, "sys/devices/system/cpu/cpu1/regs/identification/midr_el1");
	fake_pmu(&m->t, "sys", "armv8_pmuv3_0", 8, caps, "0-1");
	fake_pmu(&m->t, "sys", "software", 1, NULL, NULL);
	fake_file(&m->t, "0\n", "proc/sys/kernel/nmi_watchdog");
}

/* The revision in MIDR_EL1 picks the N2 model: r0p0-r0p2 have the STALL_SLOT erratum, r0p3 not. */
static void test_arm_revision_from_midr(void **state)
{
	static const struct {
		const char *midr, *model, *revision;
	} cases[] = {
		{ "0x00000000410fd490\n", "neoverse-n2-r0p0", "neoverse-n2-r0p0" },
		{ "0x00000000410fd492\n", "neoverse-n2-r0p0", "neoverse-n2-r0p0" },
		{ "0x00000000410fd493\n", "neoverse-n2", NULL },
		{ "0x00000000410fd494\n", "neoverse-n2", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct machine m;
		const struct model *md = NULL;
		struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
		struct groups_budget b;

		arm_n2(&m, cases[i].midr);
		detect(&m);
		assert_string_equal(m.s.cpu.uarch, "neoverse-n2");
		if (cases[i].revision)
			assert_string_equal(m.s.cpu.uarch_revision, cases[i].revision);
		else
			assert_null(m.s.cpu.uarch_revision);
		assert_int_equal(model_live_setup(&m.s, NULL, 0, &md, &o, &b, NULL), 0);
		assert_string_equal(md->name, cases[i].model);
		assert_true(o.slots == 5);
		done(&m);
	}
}

static void test_hybrid_takes_the_p_core_model(void **state)
{
	struct machine m;
	const struct model *md = NULL;
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct groups_budget b;

	(void)state;
	x86(&m, "GenuineIntel", 6, 151, "0\n"); /* Alder Lake-S */
	fake_pmu(&m.t, "sys", "cpu_core", 4, NULL, "0-3");
	fake_pmu(&m.t, "sys", "cpu_atom", 10, NULL, "4-7");
	detect(&m);
	assert_int_equal(model_live_setup(&m.s, NULL, 0, &md, &o, &b, NULL), 0);
	assert_non_null(md);
	assert_non_null(md->core_type);
	assert_string_equal(md->core_type, "P-core");
	assert_non_null(md->companion); /* the E-core model is evaluated beside it */
	assert_false(b.nmi_watchdog);
	done(&m);
}

static void test_uarch_model_override_and_watchdog(void **state)
{
	struct machine m;
	const struct model *md = NULL;
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct groups_budget b;

	(void)state;
	x86(&m, "AuthenticAMD", 25, 17, "1\n"); /* Zen 4 (Genoa), NMI watchdog on */
	fake_pmu(&m.t, "sys", "cpu", 4, NULL, NULL);
	detect(&m);
	assert_int_equal(model_live_setup(&m.s, NULL, 0, &md, &o, &b, NULL), 0);
	assert_string_equal(md->name, "zen4");
	assert_true(b.nmi_watchdog);
	/* the model the user names wins */
	assert_int_equal(model_live_setup(&m.s, model_find("zen5"), 0, &md, &o, &b, NULL), 0);
	assert_string_equal(md->name, "zen5");
	done(&m);
}

static void test_arm_without_a_model_uses_sbsa_with_caps_slots(void **state)
{
	struct machine m;
	const struct model *md = NULL;
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct groups_budget b;

	(void)state;
	arm_unknown(&m, "slots=8");
	detect(&m);
	assert_int_equal(model_live_setup(&m.s, NULL, 0, &md, &o, &b, NULL), 0);
	assert_string_equal(md->name, "sbsa");
	assert_true(o.slots == 8); /* #slots from caps/slots */
	assert_int_equal(model_live_setup(&m.s, NULL, 5, &md, &o, &b, NULL), 0);
	assert_true(o.slots == 5); /* --slots overrides it */
	done(&m);
}

static void test_arm_without_slot_events_says_why(void **state)
{
	struct machine m;
	const struct model *md = NULL;
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct groups_budget b;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	arm_unknown(&m, "slots=0"); /* what QEMU's PMUv3 reports */
	detect(&m);
	assert_int_equal(model_live_setup(&m.s, NULL, 0, &md, &o, &b, &err), TDP_ENOTSUP);
	assert_null(md);
	assert_non_null(strstr(err.msg, "no slot events (caps/slots is 0)"));
	assert_non_null(strstr(err.hint, "--cpu"));
	done(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hybrid_takes_the_p_core_model),
		cmocka_unit_test(test_arm_revision_from_midr),
		cmocka_unit_test(test_uarch_model_override_and_watchdog),
		cmocka_unit_test(test_arm_without_a_model_uses_sbsa_with_caps_slots),
		cmocka_unit_test(test_arm_without_slot_events_says_why),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
