/*
 * err.h: error codes and the error report every module below cli/ fills in.
 *
 * Functions below cli/ never print and never exit. They return 0 on success or a
 * negative TDP_E* code, and, when the caller passes a struct tdp_err, describe what
 * went wrong in words a user can act on (message) and, where there is a remedy, the
 * exact command or option that fixes it (hint). cli/ turns the code into an exit
 * status (cli/exitcode.c) and prints the message (cli/msg.c).
 *
 * Lifecycle:
 *   1. struct tdp_err err = TDP_ERR_INIT;
 *   2. pass &err to a function; on failure it returns a negative code and err holds
 *      the message (the first failure wins: later calls do not overwrite it);
 *   3. the caller prints err.msg / err.hint, or adds context with tdp_err_prefix().
 *
 * Invariants: err.msg and err.hint are always NUL-terminated; err.code is 0 until a
 * failure is recorded. Messages follow git's wording: lower case, no final period,
 * what failed first, the subject in quotes, then the cause.
 */
#ifndef TDPROF_BASE_ERR_H
#define TDPROF_BASE_ERR_H

#include <stdarg.h>
#include <stddef.h>

/*
 * Error codes. The numbers never change; a retired code stays reserved.
 * The exit status each maps to is decided in cli/exitcode.c.
 */
enum tdp_errcode {
	TDP_OK = 0,
	TDP_EINVAL = -1,     /* a bad argument from the calling code (a bug) */
	TDP_ENOMEM = -2,     /* allocation failed */
	TDP_EIO = -3,        /* a read or write failed */
	TDP_EFORMAT = -4,    /* input data is malformed (names the file and offset) */
	TDP_ELIMIT = -5,     /* input data exceeds a named size limit */
	TDP_EUSAGE = -6,     /* the user asked for something that does not parse or cannot be */
	TDP_ENOENT = -7,     /* a named thing (file, event, model, PMU) does not exist */
	TDP_ENOTSUP = -8,    /* this machine or kernel cannot do it (no PMU, no LBR) */
	TDP_EPERM = -9,      /* not allowed (perf_event_paranoid, capabilities) */
	TDP_ENOEXEC = -10,   /* the workload cannot be run (exists but not executable) */
	TDP_ENOCMD = -11,    /* the workload command was not found */
	TDP_EANALYSIS = -12, /* the analysis could not produce a result */
	TDP_ECHILD = -13,    /* a helper process (valgrind, compiler) failed */
	TDP_EBUSY = -14,     /* a counter could not be scheduled */
};

#define TDP_ERR_MSG_MAX 512
#define TDP_ERR_HINT_MAX 512

struct tdp_err {
	int code;                    /* 0, or the first TDP_E* recorded */
	char msg[TDP_ERR_MSG_MAX];   /* what went wrong */
	char hint[TDP_ERR_HINT_MAX]; /* how to fix it; empty when there is no remedy */
};

#define TDP_ERR_INIT { 0, { 0 }, { 0 } }

/**
 * Record an error and return its code, so a caller can write
 * `return tdp_err_set(err, TDP_EFORMAT, "'%s': ...", path);`.
 * err may be NULL (the code is still returned). Does nothing to err when it already
 * holds an error (the first, most specific failure wins).
 */
int tdp_err_set(struct tdp_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** As tdp_err_set(), taking a va_list. */
int tdp_err_vset(struct tdp_err *err, int code, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/**
 * Set the hint of the error in err (replacing an earlier hint). err may be NULL.
 * Returns err->code (or 0 when err is NULL) so it can end a return statement.
 */
int tdp_err_hint(struct tdp_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * Put context in front of the message: "cannot read 'x'" becomes
 * "<prefix>: cannot read 'x'". err may be NULL; does nothing when err holds no error.
 */
void tdp_err_prefix(struct tdp_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** Forget a recorded error, making err ready for reuse. */
void tdp_err_clear(struct tdp_err *err);

/** A short text for a code ("malformed input"); never NULL. */
const char *tdp_strerror(int code);

/** Record an allocation failure (a shorthand used on every ENOMEM path). */
int tdp_err_oom(struct tdp_err *err);

#endif
