/*
 * Unit tests of the harness's top-down level 1: the formulas on counts worked by
 * hand, and the choice of events from CPU identity and a fake sysfs tree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <ftw.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness-internal.h"

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-9)

static void test_intel_formula(void **state)
{
	struct harness_topdown td = { .kind = HARNESS_TD_INTEL_METRICS, .nr = 5, .nr_required = 5 };
	/* slots, retiring, bad-spec, fe-bound, be-bound: sum of the four = 1000 */
	const double d[] = { 1000, 400, 100, 200, 300 };
	struct harness_level1 l;

	(void)state;
	assert_int_equal(harness_topdown_level1(&td, d, 5, &l), 0);
	NEAR(l.retiring, 40);
	NEAR(l.frontend_bound, 20);
	NEAR(l.backend_bound, 30);
	NEAR(l.bad_speculation, 10); /* max(100 - (40 + 20 + 30), 0) */
	assert_true(isnan(l.smt_contention));
	const double zero[] = { 0, 0, 0, 0, 0 };
	assert_int_equal(harness_topdown_level1(&td, zero, 5, &l), -EDOM);
}

static void test_amd_formula(void **state)
{
	struct harness_topdown td = { .kind = HARNESS_TD_AMD, .width = 6, .nr = 6, .nr_required = 5 };
	/* cycles 1000 -> 6000 slots; fe 600 (10 %), be 1800 (30 %), dispatched 3300,
	 * retired 3000 (50 %), bad = (3300 - 3000) / 6000 = 5 %, smt 300 (5 %) */
	const double d[] = { 1000, 600, 1800, 3300, 3000, 300 };
	struct harness_level1 l;

	(void)state;
	assert_int_equal(harness_topdown_level1(&td, d, 6, &l), 0);
	NEAR(l.frontend_bound, 10);
	NEAR(l.backend_bound, 30);
	NEAR(l.retiring, 50);
	NEAR(l.bad_speculation, 5);
	NEAR(l.smt_contention, 5);
	/* Without the optional smt_contention event. */
	assert_int_equal(harness_topdown_level1(&td, d, 5, &l), 0);
	assert_true(isnan(l.smt_contention));
	assert_int_equal(harness_topdown_level1(&td, d, 4, &l), -EINVAL);
}

static void test_arm_formula(void **state)
{
	struct harness_topdown td = { .kind = HARNESS_TD_ARM, .width = 8, .nr = 6, .nr_required = 6 };
	/* cycles 1000 -> 8000 slots; stall_slot_frontend 1600 (20 %), stall_slot_backend 2400 (30 %),
	 * stall_slot 4000 -> busy 1 - 4000/8000 = 0.5; op_retired/op_spec = 3600/4000 = 0.9:
	 * retiring 0.9 * 0.5 = 45 %, bad speculation 0.1 * 0.5 = 5 % */
	const double d[] = { 1000, 1600, 2400, 4000, 3600, 4000 };
	struct harness_level1 l;

	(void)state;
	assert_int_equal(harness_topdown_level1(&td, d, 6, &l), 0);
	NEAR(l.frontend_bound, 20);
	NEAR(l.backend_bound, 30);
	NEAR(l.retiring, 45);
	NEAR(l.bad_speculation, 5);
	/* Neoverse N2 (5 slots): one slot per cycle too many in STALL_SLOT and STALL_SLOT_FRONTEND.
	 * slots 5000; frontend (1600 - 1000) / 5000 = 12 %; busy 1 - (4000 - 1000)/5000 = 0.4;
	 * retiring 0.9 * 0.4 = 36 %; bad 0.1 * 0.4 = 4 %; backend 2400 / 5000 = 48 % */
	td.width = 5;
	td.n2_erratum = true;
	assert_int_equal(harness_topdown_level1(&td, d, 6, &l), 0);
	NEAR(l.frontend_bound, 12);
	NEAR(l.retiring, 36);
	NEAR(l.bad_speculation, 4);
	NEAR(l.backend_bound, 48);
}

static void test_amd_detect(void **state)
{
	struct harness_cpu_id zen4 = { "AuthenticAMD", 0x19, 0x11, 0 };
	struct harness_cpu_id zen3 = { "AuthenticAMD", 0x19, 0x01, 0 };
	struct harness_cpu_id zen5 = { "AuthenticAMD", 0x1a, 0x02, 0 };
	struct harness_topdown td;

	(void)state;
	harness_topdown_detect(&td, &zen4, "/nonexistent", 0);
	assert_int_equal(td.kind, HARNESS_TD_AMD);
	assert_int_equal(td.width, 6);
	assert_int_equal(td.nr, 6);
	assert_int_equal(td.nr_required, 5);
	assert_int_equal(td.ev[0].type, PERF_TYPE_RAW);
	assert_true(td.ev[0].config == 0x76);
	/* de_no_dispatch_per_slot is event 0x1A0: low byte 0xA0, bits 35:32 = 1 */
	assert_true(td.ev[1].config == (0xa0 | (0x01 << 8) | (UINT64_C(1) << 32)));
	assert_true(td.ev[2].config == (0xa0 | (0x1e << 8) | (UINT64_C(1) << 32)));
	assert_true(td.ev[3].config == 0x07aa);
	assert_true(td.ev[4].config == 0xc1);
	harness_topdown_detect(&td, &zen5, "/nonexistent", 0);
	assert_int_equal(td.kind, HARNESS_TD_AMD);
	assert_int_equal(td.width, 8);
	harness_topdown_detect(&td, &zen3, "/nonexistent", 0);
	assert_int_equal(td.kind, HARNESS_TD_NONE);
	assert_non_null(strstr(td.why_not, "Zen 4"));
}

