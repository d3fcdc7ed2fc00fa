/*
 * fuzz-sim-profile.h: the one body of the cachegrind and callgrind targets. A
 * valgrind profile is parsed once, its invariants (sim/profile.h) checked, then
 * the same file is merged into itself: every cost must double.
 */
#ifndef TDPROF_FUZZ_SIM_PROFILE_H
#define TDPROF_FUZZ_SIM_PROFILE_H

#include "fuzz.h"

#include "base/err.h"
#include "sim/profile.h"

typedef int (*fuzz_sim_parse_fn)(struct sim_profile *p, const uint8_t *buf, size_t len,
				 const char *name, struct tdp_err *err);

/* The invariants profile.h states; returns the sum of every entry's Ir. */
static uint64_t fuzz_sim_check_profile(const struct sim_profile *p)
{
	struct sim_cost sum = { { 0 } };

	for (size_t i = 0; i < p->nr; i++) {
		const struct sim_entry *e = &p->v[i];

		FUZZ_CHECK(e->obj == SIM_NO_NAME || e->obj < p->names_nr);
		FUZZ_CHECK(e->file == SIM_NO_NAME || e->file < p->names_nr);
		FUZZ_CHECK(e->fn == SIM_NO_NAME || e->fn < p->names_nr);
		FUZZ_CHECK(sim_profile_name(p, e->fn) != NULL);
		for (int k = 0; k < SIM_NR_EVENTS; k++) {
			FUZZ_CHECK(e->cost.v[k] == 0 || (p->have & (1u << k)));
			sum.v[k] += e->cost.v[k];
		}
	}
	for (int k = 0; k < SIM_NR_EVENTS; k++)
		FUZZ_CHECK(sum.v[k] == p->totals.v[k]);
	return sum.v[SIM_IR];
}

static int fuzz_sim_profile(fuzz_sim_parse_fn parse, const uint8_t *data, size_t size,
			    const char *name)
{
	struct sim_profile p;
	struct tdp_err err = TDP_ERR_INIT;
	uint64_t once;
	int ret;

	sim_profile_init(&p);
	ret = fuzz_check_ret(parse(&p, data, size, name, &err), &err);
	if (!ret) {
		once = fuzz_sim_check_profile(&p);
		/* the same file again: every cost doubles (or the sum overflows: an error) */
		ret = fuzz_check_ret(parse(&p, data, size, name, &err), &err);
		if (!ret)
			FUZZ_CHECK(fuzz_sim_check_profile(&p) == 2 * once && p.nr_files == 2);
	}
	sim_profile_release(&p);
	FUZZ_CHECK(p.nr == 0 && p.v == NULL);
	return 0;
}

#endif
