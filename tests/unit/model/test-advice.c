/*
 * Unit tests of model/advice: the knowledge base compiled from
 * docs/tma-diagnosis-actions.md. The tree (keys and parents) is design.md's
 * shared vocabulary; names perf, Intel, AMD and Arm print find their entries;
 * the rendering keeps code verbatim and prose within the width.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "model/advice.h"
#include "report/explain.h"

/* design.md: level 1, the extra level-1 buckets, and level 2 under its parent. */
static const struct {
	const char *key;
	const char *parent;
} tree[] = {
	{ "frontend_bound", NULL },
	{ "fetch_latency", "frontend_bound" },
	{ "fetch_bandwidth", "frontend_bound" },
	{ "bad_speculation", NULL },
	{ "branch_mispredicts", "bad_speculation" },
	{ "machine_clears", "bad_speculation" },
	{ "backend_bound", NULL },
	{ "memory_bound", "backend_bound" },
	{ "core_bound", "backend_bound" },
	{ "retiring", NULL },
	{ "light_operations", "retiring" },
	{ "heavy_operations", "retiring" },
	{ "smt_contention", NULL },
	{ "frontend_stalled_cycles", NULL },
	{ "backend_stalled_cycles", NULL },
};

#define NR_TREE (sizeof(tree) / sizeof(tree[0]))

static void test_tree(void **state)
{
	(void)state;
	assert_int_equal(advice_count(), NR_TREE);
	assert_null(advice_get(NR_TREE));
	for (size_t i = 0; i < NR_TREE; i++) {
		const struct advice_entry *e = advice_find(tree[i].key);

		assert_non_null(e);
		assert_ptr_equal(e, advice_get(i)); /* the document's order */
		assert_string_equal(e->key, tree[i].key);
		if (tree[i].parent) {
			assert_non_null(e->parent);
			assert_string_equal(e->parent, tree[i].parent);
			assert_int_equal(e->level, 2);
		} else {
			assert_null(e->parent);
			assert_int_equal(e->level, 1);
		}
		assert_true(strlen(e->title) > 2);
		assert_non_null(e->aliases);
		/* every section has text; the summary is one paragraph */
		assert_true(strlen(e->summary) > 100);
		assert_null(strstr(e->summary, "\n\n"));
		assert_true(strlen(e->meaning) > 100);
		assert_true(strlen(e->confirm) > 100);
		assert_true(strlen(e->causes) > 50);
		assert_true(strlen(e->fixes) > 100);
		assert_true(strlen(e->sources) > 50);
		assert_ptr_equal(advice_summary(tree[i].key), e->summary);
	}
}

/* Names of the nodes as perf, Intel's TMA, AMD's pipeline metrics and Arm print them. */
static void test_aliases(void **state)
{
	static const struct {
		const char *name;
		const char *key;
	} names[] = {
		{ "tma_fetch_latency", "fetch_latency" },
		{ "Fetch-Latency", "fetch_latency" },
		{ "FRONTEND_BOUND", "frontend_bound" },
		{ "frontend bound", "frontend_bound" },
		{ "frontend_bound_latency", "fetch_latency" },         /* AMD Zen 4 */
		{ "frontend_bound_by_bandwidth", "fetch_bandwidth" },  /* AMD Zen 5 */
		{ "bad_speculation_mispredicts", "branch_mispredicts" },
		{ "bad_speculation_pipeline_restarts", "machine_clears" },
		{ "backend_bound_memory", "memory_bound" },
		{ "backend_bound_cpu", "core_bound" },
		{ "retiring_fastpath", "light_operations" },
		{ "retiring_microcode", "heavy_operations" },
		{ "topdown-be-bound", "backend_bound" },               /* perf's Intel event */
		{ "stalled-cycles-frontend", "frontend_stalled_cycles" },
		{ "tma_heavy_operations", "heavy_operations" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct advice_entry *e = advice_find(names[i].name);

		if (!e || strcmp(e->key, names[i].key))
			fail_msg("'%s' found %s, expected %s", names[i].name, e ? e->key : "nothing", names[i].key);
	}
	assert_null(advice_find("frobnicate"));
	assert_null(advice_find(""));
	assert_null(advice_find(NULL));
	assert_null(advice_find("frontend_bound_frontend_bound_frontend_bound_frontend_bound_frontend_bound_frontend"));
	assert_null(advice_summary("nope"));
}

static void test_suggest(void **state)
{
	const char *out[3];

	(void)state;
	assert_int_equal(advice_suggest("fetch_latncy", out, 3) >= 1, 1);
	assert_string_equal(out[0], "fetch_latency");
	assert_true(advice_suggest("branch_mispredict", out, 3) >= 1);
	assert_string_equal(out[0], "branch_mispredicts");
	/* an alias suggests its entry's key, once */
	assert_true(advice_suggest("retiring_microcod", out, 3) >= 1);
	assert_string_equal(out[0], "heavy_operations");
	assert_int_equal(advice_suggest("zzzzzzzzzzzzzz", out, 3), 0);
}

/* The entries teach with code: each level-2 node has a C example among its fixes. */
static void test_content(void **state)
{
	bool cites_yasin = false, cites_intel = false, cites_amd = false, cites_arm = false, cites_book = false;

	(void)state;
	for (size_t i = 0; i < advice_count(); i++) {
		const struct advice_entry *e = advice_get(i);

		if (e->level == 2 && !strstr(e->fixes, "```c"))
			fail_msg("%s: no C example in its fixes", e->key);
		assert_non_null(strstr(e->confirm, "tdprof")); /* how to confirm it with tdprof */
		cites_yasin = cites_yasin || strstr(e->sources, "Yasin");
		cites_intel = cites_intel || strstr(e->sources, "Optimization Reference Manual");
		cites_amd = cites_amd || strstr(e->sources, "Software Optimization Guide for Zen4");
		cites_arm = cites_arm || strstr(e->sources, "Neoverse N1");
		cites_book = cites_book || strstr(e->sources, "Bakhvalov");
	}
	assert_true(cites_yasin && cites_intel && cites_amd && cites_arm && cites_book);
	assert_non_null(strstr(advice_find("memory_bound")->fixes, "__builtin_prefetch"));
	assert_non_null(strstr(advice_find("heavy_operations")->fixes, "_MM_SET_FLUSH_ZERO_MODE"));
	assert_non_null(strstr(advice_find("machine_clears")->fixes, "alignas(64)"));
}

/* Lines of s outside code (not indented by 8 or more) must fit width columns. */
static void check_width(const char *s, size_t width)
{
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s), cols = 0, lead = 0;

		for (size_t i = 0; i < n; i++)
			cols += ((unsigned char)s[i] & 0xc0) != 0x80;
		while (lead < n && s[lead] == ' ')
			lead++;
		if (lead < 8 && cols > width)
			fail_msg("line wider than %zu: '%.*s'", width, (int)n, s);
		s = nl ? nl + 1 : s + n;
	}
}

