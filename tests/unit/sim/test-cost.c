/*
 * Unit tests of sim/cost: the cost model on a small profile whose every figure is
 * worked out by hand below, the site ordering per bucket, and the countset.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "base/countset.h"
#include "base/err.h"
#include "sim/cost.h"

/*
 * Four lines of a.c, function f (events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim):
 *   line 1: branches:     Ir 4000, Bc 1000, Bcm 100, Bi 10, Bim 5
 *   line 2: code misses:  Ir 800, I1mr 30, ILmr 10
 *   line 3: scattered:    Ir 400, Dr 100, D1mr 50, DLmr 10 (half the reads miss)
 *   line 4: a stream:     Ir 800, Dr 1600, D1mr 100, DLmr 20 (1 in 16 misses), Dw 500, D1mw 50, DLmw 40
 */
static const char profile_text[] = "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim\n"
				   "fl=a.c\n"
				   "fn=f\n"
				   "1 4000 0 0 0 0 0 0 0 0 1000 100 10 5\n"
				   "2 800 30 10\n"
				   "3 400 0 0 100 50 10\n"
				   "4 800 0 0 1600 100 20 500 50 40\n"
				   "summary: 6000 30 10 1700 150 30 500 50 40 1000 100 10 5\n";

/* width 4, 1 µop per instruction, mispredict 10, I1 miss 10, LL hit 20, memory 100, MLP 2, streams 8 (ratio 1/8). */
static void machine(struct sim_machine *m)
{
	struct tdp_err err = TDP_ERR_INIT;

	assert_int_equal(sim_machine_preset(m, "generic", &err), 0);
	m->width = 4;
	m->uops_per_insn = 1;
	m->branch_penalty = 10;
	m->i1_latency = 10;
	m->ll_latency = 20;
	m->mem_latency = 100;
	m->mlp = 2;
	m->stream_mlp = 8;
	m->stream_ratio = 0.125;
	/* no resteers: the pinned sums below are the plain formula's; test_resteers adds them */
	m->resteer_latency = 0;
	m->indirect_resteer = 0;
	assert_int_equal(sim_machine_validate(m, &err), 0);
}

static void load(struct sim_profile *p)
{
	struct tdp_err err = TDP_ERR_INIT;

	sim_profile_init(p);
	assert_int_equal(sim_cachegrind_parse(p, (const uint8_t *)profile_text, strlen(profile_text), "t", &err), 0);
}

