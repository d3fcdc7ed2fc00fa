/*
 * runner.h: run a workload once under valgrind, with tdprof's own tool (vgtool/,
 * tdpsim: the machine of mach.h) where it was built, else cachegrind (per line) or
 * callgrind (per instruction) with our machine's caches and branch simulation, and
 * parse what it recorded.
 *
 * tdprof's tool is loaded through a private VALGRIND_LIB: the private directory
 * holds links to the system's valgrind files and to the tool (vglib.c); the
 * machine goes to it as --tdp-* options (sim_machine_tool_args()). r->tool says
 * which tool ran.
 *
 * valgrind is started with posix_spawn and an argv (never a shell string). The
 * workload's stdin, stdout and stderr are this process's; valgrind's own messages go
 * to a log file that is read only to explain a failure. The cost files and the log
 * live in a private directory (mkdtemp) that is removed before sim_run() returns.
 * The cache geometry is always passed (--I1 --D1 --LL): valgrind would otherwise
 * take the host's, and a VM may report anything (this one says 512 MiB of LLC).
 *
 * Lifecycle:
 *   1. struct sim_run_opts o = SIM_RUN_OPTS_INIT; o.argv = ...; o.machine = &m; ...
 *   2. struct sim_profile p; sim_profile_init(&p);
 *   3. sim_run(&o, &p, &r, &err); the workload's status is r.status
 *   4. sim_estimate(&p, ...) (cost.h), sim_profile_release(&p).
 *
 * While valgrind runs, SIGINT and SIGQUIT are ignored in this process (as system()
 * does) so that Ctrl-C stops the workload and still lets us clean up; the child
 * gets them with their default action.
 */
#ifndef TDPROF_SIM_RUNNER_H
#define TDPROF_SIM_RUNNER_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/machine.h"
#include "sim/profile.h"

struct tdp_err;

#define SIM_MAX_COST_FILES 256 /* cost files merged from one run (the workload's children) */
#define SIM_MAX_LOG 65536      /* bytes of valgrind's log read to explain a failure */

enum sim_tool {
	SIM_TOOL_CACHEGRIND = 0, /* per source line (file, function, line); the faster */
	SIM_TOOL_CALLGRIND,      /* per instruction (--dump-instr=yes): adds addresses, ~3x slower */
	SIM_TOOL_TDPSIM,         /* tdprof's own tool (vgtool/): per instruction, three cache levels,
				  * prefetchers, overlapping misses, a modern predictor, a BTB */
};

/** The tool's name ("cachegrind", "callgrind", "tdpsim"). */
const char *sim_tool_name(enum sim_tool t);

/** True when tdprof's own tool (vgtool/) was built and is where the runner looks for it. */
bool sim_tdpsim_available(void);

struct sim_run_opts {
	char *const *argv;      /* the workload, NULL-terminated; argv[0] is looked up in `path`
				 * as execvp would (borrowed) */
	char *const *envp;      /* its environment; NULL: this process's (borrowed) */
	const char *path;       /* PATH used to find valgrind and argv[0] (the caller reads the
				 * environment); NULL: "/usr/local/bin:/usr/bin:/bin" */
	const char *valgrind;   /* valgrind to run: a path, or a name looked up in `path`;
				 * NULL: "valgrind" */
	const char *tmpdir;     /* where the private directory is made; NULL: "/tmp" */
	enum sim_tool tool;     /* what is wanted: CACHEGRIND (per line) or CALLGRIND (per
				 * instruction); tdprof's tool replaces either when it is available,
				 * unless valgrind_only */
	bool valgrind_only;     /* never use tdprof's tool (vgtool/) */
	bool no_children;       /* do not follow children (--trace-children=no); by default
				 * every process the workload starts is simulated and merged */
	const struct sim_machine *machine; /* required, valid (sim_machine_validate) */
};

#define SIM_RUN_OPTS_INIT { NULL, NULL, NULL, NULL, NULL, SIM_TOOL_CACHEGRIND, false, false, NULL }

struct sim_run_result {
	bool ran;         /* valgrind was started (the fields below are meaningful) */
	int status;       /* the workload's exit status, or 128 + N when signal N ended it */
	bool signaled;    /* signal N ended it (status is 128 + N) */
	int signo;
	double wall_ns;   /* how long valgrind ran */
	size_t nr_files;  /* cost files merged (1 + the children that were simulated) */
	enum sim_tool tool; /* the tool that ran */
};

/**
 * Run o->argv under valgrind and merge its cost files into p (sim_profile_init'ed
 * by the caller; costs are added to what it holds). Blocks until the workload ends.
 * Returns 0 when the workload ran and its costs were read, whatever its own exit
 * status or signal (r->status); otherwise:
 *   TDP_ENOTSUP  valgrind is not installed (the hint gives the apt-get command);
 *   TDP_ENOCMD   argv[0] was not found; TDP_ENOEXEC: it is not executable;
 *   TDP_ECHILD   valgrind failed or left no cost file (the message quotes its log);
 *   TDP_EIO      the private directory could not be made or read;
 *   TDP_EFORMAT / TDP_ELIMIT  a cost file did not parse (see profile.h);
 *   TDP_EINVAL   bad options (no argv, no machine);  TDP_ENOMEM.
 * r (may not be NULL) is filled as far as the run got (r->ran tells whether
 * valgrind started). The private directory is gone on every return.
 */
int sim_run(const struct sim_run_opts *o, struct sim_profile *p, struct sim_run_result *r,
	    struct tdp_err *err) __attribute__((warn_unused_result));


#endif
