/*
 * cmd-loop.c: `tdprof loop FILE.c --function NAME [-- CFLAGS]`: measure one
 * function in isolation with the hot-loop harness, and show llvm-mca's
 * prediction for its hot loop beside the measurement. The build side (probe,
 * generated main, compiler, llvm-mca) is in cmd-loop-build.c and
 * cmd-loop-mca.c; this file parses options and reports.
 */
#include "cli/cmd.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/opts.h"
#include "cli/output.h"
#include "base/err.h"
#include "base/sigfwd.h"
#include "base/strbuf.h"
#include "loop/loop.h"
#include "report/loop.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

const char cmd_loop_summary[] = "measure one function in isolation: pinned, repeated, harness cost removed";

static const struct cmd_doc doc = {
	.name = "loop",
	.summary = cmd_loop_summary,
	.usage = "loop FILE.c --function NAME [--cpu N] [--reps N] [--target-ms MS] [--json] [-o FILE] "
		 "[-- CFLAGS...]",
	.description =
		"Builds an isolated harness around NAME, a function of FILE.c that takes no arguments, with "
		"your compiler flags, runs it and prints what one call costs. The generated program includes "
		"FILE.c, calls NAME through a volatile function pointer (so it is neither inlined into the "
		"loop nor hoisted out of it) and consumes its return value, if any, through an empty asm "
		"volatile, so the call cannot be dropped. It links <tdprof/harness.h>, which pins the thread "
		"to one CPU, warms up, chooses N so that one measurement lasts the target time, and repeats: "
		"each repetition measures N and 2N calls and keeps the difference, which removes the "
		"harness's own cost. The figures are the median over the repetitions, with the minimum and "
		"the spread (median absolute deviation / median); a spread above 1 % is reported with its "
		"likely cause (context switches, migrations, frequency changes, steal time). A repetition "
		"during which the thread was preempted is measured again, and on a busy CPU N is made smaller "
		"so that measurements fit between preemptions.\n"
		"\n"
		"Counters are read with rdpmc where the kernel allows it, with read() otherwise; without a "
		"hardware PMU (most virtual machines) only time is measured, and the output says so: method "
		"'clock', counters null.\n"
		"\n"
		"Where llvm-mca is installed, the same source is compiled to assembly with your flags, NAME's "
		"innermost loop (or its whole body when it has none) is given to llvm-mca, and its static "
		"prediction (Block RThroughput, IPC) is shown beside the measurement. -march=/-mtune= choose "
		"llvm-mca's CPU model.\n"
		"\n"
		"The compiler is $CC (default cc), run without a shell. FILE.c may have a main of its own: it "
		"is renamed out of the way.",
	.examples = "tdprof loop kernel.c --function dot -- -O2 -march=native\n"
		    "measure dot() as built with -O2 -march=native\n"
		    "tdprof loop kernel.c --function dot --cpu 3 --json -- -O3\n"
		    "pinned to CPU 3, as JSON (median_ns_per_iteration, spread_pct, llvm_mca, ...)\n"
		    "CC=clang tdprof loop kernel.c -f dot -- -O2\n"
		    "the same with clang",
	.exit_status = "0: measured.\n"
		       "2: FILE.c does not compile (the compiler's message is shown), NAME is not in it or needs "
		       "arguments, an option is wrong, or the CPU asked for is not available.\n"
		       "1: the harness or a helper failed.\n"
		       "N, 128+N: the kernel called exit(N), or died of signal N.",
	.see_also = "tdprof-stat(1), llvm-mca(1)",
};

/* -v: each command the build runs, on stderr */
static void loop_note(const char *line)
{
	msg_note("%s", line);
}

/* Report a failure of the build side, with the compiler's words when there are some. */
static int fail(const struct tdp_err *err, struct strbuf *diag)
{
	if (diag->len) {
		while (diag->len && (diag->buf[diag->len - 1] == '\n' || diag->buf[diag->len - 1] == ' '))
			strbuf_setlen(diag, diag->len - 1);
		msg_error("%s; the compiler says:\n%s", err->msg, diag->buf);
		if (err->hint[0])
			msg_hint("%s", err->hint);
	} else {
		msg_err(err);
	}
	return exitcode_from_err(err->code);
}

