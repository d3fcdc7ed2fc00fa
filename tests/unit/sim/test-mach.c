/*
 * Unit tests of the machine of tdprof's valgrind tool (src/sim/mach.h and its
 * parts lru.h, pf.h, ivl.h): the freestanding code the tool runs, driven here by
 * hand-made access streams whose answer is known.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/ivl.h"
#include "sim/lru.h"
#include "sim/mach.h"
#include "sim/pf.h"
#include "sim/profile.h"

/* ---- lru ---- */

static void test_lru_replaces_the_least_recent(void **state)
{
	uint64_t mem[2 * 2];
	struct sim_lru c;


	(void)state;
	assert_true(sim_lru_init(&c, mem, sizeof(mem), 2, 2));
	/* blocks 0, 2, 4 share set 0 of 2 ways */
	assert_false(sim_lru_access(&c, 0));
	assert_false(sim_lru_access(&c, 2));
	assert_true(sim_lru_access(&c, 0)); /* 0 is now the most recent: 2 goes next */
	assert_false(sim_lru_access(&c, 4));
	assert_true(sim_lru_holds(&c, 0));
	assert_false(sim_lru_holds(&c, 2));
	assert_true(sim_lru_access(&c, 4));
	assert_false(sim_lru_access(&c, 2));
	assert_false(sim_lru_holds(&c, 0));
	/* set 1 was never touched */
	assert_false(sim_lru_holds(&c, 1));
}

static void test_lru_any_set_count(void **state)
{
	uint64_t mem[2]; /* 3 tags of 4 bytes */
	struct sim_lru c;

	(void)state;
	assert_int_equal(sim_lru_bytes(0, 4), 0);
	assert_int_equal(sim_lru_bytes(4, 0), 0);
	assert_int_equal(sim_lru_bytes(4, SIM_LRU_MAX_ASSOC + 1), 0);
	assert_false(sim_lru_init(&c, mem, 3 * 4 - 1, 3, 1));
	/* 3 sets of one way (Alder Lake's L3 has 40,960 sets: a remainder, not a mask) */
	assert_true(sim_lru_init(&c, mem, sizeof(mem), 3, 1));
	for (uint64_t b = 0; b < 3; b++)
		assert_false(sim_lru_access(&c, b));
	for (uint64_t b = 0; b < 3; b++)
		assert_true(sim_lru_access(&c, b));
	assert_false(sim_lru_access(&c, 3)); /* 3 mod 3 = set 0: evicts 0 */
	assert_false(sim_lru_holds(&c, 0));
	assert_true(sim_lru_holds(&c, 1));
}

/* ---- prefetch detectors ---- */

static void test_stride_any_fixed_stride(void **state)
{
	static struct sim_pf pf;
	unsigned covered = 0;

	(void)state;
	sim_pf_init(&pf, true, false, 2048, 6);
	/* 256 B apart from one instruction: the first three train (two equal distances), the rest are covered */
	for (int i = 0; i < 100; i++) {
		unsigned by = sim_pf_miss(&pf, 0x401000, 0x10000000 + 256 * (uint64_t)i);

		if (i < 3)
			assert_int_equal(by, 0);
		covered += by == SIM_PF_BY_STRIDE;
	}
	assert_int_equal(covered, 97);
	/* descending by 4 elements of 8 B */
	covered = 0;
	for (int i = 0; i < 50; i++)
		covered += sim_pf_miss(&pf, 0x402000, 0x20000000 - 32 * (uint64_t)i) != 0;
	assert_int_equal(covered, 47);
	/* longer than the prefetcher follows: never */
	covered = 0;
	for (int i = 0; i < 50; i++)
		covered += sim_pf_miss(&pf, 0x403000, 0x30000000 + 4096 * (uint64_t)i) != 0;
	assert_int_equal(covered, 0);
}

static void test_stride_not_a_miss_ratio(void **state)
{
	static struct sim_pf pf;
	unsigned covered = 0;
	uint64_t x = 12345;

	(void)state;
	sim_pf_init(&pf, true, true, 2048, 6);
	/* scattered addresses: neither detector covers them, however few they are */
	for (int i = 0; i < 1000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		covered += sim_pf_miss(&pf, 0x401000, 0x10000000 + ((x >> 20) & 0xffffff) * 64) != 0;
	}
	assert_true(covered < 10);
}

