/*
 * Unit tests of the micro-architecture tables and the perf CPUID-string parser,
 * against real CPUs. Each expected row names where its family/model/stepping
 * (or MIDR part) comes from; none is taken from the table under test.
 *
 * Sources:
 *   [IF]  Linux arch/x86/include/asm/intel-family.h (model numbers per platform)
 *   [MAP] perf tools/perf/pmu-events/arch/x86/mapfile.csv ("GenuineIntel-6-55-[01234]"
 *         skylakex, "-6-55-[56789ABCDEF]" cascadelakex, "AuthenticAMD-25-([245][[:xdigit:]]|
 *         [[:xdigit:]])" amdzen3, other family 25 amdzen4, family 26 amdzen5)
 *   [AMD] Linux arch/x86/kernel/cpu/amd.c bsp_init_amd(): X86_FEATURE_ZEN1..5 ranges
 *   [CT]  Linux arch/arm64/include/asm/cputype.h (ARM_CPU_PART_*), and the MIDR_EL1
 *         tables of the Arm TRMs (e.g. Neoverse-N3 TRM 107997, table A-261: 0x410FD8E0)
 *   [PD]  the perf.data headers in shared/data/perfdata/derived (real machines)
 *   [VM]  this project's build VM: /proc/cpuinfo "AuthenticAMD", family 25, model 17,
 *         stepping 1; CPUID.1:EAX read with the cpuid instruction = 0x00a10f11
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "cpu/cpu.h"

struct x86_case {
	int line;
	enum cpu_vendor vendor;
	unsigned family, model, stepping;
	const char *uarch; /* NULL: must not be recognised */
};

