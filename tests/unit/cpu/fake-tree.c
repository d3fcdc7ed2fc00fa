/* fake-tree.c: temporary sysfs/procfs trees for tests (see fake-tree.h). */
#include "fake-tree.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void fake_tree_init(struct fake_tree *t)
{
	snprintf(t->root, sizeof(t->root), "%s/tdprof-cpu-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(t->root));
}

static void mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			fail_msg("mkdir %s: %s", path, strerror(errno));
		*p = '/';
	}
}

void fake_file(struct fake_tree *t, const char *content, const char *rel_fmt, ...)
{
	char path[1100], rel[768];
	va_list ap;
	FILE *f;

	va_start(ap, rel_fmt);
	vsnprintf(rel, sizeof(rel), rel_fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", t->root, rel);
	mkdirs(path);
	f = fopen(path, "w");
	if (!f)
		fail_msg("fopen %s: %s", path, strerror(errno));
	fputs(content, f);
	fclose(f);
}

void fake_dir(struct fake_tree *t, const char *rel_fmt, ...)
{
	char path[1100], rel[768];
	va_list ap;

	va_start(ap, rel_fmt);
	vsnprintf(rel, sizeof(rel), rel_fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s/", t->root, rel);
	mkdirs(path);
}

void fake_pmu(struct fake_tree *t, const char *sys, const char *name, int type, const char *const *caps,
	      const char *cpus)
{
	char num[32];

	snprintf(num, sizeof(num), "%d\n", type);
	fake_file(t, num, "%s/bus/event_source/devices/%s/type", sys, name);
	for (size_t i = 0; caps && caps[i]; i++) {
		char key[128], value[128];
		const char *eq = strchr(caps[i], '=');

		assert_non_null(eq);
		snprintf(key, sizeof(key), "%.*s", (int)(eq - caps[i]), caps[i]);
		snprintf(value, sizeof(value), "%s\n", eq + 1);
		fake_file(t, value, "%s/bus/event_source/devices/%s/caps/%s", sys, name, key);
	}
	if (cpus) {
		char value[128];

		snprintf(value, sizeof(value), "%s\n", cpus);
		fake_file(t, value, "%s/bus/event_source/devices/%s/cpus", sys, name);
	}
}

const char *fake_path(struct fake_tree *t, const char *rel)
{
	static char path[1024];

	snprintf(path, sizeof(path), "%s/%s", t->root, rel);
	return path;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void fake_tree_remove(struct fake_tree *t)
{
	nftw(t->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