static void test_stream_per_page(void **state)
{
	static struct sim_pf pf;
	unsigned covered = 0;

	(void)state;
	sim_pf_init(&pf, false, true, 2048, 6);
	/* consecutive lines of 4 pages, each page trains again: 2 lines of 64 each */
	for (int i = 0; i < 256; i++)
		covered += sim_pf_miss(&pf, 0x401000 + (uint64_t)i, 0x10000000 + 64 * (uint64_t)i) == SIM_PF_BY_STREAM;
	assert_int_equal(covered, 256 - 4 * 2);
	/* every other line, descending, is a stream too */
	covered = 0;
	for (int i = 0; i < 32; i++)
		covered += sim_pf_miss(&pf, 0x500000, 0x20000fc0 - 128 * (uint64_t)i) != 0;
	assert_int_equal(covered, 30);
}

/* ---- the interval model ---- */

static void ivl_setup(struct sim_ivl *v, uint32_t mshr, uint32_t mem_line_ticks)
{
	struct sim_ivl_config c;

	memset(&c, 0, sizeof(c));
	c.tick_per_insn = SIM_IVL_TICKS / 4; /* 4-wide */
	c.rob = 200;
	c.mshr = mshr;
	c.lat[SIM_LVL_L1] = 5;
	c.lat[SIM_LVL_L2] = 15;
	c.lat[SIM_LVL_L3] = 50;
	c.lat[SIM_LVL_MEM] = 300;
	c.line_ticks[SIM_LVL_MEM] = mem_line_ticks;
	c.dep_range = 512;
	sim_ivl_init(v, &c);
}

/* Exposed cycles (all levels) after n loads, `gap` instructions apart, each a DRAM miss. */
static double walk(bool chase, uint32_t mshr, uint64_t gap, int n, bool covered)
{
	static struct sim_ivl v;
	uint64_t cyc[SIM_NR_LVL] = { 0 }, seq = 0, addr = 0x10000000;

	ivl_setup(&v, mshr, 0);
	for (int i = 0; i < n; i++) {
		/* a chase loads the next node's address; a walk loads data */
		uint64_t next = addr + 4096 + 64 * (uint64_t)(i % 7);
		unsigned res = sim_ivl_load(&v, seq, 0x401000, addr, addr >> 6, chase ? next : 7, SIM_LVL_MEM, covered,
					    cyc);

		if (chase && i)
			assert_true(res & SIM_IVL_DEPENDENT);
		if (!chase)
			assert_false(res & SIM_IVL_DEPENDENT);
		addr = next;
		seq += gap;
	}
	sim_ivl_finish(&v, seq);
	assert_int_equal(cyc[SIM_LVL_L2] + cyc[SIM_LVL_L3], 0);
	return (double)cyc[SIM_LVL_MEM] / SIM_IVL_TICKS;
}

static void test_isolated_misses(void **state)
{
	static struct sim_ivl v;
	uint64_t cyc[SIM_NR_LVL] = { 0 };

	(void)state;
	ivl_setup(&v, 10, 0);
	/* a DRAM miss exposes its latency less the ROB fill (200 instructions at 4 a cycle) */
	sim_ivl_load(&v, 0, 0x400000, 0x10000000, 0x10000000 >> 6, 0, SIM_LVL_MEM, false, cyc);
	sim_ivl_now(&v, 10000);
	assert_int_equal(cyc[SIM_LVL_MEM], (300 - 50) * SIM_IVL_TICKS);
	/* an L2 or L3 hit completes before the ROB is full: hidden */
	sim_ivl_load(&v, 20000, 0x400000, 0x20000000, 0x20000000 >> 6, 0, SIM_LVL_L2, false, cyc);
	sim_ivl_load(&v, 30000, 0x400000, 0x30000000, 0x30000000 >> 6, 0, SIM_LVL_L3, false, cyc);
	sim_ivl_finish(&v, 40000);
	assert_int_equal(cyc[SIM_LVL_L2], 0);
	assert_int_equal(cyc[SIM_LVL_L3], 0);
	assert_int_equal(cyc[SIM_LVL_MEM], (300 - 50) * SIM_IVL_TICKS);
	assert_int_equal(sim_ivl_now(&v, 40000), 40000 * (SIM_IVL_TICKS / 4) + (300 - 50) * SIM_IVL_TICKS);
}