static void test_estimate(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct sim_estimate est;
	struct sim_machine m;
	struct sim_profile p;

	(void)state;
	machine(&m);
	load(&p);
	assert_int_equal(sim_estimate(&p, &m, &est, &err), 0);
	/* retire   = 6000 instructions / 4                                  = 1500 */
	assert_float_equal(est.cycles_by.v[SIM_RETIRING], 1500, 1e-9);
	/* bad_spec = (100 + 5) mispredicts * 10                             = 1050 */
	assert_float_equal(est.cycles_by.v[SIM_BAD_SPECULATION], 1050, 1e-9);
	/* frontend = (30 - 10) * 10 + 10 * 100 = 200 + 1000                 = 1200 */
	assert_float_equal(est.cycles_by.v[SIM_FRONTEND_BOUND], 1200, 1e-9);
	/* backend  = line 3 (50/100 > 1/8: MLP 2): (40 * 20 + 10 * 100) / 2 =  900
	 *          + line 4 (100/1600 <= 1/8: stream): (80 * 20 + 20 * 100) / 8 = 450;
	 *            writes cost nothing                                     = 1350 */
	assert_float_equal(est.cycles_by.v[SIM_BACKEND_BOUND], 1350, 1e-9);
	/* cycles = 1500 + 1050 + 1200 + 1350 = 5100; slots = 4 * 5100 = 20400 */
	assert_float_equal(est.cycles, 5100, 1e-9);
	assert_float_equal(est.slots, 20400, 1e-9);
	assert_float_equal(est.uops, 6000, 1e-9);
	/* 1500/5100 = 29.41 %, 1050/5100 = 20.59 %, 1200/5100 = 23.53 %, remainder 26.47 % */
	assert_float_equal(est.topdown.retiring, 100.0 * 1500 / 5100, 1e-9);
	assert_float_equal(est.topdown.bad_speculation, 100.0 * 1050 / 5100, 1e-9);
	assert_float_equal(est.topdown.frontend_bound, 100.0 * 1200 / 5100, 1e-9);
	assert_float_equal(est.topdown.backend_bound, 100.0 * 1350 / 5100, 1e-9);
	assert_float_equal(est.topdown.retiring + est.topdown.bad_speculation + est.topdown.frontend_bound +
				   est.topdown.backend_bound,
			   100, 1e-9);
	assert_int_equal(est.dominant, SIM_RETIRING);
	assert_int_equal(est.counts.v[SIM_IR], 6000);

	/* No stream model: line 4 pays full latency / MLP 2 = 3600 / 2 = 1800; backend 2700. */
	m.stream_ratio = 0;
	assert_int_equal(sim_estimate(&p, &m, &est, &err), 0);
	assert_float_equal(est.cycles_by.v[SIM_BACKEND_BOUND], 2700, 1e-9);
	assert_float_equal(est.cycles, 6450, 1e-9);
	assert_int_equal(est.dominant, SIM_BACKEND_BOUND);

	/* Penalty 100: bad_spec = 105 * 100 = 10500; cycles = 1500 + 10500 + 1200 + 1350 = 14550. */
	machine(&m);
	m.branch_penalty = 100;
	assert_int_equal(sim_estimate(&p, &m, &est, &err), 0);
	assert_float_equal(est.cycles, 14550, 1e-9);
	assert_int_equal(est.dominant, SIM_BAD_SPECULATION);
	assert_float_equal(est.topdown.bad_speculation, 100.0 * 10500 / 14550, 1e-9);
	sim_profile_release(&p);
}

/* A mispredict's penalty split between wasted issue and the front end's resteer; indirect branches' bubble. */
static void test_resteers(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct sim_estimate est;
	struct sim_machine m;
	struct sim_profile p;

	(void)state;
	machine(&m);
	m.resteer_latency = 4;
	m.indirect_resteer = 2;
	load(&p);
	assert_int_equal(sim_estimate(&p, &m, &est, &err), 0);
	/* bad_spec = 105 mispredicts * (10 - 4) = 630 */
	assert_float_equal(est.cycles_by.v[SIM_BAD_SPECULATION], 630, 1e-9);
	/* frontend = 1200 (i-cache) + 105 * 4 (resteers) + 10 indirect * 2 = 1640 */
	assert_float_equal(est.cycles_by.v[SIM_FRONTEND_BOUND], 1640, 1e-9);
	/* the total of a mispredict is unchanged: 5100 - 1050 + 630 + 420 + 20 = 5120 */
	assert_float_equal(est.cycles, 5120, 1e-9);
	/* level 2 sums to level 1; without a block model core and heavy are not estimated */
	assert_true(est.topdown.level2);
	assert_float_equal(est.topdown.fetch_latency, est.topdown.frontend_bound, 1e-9);
	assert_float_equal(est.topdown.branch_mispredicts, est.topdown.bad_speculation, 1e-9);
	assert_float_equal(est.topdown.memory_bound, est.topdown.backend_bound, 1e-9);
	assert_true(isnan(est.topdown.core_bound) && isnan(est.topdown.heavy_operations));
	/* a resteer longer than the whole penalty is refused */
	m.resteer_latency = 11;
	assert_int_equal(sim_machine_validate(&m, &err), TDP_EUSAGE);
	assert_non_null(strstr(err.msg, "resteer-latency"));
	sim_profile_release(&p);
}

