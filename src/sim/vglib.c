/*
 * vglib.c: running tdprof's own valgrind tool (vgtool/, tdpsim): where it is, and
 * the private VALGRIND_LIB that lets the system's valgrind load it.
 *
 * valgrind's launcher loads a tool from $VALGRIND_LIB (its libexec directory by
 * default), with the core's preload objects and suppressions beside it. The
 * runner's private directory becomes that directory for one run: a symbolic link
 * to each file of the system's valgrind directory, and one to the tool. Children
 * started with --trace-children=yes inherit VALGRIND_LIB.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/str.h"
#include "sim/sim-internal.h"
#include "vgtool-paths.h"

#define CORE_PRELOAD "vgpreload_core-amd64-linux.so"

#if SIM_VGTOOL_BUILT
static bool is_exec_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}
#endif

int sim_vgtool_find(char *path, size_t size)
{
#if SIM_VGTOOL_BUILT
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *dirs[2] = { SIM_VGTOOL_INSTALL_DIR, SIM_VGTOOL_BUILD_DIR };
	bool from_build;

	exe[n > 0 ? n : 0] = '\0';
	/* tdprof in its build tree runs the tool built beside it; an installed one, the installed tool */
	from_build = !strcmp(exe, SIM_BUILD_TDPROF);
	for (int k = 0; k < 2; k++) {
		const char *d = dirs[from_build ? 1 - k : k];

		if ((size_t)snprintf(path, size, "%s/%s", d, SIM_VGTOOL_NAME) < size && is_exec_file(path))
			return 0;
	}
#endif
	(void)path;
	(void)size;
	return TDP_ENOENT;
}

/* The system's valgrind directory: the one that holds the core's preload object. */
static int find_system_lib(const char *valgrind, char *out, size_t size)
{
	static const char *const dirs[] = { "/usr/libexec/valgrind", "/usr/lib/x86_64-linux-gnu/valgrind",
					    "/usr/lib64/valgrind", "/usr/lib/valgrind",
					    "/usr/local/libexec/valgrind", "/usr/local/lib/valgrind" };
	char path[4096];
	const char *slash = strrchr(valgrind, '/');

	/* beside the valgrind that runs first: PREFIX/bin/valgrind -> PREFIX/libexec/valgrind */
	if (slash && slash > valgrind) {
		int n = (int)(slash - valgrind);

		for (int k = 0; k < 2; k++) {
			if ((size_t)snprintf(out, size, "%.*s/../%s/valgrind", n, valgrind, k ? "lib" : "libexec") >=
				    size ||
			    (size_t)snprintf(path, sizeof(path), "%.3000s/%s", out, CORE_PRELOAD) >= sizeof(path))
				continue;
			if (!access(path, R_OK))
				return 0;
		}
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], CORE_PRELOAD);
		if (!access(path, R_OK)) {
			snprintf(out, size, "%s", dirs[i]);
			return 0;
		}
	}
	return TDP_ENOENT;
}

int sim_vglib_make(const char *dir, const char *valgrind, const char *tool, struct tdp_err *err)
{
	char sys[4096], from[4096], to[4096];
	struct dirent *de;
	DIR *d;
	int ret = 0;

	if (find_system_lib(valgrind, sys, sizeof(sys)))
		return tdp_err_set(err, TDP_ENOTSUP, "cannot find valgrind's library directory (%s)", CORE_PRELOAD);
	if (!(d = opendir(sys)))
		return tdp_err_set(err, TDP_EIO, "cannot read '%s': %s", sys, strerror(errno));
	while ((de = readdir(d))) {
		/* what valgrind's core reads when it runs a tool: the core preloads (every platform,
		 * for children of another kind) and the suppressions; not the other tools, nor the
		 * debugger's XML (read only when gdb attaches): 140 links made and removed each
		 * run were a fifth of tdprof's own time on a short simulation */
		if (de->d_name[0] == '.' ||
		    (strncmp(de->d_name, "vgpreload_core-", 15) != 0 && !str_ends_with(de->d_name, ".supp")))
			continue;
		if ((size_t)snprintf(from, sizeof(from), "%s/%s", sys, de->d_name) >= sizeof(from) ||
		    (size_t)snprintf(to, sizeof(to), "%s/%s", dir, de->d_name) >= sizeof(to))
			continue;
		if (symlink(from, to) && errno != EEXIST) {
			ret = tdp_err_set(err, TDP_EIO, "cannot link '%s': %s", to, strerror(errno));
			break;
		}
	}
	closedir(d);
	if (ret)
		return ret;
	snprintf(to, sizeof(to), "%s/%s", dir, SIM_VGTOOL_NAME);
	unlink(to); /* a system tool of the same name would not be ours */
	if (symlink(tool, to))
		return tdp_err_set(err, TDP_EIO, "cannot link '%s': %s", to, strerror(errno));
	return 0;
}

char **sim_env_with(char *const *envp, const char *kv)
{
	size_t n = 0, k = 0, key = strcspn(kv, "=") + 1;
	char **v;

	while (envp && envp[n])
		n++;
	if (!(v = tdp_calloc(n + 2, sizeof(*v))))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(envp[i], kv, key))
			v[k++] = envp[i];
	v[k++] = (char *)kv;
	v[k] = NULL;
	return v;
}
