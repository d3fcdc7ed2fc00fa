/*
 * virt.c: are we a guest? Hypervisors announce themselves in CPUID: leaf 1
 * ECX bit 31 is "reserved for use by hypervisors" (Intel SDM vol. 2A, CPUID;
 * AMD APM vol. 3, CPUID Fn0000_0001_ECX) and leaf 0x40000000 returns a 12-byte
 * vendor signature in EBX, ECX, EDX. Xen PV guests show /sys/hypervisor/type;
 * the DMI strings name the virtual platform ("QEMU", "Standard PC (Q35 ...)").
 * A guest matters because most hypervisors expose no PMU unless told to.
 */
#include "cpu/cpu.h"
#include "cpu/cpu-internal.h"
#include "base/alloc.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *signature; /* the 12 bytes of EBX, ECX, EDX, NULs trimmed */
	const char *vendor;
} signatures[] = {
	{ "KVMKVMKVM", "KVM" },
	{ "Linux KVM Hv", "KVM" },          /* KVM with Hyper-V enlightenments */
	{ "Microsoft Hv", "Hyper-V" },
	{ "VMwareVMware", "VMware" },
	{ "XenVMMXenVMM", "Xen" },
	{ "TCGTCGTCGTCG", "QEMU (TCG)" },
	{ "VBoxVBoxVBox", "VirtualBox" },
	{ " lrpepyh  vr", "Parallels" },
	{ "bhyve bhyve ", "bhyve" },
	{ "ACRNACRNACRN", "ACRN" },
	{ "QNXQVMBSQG", "QNX" },
	{ "Jailhouse", "Jailhouse" },
	{ "SRESRESRESRE", "Intel SRE" },
};

/* DMI system vendors and product names that only virtual machines report. */
static const struct {
	const char *sys_vendor;   /* exact match, or NULL */
	const char *product_name; /* exact match, or NULL */
	const char *vendor;
} dmi_vms[] = {
	{ "QEMU", NULL, "QEMU" },
	{ NULL, "KVM", "KVM" },
	{ "innotek GmbH", NULL, "VirtualBox" },
	{ "VMware, Inc.", NULL, "VMware" },
	{ "Xen", NULL, "Xen" },
	{ "Microsoft Corporation", "Virtual Machine", "Hyper-V" },
	{ "Parallels Software International Inc.", NULL, "Parallels" },
	{ NULL, "HVM domU", "Xen" },
};

static void read_cpuid_signature(struct cpu_virt *out)
{
	uint32_t r[4];
	char sig[13];

	if (!cpu_cpuid(1, 0, r))
		return;
	if (!(r[2] >> 31)) {
		out->hypervisor = 0;
		out->source = "cpuid";
		return;
	}
	out->hypervisor = 1;
	out->source = "cpuid";
	if (!cpu_cpuid(0x40000000u, 0, r))
		return;
	memcpy(sig, &r[1], 4);
	memcpy(sig + 4, &r[2], 4);
	memcpy(sig + 8, &r[3], 4);
	sig[12] = '\0';
	cpu_printable(sig, strlen(sig), out->signature, sizeof(out->signature) - 1);
	for (size_t i = 0; i < ARRAY_SIZE(signatures); i++)
		if (!strcmp(out->signature, signatures[i].signature))
			cpu_strlcpy(out->vendor, signatures[i].vendor, sizeof(out->vendor));
}

static void read_cpuinfo_flag(struct cpu_virt *out, const struct cpu_env *env)
{
	char path[4096];
	char *text = NULL;
	size_t len;
	struct cpu_cpuinfo ci;

	if (!cpu_path(path, sizeof(path), env->procfs_root, "cpuinfo") ||
	    cpu_read_file(path, CPU_CPUINFO_MAX, &text, &len, NULL))
		return;
	if (cpu_cpuinfo_parse((const uint8_t *)text, len, &ci, NULL) == 0 && ci.has_flags) {
		out->hypervisor = ci.hypervisor_flag;
		out->source = "/proc/cpuinfo flags";
	}
	tdp_free(text);
}

void cpu_virt_detect(struct cpu_virt *out, const struct cpu_env *env)
{
	char buf[CPU_VALUE_MAX], vendor[80], product[80];
	long vl, pl;

	env = cpu_env_or_default(env);
	memset(out, 0, sizeof(*out));
	out->hypervisor = -1;
	if (env->live)
		read_cpuid_signature(out);
	if (out->hypervisor < 0)
		read_cpuinfo_flag(out, env);
	if (cpu_read_attr(buf, sizeof(buf), env->sysfs_root, "hypervisor/type") > 0) {
		/* "xen" for Xen guests (and dom0, which is also virtualized) */
		if (out->hypervisor != 1 || !out->source)
			out->source = "/sys/hypervisor/type";
		out->hypervisor = 1;
		if (!out->vendor[0])
			cpu_printable(buf, strlen(buf), out->vendor, sizeof(out->vendor) - 1);
	}
	vl = cpu_read_attr(vendor, sizeof(vendor), env->sysfs_root, "class/dmi/id/sys_vendor");
	pl = cpu_read_attr(product, sizeof(product), env->sysfs_root, "class/dmi/id/product_name");
	if (vl > 0 || pl > 0) {
		char v[80], p[80];

		cpu_printable(vendor, vl > 0 ? (size_t)vl : 0, v, sizeof(v) - 1);
		cpu_printable(product, pl > 0 ? (size_t)pl : 0, p, sizeof(p) - 1);
		snprintf(out->product, sizeof(out->product), "%s%s%s", v, *v && *p ? " " : "", p);
		for (size_t i = 0; i < ARRAY_SIZE(dmi_vms); i++) {
			if ((dmi_vms[i].sys_vendor && strcmp(dmi_vms[i].sys_vendor, v)) ||
			    (dmi_vms[i].product_name && strcmp(dmi_vms[i].product_name, p)))
				continue;
			if (out->hypervisor != 1)
				out->source = "dmi";
			out->hypervisor = 1;
			if (!out->vendor[0])
				cpu_strlcpy(out->vendor, dmi_vms[i].vendor, sizeof(out->vendor));
			break;
		}
	}
}