static void test_sites(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct sim_machine m;
	struct sim_profile p;
	struct sim_site *s;
	size_t nr;

	(void)state;
	machine(&m);
	load(&p);
	assert_int_equal(sim_sites_build(&p, &m, &s, &nr, &err), 0);
	assert_int_equal(nr, 4);

	sim_sites_sort(s, nr, SIM_BACKEND_BOUND);
	assert_int_equal(s[0].line, 3); /* 900 cycles */
	assert_false(s[0].stream);
	assert_float_equal(s[0].cycles.v[SIM_BACKEND_BOUND], 900, 1e-9);
	assert_int_equal(s[1].line, 4); /* 450 cycles */
	assert_true(s[1].stream);
	assert_string_equal(sim_profile_name(&p, s[1].file), "a.c");
	assert_string_equal(sim_profile_name(&p, s[1].fn), "f");
	assert_int_equal(s[1].execs, 0); /* cachegrind: unknown */

	sim_sites_sort(s, nr, SIM_BAD_SPECULATION);
	assert_int_equal(s[0].line, 1);
	assert_int_equal(sim_site_branches(&s[0]), 1010);
	assert_int_equal(sim_site_mispredicts(&s[0]), 105);
	assert_float_equal(s[0].cycles.v[SIM_BAD_SPECULATION], 1050, 1e-9);

	sim_sites_sort(s, nr, SIM_FRONTEND_BOUND);
	assert_int_equal(s[0].line, 2);

	/* Retiring: by instructions; lines 2 and 4 tie at 800 and go in line order. */
	sim_sites_sort(s, nr, SIM_RETIRING);
	assert_int_equal(s[0].line, 1);
	assert_int_equal(s[1].line, 2);
	assert_int_equal(s[2].line, 4);
	assert_int_equal(s[3].line, 3);
	sim_sites_free(s);
	sim_sites_free(NULL);
	sim_profile_release(&p);
}

static void test_sites_addresses(void **state)
{
	/* Per instruction (callgrind): two branches on line 7, the second mispredicts more. */
	static const char clg[] = "positions: instr line\n"
				  "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim\n"
				  "ob=(1) prog\nfl=(1) b.c\nfn=(1) g\n"
				  "0x400 7 50 0 0 50 20 0 0 0 0 0 0 0 0\n" /* the load: 20 misses */
				  "+3 * 50 0 0 0 0 0 0 0 0 50 2\n"
				  "+2 * 40 0 0 0 0 0 0 0 0 40 30\n"
				  "+2 8 10\n";
	struct tdp_err err = TDP_ERR_INIT;
	struct sim_machine m;
	struct sim_profile p;
	struct sim_site *s;
	size_t nr;

	(void)state;
	machine(&m);
	sim_profile_init(&p);
	assert_int_equal(sim_callgrind_parse(&p, (const uint8_t *)clg, strlen(clg), "t", &err), 0);
	assert_int_equal(sim_sites_build(&p, &m, &s, &nr, &err), 0);
	assert_int_equal(nr, 2);
	sim_sites_sort(s, nr, SIM_BAD_SPECULATION);
	assert_int_equal(s[0].line, 7);
	assert_int_equal(s[0].branch_addr, 0x405); /* 30 mispredicts beat 2 */
	assert_int_equal(s[0].miss_addr, 0x400);
	assert_int_equal(s[0].execs, 50);          /* its instructions ran at most 50 times */
	assert_int_equal(sim_site_mispredicts(&s[0]), 32);
	assert_string_equal(sim_profile_name(&p, s[0].obj), "prog");
	assert_int_equal(s[1].line, 8);
	assert_int_equal(s[1].branch_addr, 0);
	sim_sites_free(s);
	sim_profile_release(&p);
}

/*
 * The sites find each entry's block-model instruction through a hash of the core
 * (sites.c): among 4,000 others it is still found, and when an (object, address)
 * is there twice the one sim_core_find() gives is used.
 */
