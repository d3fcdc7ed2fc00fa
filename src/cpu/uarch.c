/*
 * uarch.c: CPU model numbers to micro-architecture names, as data.
 *
 * Sources (the Linux 6.x versions of these files; every row was checked against them):
 *   - Intel: Linux arch/x86/include/asm/intel-family.h (model numbers and the
 *     platform each names) and perf's tools/perf/pmu-events/arch/x86/mapfile.csv
 *     (which event/metric tables perf uses for a model: "GenuineIntel-6-55-[01234]"
 *     skylakex, "GenuineIntel-6-55-[56789ABCDEF]" cascadelakex, ...).
 *   - AMD: Linux arch/x86/kernel/cpu/amd.c bsp_init_amd(), "Figure out Zen
 *     generations" (X86_FEATURE_ZEN1..ZEN5 model ranges per family), which agrees
 *     with perf's mapfile (AuthenticAMD-25-([245][[:xdigit:]]|[[:xdigit:]]) amdzen3,
 *     other family-25 models amdzen4, AuthenticAMD-26 amdzen5).
 *   - Arm: Linux arch/arm64/include/asm/cputype.h (ARM_CPU_PART_*, MIDR values
 *     as given in each core's Technical Reference Manual, MIDR_EL1 table).
 * Names follow design.md (lower case, "cascadelake", "icelakex", "zen4",
 * "neoverse-n2"); where design.md has none, perf's directory name is used.
 */
#include "cpu/cpu.h"
#include "cpu/cpu-internal.h"
#include "base/str.h"

#include <stdio.h>
#include <string.h>

struct uarch_x86_row {
	enum cpu_vendor vendor;
	unsigned family;
	unsigned model_lo, model_hi; /* inclusive */
	unsigned step_lo, step_hi;   /* inclusive; 0..15 for "any stepping" */
	const char *uarch;
};

#define INTEL(m, name) { .vendor = CPU_VENDOR_INTEL, .family = 6, .model_lo = (m), .model_hi = (m), \
			 .step_lo = 0, .step_hi = 15, .uarch = (name) }
#define INTEL_STEP(m, s0, s1, name) { .vendor = CPU_VENDOR_INTEL, .family = 6, .model_lo = (m), \
				      .model_hi = (m), .step_lo = (s0), .step_hi = (s1), .uarch = (name) }
#define AMD(f, m0, m1, name) { .vendor = CPU_VENDOR_AMD, .family = (f), .model_lo = (m0), \
			       .model_hi = (m1), .step_lo = 0, .step_hi = 15, .uarch = (name) }

