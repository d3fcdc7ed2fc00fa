/*
 * Unit tests of sim/runner: program lookup, valgrind missing, the workload's exit
 * status and signal passed through, its output passed through untouched, our cache
 * geometry used (not the host's), children merged, the private directory removed,
 * and valgrind's own failure explained from its log. Tests that need valgrind skip
 * when it is not installed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/path.h"
#include "sim/runner.h"

static char tmp[] = "/tmp/tdprof-test-runner-XXXXXX";
static bool have_valgrind;

static size_t dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void write_file(const char *path, const char *s, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(s, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

struct run {
	struct sim_machine m;
	struct sim_run_opts o;
	struct sim_profile p;
	struct sim_run_result r;
	struct tdp_err err;
	char workdir[256];
};

/* A run in a fresh private parent directory, so that we can see what is left in it. */
static int run(struct run *x, char *const *argv, enum sim_tool tool)
{
	struct tdp_err err = TDP_ERR_INIT;
	static int seq;

	assert_int_equal(sim_machine_preset(&x->m, "generic", &err), 0);
	snprintf(x->workdir, sizeof(x->workdir), "%s/run%d", tmp, seq++);
	assert_int_equal(mkdir(x->workdir, 0700), 0);
	x->o = (struct sim_run_opts)SIM_RUN_OPTS_INIT;
	x->o.argv = argv;
	x->o.machine = &x->m;
	x->o.path = getenv("PATH");
	x->o.tmpdir = x->workdir;
	x->o.tool = tool;
	x->err = (struct tdp_err)TDP_ERR_INIT;
	sim_profile_init(&x->p);
	return sim_run(&x->o, &x->p, &x->r, &x->err);
}

static void done(struct run *x)
{
	/* The private directory and everything valgrind wrote are gone. */
	assert_int_equal(dir_entries(x->workdir), 0);
	rmdir(x->workdir);
	sim_profile_release(&x->p);
}

static void test_find_program(void **state)
{
	char *out = NULL, path[300];

	(void)state;
	assert_int_equal(tdp_find_program("sh", "/nonexistent:/bin:/usr/bin", &out), 0);
	assert_true(!strcmp(out, "/bin/sh") || !strcmp(out, "/usr/bin/sh"));
	tdp_free(out);
	assert_int_equal(tdp_find_program("no-such-cmd-tdprof", "/bin:/usr/bin", &out), TDP_ENOCMD);
	assert_int_equal(tdp_find_program("/etc/passwd", NULL, &out), TDP_ENOEXEC);
	assert_int_equal(tdp_find_program("/tmp", NULL, &out), TDP_ENOEXEC);
	assert_int_equal(tdp_find_program("/no/such/file", NULL, &out), TDP_ENOCMD);
	assert_int_equal(tdp_find_program("", NULL, &out), TDP_ENOCMD);
	/* Only a non-executable match in PATH: execvp's EACCES. */
	snprintf(path, sizeof(path), "%s/plain", tmp);
	write_file(path, "data\n", 0644);
	assert_int_equal(tdp_find_program("plain", tmp, &out), TDP_ENOEXEC);
	unlink(path);
}

static void test_no_valgrind(void **state)
{
	char *argv[] = { "true", NULL };
	struct run x;

	(void)state;
	assert_int_equal(sim_machine_preset(&x.m, "generic", NULL), 0);
	x.o = (struct sim_run_opts)SIM_RUN_OPTS_INIT;
	x.o.argv = argv;
	x.o.machine = &x.m;
	x.o.valgrind = "/nonexistent/valgrind";
	x.err = (struct tdp_err)TDP_ERR_INIT;
	sim_profile_init(&x.p);
	assert_int_equal(sim_run(&x.o, &x.p, &x.r, &x.err), TDP_ENOTSUP);
	assert_string_equal(x.err.msg, "cannot run the simulation: '/nonexistent/valgrind' is not installed");
	assert_non_null(strstr(x.err.hint, "sudo apt-get install valgrind"));
	assert_false(x.r.ran);
	x.o.valgrind = NULL;
	x.o.path = "/nonexistent";
	tdp_err_clear(&x.err);
	assert_int_equal(sim_run(&x.o, &x.p, &x.r, &x.err), TDP_ENOTSUP);
	assert_non_null(strstr(x.err.msg, "'valgrind' is not installed"));
	sim_profile_release(&x.p);
}

static void test_bad_workload(void **state)
{
	char *missing[] = { "no-such-cmd-tdprof", "x", NULL };
	char *notexec[] = { "/etc/passwd", NULL };
	struct run x;

	(void)state;
	if (!have_valgrind)
		skip();
	assert_int_equal(run(&x, missing, SIM_TOOL_CACHEGRIND), TDP_ENOCMD);
	assert_string_equal(x.err.msg, "cannot run 'no-such-cmd-tdprof': command not found");
	assert_false(x.r.ran);
	done(&x);
	assert_int_equal(run(&x, notexec, SIM_TOOL_CACHEGRIND), TDP_ENOEXEC);
	assert_non_null(strstr(x.err.msg, "cannot run '/etc/passwd': not an executable file"));
	done(&x);
}

