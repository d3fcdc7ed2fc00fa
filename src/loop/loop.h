/*
 * loop.h: the build side of `tdprof loop` (cli/cmd-loop.c is the command).
 *
 * `tdprof loop FILE.c --function NAME -- CFLAGS` measures NAME, a function of
 * FILE.c taking no arguments, with the hot-loop harness (<tdprof/harness.h>):
 *   1. loop_job_open(): a private temporary directory, the harness's header and
 *      static library located (this build tree, or where they are installed);
 *   2. loop_check(): FILE.c compiles with CFLAGS; NAME exists, takes no
 *      arguments; whether it returns void (a probe compiled with FILE.c);
 *   3. loop_build(): a generated main that includes FILE.c, calls NAME through a
 *      volatile function pointer (so it cannot be inlined into the loop or
 *      hoisted out of it) and consumes its value, if any, through an empty asm
 *      volatile; compiled with CFLAGS and linked with the harness;
 *   4. loop_run(): runs it; its stdout is the harness's JSON result;
 *   5. loop_mca(): the same file compiled to assembly, NAME's innermost loop cut
 *      out and given to llvm-mca, whose prediction is shown beside the
 *      measurement (mca.c);
 *   6. loop_job_close(): removes the directory (unless kept).
 * The compiler is run with posix_spawn and an argv, never a shell.
 */
#ifndef TDPROF_LOOP_LOOP_H
#define TDPROF_LOOP_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"

struct tdp_err;

/* Output of a helper program kept at most (compiler messages, llvm-mca reports). */
#define LOOP_MAX_OUTPUT (16u << 20)

struct loop_job {
	/* in: set by the caller before loop_job_open(); all borrowed */
	const char *file;           /* FILE.c as the user gave it */
	const char *function;       /* NAME */
	char *const *cflags;        /* the user's compiler flags */
	size_t nr_cflags;
	const char *cc;             /* $CC or NULL ("cc"); split on blanks */
	const char *tmp_root;       /* $TMPDIR or NULL ("/tmp") */
	const char *exe_path;       /* this tdprof binary (to tell build tree from install) */
	bool keep;                  /* leave the temporary directory */
	void (*note)(const char *line); /* told each command it runs (NULL: silent) */
	/* out: owned by the job */
	char *abs_file;             /* realpath of file */
	char **cc_argv;             /* the compiler command, split; NULL-terminated */
	size_t nr_cc;
	char *dir;                  /* the temporary directory */
	char *incdir, *lib;         /* the harness's include directory and static library */
	const char *link_extra;     /* sanitizer runtime of a sanitized build, or "" */
	bool returns_void;          /* set by loop_check() */
	char *exe;                  /* the built program (loop_build) */
	char *main_c;               /* the generated source */
};