static void test_chase_exposes_every_miss(void **state)
{
	double chase = walk(true, 10, 4, 1000, false), indep = walk(false, 10, 4, 1000, false);

	(void)state;
	/* a chase waits for each value: nearly its whole latency per miss */
	assert_true(chase > 1000 * 290.0);
	/* the same misses independent overlap, ten at a time (the fill buffers) */
	assert_true(indep < 1000 * 300.0 / 8);
	assert_true(indep > 1000 * 300.0 / 12);
	/* one fill buffer: no overlap either */
	assert_true(walk(false, 1, 4, 1000, false) > 1000 * 290.0);
	/* misses further apart than the ROB do not overlap at all, and each hides the ROB fill */
	assert_true(fabs(walk(false, 10, 400, 100, false) - 100 * 250.0) < 1.0);
}

static void test_prefetched_stream_costs_bandwidth_only(void **state)
{
	static struct sim_ivl v;
	uint64_t cyc[SIM_NR_LVL] = { 0 };

	(void)state;
	/* covered misses with no bandwidth limit: free (but the first, asked for before the run began) */
	assert_true(walk(false, 10, 4, 1000, true) <= 250.0);
	/* a channel that moves a line every 10 cycles, a line every 1 cycle of dispatch:
	 * the stream runs at the channel's pace, 9 cycles a line exposed */
	ivl_setup(&v, 10, 10 * SIM_IVL_TICKS);
	for (uint64_t i = 0; i < 10000; i++)
		sim_ivl_load(&v, 4 * i, 0x401000, 0x10000000 + 64 * i, (0x10000000 >> 6) + i, 0, SIM_LVL_MEM, true,
			     cyc);
	sim_ivl_finish(&v, 40000);
	assert_true(fabs((double)cyc[SIM_LVL_MEM] / SIM_IVL_TICKS - 10000 * 9.0) < 10000 * 0.05);
}

static void test_index_chase(void **state)
{
	static struct sim_ivl v;
	uint64_t cyc[SIM_NR_LVL] = { 0 }, i = 1, seq = 0;
	unsigned dep = 0;

	(void)state;
	ivl_setup(&v, 10, 0);
	/* i = next[i] over an int array: the address is base + 4 x the value just loaded */
	for (int k = 0; k < 200; k++) {
		uint64_t next = (i * 7919 + 13) % 100000;

		dep += (sim_ivl_load(&v, seq, 0x401000, 0x40000000 + 4 * i, (0x40000000 + 4 * i) >> 6, next,
				     SIM_LVL_MEM, false, cyc) & SIM_IVL_DEPENDENT) != 0;
		i = next;
		seq += 3;
	}
	sim_ivl_finish(&v, seq);
	assert_true(dep >= 197);
	assert_true((double)cyc[SIM_LVL_MEM] / SIM_IVL_TICKS > 200 * 290.0);
}

static void test_software_prefetch(void **state)
{
	static struct sim_ivl v;
	uint64_t cyc[SIM_NR_LVL] = { 0 };

	(void)state;
	ivl_setup(&v, 10, 0);
	/* prefetched 2000 instructions (500 cycles) before its load: arrived */
	sim_ivl_prefetch(&v, 0, 0x1000, SIM_LVL_MEM);
	assert_false(sim_ivl_load(&v, 2000, 0x401000, 0x1000 << 6, 0x1000, 0, SIM_LVL_L1, false, cyc) &
		     SIM_IVL_LATE_PF);
	/* prefetched just before: the load waits for it, a DRAM miss */
	sim_ivl_prefetch(&v, 3000, 0x2000, SIM_LVL_MEM);
	assert_true(sim_ivl_load(&v, 3004, 0x401000, 0x2000 << 6, 0x2000, 0, SIM_LVL_L1, false, cyc) &
		    SIM_IVL_LATE_PF);
	sim_ivl_finish(&v, 100000);
	assert_true(cyc[SIM_LVL_MEM] > 200 * SIM_IVL_TICKS);
}

