/*
 * exitcode.h: every exit status tdprof returns is decided here (design.md):
 *   0        success
 *   N        the workload's own exit status, when a workload ran
 *   128+N    the workload died of signal N (as a shell reports it)
 *   126      the workload exists but cannot be executed
 *   127      the workload was not found
 *   1        analysis failure
 *   2        usage error or bad input
 * The numbers never change.
 */
#ifndef TDPROF_CLI_EXITCODE_H
#define TDPROF_CLI_EXITCODE_H

enum {
	EXIT_OK = 0,
	EXIT_ANALYSIS = 1,
	EXIT_USAGE = 2,
	EXIT_NOEXEC = 126,
	EXIT_NOTFOUND = 127,
	EXIT_SIGNAL_BASE = 128,
};

/** Exit status for a failure code (TDP_E*): 2 for usage and bad input, 1 otherwise. */
int exitcode_from_err(int code);

/** Exit status for a workload's wait() status: its exit code, or 128+signal. */
int exitcode_from_wait(int wstatus);

/** Exit status of a command stopped by signal sig (passed on to its child): 128+sig. */
int exitcode_signal(int sig);

#endif
