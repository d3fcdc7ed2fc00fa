/*
 * Unit tests of the executable queries behind issue 16's why fixes: a source line
 * with several branches (symbol_exe_line_branches(), symbol_exe_disasm() marking the
 * one asked for, and none when nothing tells them apart) and what the debug info
 * says of a function (symbol_exe_func_info(): language, parameters). The programs
 * (tests/e2e/workloads/wl-filter.cpp, wl-args.c) are built here with g++ and cc;
 * skipped, with a message, without g++.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "perfdata/perfdata.h"
#include "symbol/exe.h"

extern char **environ;

static const char *filter_src, *args_src;
static char filter_exe[] = "/tmp/tdprof-lb-filter-XXXXXX", args_exe[] = "/tmp/tdprof-lb-args-XXXXXX";
static unsigned marker_line;

static bool build(const char *cc, const char *src, char *exe)
{
	char *argv[] = { (char *)cc, "-O1", "-g", "-fno-if-conversion", "-fno-if-conversion2", "-o", exe,
			 (char *)src, NULL };
	pid_t pid;
	int fd = mkstemp(exe), st;

	if (fd < 0)
		return false;
	close(fd);
	if (posix_spawnp(&pid, cc, NULL, NULL, argv, environ) != 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0) {
		unlink(exe);
		exe[0] = '\0';
		return false;
	}
	return true;
}

static int setup(void **state)
{
	char line[512];
	unsigned n = 0;
	FILE *f = fopen(filter_src, "r");

	(void)state;
	while (f && fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, "MULTI-BRANCH LINE"))
			marker_line = n;
	}
	if (f)
		fclose(f);
	if (!build("g++", filter_src, filter_exe))
		filter_exe[0] = '\0';
	if (!build("cc", args_src, args_exe))
		args_exe[0] = '\0';
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (filter_exe[0])
		unlink(filter_exe);
	if (args_exe[0])
		unlink(args_exe);
	return 0;
}

static void open_filter(struct symbol_exe *x, char *file, size_t size)
{
	struct tdp_err err = TDP_ERR_INIT;

	if (!filter_exe[0]) {
		print_message("skipped: g++ is not installed (it builds the C++ filter this tests)\n");
		skip();
	}
	assert_true(marker_line > 0);
	memset(x, 0, sizeof(*x));
	assert_int_equal(symbol_exe_open(x, filter_exe, &err), 0);
	assert_non_null(symbol_path_normalise(filter_src, file, size));
}

static void test_a_line_with_several_branches(void **state)
{
	struct symbol_exe x;
	struct symbol_exe_branch b[SYMBOL_EXE_MAX_LINE_BRANCHES];
	struct symbol_listing l;
	struct tdp_err err = TDP_ERR_INIT;
	char file[4096];
	size_t nb, cond = 0, marked = 0;
	uint64_t last = 0;

	(void)state;
	open_filter(&x, file, sizeof(file));
	nb = symbol_exe_line_branches(&x, file, marker_line, b, SYMBOL_EXE_MAX_LINE_BRANCHES);
	for (size_t i = 0; i < nb; i++) {
		assert_true(b[i].addr > last); /* address order, each once */
		last = b[i].addr;
		if (b[i].branch_type == BRANCH_TYPE_COND)
			cond++;
	}
	assert_true(cond >= 2); /* the loop test, the emptiness check and the data's test */
	/* without per-instruction counts nothing tells them apart: none is marked */
	assert_int_equal(symbol_exe_disasm(&x, file, marker_line, false, 0, 8, &l, &err), 0);
	assert_int_equal(l.target, 0);
	assert_true(l.line_cond >= 2);
	/* the one asked for is marked, and only it */
	for (size_t i = 0; i < nb; i++) {
		if (b[i].branch_type != BRANCH_TYPE_COND)
			continue;
		assert_int_equal(symbol_exe_disasm(&x, file, marker_line, false, b[i].addr, 8, &l, &err), 0);
		assert_int_equal(l.target, b[i].addr);
		marked = 0;
		for (size_t k = 0; k < l.nr; k++)
			marked += l.v[k].target;
		assert_int_equal(marked, 1);
	}
	/* the kind of the instruction at an address */
	assert_int_equal(symbol_exe_branch_at(&x, b[0].addr), b[0].branch_type);
	symbol_exe_close(&x);
}

static void test_func_info(void **state)
{
	struct symbol_exe x;
	struct symbol_exe_func_info fi;
	struct tdp_err err = TDP_ERR_INIT;
	char file[4096];

	(void)state;
	open_filter(&x, file, sizeof(file));
	assert_true(symbol_exe_func_info(&x, file, "main", &fi));
	assert_int_equal(fi.lang, SYMBOL_LANG_CXX);
	assert_int_equal(fi.params, 2); /* main(int, char **) */
	assert_false(symbol_exe_func_info(&x, NULL, "no_such_function", &fi));
	symbol_exe_close(&x);
	if (!args_exe[0])
		skip();
	memset(&x, 0, sizeof(x));
	assert_int_equal(symbol_exe_open(&x, args_exe, &err), 0);
	assert_true(symbol_exe_func_info(&x, NULL, "work", &fi));
	assert_int_equal(fi.lang, SYMBOL_LANG_C);
	assert_int_equal(fi.params, 2); /* work(long n, long m) */
	symbol_exe_close(&x);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_line_with_several_branches),
		cmocka_unit_test(test_func_info),
	};

	if (argc < 3) {
		fprintf(stderr, "usage: %s wl-filter.cpp wl-args.c\n", argv[0]);
		return 2;
	}
	filter_src = argv[1];
	args_src = argv[2];
	return cmocka_run_group_tests(tests, setup, teardown);
}