static void test_mispredict_waits_for_the_miss(void **state)
{
	static struct sim_ivl v;
	uint64_t cyc[SIM_NR_LVL] = { 0 };

	(void)state;
	ivl_setup(&v, 10, 0);
	/* a branch on a missing load's value mispredicts: it resolves when the value comes */
	sim_ivl_load(&v, 100, 0x401000, 0x10000000, 0x10000000 >> 6, 5, SIM_LVL_MEM, false, cyc);
	sim_ivl_mispredict(&v, 102);
	sim_ivl_finish(&v, 1000);
	assert_int_equal(cyc[SIM_LVL_MEM], 300 * SIM_IVL_TICKS - 2 * (SIM_IVL_TICKS / 4));
}

/* ---- the whole machine ---- */

static struct sim_mach_config small_machine(void)
{
	struct sim_mach_config c;

	memset(&c, 0, sizeof(c));
	c.l1i = (struct sim_mach_cache){ 32768, 8, 64 };
	c.l1d = (struct sim_mach_cache){ 32768, 8, 64 };
	c.l2 = (struct sim_mach_cache){ 256 * 1024, 4, 64 };
	c.l3 = (struct sim_mach_cache){ 3 * 1024 * 1024, 12, 64 }; /* 4096 sets */
	c.lat[0] = 4;
	c.lat[1] = 12;
	c.lat[2] = 40;
	c.lat[3] = 250;
	c.width_milli = 4000;
	c.rob = 224;
	c.mshr = 12;
	c.btb_entries = 64;
	c.btb_assoc = 4;
	c.dsb_windows = 16;
	c.dsb_assoc = 4;
	c.dsb_window = 32;
	c.pf_stride = c.pf_stream = true;
	c.pf_max_stride = 2048;
	c.dep_range = 512;
	c.bpred = &bpred_preset("generic")->config;
	return c;
}

static struct sim_mach *make(const struct sim_mach_config *c)
{
	size_t n = sim_mach_bytes(c);
	void *mem;

	assert_true(n > 0);
	mem = aligned_alloc(8, (n + 7) & ~(size_t)7);
	assert_non_null(mem);
	return sim_mach_init(mem, n, c);
}

static void test_mach_levels(void **state)
{
	struct sim_mach_config c = small_machine();
	struct sim_mach *m = make(&c);
	static uint64_t ev[SIM_MEV_NR];
	uint64_t seq = 0;

	(void)state;
	/* 128 KiB read twice in lines: the first pass misses everything to DRAM, the second hits L2 */
	for (int pass = 0; pass < 2; pass++) {
		memset(ev, 0, sizeof(ev));
		for (uint64_t a = 0; a < 128 * 1024; a += 64)
			sim_mach_load(m, ev, seq++, 0x401000, 0x10000000 + a, 8, 0);
		assert_int_equal(ev[SIM_MEV_DR], 2048);
		assert_int_equal(ev[SIM_MEV_D1MR], 2048);
		assert_int_equal(ev[SIM_MEV_D2MR], pass ? 0 : 2048);
		assert_int_equal(ev[SIM_MEV_DLMR], pass ? 0 : 2048);
		/* a sequential stream: all but the first lines of each page covered */
		assert_true(ev[SIM_MEV_DPF] >= 2048 - 2 * 32);
	}
	/* a load across two lines costs the slower one */
	memset(ev, 0, sizeof(ev));
	sim_mach_load(m, ev, seq++, 0x401000, 0x50000000 - 4, 8, 0);
	assert_int_equal(ev[SIM_MEV_DLMR], 1);
	/* stores count apart */
	sim_mach_store(m, ev, seq++, 0x60000000, 8);
	assert_int_equal(ev[SIM_MEV_DW], 1);
	assert_int_equal(ev[SIM_MEV_DLMW], 1);
	free(m);
	(void)c;
}

static void test_mach_sizes_checked(void **state)
{
	struct sim_mach_config c = small_machine();

	(void)state;
	c.l2.size = 100000; /* not a whole number of sets */
	assert_int_equal(sim_mach_bytes(&c), 0);
	c = small_machine();
	c.l2.line = 128; /* lines differ */
	assert_int_equal(sim_mach_bytes(&c), 0);
	c = small_machine();
	c.btb_entries = 63;
	assert_int_equal(sim_mach_bytes(&c), 0);
}

