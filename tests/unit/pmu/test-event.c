/*
 * Unit tests of pmu/event: generic, cache and software names, raw events,
 * modifiers, groups, syntax errors, suggestions, limits, describe, and every
 * allocation failure. Expected encodings come from <linux/perf_event.h> and from
 * what perf 6.1 sets (`perf stat -vv` on this VM, quoted where used).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/str.h"
#include "pmu/event.h"

#include "test-event-fake.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define CACHE(t, op, res) \
	((uint64_t)PERF_COUNT_HW_CACHE_##t | (uint64_t)PERF_COUNT_HW_CACHE_OP_##op << 8 | \
	 (uint64_t)PERF_COUNT_HW_CACHE_RESULT_##res << 16)

/* No sysfs and no libpfm4: only the built-in names can resolve. */
static const struct pmu_env no_env = { "/nonexistent-sysfs", false };

struct name_row {
	const char *spec;
	uint32_t type;
	uint64_t config;
	int line;
};

static const struct name_row names[] = {
	/* PERF_TYPE_HARDWARE, perf's spellings and aliases (parse-events.l) */
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, __LINE__ },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, __LINE__ },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, __LINE__ },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, __LINE__ },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, __LINE__ },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, __LINE__ },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, __LINE__ },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, __LINE__ },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, __LINE__ },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, __LINE__ },
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, __LINE__ },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, __LINE__ },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, __LINE__ },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, __LINE__ },
	{ "CYCLES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, __LINE__ },

	/* PERF_TYPE_SOFTWARE */
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, __LINE__ },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, __LINE__ },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, __LINE__ },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, __LINE__ },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, __LINE__ },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, __LINE__ },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, __LINE__ },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, __LINE__ },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, __LINE__ },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, __LINE__ },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, __LINE__ },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, __LINE__ },
	{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, __LINE__ },
	{ "bpf-output", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT, __LINE__ },
	{ "cgroup-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES, __LINE__ },

	/* PERF_TYPE_HW_CACHE: config = id | op << 8 | result << 16 (perf_event.h) */
	{ "L1-dcache-loads", PERF_TYPE_HW_CACHE, CACHE(L1D, READ, ACCESS), __LINE__ },
	{ "L1-dcache-load-misses", PERF_TYPE_HW_CACHE, CACHE(L1D, READ, MISS), __LINE__ },
	{ "L1-dcache-stores", PERF_TYPE_HW_CACHE, CACHE(L1D, WRITE, ACCESS), __LINE__ },
	{ "L1-dcache-store-misses", PERF_TYPE_HW_CACHE, CACHE(L1D, WRITE, MISS), __LINE__ },
	{ "L1-dcache-prefetches", PERF_TYPE_HW_CACHE, CACHE(L1D, PREFETCH, ACCESS), __LINE__ },
	{ "L1-dcache-prefetch-misses", PERF_TYPE_HW_CACHE, CACHE(L1D, PREFETCH, MISS), __LINE__ },
	{ "L1-icache-loads", PERF_TYPE_HW_CACHE, CACHE(L1I, READ, ACCESS), __LINE__ },
	{ "L1-icache-load-misses", PERF_TYPE_HW_CACHE, CACHE(L1I, READ, MISS), __LINE__ },
	{ "L1-icache-prefetches", PERF_TYPE_HW_CACHE, CACHE(L1I, PREFETCH, ACCESS), __LINE__ },
	{ "LLC-loads", PERF_TYPE_HW_CACHE, CACHE(LL, READ, ACCESS), __LINE__ },
	{ "LLC-load-misses", PERF_TYPE_HW_CACHE, CACHE(LL, READ, MISS), __LINE__ },
	{ "LLC-stores", PERF_TYPE_HW_CACHE, CACHE(LL, WRITE, ACCESS), __LINE__ },
	{ "LLC-store-misses", PERF_TYPE_HW_CACHE, CACHE(LL, WRITE, MISS), __LINE__ },
	{ "LLC-prefetches", PERF_TYPE_HW_CACHE, CACHE(LL, PREFETCH, ACCESS), __LINE__ },
	{ "LLC-prefetch-misses", PERF_TYPE_HW_CACHE, CACHE(LL, PREFETCH, MISS), __LINE__ },
	{ "dTLB-loads", PERF_TYPE_HW_CACHE, CACHE(DTLB, READ, ACCESS), __LINE__ },
	{ "dTLB-load-misses", PERF_TYPE_HW_CACHE, CACHE(DTLB, READ, MISS), __LINE__ },
	{ "dTLB-stores", PERF_TYPE_HW_CACHE, CACHE(DTLB, WRITE, ACCESS), __LINE__ },
	{ "dTLB-store-misses", PERF_TYPE_HW_CACHE, CACHE(DTLB, WRITE, MISS), __LINE__ },
	{ "dTLB-prefetch-misses", PERF_TYPE_HW_CACHE, CACHE(DTLB, PREFETCH, MISS), __LINE__ },
	{ "iTLB-loads", PERF_TYPE_HW_CACHE, CACHE(ITLB, READ, ACCESS), __LINE__ },
	{ "iTLB-load-misses", PERF_TYPE_HW_CACHE, CACHE(ITLB, READ, MISS), __LINE__ },
	{ "branch-loads", PERF_TYPE_HW_CACHE, CACHE(BPU, READ, ACCESS), __LINE__ },
	{ "branch-load-misses", PERF_TYPE_HW_CACHE, CACHE(BPU, READ, MISS), __LINE__ },
	{ "node-loads", PERF_TYPE_HW_CACHE, CACHE(NODE, READ, ACCESS), __LINE__ },
	{ "node-load-misses", PERF_TYPE_HW_CACHE, CACHE(NODE, READ, MISS), __LINE__ },
	{ "node-stores", PERF_TYPE_HW_CACHE, CACHE(NODE, WRITE, ACCESS), __LINE__ },
	{ "node-store-misses", PERF_TYPE_HW_CACHE, CACHE(NODE, WRITE, MISS), __LINE__ },
	{ "node-prefetches", PERF_TYPE_HW_CACHE, CACHE(NODE, PREFETCH, ACCESS), __LINE__ },
	{ "node-prefetch-misses", PERF_TYPE_HW_CACHE, CACHE(NODE, PREFETCH, MISS), __LINE__ },
	/* perf's other spellings: type alone (read, access), type-result (read), aliases */
	{ "LLC-misses", PERF_TYPE_HW_CACHE, CACHE(LL, READ, MISS), __LINE__ },
	{ "L1-dcache", PERF_TYPE_HW_CACHE, CACHE(L1D, READ, ACCESS), __LINE__ },
	{ "l1d-loads", PERF_TYPE_HW_CACHE, CACHE(L1D, READ, ACCESS), __LINE__ },
	{ "L1-data-write-miss", PERF_TYPE_HW_CACHE, CACHE(L1D, WRITE, MISS), __LINE__ },
	{ "l1i-load-miss", PERF_TYPE_HW_CACHE, CACHE(L1I, READ, MISS), __LINE__ },
	{ "L2-loads", PERF_TYPE_HW_CACHE, CACHE(LL, READ, ACCESS), __LINE__ },
	{ "d-tlb-speculative-read-misses", PERF_TYPE_HW_CACHE, CACHE(DTLB, PREFETCH, MISS), __LINE__ },
	{ "Instruction-TLB-refs", PERF_TYPE_HW_CACHE, CACHE(ITLB, READ, ACCESS), __LINE__ },
	{ "bpu-load-misses", PERF_TYPE_HW_CACHE, CACHE(BPU, READ, MISS), __LINE__ },
	{ "llc-LOADS", PERF_TYPE_HW_CACHE, CACHE(LL, READ, ACCESS), __LINE__ },
};

