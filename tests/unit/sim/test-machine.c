/*
 * Unit tests of sim/machine: presets are valid for valgrind, --sim-machine strings
 * and files parse, and every bad value gets a message naming the key and a hint.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "sim/machine.h"

static void test_presets(void **state)
{
	const struct sim_machine_preset *p;
	struct tdp_err err = TDP_ERR_INIT;
	struct sim_machine m;
	char i1[SIM_VG_ARG_MAX], d1[SIM_VG_ARG_MAX], ll[SIM_VG_ARG_MAX];
	size_t nr;

	(void)state;
	p = sim_machine_presets(&nr);
	assert_true(nr >= 4);
	assert_string_equal(p[0].name, "generic");
	for (size_t i = 0; i < nr; i++) {
		uint64_t sets = p[i].m.ll.size / ((uint64_t)p[i].m.ll.assoc * p[i].m.ll.line);

		if (sim_machine_validate(&p[i].m, &err))
			fail_msg("preset '%s': %s", p[i].name, err.msg);
		assert_string_equal(p[i].m.name, p[i].name);
		assert_true(p[i].sources && strlen(p[i].sources) > 20);
		assert_true((sets & (sets - 1)) == 0);
		assert_false(p[i].m.modified);
	}
	/* generic: Golden Cove's L1s, Zen 4's 32 MiB 16-way L3, as valgrind options. */
	assert_int_equal(sim_machine_preset(&m, "generic", &err), 0);
	sim_machine_valgrind_args(&m, i1, d1, ll);
	assert_string_equal(i1, "--I1=32768,8,64");
	assert_string_equal(d1, "--D1=49152,12,64");
	assert_string_equal(ll, "--LL=33554432,16,64");
	assert_true(m.width == 6);
	assert_int_equal(sim_machine_preset(&m, "neoverse-n1", &err), 0);
	sim_machine_valgrind_args(&m, i1, d1, ll);
	assert_string_equal(i1, "--I1=65536,4,64");
	assert_true(m.width == 4);
	/* Alder Lake's 30 MiB 12-way L3 has 40,960 sets: simulated as 24 MiB (32,768). */
	assert_int_equal(sim_machine_preset(&m, "alderlake", &err), 0);
	sim_machine_valgrind_args(&m, i1, d1, ll);
	assert_string_equal(ll, "--LL=25165824,12,64");

	assert_int_equal(sim_machine_preset(&m, "zen5", &err), TDP_EUSAGE);
	assert_string_equal(err.msg, "unknown machine 'zen5'; did you mean 'zen4'?");
	assert_non_null(strstr(err.hint, "generic, zen4, alderlake, skylake, icelake-server, zen3, neoverse-n1"));
}

static void test_parse_spec(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct sim_machine m;
	char desc[512];

	(void)state;
	assert_int_equal(sim_machine_parse(&m, "zen4", &err), 0);
	assert_string_equal(m.name, "zen4");
	assert_true(m.branch_penalty == 13);
	assert_false(m.modified);

	assert_int_equal(sim_machine_parse(&m, "skylake,mem-latency=300,d1=64K:8:64,ll-size=16M", &err), 0);
	assert_string_equal(m.name, "skylake");
	assert_true(m.modified);
	assert_true(m.mem_latency == 300);
	assert_int_equal(m.d1.size, 65536);
	assert_int_equal(m.ll.size, 16u << 20);
	assert_true(m.width == 4); /* untouched keys keep the preset's value */

	/* KEY=VAL alone starts from generic; sizes take binary suffixes. */
	assert_int_equal(sim_machine_parse(&m, "width=4, branch-penalty = 20,i1-size=48KiB,i1-assoc=12", &err), 0);
	assert_string_equal(m.name, "generic");
	assert_true(m.width == 4 && m.branch_penalty == 20);
	assert_int_equal(m.i1.size, 49152);
	assert_int_equal(m.i1.assoc, 12);
	sim_machine_describe(&m, desc, sizeof(desc));
	assert_non_null(strstr(desc, "generic (modified): I1 48 KiB 12-way, D1 48 KiB 12-way, LL 32 MiB 16-way"));
	assert_non_null(strstr(desc, "4 slots/cycle; mispredict 20 cycles"));
}

