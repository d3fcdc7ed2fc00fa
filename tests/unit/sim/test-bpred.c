/*
 * Unit tests of sim/bpred: the TAGE, loop, ITTAGE and return-stack predictor learns
 * what a modern core learns (patterns, loop exits, correlated branches, repeating
 * indirect targets, nested returns) and no more (random outcomes and targets, a
 * call chain deeper than its stack); a bimodal table alone does not. Sequences are
 * deterministic (a fixed-seed xorshift), so are the counts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/bpred.h"
#include "sim/machine.h"

#define LOOP_PC 0x401000u  /* the back edge of the loop around each pattern */
#define BR_PC 0x400f20u    /* the branch under test */

struct pred {
	void *mem;
	struct bpred *p;
};

static void pred_new(struct pred *pr, const struct bpred_config *c)
{
	size_t n = bpred_size(c);

	assert_true(n > 0);
	pr->mem = malloc(n); /* malloc's alignment is at least 8 */
	assert_non_null(pr->mem);
	pr->p = bpred_init(pr->mem, n, c);
	assert_non_null(pr->p);
}

static void pred_free(struct pred *pr)
{
	free(pr->mem);
}

static struct bpred_config preset(const char *name)
{
	const struct bpred_preset *b = bpred_preset(name);

	assert_non_null(b);
	return b->config;
}

/* The base table alone: 2-bit counters indexed by address, last-target indirect. */
static struct bpred_config bimodal_only(void)
{
	struct bpred_config c = preset("alderlake");

	c.nr_tagged = 0;
	c.nr_ittage = 0;
	c.log_loop = 0;
	return c;
}

static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/*
 * A loop whose body holds one branch following pattern[i % period], around it the
 * loop's own back edge (taken): mispredictions of the body's branch in `iters`
 * iterations after `warm` of warm-up.
 */
static unsigned run_pattern(const struct bpred_config *c, const bool *pattern, unsigned period,
			    unsigned warm, unsigned iters)
{
	struct pred pr;
	unsigned miss = 0;

	pred_new(&pr, c);
	for (unsigned i = 0; i < warm + iters; i++) {
		bool m = bpred_cond(pr.p, BR_PC, pattern[i % period]);

		if (i >= warm)
			miss += m;
		bpred_cond(pr.p, LOOP_PC, true);
	}
	pred_free(&pr);
	return miss;
}

static void test_every_fourth(void **state)
{
	const bool pattern[4] = { false, false, false, true };
	struct bpred_config tage = preset("alderlake"), bim = bimodal_only();
	unsigned t, b;

	(void)state;
	t = run_pattern(&tage, pattern, 4, 2000, 100000);
	b = run_pattern(&bim, pattern, 4, 2000, 100000);
	/* TAGE: under 1 %; 2-bit counters: the taken one every time (25 %) */
	assert_true(t < 1000);
	assert_true(b > 24000 && b < 26000);
	/* Skylake's smaller budget learns it too */
	tage = preset("skylake");
	assert_true(run_pattern(&tage, pattern, 4, 2000, 100000) < 1000);
}

static void test_long_patterns(void **state)
{
	uint32_t s = 0x12345678u;
	bool pattern[32];
	struct bpred_config tage = preset("alderlake"), bim = bimodal_only();

	(void)state;
	for (unsigned period = 16; period <= 32; period *= 2) {
		unsigned ones = 0, t, b;

		for (unsigned i = 0; i < period; i++)
			ones += pattern[i] = rnd(&s) & 1;
		assert_true(ones > 3 && ones < period - 3); /* a pattern, not a constant */
		t = run_pattern(&tage, pattern, period, 20000, 100000);
		b = run_pattern(&bim, pattern, period, 20000, 100000);
		if (t >= 1000 || b < 10000)
			fail_msg("period %u: tage %u, bimodal %u mispredicts in 100000", period, t, b);
	}
}

/* An inner loop of `trips` iterations (back edge taken trips - 1 times, then not),
 * inside an outer loop with its own back edge: mispredictions of the inner back
 * edge over `runs` runs after `warm` runs. */
