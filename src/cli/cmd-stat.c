/*
 * cmd-stat.c: `tdprof stat`, mode 1 of the workflow (triage): count events over a
 * command (or a process, a thread, CPUs), print them like perf stat with the
 * triage metrics, and say which step comes next.
 */
#include "cli/backend.h"
#include "cli/cmd.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/opts.h"
#include "cli/output.h"
#include "base/alloc.h"
#include "base/countset.h"
#include "base/err.h"
#include "base/str.h"
#include "base/strbuf.h"
#include "cpu/cpu.h"
#include "model/triage.h"
#include "pmu/event.h"
#include "pmu/session.h"
#include "report/stat.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char cmd_stat_summary[] = "count events over a command and say what to look at next (triage)";

/*
 * perf stat's defaults in perf's order, plus the L1i and cache events triage needs.
 * LLC-loads/LLC-load-misses are shown only where the kernel supports them.
 */
static const char default_events[] = "task-clock,context-switches,cpu-migrations,page-faults,"
				     "cycles,instructions,branches,branch-misses,L1-icache-load-misses,"
				     "cache-references,cache-misses,LLC-loads,LLC-load-misses";

static const struct cmd_doc doc = {
	.name = "stat",
	.summary = cmd_stat_summary,
	.usage = "stat [-e LIST] [-r N] [-I MS] [-x SEP | --json] [-o FILE] [--no-inherit] -- CMD [ARGS]\n"
		 "stat [-e LIST] [-I MS] [-x SEP | --json] [-o FILE] (-p PID | -t TID | -a | -C LIST) [-- CMD]",
	.description =
		"Runs CMD (or watches a running process, a thread or CPUs) with hardware and software counters "
		"and prints them as 'perf stat' does, followed by the triage metrics: CPI and IPC, the "
		"branch-miss rate and branch MPKI, L1 instruction-cache MPKI and last-level-cache MPKI (MPKI: "
		"misses per 1000 instructions). Counting starts when CMD calls exec, so tdprof itself is not "
		"counted; threads and children of CMD are counted too unless --no-inherit is given.\n"
		"\n"
		"The verdict routes to the next step: CPI above 1.0 -> 'tdprof topdown'; branch MPKI above 5 -> "
		"'tdprof branches'; L1i MPKI above 4 -> frontend advice; LLC MPKI above 1 -> memory advice. "
		"Sources: CPI 1.0 is the design's rule and Brendan Gregg's reading of IPC < 1 as stalled "
		"('CPU Utilization is Wrong', 2017); 5 MPKI is Intel TMA 5.2's IpMispredict threshold (fewer "
		"than 200 instructions per mispredict); 4 L1i MPKI is TMA's ICache_Misses threshold (5% of "
		"cycles) at ~12.5 cycles per L2-served miss and CPI 1; 1 LLC MPKI is TMA's Memory_Bound "
		"threshold (20%) at ~200 cycles per DRAM access and CPI 1. See src/model/triage.h.\n"
		"\n"
		"A count the hardware cannot take prints <not supported>; one that never got a counter prints "
		"<not counted>; neither is ever 0. Counts shared with others through multiplexing are scaled "
		"and marked with the share of time they ran, (NN.NN%). Without a PMU (most virtual machines) "
		"the software counts are still printed, with one line saying why hardware counters are "
		"unavailable.\n"
		"\n"
		"SIGINT and SIGTERM sent to tdprof are passed on to CMD; the counts are printed when it ends. "
		"tdprof exits with CMD's status (128+N when a signal N killed it), 127 when CMD is not found and "
		"126 when it cannot be executed.",
	.examples = "tdprof stat -- ./app input.txt\n"
		    "count the defaults over one run of ./app and route to the next step\n"
		    "tdprof stat -r 5 -e task-clock,page-faults -- ./app\n"
		    "five runs, mean and relative spread of each count\n"
		    "tdprof stat -I 1000 -p 4242\n"
		    "print the counts of process 4242 every second until it exits or ^C\n"
		    "tdprof stat -x, -o counts.csv -- ./app\n"
		    "perf stat's CSV layout, readable by 'tdprof topdown --import'",
	.exit_status = NULL,
	.see_also = "tdprof-topdown(1), tdprof-branches(1), perf-stat(1)",
	.elsewhere = (const struct opt_elsewhere[]){
		{ 'M', "metrics", "perf's metric groups (-M TopdownL1, PipelineL2): 'tdprof topdown -- CMD' computes "
				  "the top-down tree of this CPU ('-l 2' for level 2)" },
		{ 0, "topdown", "'tdprof topdown -- CMD' computes the top-down tree of this CPU" },
		{ 0, NULL, NULL },
	},
};

