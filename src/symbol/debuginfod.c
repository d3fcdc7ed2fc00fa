/*
 * debuginfod.c: the debug info of a binary that has none here, fetched by its
 * build-id from the servers of DEBUGINFOD_URLS through libdebuginfod's own client
 * (debuginfod-find, elfutils). tdprof is one static executable and libdebuginfod
 * exists only as a shared library (with libcurl behind it), so its client program
 * is run instead of linking it: `debuginfod-find debuginfo BUILDID` downloads
 * into its cache (DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client) and
 * prints the file's path.
 *
 * Asked only when the caller set opts.debuginfod_client, which cli/ does only when
 * DEBUGINFOD_URLS is set and not empty: without it no network is touched. The
 * client gets opts.debuginfod_envp as its whole environment (nothing here reads
 * ours), its output is bounded and its path checked like any other candidate.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "symbol/symbol-internal.h"

#define DEBUGINFOD_MAX_OUTPUT 4096 /* bytes of the client's answer (one path) read */

char *symbol_debuginfod_find(struct symbol_session *s, const uint8_t *bid, size_t bid_size)
{
	static const char hex[] = "0123456789abcdef";
	char id[41], out[DEBUGINFOD_MAX_OUTPUT + 1], debuginfo[] = "debuginfo";
	char *argv[4] = { (char *)s->opts.debuginfod_client, debuginfo, id, NULL };
	char *const no_env[] = { NULL };
	posix_spawn_file_actions_t fa;
	size_t len = 0;
	int fd[2], status = 0;
	pid_t pid;
	ssize_t n;

	if (!s->opts.debuginfod_client || !bid_size || bid_size > 20)
		return NULL;
	for (size_t i = 0; i < bid_size; i++) {
		id[2 * i] = hex[bid[i] >> 4];
		id[2 * i + 1] = hex[bid[i] & 15];
	}
	id[2 * bid_size] = '\0';
	if (pipe2(fd, O_CLOEXEC))
		return NULL;
	if (posix_spawn_file_actions_init(&fa)) {
		close(fd[0]);
		close(fd[1]);
		return NULL;
	}
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, s->opts.debuginfod_envp ? s->opts.debuginfod_envp : no_env))
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	while (pid > 0 && len < DEBUGINFOD_MAX_OUTPUT &&
	       ((n = read(fd[0], out + len, DEBUGINFOD_MAX_OUTPUT - len)) > 0 || (n < 0 && errno == EINTR)))
		len += n > 0 ? (size_t)n : 0;
	close(fd[0]);
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (pid <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) || !len)
		return NULL;
	out[len] = '\0';
	out[strcspn(out, "\n")] = '\0';
	if (out[0] != '/' || memchr(out, '\0', len) != out + strlen(out))
		return NULL;
	return arena_strdup(&s->arena, out);
}
