/* Unit tests of base/file: mapping, limits, errors named with the path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

/*
 * A file truncated by another program while it is mapped: the read that meets the
 * missing pages ends the process with a message naming the file and exit 2, not
 * with SIGBUS. Run in a child, which the guard ends.
 */
static void test_shrinking_file_is_a_message(void **state)
{
	char path[256], msg[1024] = "";
	int fds[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	(void)state;
	snprintf(path, sizeof(path), "%s/shrinks.data", tmpdir);
	{
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		for (int i = 0; i < 4 * 4096; i++)
			fputc('x', f);
		fclose(f);
	}
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct tdp_file f = TDP_FILE_INIT;
		struct tdp_err err = TDP_ERR_INIT;
		volatile uint8_t sink;

		dup2(fds[1], STDERR_FILENO);
		tdp_file_guard_install();
		if (tdp_file_open(&f, path, 0, &err) || truncate(path, 0))
			_exit(10);
		sink = f.data[f.size - 1]; /* past the new end of the file */
		(void)sink;
		_exit(0);
	}
	close(fds[1]);
	while ((n = read(fds[0], msg + got, sizeof(msg) - 1 - (size_t)got)) > 0)
		got += n;
	msg[got] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 2)
		fail_msg("child status 0x%x, stderr '%s'", status, msg);
	assert_non_null(strstr(msg, path));
	assert_non_null(strstr(msg, "shrank while it was read"));
	unlink(path);
}

static size_t entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.' || (e->d_name[1] && (e->d_name[1] != '.' || e->d_name[2]));
	closedir(d);
	return n;
}

/* A report replaces its file only when committed; abandoned, the old one stays. */
static void test_out_commit_and_abandon(void **state)
{
	struct tdp_out o = TDP_OUT_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	struct tdp_file f = TDP_FILE_INIT;
	char path[256];
	struct stat st;

	(void)state;
	snprintf(path, sizeof(path), "%s/report.txt", tmpdir);
	write_file(path, "old");
	assert_int_equal(tdp_out_open(&o, path, &err), 0);
	assert_int_equal(write(o.fd, "new", 3), 3);
	tdp_out_abandon(&o);
	tdp_out_abandon(&o);
	assert_int_equal(tdp_file_open(&f, path, 0, &err), 0);
	assert_memory_equal(f.data, "old", 3);
	tdp_file_close(&f);
	assert_int_equal(entries(tmpdir), 1); /* no temporary left */

	assert_int_equal(tdp_out_open(&o, path, &err), 0);
	assert_int_equal(write(o.fd, "newer", 5), 5);
	assert_int_equal(tdp_out_commit(&o, &err), 0);
	assert_int_equal(tdp_file_open(&f, path, 0, &err), 0);
	assert_int_equal(f.size, 5);
	tdp_file_close(&f);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(entries(tmpdir), 1);

	tdp_out_set_mode(0640);
	assert_int_equal(tdp_out_open(&o, path, &err), 0);
	assert_int_equal(tdp_out_commit(&o, &err), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	tdp_out_set_mode(0600);
	unlink(path);

	assert_int_equal(tdp_out_open(&o, tmpdir, &err), TDP_EUSAGE);
	assert_non_null(strstr(err.msg, "is a directory"));
	assert_int_equal(o.fd, -1);
}

/* A recording moves the previous one to PATH.old and is created afresh. */
static void test_out_recording_keeps_old(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	char path[256], old[300];
	struct stat st, st_old;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/rec.data", tmpdir);
	snprintf(old, sizeof(old), "%s.old", path);
	write_file(path, "first");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(tdp_out_recording(path, &fd, &err), 0);
	close(fd);
	assert_int_equal(stat(old, &st_old), 0);
	assert_int_equal(st_old.st_ino, st.st_ino);
	assert_int_equal(st_old.st_size, 5);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	/* an empty file is not kept as .old */
	assert_int_equal(tdp_out_recording(path, &fd, &err), 0);
	close(fd);
	assert_int_equal(stat(old, &st), 0);
	assert_int_equal(st.st_ino, st_old.st_ino);
	unlink(path);
	unlink(old);
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
		cmocka_unit_test(test_shrinking_file_is_a_message),
		cmocka_unit_test(test_out_commit_and_abandon),
		cmocka_unit_test(test_out_recording_keeps_old),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