static const struct x86_case x86_cases[] = {
	/* Skylake client: [IF] SKYLAKE_L 0x4E, SKYLAKE 0x5E; [PD] m7-6Y75 is "GenuineIntel,6,78,3" */
	{ .line = __LINE__, .vendor = CPU_VENDOR_INTEL, .family = 6, .model = 78, .stepping = 3, .uarch = "skylake" },
	{ .line = __LINE__, .vendor = CPU_VENDOR_INTEL, .family = 6, .model = 94, .stepping = 3, .uarch = "skylake" },
	/* Kaby/Coffee Lake use the Skylake core and perf's skylake tables: [MAP] 6-(4E|5E|8E|9E|A5|A6) */
	{ .line = __LINE__, .vendor = CPU_VENDOR_INTEL, .family = 6, .model = 158, .stepping = 10, .uarch = "skylake" },
	/* Model 85 (0x55) by stepping: [MAP]; Xeon Gold 6148 is stepping 4, Platinum 8280 stepping 7 */
	{ .line = __LINE__, .vendor = CPU_VENDOR_INTEL, .family = 6, .model = 85, .stepping = 4, .uarch = "skylakex" },
	{ .line = __LINE__, .vendor = CPU_VENDOR_INTEL, .family = 6, .model = 85, .stepping = 0, .uarch = "skylakex" },
	{ .line = __LINE__, .vendor = CPU_VENDOR_INTEL, .family = 6, .model = 85, .stepping = 5, .uarch = "cascadelake" },
	{ .line = __LINE__, .vendor = CPU_VENDOR_INTEL, .family = 6, .model = 85, .stepping = 7, .uarch = "cascadelake" },
	{ .line = __LINE__, .vendor = CPU_VENDOR_INTEL, .family = 6, .model = 85, .stepping = 11, .uarch = "cooperlake" },
	/* Ice Lake: [IF] ICELAKE_L 0x7E (client), ICELAKE_X 0x6A; [MAP] 6-7[DE] icelake, 6-6[AC] icelakex */
	{ .line = __LINE__, .vendor = CPU_VENDOR_INTEL, .family = 6, .model = 126, .stepping = 5, .uarch = "icelake" },
	{ .line = __LINE__, .vendor = CPU_VENDOR_INTEL, .family = 6, .model = 106, .stepping = 6, .uarch = "icelakex" },
	/* Tiger Lake: [IF] TIGERLAKE_L 0x8C */
	{ .line = __LINE__, .vendor = CPU_VENDOR_INTEL, .family = 6, .model = 140, .stepping = 1, .uarch = "tigerlake" },
	/* Sapphire Rapids 0x8F, Emerald Rapids 0xCF: [MAP] GenuineIntel-6-8F, GenuineIntel-6-CF */
	{ .line = __LINE__, .vendor = CPU_VENDOR_INTEL, .family = 6, .model = 143, .stepping = 8, .uarch = "sapphirerapids" },
	{ .line = __LINE__, .vendor = CPU_VENDOR_INTEL, .family = 6, .model = 207, .stepping = 2, .uarch = "emeraldrapids" },
	/* Granite Rapids: [MAP] GenuineIntel-6-A[DE] */
	{ .line = __LINE__, .vendor = CPU_VENDOR_INTEL, .family = 6, .model = 173, .stepping = 1, .uarch = "graniterapids" },
	/* Alder Lake 0x97/0x9A, Raptor Lake 0xB7, Meteor Lake 0xAA: [MAP] 6-(97|9A|B7|BA|BF), 6-A[AC] */
	{ .line = __LINE__, .vendor = CPU_VENDOR_INTEL, .family = 6, .model = 151, .stepping = 2, .uarch = "alderlake" },
	{ .line = __LINE__, .vendor = CPU_VENDOR_INTEL, .family = 6, .model = 154, .stepping = 3, .uarch = "alderlake" },
	{ .line = __LINE__, .vendor = CPU_VENDOR_INTEL, .family = 6, .model = 183, .stepping = 1, .uarch = "raptorlake" },
	{ .line = __LINE__, .vendor = CPU_VENDOR_INTEL, .family = 6, .model = 170, .stepping = 4, .uarch = "meteorlake" },
	/* Zen 2: [AMD] 0x30-0x4f, 0x60-0x7f; EPYC 7002 (Rome) 23/49, Ryzen 3000 (Matisse) 23/113 */
	{ .line = __LINE__, .vendor = CPU_VENDOR_AMD, .family = 23, .model = 49, .stepping = 0, .uarch = "zen2" },
	{ .line = __LINE__, .vendor = CPU_VENDOR_AMD, .family = 23, .model = 113, .stepping = 0, .uarch = "zen2" },
	/* Zen 1 (Naples 23/1): [MAP] AuthenticAMD-23-([12][0-9A-F]|[0-9A-F]) amdzen1 */
	{ .line = __LINE__, .vendor = CPU_VENDOR_AMD, .family = 23, .model = 1, .stepping = 2, .uarch = "zen1" },
	/* Zen 3: [AMD] 0x00-0x0f, 0x20-0x5f; Milan 25/1, Vermeer 25/33, Cezanne 25/80 */
	{ .line = __LINE__, .vendor = CPU_VENDOR_AMD, .family = 25, .model = 1, .stepping = 1, .uarch = "zen3" },
	{ .line = __LINE__, .vendor = CPU_VENDOR_AMD, .family = 25, .model = 33, .stepping = 0, .uarch = "zen3" },
	{ .line = __LINE__, .vendor = CPU_VENDOR_AMD, .family = 25, .model = 80, .stepping = 0, .uarch = "zen3" },
	/* Zen 4: [AMD] 0x10-0x1f, 0x60-0xaf; Genoa 25/17 ([PD], [VM]), Raphael 25/97, Bergamo 25/160 */
	{ .line = __LINE__, .vendor = CPU_VENDOR_AMD, .family = 25, .model = 17, .stepping = 1, .uarch = "zen4" },
	{ .line = __LINE__, .vendor = CPU_VENDOR_AMD, .family = 25, .model = 97, .stepping = 2, .uarch = "zen4" },
	{ .line = __LINE__, .vendor = CPU_VENDOR_AMD, .family = 25, .model = 160, .stepping = 0, .uarch = "zen4" },
	/* Zen 5: [AMD] family 0x1a 0x00-0x0f, 0x40-0x4f; Turin 26/2, Granite Ridge 26/68 */
	{ .line = __LINE__, .vendor = CPU_VENDOR_AMD, .family = 26, .model = 2, .stepping = 1, .uarch = "zen5" },
	{ .line = __LINE__, .vendor = CPU_VENDOR_AMD, .family = 26, .model = 68, .stepping = 0, .uarch = "zen5" },
	/* not recognised: unassigned steppings, other families, vendor mismatch */
	{ .line = __LINE__, .vendor = CPU_VENDOR_INTEL, .family = 6, .model = 85, .stepping = 8, .uarch = NULL },
	{ .line = __LINE__, .vendor = CPU_VENDOR_INTEL, .family = 6, .model = 0xFF, .stepping = 0, .uarch = NULL },
	{ .line = __LINE__, .vendor = CPU_VENDOR_AMD, .family = 21, .model = 2, .stepping = 0, .uarch = NULL },
	{ .line = __LINE__, .vendor = CPU_VENDOR_AMD, .family = 6, .model = 78, .stepping = 3, .uarch = NULL },
	{ .line = __LINE__, .vendor = CPU_VENDOR_INTEL, .family = 25, .model = 17, .stepping = 1, .uarch = NULL },
	{ .line = __LINE__, .vendor = CPU_VENDOR_UNKNOWN, .family = 6, .model = 78, .stepping = 3, .uarch = NULL },
	{ .line = __LINE__, .vendor = CPU_VENDOR_AMD, .family = 23, .model = 0x80, .stepping = 0, .uarch = NULL },
};