static void test_core_lookup(void **state)
{
	static const char clg[] = "positions: instr line\n"
				  "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim\n"
				  "ob=(1) prog\nfl=(1) c.c\nfn=(1) k\n"
				  "0x500 3 100\n+4 * 100\n+3 * 100\n";
	enum { N = 4000 };
	struct tdp_err err = TDP_ERR_INIT;
	struct sim_core_insn *insns = tdp_calloc(N + 4, sizeof(*insns));
	struct sim_core core;
	struct sim_estimate est;
	struct sim_machine m;
	struct sim_profile p;
	size_t n = 0;

	(void)state;
	assert_non_null(insns);
	machine(&m);
	sim_profile_init(&p);
	assert_int_equal(sim_callgrind_parse(&p, (const uint8_t *)clg, strlen(clg), "t", &err), 0);
	/* sorted by (obj, addr): 0x500, 0x504 (3 µops), 0x507, then N others of another object */
	for (uint64_t a = 0x500; a <= 0x507; a += a == 0x504 ? 3 : 4) {
		insns[n].obj = p.v[0].obj;
		insns[n].addr = a;
		insns[n++].uops = a == 0x504 ? 3 : 1;
	}
	for (size_t i = 0; i < N; i++) {
		insns[n].obj = p.v[0].obj + 1;
		insns[n].addr = 0x500 + 4 * i;
		insns[n++].uops = 7;
	}
	memset(&core, 0, sizeof(core));
	core.valid = true;
	core.insns = insns;
	core.nr_insns = n;
	assert_int_equal(sim_estimate_core(&p, &m, &core, &est, &err), 0);
	assert_float_equal(est.uops, 100 + 300 + 100, 1e-9); /* not the other object's 7 µops */
	/* 0x504 twice (4 and 3 µops; alone, so that the binary search meets the second
	 * first): the estimate takes sim_core_find()'s */
	memmove(&insns[2], &insns[1], (n - 1) * sizeof(*insns));
	insns[1].uops = 4;
	core.nr_insns = 4;
	assert_int_equal(sim_core_find(&core, p.v[0].obj, 0x504)->uops, 3);
	assert_int_equal(sim_estimate_core(&p, &m, &core, &est, &err), 0);
	assert_float_equal(est.uops, 100 + 100.0 * sim_core_find(&core, p.v[0].obj, 0x504)->uops + 100, 1e-9);
	sim_profile_release(&p);
	tdp_free(insns);
}