static void test_generic_names(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		const struct name_row *r = &names[i];
		struct pmu_event_list l = PMU_EVENT_LIST_INIT;
		struct tdp_err err = TDP_ERR_INIT;
		const struct pmu_event *ev;
		bool sw = r->type == PERF_TYPE_SOFTWARE;
		bool clock = sw && (r->config == PERF_COUNT_SW_CPU_CLOCK || r->config == PERF_COUNT_SW_TASK_CLOCK);
		int ret = pmu_event_list_parse(&l, r->spec, &no_env, &err);

		if (ret || l.nr != 1 || l.v[0].attr.type != r->type || l.v[0].attr.config != r->config)
			fail_msg("line %d: '%s': ret %d (%s) nr %zu type %u config 0x%llx", r->line, r->spec, ret,
				 err.msg, l.nr, l.nr ? l.v[0].attr.type : 0,
				 l.nr ? (unsigned long long)l.v[0].attr.config : 0ull);
		ev = &l.v[0];
		assert_string_equal(ev->name, r->spec);
		assert_int_equal(ev->attr.size, sizeof(struct perf_event_attr));
		assert_int_equal(ev->source, sw ? PMU_EV_SOFTWARE : PMU_EV_GENERIC);
		assert_int_equal(ev->is_hardware, !sw);
		assert_string_equal(ev->pmu, sw ? "software" : "cpu");
		assert_int_equal(ev->group, -1);
		/* perf 6.1 -vv, plain task-clock: only "exclude_guest 1" among the exclude bits */
		assert_int_equal(ev->attr.exclude_guest, 1);
		assert_int_equal(ev->attr.exclude_user + ev->attr.exclude_kernel + ev->attr.exclude_hv, 0);
		assert_int_equal(ev->attr.precise_ip, 0);
		assert_string_equal(ev->unit, clock ? "msec" : "");
		assert_true(ev->scale == (clock ? 1e-6 : 1.0));
		pmu_event_list_release(&l);
	}
}