static const struct uarch_x86_row x86_rows[] = {
	/* Intel big cores (family 6), one row per model number */
	INTEL(0x2A, "sandybridge"),        /* SANDYBRIDGE */
	INTEL(0x2D, "jaketown"),           /* SANDYBRIDGE_X */
	INTEL(0x3A, "ivybridge"),          /* IVYBRIDGE */
	INTEL(0x3E, "ivytown"),            /* IVYBRIDGE_X */
	INTEL(0x3C, "haswell"),            /* HASWELL */
	INTEL(0x45, "haswell"),            /* HASWELL_L */
	INTEL(0x46, "haswell"),            /* HASWELL_G */
	INTEL(0x3F, "haswellx"),           /* HASWELL_X */
	INTEL(0x3D, "broadwell"),          /* BROADWELL */
	INTEL(0x47, "broadwell"),          /* BROADWELL_G */
	INTEL(0x4F, "broadwellx"),         /* BROADWELL_X */
	INTEL(0x56, "broadwellde"),        /* BROADWELL_D */
	INTEL(0x4E, "skylake"),            /* SKYLAKE_L: client mobile */
	INTEL(0x5E, "skylake"),            /* SKYLAKE: client desktop */
	INTEL(0x8E, "skylake"),            /* KABYLAKE_L: Kaby/Amber/Whiskey/Comet Lake U, Skylake core */
	INTEL(0x9E, "skylake"),            /* KABYLAKE: Kaby/Coffee Lake, Skylake core */
	INTEL(0xA5, "skylake"),            /* COMETLAKE, Skylake core */
	INTEL(0xA6, "skylake"),            /* COMETLAKE_L, Skylake core */
	INTEL_STEP(0x55, 0, 4, "skylakex"),      /* SKYLAKE_X steppings 0-4: Skylake-SP/X */
	INTEL_STEP(0x55, 5, 7, "cascadelake"),   /* SKYLAKE_X steppings 5-7: Cascade Lake */
	INTEL_STEP(0x55, 10, 11, "cooperlake"),  /* SKYLAKE_X steppings 10-11: Cooper Lake */
	INTEL(0x66, "cannonlake"),         /* CANNONLAKE_L */
	INTEL(0x7D, "icelake"),            /* ICELAKE: client */
	INTEL(0x7E, "icelake"),            /* ICELAKE_L: client mobile */
	INTEL(0x6A, "icelakex"),           /* ICELAKE_X: Ice Lake-SP */
	INTEL(0x6C, "icelakex"),           /* ICELAKE_D */
	INTEL(0xA7, "rocketlake"),         /* ROCKETLAKE: Cypress Cove (perf: rocketlake) */
	INTEL(0x8C, "tigerlake"),          /* TIGERLAKE_L */
	INTEL(0x8D, "tigerlake"),          /* TIGERLAKE */
	INTEL(0x8F, "sapphirerapids"),     /* SAPPHIRERAPIDS_X */
	INTEL(0xCF, "emeraldrapids"),      /* EMERALDRAPIDS_X */
	INTEL(0xAD, "graniterapids"),      /* GRANITERAPIDS_X */
	INTEL(0xAE, "graniterapids"),      /* GRANITERAPIDS_D */
	/* Intel hybrid chips: the core types are named by cpu_uarch_hybrid_core() */
	INTEL(0x97, "alderlake"),          /* ALDERLAKE: Golden Cove + Gracemont */
	INTEL(0x9A, "alderlake"),          /* ALDERLAKE_L */
	INTEL(0xB7, "raptorlake"),         /* RAPTORLAKE: Raptor Cove + Gracemont */
	INTEL(0xBA, "raptorlake"),         /* RAPTORLAKE_P */
	INTEL(0xBF, "raptorlake"),         /* RAPTORLAKE_S */
	INTEL(0xAA, "meteorlake"),         /* METEORLAKE: Redwood Cove + Crestmont */
	INTEL(0xAC, "meteorlake"),         /* METEORLAKE_L */
	INTEL(0xB5, "meteorlake"),         /* ARROWLAKE_U: a Meteor Lake die (perf: meteorlake) */
	INTEL(0xC5, "arrowlake"),          /* ARROWLAKE_H: Lion Cove + Skymont */
	INTEL(0xC6, "arrowlake"),          /* ARROWLAKE */
	INTEL(0xBD, "lunarlake"),          /* LUNARLAKE_M: Lion Cove + Skymont */
	INTEL(0xCC, "pantherlake"),        /* PANTHERLAKE_L: Cougar Cove + Darkmont */
	/* Intel small cores (Atom) */
	INTEL(0xBE, "alderlaken"),         /* ATOM_GRACEMONT: Alder Lake-N, E-cores only */
	INTEL(0x5C, "goldmont"),           /* ATOM_GOLDMONT: Apollo Lake */
	INTEL(0x5F, "goldmont"),           /* ATOM_GOLDMONT_D: Denverton */
	INTEL(0x7A, "goldmontplus"),       /* ATOM_GOLDMONT_PLUS: Gemini Lake */
	INTEL(0x86, "snowridgex"),         /* ATOM_TREMONT_D: Jacobsville / Snow Ridge */
	INTEL(0x96, "elkhartlake"),        /* ATOM_TREMONT: Elkhart Lake */
	INTEL(0x9C, "elkhartlake"),        /* ATOM_TREMONT_L: Jasper Lake */
	INTEL(0xAF, "sierraforest"),       /* ATOM_CRESTMONT_X: Sierra Forest */
	INTEL(0xB6, "grandridge"),         /* ATOM_CRESTMONT: Grand Ridge */
	INTEL(0xDD, "clearwaterforest"),   /* ATOM_DARKMONT_X: Clearwater Forest */
	INTEL(0x57, "knightslanding"),     /* XEON_PHI_KNL */
	INTEL(0x85, "knightslanding"),     /* XEON_PHI_KNM (perf uses the knightslanding tables) */

	/* AMD family 17h: Zen (and Zen+) and Zen 2, by the kernel's model ranges */
	AMD(0x17, 0x00, 0x2F, "zen1"),     /* Naples, Raven Ridge, Pinnacle Ridge, Picasso */
	AMD(0x17, 0x30, 0x4F, "zen2"),     /* 0x31 Rome / Castle Peak */
	AMD(0x17, 0x50, 0x5F, "zen1"),     /* Zen 1 derivatives */
	AMD(0x17, 0x60, 0x7F, "zen2"),     /* 0x60 Renoir, 0x68 Lucienne, 0x71 Matisse */
	AMD(0x17, 0x90, 0x91, "zen2"),     /* Van Gogh */
	AMD(0x17, 0xA0, 0xAF, "zen2"),     /* Mendocino */
	/* AMD family 19h: Zen 3 and Zen 4 */
	AMD(0x19, 0x00, 0x0F, "zen3"),     /* 0x01 Milan */
	AMD(0x19, 0x10, 0x1F, "zen4"),     /* 0x11 Genoa */
	AMD(0x19, 0x20, 0x5F, "zen3"),     /* 0x21 Vermeer, 0x50 Cezanne */
	AMD(0x19, 0x60, 0xAF, "zen4"),     /* 0x61 Raphael, 0x74 Phoenix, 0xA0 Bergamo/Siena */
	/* AMD family 1Ah: Zen 5 */
	AMD(0x1A, 0x00, 0x0F, "zen5"),     /* 0x02 Turin */
	AMD(0x1A, 0x20, 0x2F, "zen5"),     /* Strix Point */
	AMD(0x1A, 0x40, 0x4F, "zen5"),     /* 0x44 Granite Ridge */
	AMD(0x1A, 0x70, 0x7F, "zen5"),     /* Krackan Point */
};

