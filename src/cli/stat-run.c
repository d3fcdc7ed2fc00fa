/* stat-run.c: the runs of `tdprof stat` (see stat-run.h). */
#include "cli/stat-run.h"
#include "cli/backend.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/output.h"
#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "cpu/cpu.h"
#include "measure/stat.h"
#include "model/triage.h"
#include "report/render.h"
#include "report/stat.h"

#include <stdio.h>
#include <string.h>

/* The interval printer of -I (text and CSV; JSON keeps them for its document). */
struct live {
	FILE *out;
	const char *sep;     /* CSV separator; NULL for text */
	size_t index;
};

static void on_interval(void *arg, uint64_t t_ns, double len_ns, const struct countset *counts)
{
	struct live *L = arg;
	struct stat_interval iv = { t_ns, len_ns, counts };

	if (!counts) {
		msg_warning("out of memory printing an interval");
		return;
	}
	if (L->sep)
		stat_csv_interval(L->out, &iv, L->sep);
	else
		stat_text_interval(L->out, &iv, L->index);
	L->index++;
}

/*
 * The document: the triage metrics and route of `shown`, the intervals kept (JSON),
 * rendered as o->format says into out. Returns an exit status (errors printed).
 */
static int render(struct output *out, const struct stat_opts *o, const struct measure_stat *m,
		  const struct countset *shown, const struct stat_report *base)
{
	struct stat_report r = *base;
	struct triage_metrics tm;
	struct triage_verdict v;
	struct stat_interval *ivs = NULL;
	int rc;

	triage_metrics_compute(shown, &tm);
	triage_route(&tm, &v);
	r.counts = shown;
	r.metrics = &tm;
	r.verdict = &v;
	r.csv_sep = o->sep;
	r.pal = o->pal;
	r.after_intervals = o->interval && !strcmp(o->format, "text");
	if (m && m->nr_intervals && !strcmp(o->format, "json")) {
		ivs = tdp_calloc(m->nr_intervals, sizeof(*ivs));
		if (!ivs) {
			msg_error("out of memory");
			return EXIT_ANALYSIS;
		}
		for (size_t i = 0; i < m->nr_intervals; i++)
			ivs[i] = (struct stat_interval){ m->intervals[i].t_ns, m->intervals[i].len_ns,
							 &m->intervals[i].counts };
		r.intervals = ivs;
		r.nr_intervals = m->nr_intervals;
	}
	rc = output_put(out, render_find(RENDER_STAT, o->format), &r);
	tdp_free(ivs);
	return rc;
}

int stat_run_sim(const struct stat_opts *o, char *const *argv)
{
	struct measure_sim s;
	struct countset cs = COUNTSET_INIT;
	struct stat_report rep = { 0 };
	struct strbuf cmd = STRBUF_INIT, target = STRBUF_INIT, note = STRBUF_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	struct output out = OUTPUT_INIT;
	bool done = false;
	int rc;

	measure_sim_init(&s);
	rc = backend_sim_machine("stat", o->sim_machine, &s.machine);
	s.per_insn = true; /* the block model's cycles, as why and topdown estimate them */
	s.stdout_to_stderr = (o->json || o->sep) && !o->out_path;
	if (!rc)
		rc = backend_sim_run(argv, &s);
	if (rc)
		goto out;
	if (measure_stat_from_sim(&s, &cs, &err)) {
		msg_err(&err);
		rc = EXIT_ANALYSIS;
		goto out;
	}
	strbuf_add_shell_words(&cmd, argv);
	strbuf_addf(&target, "'%s', estimate (simulated)", cmd.buf);
	strbuf_addf(&note, "every count above is an estimate (simulated) by valgrind on machine %s, not a "
			   "measurement (docs/sim-machine.md)", s.machine_desc);
	rep.target = target.buf;
	rep.command = cmd.buf;
	rep.simulated = true;
	rep.runs = 1;
	rep.user_ns = rep.sys_ns = -1;
	rep.workload_ran = true;
	rep.exit_status = s.run.status;
	rep.hw_note = note.buf;
	if (o->sep)
		msg_note("%s", note.buf);
	if ((rc = output_open(&out, o->out_path)) || (rc = render(&out, o, NULL, &cs, &rep)))
		goto out;
	done = true;
	rc = s.run.status;
out:
	if (output_close(&out, done) && rc == EXIT_OK)
		rc = EXIT_ANALYSIS;
	strbuf_release(&cmd);
	strbuf_release(&target);
	strbuf_release(&note);
	countset_release(&cs);
	measure_sim_release(&s);
	return rc;
}

/* What was counted, as the header names it ("'./app'", "'system wide'", "process id '42'"). */
static void describe_target(const struct stat_opts *o, const struct pmu_session_opts *so, struct strbuf *cmd,
			    struct strbuf *target)
{
	if (so->argv)
		strbuf_add_shell_words(cmd, so->argv);
	if (so->system_wide)
		strbuf_adds(target, "'system wide'");
	else if (o->cpu_list)
		strbuf_addf(target, "'CPU(s) %s'", o->cpu_list);
	else if (so->pid)
		strbuf_addf(target, "process id '%d'", (int)so->pid);
	else if (so->tid)
		strbuf_addf(target, "thread id '%d'", (int)so->tid);
	else
		strbuf_addf(target, "'%s'", cmd->buf);
}

