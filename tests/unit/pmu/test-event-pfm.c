/*
 * Encodings for other CPUs: with LIBPFM_FORCE_PMU set before the first parse,
 * libpfm4 acts as a Skylake, an Ice Lake, a Zen 4 or a Neoverse N2. For each
 * event the top-down models need, the encoding our parser produces must equal
 *   (a) libpfm4's own encoding of libpfm4's name for it, obtained here by
 *       calling pfm_get_os_event_encoding() directly,
 *   (b) the raw fields documented in shared/reference (tma-formulas.md,
 *       formats.md) or the source named on the row, laid out as the vendor's
 *       event-select register (Intel SDM vol. 3B IA32_PERFEVTSELx; AMD PPR
 *       PERF_CTL with event select bits 7:0 and 35:32), and
 *   (c) the same fields written as pmu/event=..,umask=../ terms on a fake sysfs
 *       tree of that vendor.
 * Usage: test-event-pfm skylake|icelake|zen4|neoverse-n2 (one CPU per process:
 * libpfm4 reads LIBPFM_FORCE_PMU once).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/err.h"
#include "pmu/event.h" /* <linux/perf_event.h> before libpfm4's copy */

#include <perfmon/pfmlib_perf_event.h>

#include "test-event-fake.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum layout { INTEL, AMD, ARM };

struct row {
	const char *spec; /* through our parser */
	const char *pfm;  /* libpfm4's name, encoded directly */
	unsigned event, umask, cmask;
	bool edge, inv, any;
	int line;
};

/* Skylake (libpfm4 "skl"). */
static const struct row skl_rows[] = {
	/* formats.md §3.3: IDQ_UOPS_NOT_DELIVERED.CORE event 0x9C umask 0x01 */
	{ "IDQ_UOPS_NOT_DELIVERED.CORE", "IDQ_UOPS_NOT_DELIVERED:CORE", 0x9c, 0x01, 0, 0, 0, 0, __LINE__ },
	/* formats.md §3.3 and tma-formulas.md §2.2 (topdown-slots-issued): 0x0E/0x01 */
	{ "UOPS_ISSUED.ANY", "UOPS_ISSUED:ANY", 0x0e, 0x01, 0, 0, 0, 0, __LINE__ },
	/* formats.md §3.3 and tma-formulas.md §2.2 (topdown-slots-retired): 0xC2/0x02 */
	{ "UOPS_RETIRED.RETIRE_SLOTS", "UOPS_RETIRED:RETIRE_SLOTS", 0xc2, 0x02, 0, 0, 0, 0, __LINE__ },
	/*
	 * perf's skylake/pipeline.json: EventCode 0x0D, UMask 0x1, no CounterMask.
	 * formats.md §3.3 writes "cmask 1": that is the SNB-HSW encoding behind the
	 * kernel's topdown-recovery-bubbles (tma-formulas.md §2.2), not Skylake's.
	 */
	{ "INT_MISC.RECOVERY_CYCLES", "INT_MISC:RECOVERY_CYCLES", 0x0d, 0x01, 0, 0, 0, 0, __LINE__ },
	/* c=1 puts cmask 1 in bits 24-31 */
	{ "INT_MISC.RECOVERY_CYCLES:c=1", "INT_MISC:RECOVERY_CYCLES:c=1", 0x0d, 0x01, 1, 0, 0, 0, __LINE__ },
	/* formats.md §3.3: "_ANY adds any=1" */
	{ "INT_MISC.RECOVERY_CYCLES_ANY", "INT_MISC:RECOVERY_CYCLES_ANY", 0x0d, 0x01, 0, 0, 0, 1, __LINE__ },
	/* formats.md §3.3 "fixed/0x3C"; SDM architectural UnHalted Core Cycles 3CH/00H */
	{ "CPU_CLK_UNHALTED.THREAD", "CPU_CLK_THREAD_UNHALTED:THREAD_P", 0x3c, 0x00, 0, 0, 0, 0, __LINE__ },
	/* the same with AnyThread (bit 21) */
	{ "CPU_CLK_UNHALTED.THREAD_ANY", "CPU_CLK_THREAD_UNHALTED:THREAD_P:t=1", 0x3c, 0x00, 0, 0, 0, 1, __LINE__ },
	/* SDM architectural Branch Misses Retired C5H/00H */
	{ "BR_MISP_RETIRED.ALL_BRANCHES", "BR_MISP_RETIRED:ALL_BRANCHES", 0xc5, 0x00, 0, 0, 0, 0, __LINE__ },
	/* perf's skylake/pipeline.json: C3H/01H, CounterMask 1, EdgeDetect 1 */
	{ "MACHINE_CLEARS.COUNT", "MACHINE_CLEARS:COUNT", 0xc3, 0x01, 1, 1, 0, 0, __LINE__ },
	/* SDM architectural Instructions Retired C0H/00H */
	{ "INST_RETIRED.ANY", "INST_RETIRED:ANY_P", 0xc0, 0x00, 0, 0, 0, 0, __LINE__ },
};

