/*
 * Unit tests of detection on fake sysfs/procfs snapshots: an Ice Lake server,
 * an Alder Lake hybrid, Arm Neoverse N2 with SPE (and with BRBE), an Arm
 * big.LITTLE phone, AMD Zen 4 / Zen 3 / Zen 2, and a VM without a PMU.
 *
 * What the trees hold is what those kernels expose (Documentation/ABI/testing/
 * sysfs-bus-event_source-devices-caps and the drivers that create the files):
 *   Intel core PMU "cpu": caps/pmu_name ("icelake" for ICL client and server,
 *     arch/x86/events/intel/core.c intel_pmu_init()), caps/max_precise (3 with
 *     PEBS), caps/branches (LBR depth: 32 on Ice Lake); hybrid chips have
 *     cpu_core and cpu_atom with a cpus file and pmu_name "alderlake_hybrid";
 *   AMD Zen 4 "cpu": caps/branches=16, caps/max_precise=0, exactly what the
 *     Genoa recording in shared/data reports ("cpu pmu capabilities:
 *     max_precise=0, branches=16");
 *   Arm: armv8_pmuv3_0 with caps/slots (PMMIR_EL1.SLOTS, 5 on Neoverse N2) and
 *     an arm_spe_0 PMU; per-CPU regs/identification/midr_el1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "cpu/cpu.h"
#include "fake-tree.h"

static struct cpu_env snapshot(struct fake_tree *t, char *sys, char *proc, size_t size)
{
	struct cpu_env env = { NULL, NULL, false };

	snprintf(sys, size, "%s/sys", t->root);
	snprintf(proc, size, "%s/proc", t->root);
	fake_dir(t, "proc"); /* a procfs copy may be empty, but it must exist */
	env.sysfs_root = sys;
	env.procfs_root = proc;
	return env;
}

static void x86_cpuinfo(struct fake_tree *t, const char *vendor, unsigned family, unsigned model, unsigned step,
			const char *brand, bool hypervisor)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "processor\t: 0\nvendor_id\t: %s\ncpu family\t: %u\nmodel\t\t: %u\nmodel name\t: %s\n"
		 "stepping\t: %u\nflags\t\t: fpu vme de pse tsc msr pae%s\n\n",
		 vendor, family, model, brand, step, hypervisor ? " hypervisor" : "");
	fake_file(t, text, "proc/cpuinfo");
}

static void common_pmus(struct fake_tree *t)
{
	fake_pmu(t, "sys", "software", 1, NULL, NULL);
	fake_pmu(t, "sys", "tracepoint", 2, NULL, NULL);
	fake_pmu(t, "sys", "breakpoint", 5, NULL, NULL);
}

static void icelakex_tree(struct fake_tree *t)
{
	static const char *const caps[] = { "pmu_name=icelake", "max_precise=3", "branches=32", NULL };

	fake_file(t, "0-7\n", "sys/devices/system/cpu/online");
	fake_file(t, "1\n", "sys/devices/system/cpu/smt/active");
	x86_cpuinfo(t, "GenuineIntel", 6, 106, 6, "Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz", false);
	fake_file(t, "2\n", "proc/sys/kernel/perf_event_paranoid");
	fake_file(t, "1\n", "proc/sys/kernel/nmi_watchdog");
	common_pmus(t);
	fake_pmu(t, "sys", "cpu", 4, caps, NULL);
	fake_file(t, "config:0-7\n", "sys/bus/event_source/devices/cpu/format/event");
	fake_file(t, "config:8-15\n", "sys/bus/event_source/devices/cpu/format/umask");
	fake_file(t, "config:24-31\n", "sys/bus/event_source/devices/cpu/format/cmask");
	fake_file(t, "event=0x00,umask=0x4\n", "sys/bus/event_source/devices/cpu/events/slots");
	fake_file(t, "event=0x00,umask=0x80\n", "sys/bus/event_source/devices/cpu/events/topdown-retiring");
	fake_file(t, "event=0xc0\n", "sys/bus/event_source/devices/cpu/events/instructions");
	fake_file(t, "2\n", "sys/bus/event_source/devices/cpu/events/topdown-retiring.scale");
	fake_file(t, "0-71\n", "sys/bus/event_source/devices/uncore_imc_0/cpumask");
	fake_file(t, "13\n", "sys/bus/event_source/devices/uncore_imc_0/type");
}