const char *cpu_uarch_x86(enum cpu_vendor vendor, unsigned family, unsigned model, unsigned stepping)
{
	for (size_t i = 0; i < ARRAY_SIZE(x86_rows); i++) {
		const struct uarch_x86_row *r = &x86_rows[i];

		if (r->vendor == vendor && r->family == family && model >= r->model_lo &&
		    model <= r->model_hi && stepping >= r->step_lo && stepping <= r->step_hi)
			return r->uarch;
	}
	return NULL;
}

struct uarch_arm_row {
	unsigned implementer;
	unsigned part;
	const char *uarch;
};

static const struct uarch_arm_row arm_rows[] = {
	{ .implementer = 0x41, .part = 0xD03, .uarch = "cortex-a53" },  /* ARM_CPU_PART_CORTEX_A53 */
	{ .implementer = 0x41, .part = 0xD04, .uarch = "cortex-a35" },  /* ARM_CPU_PART_CORTEX_A35 */
	{ .implementer = 0x41, .part = 0xD05, .uarch = "cortex-a55" },  /* ARM_CPU_PART_CORTEX_A55 */
	{ .implementer = 0x41, .part = 0xD07, .uarch = "cortex-a57" },  /* ARM_CPU_PART_CORTEX_A57 */
	{ .implementer = 0x41, .part = 0xD08, .uarch = "cortex-a72" },  /* ARM_CPU_PART_CORTEX_A72 */
	{ .implementer = 0x41, .part = 0xD09, .uarch = "cortex-a73" },  /* ARM_CPU_PART_CORTEX_A73 */
	{ .implementer = 0x41, .part = 0xD0A, .uarch = "cortex-a75" },  /* ARM_CPU_PART_CORTEX_A75 */
	{ .implementer = 0x41, .part = 0xD0B, .uarch = "cortex-a76" },  /* ARM_CPU_PART_CORTEX_A76 */
	{ .implementer = 0x41, .part = 0xD0C, .uarch = "neoverse-n1" }, /* ARM_CPU_PART_NEOVERSE_N1 (Graviton2, Altra) */
	{ .implementer = 0x41, .part = 0xD0D, .uarch = "cortex-a77" },  /* ARM_CPU_PART_CORTEX_A77 */
	{ .implementer = 0x41, .part = 0xD40, .uarch = "neoverse-v1" }, /* ARM_CPU_PART_NEOVERSE_V1 (Graviton3) */
	{ .implementer = 0x41, .part = 0xD41, .uarch = "cortex-a78" },  /* ARM_CPU_PART_CORTEX_A78 */
	{ .implementer = 0x41, .part = 0xD44, .uarch = "cortex-x1" },   /* ARM_CPU_PART_CORTEX_X1 */
	{ .implementer = 0x41, .part = 0xD46, .uarch = "cortex-a510" }, /* ARM_CPU_PART_CORTEX_A510 */
	{ .implementer = 0x41, .part = 0xD47, .uarch = "cortex-a710" }, /* ARM_CPU_PART_CORTEX_A710 */
	{ .implementer = 0x41, .part = 0xD48, .uarch = "cortex-x2" },   /* ARM_CPU_PART_CORTEX_X2 */
	{ .implementer = 0x41, .part = 0xD49, .uarch = "neoverse-n2" }, /* ARM_CPU_PART_NEOVERSE_N2 */
	{ .implementer = 0x41, .part = 0xD4A, .uarch = "neoverse-e1" }, /* ARM_CPU_PART_NEOVERSE_E1 */
	{ .implementer = 0x41, .part = 0xD4D, .uarch = "cortex-a715" }, /* ARM_CPU_PART_CORTEX_A715 */
	{ .implementer = 0x41, .part = 0xD4E, .uarch = "cortex-x3" },   /* ARM_CPU_PART_CORTEX_X3 */
	{ .implementer = 0x41, .part = 0xD4F, .uarch = "neoverse-v2" }, /* ARM_CPU_PART_NEOVERSE_V2 (Grace, Graviton4) */
	{ .implementer = 0x41, .part = 0xD80, .uarch = "cortex-a520" }, /* ARM_CPU_PART_CORTEX_A520 */
	{ .implementer = 0x41, .part = 0xD81, .uarch = "cortex-a720" }, /* ARM_CPU_PART_CORTEX_A720 */
	{ .implementer = 0x41, .part = 0xD82, .uarch = "cortex-x4" },   /* ARM_CPU_PART_CORTEX_X4 */
	{ .implementer = 0x41, .part = 0xD84, .uarch = "neoverse-v3" }, /* ARM_CPU_PART_NEOVERSE_V3 */
	{ .implementer = 0x41, .part = 0xD85, .uarch = "cortex-x925" }, /* ARM_CPU_PART_CORTEX_X925 */
	{ .implementer = 0x41, .part = 0xD87, .uarch = "cortex-a725" }, /* ARM_CPU_PART_CORTEX_A725 */
	{ .implementer = 0x41, .part = 0xD8E, .uarch = "neoverse-n3" }, /* ARM_CPU_PART_NEOVERSE_N3 */
	{ .implementer = 0x46, .part = 0x001, .uarch = "a64fx" },       /* FUJITSU_CPU_PART_A64FX */
	{ .implementer = 0x48, .part = 0xD01, .uarch = "tsv110" },      /* HISI_CPU_PART_TSV110 (Kunpeng 920) */
	{ .implementer = 0x6D, .part = 0xD49, .uarch = "neoverse-n2" }, /* MICROSOFT_CPU_PART_AZURE_COBALT_100: an N2 */
	{ .implementer = 0xC0, .part = 0xAC3, .uarch = "ampere1" },     /* AMPERE_CPU_PART_AMPERE1 */
	{ .implementer = 0xC0, .part = 0xAC4, .uarch = "ampere1a" },    /* AMPERE_CPU_PART_AMPERE1A */
};

