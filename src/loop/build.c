/*
 * build.c: generate, compile and run the harness program of `tdprof loop`
 * (see loop.h for the steps).
 */
#include "loop/loop.h"

#include "base/alloc.h"
#include "base/err.h"
#include "base/sigfwd.h"
#include "base/file.h"
#include "harness/harness-paths.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Most words in $CC ("ccache gcc -m32" is 3). */
#define LOOP_MAX_CC_WORDS 32

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

void loop_notef(const struct loop_job *j, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (!j->note)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (!strbuf_failed(&sb))
		j->note(sb.buf);
	strbuf_release(&sb);
}

static void show_argv(const struct loop_job *j, char *const argv[])
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; argv[i]; i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "", argv[i]);
	loop_notef(j, "running: %s", sb.buf);
	strbuf_release(&sb);
}

/* Spawn one child of loop_spawn_many(): its stdout (and stderr) into a new pipe, read end in *rd. */
static int spawn_one(struct loop_child *c, pid_t pgroup, pid_t *pid, int *rd, struct tdp_err *err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int pipefd[2], e;

	if (pipe2(pipefd, O_CLOEXEC))
		return tdp_err_set(err, TDP_ECHILD, "cannot run '%s': pipe: %s", c->argv[0], strerror(errno));
	if ((e = posix_spawn_file_actions_init(&fa)) != 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return tdp_err_set(err, TDP_ECHILD, "cannot run '%s': %s", c->argv[0], strerror(e));
	}
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	if (c->with_stderr)
		posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDERR_FILENO);
	if ((e = posix_spawnattr_init(&attr)) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		close(pipefd[0]);
		close(pipefd[1]);
		return tdp_err_set(err, TDP_ECHILD, "cannot run '%s': %s", c->argv[0], strerror(e));
	}
	/* the first child's own process group, the others join it: SIGINT/SIGTERM/SIGHUP
	 * are passed on to that one group (base/sigfwd.h), so they reach every child */
	tdp_sigfwd_spawnattr(&attr);
	posix_spawnattr_setpgroup(&attr, pgroup);
	e = posix_spawnp(pid, c->argv[0], &fa, &attr, c->argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (e) {
		close(pipefd[0]);
		return tdp_err_set(err, e == ENOENT ? TDP_ENOCMD : TDP_ECHILD, "cannot run '%s': %s", c->argv[0],
				   strerror(e));
	}
	*rd = pipefd[0];
	return 0;
}

/* Milliseconds of CLOCK_MONOTONIC. */
static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/*
 * Read every child's pipe to its end (even past the cap, so no child blocks on a full
 * pipe). With timeout_s, the process group pgid is killed when the time is up (their
 * pipes then end); returns true when it was.
 */
