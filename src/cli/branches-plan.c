/* branches-plan.c: what `branches record` samples (see branches-plan.h). */
#include "cli/branches-plan.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "base/err.h"
#include "base/file.h"
#include "base/str.h"
#include "pmu/event.h"

#include <string.h>

/* A fixed period for AMD BRS, which cannot sample by frequency (a prime, as perf users pick). */
#define BRS_DEFAULT_PERIOD 100003
/* SPE's interval when the PMU does not say its minimum (perf's fallback). */
#define SPE_DEFAULT_INTERVAL 4096

int branches_fail(struct tdp_err *err)
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

static int plan_spe(const struct branches_record_opts *ro, const struct cpu_system *sys, struct branches_plan *p,
		    struct tdp_err *err)
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
int branches_plan(const struct branches_record_opts *ro, const struct cpu_system *sys, struct branches_plan *p)
{
	enum cpu_branch_facility f = sys->branch.facility;
	const struct cpu_pmu *core = cpu_pmu_list_first(&sys->pmus, CPU_PMU_CORE);
	struct pmu_env env = PMU_ENV_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	const struct pmu_event *ev;
	uint64_t filter = PERF_SAMPLE_BRANCH_ANY;
	int ret;

	if (ro->filter && (ret = pmu_branch_filter_parse(ro->filter, &filter, &err)))
		return branches_fail(&err);
	if (ro->spe || (!ro->event && !ro->no_branch_stack && f == CPU_BRANCH_SPE)) {
		if (!ro->spe)
			msg_note("this machine records branches with Arm SPE ('%s')", sys->branch.pmu);
		ret = plan_spe(ro, sys, p, &err);
		if (ret)
			return branches_fail(&err);
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
		return branches_fail(&err);
	if (p->events.nr != 1)
		return msg_usage(BRANCHES_RECORD, "'-e %s': give one sampling event, not %zu", p->spec.buf, p->events.nr);
	ev = &p->events.v[0];
	p->so.event = ev;
	if (p->so.spe)
		return -1;
	p->so.period = ro->period > 0 ? (uint64_t)ro->period : 0;
	p->so.freq = ro->freq > 0 ? (uint64_t)ro->freq : 0;
	/* an event's own period= or freq= term ("cycles/period=1000/") wins over -c and -F, as in perf */
	if (ev->attr.freq && ev->attr.sample_freq) {
		p->so.freq = ev->attr.sample_freq;
		p->so.period = 0;
	} else if (!ev->attr.freq && ev->attr.sample_period) {
		p->so.period = ev->attr.sample_period;
		p->so.freq = 0;
	}
	if (!ev->is_hardware) {
		if (ro->filter || ro->branch_any)
			return msg_usage(BRANCHES_RECORD, "'%s' needs a hardware event: '%s' carries no branch stack",
					 ro->filter ? "-j" : "-b", ev->name);
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
		return branches_fail(&err);
	p->so.branch_sample_type = filter;
	p->branch = true;
	if (f == CPU_BRANCH_BRS)
		msg_note("AMD BRS records taken branches without mispredict flags, cycles or types: the report "
			 "ranks branch sites by how often they are taken");
	return -1;
}

/* perf's default frequency is lowered to what the kernel allows, with a note, as perf does. */
void branches_cap_freq(struct pmu_sampling_opts *so)
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


void branches_plan_release(struct branches_plan *p)
{
	pmu_event_list_release(&p->events);
	strbuf_release(&p->spec);
}
