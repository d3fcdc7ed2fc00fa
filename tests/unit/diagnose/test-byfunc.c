/*
 * Unit tests of diagnose/byfunc: sites summed per function, each function's level 1
 * from its own cycles, its dominant node as the whole program's verdict chooses it,
 * the guilty line, and the 95 % cut.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "base/err.h"
#include "diagnose/byfunc.h"
#include "sim/cost.h"
#include "sim/machine.h"
#include "sim/profile.h"

static char *names[] = { "branchy", "chase", "tiny", "f.c" };

static struct sim_site site(uint32_t fn, uint64_t line, double ret, double bad, double fe, double be)
{
	struct sim_site s;

	memset(&s, 0, sizeof(s));
	s.fn = fn;
	s.file = 3;
	s.obj = SIM_NO_NAME;
	s.line = line;
	s.cost.v[SIM_IR] = (uint64_t)(ret * 6);
	s.cycles.v[SIM_RETIRING] = ret;
	s.cycles.v[SIM_BAD_SPECULATION] = bad;
	s.cycles.v[SIM_FRONTEND_BOUND] = fe;
	s.cycles.v[SIM_BACKEND_BOUND] = be;
	return s;
}

static void test_two_functions(void **state)
{
	struct sim_profile p;
	struct sim_machine m;
	struct sim_site sites[] = {
		site(0, 10, 200, 100, 0, 0),  /* branchy's loop head */
		site(0, 11, 100, 500, 0, 0),  /* its if: most of the mispredicts */
		site(1, 20, 10, 0, 0, 590),   /* chase's load */
		site(1, 21, 40, 0, 0, 10),
		site(2, 30, 4, 0, 1, 0),      /* 0.3 % of cycles: below the cut */
		site(2, 31, 0, 0, 0, 0),      /* no cycles: not counted */
	};
	struct byfunc_result r;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	sim_profile_init(&p);
	assert_int_equal(sim_machine_preset(&m, "generic", NULL), 0);
	assert_true(m.width == 6);
	p.names = names;
	p.names_nr = 4;
	assert_int_equal(byfunc_from_sites(sites, 6, &p, &m, NULL, &r, &err), 0);
	assert_int_equal(r.nr_functions, 3);
	assert_int_equal(r.nr, 2);
	assert_true(fabs(r.total_cycles - 1555) < 1e-9);
	assert_string_equal(r.v[0].name, "branchy"); /* 900 cycles: the largest first */
	assert_true(fabs(r.v[0].share_pct - 100.0 * 900 / 1555) < 1e-9);
	assert_true(fabs(r.v[0].level1.bad_speculation - 100.0 * 600 / 900) < 1e-9);
	assert_string_equal(r.v[0].dominant, "bad_speculation");
	assert_string_equal(r.v[0].dominant_node, "branch_mispredicts");
	assert_true(r.v[0].level2[2] == r.v[0].level1.bad_speculation);
	assert_string_equal(byfunc_l2_key(2), "branch_mispredicts");
	assert_true(isnan(r.v[0].level2[1])); /* fetch bandwidth: not simulated */
	assert_int_equal(r.v[0].line, 11);
	assert_string_equal(r.v[0].file, "f.c");
	assert_true(fabs(r.v[0].line_pct - 100.0 * 500 / 600) < 1e-9);
	assert_string_equal(r.v[1].name, "chase");
	assert_string_equal(r.v[1].dominant, "backend_bound");
	assert_string_equal(r.v[1].dominant_node, "memory_bound");
	assert_true(isnan(r.v[1].level2[0]) == false && r.v[1].level2[0] == 0); /* fetch latency */
	assert_int_equal(r.v[1].line, 20);
	assert_true(fabs(r.rest_pct - 100.0 * 5 / 1555) < 1e-9);
	byfunc_release(&r);
	assert_null(r.v);
	/* nothing has cycles: an analysis error, not an empty success */
	assert_int_equal(byfunc_from_sites(sites + 5, 1, &p, &m, NULL, &r, &err), TDP_EANALYSIS);
	/* a function index beyond the names ("???") is its own function, not a crash */
	sites[4].fn = 77;
	assert_int_equal(byfunc_from_sites(sites + 4, 1, &p, &m, NULL, &r, &err), 0);
	assert_string_equal(r.v[0].name, "???");
	/* 80 % Retiring and 20 % Frontend Bound cross nothing: the verdict's rule names the largest stall */
	assert_string_equal(r.v[0].dominant, "frontend_bound");
	byfunc_release(&r);
	p.names = NULL;
	p.names_nr = 0;
	sim_profile_release(&p);
}

/*
 * With the block model: a divide loop's stall is shared evenly by its instructions, so the loop's
 * control line (compare and branch) holds as much Core Bound as the divide's line: the guilty line is
 * the one without the branch (and of two without, the heavier: the divide's µops).
 */
static void test_core_bound_line(void **state)
{
	struct sim_profile p;
	struct sim_machine m;
	struct sim_core core;
	struct sim_site sites[3];
	struct byfunc_result r;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	sim_profile_init(&p);
	p.names = names;
	p.names_nr = 4;
	memset(&core, 0, sizeof(core));
	core.valid = true;
	assert_int_equal(sim_machine_preset(&m, "generic", NULL), 0);
	sites[0] = site(0, 64, 50, 0, 0, 300);   /* for (...; i < n; i++): add, cmp, jne */
	sites[0].core = 300;
	sites[0].cost.v[SIM_IR] = 300;
	sites[0].cost.v[SIM_BC] = 100;
	sites[1] = site(0, 65, 50, 0, 0, 300);   /* x = x / d + c: mov, div, add */
	sites[1].core = 300;
	sites[1].cost.v[SIM_IR] = 300;
	sites[1].heavy = 20;
	sites[2] = site(0, 66, 10, 0, 0, 100);   /* a lighter line without a branch */
	sites[2].core = 100;
	sites[2].cost.v[SIM_IR] = 100;
	assert_int_equal(byfunc_from_sites(sites, 3, &p, &m, &core, &r, &err), 0);
	assert_string_equal(r.v[0].dominant, "backend_bound");
	assert_string_equal(r.v[0].dominant_node, "core_bound"); /* the block model splits Backend Bound */
	assert_true(fabs(r.v[0].level2[5] - r.v[0].level1.backend_bound) < 1e-9);
	assert_int_equal(r.v[0].line, 65);
	/* the loop line's branches do not count: 200 + 300 + 100 of core weight */
	assert_true(fabs(r.v[0].line_pct - 100.0 * 300 / 600) < 1e-9);
	byfunc_release(&r);
	/* without the block model the same sites have no Core Bound: the line of most Backend cycles */
	assert_int_equal(byfunc_from_sites(sites, 3, &p, &m, NULL, &r, &err), 0);
	assert_string_equal(r.v[0].dominant_node, "memory_bound");
	assert_true(isnan(r.v[0].level2[5]));
	byfunc_release(&r);
	p.names = NULL;
	p.names_nr = 0;
	sim_profile_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_functions),
		cmocka_unit_test(test_core_bound_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