static unsigned run_loop(const struct bpred_config *c, unsigned trips, unsigned warm, unsigned runs)
{
	struct pred pr;
	unsigned miss = 0;

	pred_new(&pr, c);
	for (unsigned r = 0; r < warm + runs; r++) {
		for (unsigned i = 0; i < trips; i++) {
			bool m = bpred_cond(pr.p, BR_PC, i + 1 < trips);

			if (r >= warm)
				miss += m;
		}
		bpred_cond(pr.p, LOOP_PC, true);
	}
	pred_free(&pr);
	return miss;
}

static void test_loop_exit(void **state)
{
	struct bpred_config tage = preset("alderlake"), noloop = preset("alderlake");

	(void)state;
	noloop.log_loop = 0;
	/* 20 trips: within the global history, TAGE alone learns the exit */
	assert_true(run_loop(&noloop, 20, 200, 1000) < 10);
	/* 300 trips: within Golden Cove's history (400 bits here), past Skylake's (200) */
	assert_true(run_loop(&noloop, 300, 50, 200) < 5);
	noloop = preset("skylake");
	noloop.log_loop = 0;
	assert_true(run_loop(&noloop, 300, 50, 200) >= 180);
	noloop = preset("alderlake");
	noloop.log_loop = 0;
	/* 1000 trips: beyond any history; the loop predictor counts them, TAGE misses
	 * about every exit */
	assert_true(run_loop(&tage, 1000, 20, 200) <= 2);
	assert_true(run_loop(&noloop, 1000, 20, 200) >= 180);
}

/* Branch A is random; two always-taken branches later, branch B goes as A went. */
static void run_correlated(const struct bpred_config *c, unsigned *miss_a, unsigned *miss_b)
{
	struct pred pr;
	uint32_t s = 0xdeadbeefu;

	*miss_a = *miss_b = 0;
	pred_new(&pr, c);
	for (unsigned i = 0; i < 60000; i++) {
		bool a = rnd(&s) & 1;
		bool ma = bpred_cond(pr.p, 0x402000, a);

		bpred_cond(pr.p, 0x402010, true);
		bpred_uncond(pr.p, 0x402020, 0x402100);
		bool mb = bpred_cond(pr.p, 0x402110, a);

		bpred_cond(pr.p, LOOP_PC, true);
		if (i >= 10000) {
			*miss_a += ma;
			*miss_b += mb;
		}
	}
	pred_free(&pr);
}

static void test_correlated(void **state)
{
	struct bpred_config tage = preset("zen4"), bim = bimodal_only();
	unsigned a, b;

	(void)state;
	run_correlated(&tage, &a, &b);
	assert_true(a > 22500 && a < 27500); /* A: a coin, ~50 % of 50000 */
	assert_true(b < 500);                /* B: known from A, < 1 % */
	run_correlated(&bim, &a, &b);
	assert_true(b > 20000);              /* without history B is a coin too */
}

static void test_random(void **state)
{
	(void)state;
	for (size_t i = 0; bpred_preset_at(i); i++) {
		struct pred pr;
		uint32_t s = 42;
		unsigned miss = 0;

		pred_new(&pr, &bpred_preset_at(i)->config);
		for (unsigned k = 0; k < 100000; k++) {
			miss += bpred_cond(pr.p, BR_PC, rnd(&s) & 1);
			bpred_cond(pr.p, LOOP_PC, true);
		}
		pred_free(&pr);
		/* neither better than a coin nor much worse */
		if (miss < 47000 || miss > 53000)
			fail_msg("preset %s: %u mispredicts of 100000 random branches",
				 bpred_preset_at(i)->name, miss);
	}
}

/*
 * A branch following a random sequence of `len` outcomes that repeats `passes` times
 * (the demos' data walked again each pass), with the loop's back edge beside it:
 * mispredictions in the last pass.
 */
static unsigned run_repeated(const struct bpred_config *c, unsigned len, unsigned passes)
{
	struct pred pr;
	unsigned miss = 0;

	pred_new(&pr, c);
	for (unsigned pass = 0; pass < passes; pass++) {
		uint32_t s = 0x9e3779b9u; /* the same sequence every pass */

		for (unsigned i = 0; i < len; i++) {
			bool m = bpred_cond(pr.p, BR_PC, rnd(&s) & 1);

			if (pass + 1 == passes)
				miss += m;
			bpred_cond(pr.p, LOOP_PC, true);
		}
	}
	pred_free(&pr);
	return miss;
}

