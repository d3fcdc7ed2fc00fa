/*
 * fuzz-callgrind.c: valgrind's callgrind.out files (sim/profile.h:
 * sim_callgrind_parse), parsed once and then merged into themselves.
 */
#include "fuzz.h"

#include "base/err.h"
#include "sim/profile.h"

/* The invariants profile.h states; returns the sum of every entry's Ir. */
static uint64_t check_profile(const struct sim_profile *p)
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_profile p;
	struct tdp_err err = TDP_ERR_INIT;
	uint64_t once;
	int ret;

	sim_profile_init(&p);
	ret = fuzz_check_ret(sim_callgrind_parse(&p, data, size, "callgrind.out.fuzz", &err), &err);
	if (!ret) {
		once = check_profile(&p);
		/* the same file again: every cost doubles (or the sum overflows: an error) */
		ret = fuzz_check_ret(sim_callgrind_parse(&p, data, size, "callgrind.out.fuzz", &err), &err);
		if (!ret)
			FUZZ_CHECK(check_profile(&p) == 2 * once && p.nr_files == 2);
	}
	sim_profile_release(&p);
	FUZZ_CHECK(p.nr == 0 && p.v == NULL);
	return 0;
}