static void test_invalid_names(void **state)
{
	/* cache types without that operation (perf's evsel__hw_cache_stat), bad orders, junk */
	static const char *const bad[] = {
		"iTLB-stores", "L1-icache-stores", "branch-prefetches", "branch-stores", "LLC-misses-loads",
		"L1-dcache-load-misses-x", "L1-dcache-", "L1-dcachex", "cycles2", "cycle", "-cycles", "r",
		"rxyz", "r12345678901234567", "task_clock",
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct pmu_event_list l = PMU_EVENT_LIST_INIT;
		struct tdp_err err = TDP_ERR_INIT;
		int ret = pmu_event_list_parse(&l, bad[i], &no_env, &err);

		if (ret != TDP_ENOENT)
			fail_msg("'%s': expected TDP_ENOENT, got %d (%s)", bad[i], ret, err.msg);
		assert_int_equal(l.nr, 0);
		pmu_event_list_release(&l);
	}
}

struct raw_row {
	const char *spec;
	uint64_t config;
	int line;
};

static void test_raw(void **state)
{
	static const struct raw_row rows[] = {
		{ "r1a8", 0x1a8, __LINE__ },
		{ "r0x1a8", 0x1a8, __LINE__ },
		{ "rC0", 0xc0, __LINE__ },
		{ "r5300c0", 0x5300c0, __LINE__ },
		{ "rffffffffffffffff", UINT64_MAX, __LINE__ },
		{ "r1000001a0:u", 0x1000001a0, __LINE__ },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct pmu_event_list l = PMU_EVENT_LIST_INIT;
		struct tdp_err err = TDP_ERR_INIT;

		if (pmu_event_list_parse(&l, rows[i].spec, &no_env, &err) || l.v[0].attr.config != rows[i].config)
			fail_msg("line %d: '%s': %s", rows[i].line, rows[i].spec, err.msg);
		assert_int_equal(l.v[0].attr.type, PERF_TYPE_RAW);
		assert_int_equal(l.v[0].source, PMU_EV_RAW);
		assert_true(l.v[0].is_hardware);
		assert_string_equal(l.v[0].pmu, "cpu");
		pmu_event_list_release(&l);
	}
}

struct mod_row {
	const char *spec;
	int ret;
	unsigned eu, ek, eh, eG, eH, precise, pinned, idle, flags;
	int line;
};

/*
 * Expected bits: perf 6.1 on this VM (`perf stat -vv`): cycles:u sets exclude_kernel,
 * exclude_hv, exclude_guest; {page-faults,cs}:k sets exclude_user, exclude_hv,
 * exclude_guest; instructions:pp sets precise_ip 2, exclude_guest. The others
 * follow perf's rules in parse-events.c (each listed level counted again; G/H
 * start from excluding both).
 */
