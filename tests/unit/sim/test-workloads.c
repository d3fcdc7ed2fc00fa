/*
 * Validation of the simulated backend on real programs (the C files of tests/data/sim/),
 * compiled here with `cc -O1 -g -fno-if-conversion -fno-if-conversion2` and run
 * under valgrind: each must land in the level-1 bucket its design forces, and its
 * top site for that bucket must be the line marked in its source (found by
 * reading the source, not written here). Skips (77) without valgrind or cc.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/path.h"
#include "sim/cost.h"
#include "sim/runner.h"

extern char **environ;

static char tmp[] = "/tmp/tdprof-test-workloads-XXXXXX";
static char srcdir[4096];

/* Run argv (looked up in PATH) with stdout to out_path (NULL: inherited); returns its exit status. */
static int spawn(char *const *argv, const char *out_path)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st, rc;

	posix_spawn_file_actions_init(&fa);
	if (out_path)
		posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return -1;
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void compile(const char *name, char *bin, size_t size)
{
	char src[8192];
	const char *cc = getenv("CC") && !strstr(getenv("CC"), " ") ? getenv("CC") : "cc";
	char *argv[] = { (char *)cc, "-O1", "-g", "-fno-if-conversion", "-fno-if-conversion2", "-o", bin, src, NULL };

	snprintf(src, sizeof(src), "%s/%s.c", srcdir, name);
	snprintf(bin, size, "%s/%s", tmp, name);
	if (spawn(argv, NULL) != 0)
		fail_msg("cannot compile '%s' with %s", src, cc);
}

/* The line of tests/data/sim/<name>.c that carries `marker`. */
static uint64_t marked_line(const char *name, const char *marker)
{
	char path[8192], line[512];
	uint64_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.c", srcdir, name);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, marker)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	fail_msg("no '%s' in %s", marker, path);
	return 0;
}

/* The value of `#define name N` or `#define name (A << B)` in tests/data/sim/<prog>.c:
 * the counts the tests expect derive from the programs' own sizes. */
static unsigned long source_define(const char *prog, const char *name)
{
	char path[8192], line[512];
	size_t len = strlen(name);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.c", srcdir, prog);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		const char *v = line + 8;
		unsigned long a, b;

		if (strncmp(line, "#define ", 8) != 0 || strncmp(v, name, len) != 0 || (v[len] != ' ' && v[len] != '\t'))
			continue;
		fclose(f);
		if (sscanf(v + len, " (%lu << %lu)", &a, &b) == 2)
			return a << b;
		if (sscanf(v + len, " %lu", &a) == 1)
			return a;
		fail_msg("#define %s in %s: not a number nor (A << B)", name, path);
	}
	fclose(f);
	fail_msg("no #define %s in %s", name, path);
	return 0;
}

struct result {
	struct sim_profile p;
	struct sim_estimate est;
	struct sim_site *sites;
	size_t nr;
};

static void simulate(const char *bin, const char *arg, const char *machine, enum sim_tool tool, struct result *res)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct sim_run_opts o = SIM_RUN_OPTS_INIT;
	struct sim_run_result r;
	struct sim_machine m;
	char *argv[] = { (char *)bin, (char *)arg, NULL };
	FILE *devnull;
	int saved;

	assert_int_equal(sim_machine_parse(&m, machine, &err), 0);
	o.argv = argv;
	o.machine = &m;
	o.path = getenv("PATH");
	o.tmpdir = tmp;
	o.tool = tool;
	/* valgrind's own tools when asked for by name: tdprof's tool is asked for as such */
	o.valgrind_only = tool != SIM_TOOL_TDPSIM;
	sim_profile_init(&res->p);
	/* The workloads print a checksum: keep it out of the test log. */
	fflush(stdout);
	saved = dup(1);
	devnull = fopen("/dev/null", "w");
	dup2(fileno(devnull), 1);
	if (sim_run(&o, &res->p, &r, &err)) {
		dup2(saved, 1);
		fail_msg("%s: %s", bin, err.msg);
	}
	dup2(saved, 1);
	close(saved);
	fclose(devnull);
	assert_int_equal(r.status, 0);
	if (sim_estimate(&res->p, &m, &res->est, &err))
		fail_msg("%s: %s", bin, err.msg);
	assert_int_equal(sim_sites_build(&res->p, &m, &res->sites, &res->nr, &err), 0);
	sim_sites_sort(res->sites, res->nr, res->est.dominant);
	printf("# %-8s %-7s %-12s retiring %5.1f  bad_spec %5.1f  frontend %5.1f  backend %5.1f  -> %s, top %s:%llu\n",
	       strrchr(bin, '/') + 1, arg ? arg : "", machine, res->est.topdown.retiring,
	       res->est.topdown.bad_speculation, res->est.topdown.frontend_bound, res->est.topdown.backend_bound,
	       sim_bucket_name(res->est.dominant), sim_profile_name(&res->p, res->sites[0].file),
	       (unsigned long long)res->sites[0].line);
}