static bool read_all(struct loop_child *c, const int *rd, size_t n, unsigned timeout_s, pid_t pgid)
{
	struct pollfd pfd[LOOP_SPAWN_MAX];
	char buf[8192];
	size_t open_fds = 0;
	int64_t deadline = timeout_s ? now_ms() + (int64_t)timeout_s * 1000 : 0;
	bool killed = false;

	for (size_t i = 0; i < n; i++) {
		pfd[i].fd = rd[i];
		pfd[i].events = POLLIN;
		open_fds += rd[i] >= 0;
	}
	while (open_fds) {
		int wait_ms = -1, got_fds;

		if (deadline && !killed) {
			int64_t left = deadline - now_ms();

			if (left <= 0) {
				kill(-pgid, SIGKILL);
				killed = true;
				continue;
			}
			wait_ms = left > INT32_MAX ? INT32_MAX : (int)left;
		}
		if ((got_fds = poll(pfd, (nfds_t)n, wait_ms)) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (!got_fds)
			continue; /* the deadline */
		for (size_t i = 0; i < n; i++) {
			ssize_t got;

			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			got = read(pfd[i].fd, buf, sizeof(buf));
			if (got < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (got <= 0) {
				pfd[i].fd = -1; /* poll() ignores it from now on; closed by the caller */
				open_fds--;
				continue;
			}
			if (c[i].out->len + (size_t)got <= LOOP_MAX_OUTPUT)
				strbuf_add(c[i].out, buf, (size_t)got);
		}
	}
	return killed;
}

int loop_spawn_many(struct loop_child *c, size_t n, struct tdp_err *err)
{
	pid_t pid[LOOP_SPAWN_MAX];
	int rd[LOOP_SPAWN_MAX];
	size_t started = 0;
	sigset_t old;
	int rc = 0;

	if (n == 0 || n > LOOP_SPAWN_MAX)
		return tdp_err_set(err, TDP_EINVAL, "%zu programs to run at once (1 to %d)", n, LOOP_SPAWN_MAX);
	if (tdp_sigfwd_received())
		return tdp_err_set(err, TDP_ECHILD, "stopped by signal %d before '%s' ran", tdp_sigfwd_received(),
				   c[0].argv[0]);
	tdp_sigfwd_block(&old);
	for (; started < n; started++) {
		c[started].wstatus = 0;
		if ((rc = spawn_one(&c[started], started ? pid[0] : 0, &pid[started], &rd[started], err)))
			break;
	}
	if (!started) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return rc;
	}
	if (rc)
		kill(-pid[0], SIGKILL); /* all or none: the ones started are stopped and reaped */
	tdp_sigfwd_child(pid[0], &old);
	c[0].timed_out = read_all(c, rd, started, c[0].timeout_s, pid[0]);
	for (size_t i = 0; i < started; i++) {
		close(rd[i]);
		while (waitpid(pid[i], &c[i].wstatus, 0) < 0) {
			if (errno != EINTR) {
				if (!rc)
					rc = tdp_err_set(err, TDP_ECHILD, "cannot wait for '%s': %s", c[i].argv[0],
							 strerror(errno));
				break;
			}
		}
	}
	tdp_sigfwd_child(0, NULL);
	if (!rc && c[0].timed_out)
		rc = tdp_err_set(err, TDP_ECHILD, "'%s' ran longer than %u s and was stopped", c[0].argv[0],
				 c[0].timeout_s);
	if (!rc && tdp_sigfwd_received())
		rc = tdp_err_set(err, TDP_ECHILD, "'%s' was stopped by signal %d (passed on from tdprof)", c[0].argv[0],
				 tdp_sigfwd_received());
	for (size_t i = 0; !rc && i < n; i++)
		if (strbuf_failed(c[i].out))
			rc = tdp_err_oom(err);
	return rc;
}

int loop_spawn(char *const argv[], bool with_stderr, struct strbuf *out, int *wstatus, struct tdp_err *err)
{
	struct loop_child c = { .argv = argv, .with_stderr = with_stderr, .out = out };
	int rc = loop_spawn_many(&c, 1, err);

	*wstatus = c.wstatus;
	return rc;
}

/* The harness header and library: this build tree when running from it, else the installed ones. */
static int find_harness(struct loop_job *j, struct tdp_err *err)
{
	struct {
		const char *inc, *lib, *extra;
	} places[2] = {
		{ HARNESS_INSTALL_INCLUDE_DIR, HARNESS_INSTALL_LIB, "" },
		{ HARNESS_BUILD_INCLUDE_DIR, HARNESS_BUILD_LIB, HARNESS_LINK_EXTRA },
	};
	bool from_build = j->exe_path && !strcmp(j->exe_path, HARNESS_BUILD_TDPROF);
	char header[PATH_MAX];

	for (int k = 0; k < 2; k++) {
		int i = from_build ? 1 - k : k;

		snprintf(header, sizeof(header), "%s/tdprof/harness.h", places[i].inc);
		if (!is_file(header) || !is_file(places[i].lib))
			continue;
		j->incdir = tdp_strdup(places[i].inc);
		j->lib = tdp_strdup(places[i].lib);
		j->link_extra = places[i].extra;
		if (!j->incdir || !j->lib)
			return tdp_err_oom(err);
		return 0;
	}
	tdp_err_set(err, TDP_ENOTSUP, "cannot find the harness library '%s' or '%s'", HARNESS_BUILD_LIB,
		    HARNESS_INSTALL_LIB);
	return tdp_err_hint(err, "build it with 'ninja -C build', or install tdprof with 'make install'");
}

static bool is_identifier(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

static int split_cc(struct loop_job *j, struct tdp_err *err)
{
	const char *p = j->cc && *j->cc ? j->cc : "cc";

	j->cc_argv = tdp_calloc(LOOP_MAX_CC_WORDS + 1, sizeof(char *));
	if (!j->cc_argv)
		return tdp_err_oom(err);
	while (*p) {
		size_t n;

		while (*p == ' ' || *p == '\t')
			p++;
		n = strcspn(p, " \t");
		if (!n)
			break;
		if (j->nr_cc == LOOP_MAX_CC_WORDS)
			return tdp_err_set(err, TDP_EUSAGE, "$CC has more than %d words", LOOP_MAX_CC_WORDS);
		j->cc_argv[j->nr_cc] = tdp_strndup(p, n);
		if (!j->cc_argv[j->nr_cc++])
			return tdp_err_oom(err);
		p += n;
	}
	if (!j->nr_cc)
		return tdp_err_set(err, TDP_EUSAGE, "$CC is empty");
	return 0;
}

int loop_job_open(struct loop_job *j, struct tdp_err *err)
{
	char path[PATH_MAX];
	int rc;

	if (!is_identifier(j->function))
		return tdp_err_set(err, TDP_EUSAGE, "'%s' is not a C function name", j->function);
	if (!strcmp(j->function, "main"))
		return tdp_err_set(err, TDP_EUSAGE, "cannot measure 'main': name a function that main calls");
	if (!realpath(j->file, path))
		return tdp_err_set(err, errno == ENOENT ? TDP_ENOENT : TDP_EUSAGE, "cannot open '%s': %s", j->file,
				   strerror(errno));
	if (!is_file(path))
		return tdp_err_set(err, TDP_EUSAGE, "'%s' is not a regular file", j->file);
	/* It is #included by path: a quote or a newline would end the string. */
	if (strpbrk(path, "\"\\\n"))
		return tdp_err_set(err, TDP_EUSAGE, "'%s': the path contains a quote, backslash or newline", j->file);
	j->abs_file = tdp_strdup(path);
	if (!j->abs_file)
		return tdp_err_oom(err);
	if ((rc = split_cc(j, err)) != 0 || (rc = find_harness(j, err)) != 0)
		return rc;
	snprintf(path, sizeof(path), "%s/tdprof-loop-XXXXXX", j->tmp_root && *j->tmp_root ? j->tmp_root : "/tmp");
	if (!mkdtemp(path))
		return tdp_err_set(err, TDP_EIO, "cannot make a temporary directory '%s': %s", path, strerror(errno));
	j->dir = tdp_strdup(path);
	if (!j->dir)
		return tdp_err_oom(err);
	return 0;
}

static char *in_dir(const struct loop_job *j, const char *name)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s/%s", j->dir, name);
	return strbuf_detach(&sb);
}

static int write_text(const char *path, const struct strbuf *sb, struct tdp_err *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), rc = 0;

	if (fd < 0)
		return tdp_err_set(err, TDP_EIO, "cannot write '%s': %s", path, strerror(errno));
	if (tdp_write_all(fd, sb->buf, sb->len))
		rc = tdp_err_set(err, TDP_EIO, "cannot write '%s'", path);
	if (close(fd) && !rc)
		rc = tdp_err_set(err, TDP_EIO, "cannot write '%s': %s", path, strerror(errno));
	return rc;
}