static void put(const char *root, const char *rel, const char *text)
{
	char path[512], dir[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(p - path), path);
		mkdir(dir, 0755);
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void rmtree(const char *root)
{
	assert_int_equal(nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

static void test_intel_detect(void **state)
{
	char root[] = "/tmp/tdp-harness-sysfs-XXXXXX";
	struct harness_cpu_id intel = { "GenuineIntel", 6, 0x8f, 0 };
	struct harness_topdown td;

	(void)state;
	assert_non_null(mkdtemp(root));
	/* Skylake-like: no topdown-retiring in sysfs */
	put(root, "bus/event_source/devices/cpu/type", "4\n");
	put(root, "bus/event_source/devices/cpu/events/topdown-total-slots", "event=0x3c,umask=0x0\n");
	harness_topdown_detect(&td, &intel, root, 0);
	assert_int_equal(td.kind, HARNESS_TD_NONE);
	assert_non_null(strstr(td.why_not, "PERF_METRICS"));
	/* Sapphire Rapids-like: slots and topdown-retiring present */
	put(root, "bus/event_source/devices/cpu/events/slots", "event=0x00,umask=0x4\n");
	put(root, "bus/event_source/devices/cpu/events/topdown-retiring", "event=0x00,umask=0x80\n");
	harness_topdown_detect(&td, &intel, root, 0);
	assert_int_equal(td.kind, HARNESS_TD_INTEL_METRICS);
	assert_int_equal(td.nr, 5);
	assert_int_equal(td.ev[0].type, 4);
	assert_true(td.ev[0].config == 0x400);
	assert_string_equal(td.ev[0].name, "slots");
	assert_true(td.ev[1].config == 0x8000 && td.ev[4].config == 0x8300);
	rmtree(root);
}

static void test_arm_detect(void **state)
{
	char root[] = "/tmp/tdp-harness-sysfs-XXXXXX";
	struct harness_cpu_id arm = { "", 0, 0, 0x410fd490 }; /* Neoverse N2 r0p0 */
	struct harness_topdown td;
	char name[64];
	uint32_t type;

	(void)state;
	assert_non_null(mkdtemp(root));
	put(root, "bus/event_source/devices/armv8_pmuv3_0/type", "10\n");
	put(root, "bus/event_source/devices/armv8_pmuv3_0/cpus", "0-3\n");
	put(root, "bus/event_source/devices/armv8_pmuv3_0/events/cpu_cycles", "event=0x0011\n");
	harness_topdown_detect(&td, &arm, root, 2);
	assert_int_equal(td.kind, HARNESS_TD_NONE);
	assert_non_null(strstr(td.why_not, "armv8_pmuv3_0"));
	put(root, "bus/event_source/devices/armv8_pmuv3_0/caps/slots", "0x00000005\n");
	put(root, "bus/event_source/devices/armv8_pmuv3_0/events/stall_slot", "event=0x003f\n");
	put(root, "bus/event_source/devices/armv8_pmuv3_0/events/op_spec", "event=0x003b\n");
	harness_topdown_detect(&td, &arm, root, 2);
	assert_int_equal(td.kind, HARNESS_TD_ARM);
	assert_int_equal(td.width, 5);
	assert_true(td.n2_erratum);
	assert_int_equal(td.ev[0].type, 10);
	/* r0p3 counts STALL_SLOT right (data/cpus.json): no correction */
	arm.midr = 0x410fd493;
	harness_topdown_detect(&td, &arm, root, 2);
	assert_int_equal(td.kind, HARNESS_TD_ARM);
	assert_false(td.n2_erratum);
	arm.midr = 0x410fd490;
	harness_topdown_detect(&td, &arm, root, 2);
	assert_true(td.ev[0].config == 0x11 && td.ev[3].config == 0x3f);
	/* CPU 5 is not covered by this PMU */
	assert_int_equal(harness_arm_core_pmu(root, 5, &type, name, sizeof(name)), -ENOENT);
	assert_int_equal(harness_arm_core_pmu(root, 3, &type, name, sizeof(name)), 0);
	assert_int_equal(type, 10);
	assert_string_equal(name, "armv8_pmuv3_0");
	rmtree(root);
}

static void test_cpulist(void **state)
{
	(void)state;
	assert_true(harness_cpulist_has("0-3,8", 0));
	assert_true(harness_cpulist_has("0-3,8", 3));
	assert_false(harness_cpulist_has("0-3,8", 4));
	assert_true(harness_cpulist_has("0-3,8", 8));
	assert_false(harness_cpulist_has("0-3,8", 9));
	assert_true(harness_cpulist_has("5", 5));
	assert_false(harness_cpulist_has("", 0));
	assert_false(harness_cpulist_has("x", 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intel_formula),
		cmocka_unit_test(test_amd_formula),
		cmocka_unit_test(test_arm_formula),
		cmocka_unit_test(test_amd_detect),
		cmocka_unit_test(test_intel_detect),
		cmocka_unit_test(test_arm_detect),
		cmocka_unit_test(test_cpulist),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
