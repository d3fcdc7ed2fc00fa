/*
 * Unit tests of the -j branch filters (perf's spellings, tools/perf/util/
 * parse-branch-options.c) and of each facility's rules as its kernel driver
 * states them: arch/x86/events/amd/lbr.c (LbrExtV2: LBR_NOT_SUPP entries),
 * arch/x86/events/amd/brs.c (BRS: only ANY plus levels; event 0xC4, period
 * above the depth, no frequency mode), drivers/perf/arm_brbe.c
 * (BRBE_EXCLUDE_BRANCH_FILTERS).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "pmu/sampling.h"

#define U PERF_SAMPLE_BRANCH_USER
#define K PERF_SAMPLE_BRANCH_KERNEL
#define ANY PERF_SAMPLE_BRANCH_ANY

struct parse_row {
	int line;
	const char *spec;
	int ret;
	uint64_t want;
};

/* bit values from include/uapi/linux/perf_event.h (formats.md §3.2) */
static const struct parse_row parse_rows[] = {
	{ __LINE__, "any", 0, 1u << 3 },
	{ __LINE__, "any,u", 0, (1u << 3) | (1u << 0) },
	{ __LINE__, "cond", 0, 1u << 10 },
	{ __LINE__, "call", 0, 1u << 13 },
	{ __LINE__, "ind_call", 0, 1u << 6 },
	{ __LINE__, "any_call,any_ret", 0, (1u << 4) | (1u << 5) },
	{ __LINE__, "ind_jmp", 0, 1u << 12 },
	{ __LINE__, "save_type", 0, (1u << 16) | (1u << 3) }, /* no type filter: any is added */
	{ __LINE__, "cond,save_type,hw_index", 0, (1u << 10) | (1u << 16) | (1u << 17) },
	{ __LINE__, "stack", 0, 1u << 11 },
	{ __LINE__, "call_stack", 0, 1u << 11 },
	{ __LINE__, "COND,K", 0, (1u << 10) | (1u << 1) },       /* perf compares case-insensitively */
	{ __LINE__, "u", 0, (1u << 0) | (1u << 3) },             /* levels only: any at those levels */
	{ __LINE__, "u,k,hv", 0, 7u | (1u << 3) },
	{ __LINE__, "", 0, 1u << 3 },
	{ __LINE__, "no_flags,no_cycles,any", 0, (1u << 14) | (1u << 15) | (1u << 3) },
	{ __LINE__, "priv,counter,cond", 0, (1u << 18) | (1u << 19) | (1u << 10) },
	{ __LINE__, "abort_tx,in_tx,no_tx", 0, (1u << 7) | (1u << 8) | (1u << 9) | (1u << 3) },
	{ __LINE__, "bogus", TDP_EUSAGE, 0 },
	{ __LINE__, "any,", TDP_EUSAGE, 0 },
	{ __LINE__, "any,,u", TDP_EUSAGE, 0 },
	{ __LINE__, ",any", TDP_EUSAGE, 0 },
	{ __LINE__, "an", TDP_EUSAGE, 0 },
	{ __LINE__, "any u", TDP_EUSAGE, 0 },
};

static void test_parse(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(parse_rows) / sizeof(parse_rows[0]); i++) {
		const struct parse_row *r = &parse_rows[i];
		struct tdp_err err = TDP_ERR_INIT;
		uint64_t got = 0xdead;
		int ret = pmu_branch_filter_parse(r->spec, &got, &err);

		if (ret != r->ret || (!ret && got != r->want))
			fail_msg("row at line %d ('%s'): ret %d want %d, filter 0x%llx want 0x%llx (%s)", r->line, r->spec, ret,
				 r->ret, (unsigned long long)got, (unsigned long long)r->want, err.msg);
		if (ret)
			assert_true(err.msg[0] != '\0' && strstr(err.msg, "'-j ") == err.msg);
	}
}

static void test_unknown_names_it_and_suggests(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	uint64_t f;
	char big[PMU_BRANCH_FILTER_MAX + 8];

	(void)state;
	assert_int_equal(pmu_branch_filter_parse("any,cnd", &f, &err), TDP_EUSAGE);
	assert_string_equal(err.msg, "'-j any,cnd': unknown branch filter 'cnd'");
	assert_non_null(strstr(err.hint, "did you mean 'cond'"));
	assert_non_null(strstr(err.hint, "save_type"));
	tdp_err_clear(&err);
	assert_int_equal(pmu_branch_filter_parse("any,,u", &f, &err), TDP_EUSAGE);
	assert_non_null(strstr(err.msg, "empty branch filter"));
	tdp_err_clear(&err);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(pmu_branch_filter_parse(big, &f, &err), TDP_ELIMIT);
}