static void test_icelakex(void **state)
{
	struct fake_tree t;
	char sys[512], proc[512];
	struct cpu_env env;
	struct cpu_system s;
	struct tdp_err err = TDP_ERR_INIT;
	const struct cpu_pmu *cpu;

	(void)state;
	fake_tree_init(&t);
	icelakex_tree(&t);
	env = snapshot(&t, sys, proc, sizeof(sys));
	assert_int_equal(cpu_system_detect(&s, &env, &err), 0);
	assert_false(s.live);
	assert_int_equal(s.cpu.vendor, CPU_VENDOR_INTEL);
	assert_string_equal(s.cpu.vendor_str, "GenuineIntel");
	assert_int_equal(s.cpu.family, 6);
	assert_int_equal(s.cpu.model, 106);
	assert_string_equal(s.cpu.uarch, "icelakex");
	assert_string_equal(s.cpu.brand, "Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz");
	assert_string_equal(s.cpu.source, "/proc/cpuinfo");
	assert_false(s.cpu.hybrid);
	assert_int_equal(s.cpu.nr_core_types, 0);
	assert_int_equal(s.cpu.smt, 1);
	assert_int_equal(s.cpu.cpus_online, 8);
	assert_string_equal(s.cpu.online, "0-7");
	/* a snapshot cannot run CPUID: the counter numbers are unknown, not guessed */
	assert_int_equal(s.cpu.gp_counters, -1);
	assert_int_equal(s.cpu.fixed_counters, -1);

	assert_int_equal(s.pmus.nr, 5); /* breakpoint, cpu, software, tracepoint, uncore_imc_0 */
	assert_string_equal(s.pmus.v[0].name, "breakpoint");
	assert_string_equal(s.pmus.v[1].name, "cpu");
	cpu = cpu_pmu_list_find(&s.pmus, "cpu");
	assert_non_null(cpu);
	assert_int_equal(cpu->type, 4);
	assert_int_equal(cpu->kind, CPU_PMU_CORE);
	assert_string_equal(cpu_pmu_cap(cpu, "pmu_name"), "icelake");
	assert_int_equal(cpu_pmu_cap_long(cpu, "branches"), 32);
	assert_int_equal(cpu_pmu_cap_long(cpu, "max_precise"), 3);
	assert_null(cpu_pmu_cap(cpu, "slots"));
	assert_int_equal(cpu->nr_caps, 3);
	assert_string_equal(cpu->caps[0].name, "branches"); /* sorted */
	assert_int_equal(cpu->nr_events, 3);                /* the .scale file is not an alias */
	assert_int_equal(cpu->nr_format, 3);
	assert_string_equal(cpu->format[0].name, "cmask");
	assert_string_equal(cpu->format[0].value, "config:24-31");
	assert_null(cpu->cpus);
	assert_string_equal(cpu_pmu_list_find(&s.pmus, "uncore_imc_0")->cpus, "0-71");
	assert_int_equal(cpu_pmu_list_find(&s.pmus, "software")->kind, CPU_PMU_SOFTWARE);
	assert_int_equal(cpu_pmu_list_find(&s.pmus, "uncore_imc_0")->kind, CPU_PMU_OTHER);
	assert_null(cpu_pmu_list_find(&s.pmus, "cpu_core"));

	assert_int_equal(s.perms.paranoid, 2);
	assert_int_equal(s.perms.nmi_watchdog, 1);
	assert_false(s.perms.privileges_known);
	assert_false(s.probe.tried);
	assert_false(s.probe.opened);
	assert_non_null(strstr(s.probe.msg, "not probed"));
	assert_int_equal(s.virt.hypervisor, 0);
	assert_string_equal(s.virt.source, "/proc/cpuinfo flags");

	assert_int_equal(s.branch.facility, CPU_BRANCH_LBR);
	assert_int_equal(s.branch.depth, 32);
	assert_string_equal(s.branch.pmu, "cpu");
	assert_string_equal(s.branch.reason, "Intel LBR: 32 branches per sample (cpu/caps/branches)");
	cpu_system_release(&s);
	fake_tree_remove(&t);
}

