/*
 * cmd-selftest.c: `tdprof selftest`: run the demo workloads of examples/ (each with
 * a known bottleneck) through the diagnosis of `tdprof why` on the current backend
 * and check that each lands in its bucket.
 *
 * Where the examples are: next to the binary in a build tree
 * (DIR/examples/<dir>/demo-<name>, DIR the directory of tdprof), else where
 * `meson install` puts them (DIR/../libexec/tdprof/examples/demo-<name>), or under
 * --examples DIR (DIR/<dir>/demo-<name> or DIR/demo-<name>).
 */
#include "cli/backend.h"
#include "cli/cmd.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/opts.h"
#include "cli/output.h"
#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "diagnose/diagnose.h"
#include "model/model.h"
#include "report/selftest.h"

#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char cmd_selftest_summary[] = "run the demo workloads and check that each lands in its expected bucket";

static const struct cmd_doc doc = {
	.name = "selftest",
	.summary = cmd_selftest_summary,
	.usage = "selftest [--backend=auto|pmu|sim] [--sim-machine M] [--examples DIR] [--json] [-o FILE]",
	.description =
		"Runs each demo workload of examples/ once, diagnoses it as 'tdprof why' does on the current "
		"backend, and checks that the verdict is the bucket the workload was written for: the random "
		"branch and the interpreter's dispatch are Bad Speculation, the pointer chase Backend Bound, the "
		"large code footprint Frontend Bound, the sorted branch Retiring and the L1-resident hash loop, "
		"one serial chain, Backend Bound (Retiring in a simulation without llvm-mca's block model). It "
		"prints one row per example (expected, got, the figure that decided it, pass or FAIL) and exits "
		"1 when any example misses.\n"
		"\n"
		"The examples are looked for next to tdprof in a build tree (build/examples/<name>/demo-<name>), "
		"then where 'make install' puts them (PREFIX/libexec/tdprof/examples), or in --examples DIR. "
		"Without a PMU the simulated backend runs them under valgrind (about 10 s in all), and every "
		"figure is an estimate.",
	.examples = "tdprof selftest\n"
		    "check the examples on this machine's backend\n"
		    "tdprof selftest --backend=sim --json\n"
		    "the simulated backend, as CI runs it, as one JSON document",
	.exit_status = "0: every example landed in its bucket. 1: an example missed, or could not be run or "
		       "analysed. 2: a usage error, or the examples were not found.",
	.see_also = "tdprof-why(1)",
};

struct example {
	const char *name;      /* the row's name */
	const char *dir;       /* examples/<dir>/ */
	const char *binary;    /* demo-<dir> */
	const char *arg;       /* its argument, or NULL */
	const char *expected;  /* the level-1 key */
	const char *expected_plain; /* the simulation without its block model (no llvm-mca), when it differs */
};

static const struct example examples[] = {
	{ "branch-random", "branch", "demo-branch", NULL, "bad_speculation", NULL },
	{ "branch-sorted", "branch", "demo-branch", "sorted", "retiring", NULL },
	{ "interp", "interp", "demo-interp", NULL, "bad_speculation", NULL },
	{ "chase", "chase", "demo-chase", NULL, "backend_bound", NULL },
	{ "bigcode", "bigcode", "demo-bigcode", NULL, "frontend_bound", NULL },
	/* one serial chain (xor, multiply, shift, add): Core Bound on a core, and in the block model; the
	 * plain simulation (one µop per instruction at full width) cannot see chains */
	{ "arith", "arith", "demo-arith", NULL, "backend_bound", "retiring" },
};

#define NR_EXAMPLES (sizeof(examples) / sizeof(examples[0]))

struct outcome {
	char path[4096];
	const char *got;     /* level-1 key, NULL: not analysed */
	const char *expected; /* the level-1 key it should be (judge()) */
	double got_value;    /* its share of slots */
	double expected_value;
	int status;          /* the run's exit status (0 expected) */
	bool pass;
	char error[TDP_ERR_MSG_MAX];
};

static bool executable(const char *path)
{
	return access(path, X_OK) == 0;
}

/* Find example e: under `dir` (--examples), else next to the binary, else in the install prefix. */
static bool try_path(char *out, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Format a candidate path into out; true when it fits and names an executable. */
static bool try_path(char *out, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, size, fmt, ap);
	va_end(ap);
	return n > 0 && (size_t)n < size && executable(out);
}

