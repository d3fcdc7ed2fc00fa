/*
 * Unit tests of sim/ parsers on real valgrind 3.19 recordings of brmix.c
 * ($TDPROF_SHARED_DATA/cachegrind/): the totals, per-line and per-function figures
 * must equal what cg_annotate and callgrind_annotate printed for the same files
 * (cg_annotate.brmix_O0.txt, callgrind_annotate.brmix_O0.txt), and truncated or
 * mutated copies must never crash (run under ASan). Skips (77) without the data.
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
#include "base/file.h"
#include "sim/cost.h"
#include "sim/machine.h"
#include "sim/profile.h"

static char cg_path[4096], clg_path[4096];

static void load(struct sim_profile *p, const char *path)
{
	struct tdp_err err = TDP_ERR_INIT;

	sim_profile_init(p);
	if (sim_profile_load(p, path, &err))
		fail_msg("%s", err.msg);
}

/* Sum of the entries of lines `line` of a file ending in "brmix.c" (0: every line), of function fn (NULL: any). */
static struct sim_cost sum(const struct sim_profile *p, const char *file_suffix, uint64_t line, const char *fn)
{
	struct sim_cost c;

	memset(&c, 0, sizeof(c));
	for (size_t i = 0; i < p->nr; i++) {
		const struct sim_entry *e = &p->v[i];
		const char *f = sim_profile_name(p, e->file);
		size_t fl = strlen(f), sl = strlen(file_suffix);

		if (fl < sl || strcmp(f + fl - sl, file_suffix) != 0)
			continue;
		if ((line && e->line != line) || (fn && strcmp(sim_profile_name(p, e->fn), fn) != 0))
			continue;
		for (int k = 0; k < SIM_NR_EVENTS; k++)
			c.v[k] += e->cost.v[k];
	}
	return c;
}

static void test_cachegrind_totals(void **state)
{
	struct sim_profile p;
	struct sim_cost c;

	(void)state;
	load(&p, cg_path);
	/* cg_annotate's PROGRAM TOTALS line. */
	assert_int_equal(p.totals.v[SIM_IR], 11031393);
	assert_int_equal(p.totals.v[SIM_I1MR], 1279);
	assert_int_equal(p.totals.v[SIM_ILMR], 1261);
	assert_int_equal(p.totals.v[SIM_DR], 3579459);
	assert_int_equal(p.totals.v[SIM_D1MR], 13771);
	assert_int_equal(p.totals.v[SIM_DLMR], 1010);
	assert_int_equal(p.totals.v[SIM_DW], 910994);
	assert_int_equal(p.totals.v[SIM_D1MW], 3537);
	assert_int_equal(p.totals.v[SIM_DLMW], 3477);
	assert_int_equal(p.totals.v[SIM_BC], 476511);
	assert_int_equal(p.totals.v[SIM_BCM], 103569);
	assert_int_equal(p.totals.v[SIM_BI], 200322);
	assert_int_equal(p.totals.v[SIM_BIM], 133893);
	assert_memory_equal(&p.totals, &p.summary, sizeof(p.totals));
	/* Its header: the caches valgrind took from this VM (512 MiB LL, 2-way). */
	assert_int_equal(p.ll.size, 536870912);
	assert_int_equal(p.ll.assoc, 2);
	assert_int_equal(p.d1.size, 49152);
	assert_string_equal(p.cmd, "./brmix_O0 50000");

	/* Auto-annotated source: line 16, the random branch. */
	c = sum(&p, "brmix.c", 16, NULL);
	assert_int_equal(c.v[SIM_IR], 1600000);
	assert_int_equal(c.v[SIM_DR], 600000);
	assert_int_equal(c.v[SIM_D1MR], 12504);
	assert_int_equal(c.v[SIM_BC], 200000);
	assert_int_equal(c.v[SIM_BCM], 100140);
	/* Line 18, the indirect call. */
	c = sum(&p, "brmix.c", 18, NULL);
	assert_int_equal(c.v[SIM_IR], 5400000);
	assert_int_equal(c.v[SIM_DR], 1000000);
	assert_int_equal(c.v[SIM_DW], 400000);
	assert_int_equal(c.v[SIM_D1MW], 1);
	assert_int_equal(c.v[SIM_BI], 200000);
	assert_int_equal(c.v[SIM_BIM], 133721);
	/* Line 13, the fill loop. */
	c = sum(&p, "brmix.c", 13, NULL);
	assert_int_equal(c.v[SIM_IR], 900005);
	assert_int_equal(c.v[SIM_D1MW], 3125);
	assert_int_equal(c.v[SIM_BC], 50001);
	assert_int_equal(c.v[SIM_BCM], 9);
	/* The file:function table. */
	c = sum(&p, "brmix.c", 0, "main");
	assert_int_equal(c.v[SIM_IR], 9498283);
	assert_int_equal(c.v[SIM_D1MR], 12506);
	assert_int_equal(c.v[SIM_BC], 450011);
	assert_int_equal(c.v[SIM_BCM], 100198);
	assert_int_equal(c.v[SIM_BIM], 133721);
	assert_int_equal(sum(&p, "brmix.c", 0, "add1").v[SIM_IR], 470372);
	assert_int_equal(sum(&p, "brmix.c", 0, "sub1").v[SIM_DW], 132312);
	c = sum(&p, "dl-lookup.c", 0, "do_lookup_x");
	assert_int_equal(c.v[SIM_IR], 21738);
	assert_int_equal(c.v[SIM_DLMR], 141);
	assert_int_equal(c.v[SIM_BCM], 230);
	sim_profile_release(&p);
}