static void test_alderlake_hybrid(void **state)
{
	static const char *const core_caps[] = { "pmu_name=alderlake_hybrid", "max_precise=3", "branches=32", NULL };
	static const char *const atom_caps[] = { "pmu_name=alderlake_hybrid", "max_precise=3", "branches=32", NULL };
	struct fake_tree t;
	char sys[512], proc[512];
	struct cpu_env env;
	struct cpu_system s;

	(void)state;
	fake_tree_init(&t);
	fake_file(&t, "0-23\n", "sys/devices/system/cpu/online");
	fake_file(&t, "1\n", "sys/devices/system/cpu/smt/active");
	x86_cpuinfo(&t, "GenuineIntel", 6, 151, 2, "12th Gen Intel(R) Core(TM) i9-12900K", false);
	common_pmus(&t);
	fake_pmu(&t, "sys", "cpu_core", 4, core_caps, "0-15");
	fake_pmu(&t, "sys", "cpu_atom", 10, atom_caps, "16-23");
	env = snapshot(&t, sys, proc, sizeof(sys));
	assert_int_equal(cpu_system_detect(&s, &env, NULL), 0);
	assert_string_equal(s.cpu.uarch, "alderlake");
	assert_true(s.cpu.hybrid);
	assert_int_equal(s.cpu.nr_core_types, 2);
	assert_string_equal(s.cpu.core_types[0].type, "core");
	assert_string_equal(s.cpu.core_types[0].uarch, "goldencove");
	assert_string_equal(s.cpu.core_types[0].cpus, "0-15");
	assert_string_equal(s.cpu.core_types[0].pmu, "cpu_core");
	assert_string_equal(s.cpu.core_types[1].type, "atom");
	assert_string_equal(s.cpu.core_types[1].uarch, "gracemont");
	assert_string_equal(s.cpu.core_types[1].cpus, "16-23");
	assert_string_equal(s.cpu.core_types[1].pmu, "cpu_atom");
	assert_int_equal(s.cpu.cpus_online, 24);
	assert_int_equal(cpu_pmu_list_find(&s.pmus, "cpu_atom")->kind, CPU_PMU_CORE);
	/* LBR is recorded on the P-cores' PMU */
	assert_int_equal(s.branch.facility, CPU_BRANCH_LBR);
	assert_string_equal(s.branch.pmu, "cpu_core");
	assert_int_equal(s.branch.depth, 32);
	cpu_system_release(&s);
	fake_tree_remove(&t);
}

static void arm_cpus(struct fake_tree *t, unsigned n, const uint64_t *midrs)
{
	char online[32], value[32];

	snprintf(online, sizeof(online), "0-%u\n", n - 1);
	fake_file(t, online, "sys/devices/system/cpu/online");
	for (unsigned i = 0; i < n; i++) {
		snprintf(value, sizeof(value), "0x%016llx\n", (unsigned long long)midrs[i]);
		fake_file(t, value, "sys/devices/system/cpu/cpu%u/regs/identification/midr_el1", i);
	}
}