/* State of the live interval printers. */
struct live {
	FILE *out;
	const char *sep;     /* CSV separator; NULL for text */
	bool print;          /* print intervals as they come (not JSON) */
	bool hide_llc;       /* drop unsupported LLC-loads/LLC-load-misses */
	size_t index;
	uint64_t last_t;
};

static bool is_llc_name(const char *name)
{
	return str_event_name_eq(name, "LLC-loads") || str_event_name_eq(name, "LLC-load-misses");
}

/* Copy in to out without the rows the defaults hide. */
static int filter_counts(const struct countset *in, struct countset *out, bool hide_llc)
{
	out->backend = in->backend;
	out->elapsed_ns = in->elapsed_ns;
	for (size_t i = 0; i < in->nr; i++) {
		const struct count *c = &in->v[i];
		struct count *d;
		char *name, *unit;

		if (hide_llc && c->status == COUNT_NOT_SUPPORTED && is_llc_name(c->name))
			continue;
		d = countset_add(out, c->name, c->unit, c->value, c->group);
		if (!d)
			return TDP_ENOMEM;
		name = d->name;
		unit = d->unit;
		*d = *c;
		d->name = name;
		d->unit = unit;
	}
	return 0;
}

/* Both LLC events of the defaults were refused by the kernel: they do not exist here. */
static bool llc_unsupported(const struct countset *cs)
{
	size_t n = 0;

	for (size_t i = 0; i < cs->nr; i++)
		if (is_llc_name(cs->v[i].name) && cs->v[i].status == COUNT_NOT_SUPPORTED)
			n++;
	return n == 2;
}

static void on_interval(void *arg, uint64_t t_ns, const struct countset *delta)
{
	struct live *L = arg;
	struct countset cs = COUNTSET_INIT;
	struct stat_interval iv;

	if (!L->print)
		return;
	if (filter_counts(delta, &cs, L->hide_llc && llc_unsupported(delta))) {
		msg_warning("out of memory printing an interval");
		countset_release(&cs);
		return;
	}
	iv.t_ns = t_ns;
	iv.len_ns = (double)(t_ns - L->last_t);
	iv.counts = &cs;
	if (L->sep)
		stat_csv_interval(L->out, &iv, L->sep);
	else
		stat_text_interval(L->out, &iv, L->index);
	L->index++;
	L->last_t = t_ns;
	countset_release(&cs);
}

static bool parse_id(const char *s, const char *opt, pid_t *out)
{
	long v;

	if (!str_to_long(s, 1, 0x7fffffff, &v)) {
		msg_usage("stat", "%s: '%s' is not a process or thread id", opt, s);
		return false;
	}
	*out = (pid_t)v;
	return true;
}

/* Render the totals (and the stored intervals for JSON). Returns 0 or a TDP_E* code (err set). */
static int render(FILE *out, const struct pmu_session_result *res, const struct countset *shown,
		  const struct stat_report *base, bool json, const char *sep, bool hide_llc, struct tdp_err *err)
{
	struct stat_report r = *base;
	struct triage_metrics m;
	struct triage_verdict v;
	struct stat_interval *ivs = NULL;
	struct countset *ics = NULL;
	int ret = 0;

	triage_metrics_compute(shown, &m);
	triage_route(&m, &v);
	r.counts = shown;
	r.metrics = &m;
	r.verdict = &v;
	if (sep) {
		stat_csv_print(out, shown, r.runs, sep);
		return 0;
	}
	if (!json) {
		stat_text_print(out, &r);
		return 0;
	}
	if (res->nr_intervals) {
		ivs = tdp_calloc(res->nr_intervals, sizeof(*ivs));
		ics = tdp_calloc(res->nr_intervals, sizeof(*ics));
		if (!ivs || !ics) {
			ret = tdp_err_oom(err);
			goto out;
		}
		for (size_t i = 0; i < res->nr_intervals; i++) {
			const struct countset *src = &res->intervals[i].counts;

			ics[i] = (struct countset)COUNTSET_INIT;
			if (filter_counts(src, &ics[i], hide_llc && llc_unsupported(src))) {
				ret = tdp_err_oom(err);
				goto out;
			}
			ivs[i].t_ns = res->intervals[i].t_ns;
			ivs[i].len_ns = (double)(res->intervals[i].t_ns - (i ? res->intervals[i - 1].t_ns : 0));
			ivs[i].counts = &ics[i];
		}
		r.intervals = ivs;
		r.nr_intervals = res->nr_intervals;
	}
	ret = stat_json_print(out, &r, err);
out:
	for (size_t i = 0; ics && i < res->nr_intervals; i++)
		countset_release(&ics[i]);
	tdp_free(ics);
	tdp_free(ivs);
	return ret;
}

