/*
 * path.h: finding a program by name as execvp(3) would, so that tdprof knows the
 * file it is about to run (valgrind, the workload) and can name it in messages
 * and resolve its symbols.
 *
 * The caller passes the PATH it read (nothing below cli/ reads the environment).
 */
#ifndef TDPROF_BASE_PATH_H
#define TDPROF_BASE_PATH_H

/* The directories searched when the caller has no PATH (as execvp's default). */
#define TDP_DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

/**
 * Find an executable called `name`: a name with a '/' is taken as is, any other
 * is looked up in the ':'-separated directories of `path` (NULL:
 * TDP_DEFAULT_PATH; an empty entry is the current directory). On success *out is
 * a new string (tdp_free). Returns 0, TDP_ENOCMD (not found), TDP_ENOEXEC (found
 * but not executable or a directory) or TDP_ENOMEM; no message (the caller knows
 * what it looked for).
 */
int tdp_find_program(const char *name, const char *path, char **out) __attribute__((warn_unused_result));

/**
 * As tdp_find_program(), then the result made absolute with its symbolic links
 * resolved (the kernel and the symbol session name a mapped binary by that
 * path); when it cannot be resolved, the path as found. Returns NULL when the
 * program is not found or on allocation failure.
 */
char *tdp_find_program_abs(const char *name, const char *path);

#endif