static void test_arm_neoverse_n2_spe(void **state)
{
	static const char *const caps[] = { "slots=5", NULL };
	static const uint64_t midrs[] = { 0x410fd490, 0x410fd490, 0x410fd490, 0x410fd490 };
	struct fake_tree t;
	char sys[512], proc[512];
	struct cpu_env env;
	struct cpu_system s;

	(void)state;
	fake_tree_init(&t);
	arm_cpus(&t, 4, midrs);
	common_pmus(&t);
	fake_pmu(&t, "sys", "armv8_pmuv3_0", 8, caps, "0-3");
	fake_file(&t, "config:0-15\n", "sys/bus/event_source/devices/armv8_pmuv3_0/format/event");
	fake_file(&t, "event=0x003f\n", "sys/bus/event_source/devices/armv8_pmuv3_0/events/stall_slot");
	fake_pmu(&t, "sys", "arm_spe_0", 9, NULL, "0-3");
	env = snapshot(&t, sys, proc, sizeof(sys));
	env.procfs_root = NULL; /* --sysfs alone: nothing from any procfs */
	assert_int_equal(cpu_system_detect(&s, &env, NULL), 0);
	assert_int_equal(s.cpu.vendor, CPU_VENDOR_ARM);
	assert_string_equal(s.cpu.vendor_str, "ARM");
	assert_true(s.cpu.is_arm);
	assert_false(s.cpu.is_x86);
	assert_true(s.cpu.midr == 0x410fd490);
	assert_int_equal(s.cpu.midr_fields.part, 0xd49);
	assert_string_equal(s.cpu.uarch, "neoverse-n2");
	assert_string_equal(s.cpu.source, "midr_el1");
	assert_false(s.cpu.hybrid);
	assert_int_equal(s.cpu.smt, -1);
	assert_int_equal(s.cpu.gp_counters, -1); /* Arm: unknown, sysfs does not say */
	assert_int_equal(cpu_pmu_cap_long(cpu_pmu_list_find(&s.pmus, "armv8_pmuv3_0"), "slots"), 5);
	assert_int_equal(cpu_pmu_list_find(&s.pmus, "armv8_pmuv3_0")->kind, CPU_PMU_CORE);
	assert_int_equal(cpu_pmu_list_find(&s.pmus, "arm_spe_0")->kind, CPU_PMU_SPE);
	assert_int_equal(s.perms.paranoid, CPU_PARANOID_UNKNOWN);
	assert_int_equal(s.virt.hypervisor, -1);
	assert_int_equal(s.branch.facility, CPU_BRANCH_SPE);
	assert_int_equal(s.branch.depth, -1);
	assert_string_equal(s.branch.pmu, "arm_spe_0");
	assert_non_null(strstr(s.branch.reason, "no BRBE"));
	cpu_system_release(&s);

	/* the same machine with a kernel that exposes BRBE */
	fake_file(&t, "64\n", "sys/bus/event_source/devices/armv8_pmuv3_0/caps/branches");
	assert_int_equal(cpu_system_detect(&s, &env, NULL), 0);
	assert_int_equal(s.branch.facility, CPU_BRANCH_BRBE);
	assert_int_equal(s.branch.depth, 64);
	assert_string_equal(s.branch.pmu, "armv8_pmuv3_0");
	assert_non_null(strstr(s.branch.reason, "SPE is also available (arm_spe_0)"));
	cpu_system_release(&s);
	fake_tree_remove(&t);
}

