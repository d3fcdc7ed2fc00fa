/*
 * Unit tests of pmu/event on fake sysfs trees (test-event-fake.h): format/
 * parsing, pmu/term=value/ encodings, aliases with and without the pmu prefix,
 * .scale/.unit, and the errors for unknown PMUs, terms and values. Expected
 * configs are worked out by hand from the formats (arithmetic in comments).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/err.h"
#include "pmu/event-internal.h"

#include "test-event-fake.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct enc_row {
	const char *spec;
	uint32_t type;
	uint64_t config, config1;
	const char *pmu;
	int line;
};

/* Parse spec on the tree at root (libpfm4 off); fail with the row's line otherwise. */
static void check_rows(const char *root, const struct enc_row *rows, size_t nr)
{
	struct pmu_env env = { root, false };

	for (size_t i = 0; i < nr; i++) {
		const struct enc_row *r = &rows[i];
		struct pmu_event_list l = PMU_EVENT_LIST_INIT;
		struct tdp_err err = TDP_ERR_INIT;
		int ret = pmu_event_list_parse(&l, r->spec, &env, &err);

		if (ret || l.nr != 1)
			fail_msg("line %d: '%s': ret %d: %s (%s)", r->line, r->spec, ret, err.msg, err.hint);
		if (l.v[0].attr.type != r->type || l.v[0].attr.config != r->config ||
		    l.v[0].attr.config1 != r->config1 || strcmp(l.v[0].pmu, r->pmu))
			fail_msg("line %d: '%s': type %u config 0x%llx config1 0x%llx pmu %s", r->line, r->spec,
				 l.v[0].attr.type, (unsigned long long)l.v[0].attr.config,
				 (unsigned long long)l.v[0].attr.config1, l.v[0].pmu);
		assert_int_equal(l.v[0].source, PMU_EV_SYSFS);
		assert_true(l.v[0].is_hardware);
		assert_string_equal(l.v[0].name, r->spec);
		pmu_event_list_release(&l);
	}
}

static void test_format_parse(void **state)
{
	static const char *const bad[] = {
		"config:8-7", "config:64", "config:0-64", "config:0-7,5", "config3:0", "conf:1", "config:",
		"config:1,", "config:-1", "config:1-", "config: 1", "config:1x", "config1", "",
		"config:0-7,,8", "config:99999999999999999999",
	};
	struct pmu_format f;
	struct perf_event_attr attr;

	(void)state;
	assert_int_equal(pmu_format_parse("config:0-7", 10, &f), 0);
	assert_int_equal(f.word, 0);
	assert_int_equal(f.nbits, 8);
	assert_int_equal(f.bit[7], 7);
	assert_true(pmu_format_max(&f) == 0xff);
	assert_int_equal(pmu_format_parse("config:0-7,32-35\n", 17, &f), 0);
	assert_int_equal(f.nbits, 12);
	assert_int_equal(f.bit[8], 32);
	assert_int_equal(f.bit[11], 35);
	/* listed high range first: the bits still fill from the lowest */
	assert_int_equal(pmu_format_parse("config:32-35,0-7", 16, &f), 0);
	assert_int_equal(f.bit[0], 0);
	assert_int_equal(f.bit[8], 32);
	assert_int_equal(pmu_format_parse("config1:18", 10, &f), 0);
	assert_int_equal(f.word, 1);
	assert_int_equal(f.nbits, 1);
	assert_int_equal(f.bit[0], 18);
	assert_int_equal(pmu_format_parse("config2:0-63", 12, &f), 0);
	assert_int_equal(f.word, 2);
	assert_true(pmu_format_max(&f) == UINT64_MAX);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (pmu_format_parse(bad[i], strlen(bad[i]), &f) != -1)
			fail_msg("format '%s' accepted", bad[i]);

	/* AMD's split event select: 0x1A0 -> 0xA0 in bits 0-7, 0x1 in bits 32-35 */
	assert_int_equal(pmu_format_parse("config:0-7,32-35", 16, &f), 0);
	memset(&attr, 0, sizeof(attr));
	attr.config = 0xffffffffffffffffull;
	assert_true(pmu_format_put(&f, 0x1a0, &attr));
	assert_true(attr.config == 0xfffffff1ffffffa0ull); /* the field is cleared, the rest kept */
	assert_false(pmu_format_put(&f, 0x1000, &attr));
	assert_true(attr.config == 0xfffffff1ffffffa0ull);
}