struct bad_spec {
	int line;
	const char *spec;
	const char *msg;  /* substring of the message */
	const char *hint; /* substring of the hint */
};

static const struct bad_spec bad_specs[] = {
	{ __LINE__, "", "empty machine description", "--sim-machine generic" },
	{ __LINE__, "widht=4", "unknown machine key 'widht'; did you mean 'width'?", "keys: i1" },
	{ __LINE__, "width=0", "bad value '0' for machine key 'width'", "from 1 to 16" },
	{ __LINE__, "width=fast", "bad value 'fast' for machine key 'width'", "from 1 to 16" },
	{ __LINE__, "mlp=0.5", "bad value '0.5' for machine key 'mlp'", "from 1 to 64" },
	{ __LINE__, "ll-size=30M", "'ll-size': 31457280 B with 16 ways of 64 B lines is not a power-of-two number of sets",
	  "use ll-size=16M or ll-size=32M" },
	/* 40 KiB / (12 * 64 B) = 53.3 sets: the nearest are 32 (24 KiB) and 64 (48 KiB). */
	{ __LINE__, "d1-size=40K", "'d1-size': 40960 B with 12 ways of 64 B lines", "use d1-size=24K or d1-size=48K" },
	{ __LINE__, "d1-line=48", "'d1-line': 48 B is not a power of two from 16 to 4096", "d1-line=64" },
	{ __LINE__, "i1-line=8", "'i1-line': 8 B is not a power of two", "i1-line=64" },
	{ __LINE__, "d1-assoc=0", "'d1-assoc': 0 ways", "d1-assoc=8" },
	{ __LINE__, "ll-size=2G", "'ll-size': 2147483648 B is not from 1024 B (one set) to 1 GiB", "ll-size=32K" },
	{ __LINE__, "ll-size=32X", "bad value '32X' for machine key 'll-size'", "K, M, G suffixes" },
	{ __LINE__, "i1=32K:8", "bad value '32K:8' for machine key 'i1'", "SIZE:ASSOC:LINE" },
	{ __LINE__, "ll-size=16K", "the LL (16384 B) is smaller than an L1 cache", "ll-size=32M" },
	{ __LINE__, "zen4,zen3", "'zen3' is not KEY=VAL", "zen4,mem-latency=300" },
	{ __LINE__, "zenn4,width=4", "unknown machine 'zenn4'; did you mean 'zen4'?", "generic, zen4" },
	/* the valgrind tool's keys */
	{ __LINE__, "l2-size=1000000", "'l2-size': 1000000 B with 10 ways of 64 B lines", "l2-size=" },
	{ __LINE__, "l2-line=128", "the caches' lines differ (64, 64, 128 and 64 B)", "l2-line=64" },
	{ __LINE__, "rob=0", "bad value '0' for machine key 'rob'", "from 1 to 4096" },
	{ __LINE__, "mshr=100", "bad value '100' for machine key 'mshr'", "from 1 to 64" },
	{ __LINE__, "btb-entries=1000,btb-assoc=16", "'btb-entries': 1000 is not a multiple of btb-assoc (16)",
	  "btb-entries=8192" },
	{ __LINE__, "dsb-window=48", "'dsb-window': 48 B is not a power of two", "dsb-window=32" },
	{ __LINE__, "prefetch-stride=2", "bad value '2' for machine key 'prefetch-stride'", "from 0 to 1" },
};

static void test_bad_specs(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_specs) / sizeof(bad_specs[0]); i++) {
		const struct bad_spec *b = &bad_specs[i];
		struct tdp_err err = TDP_ERR_INIT;
		struct sim_machine m;
		int ret = sim_machine_parse(&m, b->spec, &err);

		if (ret != TDP_EUSAGE || !strstr(err.msg, b->msg) || !strstr(err.hint, b->hint))
			fail_msg("row at line %d: got %d '%s' / '%s'", b->line, ret, err.msg, err.hint);
	}
}