static const struct mod_row mods[] = {
	{ "cycles", 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, __LINE__ },
	{ "cycles:u", 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, __LINE__ },
	{ "cycles:k", 0, 1, 0, 1, 1, 0, 0, 0, 0, 0, __LINE__ },
	{ "cycles:h", 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, __LINE__ },
	{ "cycles:uk", 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, __LINE__ },
	{ "cycles:ukh", 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, __LINE__ },
	{ "cycles:G", 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, __LINE__ },
	{ "cycles:H", 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, __LINE__ },
	{ "cycles:GH", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, __LINE__ },
	{ "cycles:uG", 0, 0, 1, 1, 0, 1, 0, 0, 0, 0, __LINE__ },
	{ "cycles:Gu", 0, 0, 1, 1, 0, 1, 0, 0, 0, 0, __LINE__ },
	{ "cycles:p", 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, __LINE__ },
	{ "instructions:pp", 0, 0, 0, 0, 1, 0, 2, 0, 0, 0, __LINE__ },
	{ "cycles:ppp", 0, 0, 0, 0, 1, 0, 3, 0, 0, 0, __LINE__ },
	{ "cycles:upp", 0, 0, 1, 1, 1, 0, 2, 0, 0, 0, __LINE__ },
	{ "cycles:pppp", TDP_EUSAGE, 0, 0, 0, 0, 0, 0, 0, 0, 0, __LINE__ },
	{ "cycles:D", 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, __LINE__ },
	{ "cycles:I", 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, __LINE__ },
	{ "cycles:S", 0, 0, 0, 0, 1, 0, 0, 0, 0, PMU_EVF_SAMPLE_READ, __LINE__ },
	{ "cycles:W", 0, 0, 0, 0, 1, 0, 0, 0, 0, PMU_EVF_WEAK, __LINE__ },
	{ "cycles:P", 0, 0, 0, 0, 1, 0, 0, 0, 0, PMU_EVF_PRECISE_MAX, __LINE__ },
	{ "task-clock:u", 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, __LINE__ },
	{ "page-faults:k", 0, 1, 0, 1, 1, 0, 0, 0, 0, 0, __LINE__ },
	{ "L1-dcache-load-misses:k", 0, 1, 0, 1, 1, 0, 0, 0, 0, 0, __LINE__ },
	{ "cycles:x", TDP_EUSAGE, 0, 0, 0, 0, 0, 0, 0, 0, 0, __LINE__ },
	{ "cycles:", TDP_EUSAGE, 0, 0, 0, 0, 0, 0, 0, 0, 0, __LINE__ },
	{ "cycles:u:k", TDP_EUSAGE, 0, 0, 0, 0, 0, 0, 0, 0, 0, __LINE__ },
};

static void test_modifiers(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(mods); i++) {
		const struct mod_row *r = &mods[i];
		struct pmu_event_list l = PMU_EVENT_LIST_INIT;
		struct tdp_err err = TDP_ERR_INIT;
		int ret = pmu_event_list_parse(&l, r->spec, &no_env, &err);
		const struct perf_event_attr *a;

		if (ret != r->ret)
			fail_msg("line %d: '%s': expected %d, got %d (%s)", r->line, r->spec, r->ret, ret, err.msg);
		if (ret) {
			assert_int_equal(l.nr, 0);
			assert_non_null(strstr(err.msg, r->spec));
			continue;
		}
		a = &l.v[0].attr;
		if (a->exclude_user != r->eu || a->exclude_kernel != r->ek || a->exclude_hv != r->eh ||
		    a->exclude_guest != r->eG || a->exclude_host != r->eH || a->precise_ip != r->precise ||
		    a->pinned != r->pinned || a->exclude_idle != r->idle || l.v[0].flags != r->flags)
			fail_msg("line %d: '%s': u%u k%u h%u G%u H%u p%u D%u I%u flags %u", r->line, r->spec,
				 (unsigned)a->exclude_user, (unsigned)a->exclude_kernel, (unsigned)a->exclude_hv,
				 (unsigned)a->exclude_guest, (unsigned)a->exclude_host, (unsigned)a->precise_ip,
				 (unsigned)a->pinned, (unsigned)a->exclude_idle, l.v[0].flags);
		assert_string_equal(l.v[0].name, r->spec);
		pmu_event_list_release(&l);
	}
}

