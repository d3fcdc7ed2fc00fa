/*
 * ident.c: which CPU this is (cpu_info_detect()).
 *
 * x86, live: CPUID. Leaf 0 vendor; leaf 1 signature; 0x80000002-4 brand; leaf
 * 0xA (Intel architectural PMU: EAX[7:0] version, EAX[15:8] GP counters per
 * logical CPU, EDX[4:0] fixed counters, ECX fixed-counter bitmap from v5);
 * leaf 7 EDX[15] hybrid and leaf 0x1A EAX[31:24] core type per CPU (Intel SDM
 * vol. 2A, CPUID); AMD 0x80000001 ECX[23] PerfCtrExtCore (6 counters instead
 * of 4), 0x80000008 EBX[31] BRS, 0x80000022 EAX[0] PerfMonV2, EAX[1] LbrExtV2,
 * EBX[3:0] NumPerfCtrCore, EBX[9:4] LbrV2StackSz (AMD APM vol. 3, appendix E;
 * Linux arch/x86/include/asm/perf_event.h union cpuid_0x80000022_ebx).
 * arm64 and snapshots: midr_el1 in sysfs, then /proc/cpuinfo.
 */
#include "cpu/cpu.h"
#include "cpu/cpu-internal.h"
#include "base/alloc.h"
#include "base/str.h"
#include "base/strbuf.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>

/* Copy cpus[0..nr) as a kernel list into a new heap string. */
static int list_string(const unsigned *cpus, size_t nr, char **out, struct tdp_err *err)
{
	struct strbuf sb = STRBUF_INIT;

	cpu_list_format(cpus, nr, &sb);
	*out = strbuf_detach(&sb);
	return *out ? 0 : tdp_err_oom(err);
}

/* Parse a cpu list text (from a file) and return it normalised as a heap string. */
static int normalise_list(const char *text, const char *what, char **out, unsigned **cpus, size_t *nr,
			  struct tdp_err *err)
{
	unsigned *v = NULL;
	size_t n = 0;
	int rc = cpu_list_parse(text, strlen(text), what, &v, &n, err);

	if (rc)
		return rc;
	rc = list_string(v, n, out, err);
	if (rc || !cpus) {
		tdp_free(v);
		return rc;
	}
	*cpus = v;
	*nr = n;
	return 0;
}

static void trim_copy(char *dst, size_t size, const char *src)
{
	char tmp[64];

	cpu_printable(src, strnlen(src, sizeof(tmp) - 1), tmp, sizeof(tmp) - 1);
	cpu_strlcpy(dst, str_trim(tmp), size);
}

/* x86 identity from CPUID (live only). Returns false when there is no CPUID. */
static bool ident_cpuid(struct cpu_info *info)
{
	uint32_t r[4], brand[12];
	char vendor[13];

	if (!cpu_cpuid(0, 0, r))
		return false;
	memcpy(vendor, &r[1], 4);
	memcpy(vendor + 4, &r[3], 4);
	memcpy(vendor + 8, &r[2], 4);
	vendor[12] = '\0';
	cpu_printable(vendor, strlen(vendor), info->vendor_str, 12);
	info->vendor = cpu_vendor_from_string(info->vendor_str);
	if (!cpu_cpuid(1, 0, r))
		return false;
	cpu_x86_decode_signature(r[0], &info->family, &info->model, &info->stepping);
	info->is_x86 = true;
	info->source = "cpuid";
	if (cpu_cpuid(0x80000002u, 0, brand) && cpu_cpuid(0x80000003u, 0, brand + 4) &&
	    cpu_cpuid(0x80000004u, 0, brand + 8)) {
		char s[49];

		memcpy(s, brand, 48);
		s[48] = '\0';
		trim_copy(info->brand, sizeof(info->brand), s);
	}
	return true;
}