static void test_callgrind_totals(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct sim_estimate est;
	struct sim_machine m;
	struct sim_profile p;
	struct sim_cost c;
	bool found = false;

	(void)state;
	load(&p, clg_path);
	/* callgrind_annotate's PROGRAM TOTALS (recorded without --cache-sim). */
	assert_int_equal(p.totals.v[SIM_IR], 11030147);
	assert_int_equal(p.totals.v[SIM_BC], 476857);
	assert_int_equal(p.totals.v[SIM_BCM], 103546);
	assert_int_equal(p.totals.v[SIM_BI], 200323);
	assert_int_equal(p.totals.v[SIM_BIM], 133894);
	assert_false(p.have & (1u << SIM_I1MR));
	assert_true(p.has_addr);
	c = sum(&p, "brmix.c", 16, NULL);
	assert_int_equal(c.v[SIM_IR], 1600000);
	assert_int_equal(c.v[SIM_BC], 200000);
	assert_int_equal(c.v[SIM_BCM], 100140);
	c = sum(&p, "brmix.c", 18, NULL);
	assert_int_equal(c.v[SIM_IR], 5400000);
	assert_int_equal(c.v[SIM_BI], 200000);
	assert_int_equal(c.v[SIM_BIM], 133721);
	/* Line 10 calls atoi through the PLT: self 14 Ir (the calls' 187 + 646 are inclusive). */
	c = sum(&p, "brmix.c", 10, NULL);
	assert_int_equal(c.v[SIM_IR], 14);
	assert_int_equal(c.v[SIM_BC], 1);
	assert_int_equal(c.v[SIM_BI], 2);
	assert_int_equal(c.v[SIM_BIM], 2);
	c = sum(&p, "brmix.c", 12, NULL);
	assert_int_equal(c.v[SIM_IR], 11);
	assert_int_equal(c.v[SIM_BIM], 1);
	c = sum(&p, "brmix.c", 0, "main");
	assert_int_equal(c.v[SIM_IR], 9498303);
	assert_int_equal(c.v[SIM_BC], 450011);
	assert_int_equal(c.v[SIM_BCM], 100198);
	assert_int_equal(c.v[SIM_BI], 200008);
	assert_int_equal(c.v[SIM_BIM], 133726);
	assert_int_equal(sum(&p, "brmix.c", 0, "dbl").v[SIM_IR], 466536);
	c = sum(&p, "dl-lookup.c", 0, "do_lookup_x");
	assert_int_equal(c.v[SIM_IR], 21738);
	assert_int_equal(c.v[SIM_BCM], 231);
	/* sub1 starts at 0x1178, line 6, run 66,156 times. */
	for (size_t i = 0; i < p.nr; i++)
		if (p.v[i].addr == 0x1178 && !strcmp(sim_profile_name(&p, p.v[i].fn), "sub1")) {
			assert_int_equal(p.v[i].line, 6);
			assert_int_equal(p.v[i].cost.v[SIM_IR], 66156);
			assert_string_equal(sim_profile_name(&p, p.v[i].obj), "/tmp/research/data/valgrind/brmix_O0");
			found = true;
		}
	assert_true(found);

	/* No cache counts: the cost model refuses rather than assume zero misses. */
	assert_int_equal(sim_machine_preset(&m, "generic", &err), 0);
	assert_int_equal(sim_estimate(&p, &m, &est, &err), TDP_EANALYSIS);
	assert_non_null(strstr(err.msg, "no 'I1mr' counts"));
	assert_non_null(strstr(err.hint, "--cache-sim=yes"));
	sim_profile_release(&p);
}

static void test_fixture_sites(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct sim_estimate est;
	struct sim_machine m;
	struct sim_profile p;
	struct sim_site *s;
	size_t nr;

	(void)state;
	load(&p, cg_path);
	assert_int_equal(sim_machine_preset(&m, "generic", &err), 0);
	assert_int_equal(sim_estimate(&p, &m, &est, &err), 0);
	/* (133,893 + 103,569) mispredicts * (15 - 5 of resteer) = 2,374,620 cycles charged to Bad
	 * Speculation (the other 5 per mispredict are Frontend's branch resteers). */
	assert_float_equal(est.cycles_by.v[SIM_BAD_SPECULATION], 2374620.0, 1e-6);
	assert_int_equal(est.dominant, SIM_BAD_SPECULATION);
	assert_int_equal(sim_sites_build(&p, &m, &s, &nr, &err), 0);
	sim_sites_sort(s, nr, SIM_BAD_SPECULATION);
	/* Line 18 mispredicts 133,721 times, line 16 100,140 times. */
	assert_string_equal(sim_profile_name(&p, s[0].fn), "main");
	assert_int_equal(s[0].line, 18);
	assert_int_equal(sim_site_mispredicts(&s[0]), 133721);
	assert_int_equal(s[1].line, 16);
	assert_int_equal(sim_site_branches(&s[1]), 200000);
	assert_int_equal(s[0].branch_addr, 0); /* cachegrind records no addresses */
	sim_sites_free(s);
	sim_profile_release(&p);
}

