/*
 * main.c: the corpus replayer. Linked with one fuzz target instead of
 * libFuzzer, it runs the target on saved inputs, so that `make check` (Meson
 * suite fuzz-replay) replays every corpus with the compiler and sanitizers of
 * the build, and under valgrind.
 *
 * usage: fuzz-<target>-replay [--oom] PATH...
 *   PATH   a file, or a directory whose regular files are all inputs (not
 *          recursive; names starting with '.' and README files are skipped)
 *   --oom  also replay each input with its 1st, 2nd, ... allocation failing:
 *          each of the first OOM_EVERY, then in steps of an eighth of the
 *          number reached (up to OOM_MAX_STEPS), to exercise the ENOMEM paths
 * Exits 0 when every input ran; 1 when a path cannot be read or no input was
 * found (a corpus that went missing must not pass). A crash aborts, as under
 * libFuzzer.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"
#include "fuzz.h"

#define OOM_EVERY 64       /* --oom fails each of the first OOM_EVERY allocations */
#define OOM_MAX_STEPS 4096 /* and then fewer, up to this one */
#define INPUT_MAX ((size_t)16 << 20) /* larger files are not fuzz inputs */

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static bool oom;

static int replay_file(const char *path, size_t *count)
{
	struct tdp_file f = TDP_FILE_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	long nr_alloc;

	if (tdp_file_open(&f, path, INPUT_MAX, &err)) {
		fprintf(stderr, "fuzz replay: %s\n", err.msg);
		return -1;
	}
	tdp_alloc_fail_after(-1);
	LLVMFuzzerTestOneInput(f.data, f.size);
	nr_alloc = tdp_alloc_fail_after(-1);
	for (long n = 0; oom && n < nr_alloc && n < OOM_MAX_STEPS; n += n < OOM_EVERY ? 1 : n / 8) {
		tdp_alloc_fail_after(n);
		LLVMFuzzerTestOneInput(f.data, f.size);
		tdp_alloc_fail_after(-1);
	}
	tdp_file_close(&f);
	(*count)++;
	return 0;
}

static bool skip_name(const char *name)
{
	return name[0] == '.' || !strncmp(name, "README", 6);
}

static int replay_dir(const char *dir, size_t *count)
{
	struct dirent **ents = NULL;
	int n = scandir(dir, &ents, NULL, alphasort), ret = 0;

	if (n < 0) {
		perror(dir);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		if (!ret && !skip_name(ents[i]->d_name) &&
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name) < sizeof(path) &&
		    !stat(path, &st) && S_ISREG(st.st_mode))
			ret = replay_file(path, count);
		free(ents[i]);
	}
	free(ents);
	return ret;
}

int main(int argc, char **argv)
{
	size_t count = 0;
	int first = 1;

	if (argc > 1 && !strcmp(argv[1], "--oom")) {
		oom = true;
		first = 2;
	}
	if (first >= argc) {
		fprintf(stderr, "usage: %s [--oom] PATH...\n", argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = first; i < argc; i++) {
		struct stat st;
		int ret;

		if (stat(argv[i], &st)) {
			perror(argv[i]);
			return 1;
		}
		ret = S_ISDIR(st.st_mode) ? replay_dir(argv[i], &count) : replay_file(argv[i], &count);
		if (ret)
			return 1;
	}
	printf("replayed %zu inputs%s\n", count, oom ? " (and their allocation failures)" : "");
	return count ? 0 : 1;
}
