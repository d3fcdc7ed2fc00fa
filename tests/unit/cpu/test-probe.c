/*
 * Unit tests of the permission texts, the explanation of perf_event_open
 * failures, and detection on the machine the tests run on (checked against
 * independent sources: /proc/cpuinfo against CPUID, the PMU directory against
 * the probe's outcome).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "cpu/cpu.h"

static void test_paranoid_meaning(void **state)
{
	(void)state;
	/* Documentation/admin-guide/sysctl/kernel.rst, perf_event_paranoid */
	assert_non_null(strstr(cpu_paranoid_meaning(-1), "all events"));
	assert_non_null(strstr(cpu_paranoid_meaning(0), "kernel and CPU-wide profiling for every user"));
	assert_non_null(strstr(cpu_paranoid_meaning(1), "user and kernel profiling of your own processes"));
	assert_string_equal(cpu_paranoid_meaning(2), "user-space profiling of your own processes only; kernel "
						     "and CPU-wide need CAP_PERFMON");
	/* Debian's level 3 and Ubuntu's 4 forbid perf_event_open to unprivileged users */
	assert_non_null(strstr(cpu_paranoid_meaning(3), "no perf_event_open for unprivileged users"));
	assert_non_null(strstr(cpu_paranoid_meaning(4), "no perf_event_open for unprivileged users"));
	assert_non_null(strstr(cpu_paranoid_meaning(CPU_PARANOID_UNKNOWN), "unknown"));
}

static struct cpu_open_context ctx(int paranoid, bool privileged, int hypervisor, const char *vendor, int nmi)
{
	struct cpu_open_context c;

	memset(&c, 0, sizeof(c));
	c.paranoid = paranoid;
	c.privileged = privileged;
	c.hypervisor = hypervisor;
	snprintf(c.hv_vendor, sizeof(c.hv_vendor), "%s", vendor);
	c.nmi_watchdog = nmi;
	return c;
}

