/*
 * branch.c: which branch-recording facility `tdprof branches record` can use.
 *
 *   Intel LBR: the core PMU's caps/branches is the LBR depth (arch/x86/events/
 *     intel/core.c lbr_attrs, visible only when lbr_nr != 0).
 *   AMD LbrExtV2 (Zen 4+): CPUID 0x80000022 EAX[1], depth EBX[9:4]; the kernel
 *     (6.1+, arch/x86/events/amd/lbr.c) sets lbr_nr and shows caps/branches.
 *   AMD BRS (Zen 3, family 19h without LbrExtV2): CPUID 0x80000008 EBX[31]; the
 *     kernel (5.19+, CONFIG_PERF_EVENTS_AMD_BRS, arch/x86/events/amd/brs.c) sets
 *     lbr_nr = 16, shows caps/branches and the events/branch-brs alias.
 *   Arm BRBE: the arm_pmuv3 PMU's caps/branches when the kernel exposes it.
 *   Arm SPE: an arm_spe_N PMU (drivers/perf/arm_spe_pmu.c); samples carry branch
 *     targets and misprediction flags, not a stack.
 */
#include "cpu/cpu.h"
#include "cpu/cpu-internal.h"

#include <stdio.h>
#include <string.h>

const char *cpu_branch_facility_name(enum cpu_branch_facility f)
{
	switch (f) {
	case CPU_BRANCH_LBR:
		return "lbr";
	case CPU_BRANCH_LBR_EXT_V2:
		return "lbr_ext_v2";
	case CPU_BRANCH_BRS:
		return "brs";
	case CPU_BRANCH_BRBE:
		return "brbe";
	case CPU_BRANCH_SPE:
		return "spe";
	case CPU_BRANCH_NONE:
		break;
	}
	return NULL;
}

/* The core PMU to record on: "cpu", else "cpu_core" (hybrid P-cores), else the first. */
static const struct cpu_pmu *core_pmu(const struct cpu_pmu_list *pmus)
{
	const struct cpu_pmu *p = cpu_pmu_list_find(pmus, "cpu");

	if (!p)
		p = cpu_pmu_list_find(pmus, "cpu_core");
	if (!p)
		p = cpu_pmu_list_first(pmus, CPU_PMU_CORE);
	return p;
}

static void set(struct cpu_branch *out, enum cpu_branch_facility f, long depth, const char *pmu)
{
	out->facility = f;
	out->depth = depth > 0 && depth < 4096 ? (int)depth : -1;
	cpu_strlcpy(out->pmu, pmu ? pmu : "", sizeof(out->pmu));
}

#define REASON(...) snprintf(out->reason, sizeof(out->reason), __VA_ARGS__)

static void no_core_pmu(struct cpu_branch *out)
{
	REASON("no core PMU is registered (no hardware counters here, as in a virtual machine without "
	       "a virtual PMU), so there is nothing to record branches with");
}

static void intel(struct cpu_branch *out, const struct cpu_pmu *core)
{
	long depth = cpu_pmu_cap_long(core, "branches");

	if (depth > 0) {
		set(out, CPU_BRANCH_LBR, depth, core->name);
		REASON("Intel LBR: %ld branches per sample (%s/caps/branches)", depth, core->name);
	} else {
		REASON("the '%s' PMU exposes no LBR (no caps/branches): the CPU lacks it or the hypervisor "
		       "does not pass it through", core->name);
	}
}

/* Does the AMD CPU have LbrExtV2? CPUID when known, else by micro-architecture (data/cpus.json). */
static bool amd_has_lbr_v2(const struct cpu_info *cpu)
{
	const struct cpu_uarch_caps *caps = cpu_uarch_caps(cpu->uarch);

	if (cpu->amd_lbr_v2 >= 0)
		return cpu->amd_lbr_v2 == 1;
	return caps && caps->amd_lbr_v2;
}

/* Does it have Branch Sampling (BRS)? CPUID when known, else by micro-architecture. */
static bool amd_has_brs(const struct cpu_info *cpu)
{
	const struct cpu_uarch_caps *caps = cpu_uarch_caps(cpu->uarch);

	if (cpu->amd_brs >= 0)
		return cpu->amd_brs == 1;
	return caps && caps->amd_brs;
}