/* The block model's results combined: µops, heavy operations, core stall, and a load's overlap by its flags. */
static void test_core_model(void **state)
{
	static const char clg[] = "positions: instr line\n"
				  "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim\n"
				  "ob=(1) prog\nfl=(1) c.c\nfn=(1) k\n"
				  "0x500 3 100 0 0 100 40 0\n"             /* a load: 40 misses, LL hits */
				  "+4 * 100\n"                             /* a 3-µop instruction */
				  "+3 * 100 0 0 0 0 0 0 0 0 100 0\n";      /* the loop branch */
	struct tdp_err err = TDP_ERR_INIT;
	struct sim_core_insn insns[3];
	struct sim_core core;
	struct sim_estimate est;
	struct sim_machine m;
	struct sim_profile p;
	double cycles;

	(void)state;
	machine(&m);
	m.indep_mlp = 5;
	sim_profile_init(&p);
	assert_int_equal(sim_callgrind_parse(&p, (const uint8_t *)clg, strlen(clg), "t", &err), 0);
	memset(&core, 0, sizeof(core));
	memset(insns, 0, sizeof(insns));
	for (int i = 0; i < 3; i++) {
		insns[i].obj = p.v[0].obj;
		insns[i].uops = i == 1 ? 3 : 1;
	}
	insns[0].addr = 0x500;
	insns[0].flags = SIM_INSN_INDEP;
	insns[1].addr = 0x504;
	insns[1].stall = 2; /* the block's chain: 2 cycles per execution beyond full width */
	insns[2].addr = 0x507;
	core.valid = true;
	core.insns = insns;
	core.nr_insns = 3;
	assert_ptr_equal(sim_core_find(&core, p.v[0].obj, 0x504), &insns[1]);
	assert_null(sim_core_find(&core, p.v[0].obj, 0x505));

	assert_int_equal(sim_estimate_core(&p, &m, &core, &est, &err), 0);
	/* retire = (100 + 300 + 100) µops / 4 = 125, of which heavy 300 / 4 = 75 */
	assert_float_equal(est.cycles_by.v[SIM_RETIRING], 125, 1e-9);
	assert_float_equal(est.uops, 500, 1e-9);
	/* backend = core 100 * 2 = 200 + memory 40 * 20 / indep-mlp 5 = 160 */
	assert_float_equal(est.cycles_by.v[SIM_BACKEND_BOUND], 360, 1e-9);
	cycles = 125 + 360;
	assert_float_equal(est.cycles, cycles, 1e-9);
	assert_float_equal(est.topdown.core_bound, 100.0 * 200 / cycles, 1e-9);
	assert_float_equal(est.topdown.memory_bound, 100.0 * 160 / cycles, 1e-9);
	assert_float_equal(est.topdown.heavy_operations, 100.0 * 75 / cycles, 1e-9);
	assert_float_equal(est.topdown.light_operations, 100.0 * 50 / cycles, 1e-9);
	assert_float_equal(est.topdown.fetch_bandwidth, 0, 1e-9);
	assert_ptr_equal(est.core, &core);

	/* the same load as a chase: its misses do not overlap (mlp 2) and the block's chain is load
	 * latency, Memory Bound: memory = 40 * 20 / 2 = 400 + the chain's 200, core 0 */
	insns[0].flags = SIM_INSN_CHASE | SIM_INSN_LOAD_CHAIN;
	insns[1].flags = insns[2].flags = SIM_INSN_LOAD_CHAIN;
	assert_int_equal(sim_estimate_core(&p, &m, &core, &est, &err), 0);
	assert_float_equal(est.cycles_by.v[SIM_BACKEND_BOUND], 600, 1e-9);
	assert_float_equal(est.topdown.core_bound, 0, 1e-9);
	assert_float_equal(est.topdown.memory_bound, est.topdown.backend_bound, 1e-9);

	/* prefetched: stream-mlp 8: 40 * 20 / 8 = 100 */
	insns[0].flags = SIM_INSN_PREFETCHED;
	insns[1].flags = insns[2].flags = 0;
	assert_int_equal(sim_estimate_core(&p, &m, &core, &est, &err), 0);
	assert_float_equal(est.cycles_by.v[SIM_BACKEND_BOUND], 300, 1e-9);

	/* no block model: the plain rule (1 µop each, MLP 2), core and heavy not estimated */
	core.valid = false;
	assert_int_equal(sim_estimate_core(&p, &m, &core, &est, &err), 0);
	assert_float_equal(est.cycles_by.v[SIM_RETIRING], 300.0 / 4, 1e-9);
	assert_float_equal(est.cycles_by.v[SIM_BACKEND_BOUND], 400, 1e-9);
	assert_true(isnan(est.topdown.core_bound) && isnan(est.topdown.heavy_operations));
	sim_profile_release(&p);
}