static void test_arm_big_little(void **state)
{
	/* Cortex-A55 (0xd05) little cores 0-3, Cortex-A76 (0xd0b) big cores 4-7 */
	static const uint64_t midrs[] = { 0x411fd050, 0x411fd050, 0x411fd050, 0x411fd050,
					  0x414fd0b1, 0x414fd0b1, 0x414fd0b1, 0x414fd0b1 };
	struct fake_tree t;
	char sys[512], proc[512];
	struct cpu_env env;
	struct cpu_system s;

	(void)state;
	fake_tree_init(&t);
	arm_cpus(&t, 8, midrs);
	common_pmus(&t);
	fake_pmu(&t, "sys", "armv8_cortex_a55", 8, NULL, "0-3");
	fake_pmu(&t, "sys", "armv8_cortex_a76", 9, NULL, "4-7");
	env = snapshot(&t, sys, proc, sizeof(sys));
	assert_int_equal(cpu_system_detect(&s, &env, NULL), 0);
	assert_string_equal(s.cpu.uarch, "cortex-a55"); /* the first online CPU's */
	assert_true(s.cpu.hybrid);
	assert_int_equal(s.cpu.nr_core_types, 2);
	assert_string_equal(s.cpu.core_types[0].type, "0x41/0xd05");
	assert_string_equal(s.cpu.core_types[0].uarch, "cortex-a55");
	assert_string_equal(s.cpu.core_types[0].cpus, "0-3");
	assert_string_equal(s.cpu.core_types[0].pmu, "armv8_cortex_a55");
	assert_string_equal(s.cpu.core_types[1].type, "0x41/0xd0b");
	assert_string_equal(s.cpu.core_types[1].uarch, "cortex-a76");
	assert_string_equal(s.cpu.core_types[1].cpus, "4-7");
	assert_string_equal(s.cpu.core_types[1].pmu, "armv8_cortex_a76");
	assert_int_equal(s.branch.facility, CPU_BRANCH_NONE);
	assert_non_null(strstr(s.branch.reason, "no SPE PMU"));
	cpu_system_release(&s);
	fake_tree_remove(&t);
}

static void amd_tree(struct fake_tree *t, unsigned model, const char *branches)
{
	const char *caps[] = { "max_precise=0", branches, NULL };

	fake_file(t, "0-383\n", "sys/devices/system/cpu/online");
	fake_file(t, "1\n", "sys/devices/system/cpu/smt/active");
	x86_cpuinfo(t, "AuthenticAMD", 25, model, 0, "AMD Eng Sample: 100-000000894-04", false);
	common_pmus(t);
	fake_pmu(t, "sys", "cpu", 4, caps, NULL);
	fake_pmu(t, "sys", "ibs_op", 10, NULL, NULL);
	fake_file(t, "config:0-7,32-35\n", "sys/bus/event_source/devices/cpu/format/event");
}

static void test_amd(void **state)
{
	struct fake_tree t;
	char sys[512], proc[512];
	struct cpu_env env;
	struct cpu_system s;

	(void)state;
	/* Zen 4 (Genoa 25/17) with the caps the shared recording reports: LbrExtV2, 16 deep */
	fake_tree_init(&t);
	amd_tree(&t, 17, "branches=16");
	env = snapshot(&t, sys, proc, sizeof(sys));
	assert_int_equal(cpu_system_detect(&s, &env, NULL), 0);
	assert_string_equal(s.cpu.uarch, "zen4");
	assert_int_equal(s.cpu.cpus_online, 384);
	assert_int_equal(cpu_pmu_cap_long(cpu_pmu_list_find(&s.pmus, "cpu"), "branches"), 16);
	assert_int_equal(cpu_pmu_cap_long(cpu_pmu_list_find(&s.pmus, "cpu"), "max_precise"), 0);
	assert_int_equal(s.branch.facility, CPU_BRANCH_LBR_EXT_V2);
	assert_int_equal(s.branch.depth, 16);
	assert_string_equal(cpu_branch_facility_name(s.branch.facility), "lbr_ext_v2");
	cpu_system_release(&s);
	fake_tree_remove(&t);

	/* Zen 4 on a kernel without LbrExtV2 support: no caps/branches */
	fake_tree_init(&t);
	amd_tree(&t, 17, NULL);
	env = snapshot(&t, sys, proc, sizeof(sys));
	assert_int_equal(cpu_system_detect(&s, &env, NULL), 0);
	assert_int_equal(s.branch.facility, CPU_BRANCH_NONE);
	assert_non_null(strstr(s.branch.reason, "zen4 has LbrExtV2 but the kernel does not expose it"));
	cpu_system_release(&s);
	fake_tree_remove(&t);

	/* Zen 3 (Milan 25/1) with BRS enabled in the kernel */
	fake_tree_init(&t);
	amd_tree(&t, 1, "branches=16");
	env = snapshot(&t, sys, proc, sizeof(sys));
	assert_int_equal(cpu_system_detect(&s, &env, NULL), 0);
	assert_string_equal(s.cpu.uarch, "zen3");
	assert_int_equal(s.branch.facility, CPU_BRANCH_BRS);
	assert_int_equal(s.branch.depth, 16);
	cpu_system_release(&s);
	fake_tree_remove(&t);

	/* Zen 3 without CONFIG_PERF_EVENTS_AMD_BRS */
	fake_tree_init(&t);
	amd_tree(&t, 33, NULL);
	env = snapshot(&t, sys, proc, sizeof(sys));
	assert_int_equal(cpu_system_detect(&s, &env, NULL), 0);
	assert_int_equal(s.branch.facility, CPU_BRANCH_NONE);
	assert_non_null(strstr(s.branch.reason, "CONFIG_PERF_EVENTS_AMD_BRS"));
	cpu_system_release(&s);
	fake_tree_remove(&t);
}

