/*
 * Unit tests of symbol_exe_line0_owner() and of line ranges absorbing line-0 code:
 * clang gives a switch's jump-table dispatch line 0 in the line table, and valgrind
 * charges it to no line; the diagnosis must still name the switch's line. The
 * program is built here with clang (skipped, with a message, without clang).
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
#include "symbol/exe.h"

extern char **environ;

static const char *src_path;
static char exe_path[] = "/tmp/tdprof-line0-XXXXXX";
static unsigned marker_line;

/* The line of the marker comment in the source. */
static unsigned find_marker(const char *path, const char *marker)
{
	char line[512];
	unsigned n = 0;
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, marker)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	fail_msg("no marker %s in %s", marker, path);
	return 0;
}

static int build_with_clang(void **state)
{
	char *argv[] = { "clang", "-O1", "-g", "-gdwarf-4", "-o", exe_path, (char *)src_path, NULL };
	pid_t pid;
	int fd, st;

	(void)state;
	fd = mkstemp(exe_path);
	if (fd < 0)
		return -1;
	close(fd);
	if (posix_spawnp(&pid, "clang", NULL, NULL, argv, environ) != 0 || waitpid(pid, &st, 0) < 0 ||
	    !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		unlink(exe_path);
		exe_path[0] = '\0';
	}
	marker_line = find_marker(src_path, "LINE0-OWNER");
	return 0;
}

static int cleanup(void **state)
{
	(void)state;
	if (exe_path[0])
		unlink(exe_path);
	return 0;
}

static void need_clang(void)
{
	if (!exe_path[0]) {
		print_message("skipped: clang is not installed (it makes the line-0 dispatch this tests)\n");
		skip();
	}
}

static void test_owner_of_the_dispatch_is_the_switch_line(void **state)
{
	struct symbol_exe x;
	struct tdp_err err = TDP_ERR_INIT;
	char file[4096];

	(void)state;
	need_clang();
	memset(&x, 0, sizeof(x));
	assert_int_equal(symbol_exe_open(&x, exe_path, &err), 0);
	assert_non_null(symbol_path_normalise(src_path, file, sizeof(file)));
	/* the indirect jump has line 0; its owner is the switch's line */
	assert_int_equal(symbol_exe_line0_owner(&x, file, "run", true), marker_line);
	/* a function without line-0 branch code, or an unknown one, has no owner */
	assert_int_equal(symbol_exe_line0_owner(&x, file, "main", true), 0);
	assert_int_equal(symbol_exe_line0_owner(&x, file, "no_such_function", true), 0);
	symbol_exe_close(&x);
}

static void test_the_switch_line_includes_its_dispatch(void **state)
{
	struct symbol_exe x;
	struct tdp_err err = TDP_ERR_INIT;
	struct symbol_listing d;
	char file[4096];
	bool marked_indirect = false;

	(void)state;
	need_clang();
	memset(&x, 0, sizeof(x));
	assert_int_equal(symbol_exe_open(&x, exe_path, &err), 0);
	assert_non_null(symbol_path_normalise(src_path, file, sizeof(file)));
	assert_int_equal(symbol_exe_disasm(&x, file, marker_line, true, 0, 8, &d, &err), 0);
	for (size_t i = 0; i < d.nr; i++)
		if (d.v[i].target)
			marked_indirect = strncmp(d.v[i].text, "jmp", 3) == 0 && d.v[i].in_line;
	assert_true(marked_indirect); /* the marked branch is the jump-table's jmp, within the line */
	symbol_exe_close(&x);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_owner_of_the_dispatch_is_the_switch_line),
		cmocka_unit_test(test_the_switch_line_includes_its_dispatch),
	};

	if (argc < 2) {
		fprintf(stderr, "usage: %s switch-target.c\n", argv[0]);
		return 2;
	}
	src_path = argv[1];
	return cmocka_run_group_tests(tests, build_with_clang, cleanup);
}
