/*
 * cmd-branches-record.c: `tdprof branches record`: sample a command (or a
 * running process) with branch stacks, or with Arm SPE, into a perf.data that
 * perf report, perf script and `tdprof branches report` read. The engine is
 * measure/record.h; what to sample is decided in branches-plan.c.
 */
#include "cli/branches-plan.h"
#include "cli/cmd.h"
#include "cli/cmd-branches.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/opts.h"
#include "base/alloc.h"
#include "base/err.h"
#include "base/str.h"
#include "base/strbuf.h"
#include "cpu/cpu.h"
#include "measure/record.h"
#include "pmu/ring.h"
#include "pmu/sampling.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

const char cmd_branches_record_summary[] = "sample a command with branch stacks (or Arm SPE) into a perf.data";


static const struct cmd_doc doc = {
	.name = "branches record",
	.summary = cmd_branches_record_summary,
	.usage = "branches record [-b | -j FILTER] [-c PERIOD | -F FREQ] [-e EVENT] [--no-branch-stack] [-o FILE] -- CMD [ARGS]\n"
		 "branches record --spe [--spe-filter mispredicted|all] [-c INTERVAL] [-o FILE] -- CMD [ARGS]\n"
		 "branches record [options] -p PID",
	.description =
		"Runs CMD and samples it with the branch-recording facility of this machine: Intel LBR (the last "
		"8 to 32 taken branches with mispredict flags and cycles), AMD Zen 4 LbrExtV2 (16 branches with "
		"mispredict flags), AMD Zen 3 BRS (16 taken branches, no mispredict flags, no cycles, no types: "
		"only retired taken branches, event 0xC4, with a fixed period above 16 can sample it) or Arm BRBE. "
		"'tdprof info' says which one applies here. The default event is 'cycles' (BRS: 'r0c4'), sampled "
		"4000 times per second; threads and children of CMD are followed unless --no-inherit is given.\n"
		"\n"
		"-j takes perf's branch filters, comma-separated: any, cond, call, ind_call, any_call, any_ret, "
		"ind_jmp, u, k, hv, save_type, stack, hw_index, priv, counter, abort_tx, in_tx, no_tx, and the "
		"kernel's no_flags and no_cycles (default: any). Levels alone ('-j u') mean any branch at those "
		"levels. perf's -b (--branch-any) is accepted: it is '-j any', the default. What a facility cannot do is refused before anything runs: LbrExtV2 has no stack, "
		"no_flags, no_cycles or transaction filters; BRS takes only any (with u or k); BRBE has no stack "
		"or transaction filters.\n"
		"\n"
		"With --spe (or by default on an Arm machine with SPE but no BRBE) the arm_spe PMU samples "
		"operations with branch_filter=1: by default only mispredicted branches (event_filter bit 7), "
		"with --spe-filter=all every sampled branch. Its trace is written as perf's AUXTRACE records.\n"
		"\n"
		"Software events (-e cpu-clock, task-clock) carry no branch stack: they record plain samples "
		"(IP, thread, time, CPU, period), which is also what --no-branch-stack does with a hardware event. "
		"Without a hardware PMU (most virtual machines) there is nothing to record branches with: the "
		"message says why, and 'tdprof why --backend=sim -- CMD' gives simulated branch sites instead.\n"
		"\n"
		"The file holds what perf record writes: the events with their ids, the kernel's MMAP2, COMM, "
		"FORK and EXIT records, the kernel map, the build-ids of the binaries the samples hit, and the "
		"host, CPU and command-line features. It is created with mode 0600. Lost samples (a ring buffer "
		"that filled up) are counted and reported; a larger -m or a lower -F avoids them.\n"
		"\n"
		"SIGINT, SIGTERM and SIGHUP sent to tdprof are passed on to CMD and the file is finished when it ends. "
		"tdprof exits with CMD's status (128+N when signal N killed it), 127 when CMD is not found, 126 "
		"when it cannot be executed.",
	.examples = "tdprof branches record -o br.data -- ./app input.txt\n"
		    "the last branches before 4000 samples a second of ./app\n"
		    "tdprof branches record -j any_call,u -c 200003 -o calls.data -- ./app\n"
		    "user-space calls only, one sample every 200003 cycles\n"
		    "tdprof branches record -e cpu-clock -F 1000 -o plain.data -- ./app\n"
		    "plain samples where no PMU exists (a VM)\n"
		    "tdprof branches report -i br.data\n"
		    "rank the mispredicted branches of the recording",
	.exit_status = NULL,
	.see_also = "tdprof-branches-report(1), tdprof-info(1), perf-record(1)",
};