static void test_intel_terms(void **state)
{
	/*
	 * The fake Ice Lake "cpu" PMU: event 0-7, umask 8-15, edge 18, any 21, inv 23,
	 * cmask 24-31, ldlat config1 0-15.
	 */
	static const struct enc_row rows[] = {
		{ "cpu/event=0x3c/", 4, 0x3c, 0, "cpu", __LINE__ },
		/* 0x0d | 0x01 << 8 | 1 << 18 | 1 << 24 = 0x104010d (INT_MISC.RECOVERY_CYCLES:c=1:e) */
		{ "cpu/event=0x0d,umask=0x01,cmask=1,edge/", 4, 0x104010d, 0, "cpu", __LINE__ },
		/* 0x3c | 1 << 21 */
		{ "cpu/event=0x3c,any/", 4, 0x20003c, 0, "cpu", __LINE__ },
		/* 0xc2 | 2 << 8 | 1 << 23 | 1 << 24 */
		{ "cpu/event=0xc2,umask=2,inv,cmask=1/", 4, 0x18002c2, 0, "cpu", __LINE__ },
		{ "cpu/event=0xc2,umask=2,inv=0,cmask=0xff/", 4, 0xff0002c2, 0, "cpu", __LINE__ },
		/* later terms replace earlier ones */
		{ "cpu/event=0x3c,event=0xc0/", 4, 0xc0, 0, "cpu", __LINE__ },
		{ "cpu/config=0x5300c0/", 4, 0x5300c0, 0, "cpu", __LINE__ },
		{ "cpu/config=0x1,config1=0x2/", 4, 0x1, 0x2, "cpu", __LINE__ },
		{ "cpu/event=1,ldlat=3/", 4, 0x1, 0x3, "cpu", __LINE__ },
		/* aliases: slots = event 0x00 umask 0x4; topdown-retiring umask 0x80 */
		{ "cpu/slots/", 4, 0x400, 0, "cpu", __LINE__ },
		{ "cpu/topdown-retiring/", 4, 0x8000, 0, "cpu", __LINE__ },
		{ "cpu/TOPDOWN-RETIRING/", 4, 0x8000, 0, "cpu", __LINE__ },
		{ "cpu/slots,umask=0x5/", 4, 0x500, 0, "cpu", __LINE__ },
		{ "cpu/topdown-retiring,cmask=2/", 4, 0x2008000, 0, "cpu", __LINE__ },
		/* mem-loads = event 0xcd umask 0x1 ldlat 3 (config1) */
		{ "cpu/mem-loads/", 4, 0x1cd, 3, "cpu", __LINE__ },
		{ "cpu/mem-loads,ldlat=30/", 4, 0x1cd, 30, "cpu", __LINE__ },
		/* the alias "cycles" is reachable with the prefix only */
		{ "cpu/cycles/", 4, 0x99, 0, "cpu", __LINE__ },
		/* bare aliases of the core PMU, as perf allows */
		{ "topdown-retiring", 4, 0x8000, 0, "cpu", __LINE__ },
		{ "slots", 4, 0x400, 0, "cpu", __LINE__ },
		{ "Topdown-Bad-Spec", 4, 0x8100, 0, "cpu", __LINE__ },
		{ "power/energy-pkg/", 23, 0x2, 0, "power", __LINE__ },
	};
	struct fake_sysfs f;

	(void)state;
	fake_init(&f);
	fake_intel(&f);
	check_rows(f.root, rows, ARRAY_SIZE(rows));
	fake_free(&f);
}

static void test_amd_and_arm(void **state)
{
	static const struct enc_row amd[] = {
		/* Zen 4 de_no_dispatch_per_slot.no_ops_from_frontend: event 0x1A0 umask 0x01:
		 * 0xA0 | 0x01 << 8 | 0x1 << 32 */
		{ "cpu/event=0x1a0,umask=0x01/", 4, 0x1000001a0ull, 0, "cpu", __LINE__ },
		/* event 0xfff: 0xff in 0-7, 0xf in 32-35; umask 0xff in 8-15 */
		{ "cpu/event=0xfff,umask=0xff/", 4, 0xf0000ffffull, 0, "cpu", __LINE__ },
		/* with cmask 6 (PipelineL2's frontend latency): | 6 << 24 */
		{ "cpu/event=0x1a0,umask=0x01,cmask=0x6/", 4, 0x1060001a0ull, 0, "cpu", __LINE__ },
	};
	static const struct enc_row arm[] = {
		/* Arm: STALL_SLOT 0x3F, CPU_CYCLES 0x11 (Arm ARM PMU common events) */
		{ "armv8_pmuv3_0/stall_slot/", 8, 0x3f, 0, "armv8_pmuv3_0", __LINE__ },
		{ "armv8_pmuv3_0/event=0x11/", 8, 0x11, 0, "armv8_pmuv3_0", __LINE__ },
		{ "armv8_pmuv3_0/event=0x8162,long/", 8, 0x8162, 1, "armv8_pmuv3_0", __LINE__ },
		{ "stall_slot", 8, 0x3f, 0, "armv8_pmuv3_0", __LINE__ },
		{ "STALL_SLOT", 8, 0x3f, 0, "armv8_pmuv3_0", __LINE__ },
		{ "cpu_cycles", 8, 0x11, 0, "armv8_pmuv3_0", __LINE__ },
	};
	struct fake_sysfs f;

	(void)state;
	fake_init(&f);
	fake_amd(&f);
	check_rows(f.root, amd, ARRAY_SIZE(amd));
	fake_free(&f);
	fake_init(&f);
	fake_arm(&f);
	check_rows(f.root, arm, ARRAY_SIZE(arm));
	fake_free(&f);
}