/* Ice Lake (libpfm4 "icl"). */
static const struct row icl_rows[] = {
	/* tma-formulas.md §2.2: slots = event=0x00,umask=0x4 (fixed counter 3) */
	{ "TOPDOWN.SLOTS", "TOPDOWN:SLOTS", 0x00, 0x04, 0, 0, 0, 0, __LINE__ },
	/* perf's icelake/pipeline.json: INT_MISC.UOP_DROPPING 0x0D/0x10 */
	{ "INT_MISC.UOP_DROPPING", "INT_MISC:UOP_DROPPING", 0x0d, 0x10, 0, 0, 0, 0, __LINE__ },
	/* tma-formulas.md §2.4.2: cpu@INT_MISC.RECOVERY_CYCLES\,cmask\=1\,edge@ (0x0D/0x01) */
	{ "INT_MISC.RECOVERY_CYCLES:c=1:e", "INT_MISC:RECOVERY_CYCLES:c=1:e", 0x0d, 0x01, 1, 1, 0, 0, __LINE__ },
	/* ... which is INT_MISC.CLEARS_COUNT, "the same event ... with cmask=1,edge" */
	{ "int_misc.clears_count", "INT_MISC:CLEARS_COUNT", 0x0d, 0x01, 1, 1, 0, 0, __LINE__ },
	/* SDM architectural UnHalted Core Cycles 3CH/00H */
	{ "CPU_CLK_UNHALTED.THREAD", "CPU_CLK_UNHALTED:THREAD_P", 0x3c, 0x00, 0, 0, 0, 0, __LINE__ },
	{ "BR_MISP_RETIRED.ALL_BRANCHES", "BR_MISP_RETIRED:ALL_BRANCHES", 0xc5, 0x00, 0, 0, 0, 0, __LINE__ },
};