static void test_groups(void **state)
{
	static const struct {
		const char *name;
		int group;
		bool leader;
		unsigned eu, ek;
	} want[] = {
		{ "cycles", 0, true, 0, 0 },       { "instructions", 0, false, 0, 0 },
		{ "branches", -1, false, 0, 0 },   { "task-clock:u", 1, true, 0, 1 },
		{ "page-faults:u", 1, false, 0, 1 }, { "cycles:k", 2, true, 1, 0 },
		{ "cs", 2, false, 0, 0 },
	};
	struct pmu_event_list l = PMU_EVENT_LIST_INIT;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	assert_int_equal(pmu_event_list_parse(&l, "{cycles,instructions},branches, { task-clock , page-faults }:u",
					      &no_env, &err),
			 0);
	/* a second list appended to the first continues the group numbers */
	assert_int_equal(pmu_event_list_parse(&l, "{cycles:k,cs}", &no_env, &err), 0);
	assert_int_equal(pmu_event_list_parse(&l, "", &no_env, &err), TDP_EUSAGE);
	assert_int_equal(l.nr, ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		assert_string_equal(l.v[i].name, want[i].name);
		assert_int_equal(l.v[i].group, want[i].group);
		assert_int_equal(l.v[i].leader, want[i].leader);
		assert_int_equal(l.v[i].attr.exclude_user, want[i].eu);
		assert_int_equal(l.v[i].attr.exclude_kernel, want[i].ek);
	}
	pmu_event_list_release(&l);
	assert_null(l.v);
	assert_int_equal(l.nr, 0);

	/* group modifiers on top of a member's own: k then u counts both levels */
	assert_int_equal(pmu_event_list_parse(&l, "{cycles:k,instructions}:u", &no_env, &err), 0);
	assert_string_equal(l.v[0].name, "cycles:ku");
	assert_int_equal(l.v[0].attr.exclude_user, 0);
	assert_int_equal(l.v[0].attr.exclude_kernel, 0);
	assert_int_equal(l.v[0].attr.exclude_hv, 1);
	assert_string_equal(l.v[1].name, "instructions:u");
	assert_int_equal(l.v[1].attr.exclude_kernel, 1);
	assert_int_equal(l.v[1].attr.exclude_user, 0);
	pmu_event_list_release(&l);

	/* a failure keeps the events appended before it */
	assert_int_equal(pmu_event_list_parse(&l, "{cycles,instructions}:u,slots", &no_env, &err), TDP_ENOENT);
	assert_int_equal(l.nr, 2);
	assert_string_equal(l.v[1].name, "instructions:u");
	pmu_event_list_release(&l);
}

struct syntax_row {
	const char *spec;
	size_t pos; /* 1-based, as printed */
	const char *what;
	int line;
};

static void test_syntax_errors(void **state)
{
	static const struct syntax_row rows[] = {
		{ "cycles,,instructions", 8, "empty event", __LINE__ },
		{ ",cycles", 1, "empty event", __LINE__ },
		{ "cycles,", 8, "empty event after ','", __LINE__ },
		{ "cycles, ", 9, "empty event after ','", __LINE__ },
		{ "", 1, "empty event list", __LINE__ },
		{ "   ", 4, "empty event list", __LINE__ },
		{ "{cycles,instructions", 1, "missing '}'", __LINE__ },
		{ "{cycles,nosuchevent", 1, "missing '}'", __LINE__ }, /* syntax before names */
		{ "cycles}", 7, "'}' without '{'", __LINE__ },
		{ "{cycles,{instructions}}", 9, "groups cannot nest", __LINE__ },
		{ "cycles{", 7, "unexpected '{'", __LINE__ },
		{ "{}", 2, "empty event", __LINE__ },
		{ "cycles instructions", 8, "expected ','", __LINE__ },
		{ "{cycles} x", 10, "expected ','", __LINE__ },
		{ "{cycles instructions}", 9, "expected ',' or '}'", __LINE__ },
		{ "cycles:x", 8, "unknown modifier", __LINE__ },
		{ "cycles:ux", 9, "unknown modifier", __LINE__ },
		{ "{cycles}:", 10, "missing modifier", __LINE__ },
		{ "{cycles}:q", 10, "unknown modifier", __LINE__ },
		{ "cpu/event=1", 4, "missing closing '/'", __LINE__ },
		{ "cycles,cpu/event=1,umask=2", 11, "missing closing '/'", __LINE__ },
		{ "/event=1/", 1, "missing PMU name", __LINE__ },
		{ "cpu/event=1/x/", 13, "unexpected '/'", __LINE__ },
		{ "cpu/event=1 ,umask=1/", 12, "unexpected space", __LINE__ },
		{ "cycles\x01", 7, "expected ','", __LINE__ },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		const struct syntax_row *r = &rows[i];
		struct pmu_event_list l = PMU_EVENT_LIST_INIT;
		struct tdp_err err = TDP_ERR_INIT;
		char want[600];
		int ret = pmu_event_list_parse(&l, r->spec, &no_env, &err);

		snprintf(want, sizeof(want), "cannot parse event list '%s': %s", r->spec, r->what);
		if (ret != TDP_EUSAGE || strncmp(err.msg, want, strlen(want)))
			fail_msg("line %d: '%s': ret %d, message '%s'", r->line, r->spec, ret, err.msg);
		snprintf(want, sizeof(want), "at position %zu", r->pos);
		if (!str_ends_with(err.msg, want))
			fail_msg("line %d: '%s': message '%s' does not end with '%s'", r->line, r->spec, err.msg, want);
		assert_true(err.hint[0] != '\0');
		pmu_event_list_release(&l);
	}
}

