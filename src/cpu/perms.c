/*
 * perms.c: what perf_event_open will let us do: kernel.perf_event_paranoid,
 * our credentials, and the NMI watchdog that holds a counter.
 *
 * Levels (Documentation/admin-guide/sysctl/kernel.rst, perf_event_paranoid),
 * each applying to users without CAP_PERFMON (or CAP_SYS_ADMIN before 5.8):
 *   -1  almost everything, for every user;
 *   >=0 no raw tracepoint or ftrace function events;
 *   >=1 no CPU-wide events (perf -a, -C);
 *   >=2 no kernel profiling (exclude_kernel is required);
 *   3, 4 Debian's and Ubuntu's patch: no perf_event_open at all.
 */
#include "cpu/cpu.h"
#include "cpu/cpu-internal.h"
#include "base/alloc.h"
#include "base/str.h"

#include <string.h>
#include <unistd.h>

/* Bit numbers in the capability sets (linux/capability.h). */
#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38

const char *cpu_paranoid_meaning(int level)
{
	if (level == CPU_PARANOID_UNKNOWN)
		return "unknown (kernel.perf_event_paranoid could not be read)";
	if (level <= -1)
		return "all events, including kernel and CPU-wide profiling, for every user";
	switch (level) {
	case 0:
		return "kernel and CPU-wide profiling for every user; raw tracepoints need CAP_PERFMON";
	case 1:
		return "user and kernel profiling of your own processes; CPU-wide (-a) needs CAP_PERFMON";
	case 2:
		return "user-space profiling of your own processes only; kernel and CPU-wide need CAP_PERFMON";
	default:
		/* upstream kernels treat every level above 2 as 2 (kernel/events/core.c) */
		return "no perf_event_open for unprivileged users where the kernel has Debian's or Ubuntu's "
		       "restriction (CAP_PERFMON or root needed); other kernels treat it as 2: user-space "
		       "profiling of your own processes";
	}
}

const char *cpu_perm_remedy(enum cpu_perm_scope scope, int paranoid)
{
	switch (scope) {
	case CPU_PERM_FOREIGN:
		/* perf_event_open checks ptrace access to the task (PTRACE_MODE_READ_REALCREDS) */
		return "perf_event_open attaches only to processes you may ptrace, whatever "
		       "perf_event_paranoid says: run tdprof as the process's owner, or as root";
	case CPU_PERM_CPU_WIDE:
		return "counting every process on a CPU (-a, -C) needs kernel.perf_event_paranoid at 0 or below, "
		       "or CAP_PERFMON: 'sudo sysctl -w kernel.perf_event_paranoid=0', or run as root";
	case CPU_PERM_OWN_KERNEL:
		return "counting the kernel needs kernel.perf_event_paranoid at 1 or below, or CAP_PERFMON: "
		       "'sudo sysctl -w kernel.perf_event_paranoid=1', or count user space only (':u')";
	case CPU_PERM_OWN_USER:
		break;
	}
	if (paranoid != CPU_PARANOID_UNKNOWN && paranoid <= 2)
		return "perf_event_paranoid allows counting your own processes here, so something else refused "
		       "perf_event_open (a container's seccomp profile, an LSM): allow the system call, or run as root";
	return "counting your own processes needs kernel.perf_event_paranoid at 2 or below: "
	       "'sudo sysctl -w kernel.perf_event_paranoid=2', or run as root";
}

/* CapEff from /proc/self/status text; false when absent. */
static bool parse_capeff(const char *status, uint64_t *caps)
{
	const char *p = strstr(status, "\nCapEff:");
	char hex[24];
	size_t n = 0;

	if (!p)
		return false;
	p += strlen("\nCapEff:");
	while (*p == ' ' || *p == '\t')
		p++;
	while (n < 16 && ((p[n] >= '0' && p[n] <= '9') || (p[n] >= 'a' && p[n] <= 'f')))
		n++;
	if (!n)
		return false;
	memcpy(hex, "0x", 2);
	memcpy(hex + 2, p, n);
	hex[n + 2] = '\0';
	return str_to_u64(hex, caps);
}

void cpu_perms_detect(struct cpu_perms *out, const struct cpu_env *env)
{
	char buf[CPU_VALUE_MAX];
	long level;

	env = cpu_env_or_default(env);
	memset(out, 0, sizeof(*out));
	out->paranoid = CPU_PARANOID_UNKNOWN;
	out->nmi_watchdog = -1;
	if (cpu_read_attr(buf, sizeof(buf), env->procfs_root, "sys/kernel/perf_event_paranoid") > 0 &&
	    str_to_long(str_trim(buf), -1000, 1000, &level))
		out->paranoid = (int)level;
	if (cpu_read_attr(buf, sizeof(buf), env->procfs_root, "sys/kernel/nmi_watchdog") > 0 &&
	    str_to_long(str_trim(buf), -1000, 1000, &level))
		out->nmi_watchdog = level != 0;
	if (env->live) {
		char *status = NULL;
		size_t len;
		uint64_t caps;
		char path[4096];

		out->privileges_known = true;
		out->root = geteuid() == 0;
		/*
		 * The kernel checks capabilities (perfmon_capable()), not the uid: root
		 * in a container without CAP_PERFMON/CAP_SYS_ADMIN is still restricted.
		 * Fall back to the uid only when CapEff cannot be read.
		 */
		out->privileged = out->root;
		if (cpu_path(path, sizeof(path), env->procfs_root, "self/status") &&
		    cpu_read_file(path, 1 << 20, &status, &len, NULL) == 0) {
			if (parse_capeff(status, &caps)) {
				out->cap_perfmon = (caps >> CAP_PERFMON_BIT) & 1;
				out->cap_sys_admin = (caps >> CAP_SYS_ADMIN_BIT) & 1;
				out->privileged = out->cap_perfmon || out->cap_sys_admin;
			}
			tdp_free(status);
		}
	}
}