const char *cpu_uarch_arm(unsigned implementer, unsigned part)
{
	for (size_t i = 0; i < ARRAY_SIZE(arm_rows); i++)
		if (arm_rows[i].implementer == implementer && arm_rows[i].part == part)
			return arm_rows[i].uarch;
	return NULL;
}

static const struct {
	unsigned code;
	const char *name;
} arm_implementers[] = {
	{ 0x41, "ARM" },       /* ARM_CPU_IMP_ARM */
	{ 0x42, "Broadcom" },  /* ARM_CPU_IMP_BRCM */
	{ 0x43, "Cavium" },    /* ARM_CPU_IMP_CAVIUM */
	{ 0x46, "Fujitsu" },   /* ARM_CPU_IMP_FUJITSU */
	{ 0x48, "HiSilicon" }, /* ARM_CPU_IMP_HISI */
	{ 0x4E, "NVIDIA" },    /* ARM_CPU_IMP_NVIDIA */
	{ 0x50, "APM" },       /* ARM_CPU_IMP_APM */
	{ 0x51, "Qualcomm" },  /* ARM_CPU_IMP_QCOM */
	{ 0x61, "Apple" },     /* ARM_CPU_IMP_APPLE */
	{ 0x6D, "Microsoft" }, /* ARM_CPU_IMP_MICROSOFT */
	{ 0xC0, "Ampere" },    /* ARM_CPU_IMP_AMPERE */
};