static void test_x86_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(x86_cases) / sizeof(x86_cases[0]); i++) {
		const struct x86_case *c = &x86_cases[i];
		const char *got = cpu_uarch_x86(c->vendor, c->family, c->model, c->stepping);

		if (c->uarch ? !got || strcmp(got, c->uarch) : got != NULL)
			fail_msg("line %d: %u/%u/%u: expected %s, got %s", c->line, c->family, c->model, c->stepping,
				 c->uarch ? c->uarch : "NULL", got ? got : "NULL");
	}
}

struct arm_case {
	int line;
	unsigned implementer, part;
	const char *uarch;
};

static const struct arm_case arm_cases[] = {
	/* [CT] ARM_CPU_PART_NEOVERSE_N1 0xD0C (Graviton2, Ampere Altra) */
	{ .line = __LINE__, .implementer = 0x41, .part = 0xD0C, .uarch = "neoverse-n1" },
	/* [CT] ARM_CPU_PART_NEOVERSE_V1 0xD40 (Graviton3) */
	{ .line = __LINE__, .implementer = 0x41, .part = 0xD40, .uarch = "neoverse-v1" },
	/* [CT] ARM_CPU_PART_NEOVERSE_N2 0xD49 */
	{ .line = __LINE__, .implementer = 0x41, .part = 0xD49, .uarch = "neoverse-n2" },
	/* [CT] ARM_CPU_PART_NEOVERSE_V2 0xD4F (NVIDIA Grace, Graviton4) */
	{ .line = __LINE__, .implementer = 0x41, .part = 0xD4F, .uarch = "neoverse-v2" },
	/* [CT] ARM_CPU_PART_NEOVERSE_V3 0xD84; Arm TF-A neoverse_v3.h NEOVERSE_V3_MIDR 0x410FD840 */
	{ .line = __LINE__, .implementer = 0x41, .part = 0xD84, .uarch = "neoverse-v3" },
	/* [CT] ARM_CPU_PART_NEOVERSE_N3 0xD8E; TRM 107997: MIDR 0x410FD8E0 */
	{ .line = __LINE__, .implementer = 0x41, .part = 0xD8E, .uarch = "neoverse-n3" },
	/* [CT] ARM_CPU_PART_CORTEX_A76 0xD0B */
	{ .line = __LINE__, .implementer = 0x41, .part = 0xD0B, .uarch = "cortex-a76" },
	/* same part number, another implementer: not the same core (except licensed ones) */
	{ .line = __LINE__, .implementer = 0x51, .part = 0xD0C, .uarch = NULL },
	{ .line = __LINE__, .implementer = 0x41, .part = 0xFFF, .uarch = NULL },
};

