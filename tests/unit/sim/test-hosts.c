/*
 * test-hosts.c: the presets the simulation follows on each host
 * (sim_machine_preset_for_uarch(), the presets' .hosts lists): every name a
 * preset lists is a micro-architecture cpu/'s tables know (data/cpus.json), and
 * maps back to that preset; near names do not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "cpu/cpu.h"
#include "sim/machine.h"

static void test_every_host_is_known(void **state)
{
	size_t nr, hosts = 0;
	const struct sim_machine_preset *p = sim_machine_presets(&nr);

	(void)state;
	for (size_t i = 0; i < nr; i++) {
		for (const char *h = p[i].hosts; h && *h;) {
			char name[64];
			size_t l = strcspn(h, " ");

			assert_true(l > 0 && l < sizeof(name));
			memcpy(name, h, l);
			name[l] = '\0';
			if (!cpu_uarch_caps(name) && !cpu_uarch_is_hybrid(name))
				fail_msg("preset %s lists '%s', which cpu/'s tables do not know", p[i].name, name);
			/* one preset per host */
			assert_string_equal(sim_machine_preset_for_uarch(name), p[i].name);
			hosts++;
			h += l + strspn(h + l, " ");
		}
	}
	assert_true(hosts >= 20);
}

static void test_lookups(void **state)
{
	(void)state;
	assert_string_equal(sim_machine_preset_for_uarch("skylakex"), "skylake");
	assert_string_equal(sim_machine_preset_for_uarch("zen4"), "zen4");
	assert_string_equal(sim_machine_preset_for_uarch("zen2"), "zen3");
	assert_string_equal(sim_machine_preset_for_uarch("raptorlake"), "alderlake");
	assert_string_equal(sim_machine_preset_for_uarch("icelakex"), "icelake-server");
	assert_string_equal(sim_machine_preset_for_uarch("neoverse-n1"), "neoverse-n1");
	/* no preset: the caller takes generic */
	assert_null(sim_machine_preset_for_uarch("neoverse-v2"));
	assert_null(sim_machine_preset_for_uarch(NULL));
	assert_null(sim_machine_preset_for_uarch(""));
	assert_null(sim_machine_preset_for_uarch("sky"));
	assert_null(sim_machine_preset_for_uarch("skylakexx"));
	assert_null(sim_machine_preset_for_uarch("zen"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_host_is_known),
		cmocka_unit_test(test_lookups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