/* Real cores learn a repeated random sequence by heart when it is short enough
 * (Lemire: 2,000 outcomes on Skylake, 30,000 on Zen 5), so do the big presets; one
 * far longer than any table stays a coin, which is what the demos rely on. */
static void test_repeated_sequence(void **state)
{
	struct bpred_config zen4 = preset("zen4"), sky = preset("skylake");
	unsigned m;

	(void)state;
	m = run_repeated(&zen4, 2000, 30);
	if (m > 200)
		fail_msg("zen4: %u mispredicts of 2000 in the 30th pass of a 2,000-long sequence", m);
	m = run_repeated(&sky, 1u << 18, 2);
	if (m < (1u << 18) * 45 / 100)
		fail_msg("skylake: %u mispredicts of %u in the 2nd pass of a 256 Ki-long sequence", m, 1u << 18);
	m = run_repeated(&zen4, 1u << 18, 2);
	if (m < (1u << 18) * 45 / 100)
		fail_msg("zen4: %u mispredicts of %u in the 2nd pass of a 256 Ki-long sequence", m, 1u << 18);
}

/* An indirect call at one site going to targets[pick(i)], then the call's return. */
static unsigned run_indirect(const struct bpred_config *c, bool random, unsigned *ret_miss)
{
	static const uint64_t targets[] = { 0x405000, 0x405340, 0x4058c0 };
	struct pred pr;
	uint32_t s = 7;
	unsigned miss = 0;

	*ret_miss = 0;
	pred_new(&pr, c);
	for (unsigned i = 0; i < 50000; i++) {
		uint64_t t = targets[random ? rnd(&s) % 3 : i % 3];
		bool m = bpred_indirect(pr.p, 0x403000, t);

		bpred_call(pr.p, 0x403000, 0x403006);
		bpred_cond(pr.p, t + 0x10, true); /* the callee's own branch */
		*ret_miss += bpred_return(pr.p, t + 0x20, 0x403006);
		bpred_cond(pr.p, LOOP_PC, true);
		if (i >= 5000)
			miss += m;
	}
	pred_free(&pr);
	return miss;
}

static void test_indirect(void **state)
{
	struct bpred_config tage = preset("alderlake"), last = bimodal_only();
	unsigned rm;

	(void)state;
	/* A, B, C, A, B, C...: ITTAGE learns the cycle, the last target is always wrong */
	assert_true(run_indirect(&tage, false, &rm) < 450);
	assert_int_equal(rm, 0);
	assert_true(run_indirect(&last, false, &rm) > 44000);
	/* random among three: ~2/3 wrong for both */
	unsigned r = run_indirect(&tage, true, &rm);

	if (r < 27000 || r > 33000)
		fail_msg("random targets: %u mispredicts of 45000", r);
}

static void test_ras(void **state)
{
	struct bpred_config c = preset("skylake");
	struct pred pr;
	unsigned miss = 0, depth = c.ras_depth;

	(void)state;
	assert_int_equal(depth, 16);
	pred_new(&pr, &c);
	/* nested calls from distinct sites, returns in reverse order: all predicted */
	for (unsigned rep = 0; rep < 3; rep++) {
		for (unsigned d = 0; d < 10; d++)
			bpred_call(pr.p, 0x500000 + 0x100 * d, 0x500005 + 0x100 * d);
		for (unsigned d = 10; d-- > 0;)
			miss += bpred_return(pr.p, 0x600000 + d, 0x500005 + 0x100 * d);
	}
	assert_int_equal(miss, 0);
	/* a recursion 5 deeper than the stack: its 5 outermost returns are mispredicted */
	for (unsigned d = 0; d < depth + 5; d++)
		bpred_call(pr.p, 0x700000 + 0x40 * d, 0x700005 + 0x40 * d);
	for (unsigned d = depth + 5; d-- > 0;) {
		bool m = bpred_return(pr.p, 0x710000, 0x700005 + 0x40 * d);

		if (m != (d < 5))
			fail_msg("return of level %u: mispredicted %d", d, m);
	}
	/* a return with an empty stack predicts nothing useful */
	assert_true(bpred_return(pr.p, 0x710000, 0x123456));
	pred_free(&pr);
}