static void test_arm_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(arm_cases) / sizeof(arm_cases[0]); i++) {
		const struct arm_case *c = &arm_cases[i];
		const char *got = cpu_uarch_arm(c->implementer, c->part);

		if (c->uarch ? !got || strcmp(got, c->uarch) : got != NULL)
			fail_msg("line %d: 0x%x/0x%x: expected %s, got %s", c->line, c->implementer, c->part,
				 c->uarch ? c->uarch : "NULL", got ? got : "NULL");
	}
	assert_string_equal(cpu_arm_implementer_name(0x41), "ARM");
	assert_string_equal(cpu_arm_implementer_name(0xC0), "Ampere");
	assert_null(cpu_arm_implementer_name(0x00));
}

static void test_hybrid_names(void **state)
{
	(void)state;
	assert_string_equal(cpu_uarch_hybrid_core("alderlake", CPU_CORE_KIND_CORE), "goldencove");
	assert_string_equal(cpu_uarch_hybrid_core("alderlake", CPU_CORE_KIND_ATOM), "gracemont");
	assert_string_equal(cpu_uarch_hybrid_core("raptorlake", CPU_CORE_KIND_CORE), "raptorcove");
	assert_string_equal(cpu_uarch_hybrid_core("meteorlake", CPU_CORE_KIND_ATOM), "crestmont");
	assert_null(cpu_uarch_hybrid_core("icelakex", CPU_CORE_KIND_CORE));
	assert_null(cpu_uarch_hybrid_core(NULL, CPU_CORE_KIND_CORE));
	assert_null(cpu_uarch_hybrid_core("alderlake", CPU_CORE_KIND_UNKNOWN));
	assert_true(cpu_uarch_is_hybrid("alderlake"));
	assert_false(cpu_uarch_is_hybrid("sapphirerapids"));
}

/* The branch-recording capabilities, from the table, of the names cpu_uarch_x86() gives. */
static void test_caps(void **state)
{
	const struct cpu_uarch_caps *c;

	(void)state;
	c = cpu_uarch_caps(cpu_uarch_x86(CPU_VENDOR_AMD, 0x19, 0x11, 1)); /* Genoa */
	assert_non_null(c);
	assert_true(c->amd_lbr_v2);
	assert_false(c->amd_brs);
	c = cpu_uarch_caps(cpu_uarch_x86(CPU_VENDOR_AMD, 0x19, 0x01, 1)); /* Milan */
	assert_non_null(c);
	assert_true(c->amd_brs);
	assert_false(c->amd_lbr_v2);
	c = cpu_uarch_caps(cpu_uarch_x86(CPU_VENDOR_AMD, 0x1a, 0x02, 0)); /* Turin */
	assert_non_null(c);
	assert_true(c->amd_lbr_v2);
	assert_int_equal(c->width, 8);
	assert_int_equal(c->lbr_depth, 16);
	assert_null(cpu_uarch_caps("pentium4"));
	assert_null(cpu_uarch_caps(NULL));
}

