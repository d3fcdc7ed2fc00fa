/*
 * cmd-branches-record.c: `tdprof branches record`: sample a command (or a
 * running process) with branch stacks, or with Arm SPE, into a perf.data that
 * perf report, perf script and `tdprof branches report` read. The engine is
 * pmu/sampling.h; the file is written with perfdata/perfdata-write.h.
 */
#include "cli/cmd.h"
#include "cli/cmd-branches.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/opts.h"
#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"
#include "base/str.h"
#include "base/strbuf.h"
#include "cpu/cpu.h"
#include "perfdata/perfdata-write.h"
#include "perfdata/perfdata.h"
#include "pmu/event.h"
#include "pmu/ring.h"
#include "pmu/sampling.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#ifndef TDPROF_VERSION
#define TDPROF_VERSION "unknown"
#endif

const char cmd_branches_record_summary[] = "sample a command with branch stacks (or Arm SPE) into a perf.data";

/* A fixed period for AMD BRS, which cannot sample by frequency (a prime, as perf users pick). */
#define BRS_DEFAULT_PERIOD 100003
/* SPE's interval when the PMU does not say its minimum (perf's fallback). */
#define SPE_DEFAULT_INTERVAL 4096

static const struct cmd_doc doc = {
	.name = "branches record",
	.summary = cmd_branches_record_summary,
	.usage = "branches record [-j FILTER] [-c PERIOD | -F FREQ] [-e EVENT] [--no-branch-stack] [-o FILE] -- CMD [ARGS]\n"
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
		"levels. What a facility cannot do is refused before anything runs: LbrExtV2 has no stack, "
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
		"SIGINT and SIGTERM sent to tdprof are passed on to CMD and the file is finished when it ends. "
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

struct rec_opts {
	char *event;
	const char *filter, *out, *pid_s, *spe_filter;
	long period, freq, pages;
	bool spe, no_branch_stack, no_inherit;
};

/* What to record, decided from the options and the machine. */
struct plan {
	struct pmu_event_list events;
	struct strbuf spec;         /* the event spec */
	struct pmu_sampling_opts so;
	bool branch;                /* branch stacks */
	bool note_software;         /* say once that a software event has no branch stack */
};

static int fail(struct tdp_err *err)
{
	msg_err(err);
	return err->code == TDP_EUSAGE ? EXIT_USAGE : exitcode_from_err(err->code);
}

/* Without a branch-stack facility: say why, and where to go instead. */
static int no_facility(const struct cpu_system *sys)
{
	if (!sys->probe.opened && sys->probe.tried)
		msg_error("cannot record branches here: %s", sys->probe.msg);
	else
		msg_error("cannot record branches here: %s", sys->branch.reason);
	msg_hint("'tdprof why --backend=sim -- CMD' gives simulated branch sites; '-e cpu-clock' records plain "
		 "samples here");
	return EXIT_ANALYSIS;
}

static int plan_spe(const struct rec_opts *ro, const struct cpu_system *sys, struct plan *p, struct tdp_err *err)
{
	const struct cpu_pmu *spe = cpu_pmu_list_first(&sys->pmus, CPU_PMU_SPE);
	long min_interval;
	int ret;

	if (!spe) {
		tdp_err_set(err, TDP_ENOTSUP, "no Arm SPE PMU (arm_spe_N) on this machine: %s", sys->branch.reason);
		tdp_err_hint(err, "'tdprof info' says what this machine can record");
		return TDP_ENOTSUP;
	}
	if (ro->event || ro->filter)
		return tdp_err_set(err, TDP_EUSAGE, "'%s' does not apply to Arm SPE ('--spe')", ro->event ? "-e" : "-j");
	ret = pmu_spe_event_spec(spe, strcmp(ro->spe_filter, "all") != 0, &p->spec, err);
	if (ret)
		return ret;
	ret = pmu_branch_event_check(CPU_BRANCH_SPE, &(struct perf_event_attr){ 0 }, p->spec.buf, -1, 0,
				     ro->freq > 0, -1, err);
	if (ret)
		return ret;
	min_interval = cpu_pmu_cap_long(spe, "min_interval");
	p->so.spe = true;
	p->so.spe_pmu_type = (uint32_t)spe->type;
	p->so.period = ro->period > 0 ? (uint64_t)ro->period : min_interval > 0 ? (uint64_t)min_interval
										 : SPE_DEFAULT_INTERVAL;
	return 0;
}

/* Choose the event, the filter and the sampling rate. Returns an exit status, or -1 to go on. */
static int make_plan(const struct rec_opts *ro, const struct cpu_system *sys, struct plan *p)
{
	enum cpu_branch_facility f = sys->branch.facility;
	const struct cpu_pmu *core = cpu_pmu_list_first(&sys->pmus, CPU_PMU_CORE);
	struct pmu_env env = PMU_ENV_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	const struct pmu_event *ev;
	uint64_t filter = PERF_SAMPLE_BRANCH_ANY;
	int ret;

	if (ro->filter && (ret = pmu_branch_filter_parse(ro->filter, &filter, &err)))
		return fail(&err);
	if (ro->spe || (!ro->event && !ro->no_branch_stack && f == CPU_BRANCH_SPE)) {
		if (!ro->spe)
			msg_note("this machine records branches with Arm SPE ('%s')", sys->branch.pmu);
		ret = plan_spe(ro, sys, p, &err);
		if (ret)
			return fail(&err);
	} else if (ro->event) {
		strbuf_adds(&p->spec, ro->event);
	} else if (ro->no_branch_stack) {
		strbuf_adds(&p->spec, "cycles");
	} else if (f == CPU_BRANCH_NONE) {
		return no_facility(sys);
	} else {
		strbuf_adds(&p->spec, pmu_branch_default_event(f));
	}
	env.use_libpfm = ro->event != NULL;
	ret = pmu_event_list_parse(&p->events, p->spec.buf, &env, &err);
	if (ret)
		return fail(&err);
	if (p->events.nr != 1)
		return msg_usage(doc.name, "'-e %s': give one sampling event, not %zu", p->spec.buf, p->events.nr);
	ev = &p->events.v[0];
	p->so.event = ev;
	if (p->so.spe)
		return -1;
	p->so.period = ro->period > 0 ? (uint64_t)ro->period : 0;
	p->so.freq = ro->freq > 0 ? (uint64_t)ro->freq : 0;
	if (!ev->is_hardware) {
		if (ro->filter)
			return msg_usage(doc.name, "'-j' needs a hardware event: '%s' carries no branch stack", ev->name);
		p->note_software = !ro->no_branch_stack;
		return -1;
	}
	if (ro->no_branch_stack)
		return -1;
	if (f == CPU_BRANCH_NONE)
		return no_facility(sys);
	if (f == CPU_BRANCH_SPE) {
		msg_error("this machine has no branch stack, only Arm SPE ('%s')", sys->branch.pmu);
		msg_hint("record with '--spe', or sample without branches with '--no-branch-stack'");
		return EXIT_ANALYSIS;
	}
	if (f == CPU_BRANCH_BRS && !p->so.period && !p->so.freq)
		p->so.period = BRS_DEFAULT_PERIOD;
	if ((ret = pmu_branch_filter_check(f, filter, core ? cpu_pmu_cap_long(core, "branch_counter_nr") : -1, &err)) ||
	    (ret = pmu_branch_event_check(f, &ev->attr, ev->name, core ? core->type : -1, p->so.period, p->so.freq > 0,
					  sys->branch.depth, &err)))
		return fail(&err);
	p->so.branch_sample_type = filter;
	p->branch = true;
	if (f == CPU_BRANCH_BRS)
		msg_note("AMD BRS records taken branches without mispredict flags, cycles or types: the report "
			 "ranks branch sites by how often they are taken");
	return -1;
}

/* perf's default frequency is lowered to what the kernel allows, with a note, as perf does. */
static void cap_freq(struct pmu_sampling_opts *so)
{
	char buf[32];
	uint64_t max;

	if (so->period || tdp_read_small("/proc/sys/kernel/perf_event_max_sample_rate", buf, sizeof(buf)) < 0 ||
	    !str_to_u64(buf, &max) || !max)
		return;
	if (!so->freq)
		so->freq = PMU_SAMPLING_DEFAULT_FREQ;
	if (so->freq > max) {
		msg_warning("%llu samples per second is above the kernel's limit; using %llu "
			    "(/proc/sys/kernel/perf_event_max_sample_rate)",
			    (unsigned long long)so->freq, (unsigned long long)max);
		so->freq = max;
	}
}

static int write_record(void *arg, const void *rec, size_t len, struct tdp_err *err)
{
	return perfdata_writer_add_record(arg, rec, len, err);
}

/* The header features perf writes about the machine and the command. */
static int write_features(struct perfdata_writer *w, const struct cpu_system *sys, int argc, char **argv,
			  struct tdp_err *err)
{
	struct pmu_host_info h;
	const char **cmd = tdp_calloc((size_t)argc + 2, sizeof(*cmd));
	uint8_t *maps = NULL;
	size_t len = 0;
	int ret;

	if (!cmd)
		return tdp_err_oom(err);
	pmu_host_info_read(&h, &sys->cpu);
	cmd[0] = tdp_exe_path() ? tdp_exe_path() : "tdprof";
	cmd[1] = "branches";
	for (int i = 0; i < argc; i++)
		cmd[i + 2] = argv[i];
	ret = perfdata_writer_set_cmdline(w, cmd, (size_t)argc + 2, err);
	if (!ret && h.hostname[0])
		ret = perfdata_writer_set_string(w, PERFDATA_FEAT_HOSTNAME, h.hostname, err);
	if (!ret && h.osrelease[0])
		ret = perfdata_writer_set_string(w, PERFDATA_FEAT_OSRELEASE, h.osrelease, err);
	if (!ret)
		ret = perfdata_writer_set_string(w, PERFDATA_FEAT_VERSION, "tdprof-" TDPROF_VERSION, err);
	if (!ret && h.arch[0])
		ret = perfdata_writer_set_string(w, PERFDATA_FEAT_ARCH, h.arch, err);
	if (!ret && h.nr_cpus_online)
		ret = perfdata_writer_set_nrcpus(w, h.nr_cpus_avail, h.nr_cpus_online, err);
	if (!ret && h.cpudesc[0])
		ret = perfdata_writer_set_string(w, PERFDATA_FEAT_CPUDESC, h.cpudesc, err);
	if (!ret && h.cpuid[0])
		ret = perfdata_writer_set_string(w, PERFDATA_FEAT_CPUID, h.cpuid, err);
	if (!ret && h.total_mem_kb)
		ret = perfdata_writer_set_total_mem(w, h.total_mem_kb, err);
	if (!ret)
		ret = pmu_host_pmu_mappings(&sys->pmus, &maps, &len, err);
	if (!ret)
		ret = perfdata_writer_set_feature_raw(w, PERFDATA_FEAT_PMU_MAPPINGS, maps, len, err);
	tdp_free(maps);
	tdp_free(cmd);
	return ret;
}

static int write_build_ids(struct perfdata_writer *w, struct pmu_sampling *s, struct tdp_err *err)
{
	const struct pmu_dso_hit *hits;
	size_t nr;
	int ret = pmu_sampling_build_ids(s, &hits, &nr, err);

	for (size_t i = 0; !ret && i < nr; i++)
		if (hits[i].build_id_size)
			ret = perfdata_writer_add_build_id(w, -1, hits[i].kernel ? PERFDATA_MISC_KERNEL : PERFDATA_MISC_USER,
							   hits[i].build_id, hits[i].build_id_size, hits[i].filename, err);
	return ret;
}

/* Open the writer and the engine, add the attrs, record. Returns an exit status, or -1 when recorded. */
static int record(const struct rec_opts *ro, struct plan *p, const struct cpu_system *sys, int argc, char **argv,
		  struct pmu_sampling **sp, struct perfdata_writer **wp)
{
	struct tdp_err err = TDP_ERR_INIT;
	int ret;

	ret = perfdata_writer_open(wp, ro->out, &err);
	if (ret)
		return fail(&err);
	ret = pmu_sampling_open(sp, &p->so, &err);
	if (ret == TDP_ENOTSUP && !p->branch && !p->so.spe)
		tdp_err_hint(&err, "'tdprof why --backend=sim -- CMD' gives simulated branch sites; '-e cpu-clock' "
			     "records plain samples here");
	if (ret)
		return fail(&err);
	for (size_t i = 0; !ret && i < pmu_sampling_nr_events(*sp); i++) {
		struct pmu_sampling_event e;

		pmu_sampling_event(*sp, i, &e);
		ret = perfdata_writer_add_attr(*wp, e.attr, e.attr->size, e.ids, e.nr_ids, e.name, &err);
	}
	if (!ret)
		ret = write_features(*wp, sys, argc, argv, &err);
	if (ret)
		return fail(&err);
	if (p->note_software)
		msg_note("'%s' is a software event: the samples carry no branch stack", p->so.event->name);
	fflush(stdout);
	ret = pmu_sampling_run(*sp, write_record, *wp, &err);
	if (ret == TDP_ENOCMD || ret == TDP_ENOEXEC) {
		msg_err(&err);
		return exitcode_from_err(ret);
	}
	if (!ret)
		ret = write_build_ids(*wp, *sp, &err);
	if (ret) {
		msg_err(&err);
		return EXIT_ANALYSIS;
	}
	return -1;
}

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
static int check_usage(const struct rec_opts *ro, bool has_cmd, long *pid)
{
	if (ro->pid_s && !str_to_long(ro->pid_s, 1, 0x7fffffff, pid))
		return msg_usage(doc.name, "-p: '%s' is not a process id", ro->pid_s);
	if (has_cmd == (*pid > 0))
		return msg_usage(doc.name, *pid ? "'-p' records a running process: do not give a command too"
						: "no command to record: give it after '--', or a process with '-p'");
	if (ro->period && ro->freq)
		return msg_usage(doc.name, "'-c' and '-F' cannot be used together");
	if (ro->pages && (ro->pages & (ro->pages - 1)))
		return msg_usage(doc.name, "'-m %ld': the ring buffer needs a power of two of pages", ro->pages);
	if (!strcmp(ro->out, "-"))
		return msg_usage(doc.name, "'-o -': writing a recording to standard output is not supported; give a "
					   "file");
	return EXIT_OK;
}

int cmd_branches_record(int argc, char **argv, struct tdp_ctx *ctx)
{
	struct rec_opts ro = { .out = "perf.data", .spe_filter = "mispredicted" };
	struct opt opts[] = {
		OPT_GROUP("what to sample"),
		OPT_LIST('e', "event", &ro.event, "EVENT", "the sampling event (default: cycles; r0c4 on AMD BRS)"),
		OPT_STRING('j', "branch-filter", &ro.filter, "FILTER", "branch filters as perf spells them (default any)"),
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
	struct plan p = { PMU_EVENT_LIST_INIT, STRBUF_INIT, PMU_SAMPLING_OPTS_INIT, false, false };
	struct cpu_system sys;
	struct tdp_err err = TDP_ERR_INIT;
	struct pmu_sampling *s = NULL;
	struct perfdata_writer *w = NULL;
	bool have_sys = false;
	long pid = 0;
	int i, rc = EXIT_USAGE, ret;

	(void)ctx;

	i = opts_parse(opts, &doc, argc, argv);
	if (i < 0) {
		rc = opts_exit(i);
		goto out;
	}
	if (check_usage(&ro, i < argc, &pid))
		goto out;
	ret = cpu_system_detect(&sys, NULL, &err);
	if (ret) {
		rc = fail(&err);
		goto out;
	}
	have_sys = true;
	rc = make_plan(&ro, &sys, &p);
	if (rc >= 0)
		goto out;
	p.so.argv = i < argc ? argv + i : NULL;
	p.so.pid = (pid_t)pid;
	p.so.no_inherit = ro.no_inherit;
	p.so.mmap_pages = (unsigned)ro.pages;
	if (!p.so.spe)
		cap_freq(&p.so);
	rc = record(&ro, &p, &sys, argc, argv, &s, &w);
	if (rc >= 0)
		goto out;
	ret = perfdata_writer_close(w, &err);
	w = NULL;
	if (ret) {
		rc = fail(&err);
		rc = rc == EXIT_USAGE ? EXIT_ANALYSIS : rc;
		goto out;
	}
	{
		const struct pmu_sampling_stats *st = pmu_sampling_stats(s);
		struct stat sb;

		summary(ro.out, st, stat(ro.out, &sb) == 0 ? (uint64_t)sb.st_size : 0, p.branch);
		if (st->signal)
			msg_note(p.so.argv ? "SIG%s was passed on to the command" : "recording stopped by SIG%s",
				 sigabbrev_np(st->signal) ? sigabbrev_np(st->signal) : "?");
		rc = st->workload_ran ? exitcode_from_wait(st->wstatus) : EXIT_OK;
	}
out:
	/* an error before close leaves the file unfinished: perf and our reader say so */
	perfdata_writer_free(w);
	pmu_sampling_close(s);
	if (have_sys)
		cpu_system_release(&sys);
	pmu_event_list_release(&p.events);
	strbuf_release(&p.spec);
	tdp_free(ro.event);
	return rc;
}