static void test_scale_unit_mods_groups(void **state)
{
	struct pmu_event_list l = PMU_EVENT_LIST_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	struct pmu_env env = { NULL, false };
	struct fake_sysfs f;

	(void)state;
	fake_init(&f);
	fake_intel(&f);
	env.sysfs_root = f.root;
	assert_int_equal(pmu_event_list_parse(&l,
					      "power/energy-pkg/,cpu/topdown-total-slots/,{slots,topdown-retiring}:u,"
					      "cpu/event=0x3c,umask=0/k,cpu/event=0x3c/:u,cpu/event=0xc0,name=insns/,"
					      "cpu/event=0xc0,name='my insns'/,msr/tsc/,cycles",
					      &env, &err),
			 0);
	assert_int_equal(l.nr, 10);
	/* RAPL: the scale and unit files of the alias */
	assert_true(l.v[0].scale == 2.3283064365386962890625e-10);
	assert_string_equal(l.v[0].unit, "Joules");
	assert_true(l.v[1].scale == 4.0);
	assert_string_equal(l.v[1].unit, "");
	/* {slots,topdown-retiring}:u */
	assert_string_equal(l.v[2].name, "slots:u");
	assert_true(l.v[2].leader);
	assert_int_equal(l.v[2].group, 0);
	assert_int_equal(l.v[3].group, 0);
	assert_true(l.v[3].attr.config == 0x8000);
	assert_int_equal(l.v[3].attr.exclude_kernel, 1);
	/* modifiers right after the closing '/' or after '/:' */
	assert_int_equal(l.v[4].attr.exclude_user, 1);
	assert_int_equal(l.v[5].attr.exclude_kernel, 1);
	assert_string_equal(l.v[6].name, "insns");
	assert_true(l.v[6].flags & PMU_EVF_NAMED);
	assert_string_equal(l.v[7].name, "my insns");
	/* msr counts time, not instructions: no hardware counter */
	assert_string_equal(l.v[8].pmu, "msr");
	assert_false(l.v[8].is_hardware);
	/* the generic name wins over a sysfs alias of the same name (as in perf) */
	assert_int_equal(l.v[9].attr.type, PERF_TYPE_HARDWARE);
	assert_int_equal(l.v[9].source, PMU_EV_GENERIC);
	pmu_event_list_release(&l);

	/* commas inside pmu/.../ do not split the list; {} inside terms are not groups */
	assert_int_equal(pmu_event_list_parse(&l, "cpu/event=0x3c,umask=0/,{cpu/event=0xc0,umask=0/,cycles}", &env,
					      &err),
			 0);
	assert_int_equal(l.nr, 3);
	assert_int_equal(l.v[0].group, -1);
	assert_int_equal(l.v[1].group, 0);
	assert_true(l.v[1].leader);
	pmu_event_list_release(&l);
	fake_free(&f);
}

struct err_row {
	const char *spec;
	int ret;
	const char *msg;  /* the message starts with this */
	const char *hint; /* the hint contains this (NULL: not checked) */
	int line;
};

static void check_errors(const char *root, const struct err_row *rows, size_t nr)
{
	struct pmu_env env = { root, false };

	for (size_t i = 0; i < nr; i++) {
		const struct err_row *r = &rows[i];
		struct pmu_event_list l = PMU_EVENT_LIST_INIT;
		struct tdp_err err = TDP_ERR_INIT;
		int ret = pmu_event_list_parse(&l, r->spec, &env, &err);

		if (ret != r->ret || strncmp(err.msg, r->msg, strlen(r->msg)) || (r->hint && !strstr(err.hint, r->hint)))
			fail_msg("line %d: '%s': ret %d\n  msg  '%s'\n  hint '%s'", r->line, r->spec, ret, err.msg,
				 err.hint);
		/* only "cycles," before a failing event is kept */
		assert_int_equal(l.nr, strncmp(r->spec, "cycles,", 7) == 0);
		pmu_event_list_release(&l);
	}
}