const char *cpu_arm_implementer_name(unsigned implementer)
{
	for (size_t i = 0; i < ARRAY_SIZE(arm_implementers); i++)
		if (arm_implementers[i].code == implementer)
			return arm_implementers[i].name;
	return NULL;
}

/* Intel hybrid chips and the code names of their two core types. */
static const struct {
	const char *chip;
	const char *core; /* P-core, CPUID.1A core type 0x40 */
	const char *atom; /* E-core, CPUID.1A core type 0x20 */
} hybrid_rows[] = {
	{ .chip = "alderlake", .core = "goldencove", .atom = "gracemont" },
	{ .chip = "raptorlake", .core = "raptorcove", .atom = "gracemont" },
	{ .chip = "meteorlake", .core = "redwoodcove", .atom = "crestmont" },
	{ .chip = "arrowlake", .core = "lioncove", .atom = "skymont" },
	{ .chip = "lunarlake", .core = "lioncove", .atom = "skymont" },
	{ .chip = "pantherlake", .core = "cougarcove", .atom = "darkmont" },
};

const char *cpu_uarch_hybrid_core(const char *chip_uarch, enum cpu_core_kind kind)
{
	if (!chip_uarch)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(hybrid_rows); i++) {
		if (strcmp(hybrid_rows[i].chip, chip_uarch))
			continue;
		if (kind == CPU_CORE_KIND_CORE)
			return hybrid_rows[i].core;
		if (kind == CPU_CORE_KIND_ATOM)
			return hybrid_rows[i].atom;
		return NULL;
	}
	return NULL;
}

bool cpu_uarch_is_hybrid(const char *chip_uarch)
{
	if (!chip_uarch)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(hybrid_rows); i++)
		if (!strcmp(hybrid_rows[i].chip, chip_uarch))
			return true;
	return false;
}

/* Sources: Linux arch/x86/events/amd/lbr.c (LbrExtV2, Zen 4) and brs.c (BRS, Zen 3). */
static const struct cpu_uarch_caps caps_rows[] = {
	{ .uarch = "zen3", .amd_brs = true },
	{ .uarch = "zen4", .amd_lbr_v2 = true },
	{ .uarch = "zen5", .amd_lbr_v2 = true },
};

const struct cpu_uarch_caps *cpu_uarch_caps(const char *uarch)
{
	if (!uarch)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(caps_rows); i++)
		if (!strcmp(caps_rows[i].uarch, uarch))
			return &caps_rows[i];
	return NULL;
}

enum cpu_vendor cpu_vendor_from_string(const char *s)
{
	if (!strcmp(s, "GenuineIntel"))
		return CPU_VENDOR_INTEL;
	if (!strcmp(s, "AuthenticAMD"))
		return CPU_VENDOR_AMD;
	return CPU_VENDOR_UNKNOWN;
}

void cpu_x86_decode_signature(uint32_t eax, unsigned *family, unsigned *model, unsigned *stepping)
{
	unsigned base_family = (eax >> 8) & 0xF;
	unsigned base_model = (eax >> 4) & 0xF;

	*stepping = eax & 0xF;
	*family = base_family;
	if (base_family == 0xF)
		*family += (eax >> 20) & 0xFF;
	*model = base_model;
	if (base_family == 0x6 || base_family == 0xF)
		*model |= ((eax >> 16) & 0xF) << 4;
}

