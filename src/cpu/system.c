/* system.c: every fact about the machine at once (cpu_system_detect()). */
#include "cpu/cpu.h"
#include "cpu/cpu-internal.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Why path is not a usable directory, or NULL when it is one. */
static const char *dir_problem(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return errno == ENOENT || errno == ENOTDIR ? "no such directory" : strerror(errno);
	return S_ISDIR(st.st_mode) ? NULL : "not a directory";
}

/* A snapshot root must exist and look like what it claims to be. */
static int check_snapshot(const struct cpu_env *env, struct tdp_err *err)
{
	char a[4096], b[4096];
	const char *why;

	if (env->sysfs_root) {
		if ((why = dir_problem(env->sysfs_root)))
			return tdp_err_set(err, TDP_ENOENT, "cannot read sysfs tree '%s': %s", env->sysfs_root, why);
		if (!cpu_path(a, sizeof(a), env->sysfs_root, "bus/event_source/devices") ||
		    !cpu_path(b, sizeof(b), env->sysfs_root, "devices/system/cpu"))
			return tdp_err_set(err, TDP_ELIMIT, "'%s': path too long", env->sysfs_root);
		if (!is_dir(a) && !is_dir(b)) {
			tdp_err_set(err, TDP_EUSAGE,
				    "'%s' is not a sysfs tree: it has neither 'bus/event_source/devices' nor "
				    "'devices/system/cpu'", env->sysfs_root);
			return tdp_err_hint(err, "pass the root of a copy of /sys (the directory that holds 'bus' "
						 "and 'devices')");
		}
	}
	if (env->procfs_root && (why = dir_problem(env->procfs_root)))
		return tdp_err_set(err, TDP_ENOENT, "cannot read procfs tree '%s': %s", env->procfs_root, why);
	return 0;
}

int cpu_system_detect(struct cpu_system *sys, const struct cpu_env *env, struct tdp_err *err)
{
	int rc = 0;

	env = cpu_env_or_default(env);
	memset(sys, 0, sizeof(*sys));
	sys->live = env->live;
	if (!env->live && (rc = check_snapshot(env, err)))
		return rc;
	rc = cpu_pmu_list_detect(&sys->pmus, env, err);
	if (rc)
		goto out;
	rc = cpu_info_detect(&sys->cpu, env, &sys->pmus, err);
	if (rc)
		goto out;
	cpu_perms_detect(&sys->perms, env);
	cpu_virt_detect(&sys->virt, env);
	/* a failure to open is a finding (sys->probe), not an error of detection */
	(void)cpu_probe_hw_events(env, &sys->probe, NULL);
	cpu_branch_detect(&sys->branch, &sys->cpu, &sys->pmus);
out:
	if (rc)
		cpu_system_release(sys);
	return rc;
}

void cpu_system_release(struct cpu_system *sys)
{
	if (!sys)
		return;
	cpu_info_release(&sys->cpu);
	cpu_pmu_list_release(&sys->pmus);
	memset(sys, 0, sizeof(*sys));
}