/* perf's event/terms/ on a generic or software event: "cycles/period=1000/" (perf 6.1 takes it too). */
static void test_generic_terms(void **state)
{
	static const struct {
		const char *spec;
		uint32_t type;
		uint64_t config, period, freq;
		const char *name;
		bool exclude_kernel;
		int line;
	} rows[] = {
		{ "cycles/period=1000/", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1000, 0, "cycles/period=1000/",
		  false, __LINE__ },
		{ "cpu-clock/freq=99/", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0, 99, "cpu-clock/freq=99/", false,
		  __LINE__ },
		{ "instructions/period=0x10,name=ins/u", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 16, 0, "ins",
		  true, __LINE__ },
		{ "L1-dcache-load-misses/period=7/:u", PERF_TYPE_HW_CACHE, CACHE(L1D, READ, MISS), 7, 0,
		  "L1-dcache-load-misses/period=7/:u", true, __LINE__ },
	};
	static const struct syntax_row bad[] = {
		{ "cycles/umask=3/", 8, "a named event takes perf's terms period=, freq= and name= only", __LINE__ },
		{ "cycles/period=1000,config=2/", 20, "a named event takes perf's terms", __LINE__ },
		{ "cycles/period=x/", 15, "expected a number", __LINE__ },
		{ "cycles//", 8, "no terms between", __LINE__ },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct pmu_event_list l = PMU_EVENT_LIST_INIT;
		struct tdp_err err = TDP_ERR_INIT;
		const struct perf_event_attr *a;

		if (pmu_event_list_parse(&l, rows[i].spec, &no_env, &err))
			fail_msg("line %d: '%s': %s", rows[i].line, rows[i].spec, err.msg);
		a = &l.v[0].attr;
		assert_int_equal(a->type, rows[i].type);
		assert_int_equal(a->config, rows[i].config);
		assert_int_equal(a->freq, rows[i].freq != 0);
		assert_int_equal(rows[i].freq ? a->sample_freq : a->sample_period, rows[i].freq ? rows[i].freq
												   : rows[i].period);
		assert_int_equal(a->exclude_kernel, rows[i].exclude_kernel);
		assert_string_equal(l.v[0].name, rows[i].name);
		pmu_event_list_release(&l);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct pmu_event_list l = PMU_EVENT_LIST_INIT;
		struct tdp_err err = TDP_ERR_INIT;
		char want[600];
		int ret = pmu_event_list_parse(&l, bad[i].spec, &no_env, &err);

		snprintf(want, sizeof(want), "cannot parse event list '%s': %s", bad[i].spec, bad[i].what);
		if (ret != TDP_EUSAGE || strncmp(err.msg, want, strlen(want)))
			fail_msg("line %d: '%s': ret %d, message '%s'", bad[i].line, bad[i].spec, ret, err.msg);
		snprintf(want, sizeof(want), "at position %zu", bad[i].pos);
		if (!str_ends_with(err.msg, want))
			fail_msg("line %d: '%s': '%s' does not end with '%s'", bad[i].line, bad[i].spec, err.msg, want);
		assert_int_equal(l.nr, 0);
	}
}