void cpu_midr_decode(uint64_t midr, struct cpu_midr *out)
{
	out->implementer = (unsigned)((midr >> 24) & 0xFF);
	out->variant = (unsigned)((midr >> 20) & 0xF);
	out->architecture = (unsigned)((midr >> 16) & 0xF);
	out->part = (unsigned)((midr >> 4) & 0xFFF);
	out->revision = (unsigned)(midr & 0xF);
}

/* Longest perf CPUID string we look at; real ones are under 40 bytes. */
#define PERF_CPUID_MAX 128

/* Split s at sep into at most nr fields (pointers into s). Returns the count. */
static size_t split_fields(char *s, char sep, char **fields, size_t nr)
{
	size_t n = 0;

	while (n < nr) {
		char *p = strchr(s, sep);

		fields[n++] = s;
		if (!p)
			return n;
		*p = '\0';
		s = p + 1;
	}
	return n + 1; /* more fields than wanted */
}

static bool parse_x86_fields(char *s, struct cpu_perf_cpuid *out)
{
	char *f[5];
	size_t n;
	uint64_t fam, mod, step = 0;
	bool dash = !strchr(s, ',');
	char num[24];

	n = split_fields(s, dash ? '-' : ',', f, 4);
	if (n < 3 || n > 4)
		return false;
	if (strlen(f[0]) >= sizeof(out->vendor_str) || !*f[0])
		return false;
	if (!str_to_u64(f[1], &fam) || fam > 0xFFF)
		return false;
	if (dash) {
		/* mapfile form: the model (and stepping) are hex without 0x */
		if (strlen(f[2]) > 8)
			return false;
		snprintf(num, sizeof(num), "0x%s", f[2]);
		if (!str_to_u64(num, &mod))
			return false;
		if (n == 4) {
			if (strlen(f[3]) > 8)
				return false;
			snprintf(num, sizeof(num), "0x%s", f[3]);
			if (!str_to_u64(num, &step))
				return false;
		}
	} else {
		if (!str_to_u64(f[2], &mod) || (n == 4 && !str_to_u64(f[3], &step)))
			return false;
	}
	if (mod > 0xFFF || step > 0xF)
		return false;
	memcpy(out->vendor_str, f[0], strlen(f[0]) + 1);
	out->vendor = cpu_vendor_from_string(out->vendor_str);
	out->family = (unsigned)fam;
	out->model = (unsigned)mod;
	out->stepping = (unsigned)step;
	out->uarch = cpu_uarch_x86(out->vendor, out->family, out->model, out->stepping);
	return true;
}

int cpu_uarch_from_perf_cpuid(const char *buf, size_t len, struct cpu_perf_cpuid *out, struct tdp_err *err)
{
	char s[PERF_CPUID_MAX];
	size_t n = len;

	memset(out, 0, sizeof(*out));
	/* perf pads the string with NULs to a multiple of 8 and ends x86 ones with '$' (stripped) */
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '\0') {
			n = i;
			break;
		}
	}
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '$'))
		n--;
	if (n == 0 || n >= sizeof(s))
		goto bad;
	memcpy(s, buf, n);
	s[n] = '\0';
	if (!strncmp(s, "0x", 2) && !strchr(s, ',')) {
		uint64_t midr;
		struct cpu_midr m;

		if (n > 18 || !str_to_u64(s, &midr))
			goto bad;
		out->is_arm = true;
		out->midr = midr;
		out->vendor = CPU_VENDOR_ARM;
		cpu_midr_decode(midr, &m);
		out->uarch = cpu_uarch_arm(m.implementer, m.part);
		return 0;
	}
	if (parse_x86_fields(s, out))
		return 0;
	memset(out, 0, sizeof(*out));
bad:
	cpu_printable(buf, len, s, 64);
	return tdp_err_set(err, TDP_EFORMAT,
			   "'%s' is not a perf CPUID string (expected 'GenuineIntel,6,78,3' or "
			   "'0x00000000410fd490')", s);
}