/*
 * Compile with the user's flags: cc CFLAGS extra... Returns 0 and *ok, or an
 * error when the compiler cannot be run; the compiler's output goes to diag.
 */
static int compile(struct loop_job *j, const char *const *extra, size_t nr_extra, struct strbuf *diag, bool *ok,
		   struct tdp_err *err)
{
	size_t n = j->nr_cc + j->nr_cflags + nr_extra, k = 0;
	char **argv = tdp_calloc(n + 1, sizeof(char *));
	int rc, status = 0;

	if (!argv)
		return tdp_err_oom(err);
	for (size_t i = 0; i < j->nr_cc; i++)
		argv[k++] = j->cc_argv[i];
	for (size_t i = 0; i < j->nr_cflags; i++)
		argv[k++] = j->cflags[i];
	for (size_t i = 0; i < nr_extra; i++)
		argv[k++] = (char *)extra[i];
	argv[k] = NULL;
	if (j->note)
		show_argv(j, argv);
	strbuf_reset(diag);
	rc = loop_spawn(argv, true, diag, &status, err);
	if (rc == TDP_ENOCMD) {
		/* A missing compiler is a helper that failed, not a missing workload (127). */
		err->code = rc = TDP_ECHILD;
		tdp_err_hint(err, "install a C compiler ('apt-get install gcc') or set CC");
	}
	*ok = !rc && WIFEXITED(status) && WEXITSTATUS(status) == 0;
	tdp_free(argv);
	return rc;
}

