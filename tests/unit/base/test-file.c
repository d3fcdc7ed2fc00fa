/* Unit tests of base/file: mapping, limits, errors named with the path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/file.h"

static char tmpdir[] = "/tmp/tdprof-test-file-XXXXXX";

static void write_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(s, f);
	fclose(f);
}

static void test_map_and_limit(void **state)
{
	struct tdp_file f = TDP_FILE_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	char path[256];

	(void)state;
	snprintf(path, sizeof(path), "%s/a.txt", tmpdir);
	write_file(path, "hello world");
	assert_int_equal(tdp_file_open(&f, path, 0, &err), 0);
	assert_int_equal(f.size, 11);
	assert_memory_equal(f.data, "hello world", 11);
	assert_true(f.mapped);
	tdp_file_close(&f);
	tdp_file_close(&f);

	assert_int_equal(tdp_file_open(&f, path, 5, &err), TDP_ELIMIT);
	assert_non_null(strstr(err.msg, path));
	assert_null(f.data);
	unlink(path);
}

static void test_errors(void **state)
{
	struct tdp_file f = TDP_FILE_INIT;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	assert_int_equal(tdp_file_open(&f, "/nonexistent/x", 0, &err), TDP_ENOENT);
	assert_string_equal(err.msg, "cannot open '/nonexistent/x': no such file");
	tdp_err_clear(&err);
	assert_int_equal(tdp_file_open(&f, tmpdir, 0, &err), TDP_EFORMAT);
	assert_non_null(strstr(err.msg, "is a directory"));
}

static void test_empty_and_small(void **state)
{
	struct tdp_file f = TDP_FILE_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	char path[256], buf[8];

	(void)state;
	snprintf(path, sizeof(path), "%s/empty", tmpdir);
	write_file(path, "");
	assert_int_equal(tdp_file_open(&f, path, 0, &err), 0);
	assert_int_equal(f.size, 0);
	assert_non_null(f.data);
	tdp_file_close(&f);

	write_file(path, "12345678\n");
	assert_int_equal(tdp_read_small(path, buf, sizeof(buf)), 7);
	assert_string_equal(buf, "1234567");
	assert_int_equal(tdp_read_small("/nonexistent", buf, sizeof(buf)), -1);
	unlink(path);
}

static void test_stream(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	int fds[2];
	char *out;
	size_t len;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], "abcdef", 6), 6);
	close(fds[1]);
	assert_int_equal(tdp_read_fd(fds[0], "pipe", 4, &out, &len, &err), TDP_ELIMIT);
	close(fds[0]);

	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], "abcdef", 6), 6);
	close(fds[1]);
	assert_int_equal(tdp_read_fd(fds[0], "pipe", 0, &out, &len, &err), 0);
	assert_int_equal(len, 6);
	assert_string_equal(out, "abcdef");
	free(out);
	close(fds[0]);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_and_limit),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_empty_and_small),
		cmocka_unit_test(test_stream),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