/*
 * --backend=sim: the counts valgrind's simulation estimates (perf's names, every
 * one an estimate), rendered as a measurement would be, with the header and one
 * note saying they are estimates.
 */
static int run_sim(char *const *argv, const char *machine, const char *out_path, bool json, const char *sep)
{
	struct measure_sim s;
	struct countset cs = COUNTSET_INIT;
	struct pmu_session_result none = PMU_SESSION_RESULT_INIT;
	struct stat_report rep = { 0 };
	struct strbuf cmd = STRBUF_INIT, target = STRBUF_INIT, note = STRBUF_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	struct output out = OUTPUT_INIT;
	bool done = false;
	int rc;

	measure_sim_init(&s);
	rc = backend_sim_machine("stat", machine, &s.machine);
	s.stdout_to_stderr = (json || sep) && !out_path;
	if (!rc)
		rc = backend_sim_run(argv, &s);
	if (rc)
		goto out;
	if (sim_estimate_countset(&s.profile, s.have_est ? &s.est : NULL, &cs, &err)) {
		msg_err(&err);
		rc = EXIT_ANALYSIS;
		goto out;
	}
	cs.elapsed_ns = -1; /* valgrind's wall time is not the program's */
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
	if (sep)
		msg_note("%s", note.buf);
	if ((rc = output_open(&out, out_path)))
		goto out;
	if (render(out.f, &none, &cs, &rep, json, sep, false, &err)) {
		msg_err(&err);
		rc = EXIT_ANALYSIS;
		goto out;
	}
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

/* Why --backend=sim cannot do what the options ask (NULL when it can). */
static const char *stat_no_sim_why(bool has_cmd, const char *events, bool attach, bool cpus, long repeat,
				   long interval)
{
	if (attach)
		return "the simulation runs a command under valgrind: it cannot watch a running process ('-p', '-t')";
	if (cpus)
		return "the simulation runs a command under valgrind: it cannot count CPUs ('-a', '-C')";
	if (!has_cmd)
		return "the simulation runs a command under valgrind: give it after '--'";
	if (events)
		return "the simulation estimates its own fixed set of events: it cannot count '-e' events";
	if (repeat > 1)
		return "'-r': the simulation is deterministic, every run gives the same figures; run it once";
	if (interval)
		return "'-I': the simulation gives totals for the whole run, not intervals";
	return NULL;
}

struct stat_opts {
	char *events;
	const char *sep, *out_path, *pid_s, *tid_s, *cpu_list, *backend, *sim_machine, *format;
	long repeat, interval;
	bool json, all_cpus, no_inherit;
};

/* The combinations of options that make no sense; prints the usage error. Fills so's targets. */
static int check_usage(const struct stat_opts *o, struct pmu_session_opts *so)
{
	if (o->json && o->sep)
		return msg_usage("stat", "'--json' and '-x' cannot be used together");
	if (o->sep && !*o->sep)
		return msg_usage("stat", "'-x' needs a non-empty separator");
	if (o->repeat > 1 && o->interval)
		return msg_usage("stat", "'-r' and '-I' cannot be used together");
	if ((o->pid_s && !parse_id(o->pid_s, "-p", &so->pid)) || (o->tid_s && !parse_id(o->tid_s, "-t", &so->tid)))
		return EXIT_USAGE;
	if (!so->argv && !o->pid_s && !o->tid_s && !o->all_cpus && !o->cpu_list)
		return msg_usage("stat", "no command to run: give it after '--', or watch one with -p, -t, -a or -C");
	if (so->argv && (o->pid_s || o->tid_s))
		return msg_usage("stat", "'%s' watches a running task: do not give a command too",
				 o->pid_s ? "-p" : "-t");
	if (o->repeat > 1 && !so->argv)
		return msg_usage("stat", "'-r' needs a command to run");
	return EXIT_OK;
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

/* The counted run (the PMU's, or the software events without one) and its report. */
static int run_pmu(const struct stat_opts *o, struct pmu_session_opts *so)
{
	struct pmu_event_list list = PMU_EVENT_LIST_INIT;
	struct pmu_env env = PMU_ENV_INIT;
	struct pmu_session_result res = PMU_SESSION_RESULT_INIT;
	struct countset shown = COUNTSET_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	struct strbuf cmd = STRBUF_INIT, target = STRBUF_INIT, note = STRBUF_INIT;
	struct stat_report rep = { 0 };
	struct live L = { 0 };
	struct output out = OUTPUT_INIT;
	bool done = false;
	bool hide_llc = o->events == NULL;
	int rc = EXIT_USAGE, ret;

	so->system_wide = o->all_cpus;
	so->cpu_list = o->cpu_list;
	so->no_inherit = o->no_inherit;
	so->repeat = (unsigned)o->repeat;
	so->interval_ms = (unsigned)o->interval;
	/* Names of the defaults are all perf generic names: no libpfm4 needed, keep start-up lean. */
	env.use_libpfm = o->events != NULL;
	ret = pmu_event_list_parse(&list, o->events ? o->events : default_events, &env, &err);
	if (ret) {
		msg_err(&err);
		rc = exitcode_from_err(ret);
		goto out;
	}
	if ((rc = output_open(&out, o->out_path)))
		goto out;
	L.out = out.f;
	L.sep = o->sep;
	L.print = !o->json;
	L.hide_llc = hide_llc;
	so->on_interval = on_interval;
	so->arg = &L;
	so->keep_intervals = o->json;
	fflush(stdout);
	{
		/*
		 * A document on stdout (JSON, or -x's CSV printed at the end) must not hold
		 * the workload's own output: it goes to stderr meanwhile, as perf keeps its
		 * counts apart from the program's. -x with -I prints as it goes: not there.
		 */
		int saved = backend_divert_stdout(!o->out_path && (o->json || (o->sep && !so->interval_ms)));

		ret = pmu_session_run(&list, so, &res, &err);
		backend_restore_stdout(saved);
	}
	if (ret) {
		msg_err(&err);
		if (ret == TDP_EUSAGE)
			fputs("tdprof: try 'tdprof stat --help'\n", stderr);
		rc = exitcode_from_err(ret);
		goto out;
	}
	rc = res.workload_ran ? exitcode_from_wait(res.wstatus) : EXIT_OK;
	if (filter_counts(&res.counts, &shown, hide_llc && llc_unsupported(&res.counts))) {
		msg_error("out of memory");
		rc = EXIT_ANALYSIS;
		goto out;
	}
	shown.backend = BACKEND_PMU;
	describe_target(o, so, &cmd, &target);
	fill_report(o, &res, rc, &note, &rep);
	rep.target = target.buf;
	rep.command = so->argv ? cmd.buf : NULL;
	/* With -I, perf prints no summary in its CSV layout; tdprof's text adds one after the intervals. */
	if (!(o->sep && o->interval)) {
		if (o->interval && !o->json && !o->sep)
			fputc('\n', out.f);
		ret = render(out.f, &res, &shown, &rep, o->json, o->sep, hide_llc, &err);
		if (ret) {
			msg_err(&err);
			rc = EXIT_ANALYSIS;
			goto out;
		}
	}
	done = true;
	if (res.signal) {
		const char *sig = sigabbrev_np(res.signal) ? sigabbrev_np(res.signal) : "?";

		if (so->argv)
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
	countset_release(&shown);
	pmu_session_result_release(&res);
	pmu_event_list_release(&list);
	return rc;
}

int cmd_stat(int argc, char **argv, struct tdp_ctx *ctx)
{
	struct stat_opts o = { .backend = "auto", .repeat = 1 };
	struct opt opts[] = {
		OPT_GROUP("what to count"),
		OPT_LIST('e', "event", &o.events, "LIST", "events to count, comma-separated, '{a,b}' for a group "
							  "(repeatable; default: the triage set)"),
		OPT_LONG('r', "repeat", &o.repeat, "N", "run CMD N times; print means and their relative spread",
			 1, PMU_SESSION_MAX_RUNS),
		OPT_LONG('I', "interval-print", &o.interval, "MS", "print the counts of every MS milliseconds",
			 PMU_SESSION_MIN_INTERVAL_MS, 86400000),
		OPT_BOOL(0, "no-inherit", &o.no_inherit, "do not count threads and children CMD creates"),
		OPT_CHOICE(0, "backend", &o.backend, "auto|pmu|sim", "where counts come from: pmu (auto: software "
								     "counts without a PMU) or sim (valgrind; estimates)"),
		OPT_STRING(0, "sim-machine", &o.sim_machine, "M", "the simulated machine (--backend=sim): a preset, "
								  "KEY=VAL,... or a file"),
		OPT_GROUP("what to watch instead of CMD"),
		OPT_STRING('p', "pid", &o.pid_s, "PID", "every thread of running process PID, until it exits or ^C"),
		OPT_STRING('t', "tid", &o.tid_s, "TID", "running thread TID, until it exits or ^C"),
		OPT_BOOL('a', "all-cpus", &o.all_cpus, "every online CPU (with CMD: while it runs)"),
		OPT_STRING('C', "cpu", &o.cpu_list, "LIST", "these CPUs, e.g. 0-3,6 (with CMD: while it runs)"),
		OPT_GROUP("output"),
		OPT_STRING('x', "field-separator", &o.sep, "SEP", "perf stat's CSV layout with SEP between fields"),
		OPT_CHOICE(0, "format", &o.format, "text|json|csv", "the output's format (default text; csv: '-x ,')"),
		OPT_BOOL(0, "json", &o.json, "one JSON document (--format=json)"),
		OPT_STRING('o', "output", &o.out_path, "FILE", "write the results to FILE instead of stdout"),
		OPT_END(),
	};
	struct pmu_session_opts so = PMU_SESSION_OPTS_INIT;
	enum tdp_backend chosen;
	bool watch;
	int i, rc;

	(void)ctx;
	i = opts_parse(opts, &doc, argc, argv);
	if (i < 0) {
		rc = opts_exit(i);
		goto out;
	}
	so.argv = i < argc ? argv + i : NULL;
	/* --format: json is --json, csv is perf's CSV layout (-x SEP, ',' unless given) */
	if (!(o.format = output_format("stat", o.format, o.json ? "json" : NULL, o.sep ? "csv" : "text"))) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (o.sep && !o.json && strcmp(o.format, "csv")) {
		rc = msg_usage("stat", "'-x' is the CSV layout: it cannot go with '--format=%s'", o.format);
		goto out;
	}
	o.json = !strcmp(o.format, "json");
	if (!strcmp(o.format, "csv") && !o.sep)
		o.sep = ",";
	rc = check_usage(&o, &so);
	if (rc)
		goto out;
	watch = o.pid_s || o.tid_s || o.all_cpus || o.cpu_list;
	/* auto keeps the PMU: without hardware events the software counts are still measured */
	rc = backend_select("stat", o.backend,
			    &(struct backend_select_opts){ .can_sim = so.argv && !o.events && !watch && o.repeat == 1 &&
									!o.interval,
							   .no_sim_why = stat_no_sim_why(so.argv != NULL, o.events,
											  o.pid_s || o.tid_s,
											  o.all_cpus || o.cpu_list,
											  o.repeat, o.interval),
							   .auto_pmu = true },
			    &chosen);
	if (rc)
		goto out;
	if (chosen == BACKEND_SIM)
		rc = run_sim(so.argv, o.sim_machine, o.out_path, o.json, o.sep);
	else
		rc = run_pmu(&o, &so);
out:
	tdp_free(o.events);
	return rc;
}