/* AMD Zen 4 (libpfm4 "amd64_fam19h_zen4"): perf's names, encodings from tma-formulas.md §2.4.3. */
static const struct row zen4_rows[] = {
	{ "de_no_dispatch_per_slot.no_ops_from_frontend", "DISPATCH_STALLS_1:FE_NO_OPS", 0x1a0, 0x01, 0, 0, 0, 0,
	  __LINE__ },
	{ "de_no_dispatch_per_slot.backend_stalls", "DISPATCH_STALLS_1:BE_STALLS", 0x1a0, 0x1e, 0, 0, 0, 0, __LINE__ },
	{ "de_no_dispatch_per_slot.smt_contention", "DISPATCH_STALLS_1:SMT_CONTENTION", 0x1a0, 0x60, 0, 0, 0, 0,
	  __LINE__ },
	/* PipelineL2 frontend latency: cpu@de_no_dispatch_per_slot.no_ops_from_frontend\,cmask\=0x6@ */
	{ "de_no_dispatch_per_slot.no_ops_from_frontend:c=6", "DISPATCH_STALLS_1:FE_NO_OPS:c=6", 0x1a0, 0x01, 6, 0, 0,
	  0, __LINE__ },
	{ "de_src_op_disp.all", "OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:LOOP_BUFFER", 0xaa, 0x07, 0, 0, 0,
	  0, __LINE__ },
	{ "ex_ret_ops", "RETIRED_OPS", 0xc1, 0x00, 0, 0, 0, 0, __LINE__ },
	{ "ls_not_halted_cyc", "CYCLES_NOT_IN_HALT", 0x76, 0x00, 0, 0, 0, 0, __LINE__ },
	/* AMD PPR 19h: PMCx0C3 Retired Branch Instructions Mispredicted */
	{ "ex_ret_brn_misp", "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED", 0xc3, 0x00, 0, 0, 0, 0, __LINE__ },
	{ "ex_no_retire.not_complete", "CYCLES_NO_RETIRE:NOT_COMPLETE_LOAD_AND_ALU", 0xd6, 0x02, 0, 0, 0, 0, __LINE__ },
	{ "ex_no_retire.load_not_complete", "CYCLES_NO_RETIRE:NOT_COMPLETE_MISSING_LOAD", 0xd6, 0xa2, 0, 0, 0, 0,
	  __LINE__ },
	{ "ex_ret_ucode_ops", "RETIRED_UCODE_OPS", 0x1c2, 0x00, 0, 0, 0, 0, __LINE__ },
	{ "resyncs_or_nc_redirects", "RESYNCS", 0x96, 0x00, 0, 0, 0, 0, __LINE__ },
	/* libpfm4's own names work too, in any case */
	{ "dispatch_stalls_1.fe_no_ops", "DISPATCH_STALLS_1:FE_NO_OPS", 0x1a0, 0x01, 0, 0, 0, 0, __LINE__ },
};

/* Neoverse N2: Arm event numbers, tma-formulas.md §2.4.4 ("Event codes (Arm spec)"). */
static const struct row n2_rows[] = {
	{ "CPU_CYCLES", "CPU_CYCLES", 0x11, 0, 0, 0, 0, 0, __LINE__ },
	{ "BR_MIS_PRED", "BR_MIS_PRED", 0x10, 0, 0, 0, 0, 0, __LINE__ },
	{ "STALL_FRONTEND", "STALL_FRONTEND", 0x23, 0, 0, 0, 0, 0, __LINE__ },
	{ "STALL_BACKEND", "STALL_BACKEND", 0x24, 0, 0, 0, 0, 0, __LINE__ },
	{ "OP_RETIRED", "OP_RETIRED", 0x3a, 0, 0, 0, 0, 0, __LINE__ },
	{ "OP_SPEC", "OP_SPEC", 0x3b, 0, 0, 0, 0, 0, __LINE__ },
	{ "STALL_SLOT_BACKEND", "STALL_SLOT_BACKEND", 0x3d, 0, 0, 0, 0, 0, __LINE__ },
	{ "STALL_SLOT_FRONTEND", "STALL_SLOT_FRONTEND", 0x3e, 0, 0, 0, 0, 0, __LINE__ },
	{ "STALL_SLOT", "STALL_SLOT", 0x3f, 0, 0, 0, 0, 0, __LINE__ },
};

struct cpu_case {
	const char *arg;
	const char *force; /* LIBPFM_FORCE_PMU */
	enum layout layout;
	const struct row *rows;
	size_t nr;
	const char *typo, *suggestion;       /* an unknown name and what must be suggested */
	const char *bad_attr, *attr_event;   /* a rejected attribute and its event */
};