static void release(struct result *res)
{
	sim_sites_free(res->sites);
	sim_profile_release(&res->p);
}

/* The top site is <name>.c at the marked line. */
static void expect_top(const struct result *res, const char *name, const char *marker)
{
	const char *file = sim_profile_name(&res->p, res->sites[0].file);
	char want[64];

	snprintf(want, sizeof(want), "/%s.c", name);
	if (!strstr(file, want) || res->sites[0].line != marked_line(name, marker))
		fail_msg("top site %s:%llu, want %s.c:%llu (%s)", file, (unsigned long long)res->sites[0].line, name,
			 (unsigned long long)marked_line(name, marker), marker);
}

static void test_branch(void **state)
{
	struct result res;
	char bin[4096];
	unsigned long execs;

	(void)state;
	compile("branch", bin, sizeof(bin));
	simulate(bin, "random", "generic", SIM_TOOL_CACHEGRIND, &res);
	assert_int_equal(res.est.dominant, SIM_BAD_SPECULATION);
	assert_true(res.est.topdown.bad_speculation > 50);
	expect_top(&res, "branch", "BRANCH-LINE");
	/* About half of the N * PASSES executions of the `if` (1 MiB * 3) mispredict. */
	execs = source_define("branch", "N") * source_define("branch", "PASSES");
	assert_true(sim_site_mispredicts(&res.sites[0]) > execs / 3);
	release(&res);

	/* The same loop on sorted data: predicted, so the instructions dominate. */
	simulate(bin, "sorted", "generic", SIM_TOOL_CACHEGRIND, &res);
	assert_int_equal(res.est.dominant, SIM_RETIRING);
	assert_true(res.est.topdown.bad_speculation < 5);
	release(&res);

	/* tdprof's tool: its TAGE cannot learn 1 MiB of random outcomes (far beyond its tables),
	 * and a third of each mispredict is a resteer (Frontend): still Bad Speculation, at its line */
	if (sim_tdpsim_available()) {
		simulate(bin, "random", "generic", SIM_TOOL_TDPSIM, &res);
		assert_int_equal(res.est.dominant, SIM_BAD_SPECULATION);
		assert_true(res.est.topdown.bad_speculation > 30);
		expect_top(&res, "branch", "BRANCH-LINE");
		release(&res);
		simulate(bin, "sorted", "generic", SIM_TOOL_TDPSIM, &res);
		assert_int_equal(res.est.dominant, SIM_RETIRING);
		assert_true(res.est.topdown.bad_speculation < 5);
		release(&res);
	}

	/* Every preset agrees on the random loop. */
	{
		const struct sim_machine_preset *p;
		size_t nr;

		p = sim_machine_presets(&nr);
		for (size_t i = 1; i < nr; i++) {
			simulate(bin, "random", p[i].name, SIM_TOOL_CACHEGRIND, &res);
			assert_int_equal(res.est.dominant, SIM_BAD_SPECULATION);
			expect_top(&res, "branch", "BRANCH-LINE");
			release(&res);
		}
	}
}

static void test_branch_address(void **state)
{
	char bin[4096], out[4096], start[64], stop[64], line[512];
	char *objdump[] = { "objdump", "-d", "--no-show-raw-insn", start, stop, bin, NULL };
	struct result res;
	bool found = false;
	FILE *f;

	(void)state;
	compile("branch", bin, sizeof(bin));
	simulate(bin, "random", "generic", SIM_TOOL_CALLGRIND, &res);
	assert_int_equal(res.est.dominant, SIM_BAD_SPECULATION);
	expect_top(&res, "branch", "BRANCH-LINE");
	assert_true(res.sites[0].branch_addr != 0);
	assert_true(res.sites[0].execs == source_define("branch", "N") * source_define("branch", "PASSES"));
	/* The address is the conditional jump of the `if` (objdump agrees), not a cmov. */
	snprintf(start, sizeof(start), "--start-address=0x%llx", (unsigned long long)res.sites[0].branch_addr);
	snprintf(stop, sizeof(stop), "--stop-address=0x%llx", (unsigned long long)res.sites[0].branch_addr + 16);
	snprintf(out, sizeof(out), "%s/objdump.txt", tmp);
	if (spawn(objdump, out) != 0) {
		release(&res);
		skip();
	}
	f = fopen(out, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!found && colon && colon[1] == '\t' && strtoull(line, NULL, 16) == res.sites[0].branch_addr) {
			printf("# branch at %s", line);
			assert_true(colon[2] == 'j' && strncmp(colon + 2, "jmp", 3) != 0);
			found = true;
		}
	}
	fclose(f);
	unlink(out);
	assert_true(found);
	release(&res);
}

