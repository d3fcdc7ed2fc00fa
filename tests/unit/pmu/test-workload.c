/*
 * Unit tests of pmu/workload: fork, park, exec, and the shell's answers when the
 * command cannot be run (127 not found, 126 not executable), exit statuses and
 * signals, and that nothing is left behind.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "pmu/workload.h"

static int run_to_end(char *const *argv, struct pmu_workload *w, struct tdp_err *err)
{
	int ret = pmu_workload_prepare(w, argv, NULL, err);

	if (ret)
		return ret;
	ret = pmu_workload_start(w, err);
	if (ret)
		return ret;
	if (pmu_workload_reap(w, true, err) != 1)
		return -1;
	return pmu_workload_exec_result(w, argv, err);
}

static void test_exit_status(void **state)
{
	char *argv[] = { "/bin/sh", "-c", "exit 7", NULL };
	struct pmu_workload w = PMU_WORKLOAD_INIT;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	assert_int_equal(run_to_end(argv, &w, &err), 0);
	assert_true(w.reaped);
	assert_true(WIFEXITED(w.wstatus));
	assert_int_equal(WEXITSTATUS(w.wstatus), 7);
	pmu_workload_release(&w);
}

static void test_parked_until_started(void **state)
{
	/* the child must not run before start: it would create the file */
	char path[] = "/tmp/tdprof-test-parked-XXXXXX";
	int fd = mkstemp(path);
	char *argv[] = { "/bin/rm", "-f", path, NULL };
	struct pmu_workload w = PMU_WORKLOAD_INIT;
	struct stat st;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(pmu_workload_prepare(&w, argv, NULL, NULL), 0);
	assert_true(w.pid > 0);
	usleep(50000);
	assert_int_equal(stat(path, &st), 0); /* still there: rm has not run */
	assert_int_equal(pmu_workload_reap(&w, false, NULL), 0); /* still parked */
	assert_int_equal(pmu_workload_start(&w, NULL), 0);
	assert_int_equal(pmu_workload_reap(&w, true, NULL), 1);
	assert_int_equal(WEXITSTATUS(w.wstatus), 0);
	assert_int_equal(stat(path, &st), -1); /* rm ran */
	pmu_workload_release(&w);
}

static void test_not_found(void **state)
{
	char *argv[] = { "tdprof-no-such-command-xyz", NULL };
	char *argv_path[] = { "./no/such/dir/prog", NULL };
	struct pmu_workload w = PMU_WORKLOAD_INIT;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	assert_int_equal(run_to_end(argv, &w, &err), TDP_ENOCMD);
	assert_string_equal(err.msg, "'tdprof-no-such-command-xyz': command not found");
	assert_true(err.hint[0] != '\0');
	assert_int_equal(w.pid, -1); /* reaped */
	pmu_workload_release(&w);

	tdp_err_clear(&err);
	assert_int_equal(run_to_end(argv_path, &w, &err), TDP_ENOCMD);
	assert_string_equal(err.msg, "cannot run './no/such/dir/prog': no such file or directory");
	pmu_workload_release(&w);
}

static void test_not_executable(void **state)
{
	char path[] = "/tmp/tdprof-test-noexec-XXXXXX";
	int fd = mkstemp(path);
	char *argv[] = { path, NULL };
	struct pmu_workload w = PMU_WORKLOAD_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	char want[128];

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "hello\n", 6), 6);
	close(fd);
	chmod(path, 0644);
	if (geteuid() == 0 && access(path, X_OK) == 0) {
		unlink(path);
		skip();
	}
	assert_int_equal(run_to_end(argv, &w, &err), TDP_ENOEXEC);
	snprintf(want, sizeof(want), "cannot run '%s': permission denied", path);
	assert_string_equal(err.msg, want);
	assert_non_null(strstr(err.hint, "chmod +x"));
	pmu_workload_release(&w);
	unlink(path);
}

static void test_signal_and_release(void **state)
{
	char *argv[] = { "/bin/sleep", "10", NULL };
	struct pmu_workload w = PMU_WORKLOAD_INIT;
	pid_t pid;

	(void)state;
	assert_int_equal(pmu_workload_prepare(&w, argv, NULL, NULL), 0);
	assert_int_equal(pmu_workload_start(&w, NULL), 0);
	/* sleep is running: the exec succeeded, known without waiting for its end */
	assert_int_equal(pmu_workload_exec_result(&w, argv, NULL), 0);
	assert_int_equal(pmu_workload_reap(&w, false, NULL), 0);
	assert_int_equal(pmu_workload_signal(&w, SIGTERM), 0);
	assert_int_equal(pmu_workload_reap(&w, true, NULL), 1);
	assert_true(WIFSIGNALED(w.wstatus));
	assert_int_equal(WTERMSIG(w.wstatus), SIGTERM);
	assert_int_equal(pmu_workload_signal(&w, SIGTERM), -ESRCH);
	pmu_workload_release(&w);

	/* a parked child that is never started is killed and reaped by release */
	assert_int_equal(pmu_workload_prepare(&w, argv, NULL, NULL), 0);
	pid = w.pid;
	pmu_workload_release(&w);
	assert_int_equal(w.pid, -1);
	assert_int_equal(waitpid(pid, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

static void test_child_mask(void **state)
{
	/* the workload starts with the mask it is given, not the caller's */
	char *argv[] = { "/bin/sh", "-c", "kill -TERM $$; sleep 5", NULL };
	struct pmu_workload w = PMU_WORKLOAD_INIT;
	sigset_t block, old, child;

	(void)state;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	child = old;
	sigdelset(&child, SIGTERM);
	assert_int_equal(pmu_workload_prepare(&w, argv, &child, NULL), 0);
	assert_int_equal(pmu_workload_start(&w, NULL), 0);
	assert_int_equal(pmu_workload_reap(&w, true, NULL), 1);
	sigprocmask(SIG_SETMASK, &old, NULL);
	assert_true(WIFSIGNALED(w.wstatus));
	assert_int_equal(WTERMSIG(w.wstatus), SIGTERM);
	pmu_workload_release(&w);
}

static void test_misuse(void **state)
{
	char *argv[] = { NULL };
	struct pmu_workload w = PMU_WORKLOAD_INIT;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	assert_int_equal(pmu_workload_prepare(&w, argv, NULL, &err), TDP_EINVAL);
	tdp_err_clear(&err);
	assert_int_equal(pmu_workload_start(&w, &err), TDP_EINVAL);
	tdp_err_clear(&err);
	assert_int_equal(pmu_workload_exec_result(&w, argv, &err), TDP_EINVAL);
	pmu_workload_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_status),      cmocka_unit_test(test_parked_until_started),
		cmocka_unit_test(test_not_found),        cmocka_unit_test(test_not_executable),
		cmocka_unit_test(test_signal_and_release), cmocka_unit_test(test_child_mask),
		cmocka_unit_test(test_misuse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