/* Counters and branch-recording features from CPUID on the calling CPU. */
static void counters_cpuid(enum cpu_vendor vendor, int *gp, int *fixed, const char **source)
{
	uint32_t r[4];

	if (vendor == CPU_VENDOR_INTEL && cpu_cpuid(0xA, 0, r)) {
		unsigned version = r[0] & 0xFF;

		if (version == 0)
			return;
		*gp = (int)((r[0] >> 8) & 0xFF);
		*fixed = version > 1 ? (int)(r[3] & 0x1F) : 0;
		/* from v5, ECX enumerates fixed counters that may not be contiguous */
		if (version >= 5 && __builtin_popcount(r[2]) > *fixed)
			*fixed = __builtin_popcount(r[2]);
		*source = "cpuid 0xa";
	} else if (vendor == CPU_VENDOR_AMD) {
		*fixed = 0;
		if (cpu_cpuid(0x80000022u, 0, r) && (r[0] & 1)) {
			*gp = (int)(r[1] & 0xF);
			*source = "cpuid 0x80000022 (PerfMonV2 NumPerfCtrCore)";
		} else if (cpu_cpuid(0x80000001u, 0, r) && ((r[2] >> 23) & 1)) {
			*gp = 6;
			*source = "cpuid 0x80000001 (PerfCtrExtCore: 6 counters)";
		} else {
			*gp = 4;
			*source = "AMD legacy PMU (4 counters)";
		}
	}
}

static void amd_features(struct cpu_info *info)
{
	uint32_t r[4];

	if (cpu_cpuid(0x80000008u, 0, r))
		info->amd_brs = (int)((r[1] >> 31) & 1);
	else
		info->amd_brs = 0;
	if (cpu_cpuid(0x80000022u, 0, r)) {
		info->amd_lbr_v2 = (int)((r[0] >> 1) & 1);
		if (info->amd_lbr_v2)
			info->amd_lbr_v2_depth = (int)((r[1] >> 4) & 0x3F);
	} else {
		info->amd_lbr_v2 = 0; /* no extended perfmon leaf: no LbrExtV2 */
	}
}

/* arm64 identity from a MIDR value. */
static void set_midr(struct cpu_info *info, uint64_t midr, const char *source)
{
	const char *impl;

	info->is_arm = true;
	info->vendor = CPU_VENDOR_ARM;
	info->midr = midr;
	cpu_midr_decode(midr, &info->midr_fields);
	impl = cpu_arm_implementer_name(info->midr_fields.implementer);
	if (impl)
		cpu_strlcpy(info->vendor_str, impl, sizeof(info->vendor_str));
	else
		snprintf(info->vendor_str, sizeof(info->vendor_str), "0x%02x", info->midr_fields.implementer);
	info->source = source;
}

static bool read_midr(const struct cpu_env *env, unsigned cpu, uint64_t *midr)
{
	char buf[CPU_VALUE_MAX];

	return cpu_read_attr(buf, sizeof(buf), env->sysfs_root,
			     "devices/system/cpu/cpu%u/regs/identification/midr_el1", cpu) > 0 &&
	       str_to_u64(str_trim(buf), midr);
}

static int ident_cpuinfo(struct cpu_info *info, const struct cpu_env *env, struct tdp_err *err)
{
	char path[4096];
	char *text = NULL;
	size_t len;
	struct cpu_cpuinfo ci;
	int rc;

	if (!cpu_path(path, sizeof(path), env->procfs_root, "cpuinfo"))
		return 0;
	rc = cpu_read_file(path, CPU_CPUINFO_MAX, &text, &len, NULL);
	if (rc)
		return 0; /* absent: identity stays unknown */
	rc = cpu_cpuinfo_parse((const uint8_t *)text, len, &ci, err);
	tdp_free(text);
	if (rc == TDP_ENOENT) {
		tdp_err_clear(err);
		return 0;
	}
	if (rc) {
		tdp_err_prefix(err, "'%s'", path);
		return rc;
	}
	if (ci.has_x86) {
		cpu_strlcpy(info->vendor_str, ci.vendor, sizeof(info->vendor_str));
		info->vendor = cpu_vendor_from_string(ci.vendor);
		info->family = ci.family;
		info->model = ci.model;
		info->stepping = ci.stepping;
		info->is_x86 = true;
		info->source = "/proc/cpuinfo";
		cpu_strlcpy(info->brand, ci.brand, sizeof(info->brand));
	} else if (ci.has_arm) {
		uint64_t midr = (uint64_t)ci.implementer << 24 | (uint64_t)ci.variant << 20 | 0xFull << 16 |
				(uint64_t)ci.part << 4 | ci.revision;

		set_midr(info, midr, "/proc/cpuinfo");
	}
	return 0;
}