/* Find example e: under `dir` (--examples), else next to the binary, else in the install prefix. */
static bool find_example(const struct example *e, const char *dir, const char *exe_path, char *out, size_t size)
{
	const char *slash;
	int base;

	if (dir)
		return try_path(out, size, "%s/%s/%s", dir, e->dir, e->binary) ||
		       try_path(out, size, "%s/%s", dir, e->binary);
	if (!exe_path || !(slash = strrchr(exe_path, '/')))
		return false;
	base = (int)(slash - exe_path);
	return try_path(out, size, "%.*s/examples/%s/%s", base, exe_path, e->dir, e->binary) ||
	       try_path(out, size, "%.*s/../libexec/tdprof/examples/%s", base, exe_path, e->binary);
}

/* Run fn with the workload's stdout on /dev/null (the table is the output). */
static int quiet_stdout(void)
{
	int saved, null;

	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (saved < 0 || null < 0 || dup2(null, STDOUT_FILENO) < 0) {
		if (saved >= 0)
			close(saved);
		saved = -1;
	}
	if (null >= 0)
		close(null);
	return saved;
}

static void restore_stdout(int saved)
{
	if (saved >= 0) {
		dup2(saved, STDOUT_FILENO);
		close(saved);
	}
}

/*
 * The example's bucket is the largest of level 1 (the verdict may name a smaller stall over its
 * threshold: the sorted branch's loop is mostly Retiring with its taken branches' Fetch Bandwidth
 * flagged).
 */
static void judge(struct outcome *o, const struct example *e, const struct diag *d)
{
	const struct metric_node *got = NULL, *want, *core = metric_tree_find(&d->tree, "core_bound");
	const char *expected = e->expected;

	for (size_t i = 0; i < d->tree.nr; i++) {
		const struct metric_node *n = &d->tree.v[i];

		if (n->level == 1 && !n->extra && !isnan(n->value) && (!got || n->value > got->value))
			got = n;
	}
	if (e->expected_plain && d->backend == BACKEND_SIM && (!core || isnan(core->value)))
		expected = e->expected_plain;
	o->got = got ? got->key : NULL;
	o->expected = expected;
	want = metric_tree_find(&d->tree, expected);
	o->got_value = got ? got->value : NAN;
	o->expected_value = want ? want->value : NAN;
	o->pass = o->got && !strcmp(o->got, expected) && o->status == 0;
}

static void run_one(const struct example *e, enum tdp_backend b, const char *machine, struct outcome *o)
{
	char *argv[3] = { o->path, (char *)e->arg, NULL };
	struct diag d;
	struct diag_opts dop = { .exe = o->path, .level = 2, .top = 5 };
	struct tdp_err err = TDP_ERR_INIT;
	int saved, rc;

	diag_init(&d);
	msg_progress("selftest: %s (%s%s%s)", e->name, e->binary, e->arg ? " " : "", e->arg ? e->arg : "");
	if (b == BACKEND_SIM) {
		struct measure_sim s;

		measure_sim_init(&s);
		rc = backend_sim_machine("selftest", machine, &s.machine);
		s.per_insn = true; /* the block model, as why runs it */
		saved = quiet_stdout();
		if (!rc)
			rc = backend_sim_run(argv, &s);
		restore_stdout(saved);
		o->status = rc ? rc : s.run.status;
		if (!rc && !s.have_est)
			snprintf(o->error, sizeof(o->error), "no estimate");
		else if (!rc && diag_from_sim(&d, &s.profile, &s.machine, &s.est, &dop, &err))
			snprintf(o->error, sizeof(o->error), "%s", err.msg);
		else if (rc)
			snprintf(o->error, sizeof(o->error), "the run failed (exit %d)", rc);
		measure_sim_release(&s);
	} else {
		struct measure_pmu p;

		measure_pmu_init(&p);
		saved = quiet_stdout();
		rc = backend_pmu_run(argv, 2, &p);
		restore_stdout(saved);
		o->status = rc ? rc : p.res.workload_ran ? exitcode_from_wait(p.res.wstatus) : 0;
		if (rc)
			snprintf(o->error, sizeof(o->error), "the run failed (exit %d)", rc);
		else if (diag_from_counts(&d, BACKEND_PMU, &p.res.counts, &p.tree, &dop, &err))
			snprintf(o->error, sizeof(o->error), "%s", err.msg);
		measure_pmu_release(&p);
	}
	if (!o->error[0])
		judge(o, e, &d);
	else if (o->status == 0)
		o->status = EXIT_ANALYSIS;
	diag_release(&d);
}

