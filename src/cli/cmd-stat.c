/*
 * cmd-stat.c: `tdprof stat`, mode 1 of the workflow (triage): count events over a
 * command (or a process, a thread, CPUs), print them like perf stat with the
 * triage metrics, and say which step comes next. The options here; the runs and
 * the document in stat-run.c, the counting in measure/stat.h.
 */
#include "cli/backend.h"
#include "cli/cmd.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/opts.h"
#include "cli/output.h"
#include "cli/stat-run.h"
#include "base/alloc.h"
#include "base/str.h"
#include "pmu/session.h"

#include <string.h>

const char cmd_stat_summary[] = "count events over a command and say what to look at next (triage)";

static const struct cmd_doc doc = {
	.name = "stat",
	.summary = cmd_stat_summary,
	.usage = "stat [-e LIST] [-r N] [-I MS] [-x SEP | -j] [-o FILE] [--no-inherit] -- CMD [ARGS]\n"
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
		    "tdprof stat -r 0 -- ./app\n"
		    "run ./app again and again until ^C, then the means of the whole runs\n"
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
	if (repeat != 1)
		return "'-r': the simulation is deterministic, every run gives the same figures; run it once";
	if (interval)
		return "'-I': the simulation gives totals for the whole run, not intervals";
	return NULL;
}

/*
 * --format (a renderer of report/render.h's RENDER_STAT): json is --json, csv is
 * perf's CSV layout (-x SEP, ',' unless given). Returns 0 or EXIT_USAGE (printed).
 */
static int choose_format(struct stat_opts *o)
{
	if (!(o->format = output_format("stat", o->format, o->json ? "json" : NULL, o->sep ? "csv" : "text")))
		return EXIT_USAGE;
	if (o->sep && !o->json && strcmp(o->format, "csv"))
		return msg_usage("stat", "'-x' is the CSV layout: it cannot go with '--format=%s'", o->format);
	o->json = !strcmp(o->format, "json");
	if (!strcmp(o->format, "csv") && !o->sep)
		o->sep = ",";
	return EXIT_OK;
}

/* The combinations of options that make no sense; prints the usage error. Fills so's targets. */
static int check_usage(const struct stat_opts *o, struct pmu_session_opts *so)
{
	if (o->json && o->sep)
		return msg_usage("stat", "'--json' and '-x' cannot be used together");
	if (o->sep && !*o->sep)
		return msg_usage("stat", "'-x' needs a non-empty separator");
	if (o->repeat != 1 && o->interval)
		return msg_usage("stat", "'-r' and '-I' cannot be used together");
	if ((o->pid_s && !parse_id(o->pid_s, "-p", &so->pid)) || (o->tid_s && !parse_id(o->tid_s, "-t", &so->tid)))
		return EXIT_USAGE;
	if (!so->argv && !o->pid_s && !o->tid_s && !o->all_cpus && !o->cpu_list)
		return msg_usage("stat", "no command to run: give it after '--', or watch one with -p, -t, -a or -C");
	if (so->argv && (o->pid_s || o->tid_s))
		return msg_usage("stat", "'%s' watches a running task: do not give a command too",
				 o->pid_s ? "-p" : "-t");
	if (o->repeat != 1 && !so->argv)
		return msg_usage("stat", "'-r' needs a command to run");
	return EXIT_OK;
}

int cmd_stat(int argc, char **argv, struct tdp_ctx *ctx)
{
	struct stat_opts o = { .backend = "auto", .repeat = 1 };
	struct opt opts[] = {
		OPT_GROUP("what to count"),
		OPT_LIST('e', "event", &o.events, "LIST", "events to count, comma-separated, '{a,b}' for a group "
							  "(repeatable; default: the triage set)"),
		OPT_LONG('r', "repeat", &o.repeat, "N", "run CMD N times; print means and their relative spread "
							"(0: again and again until ^C, as perf)",
			 0, PMU_SESSION_MAX_RUNS),
		OPT_LONG('I', "interval-print", &o.interval, "MS", "print the counts of every MS milliseconds",
			 PMU_SESSION_MIN_INTERVAL_MS, 86400000),
		OPT_BOOL(0, "no-inherit", &o.no_inherit, "do not count threads and children CMD creates"),
		OPT_CHOICE(0, "backend", &o.backend, "auto|pmu|sim", "where counts come from: pmu (auto: software "
								     "counts without a PMU) or sim (valgrind; estimates)"),
		OPT_STRING(0, "sim-machine", &o.sim_machine, "M", "the simulated machine (--backend=sim): a preset, "
								  "KEY=VAL,... or a file; default: this host's CPU's preset"),
		OPT_GROUP("what to watch instead of CMD"),
		OPT_STRING('p', "pid", &o.pid_s, "PID", "every thread of running process PID, until it exits or ^C"),
		OPT_STRING('t', "tid", &o.tid_s, "TID", "running thread TID, until it exits or ^C"),
		OPT_BOOL('a', "all-cpus", &o.all_cpus, "every online CPU (with CMD: while it runs)"),
		OPT_STRING('C', "cpu", &o.cpu_list, "LIST", "these CPUs, e.g. 0-3,6 (with CMD: while it runs)"),
		OPT_GROUP("output"),
		OPT_STRING('x', "field-separator", &o.sep, "SEP", "perf stat's CSV layout with SEP between fields"),
		OPT_CHOICE(0, "format", &o.format, "text|json|csv", "the output's format (default text; csv: '-x ,')"),
		OPT_BOOL('j', "json", &o.json, "one JSON document (--format=json; -j as perf stat)"),
		OPT_STRING('o', "output", &o.out_path, "FILE", "write the results to FILE instead of stdout"),
		OPT_END(),
	};
	struct pmu_session_opts so = PMU_SESSION_OPTS_INIT;
	enum tdp_backend chosen;
	bool watch;
	int i, rc;

	i = opts_parse(opts, &doc, argc, argv);
	if (i < 0) {
		rc = opts_exit(i);
		goto out;
	}
	so.argv = i < argc ? argv + i : NULL;
	o.pal = o.out_path ? NULL : ctx->palette;
	if ((rc = choose_format(&o)) || (rc = check_usage(&o, &so)))
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
		rc = stat_run_sim(&o, so.argv);
	else
		rc = stat_run_pmu(&o, &so);
out:
	tdp_free(o.events);
	return rc;
}