static const struct cpu_case cases[] = {
	{ "skylake", "skl", INTEL, skl_rows, ARRAY_SIZE(skl_rows), "INT_MISC.RECOVERY_CYCLS",
	  "'INT_MISC.RECOVERY_CYCLES'", "INT_MISC:RECOVERY_CYCLES:c=999", "INT_MISC" },
	{ "icelake", "icl", INTEL, icl_rows, ARRAY_SIZE(icl_rows), "TOPDOWN.SLOT", "'TOPDOWN.SLOTS'",
	  "INT_MISC:RECOVERY_CYCLES:c=999", "INT_MISC" },
	{ "zen4", "amd64_fam19h_zen4", AMD, zen4_rows, ARRAY_SIZE(zen4_rows), "ex_ret_opps", "'ex_ret_ops'",
	  "RETIRED_OPS:c=999", "RETIRED_OPS" },
	{ "neoverse-n2", "arm_n2", ARM, n2_rows, ARRAY_SIZE(n2_rows), "STALL_SLOTS", "'stall_slot'", NULL, NULL },
};

static const struct cpu_case *cur;
static struct fake_sysfs fake;

/* The documented fields as the vendor's event-select register. */
static uint64_t layout_config(const struct row *r)
{
	uint64_t c = (uint64_t)(r->event & 0xff) | (uint64_t)r->umask << 8 | (uint64_t)r->edge << 18 |
		     (uint64_t)r->any << 21 | (uint64_t)r->inv << 23 | (uint64_t)r->cmask << 24;

	if (cur->layout == ARM)
		return r->event;
	if (cur->layout == AMD)
		c |= (uint64_t)(r->event >> 8 & 0xf) << 32;
	return c;
}

static bool pfm_has_forced_pmu(void)
{
	pfm_pmu_t p;

	pfm_for_all_pmus(p)
	{
		pfm_pmu_info_t info;

		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info(p, &info) == PFM_SUCCESS && info.is_present && !strcmp(info.name, cur->force))
			return true;
	}
	return false;
}

static int pfm_encode(const char *name, struct perf_event_attr *attr)
{
	union {
		struct perf_event_attr attr;
		unsigned char room[512];
	} u;
	pfm_perf_encode_arg_t arg;
	int ret;

	memset(&u, 0, sizeof(u));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &u.attr;
	arg.size = sizeof(arg);
	ret = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3 | PFM_PLMH, PFM_OS_PERF_EVENT_EXT, &arg);
	*attr = u.attr;
	return ret;
}

static int parse_one(const char *spec, const char *root, bool libpfm, struct pmu_event_list *l, struct tdp_err *err)
{
	struct pmu_env env = { root, libpfm };

	return pmu_event_list_parse(l, spec, &env, err);
}

/* (a) and (b): through libpfm4 (sysfs out of the way) */
static void test_libpfm_equal(void **state)
{
	(void)state;
	/* our parser initialises libpfm4 (with LIBPFM_FORCE_PMU) on the first libpfm name */
	{
		struct pmu_event_list l = PMU_EVENT_LIST_INIT;
		struct tdp_err err = TDP_ERR_INIT;
		int ret = parse_one(cur->rows[0].spec, "/nonexistent-sysfs", true, &l, &err);

		pmu_event_list_release(&l);
		if (!pfm_has_forced_pmu()) {
			/* libpfm4 detects nothing usable: the names fail cleanly */
			assert_int_equal(ret, TDP_ENOENT);
			assert_non_null(strstr(err.msg, "is not known on this machine"));
			print_message("libpfm4 on this build has no '%s' PMU (its Arm tables exist only in arm64 "
				      "builds): compared with the documented codes and sysfs aliases only\n",
				      cur->force);
			skip();
		}
	}
	for (size_t i = 0; i < cur->nr; i++) {
		const struct row *r = &cur->rows[i];
		struct pmu_event_list l = PMU_EVENT_LIST_INIT;
		struct tdp_err err = TDP_ERR_INIT;
		struct perf_event_attr theirs;
		const struct perf_event_attr *ours;
		int pr;

		if (parse_one(r->spec, "/nonexistent-sysfs", true, &l, &err) || l.nr != 1)
			fail_msg("line %d: '%s': %s (%s)", r->line, r->spec, err.msg, err.hint);
		ours = &l.v[0].attr;
		pr = pfm_encode(r->pfm, &theirs);
		if (pr != PFM_SUCCESS)
			fail_msg("line %d: libpfm4 cannot encode '%s': %s", r->line, r->pfm, pfm_strerror(pr));
		if (ours->type != theirs.type || ours->config != theirs.config || ours->config1 != theirs.config1 ||
		    ours->exclude_user != theirs.exclude_user || ours->exclude_kernel != theirs.exclude_kernel ||
		    ours->exclude_hv != theirs.exclude_hv || ours->exclude_guest != theirs.exclude_guest)
			fail_msg("line %d: '%s' gives type %u config 0x%llx, libpfm4's '%s' type %u config 0x%llx",
				 r->line, r->spec, ours->type, (unsigned long long)ours->config, r->pfm, theirs.type,
				 (unsigned long long)theirs.config);
		if (ours->config != layout_config(r))
			fail_msg("line %d: '%s' gives config 0x%llx, the documented fields make 0x%llx", r->line,
				 r->spec, (unsigned long long)ours->config, (unsigned long long)layout_config(r));
		assert_int_equal(ours->type, PERF_TYPE_RAW);
		assert_int_equal(l.v[0].source, PMU_EV_LIBPFM);
		assert_string_equal(l.v[0].pmu, "cpu");
		assert_true(l.v[0].is_hardware);
		assert_int_equal(ours->size, sizeof(struct perf_event_attr));
		pmu_event_list_release(&l);
	}
}

