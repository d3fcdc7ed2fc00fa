/*
 * Unit tests of the cpu module's text parsers: /proc/cpuinfo (x86 and arm64)
 * and kernel cpu lists. The cpuinfo excerpts follow the kernel's layout
 * (arch/x86/kernel/cpu/proc.c show_cpuinfo(), arch/arm64/kernel/cpuinfo.c
 * c_show()); the x86 one is this build VM's own first lines.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "cpu/cpu.h"

static const char x86_cpuinfo[] =
	"processor\t: 0\n"
	"vendor_id\t: AuthenticAMD\n"
	"cpu family\t: 25\n"
	"model\t\t: 17\n"
	"model name\t: AMD EPYC\n"
	"stepping\t: 1\n"
	"microcode\t: 0x1000065\n"
	"flags\t\t: fpu vme de pse tsc msr hypervisor lahf_lm cmp_legacy\n"
	"\n"
	"processor\t: 1\n"
	"vendor_id\t: GenuineIntel\n"
	"cpu family\t: 6\n"
	"model\t\t: 85\n"
	"model name\t: second processor is ignored\n"
	"stepping\t: 7\n";

static const char arm_cpuinfo[] =
	"processor\t: 0\n"
	"BogoMIPS\t: 50.00\n"
	"Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics\n"
	"CPU implementer\t: 0x41\n"
	"CPU architecture: 8\n"
	"CPU variant\t: 0x3\n"
	"CPU part\t: 0xd0c\n"
	"CPU revision\t: 1\n"
	"\n"
	"processor\t: 1\n"
	"CPU implementer\t: 0x41\n"
	"CPU part\t: 0xd0c\n";

static void test_cpuinfo_x86(void **state)
{
	struct cpu_cpuinfo ci;

	(void)state;
	assert_int_equal(cpu_cpuinfo_parse((const uint8_t *)x86_cpuinfo, strlen(x86_cpuinfo), &ci, NULL), 0);
	assert_true(ci.has_x86);
	assert_false(ci.has_arm);
	assert_string_equal(ci.vendor, "AuthenticAMD");
	assert_int_equal(ci.family, 25);
	assert_int_equal(ci.model, 17);
	assert_int_equal(ci.stepping, 1);
	assert_string_equal(ci.brand, "AMD EPYC");
	assert_true(ci.has_flags);
	assert_true(ci.hypervisor_flag);
	assert_int_equal(ci.nr_processors, 2);
}

static void test_cpuinfo_flags(void **state)
{
	/* "hypervisor" must be a whole word: "nohypervisor" or a prefix is not the flag */
	static const char text[] = "vendor_id : GenuineIntel\ncpu family : 6\nmodel : 78\nstepping : unknown\n"
				   "flags : fpu nohypervisor hypervisorx\n";
	struct cpu_cpuinfo ci;

	(void)state;
	assert_int_equal(cpu_cpuinfo_parse((const uint8_t *)text, strlen(text), &ci, NULL), 0);
	assert_true(ci.has_flags);
	assert_false(ci.hypervisor_flag);
	assert_int_equal(ci.stepping, 0);
	assert_int_equal(ci.model, 78);
}

static void test_cpuinfo_arm(void **state)
{
	struct cpu_cpuinfo ci;

	(void)state;
	assert_int_equal(cpu_cpuinfo_parse((const uint8_t *)arm_cpuinfo, strlen(arm_cpuinfo), &ci, NULL), 0);
	assert_true(ci.has_arm);
	assert_false(ci.has_x86);
	assert_int_equal(ci.implementer, 0x41);
	assert_int_equal(ci.variant, 3);
	assert_int_equal(ci.architecture, 8);
	assert_int_equal(ci.part, 0xd0c);
	assert_int_equal(ci.revision, 1);
	assert_int_equal(ci.nr_processors, 2);
	assert_string_equal(cpu_uarch_arm(ci.implementer, ci.part), "neoverse-n1");
}

static void test_cpuinfo_errors(void **state)
{
	static const char bad_family[] = "vendor_id : GenuineIntel\ncpu family : six\n";
	static const char big_model[] = "vendor_id : GenuineIntel\ncpu family : 6\nmodel : 99999999999\n";
	static const char nothing[] = "MemTotal: 1024 kB\n";
	struct cpu_cpuinfo ci;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	assert_int_equal(cpu_cpuinfo_parse((const uint8_t *)bad_family, strlen(bad_family), &ci, &err),
			 TDP_EFORMAT);
	assert_string_equal(err.msg, "cpuinfo line 2: 'cpu family' is not a valid number ('six')");
	tdp_err_clear(&err);
	assert_int_equal(cpu_cpuinfo_parse((const uint8_t *)big_model, strlen(big_model), &ci, &err), TDP_EFORMAT);
	assert_non_null(strstr(err.msg, "line 3: 'model'"));
	tdp_err_clear(&err);
	assert_int_equal(cpu_cpuinfo_parse((const uint8_t *)nothing, strlen(nothing), &ci, &err), TDP_ENOENT);
	assert_int_equal(cpu_cpuinfo_parse((const uint8_t *)"", 0, &ci, NULL), TDP_ENOENT);
}