/* xorshift64: deterministic mutations. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_truncated(void **state)
{
	struct tdp_file f = TDP_FILE_INIT;
	const char *paths[2] = { cg_path, clg_path };

	(void)state;
	for (int k = 0; k < 2; k++) {
		assert_int_equal(tdp_file_open(&f, paths[k], 0, NULL), 0);
		for (size_t cut = 0; cut < f.size; cut += (cut < 4096 ? 1 : 97)) {
			struct tdp_err err = TDP_ERR_INIT;
			struct sim_profile p;
			int ret;

			sim_profile_init(&p);
			ret = sim_profile_parse(&p, f.data, cut, "cut", &err);
			/* A file cut anywhere before its final newline loses (part of) its last line:
			 * cachegrind's summary:, callgrind's totals:. */
			if (cut + 1 < f.size && ret != TDP_EFORMAT)
				fail_msg("cut at %zu: %d '%s'", cut, ret, err.msg);
			if (ret && !err.msg[0])
				fail_msg("cut at %zu: error %d without a message", cut, ret);
			sim_profile_release(&p);
		}
		/* Without its final newline the file is whole. */
		{
			struct tdp_err err = TDP_ERR_INIT;
			struct sim_profile p;

			sim_profile_init(&p);
			assert_int_equal(sim_profile_parse(&p, f.data, f.size - 1, "cut", &err), 0);
			sim_profile_release(&p);
		}
		tdp_file_close(&f);
	}
}

static void test_mutated(void **state)
{
	static const char alphabet[] = "0123456789+-*.()=: \n\tx\xff";
	struct tdp_file f = TDP_FILE_INIT;
	const char *paths[2] = { cg_path, clg_path };
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	size_t ok = 0, failed = 0;

	(void)state;
	for (int k = 0; k < 2; k++) {
		uint8_t *buf;

		assert_int_equal(tdp_file_open(&f, paths[k], 0, NULL), 0);
		buf = malloc(f.size + 64);
		assert_non_null(buf);
		for (int iter = 0; iter < 600; iter++) {
			struct tdp_err err = TDP_ERR_INIT;
			struct sim_profile p;
			size_t len = f.size;
			int edits = 1 + (int)(rnd(&seed) % 8);
			int ret;

			memcpy(buf, f.data, f.size);
			for (int e = 0; e < edits && len > 1; e++) {
				size_t at = (size_t)(rnd(&seed) % len);
				char c = alphabet[rnd(&seed) % (sizeof(alphabet) - 1)];

				switch (rnd(&seed) % 3) {
				case 0: /* replace */
					buf[at] = (uint8_t)c;
					break;
				case 1: /* delete */
					memmove(buf + at, buf + at + 1, len - at - 1);
					len--;
					break;
				default: /* insert */
					memmove(buf + at + 1, buf + at, len - at);
					buf[at] = (uint8_t)c;
					len++;
					break;
				}
			}
			sim_profile_init(&p);
			ret = sim_profile_parse(&p, buf, len, "mutant", &err);
			if (ret) {
				failed++;
				if (!err.msg[0] || !strstr(err.msg, "'mutant'"))
					fail_msg("error %d without the file name: '%s'", ret, err.msg);
			} else {
				ok++;
				/* Whatever parsed is consistent: the totals are the sum of the entries. */
				struct sim_cost t;

				memset(&t, 0, sizeof(t));
				for (size_t i = 0; i < p.nr; i++)
					for (int ev = 0; ev < SIM_NR_EVENTS; ev++)
						t.v[ev] += p.v[i].cost.v[ev];
				assert_memory_equal(&t, &p.totals, sizeof(t));
			}
			sim_profile_release(&p);
		}
		free(buf);
		tdp_file_close(&f);
	}
	/* Both outcomes happen: the mutations reach the checks. */
	assert_true(ok > 0);
	assert_true(failed > 0);
}

int main(void)
{
	const char *dir = getenv("TDPROF_SHARED_DATA");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cachegrind_totals),
		cmocka_unit_test(test_callgrind_totals),
		cmocka_unit_test(test_fixture_sites),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_mutated),
	};
	FILE *fp;

	if (!dir) {
		printf("skipped: TDPROF_SHARED_DATA is not set\n");
		return 77;
	}
	snprintf(cg_path, sizeof(cg_path), "%s/cachegrind/cachegrind.out.brmix_O0", dir);
	snprintf(clg_path, sizeof(clg_path), "%s/cachegrind/callgrind.out.brmix_O0", dir);
	fp = fopen(cg_path, "r");
	if (!fp) {
		printf("skipped: no '%s'\n", cg_path);
		return 77;
	}
	fclose(fp);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