static int add_core_type(struct cpu_info *info, const char *type, const char *uarch, const unsigned *cpus,
			 size_t nr, const char *pmu, struct tdp_err *err)
{
	struct cpu_core_type *t;

	if (info->nr_core_types >= CPU_CORE_TYPES_MAX)
		return tdp_err_set(err, TDP_ELIMIT, "more than %d core types", CPU_CORE_TYPES_MAX);
	t = &info->core_types[info->nr_core_types];
	memset(t, 0, sizeof(*t));
	cpu_strlcpy(t->type, type, sizeof(t->type));
	t->uarch = uarch;
	t->gp_counters = -1;
	t->fixed_counters = -1;
	if (pmu)
		cpu_strlcpy(t->pmu, pmu, sizeof(t->pmu));
	if (list_string(cpus, nr, &t->cpus, err))
		return TDP_ENOMEM;
	info->nr_core_types++;
	return 0;
}

/*
 * Intel hybrid, live: pin this thread to each online CPU in turn and ask CPUID
 * leaf 0x1A for its core type (and leaf 0xA for its counters). The affinity is
 * restored before returning. CPUs we may not run on (cpuset) are skipped.
 */
static int hybrid_cpuid(struct cpu_info *info, const struct cpu_pmu_list *pmus, const unsigned *online,
			size_t nr_online, struct tdp_err *err)
{
	static const enum cpu_core_kind kinds[] = { CPU_CORE_KIND_CORE, CPU_CORE_KIND_ATOM };
	size_t setsize = CPU_ALLOC_SIZE(CPU_NR_MAX);
	cpu_set_t *saved = CPU_ALLOC(CPU_NR_MAX), *one = CPU_ALLOC(CPU_NR_MAX);
	unsigned *per[2] = { NULL, NULL };
	size_t nr[2] = { 0, 0 };
	int gp[2] = { -1, -1 }, fixed[2] = { -1, -1 };
	int rc = 0;

	if (!saved || !one)
		goto out;
	per[0] = tdp_calloc(nr_online ? nr_online : 1, sizeof(unsigned));
	per[1] = tdp_calloc(nr_online ? nr_online : 1, sizeof(unsigned));
	if (!per[0] || !per[1]) {
		rc = tdp_err_oom(err);
		goto out;
	}
	if (sched_getaffinity(0, setsize, saved) < 0)
		goto out;
	for (size_t i = 0; i < nr_online; i++) {
		uint32_t r[4];
		unsigned kind;

		CPU_ZERO_S(setsize, one);
		CPU_SET_S(online[i], setsize, one);
		if (sched_setaffinity(0, setsize, one) < 0)
			continue;
		if (!cpu_cpuid(0x1A, 0, r))
			continue;
		kind = r[0] >> 24;
		for (size_t k = 0; k < 2; k++) {
			const char *src = NULL;

			if (kind != (unsigned)kinds[k])
				continue;
			if (!nr[k])
				counters_cpuid(CPU_VENDOR_INTEL, &gp[k], &fixed[k], &src);
			per[k][nr[k]++] = online[i];
		}
	}
	sched_setaffinity(0, setsize, saved);
	for (size_t k = 0; k < 2 && !rc; k++) {
		const char *pmu = kinds[k] == CPU_CORE_KIND_CORE ? "cpu_core" : "cpu_atom";

		if (!nr[k])
			continue;
		rc = add_core_type(info, kinds[k] == CPU_CORE_KIND_CORE ? "core" : "atom",
				   cpu_uarch_hybrid_core(info->uarch, kinds[k]), per[k], nr[k],
				   cpu_pmu_list_find(pmus, pmu) ? pmu : NULL, err);
		if (!rc) {
			info->core_types[info->nr_core_types - 1].gp_counters = gp[k];
			info->core_types[info->nr_core_types - 1].fixed_counters = fixed[k];
		}
	}
out:
	if (saved)
		CPU_FREE(saved);
	if (one)
		CPU_FREE(one);
	tdp_free(per[0]);
	tdp_free(per[1]);
	return rc;
}