static void test_tool_args(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	char args[SIM_TOOL_ARGS][SIM_VG_ARG_MAX];
	struct sim_machine m;
	size_t n;
	bool l2 = false, lat = false, rob = false, bw = false, bpred = false;

	(void)state;
	/* any number of sets in the L2 (Golden Cove's 1.25 MiB 10-way has 2048; 1.5 MiB 12-way 2048 too) */
	assert_int_equal(sim_machine_parse(&m, "alderlake,l2=1536K:12:64,rob=256,l3-latency=70", &err), 0);
	sim_machine_tool_args(&m, args, &n);
	assert_true(n <= SIM_TOOL_ARGS);
	for (size_t i = 0; i < n; i++) {
		l2 |= !strcmp(args[i], "--tdp-l2=1572864,12,64");
		lat |= !strcmp(args[i], "--tdp-latency=5,15,70,450");
		rob |= !strcmp(args[i], "--tdp-rob=256");
		bw |= !strcmp(args[i], "--tdp-bandwidth=48.000,20.000,6.500");
		bpred |= !strcmp(args[i], "--tdp-bpred=alderlake");
		assert_true(!strncmp(args[i], "--tdp-", 6));
	}
	assert_true(l2 && lat && rob && bw && bpred);
	/* a 3-set L2: the tool takes it (valgrind never sees the L2) */
	assert_int_equal(sim_machine_parse(&m, "l2=1536:8:64", &err), 0);
}

static void test_file(void **state)
{
	static const char good[] = "# my laptop\n"
				   "preset = alderlake\n"
				   "\n"
				   "  mem-latency = 500   \n"
				   "ll = 32M:16:64\n";
	static const char late_preset[] = "width=4\npreset=zen4\n";
	static const char bad_key[] = "# x\nwidth=4\nbogus=1\n";
	struct tdp_err err = TDP_ERR_INIT;
	struct sim_machine m;
	char dir[] = "/tmp/tdprof-test-machine-XXXXXX", path[128];
	FILE *f;

	(void)state;
	assert_int_equal(sim_machine_parse_file(&m, (const uint8_t *)good, strlen(good), "m.conf", &err), 0);
	assert_string_equal(m.name, "alderlake");
	assert_true(m.mem_latency == 500 && m.branch_penalty == 17);
	assert_int_equal(m.ll.size, 32u << 20);
	assert_int_equal(m.ll.assoc, 16);

	assert_int_equal(sim_machine_parse_file(&m, (const uint8_t *)late_preset, strlen(late_preset), "m.conf", &err),
			 TDP_EUSAGE);
	assert_string_equal(err.msg, "'m.conf': line 2: 'preset' must come before the other keys");
	tdp_err_clear(&err);
	assert_int_equal(sim_machine_parse_file(&m, (const uint8_t *)bad_key, strlen(bad_key), "m.conf", &err),
			 TDP_EUSAGE);
	assert_string_equal(err.msg, "'m.conf': line 3: unknown machine key 'bogus'");

	/* sim_machine_load(): a preset, a list, or else a file. */
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/laptop", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(good, f);
	fclose(f);
	tdp_err_clear(&err);
	assert_int_equal(sim_machine_load(&m, path, &err), 0);
	assert_true(m.mem_latency == 500);
	assert_int_equal(sim_machine_load(&m, "neoverse-n1", &err), 0);
	assert_string_equal(m.name, "neoverse-n1");
	assert_int_equal(sim_machine_load(&m, "zen4,width=8", &err), 0);
	assert_true(m.width == 8);
	snprintf(path, sizeof(path), "%s/nothere", dir);
	assert_int_equal(sim_machine_load(&m, path, &err), TDP_EUSAGE);
	assert_non_null(strstr(err.msg, "(not a preset, and no such file)"));
	assert_non_null(strstr(err.hint, "KEY=VAL,... or a file"));
	snprintf(path, sizeof(path), "%s/laptop", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_presets),
		cmocka_unit_test(test_parse_spec),
		cmocka_unit_test(test_bad_specs),
		cmocka_unit_test(test_tool_args),
		cmocka_unit_test(test_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
