/*
 * probe.c: does a hardware event open here, and if not, why not, in words.
 *
 * The errno values come from the kernel's perf_event_open(2) paths:
 *   ENOENT      no PMU accepts PERF_TYPE_HARDWARE (no core PMU registered: the
 *               usual case in a VM without a virtual PMU, e.g. this project's);
 *   EOPNOTSUPP  the PMU exists but cannot do it (no sampling interrupt, ...);
 *   ENODEV      the PMU is not available on this CPU;
 *   EACCES/EPERM perf_event_paranoid, missing capabilities, seccomp or an LSM;
 *   EBUSY       the counters are taken (another exclusive user, the NMI watchdog
 *               pinning one, a hypervisor claiming them);
 *   ENOSYS      a kernel built without CONFIG_PERF_EVENTS (or a seccomp filter).
 */
#include "cpu/cpu.h"
#include "cpu/cpu-internal.h"

#include <errno.h>
#include <stdarg.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

void cpu_open_context_read(struct cpu_open_context *out, const struct cpu_env *env)
{
	struct cpu_perms perms;
	struct cpu_virt virt;

	env = cpu_env_or_default(env);
	cpu_perms_detect(&perms, env);
	cpu_virt_detect(&virt, env);
	out->paranoid = perms.paranoid;
	out->privileged = perms.privileged;
	out->nmi_watchdog = perms.nmi_watchdog;
	out->hypervisor = virt.hypervisor;
	cpu_strlcpy(out->hv_vendor, virt.vendor, sizeof(out->hv_vendor));
}

/*
 * Record a message and its remedy in err unless err already holds an error (the
 * first failure wins, hint included). Returns code even when err is NULL.
 */
static int explain(struct tdp_err *err, int code, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int explain(struct tdp_err *err, int code, const char *hint, const char *fmt, ...)
{
	va_list ap;

	if (!err || err->code)
		return code;
	va_start(ap, fmt);
	tdp_err_vset(err, code, fmt, ap);
	va_end(ap);
	if (hint)
		tdp_err_hint(err, "%s", hint);
	return code;
}

static int explain_no_pmu(const struct cpu_open_context *ctx, struct tdp_err *err)
{
	if (ctx->hypervisor == 1)
		return explain(err, TDP_ENOTSUP,
			       "use --backend=sim for estimates, or enable the guest's virtual PMU "
			       "(QEMU/KVM: '-cpu host,pmu=on'; VMware: 'vpmc.enable = TRUE')",
			       "no hardware PMU is exposed to this machine (virtual machine without PMU passthrough%s%s)",
			       ctx->hv_vendor[0] ? ": " : "", ctx->hv_vendor);
	return explain(err, TDP_ENOTSUP, "use --backend=sim for estimates; 'tdprof info' lists the PMUs the kernel has",
		       "no hardware PMU is exposed to this machine");
}

static int explain_perm(const struct cpu_open_context *ctx, struct tdp_err *err)
{
	/* the probe counts user space of its own process: level 2 allows that */
	char remedy[320];

	snprintf(remedy, sizeof(remedy), "%s; or use --backend=sim",
		 cpu_perm_remedy(CPU_PERM_OWN_USER, ctx->paranoid));
	if (ctx->paranoid == CPU_PARANOID_UNKNOWN)
		return explain(err, TDP_EPERM, remedy, "hardware events are not permitted (perf_event_paranoid unknown)");
	if (ctx->paranoid <= 2 && !ctx->privileged)
		/*
		 * Levels up to 2 allow user-space counting of our own processes, which is
		 * all the probe asks for: something else refused (seccomp in a container,
		 * an LSM), but lowering the level is still the remedy to try first.
		 */
		return explain(err, TDP_EPERM, remedy,
			       "hardware events are not permitted: perf_event_paranoid is %d (%s), yet the kernel "
			       "refused; a container's seccomp profile or an LSM may block perf_event_open",
			       ctx->paranoid, cpu_paranoid_meaning(ctx->paranoid));
	return explain(err, TDP_EPERM, remedy, "hardware events are not permitted: perf_event_paranoid is %d (%s)",
		       ctx->paranoid, cpu_paranoid_meaning(ctx->paranoid));
}

int cpu_explain_open_error(int errnum, const struct cpu_open_context *ctx, struct tdp_err *err)
{
	struct cpu_open_context live;

	if (errnum == 0)
		return 0;
	if (!ctx) {
		cpu_open_context_read(&live, NULL);
		ctx = &live;
	}
	switch (errnum) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		return explain_no_pmu(ctx, err);
	case EACCES:
	case EPERM:
		return explain_perm(ctx, err);
	case EBUSY:
		if (ctx->nmi_watchdog == 1)
			return explain(err, TDP_EBUSY,
				       "run 'sudo sysctl -w kernel.nmi_watchdog=0' and stop other profilers, or use "
				       "--backend=sim",
				       "a hardware counter is in use: the NMI watchdog holds one, and another profiler "
				       "may hold the rest");
		return explain(err, TDP_EBUSY,
			       "stop the other profiler (perf, VTune, a monitoring agent), or use --backend=sim",
			       "a hardware counter is in use by another tool (a profiler, or the hypervisor)");
	case ENOSYS:
		return explain(err, TDP_ENOTSUP, "use --backend=sim",
			       "this kernel has no perf events (built without CONFIG_PERF_EVENTS, or "
			       "perf_event_open is filtered)");
	default:
		return explain(err, TDP_EIO, NULL, "perf_event_open of a hardware event failed: %s", strerror(errnum));
	}
}

int cpu_probe_hw_events(const struct cpu_env *env, struct cpu_probe *out, struct tdp_err *err)
{
	struct perf_event_attr attr;
	struct tdp_err local = TDP_ERR_INIT;
	struct cpu_probe dummy;
	struct cpu_open_context ctx;
	long fd;
	int code;

	env = cpu_env_or_default(env);
	if (!out)
		out = &dummy;
	memset(out, 0, sizeof(*out));
	if (!env->live) {
		snprintf(out->msg, sizeof(out->msg), "not probed: describing a snapshot, not this machine");
		return tdp_err_set(err, TDP_ENOTSUP, "%s", out->msg);
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.disabled = 1;
	attr.exclude_kernel = 1; /* allowed at every paranoid level up to 2 */
	attr.exclude_hv = 1;
	out->tried = true;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		close((int)fd);
		out->opened = true;
		return 0;
	}
	out->errnum = errno;
	cpu_open_context_read(&ctx, env);
	code = cpu_explain_open_error(out->errnum, &ctx, &local);
	out->code = code;
	cpu_strlcpy(out->msg, local.msg, sizeof(out->msg));
	cpu_strlcpy(out->hint, local.hint, sizeof(out->hint));
	if (err && !err->code) {
		tdp_err_set(err, code, "%s", local.msg);
		if (local.hint[0])
			tdp_err_hint(err, "%s", local.hint);
	}
	return code;
}