/* The report of a counted run res (its notes in note; rc: the exit status so far). */
static void fill_report(const struct stat_opts *o, const struct pmu_session_result *res, int rc, struct strbuf *note,
			struct stat_report *rep)
{
	struct tdp_err hw = TDP_ERR_INIT;

	if (res->nr_hw > 0 && res->nr_hw_open == 0) {
		cpu_explain_open_error(res->hw_errno, NULL, &hw);
		strbuf_addf(note, "hardware counters are unavailable: %s", hw.msg);
		rep->hw_note = note->buf;
		rep->hw_hint = "rerun with --backend=sim for a simulated estimate";
		if (o->sep) {
			msg_note("%s", rep->hw_note);
			msg_note("%s", rep->hw_hint);
		}
	}
	if (res->user_only)
		msg_note("kernel counting is not allowed for this user (perf_event_paranoid): the counts are of "
			 "user space only, as perf counts them; 'sudo sysctl -w kernel.perf_event_paranoid=1' "
			 "includes the kernel");
	rep->runs = res->runs ? res->runs : 1;
	rep->elapsed_stddev_ns = res->elapsed_stddev_ns;
	if (res->per_run) {
		rep->run_counts = &res->counts;
		rep->run_values = res->per_run;
		rep->run_elapsed_ns = res->per_run_elapsed_ns;
		rep->nr_runs = res->runs;
	}
	rep->user_ns = res->workload_ran && res->runs == 1 ? res->user_ns : -1;
	rep->sys_ns = res->workload_ran && res->runs == 1 ? res->sys_ns : -1;
	rep->workload_ran = res->workload_ran;
	rep->exit_status = rc;
}

/* Count (the workload's stdout diverted while a document for stdout is pending). Returns 0 or an exit status. */
static int count(const struct stat_opts *o, struct pmu_session_opts *so, struct measure_stat *m, FILE *out)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct live L = { out, o->sep, 0 };
	bool json = !strcmp(o->format, "json");
	int ret, saved;

	so->system_wide = o->all_cpus;
	so->cpu_list = o->cpu_list;
	so->no_inherit = o->no_inherit;
	so->repeat = (unsigned)o->repeat;
	so->until_signal = o->repeat == 0;
	so->interval_ms = (unsigned)o->interval;
	fflush(stdout);
	/*
	 * A document on stdout (JSON, or -x's CSV printed at the end) must not hold the
	 * workload's own output: it goes to stderr meanwhile, as perf keeps its counts
	 * apart from the program's. -x with -I prints as it goes: not there.
	 */
	saved = backend_divert_stdout(!o->out_path && (json || (o->sep && !so->interval_ms)));
	ret = measure_stat_run(m, so, json, json ? NULL : on_interval, &L, &err);
	backend_restore_stdout(saved);
	if (ret) {
		msg_err(&err);
		if (ret == TDP_EUSAGE)
			fputs("tdprof: try 'tdprof stat --help'\n", stderr);
		return exitcode_from_err(ret);
	}
	return 0;
}

int stat_run_pmu(const struct stat_opts *o, struct pmu_session_opts *so)
{
	struct measure_stat m;
	struct tdp_err err = TDP_ERR_INIT;
	struct strbuf cmd = STRBUF_INIT, target = STRBUF_INIT, note = STRBUF_INIT;
	struct stat_report rep = { 0 };
	struct output out = OUTPUT_INIT;
	bool done = false;
	int rc, ret;

	measure_stat_init(&m);
	ret = measure_stat_events(&m, o->events, &err);
	if (ret) {
		msg_err(&err);
		rc = exitcode_from_err(ret);
		goto out;
	}
	if ((rc = output_open(&out, o->out_path)) || (rc = count(o, so, &m, out.f)))
		goto out;
	rc = m.res.workload_ran ? exitcode_from_wait(m.res.wstatus) : EXIT_OK;
	describe_target(o, so, &cmd, &target);
	fill_report(o, &m.res, rc, &note, &rep);
	rep.target = target.buf;
	rep.command = so->argv ? cmd.buf : NULL;
	/* With -I, perf prints no summary in its CSV layout; tdprof's text adds one after the intervals. */
	if (!(o->sep && o->interval) && (ret = render(&out, o, &m, &m.shown, &rep))) {
		rc = ret;
		goto out;
	}
	done = true;
	if (m.res.signal) {
		const char *sig = sigabbrev_np(m.res.signal) ? sigabbrev_np(m.res.signal) : "?";

		if (so->until_signal)
			msg_note("-r 0: SIG%s ended the series after %u whole run%s%s", sig, m.res.runs,
				 m.res.runs == 1 ? "" : "s",
				 m.res.cut_run_left_out ? " (the run it cut short is left out)" : "");
		else if (so->argv)
			msg_note("SIG%s was passed on to the command", sig);
		else
			msg_note("counting stopped by SIG%s", sig);
	}
out:
	if (output_close(&out, done) && rc == EXIT_OK)
		rc = EXIT_ANALYSIS;
	strbuf_release(&cmd);
	strbuf_release(&target);
	strbuf_release(&note);
	measure_stat_release(&m);
	return rc;
}