static void test_vm_without_pmu(void **state)
{
	struct fake_tree t;
	char sys[512], proc[512];
	struct cpu_env env;
	struct cpu_system s;

	(void)state;
	fake_tree_init(&t);
	fake_file(&t, "0-1\n", "sys/devices/system/cpu/online");
	fake_file(&t, "0\n", "sys/devices/system/cpu/smt/active");
	x86_cpuinfo(&t, "AuthenticAMD", 25, 17, 1, "AMD EPYC", true);
	fake_file(&t, "QEMU\n", "sys/class/dmi/id/sys_vendor");
	fake_file(&t, "Standard PC (Q35 + ICH9, 2009)\n", "sys/class/dmi/id/product_name");
	fake_file(&t, "3\n", "proc/sys/kernel/perf_event_paranoid");
	common_pmus(&t);
	env = snapshot(&t, sys, proc, sizeof(sys));
	assert_int_equal(cpu_system_detect(&s, &env, NULL), 0);
	assert_string_equal(s.cpu.uarch, "zen4");
	assert_int_equal(s.cpu.smt, 0);
	assert_int_equal(s.cpu.gp_counters, 0); /* no core PMU: nothing to count with */
	assert_int_equal(s.cpu.fixed_counters, 0);
	assert_string_equal(s.cpu.counters_source, "no core PMU is registered");
	assert_int_equal(s.virt.hypervisor, 1);
	assert_string_equal(s.virt.vendor, "QEMU");
	assert_string_equal(s.virt.product, "QEMU Standard PC (Q35 + ICH9, 2009)");
	assert_int_equal(s.perms.paranoid, 3);
	assert_int_equal(s.branch.facility, CPU_BRANCH_NONE);
	assert_non_null(strstr(s.branch.reason, "no core PMU is registered"));
	cpu_system_release(&s);
	fake_tree_remove(&t);
}

