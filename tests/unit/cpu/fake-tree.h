/*
 * fake-tree.h: build fake sysfs/procfs trees in a temporary directory for the
 * cpu module's tests (test helpers, not part of tdprof).
 */
#ifndef TDPROF_TESTS_CPU_FAKE_TREE_H
#define TDPROF_TESTS_CPU_FAKE_TREE_H

#include <stddef.h>

/* A temporary directory; root is its path ("/tmp/tdprof-cpu-XXXXXX"). */
struct fake_tree {
	char root[256];
};

/* Create the temporary directory; aborts the test on failure. */
void fake_tree_init(struct fake_tree *t);

/* Write `content` to root/<rel> (printf format), creating parent directories. */
void fake_file(struct fake_tree *t, const char *content, const char *rel_fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Create the directory root/<rel> and its parents. */
void fake_dir(struct fake_tree *t, const char *rel_fmt, ...) __attribute__((format(printf, 2, 3)));

/* Write root/<base>/<rel> for a PMU: type, and caps given as "k=v" strings (NULL-terminated). */
void fake_pmu(struct fake_tree *t, const char *sys, const char *name, int type, const char *const *caps,
	      const char *cpus);

/* Path of root/<rel> in a static buffer (overwritten by the next call). */
const char *fake_path(struct fake_tree *t, const char *rel);

/* Remove the whole tree. */
void fake_tree_remove(struct fake_tree *t);

#endif
