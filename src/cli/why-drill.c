/* why-drill.c: the PMU drill-down of `tdprof why` as the command runs it (see why-drill.h). */
#include "cli/why-drill.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"
#include "base/str.h"
#include "cli/backend.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/progress.h"
#include "cli/symenv.h"
#include "cpu/cpu.h"
#include "diagnose/drill-pmu.h"
#include "symbol/symbol.h"

void why_drill_no_model(struct diag *d, const char *why)
{
	diag_pmu_no_model(d, why);
}

static uint64_t max_sample_rate(void)
{
	char buf[32];
	uint64_t v;

	if (tdp_read_small("/proc/sys/kernel/perf_event_max_sample_rate", buf, sizeof(buf)) < 0)
		return 0;
	buf[strcspn(buf, "\n")] = '\0';
	return str_to_u64(buf, &v) ? v : 0;
}

static void say_plan(const struct diag_pmu_plan *p, const char *cmd)
{
	if (p->freq)
		msg_progress("drill-down: running '%s' again, sampling '%s' at %llu Hz (%s)", cmd, p->event,
			     (unsigned long long)p->freq, diag_sample_method_name(p->method));
	else
		msg_progress("drill-down: running '%s' again, sampling '%s' every %llu (%s)", cmd, p->event,
			     (unsigned long long)p->period, diag_sample_method_name(p->method));
	msg_progress("drill-down: %s", p->reason);
}

static int record_once(const struct diag_pmu_plan *p, const struct why_drill_in *in, struct diag_pmu_recording *rec,
		       struct tdp_err *err)
{
	int ret, saved;

	say_plan(p, in->argv[0]);
	saved = backend_divert_stdout(in->divert);
	progress_begin(true, "drill-down: running %s again, sampled", in->argv[0]);
	ret = diag_pmu_record(p, in->argv, getenv("TMPDIR"), rec, err);
	progress_end();
	backend_restore_stdout(saved);
	return ret;
}

/*
 * Record as planned. A branch recording or a leaf's event the kernel refuses, and a leaf's
 * event that gave no sample (QEMU's PMU opens events it never counts), are retried once
 * with IP samples of cycles, the reason saying why the leaf was not located.
 */
static int record(struct diag_pmu_plan *p, const struct diag_pmu_plan_in *pin, const struct why_drill_in *in,
		  struct diag_pmu_recording *rec, struct tdp_err *err)
{
	char what[TDP_ERR_MSG_MAX + 32];
	int ret = record_once(p, in, rec, err);

	if (!ret && p->locate_leaf && !p->spe_loads && !rec->stats.samples) {
		snprintf(what, sizeof(what), "%s", p->locate_event);
		diag_pmu_recording_release(rec);
		msg_warning("the dominant leaf's Locate-with event '%s' gave no sample: the leaf is not located; sampling "
			    "cycles instead", what);
		diag_pmu_plan_unlocate(p, pin, "gave no sample in its run (the PMU did not count it there)");
		return record_once(p, in, rec, err);
	}
	if (!ret || (p->method == DIAG_SAMPLE_IP && !p->locate_leaf) ||
	    (ret != TDP_ENOTSUP && ret != TDP_EPERM && ret != TDP_EUSAGE && ret != TDP_EINVAL && ret != TDP_ENOENT))
		return ret;
	/* a branch facility or the dominant leaf's event that did not open: cycles samples instead */
	snprintf(what, sizeof(what), "did not open (%s)", err->msg);
	if (p->locate_leaf && !p->spe_loads)
		diag_pmu_plan_unlocate(p, pin, what);
	else
		diag_pmu_plan_fallback(p, pin, err->msg);
	*err = (struct tdp_err)TDP_ERR_INIT;
	return record_once(p, in, rec, err);
}

void why_drill_pmu(struct diag *d, const struct why_drill_in *in)
{
	struct cpu_system sys;
	struct diag_pmu_plan plan;
	struct diag_pmu_plan_in pin;
	struct diag_pmu_recording rec = DIAG_PMU_RECORDING_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	const struct pmu_sampling_stats *st = &rec.stats;
	struct symbol_opts so;
	char *client;
	const struct cpu_pmu *core;
	int ret;

	if ((ret = cpu_system_detect(&sys, NULL, &err))) {
		msg_warning("no drill-down: %s", err.msg);
		return;
	}
	core = cpu_pmu_list_first(&sys.pmus, CPU_PMU_CORE);
	pin = (struct diag_pmu_plan_in){ d->category, &sys.branch, &sys.pmus, in->run_seconds, max_sample_rate(),
					 d->has_tree ? &d->tree : NULL,
					 core ? (int)cpu_pmu_cap_long(core, "max_precise") : -1 };
	ret = diag_pmu_plan(&plan, &pin, &err);
	if (!ret)
		ret = record(&plan, &pin, in, &rec, &err);
	if (ret) {
		msg_warning("no drill-down: %s", err.msg);
		if (err.hint[0])
			msg_hint("%s", err.hint);
		goto out;
	}
	if (st->workload_ran && exitcode_from_wait(st->wstatus) != in->first_status)
		msg_warning("the drill-down's run of '%s' exited with status %d, the first with %d: its sites may not "
			    "describe the first run",
			    in->argv[0], exitcode_from_wait(st->wstatus), in->first_status);
	if (st->signal)
		msg_note("SIG%s was passed on to the drill-down's run of '%s': its samples stop there",
			 sigabbrev_np(st->signal) ? sigabbrev_np(st->signal) : "?", in->argv[0]);
	if (st->user_only)
		msg_note("perf_event_paranoid allows user space only: the drill-down has no kernel samples");
	if (plan.spe_loads)
		msg_progress("drill-down: %zu bytes of SPE load records; ranking the loads", rec.size);
	else if (plan.method == DIAG_SAMPLE_IP)
		msg_progress("drill-down: %llu samples; ranking the hot code", (unsigned long long)st->samples);
	else
		msg_progress("drill-down: %llu samples with %llu branch records; ranking the branches",
			     (unsigned long long)st->samples, (unsigned long long)st->branch_entries);
	symbol_opts_init(&so);
	so.debuginfod_client = client = symenv_debuginfod(&so.debuginfod_envp);
	ret = diag_pmu_drill(d, rec.data, rec.size, &(struct diag_pmu_drill_opts){ &plan, in->o, &so, rec.dropped },
			     &err);
	tdp_free(client);
	if (ret)
		msg_warning("the drill-down is incomplete: %s", err.msg);
out:
	diag_pmu_recording_release(&rec);
	cpu_system_release(&sys);
}