/* The translation unit that includes the user's file; a 'main' of theirs is renamed out of the way. */
static void add_include(struct strbuf *sb, const struct loop_job *j)
{
	strbuf_addf(sb,
		    "#define main tdp_loop_user_main\n"
		    "#include \"%s\"\n"
		    "#undef main\n",
		    j->abs_file);
}

int loop_check(struct loop_job *j, struct strbuf *diag, struct tdp_err *err)
{
	const char *fn = j->function;
	struct strbuf src = STRBUF_INIT;
	char *probe = NULL;
	bool ok;
	int rc;
	/* A static NAME is unused in FILE.c alone; the generated program uses it. */
	const char *syntax[] = { "-fsyntax-only", "-Wno-unused-function", j->file };

	rc = compile(j, syntax, 3, diag, &ok, err);
	if (rc)
		goto out;
	if (!ok) {
		rc = tdp_err_set(err, TDP_EUSAGE, "cannot compile '%s'", j->file);
		goto out;
	}
	/*
	 * Three questions, each on its own presumed file name so that the
	 * compiler's messages say which failed: is NAME declared, can it be
	 * called without arguments, does it return void (a negative array size
	 * otherwise). -w: the user's -Werror must not turn our probes into errors.
	 */
	add_include(&src, j);
	strbuf_addf(&src,
		    "#line 1 \"tdprof-probe-declared\"\n"
		    "extern __typeof__(%s) *tdp_probe_declared;\n"
		    "#line 1 \"tdprof-probe-callable\"\n"
		    "extern __typeof__((%s)()) *tdp_probe_callable(void);\n"
		    "#line 1 \"tdprof-probe-void\"\n"
		    "extern char tdp_probe_void[__builtin_types_compatible_p(__typeof__((%s)()), void) ? 1 : -1];\n",
		    fn, fn, fn);
	probe = in_dir(j, "probe.c");
	if (!probe || strbuf_failed(&src)) {
		rc = tdp_err_oom(err);
		goto out;
	}
	if ((rc = write_text(probe, &src, err)) != 0)
		goto out;
	{
		const char *extra[] = { "-fsyntax-only", "-w", probe };

		rc = compile(j, extra, 3, diag, &ok, err);
	}
	if (rc)
		goto out;
	if (strstr(diag->buf, "tdprof-probe-declared:")) {
		rc = tdp_err_set(err, TDP_ENOENT, "function '%s' not found in '%s'", fn, j->file);
		tdp_err_hint(err, "name a function defined in '%s' that takes no arguments", j->file);
		strbuf_reset(diag);
	} else if (strstr(diag->buf, "tdprof-probe-callable:")) {
		char *v = strstr(diag->buf, "tdprof-probe-void:");

		/* The void probe fails for the same reason: keep the first explanation only. */
		if (v)
			strbuf_setlen(diag, (size_t)(v - diag->buf));
		rc = tdp_err_set(err, TDP_EUSAGE, "'%s' in '%s' cannot be called without arguments", fn, j->file);
		tdp_err_hint(err, "wrap it: 'static int %s_kernel(void) { return %s(...); }'", fn, fn);
	} else {
		j->returns_void = !strstr(diag->buf, "tdprof-probe-void:");
		if (!ok && j->returns_void)
			rc = tdp_err_set(err, TDP_EUSAGE, "cannot compile '%s' with the harness probe", j->file);
	}
out:
	tdp_free(probe);
	strbuf_release(&src);
	return rc;
}

