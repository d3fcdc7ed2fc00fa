/*
 * fuzz.h: what the fuzz targets (fuzz-<parser>.c) and the corpus replayer
 * (main.c) share.
 *
 * A target is one LLVMFuzzerTestOneInput() feeding one parser entry point. It
 * is linked either with libFuzzer (-Dfuzzing_engine=libfuzzer: coverage-guided
 * fuzzing, scripts/fuzz.sh) or with main.c (always: `meson test --suite
 * fuzz-replay` replays the target's corpus, also under ASan and valgrind).
 *
 * Targets check the contracts their parser's header states (a failure carries
 * a message, a result holds its invariants) with FUZZ_CHECK, which aborts: the
 * fuzzer then reports the input as a crash. Allocation failures are injected by
 * the replayer (--oom), so a check must hold on TDP_ENOMEM paths too.
 */
#ifndef TDPROF_TESTS_FUZZ_FUZZ_H
#define TDPROF_TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

struct tdp_err;

/* libFuzzer's entry points (LLVMFuzzerInitialize is optional). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Abort with the failed condition when cond is false. */
#define FUZZ_CHECK(cond) \
	((cond) ? (void)0 : fuzz_fail(__FILE__, __LINE__, #cond))

/** Print where a check failed and abort. */
_Noreturn void fuzz_fail(const char *file, int line, const char *what);

/**
 * Check a parser's return against its error report: ret is 0 or a negative
 * TDP_E* code; on failure err must hold that code and a message. Returns ret.
 * With FUZZ_VERBOSE set in the environment, prints each outcome (triage).
 */
int fuzz_check_ret(int ret, const struct tdp_err *err);

/**
 * A NUL-terminated copy of data[0..size) (tdp_malloc; free with tdp_free), or
 * NULL when the allocation failed (an injected failure: skip the input).
 */
char *fuzz_cstr(const uint8_t *data, size_t size);

/**
 * A fake sysfs tree for the event parser, made once per process in $TMPDIR
 * (removed at exit): core PMU "cpu" (Intel's format fields and a few aliases
 * with .scale/.unit), "msr" and "armv8_pmuv3_0". Returns its root ("/sys" when
 * it cannot be made, so the target still runs).
 */
const char *fuzz_fake_sysfs(void);

#endif