static void test_errors(void **state)
{
	static const struct err_row rows[] = {
		{ "nosuch/event=1/", TDP_ENOENT, "PMU 'nosuch' does not exist on this machine",
		  "PMUs here: breakpoint, cpu, msr, power, software, tracepoint", __LINE__ },
		{ "../event=1/", TDP_EUSAGE, "'..' is not a valid PMU name", NULL, __LINE__ },
		{ "cpu/umask=0x100/", TDP_EUSAGE, "value 0x100 is too big for 'umask' of PMU 'cpu' (at most 0xff)", NULL,
		  __LINE__ },
		{ "cpu/edge=2/", TDP_EUSAGE, "value 0x2 is too big for 'edge' of PMU 'cpu' (at most 0x1)", NULL,
		  __LINE__ },
		{ "cpu/foo=1/", TDP_EUSAGE, "PMU 'cpu' has no term 'foo'", "terms of 'cpu': any, bad-format, cmask, e, edge, event, inv, ldlat, umask, config, config1",
		  __LINE__ },
		{ "cpu/umsk=1/", TDP_EUSAGE, "PMU 'cpu' has no term 'umsk'", "did you mean 'umask'", __LINE__ },
		{ "cpu/topdown-retirng/", TDP_ENOENT, "event 'cpu/topdown-retirng/' is not known",
		  "did you mean 'topdown-retiring'", __LINE__ },
		{ "cpu/event=/", TDP_EUSAGE, "cannot parse event list 'cpu/event=/': missing value after '=' at position 11",
		  NULL, __LINE__ },
		{ "cpu/event=0xzz/", TDP_EUSAGE, "cannot parse event list 'cpu/event=0xzz/': expected a number", NULL,
		  __LINE__ },
		{ "cycles,cpu/umask=1,,event=2/", TDP_EUSAGE,
		  "cannot parse event list 'cycles,cpu/umask=1,,event=2/': empty term at position 20", NULL, __LINE__ },
		{ "cpu//", TDP_EUSAGE, "cannot parse event list 'cpu//': no terms", NULL, __LINE__ },
		{ "cpu/=1/", TDP_EUSAGE, "cannot parse event list 'cpu/=1/': missing term name", NULL, __LINE__ },
		{ "cpu/config/", TDP_EUSAGE, "cannot parse event list 'cpu/config/': this term needs a value", NULL,
		  __LINE__ },
		{ "cpu/event=1/x", TDP_EUSAGE, "cannot parse event list 'cpu/event=1/x': unknown modifier at position 13",
		  NULL, __LINE__ },
		{ "cpu/name=/", TDP_EUSAGE, "cannot parse event list 'cpu/name=/': empty name=", NULL, __LINE__ },
		{ "cpu/bad-alias/", TDP_EFORMAT, "'", "", __LINE__ },
		{ "cpu/bad-format=1/", TDP_EFORMAT, "'", "", __LINE__ },
		{ "topdown-retirng", TDP_ENOENT, "event 'topdown-retirng' is not known on this machine",
		  "did you mean 'topdown-retiring'", __LINE__ },
		{ "cpu/e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,e,"
		  "e,e,e,e,e,e,e,e,e,e,e,e,e,e,e/",
		  TDP_ELIMIT, "more than 64 terms in one event", NULL, __LINE__ },
	};
	struct fake_sysfs f;

	(void)state;
	fake_init(&f);
	fake_intel(&f);
	fake_pmu_file(&f, "cpu", "events/bad-alias", "event=");
	fake_pmu_file(&f, "cpu", "format/bad-format", "config:9-1");
	fake_pmu_file(&f, "cpu", "format/e", "config:18");
	check_errors(f.root, rows, ARRAY_SIZE(rows));
	fake_free(&f);
}

static void test_no_core_pmu(void **state)
{
	/* this VM: software, tracepoint, breakpoint, msr, uprobe and no CPU PMU */
	static const struct err_row rows[] = {
		{ "cpu/event=0x3c/", TDP_ENOENT, "PMU 'cpu' does not exist on this machine",
		  "(no CPU PMU: hardware events cannot be counted here)", __LINE__ },
		{ "topdown-retiring", TDP_ENOENT, "event 'topdown-retiring' is not known on this machine", NULL,
		  __LINE__ },
		{ "{slots,topdown-retiring}", TDP_ENOENT, "event 'slots' is not known on this machine", NULL, __LINE__ },
	};
	struct fake_sysfs f;

	(void)state;
	fake_init(&f);
	fake_common(&f);
	check_errors(f.root, rows, ARRAY_SIZE(rows));
	fake_free(&f);
	/* no sysfs at all */
	{
		static const struct err_row none[] = {
			{ "cpu/event=0x3c/", TDP_ENOENT, "PMU 'cpu' does not exist on this machine",
			  "there are no PMUs under '/nonexistent-sysfs/bus/event_source/devices'", __LINE__ },
		};

		check_errors("/nonexistent-sysfs", none, ARRAY_SIZE(none));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_parse),
		cmocka_unit_test(test_intel_terms),
		cmocka_unit_test(test_amd_and_arm),
		cmocka_unit_test(test_scale_unit_mods_groups),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_no_core_pmu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