static void test_explain(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct cpu_open_context c;

	(void)state;
	/* no PMU in a KVM guest (this project's VMs) */
	c = ctx(2, false, 1, "KVM", 0);
	assert_int_equal(cpu_explain_open_error(ENOENT, &c, &err), TDP_ENOTSUP);
	assert_string_equal(err.msg, "no hardware PMU is exposed to this machine (virtual machine without PMU "
				     "passthrough: KVM)");
	assert_non_null(strstr(err.hint, "--backend=sim"));
	/* the same on bare metal says nothing about a virtual machine */
	tdp_err_clear(&err);
	c = ctx(2, false, 0, "", 0);
	assert_int_equal(cpu_explain_open_error(EOPNOTSUPP, &c, &err), TDP_ENOTSUP);
	assert_string_equal(err.msg, "no hardware PMU is exposed to this machine");
	/* a hypervisor of unknown vendor */
	tdp_err_clear(&err);
	c = ctx(2, false, 1, "", 0);
	assert_int_equal(cpu_explain_open_error(ENODEV, &c, &err), TDP_ENOTSUP);
	assert_string_equal(err.msg, "no hardware PMU is exposed to this machine (virtual machine without PMU "
				     "passthrough)");
	/* Debian's paranoid level 3 */
	tdp_err_clear(&err);
	c = ctx(3, false, 0, "", 0);
	assert_int_equal(cpu_explain_open_error(EACCES, &c, &err), TDP_EPERM);
	assert_non_null(strstr(err.msg, "perf_event_paranoid is 3 (no perf_event_open for unprivileged users"));
	assert_string_equal(err.hint, "counting your own processes needs kernel.perf_event_paranoid at 2 or below: "
				      "'sudo sysctl -w kernel.perf_event_paranoid=2', or run as root; or use --backend=sim");
	/* level 2 allows what the probe asks: something else refused */
	tdp_err_clear(&err);
	c = ctx(2, false, 0, "", 0);
	assert_int_equal(cpu_explain_open_error(EPERM, &c, &err), TDP_EPERM);
	assert_non_null(strstr(err.msg, "perf_event_paranoid is 2"));
	assert_non_null(strstr(err.msg, "seccomp"));
	/* lowering the level would not help: the remedy says what else refuses */
	assert_non_null(strstr(err.hint, "something else refused perf_event_open"));
	assert_null(strstr(err.hint, "sysctl"));
	/* a busy counter with the NMI watchdog on */
	tdp_err_clear(&err);
	c = ctx(1, false, 0, "", 1);
	assert_int_equal(cpu_explain_open_error(EBUSY, &c, &err), TDP_EBUSY);
	assert_non_null(strstr(err.msg, "NMI watchdog"));
	assert_non_null(strstr(err.hint, "sudo sysctl -w kernel.nmi_watchdog=0"));
	tdp_err_clear(&err);
	c = ctx(1, false, 0, "", 0);
	assert_int_equal(cpu_explain_open_error(EBUSY, &c, &err), TDP_EBUSY);
	assert_null(strstr(err.hint, "nmi_watchdog"));
	/* no perf events at all */
	tdp_err_clear(&err);
	assert_int_equal(cpu_explain_open_error(ENOSYS, &c, &err), TDP_ENOTSUP);
	assert_non_null(strstr(err.msg, "CONFIG_PERF_EVENTS"));
	/* anything else names the errno */
	tdp_err_clear(&err);
	assert_int_equal(cpu_explain_open_error(EMFILE, &c, &err), TDP_EIO);
	assert_non_null(strstr(err.msg, strerror(EMFILE)));
	/* success is not explained */
	tdp_err_clear(&err);
	assert_int_equal(cpu_explain_open_error(0, &c, &err), 0);
	assert_int_equal(err.code, 0);
	/* err may be NULL */
	assert_int_equal(cpu_explain_open_error(ENOENT, &c, NULL), TDP_ENOTSUP);
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/*
 * On the machine running the tests: the probe's outcome must agree with the
 * kernel's PMU directory. Without any core PMU (this project's KVM guests),
 * perf_event_open(PERF_TYPE_HARDWARE) has no PMU to go to and fails with ENOENT
 * or EOPNOTSUPP, and the explanation says so; with one, it opens unless
 * permissions forbid it.
 */
static void test_live_probe(void **state)
{
	struct cpu_probe p;
	struct tdp_err err = TDP_ERR_INIT;
	bool core = exists("/sys/bus/event_source/devices/cpu") || exists("/sys/bus/event_source/devices/cpu_core") ||
		    exists("/sys/bus/event_source/devices/armv8_pmuv3_0");
	int rc = cpu_probe_hw_events(NULL, &p, &err);

	(void)state;
	assert_true(p.tried);
	if (!core && !exists("/sys/bus/event_source/devices/armv8_pmuv3")) {
		assert_int_equal(rc, TDP_ENOTSUP);
		assert_false(p.opened);
		assert_true(p.errnum == ENOENT || p.errnum == EOPNOTSUPP || p.errnum == ENODEV);
		assert_non_null(strstr(p.msg, "no hardware PMU is exposed to this machine"));
		assert_string_equal(err.msg, p.msg);
		assert_string_equal(err.hint, p.hint);
	} else if (rc == 0) {
		assert_true(p.opened);
		assert_int_equal(p.errnum, 0);
		assert_int_equal(err.code, 0);
	} else {
		assert_false(p.opened);
		assert_int_equal(p.code, rc);
		assert_true(p.msg[0]);
	}
	/* out may be NULL; the outcome is the same */
	assert_int_equal(cpu_probe_hw_events(NULL, NULL, NULL), rc);
}

/*
 * valgrind runs the test on its own CPU model: its CPUID answers with another
 * vendor and no hypervisor bit, so the live checks below cannot hold there
 * (make check-valgrind). It preloads its core into every program it runs.
 */
static bool under_valgrind(void)
{
	const char *pre = getenv("LD_PRELOAD");

	return pre && strstr(pre, "vgpreload") != NULL;
}

/* On x86, CPUID (live) and /proc/cpuinfo are two sources of the same identity. */
static void test_live_identity(void **state)
{
	struct cpu_env env = CPU_ENV_INIT;
	struct cpu_env files = { "/sys", "/proc", false };
	struct cpu_info live, fromfiles;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	if (under_valgrind())
		skip();
	assert_int_equal(cpu_info_detect(&live, &env, NULL, &err), 0);
	assert_int_equal(cpu_info_detect(&fromfiles, &files, NULL, &err), 0);
	if (!live.is_x86) {
		cpu_info_release(&live);
		cpu_info_release(&fromfiles);
		skip();
	}
	assert_string_equal(live.source, "cpuid");
	assert_string_equal(fromfiles.source, "/proc/cpuinfo");
	assert_string_equal(live.vendor_str, fromfiles.vendor_str);
	assert_int_equal(live.family, fromfiles.family);
	assert_int_equal(live.model, fromfiles.model);
	assert_int_equal(live.stepping, fromfiles.stepping);
	assert_true(live.uarch == fromfiles.uarch);
	assert_int_equal(live.cpus_online, (unsigned)sysconf(_SC_NPROCESSORS_ONLN));
	assert_string_equal(live.online, fromfiles.online);
	/* live AMD features are known one way or the other */
	if (live.vendor == CPU_VENDOR_AMD) {
		assert_true(live.amd_lbr_v2 == 0 || live.amd_lbr_v2 == 1);
		assert_true(live.amd_brs == 0 || live.amd_brs == 1);
	}
	cpu_info_release(&live);
	cpu_info_release(&fromfiles);
}

/* The live hypervisor answer agrees with the "hypervisor" flag of /proc/cpuinfo. */
static void test_live_virt(void **state)
{
	struct cpu_virt live, fromfiles;
	struct cpu_env files = { NULL, "/proc", false };
	uint32_t dummy = 0;

	(void)state;
	(void)dummy;
	if (under_valgrind())
		skip();
	cpu_virt_detect(&live, NULL);
	cpu_virt_detect(&fromfiles, &files);
	if (fromfiles.hypervisor < 0)
		skip(); /* not x86: no flags line */
	assert_int_equal(live.hypervisor, fromfiles.hypervisor);
	if (live.hypervisor == 1 && !strcmp(live.signature, "KVMKVMKVM"))
		assert_string_equal(live.vendor, "KVM");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paranoid_meaning),
		cmocka_unit_test(test_explain),
		cmocka_unit_test(test_live_probe),
		cmocka_unit_test(test_live_identity),
		cmocka_unit_test(test_live_virt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