/* data/cpus.json through the lookups: known ids (x86 and arm64) to names, widths, counters and flags. */
static void test_per_cpu_data(void **state)
{
	static const struct {
		enum cpu_vendor vendor;
		unsigned family, model, stepping;
		const char *uarch;
		unsigned width;
		int gp, fixed;
		bool perf_metrics, lbr, lbr_v2, brs;
	} x86[] = {
		{ CPU_VENDOR_INTEL, 6, 0x55, 4, "skylakex", 4, 4, 3, false, true, false, false },
		{ CPU_VENDOR_INTEL, 6, 0x55, 7, "cascadelake", 4, 4, 3, false, true, false, false },
		{ CPU_VENDOR_INTEL, 6, 0x6A, 6, "icelakex", 5, 8, 4, true, true, false, false },
		{ CPU_VENDOR_INTEL, 6, 0x8F, 8, "sapphirerapids", 6, 8, 4, true, true, false, false },
		{ CPU_VENDOR_AMD, 0x19, 0x61, 2, "zen4", 6, 6, 0, false, false, true, false },
		{ CPU_VENDOR_AMD, 0x19, 0x21, 0, "zen3", 6, 6, 0, false, false, false, true },
		{ CPU_VENDOR_AMD, 0x17, 0x31, 0, "zen2", 6, 6, 0, false, false, false, false },
	};
	static const struct {
		uint64_t midr;
		const char *uarch, *selects;
		unsigned width;
		bool spe, slots;
	} arm[] = {
		{ 0x413fd0c1, "neoverse-n1", "neoverse-n1", 4, true, false },
		{ 0x411fd401, "neoverse-v1", "neoverse-v1", 8, true, true },
		{ 0x410fd490, "neoverse-n2", "neoverse-n2-r0p0", 5, true, true },
		{ 0x410fd492, "neoverse-n2", "neoverse-n2-r0p0", 5, true, true },
		{ 0x410fd493, "neoverse-n2", "neoverse-n2", 5, true, true },
		{ 0x6d0fd490, "neoverse-n2", "neoverse-n2-r0p0", 5, true, true }, /* Azure Cobalt 100 */
		{ 0x410fd4f1, "neoverse-v2", "neoverse-v2", 8, true, true },
		{ 0x410fd840, "neoverse-v3", "neoverse-v3", 10, true, true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(x86) / sizeof(x86[0]); i++) {
		const char *u = cpu_uarch_x86(x86[i].vendor, x86[i].family, x86[i].model, x86[i].stepping);
		const struct cpu_uarch_caps *c = cpu_uarch_caps(u);

		assert_non_null(u);
		assert_string_equal(u, x86[i].uarch);
		assert_non_null(c);
		assert_int_equal(c->width, x86[i].width);
		assert_int_equal(c->gp_counters, x86[i].gp);
		assert_int_equal(c->fixed_counters, x86[i].fixed);
		assert_int_equal(c->perf_metrics, x86[i].perf_metrics);
		assert_int_equal(c->intel_lbr, x86[i].lbr);
		assert_int_equal(c->amd_lbr_v2, x86[i].lbr_v2);
		assert_int_equal(c->amd_brs, x86[i].brs);
		assert_int_equal(c->slot_events, x86[i].perf_metrics || x86[i].lbr_v2);
	}
	for (size_t i = 0; i < sizeof(arm) / sizeof(arm[0]); i++) {
		struct cpu_midr m;
		const struct cpu_uarch_caps *c;

		cpu_midr_decode(arm[i].midr, &m);
		assert_string_equal(cpu_uarch_arm(m.implementer, m.part), arm[i].uarch);
		assert_string_equal(cpu_uarch_from_midr(arm[i].midr), arm[i].selects);
		c = cpu_uarch_caps(arm[i].uarch);
		assert_non_null(c);
		assert_int_equal(c->width, arm[i].width);
		assert_int_equal(c->arm_spe, arm[i].spe);
		assert_int_equal(c->slot_events, arm[i].slots);
		assert_int_equal(c->fixed_counters, 1);
	}
	/* revision names only where the data has them */
	assert_string_equal(cpu_arm_revision_name(0x41, 0xd49, 0, 1), "neoverse-n2-r0p0");
	assert_null(cpu_arm_revision_name(0x41, 0xd49, 0, 3));
	assert_null(cpu_arm_revision_name(0x41, 0xd49, 1, 0));
	assert_null(cpu_arm_revision_name(0x41, 0xd0c, 0, 0));
	assert_null(cpu_uarch_from_midr(0x410ff000));
}

static void test_decode(void **state)
{
	unsigned f, m, s;
	struct cpu_midr midr;

	(void)state;
	/* [VM]: CPUID.1:EAX 0x00a10f11 = ext family 0x0a + base 0xf, ext model 1, model 1, stepping 1 */
	cpu_x86_decode_signature(0x00a10f11, &f, &m, &s);
	assert_int_equal(f, 25);
	assert_int_equal(m, 17);
	assert_int_equal(s, 1);
	/* family 6: ext model 4 << 4 | model 0xE = 78, stepping 3 (Skylake m7-6Y75, [PD]) */
	cpu_x86_decode_signature(0x000406e3, &f, &m, &s);
	assert_int_equal(f, 6);
	assert_int_equal(m, 78);
	assert_int_equal(s, 3);
	/* family 5 (Pentium): the extended model is not used */
	cpu_x86_decode_signature(0x00010543, &f, &m, &s);
	assert_int_equal(f, 5);
	assert_int_equal(m, 4);
	assert_int_equal(s, 3);
	/* MIDR 0x410fd490: implementer 0x41, variant 0, architecture 0xf, part 0xd49, revision 0 */
	cpu_midr_decode(0x410fd490, &midr);
	assert_int_equal(midr.implementer, 0x41);
	assert_int_equal(midr.variant, 0);
	assert_int_equal(midr.architecture, 0xf);
	assert_int_equal(midr.part, 0xd49);
	assert_int_equal(midr.revision, 0);
	cpu_midr_decode(0x413fd0c1, &midr);
	assert_int_equal(midr.variant, 3);
	assert_int_equal(midr.part, 0xd0c);
	assert_int_equal(midr.revision, 1);
}

struct perf_case {
	int line;
	const char *s;
	int rc;
	const char *uarch;
	unsigned family, model, stepping;
};

static const struct perf_case perf_cases[] = {
	/* [PD] perf.data.branch-4.14: "cpuid : GenuineIntel,6,78,3" on an m7-6Y75 (Skylake) */
	{ .line = __LINE__, .s = "GenuineIntel,6,78,3", .rc = 0, .uarch = "skylake", 6, 78, 3 },
	/* [PD] perf.data.branch_stack_spec: "cpuid : AuthenticAMD,25,17,0" (Genoa engineering sample) */
	{ .line = __LINE__, .s = "AuthenticAMD,25,17,0", .rc = 0, .uarch = "zen4", 25, 17, 0 },
	/* arm64: the MIDR in hex, as perf writes it (tools/perf/arch/arm64/util/header.c) */
	{ .line = __LINE__, .s = "0x00000000410fd490", .rc = 0, .uarch = "neoverse-n2", 0, 0, 0 },
	{ .line = __LINE__, .s = "0x00000000413fd0c1", .rc = 0, .uarch = "neoverse-n1", 0, 0, 0 },
	/* the mapfile spelling, hex model and stepping */
	{ .line = __LINE__, .s = "GenuineIntel-6-55-7", .rc = 0, .uarch = "cascadelake", 6, 85, 7 },
	{ .line = __LINE__, .s = "GenuineIntel-6-8F", .rc = 0, .uarch = "sapphirerapids", 6, 143, 0 },
	/* valid but unknown CPU: parsed, uarch NULL */
	{ .line = __LINE__, .s = "HygonGenuine,24,0,1", .rc = 0, .uarch = NULL, 24, 0, 1 },
	/* malformed */
	{ .line = __LINE__, .s = "", .rc = TDP_EFORMAT },
	{ .line = __LINE__, .s = "GenuineIntel", .rc = TDP_EFORMAT },
	{ .line = __LINE__, .s = "GenuineIntel,6", .rc = TDP_EFORMAT },
	{ .line = __LINE__, .s = "GenuineIntel,6,78,3,9", .rc = TDP_EFORMAT },
	{ .line = __LINE__, .s = "GenuineIntel,six,78,3", .rc = TDP_EFORMAT },
	{ .line = __LINE__, .s = "GenuineIntel,6,78,16", .rc = TDP_EFORMAT },
	{ .line = __LINE__, .s = "0xZZ", .rc = TDP_EFORMAT },
	{ .line = __LINE__, .s = "0x0000000000410fd4901", .rc = TDP_EFORMAT },
};

static void test_perf_cpuid(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(perf_cases) / sizeof(perf_cases[0]); i++) {
		const struct perf_case *c = &perf_cases[i];
		struct cpu_perf_cpuid out;
		struct tdp_err err = TDP_ERR_INIT;
		int rc = cpu_uarch_from_perf_cpuid(c->s, strlen(c->s), &out, &err);

		if (rc != c->rc)
			fail_msg("line %d: '%s': rc %d, expected %d (%s)", c->line, c->s, rc, c->rc, err.msg);
		if (rc) {
			if (!strstr(err.msg, "is not a perf CPUID string"))
				fail_msg("line %d: message '%s'", c->line, err.msg);
			continue;
		}
		if (c->uarch ? !out.uarch || strcmp(out.uarch, c->uarch) : out.uarch != NULL)
			fail_msg("line %d: '%s': uarch %s, expected %s", c->line, c->s, out.uarch ? out.uarch : "NULL",
				 c->uarch ? c->uarch : "NULL");
		if (!out.is_arm && (out.family != c->family || out.model != c->model || out.stepping != c->stepping))
			fail_msg("line %d: '%s': got %u/%u/%u", c->line, c->s, out.family, out.model, out.stepping);
	}
}