static void test_render(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	const struct advice_entry *e = advice_find("branch_mispredicts");

	(void)state;
	explain_entry_text(e, 80, &sb);
	assert_false(strbuf_failed(&sb));
	assert_int_equal(strncmp(sb.buf, "Branch Mispredicts (branch_mispredicts)\n", 40), 0);
	assert_non_null(strstr(sb.buf, "under Bad Speculation (bad_speculation)"));
	assert_non_null(strstr(sb.buf, "\nMEANING\n"));
	assert_non_null(strstr(sb.buf, "\nHOW TO CONFIRM\n"));
	assert_non_null(strstr(sb.buf, "\nTYPICAL CAUSES\n"));
	assert_non_null(strstr(sb.buf, "\nFIXES\n"));
	assert_non_null(strstr(sb.buf, "\nSOURCES\n"));
	/* code is verbatim: its own indentation kept, 4 + 4 columns in, not reflowed */
	assert_non_null(strstr(sb.buf, "\n            int64_t keep = -(int64_t)(a[i] >= 128);   /* all ones or zero */\n"));
	/* list items keep their bullet; inline code loses its backticks */
	assert_non_null(strstr(sb.buf, "\n    - tdprof branches record -o br.data -- ./app and"));
	assert_null(strstr(sb.buf, "`"));
	check_width(sb.buf, 80);

	/* *emphasis* loses its asterisks; a multiplication keeps its own */
	strbuf_reset(&sb);
	explain_entry_text(advice_find("fetch_latency"), 80, &sb);
	assert_non_null(strstr(sb.buf, "D. Bakhvalov, Performance Analysis and Tuning on Modern CPUs,"));
	assert_non_null(strstr(sb.buf, "(6 * ls_not_halted_cyc)"));

	strbuf_reset(&sb);
	explain_entry_text(advice_find("memory_bound"), 40, &sb);
	check_width(sb.buf, 40);
	strbuf_reset(&sb);
	explain_entry_text(advice_find("memory_bound"), 10, &sb); /* narrower than 40: 40 is used */
	check_width(sb.buf, 40);

	strbuf_reset(&sb);
	explain_markdown("A paragraph of words that must wrap at forty columns exactly here.\n\n- a bullet"
			       " item that also wraps because it is long enough\n",
			       2, 40, &sb);
	assert_string_equal(sb.buf, "  A paragraph of words that must wrap at\n"
				    "  forty columns exactly here.\n"
				    "\n"
				    "  - a bullet item that also wraps\n"
				    "    because it is long enough\n");
	strbuf_release(&sb);
}

static void test_render_oom(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	tdp_alloc_fail_after(0);
	explain_entry_text(advice_find("retiring"), 80, &sb);
	tdp_alloc_fail_after(-1);
	assert_true(strbuf_failed(&sb));
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_suggest),
		cmocka_unit_test(test_content),
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_render_oom),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