static void test_chase(void **state)
{
	struct result res;
	char bin[4096];

	(void)state;
	compile("chase", bin, sizeof(bin));
	simulate(bin, NULL, "generic", SIM_TOOL_CACHEGRIND, &res);
	assert_int_equal(res.est.dominant, SIM_BACKEND_BOUND);
	assert_true(res.est.topdown.backend_bound > 50);
	expect_top(&res, "chase", "CHASE-LINE");
	/* Every one of the 3 Mi steps misses the 32 MiB LL (the list is 64 MiB). */
	assert_true(res.sites[0].cost.v[SIM_DLMR] > (3u << 20) * 9 / 10);
	assert_false(res.sites[0].stream);
	release(&res);
	if (sim_tdpsim_available()) {
		/* tdprof's tool: the same misses, each waiting for the one before (a chase) */
		simulate(bin, NULL, "generic", SIM_TOOL_TDPSIM, &res);
		assert_int_equal(res.est.dominant, SIM_BACKEND_BOUND);
		assert_true(res.est.topdown.backend_bound > 80);
		expect_top(&res, "chase", "CHASE-LINE");
		assert_true(res.sites[0].cost.v[SIM_DLMR] > (3u << 20) * 9 / 10);
		assert_true(res.sites[0].cost.v[SIM_DDEP] > (3u << 20) * 9 / 10);
		assert_true(res.sites[0].chase);
		assert_true(res.est.topdown.dram_bound > 80);
		release(&res);
	}
}

static void test_arith(void **state)
{
	struct result res;
	char bin[4096];

	(void)state;
	compile("arith", bin, sizeof(bin));
	simulate(bin, NULL, "generic", SIM_TOOL_CACHEGRIND, &res);
	assert_int_equal(res.est.dominant, SIM_RETIRING);
	assert_true(res.est.topdown.retiring > 50);
	release(&res);
}

static void test_interp(void **state)
{
	struct result res;
	char bin[4096];
	unsigned long execs;

	(void)state;
	compile("interp", bin, sizeof(bin));
	simulate(bin, NULL, "generic", SIM_TOOL_CACHEGRIND, &res);
	assert_int_equal(res.est.dominant, SIM_BAD_SPECULATION);
	expect_top(&res, "interp", "DISPATCH-LINE");
	/* The jump table's indirect jump runs for 7 opcodes in 8 (gcc sends the last
	 * case straight to `default`): ~PROG * RUNS * 7/8 (256 Ki * 5 * 7/8); most of
	 * them mispredict. */
	execs = source_define("interp", "PROG") * source_define("interp", "RUNS");
	assert_true(res.sites[0].cost.v[SIM_BI] >= execs * 3 / 4);
	assert_true(res.sites[0].cost.v[SIM_BIM] > res.sites[0].cost.v[SIM_BI] / 2);
	release(&res);
}

static void test_bigcode(void **state)
{
	struct result res;
	char bin[4096];

	(void)state;
	compile("bigcode", bin, sizeof(bin));
	simulate(bin, NULL, "generic", SIM_TOOL_CACHEGRIND, &res);
	assert_int_equal(res.est.dominant, SIM_FRONTEND_BOUND);
	assert_true(res.est.topdown.frontend_bound > 50);
	expect_top(&res, "bigcode", "CALLS-LINE");
	release(&res);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	DIR *d = opendir(tmp);
	struct dirent *de;

	(void)state;
	while (d && (de = readdir(d))) {
		char path[8192];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmp, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	return rmdir(tmp);
}

int main(void)
{
	const char *root = getenv("TDPROF_SOURCE_ROOT");
	char *argv[] = { "cc", "--version", NULL };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_branch),
		cmocka_unit_test(test_branch_address),
		cmocka_unit_test(test_chase),
		cmocka_unit_test(test_arith),
		cmocka_unit_test(test_interp),
		cmocka_unit_test(test_bigcode),
	};
	char *vg = NULL;

	snprintf(srcdir, sizeof(srcdir), "%s/tests/data/sim", root ? root : ".");
	if (tdp_find_program("valgrind", getenv("PATH"), &vg)) {
		printf("skipped: valgrind is not installed\n");
		return 77;
	}
	tdp_free(vg);
	if (spawn(argv, "/dev/null") != 0) {
		printf("skipped: no C compiler 'cc'\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