static void amd(struct cpu_branch *out, const struct cpu_info *cpu, const struct cpu_pmu_list *pmus,
		const struct cpu_pmu *core)
{
	long depth = cpu_pmu_cap_long(core, "branches");
	const char *name = cpu->uarch ? cpu->uarch : "this CPU";
	bool brs = !amd_has_lbr_v2(cpu) && amd_has_brs(cpu); /* BRS only where LbrExtV2 is absent (Zen 3) */

	if (amd_has_lbr_v2(cpu)) {
		if (depth > 0) {
			set(out, CPU_BRANCH_LBR_EXT_V2, depth, core->name);
			REASON("AMD LbrExtV2: %ld branches per sample (%s/caps/branches)", depth, core->name);
		} else {
			REASON("%s has LbrExtV2 but the kernel does not expose it (needs Linux 6.1 or later, "
			       "and a hypervisor that passes it through)", name);
		}
	} else if (brs) {
		if (depth > 0) {
			set(out, CPU_BRANCH_BRS, depth, core->name);
			REASON("AMD Branch Sampling (BRS): %ld taken branches per sample (%s/caps/branches)", depth,
			       core->name);
		} else {
			REASON("%s has Branch Sampling (BRS) but the kernel does not expose it (needs Linux 5.19 "
			       "or later built with CONFIG_PERF_EVENTS_AMD_BRS)", name);
		}
	} else {
		REASON("%s has no branch-stack facility (BRS came with Zen 3, LbrExtV2 with Zen 4)%s", name,
		       cpu_pmu_list_find(pmus, "ibs_op") ? "; the ibs_op PMU samples single branch targets" : "");
	}
}

static void arm(struct cpu_branch *out, const struct cpu_pmu_list *pmus, const struct cpu_pmu *core)
{
	const struct cpu_pmu *spe = cpu_pmu_list_first(pmus, CPU_PMU_SPE);

	for (size_t i = 0; pmus && i < pmus->nr; i++) {
		const struct cpu_pmu *p = &pmus->v[i];
		long depth = cpu_pmu_cap_long(p, "branches");

		if (p->kind != CPU_PMU_CORE || depth <= 0)
			continue;
		set(out, CPU_BRANCH_BRBE, depth, p->name);
		REASON("Arm BRBE: %ld branches per sample (%s/caps/branches)%s%s%s", depth, p->name,
		       spe ? "; SPE is also available (" : "", spe ? spe->name : "", spe ? ")" : "");
		return;
	}
	if (spe) {
		set(out, CPU_BRANCH_SPE, -1, spe->name);
		REASON("Arm SPE (%s): sampled operations carry branch targets and misprediction flags, "
		       "but no branch stack; %s", spe->name,
		       core ? "no BRBE (no caps/branches on the core PMU)" : "no core PMU is registered");
		return;
	}
	if (!core)
		no_core_pmu(out);
	else
		REASON("no BRBE (the '%s' PMU has no caps/branches) and no SPE PMU (arm_spe_N needs the "
		       "arm_spe_pmu driver, and SPE passthrough in a virtual machine)", core->name);
}

void cpu_branch_detect(struct cpu_branch *out, const struct cpu_info *cpu, const struct cpu_pmu_list *pmus)
{
	const struct cpu_pmu *core = core_pmu(pmus);

	memset(out, 0, sizeof(*out));
	out->depth = -1;
	switch (cpu ? cpu->vendor : CPU_VENDOR_UNKNOWN) {
	case CPU_VENDOR_INTEL:
		if (core)
			intel(out, core);
		else
			no_core_pmu(out);
		break;
	case CPU_VENDOR_AMD:
		if (core)
			amd(out, cpu, pmus, core);
		else
			no_core_pmu(out);
		break;
	case CPU_VENDOR_ARM:
		arm(out, pmus, core);
		break;
	case CPU_VENDOR_UNKNOWN:
		REASON("the CPU vendor is unknown, so no branch-recording facility is known");
		break;
	}
}