static void test_mach_branches(void **state)
{
	struct sim_mach_config c = small_machine();
	struct sim_mach *m = make(&c);
	static uint64_t ev[SIM_MEV_NR];

	(void)state;
	/* a loop branch taken 999 times, then not: learnt, one BTB miss (the first taken) */
	for (int i = 0; i < 1000; i++)
		sim_mach_cond(m, ev, (uint64_t)i * 4, 0x401010, i < 999, 0x401000);
	assert_int_equal(ev[SIM_MEV_BC], 1000);
	assert_int_equal(ev[SIM_MEV_BTK], 999);
	assert_true(ev[SIM_MEV_BCM] < 20);
	assert_true(ev[SIM_MEV_BTBM] <= 1);
	/* calls and returns: the return stack predicts the returns */
	memset(ev, 0, sizeof(ev));
	for (int i = 0; i < 100; i++) {
		sim_mach_call(m, ev, 5000, 0x402000, 0x403000, 0x402005, false);
		sim_mach_ret(m, ev, 5001, 0x403010, 0x402005);
	}
	assert_int_equal(ev[SIM_MEV_BR], 100);
	assert_int_equal(ev[SIM_MEV_BRM], 0);
	assert_int_equal(ev[SIM_MEV_BI], 0);
	assert_int_equal(ev[SIM_MEV_BTK], 200);
	/* 100 distinct jumps through a 64-entry BTB, twice: the second pass misses again */
	memset(ev, 0, sizeof(ev));
	for (int pass = 0; pass < 2; pass++)
		for (uint64_t j = 0; j < 100; j++)
			sim_mach_jump(m, ev, 0x500000 + 16 * j, 0x600000);
	assert_int_equal(ev[SIM_MEV_BTBM], 200);
	free(m);
}

static void test_mach_uop_cache(void **state)
{
	struct sim_mach_config c = small_machine();
	struct sim_mach *m = make(&c);
	static uint64_t ev[SIM_MEV_NR];

	(void)state;
	/* 8 windows fit in 16: after the first round every window hits */
	for (int r = 0; r < 3; r++)
		for (uint64_t w = 0; w < 8; w++)
			sim_mach_window(m, ev, 0x401000 + 32 * w, 7);
	assert_int_equal(ev[SIM_MEV_IDSBM], 8);
	assert_int_equal(ev[SIM_MEV_IMITE], 56);
	free(m);
}

static void test_event_names_parse(void **state)
{
	(void)state;
	/* every event the tool writes is one the cost-file parser knows, by the same name */
	for (unsigned e = 0; e < SIM_MEV_NR; e++) {
		bool known = false;

		for (int k = 0; k < SIM_NR_EVENTS; k++)
			known |= !strcmp(sim_event_name((enum sim_event)k), sim_mev_name(e));
		if (!known)
			fail_msg("the tool's event '%s' is unknown to the parser", sim_mev_name(e));
	}
	assert_string_equal(sim_mev_name(SIM_MEV_NR), "?");
	assert_true(sim_mev_in_ticks(SIM_MEV_DCYM));
	assert_false(sim_mev_in_ticks(SIM_MEV_IR));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lru_replaces_the_least_recent),
		cmocka_unit_test(test_lru_any_set_count),
		cmocka_unit_test(test_stride_any_fixed_stride),
		cmocka_unit_test(test_stride_not_a_miss_ratio),
		cmocka_unit_test(test_stream_per_page),
		cmocka_unit_test(test_isolated_misses),
		cmocka_unit_test(test_chase_exposes_every_miss),
		cmocka_unit_test(test_prefetched_stream_costs_bandwidth_only),
		cmocka_unit_test(test_index_chase),
		cmocka_unit_test(test_software_prefetch),
		cmocka_unit_test(test_mispredict_waits_for_the_miss),
		cmocka_unit_test(test_mach_levels),
		cmocka_unit_test(test_mach_sizes_checked),
		cmocka_unit_test(test_mach_branches),
		cmocka_unit_test(test_mach_uop_cache),
		cmocka_unit_test(test_event_names_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