static void test_status_and_geometry(void **state)
{
	char *argv[] = { "sh", "-c", "exit 5", NULL };
	struct run x;

	(void)state;
	if (!have_valgrind)
		skip();
	if (run(&x, argv, SIM_TOOL_CACHEGRIND))
		fail_msg("%s", x.err.msg);
	assert_true(x.r.ran);
	assert_int_equal(x.r.status, 5);
	assert_false(x.r.signaled);
	assert_int_equal(x.r.nr_files, 1);
	assert_true(x.r.wall_ns > 0);
	assert_true(x.p.totals.v[SIM_IR] > 1000);
	/* tdprof's tool when it was built (every event), else valgrind's (its 13) */
	assert_int_equal(x.r.tool == SIM_TOOL_TDPSIM, sim_tdpsim_available());
	assert_int_equal(x.p.have, x.r.tool == SIM_TOOL_TDPSIM ? (1u << SIM_NR_EVENTS) - 1 : (1u << (SIM_BIM + 1)) - 1);
	/* valgrind simulated our caches, not the host's (this VM reports a 512 MiB LLC). */
	assert_int_equal(x.p.i1.size, 32768);
	assert_int_equal(x.p.i1.assoc, 8);
	assert_int_equal(x.p.d1.size, 49152);
	assert_int_equal(x.p.d1.assoc, 12);
	assert_int_equal(x.p.ll.size, 33554432);
	assert_int_equal(x.p.ll.assoc, 16);
	assert_int_equal(x.p.ll.line, 64);
	done(&x);
}

static void test_signal(void **state)
{
	char *argv[] = { "sh", "-c", "kill -SEGV $$", NULL };
	struct run x;

	(void)state;
	if (!have_valgrind)
		skip();
	if (run(&x, argv, SIM_TOOL_CACHEGRIND))
		fail_msg("%s", x.err.msg);
	assert_true(x.r.signaled);
	assert_int_equal(x.r.signo, 11);
	assert_int_equal(x.r.status, 139);
	assert_true(x.p.totals.v[SIM_IR] > 0); /* cachegrind still wrote its file */
	done(&x);
}