/* The program ran: turn its exit into ours, or parse its JSON. */
static int program_result(const struct loop_job *j, int status, struct strbuf *out, json_t **res)
{
	json_error_t jerr;

	if (WIFSIGNALED(status)) {
		msg_error("'%s' died of signal %d (%s) while being measured", j->function, WTERMSIG(status),
			  strsignal(WTERMSIG(status)));
		return exitcode_from_wait(status);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 3 && !strncmp(out->buf, "error: ", 7)) {
		char *end;
		long e = strtol(out->buf + 7, &end, 10);

		while (out->len && out->buf[out->len - 1] == '\n')
			strbuf_setlen(out, out->len - 1);
		msg_error("the harness failed: %s", *end ? end + 1 : "");
		return e == EINVAL ? EXIT_USAGE : EXIT_ANALYSIS;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		msg_error("'%s' ended the program with exit status %d before it was measured", j->function,
			  WEXITSTATUS(status));
		return exitcode_from_wait(status);
	}
	*res = json_loadb(out->buf, out->len, 0, &jerr);
	if (!json_is_object(*res)) {
		msg_error("the harness program's output is not JSON: %s", jerr.text);
		return EXIT_ANALYSIS;
	}
	return EXIT_OK;
}

/* The CPUs this process may run on, as "0-3,8". */
static void allowed_cpus(const cpu_set_t *set, struct strbuf *sb)
{
	for (int c = 0; c < CPU_SETSIZE; c++) {
		int e = c;

		if (!CPU_ISSET(c, set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		strbuf_addf(sb, "%s%d", sb->len ? "," : "", c);
		if (e > c)
			strbuf_addf(sb, "-%d", e);
		c = e;
	}
}

/* --cpu N must be one this process may run on; said before anything is built. */
static int check_cpu(long cpu)
{
	struct strbuf sb = STRBUF_INIT;
	cpu_set_t set;
	int rc = EXIT_OK;

	if (cpu < 0 || sched_getaffinity(0, sizeof(set), &set) || CPU_ISSET((int)cpu, &set))
		return EXIT_OK;
	allowed_cpus(&set, &sb);
	rc = msg_usage("loop", "--cpu %ld: this process may run only on CPUs %s", cpu, sb.buf);
	strbuf_release(&sb);
	return rc;
}

/* Flags that would make the compiler produce something else than the program. */
static const char *bad_flag(char *const *flags, size_t nr)
{
	static const char *const bad[] = { "-o", "-c", "-S", "-E", "-M", "-MM", "-fsyntax-only" };

	for (size_t i = 0; i < nr; i++)
		for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
			if (!strcmp(flags[i], bad[k]))
				return flags[i];
	return NULL;
}

static int measure(struct loop_job *j, long cpu, long reps, double target_ms, const char *format, bool mca,
		   const char *output)
{
	struct strbuf diag = STRBUF_INIT, out = STRBUF_INIT, text = STRBUF_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	struct loop_mca m;
	json_t *res = NULL;
	struct loop_report rep;
	int rc = EXIT_OK, status = 0;
	json_t *warnings;

	memset(&m, 0, sizeof(m));
	strbuf_init(&diag, LOOP_MAX_OUTPUT);
	/* SIGINT/SIGTERM/SIGHUP: passed on to the compiler or harness; the directory is still removed */
	tdp_sigfwd_begin();
	if (loop_job_open(j, &err) || loop_check(j, &diag, &err) || loop_build(j, &diag, &err)) {
		rc = fail(&err, &diag);
		goto out;
	}
	msg_progress("measuring %s() (%ld repetitions of %g ms and twice that)", j->function, reps, target_ms);
	if (loop_run(j, (int)cpu, reps, target_ms, &out, &status, &err)) {
		msg_err(&err);
		rc = exitcode_from_err(err.code);
		goto out;
	}
	if ((rc = program_result(j, status, &out, &res)) != EXIT_OK)
		goto out;
	if (mca)
		loop_mca(j, &m);
	warnings = json_object_get(res, "warnings");
	{
		size_t i;
		json_t *v;

		json_array_foreach(warnings, i, v)
			if (json_is_string(v))
				msg_warning("%s", json_string_value(v));
	}
	rep = (struct loop_report){ j, res, &m };
	if (render_find(RENDER_LOOP, format)->render(&text, &rep, &err)) {
		msg_err(&err);
		rc = EXIT_ANALYSIS;
		goto out;
	}
	if (j->keep)
		msg_note("the generated program and its source are in '%s'", j->dir);
	rc = output_write(output, text.buf, text.len);
out:
	json_decref(res);
	strbuf_release(&diag);
	strbuf_release(&out);
	strbuf_release(&text);
	loop_job_close(j);
	tdp_sigfwd_end();
	return rc;
}

int cmd_loop(int argc, char **argv, struct tdp_ctx *ctx)
{
	const char *function = NULL, *output = NULL, *format = NULL;
	long cpu = -1, reps = 31;
	double target_ms = 10;
	bool json = false, mca = true, keep = false;
	struct opt opts[] = {
		OPT_STRING('f', "function", &function, "NAME", "the function of FILE.c to measure (no arguments)"),
		OPT_LONG(0, "cpu", &cpu, "N", "pin to CPU N (default: the CPU it starts on)", 0, 1023),
		OPT_LONG('r', "reps", &reps, "N", "repetitions of N and 2N calls (default 31)", 3, 100001),
		OPT_DOUBLE(0, "target-ms", &target_ms, "MS", "duration of one measurement of N calls (default 10)",
			   0, 60000),
		OPT_CHOICE(0, "format", &format, "text|json", "the result's format (default text)"),
		OPT_BOOL(0, "json", &json, "write one JSON document (--format=json)"),
		OPT_STRING('o', "output", &output, "FILE", "write the result to FILE instead of standard output"),
		OPT_BOOL(0, "mca", &mca, "show llvm-mca's prediction when it is installed (default; --no-mca: skip)"),
		OPT_BOOL(0, "keep", &keep, "keep the generated program and its source (the path is printed)"),
		OPT_END(),
	};
	struct loop_job j;
	int i, k;

	memset(&j, 0, sizeof(j));
	i = opts_parse(opts, &doc, argc, argv);
	if (i < 0)
		return opts_exit(i);
	if (i >= argc)
		return msg_usage("loop", "missing FILE.c");
	j.file = argv[i];
	if (i > 1 && !strcmp(argv[i - 1], "--")) {
		k = 1; /* everything after FILE.c is a compiler flag */
	} else {
		/* Options may follow FILE.c: parse them with FILE.c in the place of the command name. */
		k = opts_parse(opts, &doc, argc - i, argv + i);
		if (k < 0)
			return opts_exit(k);
		if (k < argc - i && strcmp(argv[i + k - 1], "--"))
			return msg_usage("loop", "unexpected argument '%s' (compiler flags go after '--')", argv[i + k]);
	}
	if (!(format = output_format("loop", format, json ? "json" : NULL, "text")))
		return EXIT_USAGE;
	if (!function)
		return msg_usage("loop", "missing --function NAME");
	if (!(target_ms > 0))
		return msg_usage("loop", "--target-ms: must be above 0");
	j.function = function;
	j.cflags = argv + i + k;
	j.nr_cflags = (size_t)(argc - i - k);
	if (bad_flag(j.cflags, j.nr_cflags))
		return msg_usage("loop", "compiler flag '%s' cannot be used: tdprof loop builds and runs the program "
				 "itself", bad_flag(j.cflags, j.nr_cflags));
	if (check_cpu(cpu))
		return EXIT_USAGE;
	j.cc = getenv("CC");
	j.tmp_root = getenv("TMPDIR");
	j.exe_path = tdp_exe_path();
	j.keep = keep;
	j.note = ctx->verbose ? loop_note : NULL;
	return measure(&j, cpu, reps, target_ms, format, mca, output);
}
