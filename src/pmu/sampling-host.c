/*
 * sampling-host.c: what a recording's header says about the machine: uname,
 * CPU counts, memory, perf's CPUID string (tools/perf/arch/x86/util/header.c
 * "vendor,family,model,stepping"; arm64: the MIDR as 0x%016lx) and the PMU
 * mappings (tools/perf/util/header.c write_pmu_mappings()).
 */
#include "pmu/sampling.h"
#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define NAME_ALIGN 64 /* perf pads feature strings to 64 bytes */

static uint64_t meminfo_total_kb(void)
{
	char buf[4096];
	const char *p;
	unsigned long long kb;

	if (tdp_read_small("/proc/meminfo", buf, sizeof(buf)) < 0)
		return 0;
	p = strstr(buf, "MemTotal:");
	if (!p || sscanf(p + 9, "%llu", &kb) != 1)
		return 0;
	return kb;
}

void pmu_host_info_read(struct pmu_host_info *out, const struct cpu_info *cpu)
{
	struct utsname u;
	long n;

	memset(out, 0, sizeof(*out));
	if (uname(&u) == 0) {
		snprintf(out->hostname, sizeof(out->hostname), "%s", u.nodename);
		snprintf(out->osrelease, sizeof(out->osrelease), "%s", u.release);
		snprintf(out->arch, sizeof(out->arch), "%s", u.machine);
	}
	n = sysconf(_SC_NPROCESSORS_CONF);
	out->nr_cpus_avail = n > 0 ? (uint32_t)n : 0;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	out->nr_cpus_online = n > 0 ? (uint32_t)n : 0;
	out->total_mem_kb = meminfo_total_kb();
	if (!cpu)
		return;
	if (cpu->is_x86 && cpu->vendor_str[0])
		snprintf(out->cpuid, sizeof(out->cpuid), "%s,%u,%u,%u", cpu->vendor_str, cpu->family, cpu->model,
			 cpu->stepping);
	else if (cpu->is_arm)
		snprintf(out->cpuid, sizeof(out->cpuid), "0x%016llx", (unsigned long long)cpu->midr);
	snprintf(out->cpudesc, sizeof(out->cpudesc), "%s", cpu->brand);
}

int pmu_host_pmu_mappings(const struct cpu_pmu_list *pmus, uint8_t **out, size_t *len, struct tdp_err *err)
{
	size_t need = 4, pos;
	uint32_t nr = 0;
	uint8_t *buf;

	for (size_t i = 0; pmus && i < pmus->nr; i++) {
		if (pmus->v[i].type < 0 || pmus->v[i].type > UINT32_MAX)
			continue;
		need += 8 + (strlen(pmus->v[i].name) + 1 + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
		nr++;
	}
	buf = tdp_calloc(1, need);
	if (!buf)
		return tdp_err_oom(err);
	memcpy(buf, &nr, 4);
	pos = 4;
	for (size_t i = 0; pmus && i < pmus->nr; i++) {
		const struct cpu_pmu *p = &pmus->v[i];
		uint32_t type, slen;

		if (p->type < 0 || p->type > UINT32_MAX)
			continue;
		type = (uint32_t)p->type;
		slen = (uint32_t)((strlen(p->name) + 1 + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN);
		memcpy(buf + pos, &type, 4);
		memcpy(buf + pos + 4, &slen, 4);
		memcpy(buf + pos + 8, p->name, strlen(p->name));
		pos += 8 + slen;
	}
	*out = buf;
	*len = need;
	return 0;
}