/* The generated program: NAME called through a volatile pointer, its value (if any) consumed. */
static void add_main(struct strbuf *sb, const struct loop_job *j)
{
	const char *fn = j->function;

	add_include(sb, j);
	strbuf_addf(sb,
		    "#line 1 \"tdprof-loop-main.c\"\n"
		    "/* Generated by 'tdprof loop': measures %s() with <tdprof/harness.h>. */\n"
		    "#include <tdprof/harness.h>\n"
		    "#include <stdint.h>\n"
		    "#include <stdio.h>\n"
		    "#include <stdlib.h>\n"
		    "#include <string.h>\n"
		    "\n"
		    "/* volatile: the compiler cannot know which function it calls, so it can neither\n"
		    "   inline %s into the loop nor hoist its work out of it. */\n"
		    "static __typeof__(%s) *volatile tdp_loop_fn = %s;\n"
		    "\n"
		    "/* The loop itself is optimised whatever the user's flags (GCC; clang has no such attribute). */\n"
		    "#if defined(__GNUC__) && !defined(__clang__)\n"
		    "__attribute__((optimize(\"O2\")))\n"
		    "#endif\n"
		    "static void tdp_loop_run(void *tdp_arg, uint64_t tdp_n)\n"
		    "{\n"
		    "\tuint64_t tdp_i;\n"
		    "\n"
		    "\t(void)tdp_arg;\n"
		    "\tfor (tdp_i = 0; tdp_i < tdp_n; tdp_i++) {\n"
		    "\t\t__typeof__(%s) *tdp_f = tdp_loop_fn;\n",
		    fn, fn, fn, fn, fn);
	if (j->returns_void)
		strbuf_addf(sb, "\t\ttdp_f();\n");
	else
		strbuf_addf(sb,
			    "\t\t__typeof__(tdp_f()) tdp_r = tdp_f();\n"
			    "\n"
			    "\t\t/* the value is consumed: the call cannot be dropped */\n"
			    "\t\t__asm__ volatile(\"\" : : \"m\"(tdp_r));\n");
	strbuf_addf(sb,
		    "\t}\n"
		    "}\n"
		    "\n"
		    "int main(int tdp_argc, char **tdp_argv)\n"
		    "{\n"
		    "\tstruct tdp_harness_config tdp_cfg;\n"
		    "\tstruct tdp_harness_kernel tdp_k;\n"
		    "\tstruct tdp_harness_result tdp_res;\n"
		    "\tstatic char tdp_buf[65536];\n"
		    "\tchar tdp_err[512];\n"
		    "\tint tdp_rc;\n"
		    "\n"
		    "\tmemset(&tdp_k, 0, sizeof(tdp_k));\n"
		    "\ttdp_k.name = \"%s\";\n"
		    "\ttdp_k.run = tdp_loop_run;\n"
		    "\ttdp_harness_config_init(&tdp_cfg);\n"
		    "\tif (tdp_argc > 3) {\n"
		    "\t\ttdp_cfg.cpu = (int)strtol(tdp_argv[1], NULL, 10);\n"
		    "\t\ttdp_cfg.repetitions = (unsigned)strtoul(tdp_argv[2], NULL, 10);\n"
		    "\t\ttdp_cfg.target_seconds = strtod(tdp_argv[3], NULL);\n"
		    "\t}\n"
		    "\ttdp_rc = tdp_harness_measure(&tdp_k, &tdp_cfg, &tdp_res, tdp_err, sizeof(tdp_err));\n"
		    "\tif (tdp_rc) {\n"
		    "\t\tprintf(\"error: %%d %%s\\n\", -tdp_rc, tdp_err);\n"
		    "\t\treturn 3;\n"
		    "\t}\n"
		    "\ttdp_harness_format_json(&tdp_res, tdp_buf, sizeof(tdp_buf));\n"
		    "\tfputs(tdp_buf, stdout);\n"
		    "\treturn 0;\n"
		    "}\n",
		    fn);
}

