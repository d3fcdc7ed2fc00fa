/*
 * vglog.h: what valgrind's own log says about a run that went wrong, read so that
 * the user is told the cause instead of being shown an estimate of a run that
 * never did its work.
 *
 * The one case read today: an instruction valgrind cannot execute. valgrind then
 * prints "vex amd64->IR: unhandled instruction bytes: 0x62 0xF2 ..." and
 * "valgrind: Unrecognised instruction at address 0x...", followed by the frame
 * ("at 0x109073: main (avx.c:3)"), and raises SIGILL in the program, which dies
 * of it. The usual cause is a binary built with -march=native on a CPU with
 * AVX-512, which valgrind 3.19 does not simulate: the first byte 0x62 is the
 * EVEX prefix of every AVX-512 instruction in 64-bit mode.
 *
 * The log is untrusted text: lines are bounded, nothing is assumed terminated.
 */
#ifndef TDPROF_SIM_VGLOG_H
#define TDPROF_SIM_VGLOG_H

#include <stdbool.h>
#include <stddef.h>

struct sim_unhandled {
	char bytes[96];   /* "0x62 0xF2 0x7D 0x48 ..." as valgrind printed them */
	char where[160];  /* "main (avx.c:3)", or "" when the log has no frame */
	const char *what; /* static: "an AVX-512 (EVEX) instruction", ... */
};

/**
 * True when log[0..len) reports an instruction valgrind could not execute; u is
 * then filled. False (u untouched) otherwise.
 */
bool sim_log_unhandled(const char *log, size_t len, struct sim_unhandled *u);

#endif
