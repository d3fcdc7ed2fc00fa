/*
 * Unit tests of simcore_model() with llvm-mca (skipped without it): its two runs
 * at once give the same model as one after the other, and an instruction llvm-mca
 * cannot parse (a fake llvm-mca that refuses it, then runs the real one) becomes a
 * nop in both runs of the next round, at most three rounds. The profile is made
 * here: three blocks of this test program's own code (simcore's functions, linked
 * in), at their addresses in this process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/path.h"
#include "base/strbuf.h"
#include "sim/machine.h"
#include "sim/profile.h"
#include "simcore/simcore.h"
#include "symbol/exe.h"

static char dir[] = "/tmp/tdprof-simcore-test-XXXXXX";
static char *real_mca; /* NULL: llvm-mca is not installed */
static struct sim_profile prof;
static struct sim_machine mach;

/* The first n instructions of function fn (ELF addresses), as cost lines of `execs` runs at runtime addresses. */
static void add_block(struct strbuf *sb, struct symbol_exe *x, const char *fn, uintptr_t runtime, size_t n,
		      unsigned execs)
{
	struct symbol_exe_insn insns[16];
	const struct symbol_exe_func *f = symbol_exe_find_func(x, fn);
	struct tdp_err err = TDP_ERR_INIT;
	size_t nr = 0;

	assert_non_null(f);
	assert_true(n <= 16);
	assert_int_equal(symbol_exe_decode(x, f->addr, n, insns, &nr, &err), 0);
	assert_int_equal(nr, n);
	strbuf_addf(sb, "fn=%s\n", fn);
	for (size_t i = 0; i < nr; i++)
		strbuf_addf(sb, "0x%llx 1 %u\n", (unsigned long long)(insns[i].addr - f->addr + runtime),
			    execs);
}

static int setup(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct symbol_exe x;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	if (tdp_find_program("llvm-mca", getenv("PATH"), &real_mca))
		real_mca = NULL;
	if (!mkdtemp(dir))
		return -1;
#if defined(__aarch64__)
	if (sim_machine_preset(&mach, "neoverse-n1", &err))
		return -1;
#else
	if (sim_machine_preset(&mach, "alderlake", &err))
		return -1;
#endif
	/* three blocks: the hottest function gives the load offset (runtime - ELF address) */
	if (symbol_exe_open_code(&x, "/proc/self/exe", &err)) {
		print_error("%s\n", err.msg);
		return -1;
	}
	strbuf_addf(&sb, "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npositions: instr line\n"
			 "events: Ir\nob=/proc/self/exe\nfl=simcore.c\n");
	add_block(&sb, &x, "simcore_load_flags", (uintptr_t)simcore_load_flags, 12, 1000);
	add_block(&sb, &x, "simcore_mca_text", (uintptr_t)simcore_mca_text, 10, 700);
	add_block(&sb, &x, "simcore_model", (uintptr_t)simcore_model, 8, 500);
	strbuf_addf(&sb, "totals: %u\n", 12 * 1000 + 10 * 700 + 8 * 500);
	symbol_exe_close(&x);
	sim_profile_init(&prof);
	if (strbuf_failed(&sb) || sim_callgrind_parse(&prof, (const uint8_t *)sb.buf, sb.len, "test", &err)) {
		print_error("cannot parse the profile: %s\n", err.msg);
		return -1;
	}
	strbuf_release(&sb);
	return 0;
}

static int teardown(void **state)
{
	char path[256];

	(void)state;
	sim_profile_release(&prof);
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, i ? "log" : "llvm-mca");
		unlink(path);
	}
	rmdir(dir);
	tdp_free(real_mca);
	return 0;
}

static void model(const struct simcore_opts *o, struct sim_core *out)
{
	struct tdp_err err = TDP_ERR_INIT;

	assert_int_equal(simcore_model(&prof, &mach, o, out, &err), 0);
}