static void summary(const char *path, const struct pmu_sampling_stats *st, uint64_t bytes, bool branch)
{
	uint64_t lost = st->lost + st->lost_samples;

	if (branch)
		msg_note("wrote '%s': %llu samples with %llu branch entries (%.3f MB)", path,
			 (unsigned long long)st->samples, (unsigned long long)st->branch_entries, (double)bytes / 1e6);
	else
		msg_note("wrote '%s': %llu samples (%.3f MB)", path, (unsigned long long)st->samples, (double)bytes / 1e6);
	if (st->aux_bytes)
		msg_note("%llu bytes of Arm SPE trace", (unsigned long long)st->aux_bytes);
	if (lost) {
		msg_warning("%llu samples were lost (%llu times a ring buffer was full)", (unsigned long long)lost,
			    (unsigned long long)st->lost_records);
		msg_hint("give the rings more room with '-m PAGES' (pages per CPU, default %d), or sample less often "
			 "with '-F'", PMU_SAMPLING_DEFAULT_PAGES);
	}
	if (st->aux_truncated)
		msg_warning("the Arm SPE trace was cut %llu times (its AUX area was full)",
			    (unsigned long long)st->aux_truncated);
	if (st->user_only)
		msg_note("perf_event_paranoid allows user space only: kernel samples were not recorded");
	if (st->throttled)
		msg_note("the kernel throttled the sampling %llu times (perf_event_max_sample_rate)",
			 (unsigned long long)st->throttled);
}

/* The combinations of options that make no sense (prints the usage error); *pid from -p. */
static int check_usage(const struct branches_record_opts *ro, bool has_cmd, long *pid)
{
	if (ro->pid_s && !str_to_long(ro->pid_s, 1, 0x7fffffff, pid))
		return msg_usage(doc.name, "-p: '%s' is not a process id", ro->pid_s);
	if (has_cmd == (*pid > 0))
		return msg_usage(doc.name, *pid ? "'-p' records a running process: do not give a command too"
						: "no command to record: give it after '--', or a process with '-p'");
	if (ro->period && ro->freq)
		return msg_usage(doc.name, "'-c' and '-F' cannot be used together");
	/* perf's -b is '-j any', what a branch stack records here by default */
	if (ro->branch_any && ro->filter)
		return msg_usage(doc.name, "'-b' is '-j any': give one of '-b' and '-j'");
	if (ro->branch_any && (ro->no_branch_stack || ro->spe))
		return msg_usage(doc.name, "'-b' records a branch stack: it cannot go with '%s'",
				 ro->spe ? "--spe" : "--no-branch-stack");
	if (ro->pages && (ro->pages & (ro->pages - 1)))
		return msg_usage(doc.name, "'-m %ld': the ring buffer needs a power of two of pages", ro->pages);
	if (!strcmp(ro->out, "-"))
		return msg_usage(doc.name, "'-o -': writing a recording to standard output is not supported; give a "
					   "file");
	return EXIT_OK;
}

/* Record into ro->out as p plans. Returns an exit status, or -1 when the file is finished. */
static int record(const struct branches_record_opts *ro, const struct branches_plan *p, const struct cpu_system *sys,
		  int argc, char **argv, struct measure_record *r)
{
	struct tdp_err err = TDP_ERR_INIT;
	const char **cmd = tdp_calloc((size_t)argc + 2, sizeof(*cmd));
	int ret;

	if (!cmd) {
		msg_error("out of memory");
		return EXIT_ANALYSIS;
	}
	cmd[0] = tdp_exe_path() ? tdp_exe_path() : "tdprof";
	cmd[1] = "branches";
	for (int i = 0; i < argc; i++)
		cmd[i + 2] = argv[i];
	ret = measure_record_open(r, ro->out, &p->so, sys, cmd, (size_t)argc + 2, &err);
	tdp_free(cmd);
	if (ret)
		return branches_fail(&err);
	if (p->note_software)
		msg_note("'%s' is a software event: the samples carry no branch stack", p->so.event->name);
	fflush(stdout);
	ret = measure_record_run(r, &err);
	if (ret) {
		msg_err(&err);
		return ret == TDP_ENOCMD || ret == TDP_ENOEXEC ? exitcode_from_err(ret) : EXIT_ANALYSIS;
	}
	ret = measure_record_finish(r, &err);
	if (ret) {
		ret = branches_fail(&err);
		return ret == EXIT_USAGE ? EXIT_ANALYSIS : ret;
	}
	return -1;
}