/* Intel hybrid from the cpu_core/cpu_atom PMUs' cpus files (snapshots, or no leaf 0x1A). */
static int hybrid_pmus(struct cpu_info *info, const struct cpu_pmu_list *pmus, struct tdp_err *err)
{
	static const struct {
		const char *pmu, *type;
		enum cpu_core_kind kind;
	} types[] = {
		{ "cpu_core", "core", CPU_CORE_KIND_CORE },
		{ "cpu_atom", "atom", CPU_CORE_KIND_ATOM },
	};
	int rc = 0;

	for (size_t i = 0; i < ARRAY_SIZE(types) && !rc; i++) {
		const struct cpu_pmu *p = cpu_pmu_list_find(pmus, types[i].pmu);
		unsigned *cpus = NULL;
		size_t nr = 0;
		char *text = NULL;

		if (!p || !p->cpus)
			continue;
		rc = normalise_list(p->cpus, p->name, &text, &cpus, &nr, err);
		tdp_free(text);
		if (!rc)
			rc = add_core_type(info, types[i].type, cpu_uarch_hybrid_core(info->uarch, types[i].kind),
					   cpus, nr, p->name, err);
		tdp_free(cpus);
	}
	return rc;
}

/* The core PMU whose cpus list holds cpu (Arm clusters), or NULL. */
static const char *pmu_for_cpu(const struct cpu_pmu_list *pmus, unsigned cpu)
{
	for (size_t i = 0; pmus && i < pmus->nr; i++) {
		const struct cpu_pmu *p = &pmus->v[i];
		unsigned *cpus = NULL;
		size_t nr = 0;
		bool in;

		if (p->kind != CPU_PMU_CORE || !p->cpus ||
		    cpu_list_parse(p->cpus, strlen(p->cpus), p->name, &cpus, &nr, NULL))
			continue;
		in = cpu_list_contains(cpus, nr, cpu);
		tdp_free(cpus);
		if (in)
			return p->name;
	}
	return NULL;
}

/* Arm: group online CPUs by MIDR implementer/part; more than one group is hybrid. */
static int arm_clusters(struct cpu_info *info, const struct cpu_env *env, const struct cpu_pmu_list *pmus,
			const unsigned *online, size_t nr_online, struct tdp_err *err)
{
	uint32_t keys[CPU_CORE_TYPES_MAX];
	unsigned *members = NULL;
	size_t nr_keys = 0;
	int rc = 0;

	members = tdp_calloc(nr_online ? nr_online : 1, sizeof(*members));
	if (!members)
		return tdp_err_oom(err);
	/* first pass: the distinct (implementer, part) pairs, in CPU order */
	for (size_t i = 0; i < nr_online; i++) {
		uint64_t midr;
		uint32_t key;
		size_t k;

		if (!read_midr(env, online[i], &midr))
			continue;
		key = (uint32_t)((midr >> 24) & 0xFF) << 12 | (uint32_t)((midr >> 4) & 0xFFF);
		for (k = 0; k < nr_keys && keys[k] != key; k++)
			;
		if (k == nr_keys && nr_keys < CPU_CORE_TYPES_MAX)
			keys[nr_keys++] = key;
	}
	if (nr_keys < 2)
		goto out;
	info->hybrid = true;
	for (size_t k = 0; k < nr_keys && !rc; k++) {
		unsigned impl = keys[k] >> 12, part = keys[k] & 0xFFF;
		const char *uarch = cpu_uarch_arm(impl, part);
		size_t n = 0;
		char type[32];

		for (size_t i = 0; i < nr_online; i++) {
			uint64_t midr;

			if (read_midr(env, online[i], &midr) && (((midr >> 24) & 0xFF) << 12 | ((midr >> 4) & 0xFFF)) ==
								      keys[k])
				members[n++] = online[i];
		}
		snprintf(type, sizeof(type), "0x%02x/0x%03x", impl, part); /* MIDR implementer/part */
		rc = add_core_type(info, type, uarch, members, n, n ? pmu_for_cpu(pmus, members[0]) : NULL, err);
	}
out:
	tdp_free(members);
	return rc;
}

static int online_cpus(struct cpu_info *info, const struct cpu_env *env, unsigned **cpus, size_t *nr,
		       struct tdp_err *err)
{
	char buf[CPU_LIST_TEXT_MAX];
	char path[4096];
	int rc;