int loop_build(struct loop_job *j, struct strbuf *diag, struct tdp_err *err)
{
	struct strbuf src = STRBUF_INIT;
	char *obj = in_dir(j, "loop-main.o");
	const char *extra[8];
	size_t n = 0;
	bool ok;
	int rc;

	j->main_c = in_dir(j, "loop-main.c");
	j->exe = in_dir(j, "loop");
	add_main(&src, j);
	if (!obj || !j->main_c || !j->exe || strbuf_failed(&src)) {
		rc = tdp_err_oom(err);
		goto out;
	}
	if ((rc = write_text(j->main_c, &src, err)) != 0)
		goto out;
	/* Compile, then link: a sanitized build's runtime (link_extra) must not instrument the kernel. */
	extra[n++] = "-I";
	extra[n++] = j->incdir;
	extra[n++] = "-c";
	extra[n++] = "-o";
	extra[n++] = obj;
	extra[n++] = j->main_c;
	rc = compile(j, extra, n, diag, &ok, err);
	if (!rc && ok) {
		n = 0;
		extra[n++] = "-o";
		extra[n++] = j->exe;
		extra[n++] = obj;
		extra[n++] = j->lib;
		if (*j->link_extra)
			extra[n++] = j->link_extra;
		extra[n++] = "-lm";
		rc = compile(j, extra, n, diag, &ok, err);
	}
	if (!rc && !ok)
		rc = tdp_err_set(err, TDP_EUSAGE, "cannot build the harness program for '%s'", j->function);
out:
	tdp_free(obj);
	strbuf_release(&src);
	return rc;
}

int loop_run(struct loop_job *j, int cpu, long reps, double target_ms, struct strbuf *out, int *wstatus,
	     struct tdp_err *err)
{
	char a1[32], a2[32], a3[64];
	char *argv[] = { j->exe, a1, a2, a3, NULL };

	snprintf(a1, sizeof(a1), "%d", cpu);
	snprintf(a2, sizeof(a2), "%ld", reps);
	snprintf(a3, sizeof(a3), "%.9g", target_ms / 1e3);
	if (j->note)
		show_argv(j, argv);
	return loop_spawn(argv, false, out, wstatus, err);
}

void loop_job_close(struct loop_job *j)
{
	static const char *const files[] = { "probe.c", "loop-main.c", "loop-main.o", "loop", "loop-main.s",
					     "hot.s" };

	if (j->dir && !j->keep) {
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			char *p = in_dir(j, files[i]);

			if (p)
				unlink(p);
			tdp_free(p);
		}
		rmdir(j->dir);
	}
	for (size_t i = 0; i < j->nr_cc; i++)
		tdp_free(j->cc_argv[i]);
	tdp_free(j->cc_argv);
	tdp_free(j->abs_file);
	tdp_free(j->dir);
	tdp_free(j->incdir);
	tdp_free(j->lib);
	tdp_free(j->exe);
	tdp_free(j->main_c);
	j->cc_argv = NULL;
	j->nr_cc = 0;
	j->abs_file = j->dir = j->incdir = j->lib = j->exe = j->main_c = NULL;
}