/* The document of the outcomes (rows: NR_EXAMPLES of them, filled here). */
static void make_report(enum tdp_backend b, const struct outcome *o, size_t passed, struct selftest_row *rows,
			struct selftest_report *r)
{
	for (size_t i = 0; i < NR_EXAMPLES; i++)
		rows[i] = (struct selftest_row){
			.name = examples[i].name, .path = o[i].path, .args = examples[i].arg,
			.expected = o[i].expected ? o[i].expected : examples[i].expected,
			.expected_label = model_node_label(o[i].expected ? o[i].expected : examples[i].expected),
			.got = o[i].got, .expected_pct = o[i].expected_value, .got_pct = o[i].got_value,
			.exit_status = o[i].status, .error = o[i].error, .pass = o[i].pass,
		};
	*r = (struct selftest_report){ backend_name(b), b == BACKEND_SIM, rows, NR_EXAMPLES, passed };
}

int cmd_selftest(int argc, char **argv, struct tdp_ctx *ctx)
{
	const char *backend = "auto", *machine = NULL, *dir = NULL, *out_path = NULL, *format = NULL;
	bool json = false;
	struct opt opts[] = {
		OPT_CHOICE(0, "backend", &backend, "auto|pmu|sim", "where counts come from: auto (the PMU, else the "
								   "simulation), pmu, sim (valgrind; estimates)"),
		OPT_STRING(0, "sim-machine", &machine, "M", "the simulated machine: a preset, KEY=VAL,... or a file; default: this host's CPU's preset"),
		OPT_STRING(0, "examples", &dir, "DIR", "where the demo workloads are (default: next to tdprof, then "
						       "PREFIX/libexec/tdprof/examples)"),
		OPT_CHOICE(0, "format", &format, "text|json", "the result's format (default text)"),
		OPT_BOOL(0, "json", &json, "one JSON document (--format=json)"),
		OPT_STRING('o', "output", &out_path, "FILE", "write the result to FILE instead of stdout"),
		OPT_END(),
	};
	struct outcome o[NR_EXAMPLES];
	struct selftest_row rows[NR_EXAMPLES];
	struct selftest_report rep;
	enum tdp_backend b;
	size_t passed = 0;
	int i = opts_parse(opts, &doc, argc, argv), rc;

	(void)ctx;
	if (i < 0)
		return opts_exit(i);
	if (i < argc)
		return msg_usage("selftest", "'%s': selftest runs its own workloads and takes no command", argv[i]);
	if (!(format = output_format("selftest", format, json ? "json" : NULL, "text")))
		return EXIT_USAGE;
	memset(o, 0, sizeof(o));
	for (size_t k = 0; k < NR_EXAMPLES; k++)
		if (!find_example(&examples[k], dir, tdp_exe_path(), o[k].path, sizeof(o[k].path))) {
			msg_error("the demo workload '%s' was not found%s%s", examples[k].binary, dir ? " in " : "",
				  dir ? dir : " next to tdprof or in PREFIX/libexec/tdprof/examples");
			msg_hint("build them ('make', or 'ninja -C BUILDDIR'), or give their directory with "
				 "'--examples DIR'");
			return EXIT_USAGE;
		}
	rc = backend_select("selftest", backend, &(struct backend_select_opts){ .can_sim = true }, &b);
	if (rc)
		return rc;
	for (size_t k = 0; k < NR_EXAMPLES; k++) {
		run_one(&examples[k], b, machine, &o[k]);
		passed += o[k].pass;
	}
	make_report(b, o, passed, rows, &rep);
	rc = output_render(out_path, render_find(RENDER_SELFTEST, format), &rep);
	if (rc)
		return rc;
	return passed == NR_EXAMPLES ? EXIT_OK : EXIT_ANALYSIS;
}