	*cpus = NULL;
	*nr = 0;
	if (cpu_read_attr(buf, sizeof(buf), env->sysfs_root, "devices/system/cpu/online") < 0 ||
	    !cpu_path(path, sizeof(path), env->sysfs_root, "devices/system/cpu/online"))
		return 0;
	rc = normalise_list(buf, path, &info->online, cpus, nr, err);
	if (rc)
		return rc;
	info->cpus_online = (unsigned)*nr;
	return 0;
}

static bool has_core_pmu(const struct cpu_pmu_list *pmus)
{
	return cpu_pmu_list_first(pmus, CPU_PMU_CORE) != NULL;
}

int cpu_info_detect(struct cpu_info *info, const struct cpu_env *env, const struct cpu_pmu_list *pmus,
		    struct tdp_err *err)
{
	unsigned *online = NULL;
	size_t nr_online = 0;
	char buf[CPU_VALUE_MAX];
	bool have_cpuid = false;
	int rc;

	env = cpu_env_or_default(env);
	memset(info, 0, sizeof(*info));
	info->smt = -1;
	info->gp_counters = -1;
	info->fixed_counters = -1;
	info->amd_lbr_v2 = -1;
	info->amd_lbr_v2_depth = -1;
	info->amd_brs = -1;

	rc = online_cpus(info, env, &online, &nr_online, err);
	if (rc)
		goto out;
	if (env->live)
		have_cpuid = ident_cpuid(info);
	if (!have_cpuid) {
		uint64_t midr;

		/* cpu0 may be offline; the first online CPU's MIDR names the chip */
		if (read_midr(env, nr_online ? online[0] : 0, &midr))
			set_midr(info, midr, "midr_el1");
		else if ((rc = ident_cpuinfo(info, env, err)))
			goto out;
	}
	if (info->is_x86) {
		info->uarch = cpu_uarch_x86(info->vendor, info->family, info->model, info->stepping);
	} else if (info->is_arm) {
		info->uarch = cpu_uarch_arm(info->midr_fields.implementer, info->midr_fields.part);
		info->uarch_revision = cpu_arm_revision_name(info->midr_fields.implementer, info->midr_fields.part,
							     info->midr_fields.variant, info->midr_fields.revision);
	}

	if (cpu_read_attr(buf, sizeof(buf), env->sysfs_root, "devices/system/cpu/smt/active") > 0)
		info->smt = str_trim(buf)[0] == '1';

	/* hybrid core types */
	if (info->vendor == CPU_VENDOR_INTEL) {
		uint32_t r[4];

		if (have_cpuid && cpu_cpuid(7, 0, r) && ((r[3] >> 15) & 1))
			rc = hybrid_cpuid(info, pmus, online, nr_online, err);
		if (!rc && !info->nr_core_types)
			rc = hybrid_pmus(info, pmus, err);
		info->hybrid = info->nr_core_types > 1;
	} else if (info->is_arm) {
		rc = arm_clusters(info, env, pmus, online, nr_online, err);
	}
	if (rc)
		goto out;

	/* counters and AMD branch-recording features */
	if (have_cpuid) {
		counters_cpuid(info->vendor, &info->gp_counters, &info->fixed_counters, &info->counters_source);
		if (info->vendor == CPU_VENDOR_AMD)
			amd_features(info);
	}
	if (info->hybrid && info->nr_core_types && info->core_types[0].gp_counters >= 0) {
		info->gp_counters = info->core_types[0].gp_counters;
		info->fixed_counters = info->core_types[0].fixed_counters;
		info->counters_source = "cpuid 0xa on the first core type";
	}
	if (pmus && !has_core_pmu(pmus)) {
		/*
		 * CPUID describes the CPU model the hypervisor presents; without a
		 * registered core PMU none of those counters can be used here.
		 */
		info->gp_counters = 0;
		info->fixed_counters = 0;
		info->counters_source = "no core PMU is registered";
	}
out:
	tdp_free(online);
	if (rc)
		cpu_info_release(info);
	return rc;
}

void cpu_info_release(struct cpu_info *info)
{
	if (!info)
		return;
	for (size_t i = 0; i < info->nr_core_types; i++)
		tdp_free(info->core_types[i].cpus);
	tdp_free(info->online);
	memset(info, 0, sizeof(*info));
}