/* Random bytes and mutated cpuinfo never crash and keep strings terminated and printable. */
static void test_cpuinfo_fuzz(void **state)
{
	uint8_t buf[512];

	(void)state;
	srand(7);
	for (int i = 0; i < 5000; i++) {
		size_t n;
		struct cpu_cpuinfo ci;

		if (i % 2) {
			n = sizeof(x86_cpuinfo) - 1 < sizeof(buf) ? sizeof(x86_cpuinfo) - 1 : sizeof(buf);
			memcpy(buf, x86_cpuinfo, n);
			for (int k = 0; k < 4; k++)
				buf[(size_t)rand() % n] = (uint8_t)(rand() % 256);
		} else {
			n = (size_t)rand() % sizeof(buf);
			for (size_t k = 0; k < n; k++)
				buf[k] = (uint8_t)(rand() % 4 == 0 ? ':' : rand() % 4 == 0 ? '\n' : rand() % 256);
		}
		if (cpu_cpuinfo_parse(buf, n, &ci, NULL) == 0) {
			assert_true(strlen(ci.vendor) < sizeof(ci.vendor));
			assert_true(strlen(ci.brand) < sizeof(ci.brand));
			for (const char *p = ci.brand; *p; p++)
				assert_true(*p >= 0x20 && *p < 0x7f);
		}
	}
}

static void expect_list(const char *text, const char *normal, size_t count)
{
	unsigned *cpus = NULL;
	size_t nr = 0;
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(cpu_list_parse(text, strlen(text), "test", &cpus, &nr, NULL), 0);
	assert_int_equal(nr, count);
	cpu_list_format(cpus, nr, &sb);
	assert_string_equal(sb.buf, normal);
	strbuf_release(&sb);
	tdp_free(cpus);
}

static void test_cpu_list(void **state)
{
	unsigned *cpus = NULL;
	size_t nr = 0;

	(void)state;
	expect_list("0-1\n", "0-1", 2);
	expect_list("0", "0", 1);
	expect_list("0-3,8-11\n", "0-3,8-11", 8);
	expect_list("5,3,4,0", "0,3-5", 4);      /* sorted, runs merged */
	expect_list("0-3,2-5", "0-5", 6);        /* duplicates removed */
	expect_list("\n", "", 0);                /* an empty list (e.g. no offline CPUs) */
	expect_list("8191", "8191", 1);          /* CPU_NR_MAX - 1 */
	assert_int_equal(cpu_list_parse("0-3,8", 5, "x", &cpus, &nr, NULL), 0);
	assert_true(cpu_list_contains(cpus, nr, 0));
	assert_true(cpu_list_contains(cpus, nr, 3));
	assert_true(cpu_list_contains(cpus, nr, 8));
	assert_false(cpu_list_contains(cpus, nr, 4));
	assert_false(cpu_list_contains(cpus, nr, 9));
	tdp_free(cpus);
}

static void test_cpu_list_errors(void **state)
{
	static const char *const bad[] = { "a", "3-1", "1,", ",1", "1--2", "1-", "-1", "0x", "1 2" };
	unsigned *cpus = (unsigned *)1;
	size_t nr = 99;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		tdp_err_clear(&err);
		assert_int_equal(cpu_list_parse(bad[i], strlen(bad[i]), "/sys/x/cpus", &cpus, &nr, &err), TDP_EFORMAT);
		assert_null(cpus);
		assert_int_equal(nr, 0);
		assert_non_null(strstr(err.msg, "'/sys/x/cpus': '"));
		assert_non_null(strstr(err.msg, "is not a cpu list"));
	}
	tdp_err_clear(&err);
	assert_int_equal(cpu_list_parse("0-8192", 6, "online", &cpus, &nr, &err), TDP_ELIMIT);
	assert_string_equal(err.msg, "'online': CPU 8192 is above the limit of 8192 CPUs");
	assert_int_equal(cpu_list_parse("99999999999999999999", 20, "x", &cpus, &nr, NULL), TDP_EFORMAT);
}

static void test_cpu_list_alloc_failure(void **state)
{
	unsigned *cpus = NULL;
	size_t nr = 0;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	tdp_alloc_fail_after(0);
	assert_int_equal(cpu_list_parse("0-3", 3, "x", &cpus, &nr, &err), TDP_ENOMEM);
	tdp_alloc_fail_after(-1);
	assert_null(cpus);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpuinfo_x86),
		cmocka_unit_test(test_cpuinfo_flags),
		cmocka_unit_test(test_cpuinfo_arm),
		cmocka_unit_test(test_cpuinfo_errors),
		cmocka_unit_test(test_cpuinfo_fuzz),
		cmocka_unit_test(test_cpu_list),
		cmocka_unit_test(test_cpu_list_errors),
		cmocka_unit_test(test_cpu_list_alloc_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