static void test_config_check(void **state)
{
	const struct bpred_config good = preset("alderlake");
	struct bpred_config c;
	static const struct {
		size_t off;
		unsigned val;
	} bad[] = {
		{ offsetof(struct bpred_config, log_bimodal), 0 },
		{ offsetof(struct bpred_config, log_bimodal), 23 },
		{ offsetof(struct bpred_config, nr_tagged), 17 },
		{ offsetof(struct bpred_config, log_tagged), 0 },
		{ offsetof(struct bpred_config, log_tagged), 21 },
		{ offsetof(struct bpred_config, tag_bits), 3 },
		{ offsetof(struct bpred_config, tag_bits), 17 },
		{ offsetof(struct bpred_config, min_hist), 0 },
		{ offsetof(struct bpred_config, min_hist), 401 },    /* > max_hist */
		{ offsetof(struct bpred_config, max_hist), 2001 },
		{ offsetof(struct bpred_config, max_hist), 10 },     /* 12 tables from 4 to 10 */
		{ offsetof(struct bpred_config, log_ittage), 0 },
		{ offsetof(struct bpred_config, log_ittage), 19 },
		{ offsetof(struct bpred_config, nr_ittage), 17 },
		{ offsetof(struct bpred_config, ras_depth), 0 },
		{ offsetof(struct bpred_config, ras_depth), 1025 },
		{ offsetof(struct bpred_config, log_loop), 11 },
		{ offsetof(struct bpred_config, log_u_reset), 31 },
		{ offsetof(struct bpred_config, max_hist), 0xffffffffu },
		{ offsetof(struct bpred_config, log_tagged), 0xffffffffu },
	};

	(void)state;
	assert_null(bpred_config_check(&good));
	assert_non_null(bpred_config_check(NULL));
	assert_int_equal(bpred_size(NULL), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		c = good;
		memcpy((char *)&c + bad[i].off, &bad[i].val, sizeof(unsigned));
		if (!bpred_config_check(&c))
			fail_msg("row %zu (value %u) accepted", i, bad[i].val);
		assert_int_equal(bpred_size(&c), 0);
		assert_int_equal(bpred_budget_bits(&c), 0);
		assert_null(bpred_init(&c, sizeof(c), &c));
	}
	/* ITTAGE uses TAGE's histories: no more ITTAGE tables than TAGE ones */
	c = good;
	c.nr_ittage = c.nr_tagged + 1;
	assert_non_null(bpred_config_check(&c));
	/* no tagged tables: their sizes and history lengths do not matter */
	c.nr_tagged = c.nr_ittage = 0;
	c.log_tagged = c.tag_bits = c.min_hist = c.max_hist = 0;
	assert_null(bpred_config_check(&c));
	/* nor are they used (no shift by them: UBSan would stop here), even when the
	 * useful bits are halved (every 2nd branch) */
	c.log_tagged = c.tag_bits = 99;
	c.log_u_reset = 1;
	assert_null(bpred_config_check(&c));
	{
		struct pred pr;

		pred_new(&pr, &c);
		for (unsigned i = 0; i < 8; i++)
			bpred_cond(pr.p, BR_PC, i & 1);
		assert_false(bpred_cond(pr.p, BR_PC, false)); /* the base table's counter: not taken */
		pred_free(&pr);
	}
}