static void test_countset(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct countset cs = COUNTSET_INIT;
	struct sim_estimate est;
	struct sim_machine m;
	struct sim_profile p;
	static const struct {
		const char *name;
		double value;
	} want[] = {
		{ "cycles", 5100 },
		{ "instructions", 6000 },
		{ "branches", 1010 },           /* Bc + Bi */
		{ "branch-misses", 105 },       /* Bcm + Bim */
		{ "L1-icache-load-misses", 30 },
		{ "L1-dcache-loads", 1700 },
		{ "L1-dcache-load-misses", 150 },
		{ "L1-dcache-stores", 500 },
		{ "L1-dcache-store-misses", 50 },
		{ "LLC-loads", 150 },
		{ "LLC-load-misses", 30 },
		{ "LLC-stores", 50 },
		{ "LLC-store-misses", 40 },
	};
	double v;

	(void)state;
	machine(&m);
	load(&p);
	assert_int_equal(sim_estimate(&p, &m, &est, &err), 0);
	assert_int_equal(sim_estimate_countset(&p, &est, &cs, &err), 0);
	assert_int_equal(cs.backend, BACKEND_SIM);
	assert_int_equal(cs.nr, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct count *c = countset_find(&cs, want[i].name, -1);

		assert_non_null(c);
		assert_true(c->estimate);
		assert_int_equal(c->status, COUNT_OK);
		if (c->value != want[i].value)
			fail_msg("%s: %g, want %g", want[i].name, c->value, want[i].value);
	}
	countset_release(&cs);
	sim_profile_release(&p);

	/* A profile without cache counts: those are <not supported>, never 0. */
	sim_profile_init(&p);
	assert_int_equal(sim_callgrind_parse(&p, (const uint8_t *)"events: Ir Bc Bcm\nfn=a\n1 10 2 1\n", 32, "t", &err),
			 0);
	assert_int_equal(sim_estimate(&p, &m, &est, &err), TDP_EANALYSIS);
	cs.backend = BACKEND_PMU;
	assert_int_equal(sim_estimate_countset(&p, NULL, &cs, &err), 0);
	assert_int_equal(cs.backend, BACKEND_SIM);
	assert_true(countset_get(&cs, "instructions", &v) && v == 10);
	assert_false(countset_get(&cs, "cycles", &v));
	assert_false(countset_get(&cs, "branches", &v)); /* Bi missing */
	assert_false(countset_get(&cs, "L1-dcache-load-misses", &v));
	assert_int_equal(countset_find(&cs, "LLC-load-misses", -1)->status, COUNT_NOT_SUPPORTED);
	countset_release(&cs);
	sim_profile_release(&p);

	/* Allocation failures leave no leak. */
	load(&p);
	for (long n = 0;; n++) {
		int ret;

		tdp_err_clear(&err);
		tdp_alloc_fail_after(n);
		ret = sim_estimate(&p, &m, &est, &err);
		if (!ret)
			ret = sim_estimate_countset(&p, &est, &cs, &err);
		tdp_alloc_fail_after(-1);
		countset_release(&cs);
		if (!ret)
			break;
		assert_int_equal(ret, TDP_ENOMEM);
	}
	sim_profile_release(&p);
}

static void test_no_instructions(void **state)
{
	static const char empty[] = "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim\nsummary: 0\n";
	struct tdp_err err = TDP_ERR_INIT;
	struct sim_estimate est;
	struct sim_machine m;
	struct sim_profile p;

	(void)state;
	machine(&m);
	sim_profile_init(&p);
	assert_int_equal(sim_cachegrind_parse(&p, (const uint8_t *)empty, strlen(empty), "t", &err), 0);
	assert_int_equal(sim_estimate(&p, &m, &est, &err), TDP_EANALYSIS);
	assert_string_equal(err.msg, "cannot estimate: the profile counted no instruction");
	assert_string_equal(sim_bucket_name(SIM_FRONTEND_BOUND), "frontend_bound");
	sim_profile_release(&p);
}

/*
 * tdprof's tool (vgtool/): its exposed cycles are Memory Bound as they are, by level.
 * Two instructions of g.c (callgrind format, tool events):
 *   0x10 line 1: Ir 6000, Bc 1000, Bcm 10, Br 100, Brm 5, Btbm 20, I1mr 30, I2mr 10, ILmr 2,
 *                Idsbm 4, Imite 40
 *   0x20 line 2: Ir 2000, Dr 1000, D1mr 500, D2mr 300, DLmr 100, Dcy2 0, Dcy3 2000, DcyM 9000
 */
static const char tool_text[] =
	"# callgrind format\ncreator: tdpsim-1\npositions: instr line\n"
	"events: Ir Dr Dw I1mr I2mr ILmr D1mr D2mr DLmr D1mw D2mw DLmw Bc Bcm Bi Bim Br Brm Btk Btbm Dpf Dsw "
	"Ddep Dcy2 Dcy3 DcyM Idsbm Imite\n"
	"ob=(1) /g\nfl=(1) g.c\nfn=(1) g\n"
	"0x10 1 6000 . . 30 10 2 . . . . . . 1000 10 . . 100 5 500 20 . . . . . . 4 40\n"
	"0x20 2 2000 1000 . . . . 500 300 100 . . . . . . . . . . . . . 400 . 2000 9000\n"
	"totals: 8000 1000 0 30 10 2 500 300 100 0 0 0 1000 10 0 0 100 5 500 20 0 0 400 0 2000 9000 4 40\n";