struct unknown_row {
	const char *spec;
	const char *suggested;
	int line;
};

static void test_unknown_suggests(void **state)
{
	static const struct unknown_row rows[] = {
		{ "cyclse", "'cycles'", __LINE__ },
		{ "instrutcions", "'instructions'", __LINE__ },
		{ "L1-dcache-laods", "'L1-dcache-loads'", __LINE__ },
		{ "task-clcok:u", "'task-clock'", __LINE__ },
		{ "branch-mises", "'branch-misses'", __LINE__ },
		{ "{cycles,contxt-switches}", "'context-switches'", __LINE__ },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct pmu_event_list l = PMU_EVENT_LIST_INIT;
		struct tdp_err err = TDP_ERR_INIT;
		int ret = pmu_event_list_parse(&l, rows[i].spec, &no_env, &err);

		if (ret != TDP_ENOENT || !strstr(err.msg, "is not known on this machine") ||
		    !strstr(err.hint, "did you mean ") || !strstr(err.hint, rows[i].suggested))
			fail_msg("line %d: '%s': ret %d, msg '%s', hint '%s'", rows[i].line, rows[i].spec, ret, err.msg,
				 err.hint);
		pmu_event_list_release(&l);
	}
	{
		struct pmu_event_list l = PMU_EVENT_LIST_INIT;
		struct tdp_err err = TDP_ERR_INIT;

		assert_int_equal(pmu_event_list_parse(&l, "cyclse", &no_env, &err), TDP_ENOENT);
		assert_string_equal(err.msg, "event 'cyclse' is not known on this machine");
		assert_true(str_starts_with(err.hint, "did you mean 'cycles'"));
		/* nothing close: no guess, just where to look */
		tdp_err_clear(&err);
		assert_int_equal(pmu_event_list_parse(&l, "zzzzqqqqxxxx", &no_env, &err), TDP_ENOENT);
		assert_null(strstr(err.hint, "did you mean"));
		assert_non_null(strstr(err.hint, "tdprof list events"));
		pmu_event_list_release(&l);
	}
}

static void test_limits(void **state)
{
	struct pmu_event_list l = PMU_EVENT_LIST_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	size_t n = PMU_SPEC_MAX + 2;
	char *big = tdp_malloc(n);

	(void)state;
	assert_non_null(big);
	/* PMU_EVENTS_MAX + 1 events "cs,cs,...,cs" (3 bytes each) fit under PMU_SPEC_MAX */
	{
		char *p = big;

		for (size_t i = 0; i <= PMU_EVENTS_MAX; i++) {
			if (i)
				*p++ = ',';
			memcpy(p, "cs", 2);
			p += 2;
		}
		*p = '\0';
	}
	assert_int_equal(pmu_event_list_parse(&l, big, &no_env, &err), TDP_ELIMIT);
	assert_int_equal(l.nr, 0); /* found by the syntax pass, before anything is appended */
	tdp_err_clear(&err);

	memset(big, 'a', n - 1);
	big[n - 1] = '\0';
	assert_int_equal(pmu_event_list_parse(&l, big, &no_env, &err), TDP_ELIMIT);
	tdp_err_clear(&err);
	big[PMU_EVENT_NAME_MAX + 1] = '\0';
	assert_int_equal(pmu_event_list_parse(&l, big, &no_env, &err), TDP_ELIMIT);
	assert_non_null(strstr(err.msg, "longer than"));
	tdp_free(big);
	pmu_event_list_release(&l);
}

static void test_describe(void **state)
{
	struct pmu_event_list l = PMU_EVENT_LIST_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	char buf[256], small[12];

	(void)state;
	assert_int_equal(pmu_event_list_parse(&l, "cycles:u,r5300c0:pp,L1-icache-load-misses", &no_env, &err), 0);
	assert_string_equal(pmu_event_describe(&l.v[0], buf, sizeof(buf)),
			    "type=0 config=0x0 exclude_kernel=1 exclude_hv=1 exclude_guest=1");
	assert_string_equal(pmu_event_describe(&l.v[1], buf, sizeof(buf)),
			    "type=4 config=0x5300c0 exclude_guest=1 precise_ip=2");
	/* L1I (1) | READ (0) << 8 | MISS (1) << 16 */
	assert_string_equal(pmu_event_describe(&l.v[2], buf, sizeof(buf)), "type=3 config=0x10001 exclude_guest=1");
	assert_string_equal(pmu_event_describe(&l.v[0], small, sizeof(small)), "type=0 conf");
	small[0] = 'x';
	pmu_event_describe(&l.v[0], small, 0);
	assert_int_equal(small[0], 'x');
	pmu_event_list_release(&l);
}