static void test_describe(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	pmu_branch_filter_describe(ANY | U | PERF_SAMPLE_BRANCH_TYPE_SAVE | PERF_SAMPLE_BRANCH_CALL_STACK, &sb);
	assert_string_equal(sb.buf, "u,any,save_type,stack");
	strbuf_release(&sb);
}

struct check_row {
	int line;
	enum cpu_branch_facility f;
	const char *spec;
	long counters;   /* caps/branch_counter_nr */
	bool ok;
	const char *named; /* the filter the message must name */
};

static const struct check_row check_rows[] = {
	/* Intel LBR: everything, branch counters only with caps/branch_counter_nr */
	{ __LINE__, CPU_BRANCH_LBR, "any,u,save_type,hw_index", -1, true, NULL },
	{ __LINE__, CPU_BRANCH_LBR, "stack,u", -1, true, NULL },
	{ __LINE__, CPU_BRANCH_LBR, "in_tx,abort_tx", -1, true, NULL },
	{ __LINE__, CPU_BRANCH_LBR, "any,counter", -1, false, "counter" },
	{ __LINE__, CPU_BRANCH_LBR, "any,counter", 4, true, NULL },
	/* AMD LbrExtV2 */
	{ __LINE__, CPU_BRANCH_LBR_EXT_V2, "any,u,k", -1, true, NULL },
	{ __LINE__, CPU_BRANCH_LBR_EXT_V2, "cond,any_call,any_ret,ind_call,ind_jmp,call", -1, true, NULL },
	{ __LINE__, CPU_BRANCH_LBR_EXT_V2, "save_type,hw_index,priv", -1, true, NULL },
	{ __LINE__, CPU_BRANCH_LBR_EXT_V2, "stack", -1, false, "stack" },
	{ __LINE__, CPU_BRANCH_LBR_EXT_V2, "any,no_flags", -1, false, "no_flags" },
	{ __LINE__, CPU_BRANCH_LBR_EXT_V2, "any,no_cycles", -1, false, "no_cycles" },
	{ __LINE__, CPU_BRANCH_LBR_EXT_V2, "in_tx", -1, false, "in_tx" },
	{ __LINE__, CPU_BRANCH_LBR_EXT_V2, "any,counter", 4, false, "counter" },
	/* AMD BRS: any (and levels) only */
	{ __LINE__, CPU_BRANCH_BRS, "any", -1, true, NULL },
	{ __LINE__, CPU_BRANCH_BRS, "u", -1, true, NULL },
	{ __LINE__, CPU_BRANCH_BRS, "any,u,k", -1, true, NULL },
	{ __LINE__, CPU_BRANCH_BRS, "cond", -1, false, "cond" },
	{ __LINE__, CPU_BRANCH_BRS, "any,save_type", -1, false, "save_type" },
	{ __LINE__, CPU_BRANCH_BRS, "any_call", -1, false, "any_call" },
	/* Arm BRBE */
	{ __LINE__, CPU_BRANCH_BRBE, "any,no_flags,no_cycles,save_type,priv", -1, true, NULL },
	{ __LINE__, CPU_BRANCH_BRBE, "cond,ind_jmp", -1, true, NULL },
	{ __LINE__, CPU_BRANCH_BRBE, "stack", -1, false, "stack" },
	{ __LINE__, CPU_BRANCH_BRBE, "any,no_tx", -1, false, "no_tx" },
	{ __LINE__, CPU_BRANCH_BRBE, "any,counter", 4, false, "counter" },
	/* no branch stack at all */
	{ __LINE__, CPU_BRANCH_SPE, "any", -1, false, NULL },
	{ __LINE__, CPU_BRANCH_NONE, "any", -1, false, NULL },
};

static void test_facility_rules(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(check_rows) / sizeof(check_rows[0]); i++) {
		const struct check_row *r = &check_rows[i];
		struct tdp_err err = TDP_ERR_INIT;
		uint64_t f;
		int ret;

		assert_int_equal(pmu_branch_filter_parse(r->spec, &f, NULL), 0);
		ret = pmu_branch_filter_check(r->f, f, r->counters, &err);
		if ((ret == 0) != r->ok)
			fail_msg("row at line %d ('%s'): ret %d (%s)", r->line, r->spec, ret, err.msg);
		if (!r->ok)
			assert_int_equal(ret, TDP_EUSAGE);
		if (r->named && !strstr(err.msg, r->named))
			fail_msg("row at line %d: message '%s' does not name '%s'", r->line, err.msg, r->named);
	}
}