static void test_output_passthrough(void **state)
{
	char *argv[] = { "sh", "-c", "echo hello-out; echo hello-err >&2; exit 0", NULL };
	char out_path[300], err_path[300], buf[4096];
	int saved_out, saved_err, fd_out, fd_err, ret;
	ssize_t n;
	struct run x;

	(void)state;
	if (!have_valgrind)
		skip();
	snprintf(out_path, sizeof(out_path), "%s/stdout", tmp);
	snprintf(err_path, sizeof(err_path), "%s/stderr", tmp);
	fd_out = open(out_path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	fd_err = open(err_path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	assert_true(fd_out >= 0 && fd_err >= 0);
	fflush(stdout);
	fflush(stderr);
	saved_out = dup(1);
	saved_err = dup(2);
	dup2(fd_out, 1);
	dup2(fd_err, 2);
	ret = run(&x, argv, SIM_TOOL_CACHEGRIND);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	assert_int_equal(ret, 0);
	assert_int_equal(x.r.status, 0);

	n = pread(fd_out, buf, sizeof(buf) - 1, 0);
	assert_true(n >= 0);
	buf[n] = '\0';
	assert_string_equal(buf, "hello-out\n");
	n = pread(fd_err, buf, sizeof(buf) - 1, 0);
	assert_true(n >= 0);
	buf[n] = '\0';
	/* Only the workload's own line: valgrind's banner and summary went to its log. */
	assert_string_equal(buf, "hello-err\n");
	close(fd_out);
	close(fd_err);
	unlink(out_path);
	unlink(err_path);
	done(&x);
}

static void test_children(void **state)
{
	char *argv[] = { "sh", "-c", "/bin/true; /bin/true; exit 0", NULL };
	struct run x;
	uint64_t ir_all;

	(void)state;
	if (!have_valgrind)
		skip();
	if (run(&x, argv, SIM_TOOL_CACHEGRIND))
		fail_msg("%s", x.err.msg);
	/* sh and its two children, each simulated and merged. */
	assert_int_equal(x.r.nr_files, 3);
	assert_int_equal(x.p.nr_files, 3);
	ir_all = x.p.totals.v[SIM_IR];
	done(&x);

	memset(&x, 0, sizeof(x));
	x.o.no_children = true;
	{
		struct tdp_err err = TDP_ERR_INIT;

		assert_int_equal(sim_machine_preset(&x.m, "generic", &err), 0);
		snprintf(x.workdir, sizeof(x.workdir), "%s/nochild", tmp);
		assert_int_equal(mkdir(x.workdir, 0700), 0);
		x.o.argv = argv;
		x.o.machine = &x.m;
		x.o.path = getenv("PATH");
		x.o.tmpdir = x.workdir;
		sim_profile_init(&x.p);
		assert_int_equal(sim_run(&x.o, &x.p, &x.r, &x.err), 0);
	}
	assert_int_equal(x.r.nr_files, 1);
	assert_true(x.p.totals.v[SIM_IR] < ir_all);
	done(&x);
}

static void test_callgrind(void **state)
{
	char *argv[] = { "sh", "-c", "exit 3", NULL };
	struct run x;

	(void)state;
	if (!have_valgrind)
		skip();
	if (run(&x, argv, SIM_TOOL_CALLGRIND))
		fail_msg("%s", x.err.msg);
	assert_int_equal(x.r.status, 3);
	assert_true(x.p.has_addr);
	/* tdprof's tool when it was built (every event), else valgrind's (its 13) */
	assert_int_equal(x.r.tool == SIM_TOOL_TDPSIM, sim_tdpsim_available());
	assert_int_equal(x.p.have, x.r.tool == SIM_TOOL_TDPSIM ? (1u << SIM_NR_EVENTS) - 1 : (1u << (SIM_BIM + 1)) - 1);
	assert_int_equal(x.p.ll.size, 33554432);
	done(&x);
}

static void test_valgrind_fails(void **state)
{
	/* A stand-in for valgrind that fails the way valgrind does: a message in its log, no results. */
	static const char script[] = "#!/bin/sh\n"
				     "for a in \"$@\"; do\n"
				     "  case $a in --log-file=*) f=${a#--log-file=}; f=$(echo \"$f\" | sed \"s/%p/$$/\");\n"
				     "    printf '==%s== Cachegrind\\n==%s== Fatal error: something broke\\n' $$ $$ > \"$f\";;\n"
				     "  esac\n"
				     "done\n"
				     "exit 1\n";
	char *argv[] = { "sh", "-c", "exit 0", NULL };
	char fake[300];
	struct run x;

	(void)state;
	snprintf(fake, sizeof(fake), "%s/fake-valgrind", tmp);
	write_file(fake, script, 0755);
	memset(&x, 0, sizeof(x));
	assert_int_equal(sim_machine_preset(&x.m, "generic", NULL), 0);
	snprintf(x.workdir, sizeof(x.workdir), "%s/fail", tmp);
	assert_int_equal(mkdir(x.workdir, 0700), 0);
	x.o.argv = argv;
	x.o.machine = &x.m;
	x.o.path = getenv("PATH");
	x.o.tmpdir = x.workdir;
	x.o.valgrind = fake;
	x.o.valgrind_only = true; /* valgrind's cachegrind, not tdprof's tool */
	sim_profile_init(&x.p);
	assert_int_equal(sim_run(&x.o, &x.p, &x.r, &x.err), TDP_ECHILD);
	assert_string_equal(x.err.msg, "valgrind failed (exit status 1) and wrote no results: Fatal error: something broke");
	assert_non_null(strstr(x.err.hint, "valgrind --tool=cachegrind"));
	assert_true(x.r.ran);
	assert_int_equal(x.r.tool, SIM_TOOL_CACHEGRIND);
	done(&x);
	if (sim_tdpsim_available()) {
		/* tdprof's tool: the hint names it and the private VALGRIND_LIB */
		memset(&x, 0, sizeof(x));
		assert_int_equal(sim_machine_preset(&x.m, "generic", NULL), 0);
		snprintf(x.workdir, sizeof(x.workdir), "%s/fail2", tmp);
		assert_int_equal(mkdir(x.workdir, 0700), 0);
		x.o.argv = argv;
		x.o.machine = &x.m;
		x.o.path = getenv("PATH");
		x.o.tmpdir = x.workdir;
		x.o.valgrind = fake;
		sim_profile_init(&x.p);
		assert_int_equal(sim_run(&x.o, &x.p, &x.r, &x.err), TDP_ECHILD);
		assert_non_null(strstr(x.err.hint, "valgrind --tool=tdpsim"));
		assert_int_equal(x.r.tool, SIM_TOOL_TDPSIM);
		done(&x);
	}
	unlink(fake);
}

static int setup(void **state)
{
	char *vg = NULL;

	(void)state;
	if (!mkdtemp(tmp))
		return -1;
	have_valgrind = tdp_find_program("valgrind", getenv("PATH"), &vg) == 0;
	tdp_free(vg);
	if (!have_valgrind)
		printf("valgrind is not installed: the runs are skipped\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_program),
		cmocka_unit_test(test_no_valgrind),
		cmocka_unit_test(test_bad_workload),
		cmocka_unit_test(test_status_and_geometry),
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_output_passthrough),
		cmocka_unit_test(test_children),
		cmocka_unit_test(test_callgrind),
		cmocka_unit_test(test_valgrind_fails),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