/** Prepare the job: resolve the file, split $CC, find the harness, make the directory. */
int loop_job_open(struct loop_job *j, struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Check the file and the function. Returns 0; TDP_EUSAGE when FILE.c does not
 * compile (the compiler's output in diag); TDP_ENOENT when NAME is not declared
 * in it; TDP_EUSAGE when NAME cannot be called without arguments (diag holds
 * the compiler's reason); TDP_ECHILD when the compiler cannot be run.
 */
int loop_check(struct loop_job *j, struct strbuf *diag, struct tdp_err *err) __attribute__((warn_unused_result));

/** Generate the main and build the program. Returns 0, or TDP_EUSAGE with the compiler's output in diag. */
int loop_build(struct loop_job *j, struct strbuf *diag, struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Run the program with the harness settings; its stdout (JSON) into out,
 * its wait status into *wstatus. Returns 0 when it ran (whatever its status).
 */
int loop_run(struct loop_job *j, int cpu, long reps, double target_ms, struct strbuf *out, int *wstatus,
	     struct tdp_err *err) __attribute__((warn_unused_result));

/** j->note(the formatted line), when j->note is set (for build.c and mca.c). */
void loop_notef(const struct loop_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** Remove the temporary directory (unless keep) and free the job. */
void loop_job_close(struct loop_job *j);

/**
 * Run argv (argv[0] looked up in PATH), its stdout, and stderr too when
 * with_stderr, into out (at most LOOP_MAX_OUTPUT bytes). *wstatus gets its wait
 * status. Returns 0 when it ran; TDP_ENOCMD when argv[0] was not found;
 * TDP_ECHILD when it could not be started.
 */
int loop_spawn(char *const argv[], bool with_stderr, struct strbuf *out, int *wstatus, struct tdp_err *err)
	__attribute__((warn_unused_result));

/* Programs loop_spawn_many() runs at once, at most. */
#define LOOP_SPAWN_MAX 8

/* One program of loop_spawn_many(). */
struct loop_child {
	char *const *argv;  /* in: argv[0] looked up in PATH */
	bool with_stderr;   /* in: stderr into out too */
	struct strbuf *out; /* in: its output is appended (at most LOOP_MAX_OUTPUT bytes) */
	unsigned timeout_s; /* in, of the first child: all are killed after this long (0: no limit) */
	int wstatus;        /* out: its wait status */
	bool timed_out;     /* out, of the first child: they were killed for it */
};

/**
 * Run the n programs of c at once (1 <= n <= LOOP_SPAWN_MAX), all in one process
 * group (the first's), so that a signal tdprof passes on (base/sigfwd.h) reaches
 * every one; read their outputs as they come and wait for all. All or none: when
 * one cannot be started, those already started are killed. Returns 0 when all ran
 * (whatever their statuses); TDP_ENOCMD (a program not found), TDP_ECHILD (not
 * started, stopped by a signal passed on, or killed after c[0].timeout_s seconds:
 * c[0].timed_out), TDP_EINVAL (n out of range) or TDP_ENOMEM.
 */
int loop_spawn_many(struct loop_child *c, size_t n, struct tdp_err *err) __attribute__((warn_unused_result));

/* ---- mca.c ---- */

/* llvm-mca's prediction for the kernel's hot loop. */
struct loop_mca {
	bool ok;                  /* the fields below are valid */
	char what[96];            /* "loop .L3" or "the whole function (no loop)" */
	size_t nr_insns;          /* instructions in the block given to llvm-mca */
	char mcpu[64];            /* the CPU model llvm-mca used */
	double block_rthroughput; /* cycles per iteration of the block, throughput bound */
	double cycles_per_iter;   /* simulated: Total Cycles / Iterations */
	double ipc, uops_per_cycle;
	double dispatch_width;
	char why_not[256];        /* !ok: why there is no prediction */
};

/** Where the block starts and ends in an assembly text, as line indices. */
struct loop_block {
	size_t first, last;       /* lines [first, last] of the function's text */
	size_t nr_insns;
	bool is_loop;
	char label[64];
};

/**
 * Find the hot loop of function `name` in assembly text buf[0..len): the
 * innermost loop (a backward branch to a label of the same function enclosing
 * no other loop) with the most instructions, else the whole body. Writes the
 * selected lines (labels and instructions, directives dropped) to block_out
 * and its description to *blk. Returns 0, or TDP_ENOENT when the function is
 * not in the text.
 */
int loop_asm_hot_block(const char *buf, size_t len, const char *name, struct strbuf *block_out,
		       struct loop_block *blk) __attribute__((warn_unused_result));

#define LOOP_MCA_MAX_UOPS 10000u /* µops of one instruction, at most (llvm-mca's microcoded ones: ~100) */
#define LOOP_MCA_MAY_LOAD 1u     /* the Instruction Info view's MayLoad column is marked */
#define LOOP_MCA_MAY_STORE 2u    /* its MayStore column */

/**
 * Parse the µop column ([1]) of llvm-mca's Instruction Info view in buf[0..len)
 * (one code region's report) into uops[0..*nr), one per instruction in order,
 * and when mem is not NULL each row's LOOP_MCA_MAY_* flags into mem[0..*nr)
 * (the columns the legend names "MayLoad" and "MayStore"; none without a legend).
 * Returns 0; TDP_EFORMAT (no table, a row without a count, a count above
 * LOOP_MCA_MAX_UOPS); TDP_ELIMIT (more than max rows).
 */
int loop_mca_parse_uops(const char *buf, size_t len, unsigned *uops, uint8_t *mem, size_t max, size_t *nr)
	__attribute__((warn_unused_result));

/** Parse llvm-mca's summary (Iterations, Total Cycles, IPC, Block RThroughput ...) into m. Returns 0 or TDP_EFORMAT. */
int loop_mca_parse(const char *buf, size_t len, struct loop_mca *m) __attribute__((warn_unused_result));

/**
 * Compile the generated main to assembly with the user's flags, cut out the
 * hot block and run llvm-mca on it. Fills *m (m->ok false and why_not when
 * llvm-mca is missing or anything fails: never an error of the command).
 */
void loop_mca(struct loop_job *j, struct loop_mca *m);

#endif