/* perf pads HEADER_CPUID with NULs and may end x86 strings with '$': both are ignored. */
static void test_perf_cpuid_padding(void **state)
{
	static const char padded[] = "GenuineIntel,6,106,6$\0\0\0";
	struct cpu_perf_cpuid out;

	(void)state;
	assert_int_equal(cpu_uarch_from_perf_cpuid(padded, sizeof(padded), &out, NULL), 0);
	assert_string_equal(out.uarch, "icelakex");
	assert_string_equal(out.vendor_str, "GenuineIntel");
	assert_int_equal(out.vendor, CPU_VENDOR_INTEL);
}

/* The cpuid line of each real perf.data header in the shared data. */
static void test_perf_cpuid_shared(void **state)
{
	static const struct {
		const char *file;
		const char *uarch; /* NULL: the header records no cpuid */
	} files[] = {
		/* cpudesc "Intel(R) Core(TM) m7-6Y75", a Skylake (6th generation) part */
		{ "perf.data.branch-4.14.perf6.1-header.txt", "skylake" },
		/* AMD family 19h model 11h: Genoa; its "cpu pmu capabilities: ... branches=16" is LbrExtV2 */
		{ "perf.data.branch_stack_spec.perf6.1-header.txt", "zen4" },
		/* "missing features: ... CPUID" */
		{ "perf.data.raw_callgraph_branch-3.4.perf6.1-header.txt", NULL },
	};
	const char *dir = getenv("TDPROF_SHARED_DATA");

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[1024], line[4096];
		bool found = false;
		FILE *f;

		snprintf(path, sizeof(path), "%s/perfdata/derived/%s", dir ? dir : "", files[i].file);
		f = dir ? fopen(path, "r") : NULL;
		if (!f) {
			print_message("shared data not found (%s): skipped\n", path);
			skip();
		}
		while (fgets(line, sizeof(line), f)) {
			struct cpu_perf_cpuid out;
			struct tdp_err err = TDP_ERR_INIT;
			const char *v;

			if (strncmp(line, "# cpuid : ", 10))
				continue;
			v = line + 10;
			found = true;
			assert_int_equal(cpu_uarch_from_perf_cpuid(v, strlen(v), &out, &err), 0);
			assert_non_null(files[i].uarch);
			assert_string_equal(out.uarch, files[i].uarch);
		}
		fclose(f);
		assert_int_equal(found, files[i].uarch != NULL);
	}
}

/* Random and mutated strings never crash the parser and never report success with garbage. */
static void test_perf_cpuid_fuzz(void **state)
{
	char buf[64];

	(void)state;
	srand(1);
	for (int i = 0; i < 20000; i++) {
		size_t n = (size_t)rand() % sizeof(buf);
		struct cpu_perf_cpuid out;
		struct tdp_err err = TDP_ERR_INIT;

		if (i % 2) {
			memcpy(buf, "GenuineIntel,6,78,3", 20);
			n = 19;
			buf[rand() % 19] = (char)(rand() % 256);
		} else {
			for (size_t k = 0; k < n; k++)
				buf[k] = (char)(rand() % 256);
		}
		if (cpu_uarch_from_perf_cpuid(buf, n, &out, &err) == 0)
			assert_true(out.is_arm || out.family <= 0xFFF);
		else
			assert_true(strlen(err.msg) < sizeof(err.msg));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_table),
		cmocka_unit_test(test_arm_table),
		cmocka_unit_test(test_hybrid_names),
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_perf_cpuid),
		cmocka_unit_test(test_perf_cpuid_padding),
		cmocka_unit_test(test_perf_cpuid_shared),
		cmocka_unit_test(test_perf_cpuid_fuzz),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_per_cpu_data),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