int cmd_branches_record(int argc, char **argv, struct tdp_ctx *ctx)
{
	struct branches_record_opts ro = { .out = "perf.data", .spe_filter = "mispredicted" };
	struct opt opts[] = {
		OPT_GROUP("what to sample"),
		OPT_LIST('e', "event", &ro.event, "EVENT", "the sampling event (default: cycles; r0c4 on AMD BRS)"),
		OPT_STRING('j', "branch-filter", &ro.filter, "FILTER", "branch filters as perf spells them (default any)"),
		OPT_BOOL('b', "branch-any", &ro.branch_any, "any taken branch, as perf record -b (the default: '-j any')"),
		OPT_LONG('c', "count", &ro.period, "PERIOD", "sample every PERIOD events (SPE: operations)", 1,
			 0x7fffffffffffffffL),
		OPT_LONG('F', "freq", &ro.freq, "FREQ", "samples per second (default 4000)", 1, PMU_SAMPLING_MAX_FREQ),
		OPT_BOOL(0, "no-branch-stack", &ro.no_branch_stack, "plain samples, without branch stacks"),
		OPT_BOOL(0, "spe", &ro.spe, "record with Arm SPE (arm_spe PMU) instead of a branch stack"),
		OPT_CHOICE(0, "spe-filter", &ro.spe_filter, "mispredicted|all",
			   "SPE: mispredicted branches only (default) or every sampled branch"),
		OPT_GROUP("what to record"),
		OPT_STRING('p', "pid", &ro.pid_s, "PID", "record running process PID until it exits or ^C"),
		OPT_BOOL(0, "no-inherit", &ro.no_inherit, "do not follow threads and children"),
		OPT_LONG('m', "mmap-pages", &ro.pages, "PAGES", "ring buffer pages per CPU, a power of two (default 128)",
			 1, PMU_RING_MAX_PAGES),
		OPT_GROUP("output"),
		OPT_STRING('o', "output", &ro.out, "FILE", "the perf.data to write (default perf.data)"),
		OPT_END(),
	};
	struct branches_plan p = BRANCHES_PLAN_INIT;
	struct cpu_system sys;
	struct tdp_err err = TDP_ERR_INIT;
	struct measure_record r;
	bool have_sys = false;
	long pid = 0;
	int i, rc = EXIT_USAGE, ret;

	(void)ctx;
	measure_record_init(&r);
	i = opts_parse(opts, &doc, argc, argv);
	if (i < 0) {
		rc = opts_exit(i);
		goto out;
	}
	if (check_usage(&ro, i < argc, &pid))
		goto out;
	ret = cpu_system_detect(&sys, NULL, &err);
	if (ret) {
		rc = branches_fail(&err);
		goto out;
	}
	have_sys = true;
	rc = branches_plan(&ro, &sys, &p);
	if (rc >= 0)
		goto out;
	p.so.argv = i < argc ? argv + i : NULL;
	p.so.pid = (pid_t)pid;
	p.so.no_inherit = ro.no_inherit;
	p.so.mmap_pages = (unsigned)ro.pages;
	if (!p.so.spe)
		branches_cap_freq(&p.so);
	rc = record(&ro, &p, &sys, argc, argv, &r);
	if (rc >= 0)
		goto out;
	{
		const struct pmu_sampling_stats *st = measure_record_stats(&r);
		struct stat sb;

		summary(ro.out, st, stat(ro.out, &sb) == 0 ? (uint64_t)sb.st_size : 0, p.branch);
		if (st->signal)
			msg_note(p.so.argv ? "SIG%s was passed on to the command" : "recording stopped by SIG%s",
				 sigabbrev_np(st->signal) ? sigabbrev_np(st->signal) : "?");
		rc = st->workload_ran ? exitcode_from_wait(st->wstatus) : EXIT_OK;
	}
out:
	measure_record_release(&r); /* before finish: the file stays unfinished, as perf and our reader say */
	if (have_sys)
		cpu_system_release(&sys);
	branches_plan_release(&p);
	tdp_free(ro.event);
	return rc;
}
