/*
 * Unit tests of loop_spawn_many() (src/loop/build.c): programs run at once, each
 * output kept apart, all in the first one's process group (so a signal tdprof passes
 * on reaches every one), all or none started, and a signal passed on to them all.
 * The programs are coreutils and python3 (for its getpgrp()); no shell.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "base/sigfwd.h"
#include "base/strbuf.h"
#include "loop/loop.h"

static void test_outputs_apart(void **state)
{
	char *a[] = { "echo", "one", NULL }, *b[] = { "printf", "two\\nlines\\n", NULL }, *c[] = { "false", NULL };
	struct strbuf out[3] = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	struct loop_child ch[3] = {
		{ .argv = a, .out = &out[0] }, { .argv = b, .out = &out[1] }, { .argv = c, .out = &out[2] },
	};
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	assert_int_equal(loop_spawn_many(ch, 3, &err), 0);
	assert_string_equal(out[0].buf, "one\n");
	assert_string_equal(out[1].buf, "two\nlines\n");
	assert_int_equal(out[2].len, 0);
	assert_true(WIFEXITED(ch[0].wstatus) && WEXITSTATUS(ch[0].wstatus) == 0);
	assert_true(WIFEXITED(ch[2].wstatus) && WEXITSTATUS(ch[2].wstatus) == 1);
	for (int i = 0; i < 3; i++)
		strbuf_release(&out[i]);
	/* none, or more than the limit, is refused */
	assert_int_equal(loop_spawn_many(ch, 0, &err), TDP_EINVAL);
	assert_int_equal(loop_spawn_many(ch, LOOP_SPAWN_MAX + 1, &err), TDP_EINVAL);
}

/* Each child prints "PID PGID": the first leads its own group, the second joins it. */
static void test_one_group(void **state)
{
	char *py[] = { "python3", "-c", "import os; print(os.getpid(), os.getpgrp())", NULL };
	struct strbuf out[2] = { STRBUF_INIT, STRBUF_INIT };
	struct loop_child ch[2] = { { .argv = py, .out = &out[0] }, { .argv = py, .out = &out[1] } };
	struct tdp_err err = TDP_ERR_INIT;
	long pid[2], pgid[2];

	(void)state;
	if (loop_spawn_many(ch, 2, &err) == TDP_ENOCMD) {
		skip(); /* no python3: nothing to ask the group of */
		return;
	}
	for (int i = 0; i < 2; i++) {
		assert_true(WIFEXITED(ch[i].wstatus) && WEXITSTATUS(ch[i].wstatus) == 0);
		assert_int_equal(sscanf(out[i].buf, "%ld %ld", &pid[i], &pgid[i]), 2);
		strbuf_release(&out[i]);
	}
	assert_int_equal(pgid[0], pid[0]);
	assert_int_equal(pgid[1], pid[0]);
	assert_int_not_equal(pgid[0], (long)getpgrp());
}

/* A program that is not there: none runs (the one started is killed, not waited for 60 s). */
static void test_all_or_none(void **state)
{
	char *a[] = { "sleep", "60", NULL }, *b[] = { "tdprof-no-such-program", NULL };
	struct strbuf out[2] = { STRBUF_INIT, STRBUF_INIT };
	struct loop_child ch[2] = { { .argv = a, .out = &out[0] }, { .argv = b, .out = &out[1] } };
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	assert_int_equal(loop_spawn_many(ch, 2, &err), TDP_ENOCMD);
	assert_non_null(strstr(err.msg, "tdprof-no-such-program"));
	assert_true(WIFSIGNALED(ch[0].wstatus) && WTERMSIG(ch[0].wstatus) == SIGKILL);
	strbuf_release(&out[0]);
	strbuf_release(&out[1]);
}

/* A time limit: both programs are killed after it (a hung llvm-mca stops the model, not tdprof). */
static void test_timeout_kills_all(void **state)
{
	char *a[] = { "sleep", "60", NULL }, *b[] = { "echo", "quick", NULL };
	struct strbuf out[2] = { STRBUF_INIT, STRBUF_INIT };
	struct loop_child ch[2] = { { .argv = a, .out = &out[0], .timeout_s = 1 }, { .argv = b, .out = &out[1] } };
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	assert_int_equal(loop_spawn_many(ch, 2, &err), TDP_ECHILD);
	assert_true(ch[0].timed_out);
	assert_non_null(strstr(err.msg, "ran longer than 1 s"));
	assert_true(WIFSIGNALED(ch[0].wstatus) && WTERMSIG(ch[0].wstatus) == SIGKILL);
	assert_string_equal(out[1].buf, "quick\n"); /* the quick one's output is kept */
	/* within the limit: no kill */
	strbuf_reset(&out[1]);
	ch[0] = (struct loop_child){ .argv = b, .out = &out[1], .timeout_s = 30 };
	assert_int_equal(loop_spawn_many(ch, 1, &err), 0);
	assert_false(ch[0].timed_out);
	assert_true(WIFEXITED(ch[0].wstatus) && WEXITSTATUS(ch[0].wstatus) == 0);
	strbuf_release(&out[0]);
	strbuf_release(&out[1]);
}

/*
 * A SIGTERM to tdprof while two programs run reaches both (the third sends it and
 * then waits too). Last: the signal received is sticky for the process.
 */
static void test_signal_reaches_all(void **state)
{
	char *a[] = { "sleep", "60", NULL };
	char *k[] = { "python3", "-c", "import os, signal, time; os.kill(os.getppid(), signal.SIGTERM); time.sleep(60)",
		      NULL };
	struct strbuf out[3] = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	struct loop_child ch[3] = { { .argv = a, .out = &out[0] }, { .argv = a, .out = &out[1] },
				    { .argv = k, .out = &out[2] } };
	struct tdp_err err = TDP_ERR_INIT;
	int rc;

	(void)state;
	tdp_sigfwd_begin();
	rc = loop_spawn_many(ch, 3, &err);
	tdp_sigfwd_end();
	if (rc == TDP_ENOCMD) {
		skip();
		return;
	}
	assert_int_equal(rc, TDP_ECHILD);
	assert_int_equal(tdp_sigfwd_received(), SIGTERM);
	for (int i = 0; i < 3; i++) {
		assert_true(WIFSIGNALED(ch[i].wstatus) && WTERMSIG(ch[i].wstatus) == SIGTERM);
		strbuf_release(&out[i]);
	}
	/* and nothing more is started once a signal came */
	assert_int_equal(loop_spawn_many(ch, 1, &err), TDP_ECHILD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outputs_apart),
		cmocka_unit_test(test_one_group),
		cmocka_unit_test(test_all_or_none),
		cmocka_unit_test(test_timeout_kills_all),
		cmocka_unit_test(test_signal_reaches_all),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