static void test_tool_profile(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct sim_estimate est;
	struct sim_machine m;
	struct sim_profile p;
	struct countset cs = COUNTSET_INIT;
	const struct sim_topdown *td = &est.topdown;
	double fe;

	(void)state;
	machine(&m);
	m.resteer_latency = 4;
	m.indirect_resteer = 2;
	m.btb_penalty = 9;
	m.l3_latency = 50;
	m.decode_width = 3;
	m.dsb_switch = 2;
	sim_profile_init(&p);
	assert_int_equal(sim_callgrind_parse(&p, (const uint8_t *)tool_text, strlen(tool_text), "t", &err), 0);
	assert_true(sim_profile_from_tool(&p));
	assert_int_equal(sim_estimate(&p, &m, &est, &err), 0);
	/* retire = 8000 / 4 = 2000; bad_spec = (10 + 5) * (10 - 4) = 90 */
	assert_float_equal(est.cycles_by.v[SIM_RETIRING], 2000, 1e-9);
	assert_float_equal(est.cycles_by.v[SIM_BAD_SPECULATION], 90, 1e-9);
	/* frontend = i-cache (20 * 10 + 8 * 50 + 2 * 100 = 800) + resteers (15 * 4 + 20 * 9 = 240: predicted
	 *            returns cost nothing) + µop cache (4 * 2 + 40 * (1/3 - 1/4) = 8 + 3.33) */
	fe = 800 + 240 + 8 + 40 * (1.0 / 3 - 1.0 / 4);
	assert_float_equal(est.cycles_by.v[SIM_FRONTEND_BOUND], fe, 1e-9);
	/* backend = the tool's exposed cycles, no overlap rule: 2000 + 9000 */
	assert_float_equal(est.cycles_by.v[SIM_BACKEND_BOUND], 11000, 1e-9);
	assert_true(td->level2 && td->level3);
	assert_float_equal(td->retiring + td->bad_speculation + td->frontend_bound + td->backend_bound, 100, 1e-9);
	/* level 3 adds up to level 2 */
	assert_float_equal(td->l1_bound + td->l2_bound + td->l3_bound + td->dram_bound, td->memory_bound, 1e-9);
	assert_float_equal(td->dram_bound, 100.0 * 9000 / est.cycles, 1e-9);
	assert_float_equal(td->l3_bound, 100.0 * 2000 / est.cycles, 1e-9);
	assert_float_equal(td->l2_bound, 0, 1e-9);
	assert_float_equal(td->icache_misses + td->branch_resteers, td->fetch_latency, 1e-9);
	assert_float_equal(td->icache_misses, 100.0 * 800 / est.cycles, 1e-9);
	assert_float_equal(td->mite + td->dsb, td->fetch_bandwidth, 1e-9);
	assert_float_equal(td->fetch_bandwidth, 100.0 * (fe - 1040) / est.cycles, 1e-9);
	/* perf's names: the LLC sees what misses L2; returns are branches */
	assert_int_equal(sim_estimate_countset(&p, &est, &cs, &err), 0);
	assert_float_equal(countset_find(&cs, "LLC-loads", -1)->value, 300, 1e-9);
	assert_float_equal(countset_find(&cs, "branches", -1)->value, 1100, 1e-9);
	assert_float_equal(countset_find(&cs, "branch-misses", -1)->value, 15, 1e-9);
	countset_release(&cs);
	sim_profile_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_estimate),
		cmocka_unit_test(test_resteers),
		cmocka_unit_test(test_sites),
		cmocka_unit_test(test_sites_addresses),
		cmocka_unit_test(test_core_model),
		cmocka_unit_test(test_core_lookup),
		cmocka_unit_test(test_countset),
		cmocka_unit_test(test_tool_profile),
		cmocka_unit_test(test_no_instructions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