static void test_at_once_as_one_after_the_other(void **state)
{
	struct simcore_opts o = { .tmpdir = dir };
	struct sim_core a, b;

	(void)state;
	if (!real_mca)
		skip();
	o.sequential = true;
	model(&o, &a);
	o.sequential = false;
	model(&o, &b);
	assert_true(a.valid);
	assert_true(b.valid);
	assert_int_equal(a.nr_blocks, 3);
	assert_int_equal(a.nr_insns, 12 + 10 + 8);
	assert_int_equal(b.nr_insns, a.nr_insns);
	assert_int_equal(b.nr_blocks, a.nr_blocks);
	assert_true(a.core_cycles == b.core_cycles && a.fetch_cycles == b.fetch_cycles && a.uops == b.uops);
	for (size_t i = 0; i < a.nr_insns; i++) {
		assert_int_equal(a.insns[i].addr, b.insns[i].addr);
		assert_int_equal(a.insns[i].flags, b.insns[i].flags);
		assert_true(a.insns[i].uops == b.insns[i].uops);
		assert_true(a.insns[i].stall == b.insns[i].stall);
		assert_true(a.insns[i].fetch == b.insns[i].fetch);
	}
	sim_core_release(&a);
	sim_core_release(&b);
}

/*
 * A fake llvm-mca: logs its -iterations and the first instruction of each region,
 * and fails like llvm-mca on the first instruction of the input that is not a nop
 * (mode "once": only on line 4, the first region's first) before running the real one.
 */
static void make_fake(const char *mode, char *path, size_t size)
{
	static const char script[] =
		"#!/usr/bin/env python3\n"
		"import os, sys\n"
		"src = sys.argv[-1]\n"
		"lines = open(src).read().split('\\n')\n"
		"it = [a for a in sys.argv if a.startswith('-iterations=')][0].split('=')[1]\n"
		"with open('%s/log', 'a') as f:\n"
		"    f.write(it + ' ' + lines[3] + '\\n')\n"
		"bad = [i for i, l in enumerate(lines) if l and not l.startswith(('#', '.')) and l != 'nop']\n"
		"if '%s' == 'once':\n"
		"    bad = [i for i in bad if i == 3]\n"
		"if bad:\n"
		"    sys.stderr.write('%%s:%%d:1: error: invalid instruction mnemonic\\n' %% (src, bad[0] + 1))\n"
		"    sys.exit(1)\n"
		"os.execv('%s', ['llvm-mca'] + sys.argv[1:])\n";
	char log[256];
	FILE *f;

	snprintf(path, size, "%s/llvm-mca", dir);
	snprintf(log, sizeof(log), "%s/log", dir);
	unlink(log);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, script, dir, mode, real_mca);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, 0700), 0);
}

/* The fake's log: one line per run, "ITERATIONS FIRST-INSTRUCTION". */
static size_t read_log(char lines[8][256])
{
	char path[256];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/log", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (n < 8 && fgets(lines[n], 256, f))
		n++;
	fclose(f);
	return n;
}

static void test_parse_error_retries_both(void **state)
{
	char fake[256], log[8][256], first[256];
	struct simcore_opts o = { .tmpdir = dir, .llvm_mca = fake };
	struct sim_core c;
	size_t n, nops = 0;

	(void)state;
	if (!real_mca || access("/usr/bin/python3", X_OK))
		skip();
	make_fake("once", fake, sizeof(fake));
	model(&o, &c);
	assert_true(c.valid);
	assert_int_equal(c.nr_blocks, 3);
	/* round 1: both runs saw the instruction and failed; round 2: both saw a nop and ran */
	n = read_log(log);
	assert_int_equal(n, 4);
	snprintf(first, sizeof(first), "%s", strchr(log[0], ' ') + 1);
	assert_string_not_equal(first, "nop\n");
	for (size_t i = 0; i < n; i++)
		nops += !strcmp(strchr(log[i], ' ') + 1, "nop\n");
	assert_int_equal(nops, 2);
	assert_string_equal(strchr(log[0], ' ') + 1, strchr(log[1], ' ') + 1);
	assert_string_equal(strchr(log[2], ' ') + 1, "nop\n");
	assert_string_equal(strchr(log[3], ' ') + 1, "nop\n");
	/* the two iteration counts in each round */
	assert_int_not_equal(strtol(log[0], NULL, 10), strtol(log[1], NULL, 10));
	assert_int_equal(strtol(log[0], NULL, 10) + strtol(log[1], NULL, 10),
			 strtol(log[2], NULL, 10) + strtol(log[3], NULL, 10));
	sim_core_release(&c);

	/* an error in every round: three rounds (six runs), then no model, and why */
	make_fake("always", fake, sizeof(fake));
	model(&o, &c);
	assert_false(c.valid);
	assert_non_null(strstr(c.why_not, "llvm-mca failed"));
	assert_non_null(strstr(c.why_not, "invalid instruction"));
	assert_int_equal(read_log(log), 6);
	sim_core_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_at_once_as_one_after_the_other),
		cmocka_unit_test(test_parse_error_retries_both),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