static void test_snapshot_errors(void **state)
{
	struct fake_tree t;
	char sys[512], proc[512];
	struct cpu_env env;
	struct cpu_system s;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	fake_tree_init(&t);
	env = snapshot(&t, sys, proc, sizeof(sys));
	/* the sysfs root does not exist */
	assert_int_equal(cpu_system_detect(&s, &env, &err), TDP_ENOENT);
	assert_non_null(strstr(err.msg, "cannot read sysfs tree '"));
	assert_non_null(strstr(err.msg, "/sys': no such directory"));
	/* it exists but is not a sysfs tree */
	tdp_err_clear(&err);
	fake_file(&t, "x", "sys/README");
	assert_int_equal(cpu_system_detect(&s, &env, &err), TDP_EUSAGE);
	assert_non_null(strstr(err.msg, "is not a sysfs tree"));
	assert_non_null(strstr(err.hint, "copy of /sys"));
	/* a file where a directory should be */
	tdp_err_clear(&err);
	env.sysfs_root = fake_path(&t, "sys/README");
	assert_int_equal(cpu_system_detect(&s, &env, &err), TDP_ENOENT);
	assert_non_null(strstr(err.msg, "not a directory"));
	/* a malformed online list names the file */
	tdp_err_clear(&err);
	env = snapshot(&t, sys, proc, sizeof(sys));
	fake_file(&t, "0-x\n", "sys/devices/system/cpu/online");
	assert_int_equal(cpu_system_detect(&s, &env, &err), TDP_EFORMAT);
	assert_non_null(strstr(err.msg, "devices/system/cpu/online': '0-x' is not a cpu list"));
	/* a malformed cpuinfo names the file and the line */
	tdp_err_clear(&err);
	fake_file(&t, "0-3\n", "sys/devices/system/cpu/online");
	fake_file(&t, "vendor_id : GenuineIntel\ncpu family : 6\nmodel : x\n", "proc/cpuinfo");
	assert_int_equal(cpu_system_detect(&s, &env, &err), TDP_EFORMAT);
	assert_non_null(strstr(err.msg, "/proc/cpuinfo': cpuinfo line 3: 'model'"));
	fake_tree_remove(&t);
}

static void test_limits(void **state)
{
	struct fake_tree t;
	char sys[512], proc[512];
	struct cpu_env env;
	struct cpu_system s;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	fake_tree_init(&t);
	common_pmus(&t);
	for (int i = 0; i <= CPU_PMU_ATTR_MAX; i++)
		fake_file(&t, "1\n", "sys/bus/event_source/devices/cpu/caps/cap%d", i);
	/* names real PMUs never use are skipped, not an error */
	fake_file(&t, "4\n", "sys/bus/event_source/devices/bad name/type");
	env = snapshot(&t, sys, proc, sizeof(sys));
	assert_int_equal(cpu_system_detect(&s, &env, &err), TDP_ELIMIT);
	assert_non_null(strstr(err.msg, "/cpu/caps' has more than 256 entries"));
	fake_tree_remove(&t);
}

/* Every allocation failure during detection is reported as ENOMEM and leaks nothing. */
static void test_alloc_failures(void **state)
{
	struct fake_tree t;
	char sys[512], proc[512];
	struct cpu_env env;
	long n;

	(void)state;
	fake_tree_init(&t);
	icelakex_tree(&t);
	fake_pmu(&t, "sys", "cpu_core", 20, NULL, "0-3");
	fake_pmu(&t, "sys", "cpu_atom", 21, NULL, "4-7");
	env = snapshot(&t, sys, proc, sizeof(sys));
	for (n = 0;; n++) {
		struct cpu_system s;
		struct tdp_err err = TDP_ERR_INIT;
		int rc;

		tdp_alloc_fail_after(n);
		rc = cpu_system_detect(&s, &env, &err);
		tdp_alloc_fail_after(-1);
		if (rc == 0) {
			cpu_system_release(&s);
			break;
		}
		assert_int_equal(rc, TDP_ENOMEM);
		assert_int_equal(err.code, TDP_ENOMEM);
		assert_true(n < 10000);
	}
	assert_true(n > 10); /* the walk really allocates: each failure point was visited */
	fake_tree_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_icelakex),
		cmocka_unit_test(test_alderlake_hybrid),
		cmocka_unit_test(test_arm_neoverse_n2_spe),
		cmocka_unit_test(test_arm_big_little),
		cmocka_unit_test(test_amd),
		cmocka_unit_test(test_vm_without_pmu),
		cmocka_unit_test(test_snapshot_errors),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_alloc_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
