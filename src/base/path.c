/* path.c: program lookup in PATH (see path.h). */
#include "base/path.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"

/* 0 when `path` is a regular executable file, else TDP_ENOCMD / TDP_ENOEXEC. */
static int check_exec(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return errno == EACCES ? TDP_ENOEXEC : TDP_ENOCMD;
	if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0)
		return TDP_ENOEXEC;
	return 0;
}

int tdp_find_program(const char *name, const char *path, char **out)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = TDP_ENOCMD, seen = 0;
	const char *dir;

	if (!*name)
		return TDP_ENOCMD;
	if (strchr(name, '/')) {
		if ((ret = check_exec(name)))
			return ret;
		*out = tdp_strdup(name);
		return *out ? 0 : TDP_ENOMEM;
	}
	for (dir = path ? path : TDP_DEFAULT_PATH;; ) {
		const char *colon = strchr(dir, ':');
		size_t n = colon ? (size_t)(colon - dir) : strlen(dir);
		int r;

		strbuf_reset(&sb);
		/* An empty entry means the current directory, as in execvp. */
		if (n)
			strbuf_add(&sb, dir, n);
		else
			strbuf_addch(&sb, '.');
		strbuf_addch(&sb, '/');
		strbuf_adds(&sb, name);
		if (strbuf_failed(&sb)) {
			ret = TDP_ENOMEM;
			break;
		}
		r = check_exec(sb.buf);
		if (r == 0) {
			*out = strbuf_detach(&sb);
			ret = *out ? 0 : TDP_ENOMEM;
			break;
		}
		if (r == TDP_ENOEXEC)
			seen = 1; /* execvp reports EACCES when only unusable files were found */
		if (!colon)
			break;
		dir = colon + 1;
	}
	strbuf_release(&sb);
	if (ret == TDP_ENOCMD && seen)
		ret = TDP_ENOEXEC;
	return ret;
}

char *tdp_find_program_abs(const char *name, const char *path)
{
	char *exe = NULL, *abs;

	if (tdp_find_program(name, path, &exe))
		return NULL;
	abs = realpath(exe, NULL);
	if (abs) {
		tdp_free(exe);
		exe = tdp_strdup(abs);
		free(abs);
	}
	return exe;
}