static void test_brs_event_rules(void **state)
{
	struct perf_event_attr raw = { .type = PERF_TYPE_RAW, .config = 0xc4 };
	struct perf_event_attr core = { .type = 4, .config = 0xc4 }; /* the cpu PMU: type 4 on x86 */
	struct perf_event_attr dyn = { .type = 10, .config = 0xc4 };
	struct perf_event_attr cycles = { .type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_CPU_CYCLES };
	struct perf_event_attr umask = { .type = PERF_TYPE_RAW, .config = 0x1c4 };
	struct perf_event_attr ext = { .type = PERF_TYPE_RAW, .config = 0x1000000c4ull };
	struct perf_event_attr other = { .type = PERF_TYPE_RAW, .config = 0xc2 };
	struct perf_event_attr excl = { .type = PERF_TYPE_RAW, .config = 0xc4 | (1u << 16) }; /* USR bit: outside the mask */
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	assert_int_equal(pmu_branch_event_check(CPU_BRANCH_BRS, &raw, "r0c4", 4, 100003, false, 16, NULL), 0);
	assert_int_equal(pmu_branch_event_check(CPU_BRANCH_BRS, &core, "cpu/event=0xc4/", 4, 17, false, 16, NULL), 0);
	assert_int_equal(pmu_branch_event_check(CPU_BRANCH_BRS, &excl, "r100c4", 4, 17, false, 16, NULL), 0);
	/* the period must exceed the depth: the kernel subtracts 16 */
	assert_int_equal(pmu_branch_event_check(CPU_BRANCH_BRS, &raw, "r0c4", 4, 16, false, 16, &err), TDP_EUSAGE);
	assert_non_null(strstr(err.msg, "above its depth (16 taken branches), not 16"));
	tdp_err_clear(&err);
	assert_int_equal(pmu_branch_event_check(CPU_BRANCH_BRS, &raw, "r0c4", 4, 0, true, 16, &err), TDP_EUSAGE);
	assert_non_null(strstr(err.msg, "frequency mode"));
	tdp_err_clear(&err);
	assert_int_equal(pmu_branch_event_check(CPU_BRANCH_BRS, &cycles, "cycles", 4, 100003, false, 16, &err),
			 TDP_EUSAGE);
	assert_string_equal(err.msg, "AMD BRS samples only on retired taken branches (event 0xC4), not on 'cycles'");
	assert_non_null(strstr(err.hint, "r0c4"));
	assert_int_equal(pmu_branch_event_check(CPU_BRANCH_BRS, &umask, "r1c4", 4, 100003, false, 16, NULL), TDP_EUSAGE);
	assert_int_equal(pmu_branch_event_check(CPU_BRANCH_BRS, &ext, "r1000000c4", 4, 100003, false, 16, NULL),
			 TDP_EUSAGE);
	assert_int_equal(pmu_branch_event_check(CPU_BRANCH_BRS, &other, "r0c2", 4, 100003, false, 16, NULL), TDP_EUSAGE);
	/* a PMU type other than raw (4 on x86) counts only when it is the core PMU's */
	assert_int_equal(pmu_branch_event_check(CPU_BRANCH_BRS, &dyn, "x/event=0xc4/", 9, 100003, false, 16, NULL),
			 TDP_EUSAGE);
	assert_int_equal(pmu_branch_event_check(CPU_BRANCH_BRS, &dyn, "x/event=0xc4/", 10, 100003, false, 16, NULL), 0);
	/* and the default event passes its own rules */
	assert_string_equal(pmu_branch_default_event(CPU_BRANCH_BRS), "r0c4");
}

static void test_other_event_rules(void **state)
{
	struct perf_event_attr cycles = { .type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_CPU_CYCLES };
	struct perf_event_attr clock = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK };
	struct perf_event_attr spe = { .type = 8 };

	(void)state;
	assert_int_equal(pmu_branch_event_check(CPU_BRANCH_LBR, &cycles, "cycles", 4, 0, true, 32, NULL), 0);
	assert_int_equal(pmu_branch_event_check(CPU_BRANCH_LBR_EXT_V2, &cycles, "cycles", 4, 0, true, 16, NULL), 0);
	assert_int_equal(pmu_branch_event_check(CPU_BRANCH_BRBE, &clock, "cpu-clock", 8, 0, true, 64, NULL), TDP_EUSAGE);
	assert_int_equal(pmu_branch_event_check(CPU_BRANCH_SPE, &spe, "arm_spe_0//", -1, 4096, false, -1, NULL), 0);
	assert_int_equal(pmu_branch_event_check(CPU_BRANCH_SPE, &spe, "arm_spe_0//", -1, 0, true, -1, NULL), TDP_EUSAGE);
	assert_string_equal(pmu_branch_default_event(CPU_BRANCH_LBR), "cycles");
	assert_string_equal(pmu_branch_default_event(CPU_BRANCH_LBR_EXT_V2), "cycles");
	assert_string_equal(pmu_branch_default_event(CPU_BRANCH_BRBE), "cycles");
	assert_null(pmu_branch_default_event(CPU_BRANCH_SPE));
	assert_null(pmu_branch_default_event(CPU_BRANCH_NONE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_unknown_names_it_and_suggests),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_facility_rules),
		cmocka_unit_test(test_brs_event_rules),
		cmocka_unit_test(test_other_event_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