/* (c): the documented fields as sysfs terms (Intel/AMD) or the kernel's aliases (Arm) */
static void test_sysfs_equal(void **state)
{
	(void)state;
	for (size_t i = 0; i < cur->nr; i++) {
		const struct row *r = &cur->rows[i];
		struct pmu_event_list l = PMU_EVENT_LIST_INIT;
		struct tdp_err err = TDP_ERR_INIT;
		char spec[256];

		if (cur->layout == ARM)
			snprintf(spec, sizeof(spec), "%s", r->spec); /* a bare alias of the core PMU */
		else
			snprintf(spec, sizeof(spec), "cpu/event=0x%x,umask=0x%x,cmask=%u,edge=%d,inv=%d%s/", r->event,
				 r->umask, r->cmask, r->edge, r->inv, cur->layout == INTEL && r->any ? ",any" : "");
		if (parse_one(spec, fake.root, false, &l, &err) || l.nr != 1)
			fail_msg("line %d: '%s': %s (%s)", r->line, spec, err.msg, err.hint);
		if (l.v[0].attr.config != layout_config(r))
			fail_msg("line %d: '%s' gives config 0x%llx, the documented fields make 0x%llx", r->line, spec,
				 (unsigned long long)l.v[0].attr.config, (unsigned long long)layout_config(r));
		assert_int_equal(l.v[0].source, PMU_EV_SYSFS);
		pmu_event_list_release(&l);
	}
}