static void test_size_and_init(void **state)
{
	struct bpred_config c = preset("alderlake"), big;
	size_t n = bpred_size(&c);
	uint64_t *mem;

	(void)state;
	/* the tables alone: 8K counters, 12 x 2K tagged entries, the ITTAGE tables */
	assert_true(n > 8192 + 12 * 2048 * 4 + 6 * 512 * 16);
	assert_true(n < 2 * (8192 + 12 * 2048 * 4 + 6 * 512 * 16) + 65536);
	mem = malloc(n + 8);
	assert_non_null(mem);
	assert_null(bpred_init(mem, n - 1, &c));          /* too small */
	assert_null(bpred_init((char *)mem + 4, n, &c));  /* misaligned */
	assert_null(bpred_init(NULL, n, &c));
	assert_non_null(bpred_init(mem, n, &c));
	free(mem);
	/* every limit at its largest: the size is exact arithmetic, no overflow */
	big = (struct bpred_config){ .log_bimodal = BPRED_MAX_LOG_BIMODAL, .nr_tagged = BPRED_MAX_TAGGED,
		.log_tagged = BPRED_MAX_LOG_TAGGED, .tag_bits = BPRED_MAX_TAG_BITS, .min_hist = 1,
		.max_hist = BPRED_MAX_HIST, .log_ittage = BPRED_MAX_LOG_ITTAGE, .nr_ittage = BPRED_MAX_ITTAGE,
		.ras_depth = BPRED_MAX_RAS, .log_loop = BPRED_MAX_LOG_LOOP, .log_u_reset = BPRED_MAX_LOG_U_RESET };
	assert_null(bpred_config_check(&big));
	n = bpred_size(&big);
	assert_true(n > ((size_t)16 << 20) * 4 + ((size_t)16 << 18) * 16);
	assert_true(n < ((size_t)1 << 28));
	assert_true(bpred_budget_bits(&big) > bpred_budget_bits(&c));
}

/* Every --sim-machine preset has a predictor; bigger cores have bigger ones. */
static void test_presets(void **state)
{
	const struct sim_machine_preset *mp;
	size_t nr;

	(void)state;
	mp = sim_machine_presets(&nr);
	for (size_t i = 0; i < nr; i++) {
		const struct bpred_preset *b = bpred_preset(mp[i].name);

		if (!b)
			fail_msg("machine preset '%s' has no predictor preset", mp[i].name);
		assert_null(bpred_config_check(&b->config));
		assert_true(strlen(b->sources) > 20);
	}
	for (size_t i = 0; bpred_preset_at(i); i++) {
		size_t j = 0;

		while (j < nr && strcmp(mp[j].name, bpred_preset_at(i)->name) != 0)
			j++;
		if (j == nr)
			fail_msg("predictor preset '%s' is no machine preset", bpred_preset_at(i)->name);
	}
	assert_null(bpred_preset("pentium4"));
	assert_null(bpred_preset(NULL));
	assert_true(bpred_budget_bits(&bpred_preset("skylake")->config) <
		    bpred_budget_bits(&bpred_preset("zen3")->config));
	assert_true(bpred_budget_bits(&bpred_preset("zen3")->config) <
		    bpred_budget_bits(&bpred_preset("zen4")->config));
}

/* The same branches give the same counts, whatever the memory's previous contents. */
static void test_deterministic(void **state)
{
	struct bpred_config c = preset("zen4");
	size_t n = bpred_size(&c);
	unsigned miss[2] = { 0, 0 };

	(void)state;
	for (int run = 0; run < 2; run++) {
		uint8_t *mem = malloc(n);
		struct bpred *p;
		uint32_t s = 99;

		assert_non_null(mem);
		memset(mem, run ? 0xa5 : 0x00, n);
		p = bpred_init(mem, n, &c);
		assert_non_null(p);
		for (unsigned i = 0; i < 300000; i++) {
			uint32_t r = rnd(&s);

			/* mixed: biased branches at 64 sites, indirects among 5 targets */
			miss[run] += bpred_cond(p, 0x410000 + (r & 63) * 6, (r >> 8) % 5 != 0);
			if ((r & 0x300) == 0)
				miss[run] += bpred_indirect(p, 0x420000, 0x430000 + ((r >> 12) % 5) * 64);
		}
		free(mem);
	}
	assert_int_equal(miss[0], miss[1]);
	assert_true(miss[0] > 1000); /* it was not all predicted: the counts mean something */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_fourth),
		cmocka_unit_test(test_long_patterns),
		cmocka_unit_test(test_loop_exit),
		cmocka_unit_test(test_correlated),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_repeated_sequence),
		cmocka_unit_test(test_indirect),
		cmocka_unit_test(test_ras),
		cmocka_unit_test(test_config_check),
		cmocka_unit_test(test_size_and_init),
		cmocka_unit_test(test_presets),
		cmocka_unit_test(test_deterministic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
