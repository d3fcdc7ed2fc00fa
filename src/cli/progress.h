/*
 * progress.h: a live progress line on standard error for long work (a simulated
 * run under valgrind, a big recording read, a drill-down rerun): what is running
 * and for how long, updated in place about four times a second, gone when done.
 *
 * Shown only when main() allowed it (progress_allow(): stderr is a terminal that
 * is not "dumb", and no --quiet), and only once the work has lasted
 * PROGRESS_DELAY_MS, so that quick work prints nothing. It goes to stderr only:
 * never into a JSON, CSV or text result (stdout or -o).
 *
 * Two ways to draw it:
 *   - alone (shared false): the line is redrawn with "\r" and erased to its end;
 *     a message (msg.h) erases it first and it comes back at the next update;
 *   - beside a child that writes to the same terminal (shared true: the workload
 *     under valgrind, a rerun): the terminal's last row is kept for the line (a
 *     scrolling region, as apt's progress bar does), so the workload's own output
 *     scrolls above it untouched; each update is one write() that saves the
 *     cursor, draws the last row and restores the cursor, so it never lands in the
 *     middle of the workload's lines. The row is given back when done.
 *
 * Usage (one at a time; progress_begin() while one runs replaces its text):
 *   progress_begin(true, "simulating %s under valgrind", cmd);
 *   ... the long call ...
 *   progress_end();
 * The line lives in this file's state, as --quiet lives in msg.c: both are
 * properties of the process's stderr, set once in main().
 */
#ifndef TDPROF_CLI_PROGRESS_H
#define TDPROF_CLI_PROGRESS_H

#include <stdbool.h>

#define PROGRESS_DELAY_MS 300   /* quicker work shows no line */
#define PROGRESS_PERIOD_MS 250  /* between updates */

/** main(): whether stderr may carry a live line (a terminal, not TERM=dumb, not --quiet). */
void progress_allow(bool allow);

/** Start showing what is running (printf-style; cut to the terminal's width). */
void progress_begin(bool shared, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** Stop and erase the line (nothing when none was shown). */
void progress_end(void);

/* For msg.c: take the line off the screen before a message, and let it come back. */
void progress_hold(void);
void progress_release(void);

#endif