static void test_spellings_and_modifiers(void **state)
{
	struct pmu_event_list l = PMU_EVENT_LIST_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	const struct row *r = &cur->rows[0];
	char spec[512];
	uint64_t want;

	(void)state;
	if (!pfm_has_forced_pmu())
		skip();
	want = layout_config(r);
	/* the same event: lower case, ':' for '.', perf's u, pp and a group with :k */
	snprintf(spec, sizeof(spec), "%s:u,%s:pp,{%s,%s}:k", r->spec, r->spec, r->spec, r->spec);
	for (char *p = spec; *p && *p != ','; p++)
		*p = (char)(*p == '.' ? ':' : *p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
	if (parse_one(spec, "/nonexistent-sysfs", true, &l, &err))
		fail_msg("'%s': %s (%s)", spec, err.msg, err.hint);
	assert_int_equal(l.nr, 4);
	for (size_t i = 0; i < l.nr; i++)
		assert_true(l.v[i].attr.config == want);
	/* :u through libpfm4 or perf: kernel and hypervisor excluded */
	assert_int_equal(l.v[0].attr.exclude_kernel, 1);
	assert_int_equal(l.v[0].attr.exclude_hv, 1);
	assert_int_equal(l.v[0].attr.exclude_user, 0);
	assert_int_equal(l.v[1].attr.precise_ip, 2);
	assert_int_equal(l.v[2].group, 0);
	assert_true(l.v[2].leader);
	assert_int_equal(l.v[3].attr.exclude_user, 1);
	assert_int_equal(l.v[3].attr.exclude_kernel, 0);
	pmu_event_list_release(&l);
}

static void test_unknown_and_bad_attribute(void **state)
{
	struct pmu_event_list l = PMU_EVENT_LIST_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	char want[256];
	/* the Arm names come from the fake sysfs aliases */
	const char *root = cur->layout == ARM ? fake.root : "/nonexistent-sysfs";

	(void)state;
	assert_int_equal(parse_one(cur->typo, root, true, &l, &err), TDP_ENOENT);
	snprintf(want, sizeof(want), "event '%s' is not known on this machine", cur->typo);
	assert_string_equal(err.msg, want);
	if (!strstr(err.hint, cur->suggestion))
		fail_msg("'%s': hint '%s' does not suggest %s", cur->typo, err.hint, cur->suggestion);
	if (!cur->bad_attr)
		return;
	tdp_err_clear(&err);
	assert_int_equal(parse_one(cur->bad_attr, root, true, &l, &err), TDP_EUSAGE);
	snprintf(want, sizeof(want), "cannot encode event '%s': ", cur->bad_attr);
	assert_true(strncmp(err.msg, want, strlen(want)) == 0);
	assert_non_null(strstr(err.msg, "(libpfm4)"));
	snprintf(want, sizeof(want), "attributes of '%s': ", cur->attr_event);
	if (strncmp(err.hint, want, strlen(want)))
		fail_msg("hint '%s'", err.hint);
	assert_int_equal(l.nr, 0);
	pmu_event_list_release(&l);
}

static void test_known_names(void **state)
{
	struct pmu_event_desc_list known = PMU_EVENT_DESC_LIST_INIT;
	struct pmu_env env = { "/nonexistent-sysfs", true };
	bool found = false;

	(void)state;
	if (!pfm_has_forced_pmu())
		skip();
	assert_int_equal(pmu_event_known(&known, &env, NULL), 0);
	/* every row's name (or its EVENT.UMASK form) is listed under the libpfm4 PMU */
	for (size_t i = 0; i < known.nr; i++) {
		if (known.v[i].source != PMU_EV_LIBPFM)
			continue;
		assert_string_equal(known.v[i].pmu, cur->force);
		found |= !strcasecmp(known.v[i].name, cur->rows[0].spec);
	}
	assert_true(found);
	pmu_event_desc_list_release(&known);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libpfm_equal),
		cmocka_unit_test(test_sysfs_equal),
		cmocka_unit_test(test_spellings_and_modifiers),
		cmocka_unit_test(test_unknown_and_bad_attribute),
		cmocka_unit_test(test_known_names),
	};
	int ret;

	for (size_t i = 0; argc == 2 && i < ARRAY_SIZE(cases); i++)
		if (!strcmp(argv[1], cases[i].arg))
			cur = &cases[i];
	if (!cur) {
		fprintf(stderr, "usage: %s skylake|icelake|zen4|neoverse-n2\n", argv[0]);
		return 2;
	}
	/* before the first parse: libpfm4 reads it in pfm_initialize() */
	setenv("LIBPFM_FORCE_PMU", cur->force, 1);
	fake_init(&fake);
	if (cur->layout == INTEL)
		fake_intel(&fake);
	else if (cur->layout == AMD)
		fake_amd(&fake);
	else
		fake_arm(&fake);
	ret = cmocka_run_group_tests_name(cur->arg, tests, NULL, NULL);
	fake_free(&fake);
	return ret;
}