/* Every allocation failure gives TDP_ENOMEM (or the event's own error) and leaks nothing (ASan). */
static void test_alloc_failures(void **state)
{
	static const char *const specs[] = {
		"{cycles,instructions}:u,task-clock,L1-dcache-load-misses,r1a8",
		"cyclse",
	};

	(void)state;
	for (size_t s = 0; s < ARRAY_SIZE(specs); s++) {
		bool done = false;

		for (long n = 0; !done && n < 10000; n++) {
			struct pmu_event_list l = PMU_EVENT_LIST_INIT;
			struct tdp_err err = TDP_ERR_INIT;
			int ret;

			tdp_alloc_fail_after(n);
			ret = pmu_event_list_parse(&l, specs[s], &no_env, &err);
			done = tdp_alloc_fail_after(-1) <= n; /* the failure point was never reached */
			if (ret != TDP_ENOMEM) {
				/* the allocation that failed was in the suggestion: the error stays ENOENT */
				assert_int_equal(ret, s == 0 ? 0 : TDP_ENOENT);
				if (s == 0)
					assert_int_equal(l.nr, 5);
			}
			pmu_event_list_release(&l);
		}
		assert_true(done);
	}
}

static void test_known_list(void **state)
{
	struct pmu_event_desc_list known = PMU_EVENT_DESC_LIST_INIT;
	struct fake_sysfs f;
	struct pmu_env env = { NULL, false };
	size_t generic = 0, software = 0, sysfs = 0;
	bool tdr = false, rapl = false, idle_alias = false;

	(void)state;
	fake_init(&f);
	fake_intel(&f);
	env.sysfs_root = f.root;
	assert_int_equal(pmu_event_known(&known, &env, NULL), 0);
	for (size_t i = 0; i < known.nr; i++) {
		const struct pmu_event_desc *d = &known.v[i];

		assert_non_null(d->desc);
		generic += d->source == PMU_EV_GENERIC;
		software += d->source == PMU_EV_SOFTWARE;
		sysfs += d->source == PMU_EV_SYSFS;
		idle_alias |= !strcmp(d->name, "idle-cycles-frontend");
		if (!strcmp(d->name, "topdown-retiring")) {
			tdr = true;
			assert_string_equal(d->desc, "cpu/event=0x00,umask=0x80/");
			assert_string_equal(d->pmu, "cpu");
		}
		if (!strcmp(d->name, "power/energy-pkg/")) {
			rapl = true;
			assert_string_equal(d->desc, "power/event=0x02/ (Joules)");
		}
	}
	/*
	 * 12 hardware names with a description (the 2 idle-cycles aliases are not listed);
	 * cache names, one load/store/prefetch pair per valid op: L1-dcache 3, L1-icache 2,
	 * LLC 3, dTLB 3, iTLB 1, branch 1, node 3 = 16 ops x 2 = 32; 12 software names.
	 */
	assert_int_equal(generic, 12 + 32);
	assert_int_equal(software, 12);
	/* cpu: cycles, mem-loads, slots, topdown-bad-spec, topdown-retiring, topdown-total-slots;
	 * msr/tsc/; power/energy-pkg/ */
	assert_int_equal(sysfs, 8);
	assert_true(tdr);
	assert_true(rapl);
	assert_false(idle_alias);
	pmu_event_desc_list_release(&known);
	assert_null(known.v);
	fake_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generic_names), cmocka_unit_test(test_invalid_names),
		cmocka_unit_test(test_raw),           cmocka_unit_test(test_modifiers),
		cmocka_unit_test(test_groups),        cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_unknown_suggests), cmocka_unit_test(test_limits),
		cmocka_unit_test(test_describe),      cmocka_unit_test(test_alloc_failures),
		cmocka_unit_test(test_known_list),    cmocka_unit_test(test_generic_terms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
