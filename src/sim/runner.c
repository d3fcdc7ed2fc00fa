/* runner.c: one run of a workload under valgrind, its cost files parsed (see runner.h). */
#include "sim/runner.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"
#include "base/path.h"
#include "base/sigfwd.h"
#include "base/str.h"
#include "base/strbuf.h"
#include "sim/sim-internal.h"
#include "sim/vglog.h"

extern char **environ;

#define COST_PREFIX "cost."
#define LOG_PREFIX "valgrind."

const char *sim_tool_name(enum sim_tool t)
{
	switch (t) {
	case SIM_TOOL_CACHEGRIND: return "cachegrind";
	case SIM_TOOL_CALLGRIND: return "callgrind";
	case SIM_TOOL_TDPSIM: return "tdpsim";
	}
	return "?";
}

bool sim_tdpsim_available(void)
{
	char path[4096];

	return sim_vgtool_find(path, sizeof(path)) == 0;
}

/*
 * A script's "#!" interpreter, checked as execve() would: a missing one is the
 * same "not found" (127) as under the PMU backend, not a valgrind failure (1).
 * Returns 0 (not a script, or its interpreter runs), TDP_ENOCMD or TDP_ENOEXEC
 * with the interpreter in interp.
 */
static int check_interpreter(const char *prog, char *interp, size_t size)
{
	char buf[256];
	ssize_t n;
	size_t i = 2, j = 0;
	int fd = open(prog, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0; /* execve() says what is wrong */
	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n < 3 || buf[0] != '#' || buf[1] != '!')
		return 0;
	buf[n] = '\0';
	while (buf[i] == ' ' || buf[i] == '\t')
		i++;
	while (buf[i] && buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' && j + 1 < size)
		interp[j++] = buf[i++];
	interp[j] = '\0';
	if (!j || (buf[i] && buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n') || !strchr(interp, '/'))
		return 0; /* none, longer than we keep, or relative: let execve() judge */
	{
		char *found = NULL;
		int r = tdp_find_program(interp, NULL, &found); /* a name with a '/' is checked as it is */

		tdp_free(found);
		return r == TDP_ENOMEM ? 0 : r;
	}
}

/*
 * valgrind keeps /proc/self/cmdline and auxv for its guest in TMPDIR
 * ("valgrind_proc_PID_cmdline_XXXXXXXX"), created and unlinked as it starts: a
 * signal in between leaves them. Remove those of our valgrind (its pid, our files).
 */
static void remove_valgrind_temps(const char *tmpdir, pid_t pid)
{
	char prefix[48];
	DIR *d;
	struct dirent *de;
	size_t n;

	if (pid <= 0)
		return;
	n = (size_t)snprintf(prefix, sizeof(prefix), "valgrind_proc_%d_", (int)pid);
	d = opendir(tmpdir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct stat st;

		if (strncmp(de->d_name, prefix, n) ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
		    st.st_uid != geteuid())
			continue;
		unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
}

/* Remove the private directory and what valgrind left in it (never recursive beyond one level). */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (d) {
		while ((de = readdir(d))) {
			char path[4096];

			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) < (int)sizeof(path))
				unlink(path);
		}
		closedir(d);
	}
	rmdir(dir);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* True when the log of process pid reports an instruction valgrind could not execute (vglog.h). */
static bool log_unhandled(const char *dir, pid_t pid, struct sim_unhandled *u)
{
	char path[4096];
	struct tdp_file f = TDP_FILE_INIT;
	bool found;

	snprintf(path, sizeof(path), "%s/%s%ld", dir, LOG_PREFIX, (long)pid);
	if (tdp_file_open(&f, path, SIM_MAX_LOG, NULL))
		return false;
	found = sim_log_unhandled((const char *)f.data, f.size, u);
	tdp_file_close(&f);
	return found;
}

/*
 * The line of valgrind's log that says what went wrong, without its "==PID== "
 * prefix; *debuginfo tells whether valgrind gave up reading the program's DWARF.
 */
static void log_reason(const char *dir, pid_t pid, char *out, size_t size, bool *debuginfo)
{
	char path[4096];
	const char *buf;
	const char *best = NULL, *last = NULL;
	size_t len = 0, best_n = 0, last_n = 0;
	struct tdp_file f = TDP_FILE_INIT;

	out[0] = '\0';
	*debuginfo = false;
	snprintf(path, sizeof(path), "%s/%s%ld", dir, LOG_PREFIX, (long)pid);
	if (tdp_file_open(&f, path, SIM_MAX_LOG, NULL))
		return;
	buf = (const char *)f.data;
	len = f.size;
	/* valgrind 3.19 cannot read every DWARF 5 form clang 14 writes: "debuginfo reader: ... Giving up" */
	*debuginfo = memmem(buf, len, "debuginfo reader", 16) != NULL ||
		     memmem(buf, len, "unhandled dwarf2 abbrev form", 28) != NULL;
	for (size_t off = 0; off < len;) {
		const char *s = buf + off;
		const char *nl = memchr(s, '\n', len - off);
		size_t n = nl ? (size_t)(nl - s) : len - off;
		const char *t = s;
		size_t tn = n;

		off += n + 1;
		/* Drop "==123== " and "--123-- " prefixes. */
		if (tn > 2 && (t[0] == '=' || t[0] == '-') && t[1] == t[0]) {
			const char *e = memchr(t + 2, t[0], tn - 2);

			if (e && (size_t)(e - t) + 3 <= tn) {
				tn -= (size_t)(e + 3 - t);
				t = e + 3;
			}
		}
		if (!tn)
			continue;
		if (!best && (memmem(t, tn, "rror", 4) || memmem(t, tn, "Fatal", 5) || memmem(t, tn, "valgrind:", 9) ||
			      memmem(t, tn, "cannot", 6))) {
			best = t;
			best_n = tn;
		}
		last = t;
		last_n = tn;
	}
	if (!best) {
		best = last;
		best_n = last_n;
	}
	if (best) {
		size_t n = best_n < size - 1 ? best_n : size - 1;

		for (size_t i = 0; i < n; i++)
			out[i] = (best[i] >= 0x20 && best[i] < 0x7f) ? best[i] : '?';
		out[n] = '\0';
	}
	tdp_file_close(&f);
}

static int cmp_pid(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/* Parse every cost file in dir: the workload's (main_pid) first, then its children's. */
static int read_costs(const char *dir, pid_t main_pid, enum sim_tool tool, struct sim_profile *p, size_t *nr_files,
		      struct tdp_err *err)
{
	long pids[SIM_MAX_COST_FILES];
	size_t nr = 0;
	bool have_main = false;
	struct dirent *de;
	DIR *d;
	int ret = 0;

	d = opendir(dir);
	if (!d)
		return tdp_err_set(err, TDP_EIO, "cannot read '%s': %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		uint64_t pid;

		if (!str_starts_with(de->d_name, COST_PREFIX) ||
		    !str_to_u64(de->d_name + strlen(COST_PREFIX), &pid) || pid > 0x7fffffff)
			continue;
		if (nr >= SIM_MAX_COST_FILES) {
			closedir(d);
			return tdp_err_set(err, TDP_ELIMIT, "the workload started more than %d simulated processes",
					   SIM_MAX_COST_FILES);
		}
		if ((pid_t)pid == main_pid)
			have_main = true;
		pids[nr++] = (long)pid;
	}
	closedir(d);
	if (!have_main)
		return TDP_ECHILD; /* the caller explains */
	qsort(pids, nr, sizeof(pids[0]), cmp_pid);
	for (size_t pass = 0; pass < 2 && !ret; pass++) {
		for (size_t i = 0; i < nr && !ret; i++) {
			struct tdp_file f = TDP_FILE_INIT;
			char path[4096];

			if ((pids[i] == (long)main_pid) != (pass == 0))
				continue;
			snprintf(path, sizeof(path), "%s/%s%ld", dir, COST_PREFIX, pids[i]);
			ret = tdp_file_open(&f, path, SIM_MAX_FILE_SIZE, err);
			if (ret)
				break;
			ret = tool != SIM_TOOL_CACHEGRIND ? sim_callgrind_parse(p, f.data, f.size, path, err)
							  : sim_cachegrind_parse(p, f.data, f.size, path, err);
			tdp_file_close(&f);
			if (!ret)
				(*nr_files)++;
		}
	}
	return ret;
}

struct argv_buf {
	char *v[32 + SIM_TOOL_ARGS];
	size_t nr;
	char i1[SIM_VG_ARG_MAX], d1[SIM_VG_ARG_MAX], ll[SIM_VG_ARG_MAX];
	char tool[SIM_TOOL_ARGS][SIM_VG_ARG_MAX];
	struct strbuf out, log;
};

/* valgrind's argv followed by the workload's. */
static char **make_argv(const struct sim_run_opts *o, enum sim_tool tool, const char *vg, const char *dir,
			const char *prog, struct argv_buf *ab)
{
	size_t nargs = 0;
	char **argv;

	strbuf_addf(&ab->out, "--%s-out-file=%s/%s%%p",
		    tool == SIM_TOOL_TDPSIM ? "tdp" : tool == SIM_TOOL_CALLGRIND ? "callgrind" : "cachegrind", dir,
		    COST_PREFIX);
	strbuf_addf(&ab->log, "--log-file=%s/%s%%p", dir, LOG_PREFIX);
	if (strbuf_failed(&ab->out) || strbuf_failed(&ab->log))
		return NULL;
	ab->v[ab->nr++] = (char *)vg;
	if (tool == SIM_TOOL_TDPSIM) {
		size_t n;

		ab->v[ab->nr++] = "--tool=tdpsim";
		sim_machine_tool_args(o->machine, ab->tool, &n);
		for (size_t i = 0; i < n; i++)
			ab->v[ab->nr++] = ab->tool[i];
	} else {
		sim_machine_valgrind_args(o->machine, ab->i1, ab->d1, ab->ll);
		ab->v[ab->nr++] = tool == SIM_TOOL_CACHEGRIND ? "--tool=cachegrind" : "--tool=callgrind";
		ab->v[ab->nr++] = "--cache-sim=yes";
		ab->v[ab->nr++] = "--branch-sim=yes";
		if (tool == SIM_TOOL_CALLGRIND)
			ab->v[ab->nr++] = "--dump-instr=yes";
		ab->v[ab->nr++] = ab->i1;
		ab->v[ab->nr++] = ab->d1;
		ab->v[ab->nr++] = ab->ll;
	}
	ab->v[ab->nr++] = o->no_children ? "--trace-children=no" : "--trace-children=yes";
	/* no gdbserver: its FIFOs and shared memory in TMPDIR would outlive a killed valgrind */
	ab->v[ab->nr++] = "--vgdb=no";
	ab->v[ab->nr++] = ab->out.buf;
	ab->v[ab->nr++] = ab->log.buf;
	/* --error-exitcode is left unset (0): cachegrind's exit status is the workload's. */
	while (o->argv[nargs])
		nargs++;
	argv = tdp_calloc(ab->nr + nargs + 1, sizeof(*argv));
	if (!argv)
		return NULL;
	memcpy(argv, ab->v, ab->nr * sizeof(*argv));
	argv[ab->nr] = (char *)prog;
	for (size_t i = 1; i < nargs; i++)
		argv[ab->nr + i] = o->argv[i];
	argv[ab->nr + nargs] = NULL;
	return argv;
}

static int spawn_and_wait(char **argv, char *const *envp, pid_t *pid_out, int *wstatus, struct tdp_err *err)
{
	posix_spawnattr_t attr;
	sigset_t old;
	pid_t pid;
	int rc, ret = 0;

	if (tdp_sigfwd_received())
		return tdp_err_set(err, TDP_ECHILD, "stopped by signal %d before valgrind started",
				   tdp_sigfwd_received());
	if ((rc = posix_spawnattr_init(&attr)))
		return tdp_err_set(err, TDP_ENOMEM, "cannot start valgrind: %s", strerror(rc));
	/* its own process group, to which SIGINT/SIGTERM/SIGHUP to tdprof are passed on (base/sigfwd.h) */
	tdp_sigfwd_spawnattr(&attr);
	tdp_sigfwd_block(&old);
	rc = posix_spawn(&pid, argv[0], NULL, &attr, argv, envp ? envp : environ);
	posix_spawnattr_destroy(&attr);
	if (rc) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return tdp_err_set(err, rc == ENOENT ? TDP_ENOTSUP : TDP_ECHILD, "cannot start '%s': %s", argv[0],
				   strerror(rc));
	}
	*pid_out = pid;
	tdp_sigfwd_child(pid, &old);
	while (waitpid(pid, wstatus, 0) < 0) {
		if (errno != EINTR) {
			ret = tdp_err_set(err, TDP_ECHILD, "cannot wait for valgrind: %s", strerror(errno));
			break;
		}
	}
	tdp_sigfwd_child(0, NULL);
	return ret;
}

int sim_run(const struct sim_run_opts *o, struct sim_profile *p, struct sim_run_result *r, struct tdp_err *err)
{
	struct argv_buf ab = { .out = STRBUF_INIT, .log = STRBUF_INIT };
	struct strbuf dirbuf = STRBUF_INIT;
	char *vg = NULL, *prog = NULL, **argv = NULL;
	char reason[256];
	struct sim_unhandled unhandled;
	bool made_dir = false;
	enum sim_tool tool = o->tool;
	char tool_path[4096], **env = NULL;
	struct strbuf vglib = STRBUF_INIT;
	pid_t pid = 0;
	double t0;
	int ret, wstatus = 0;

	memset(r, 0, sizeof(*r));
	if (!o->argv || !o->argv[0] || !o->machine)
		return tdp_err_set(err, TDP_EINVAL, "sim_run: no workload or no machine");

	/* from here a SIGINT/SIGTERM/SIGHUP is passed on to valgrind and the directory still removed */
	tdp_sigfwd_begin();
	ret = tdp_find_program(o->valgrind ? o->valgrind : "valgrind", o->path, &vg);
	if (ret == TDP_ENOMEM) {
		ret = tdp_err_oom(err);
		goto out;
	}
	if (ret) {
		tdp_err_set(err, TDP_ENOTSUP, "cannot run the simulation: '%s' is not installed",
			    o->valgrind ? o->valgrind : "valgrind");
		tdp_err_hint(err, "install it with 'sudo apt-get install valgrind', or use a machine with a PMU");
		ret = TDP_ENOTSUP;
		goto out;
	}
	ret = tdp_find_program(o->argv[0], o->path, &prog);
	if (ret) {
		if (ret == TDP_ENOMEM)
			tdp_err_oom(err);
		else if (ret == TDP_ENOCMD)
			tdp_err_set(err, ret, "cannot run '%s': command not found", o->argv[0]);
		else
			tdp_err_set(err, ret, "cannot run '%s': not an executable file (permission denied)",
				    o->argv[0]);
		goto out;
	}
	{
		char interp[200];

		ret = check_interpreter(prog, interp, sizeof(interp));
		if (ret) {
			tdp_err_set(err, ret, "cannot run '%s': its interpreter '%s' %s", o->argv[0], interp,
				    ret == TDP_ENOCMD ? "does not exist" : "is not executable");
			tdp_err_hint(err, "fix the '#!' line of '%s'", o->argv[0]);
			goto out;
		}
	}
	if (prog[0] == '-') {
		/* valgrind would read it as an option: "-x" is the same file as "./-x". */
		char *dotted = tdp_malloc(strlen(prog) + 3);

		if (!dotted) {
			ret = tdp_err_oom(err);
			goto out;
		}
		memcpy(dotted, "./", 2);
		memcpy(dotted + 2, prog, strlen(prog) + 1);
		tdp_free(prog);
		prog = dotted;
	}

	strbuf_addf(&dirbuf, "%s/tdprof-sim-XXXXXX", o->tmpdir ? o->tmpdir : "/tmp");
	if (strbuf_failed(&dirbuf)) {
		ret = tdp_err_oom(err);
		goto out;
	}
	if (!mkdtemp(dirbuf.buf)) {
		ret = tdp_err_set(err, TDP_EIO, "cannot make a temporary directory in '%s': %s",
				  o->tmpdir ? o->tmpdir : "/tmp", strerror(errno));
		tdp_err_hint(err, "point TMPDIR at a writable directory");
		goto out;
	}
	made_dir = true;
	/* tdprof's own tool when it is there: the private directory is its VALGRIND_LIB */
	if (!o->valgrind_only && tool != SIM_TOOL_TDPSIM && !sim_vgtool_find(tool_path, sizeof(tool_path)))
		tool = SIM_TOOL_TDPSIM;
	if (tool == SIM_TOOL_TDPSIM) {
		if (sim_vgtool_find(tool_path, sizeof(tool_path))) {
			ret = tdp_err_set(err, TDP_ENOTSUP, "tdprof's valgrind tool (tdpsim) is not built");
			tdp_err_hint(err, "install valgrind (its static libraries) and rebuild tdprof");
			goto out;
		}
		if ((ret = sim_vglib_make(dirbuf.buf, vg, tool_path, err)))
			goto out;
		strbuf_addf(&vglib, "VALGRIND_LIB=%s", dirbuf.buf);
		if (strbuf_failed(&vglib) || !(env = sim_env_with(o->envp ? o->envp : environ, vglib.buf))) {
			ret = tdp_err_oom(err);
			goto out;
		}
	}
	r->tool = tool;
	argv = make_argv(o, tool, vg, dirbuf.buf, prog, &ab);
	if (!argv) {
		ret = tdp_err_oom(err);
		goto out;
	}

	t0 = now_ns();
	ret = spawn_and_wait(argv, env ? env : o->envp, &pid, &wstatus, err);
	if (ret)
		goto out;
	if (tdp_sigfwd_received()) {
		/* passed on to valgrind: whatever it wrote is not the whole run */
		ret = tdp_err_set(err, TDP_ECHILD, "the simulation was stopped by signal %d (passed on to valgrind "
				  "and the workload)", tdp_sigfwd_received());
		goto out;
	}
	r->ran = true;
	r->wall_ns = now_ns() - t0;
	if (WIFSIGNALED(wstatus)) {
		/* valgrind re-raises the signal that ended the workload. */
		r->signaled = true;
		r->signo = WTERMSIG(wstatus);
		r->status = 128 + r->signo;
	} else {
		r->status = WEXITSTATUS(wstatus);
	}
	if (r->signaled && r->signo == SIGILL && log_unhandled(dirbuf.buf, pid, &unhandled)) {
		/* the program died where valgrind stopped understanding it: estimating what ran until
		 * then (the dynamic loader, mostly) would answer a question nobody asked */
		ret = tdp_err_set(err, TDP_EANALYSIS, "valgrind cannot execute an instruction of '%s'%s%s: %s (bytes %s); "
				  "the program died of SIGILL under valgrind, so there is no run to estimate",
				  o->argv[0], unhandled.where[0] ? " in " : "", unhandled.where, unhandled.what,
				  unhandled.bytes);
		tdp_err_hint(err, "build the program for the simulation without AVX-512, e.g. -march=x86-64-v3, or "
			     "-march=native -mno-avx512f (valgrind simulates up to AVX2); on a machine with a PMU "
			     "tdprof measures the real binary");
		goto out;
	}

	ret = read_costs(dirbuf.buf, pid, tool, p, &r->nr_files, err);
	if (ret == TDP_EFORMAT) {
		/* callgrind, giving up on the debug info, leaves a cost file with no events: the
		 * log says why, which matters more than the file's damage */
		bool debuginfo;

		log_reason(dirbuf.buf, pid, reason, sizeof(reason), &debuginfo);
		if (debuginfo)
			ret = TDP_ECHILD;
	}
	if (ret == TDP_ECHILD) {
		bool debuginfo;

		log_reason(dirbuf.buf, pid, reason, sizeof(reason), &debuginfo);
		if (r->signaled)
			tdp_err_set(err, ret, "valgrind was killed by signal %d before it wrote its results%s%s",
				    r->signo, reason[0] ? ": " : "", reason);
		else
			tdp_err_set(err, ret, "valgrind failed (exit status %d) and wrote no results%s%s", r->status,
				    reason[0] ? ": " : "", reason);
		if (debuginfo)
			tdp_err_hint(err, "valgrind could not read the program's debug information (clang 14 writes "
				     "DWARF 5 that valgrind %s cannot read): rebuild it with -gdwarf-4",
				     "3.19");
		else if (o->no_children)
			/* valgrind writes nothing for a process that exec()s without --trace-children. */
			tdp_err_hint(err, "if the workload is a wrapper script that runs the program with exec, "
				     "simulate its children too");
		else
			tdp_err_hint(err, "run the same command under 'valgrind --tool=%s' to see its messages%s",
				     sim_tool_name(tool),
				     tool == SIM_TOOL_TDPSIM ? " (VALGRIND_LIB must name a directory with tdprof's "
							       "tdpsim-amd64-linux and valgrind's files)" : "");
	}
out:
	if (made_dir)
		remove_dir(dirbuf.buf);
	if (tdp_sigfwd_received() || r->signaled)
		remove_valgrind_temps(o->tmpdir && *o->tmpdir ? o->tmpdir : "/tmp", pid);
	tdp_sigfwd_end();
	strbuf_release(&dirbuf);
	strbuf_release(&ab.out);
	strbuf_release(&ab.log);
	strbuf_release(&vglib);
	tdp_free(env);
	tdp_free(argv);
	tdp_free(vg);
	tdp_free(prog);
	return ret;
}
