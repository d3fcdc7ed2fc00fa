/*
 * uarch.c: CPU model numbers to micro-architecture names and what each has, as
 * data. The rows are data/cpus.json (its sources are listed there), emitted as
 * X-macros by src/cpu/gen/gen-cpus.py into cpus-data.h at build time; this file
 * only expands and searches them. Names follow design.md (lower case,
 * "cascadelake", "icelakex", "zen4", "neoverse-n2"); where design.md has none,
 * perf's directory name is used.
 */
#include "cpu/cpu.h"
#include "cpu/cpu-internal.h"
#include "base/str.h"
#include "cpus-data.h"

#include <stdio.h>
#include <string.h>

struct uarch_x86_row {
	enum cpu_vendor vendor;
	unsigned family;
	unsigned model_lo, model_hi; /* inclusive */
	unsigned step_lo, step_hi;   /* inclusive; 0..15 for "any stepping" */
	const char *uarch;
};

#define X86_VENDOR(v) ((v) == CPU_DATA_INTEL ? CPU_VENDOR_INTEL : CPU_VENDOR_AMD)
#define X86_ROW(v, f, m0, m1, s0, s1, name) \
	{ .vendor = X86_VENDOR(v), .family = (f), .model_lo = (m0), .model_hi = (m1), .step_lo = (s0), \
	  .step_hi = (s1), .uarch = (name) },

static const struct uarch_x86_row x86_rows[] = { CPU_DATA_X86(X86_ROW) };

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
	unsigned rv_lo, rv_hi; /* variant << 4 | revision, inclusive */
	const char *uarch;
	const char *revision_name; /* NULL on a core's catch-all row */
};

#define ARM_ROW(imp, part_, lo, hi, name, rev_name, caps) \
	{ .implementer = (imp), .part = (part_), .rv_lo = (lo), .rv_hi = (hi), .uarch = (name), \
	  .revision_name = (rev_name) },

static const struct uarch_arm_row arm_rows[] = { CPU_DATA_ARM(ARM_ROW) };

/* The first row of the core whose variant/revision range holds rv (rows of one core: specific first). */
static const struct uarch_arm_row *arm_row(unsigned implementer, unsigned part, unsigned rv)
{
	for (size_t i = 0; i < ARRAY_SIZE(arm_rows); i++)
		if (arm_rows[i].implementer == implementer && arm_rows[i].part == part && rv >= arm_rows[i].rv_lo &&
		    rv <= arm_rows[i].rv_hi)
			return &arm_rows[i];
	return NULL;
}

const char *cpu_uarch_arm(unsigned implementer, unsigned part)
{
	const struct uarch_arm_row *r = arm_row(implementer, part, 0xff);

	return r ? r->uarch : NULL;
}

const char *cpu_arm_revision_name(unsigned implementer, unsigned part, unsigned variant, unsigned revision)
{
	const struct uarch_arm_row *r = arm_row(implementer, part, (variant & 0xF) << 4 | (revision & 0xF));

	return r ? r->revision_name : NULL;
}

const char *cpu_uarch_from_midr(uint64_t midr)
{
	struct cpu_midr m;
	const char *rev;

	cpu_midr_decode(midr, &m);
	rev = cpu_arm_revision_name(m.implementer, m.part, m.variant, m.revision);
	return rev ? rev : cpu_uarch_arm(m.implementer, m.part);
}

#define IMPL_ROW(c, n) { c, n },

static const struct {
	unsigned code;
	const char *name;
} arm_implementers[] = { CPU_DATA_ARM_IMPL(IMPL_ROW) };

const char *cpu_arm_implementer_name(unsigned implementer)
{
	for (size_t i = 0; i < ARRAY_SIZE(arm_implementers); i++)
		if (arm_implementers[i].code == implementer)
			return arm_implementers[i].name;
	return NULL;
}

#define HYBRID_ROW(c, p, e) { .chip = (c), .core = (p), .atom = (e) },

/* Intel hybrid chips and the code names of their two core types. */
static const struct {
	const char *chip;
	const char *core; /* P-core, CPUID.1A core type 0x40 */
	const char *atom; /* E-core, CPUID.1A core type 0x20 */
} hybrid_rows[] = { CPU_DATA_HYBRID(HYBRID_ROW) };

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

#define HAS(caps, cap) (((caps) & CPU_DATA_CAP_##cap) != 0)
#define CAPS_ROW(name, w, gp, fx, depth, caps) \
	{ .uarch = (name), .width = (w), .gp_counters = (gp), .fixed_counters = (fx), .lbr_depth = (depth), \
	  .intel_lbr = HAS(caps, LBR), .perf_metrics = HAS(caps, PERF_METRICS), \
	  .slot_events = HAS(caps, SLOT_EVENTS), .amd_lbr_v2 = HAS(caps, LBR_EXT_V2), .amd_brs = HAS(caps, BRS), \
	  .arm_spe = HAS(caps, SPE), .arm_brbe = HAS(caps, BRBE) },

static const struct cpu_uarch_caps caps_rows[] = { CPU_DATA_UARCH(CAPS_ROW) };

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
