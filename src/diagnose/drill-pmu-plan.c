/*
 * drill-pmu-plan.c: what the PMU drill-down samples (diag_pmu_plan(), see
 * drill-pmu.h): branch stacks or SPE for Bad Speculation where the machine has
 * them, IP samples of cycles otherwise, at a rate that gives a short run enough
 * samples.
 */
#include "diagnose/drill-pmu.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "model/locate.h"
#include "model/model.h"

const char *diag_sample_method_name(enum diag_sample_method m)
{
	switch (m) {
	case DIAG_SAMPLE_BRANCH_STACK: return "branch_stack";
	case DIAG_SAMPLE_SPE: return "spe";
	case DIAG_SAMPLE_IP: break;
	}
	return "ip";
}

/* snprintf into a fixed buffer, cutting what does not fit (reasons are prose, read by people). */
__attribute__((format(printf, 3, 4))) static void setf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

/* A facility as people name it. */
static const char *facility_label(enum cpu_branch_facility f)
{
	switch (f) {
	case CPU_BRANCH_LBR: return "Intel LBR";
	case CPU_BRANCH_LBR_EXT_V2: return "AMD LbrExtV2";
	case CPU_BRANCH_BRS: return "AMD BRS";
	case CPU_BRANCH_BRBE: return "Arm BRBE";
	case CPU_BRANCH_SPE: return "Arm SPE";
	case CPU_BRANCH_NONE: break;
	}
	return "branch";
}

static enum diag_drill drill_of(const char *category)
{
	if (!category)
		return DIAG_DRILL_HOT_LOOP;
	if (!strcmp(category, "bad_speculation"))
		return DIAG_DRILL_BRANCHES;
	if (!strcmp(category, "frontend_bound"))
		return DIAG_DRILL_ICACHE;
	if (!strcmp(category, "backend_bound"))
		return DIAG_DRILL_MEMORY;
	return DIAG_DRILL_HOT_LOOP;
}

/*
 * The sampling frequency: perf's 4000 Hz, raised for a short run so that it still
 * gives about DIAG_PMU_MIN_SAMPLES (a 0.1 s run: 20000 Hz), never above
 * DIAG_PMU_MAX_FREQ nor the kernel's limit.
 */
static uint64_t frequency(const struct diag_pmu_plan_in *in)
{
	uint64_t f = DIAG_PMU_FREQ;

	if (in->run_seconds > 0 && in->run_seconds * DIAG_PMU_FREQ < DIAG_PMU_MIN_SAMPLES) {
		double want = DIAG_PMU_MIN_SAMPLES / in->run_seconds;

		f = want >= DIAG_PMU_MAX_FREQ ? DIAG_PMU_MAX_FREQ : (uint64_t)want;
	}
	if (in->max_rate && f > in->max_rate)
		f = in->max_rate;
	return f ? f : 1;
}

/* A node's name as people read it: the tree's label (Intel's deeper nodes), else the vocabulary's. */
static const char *label_of(const struct metric_tree *t, const char *key)
{
	const struct metric_node *n = t && key ? metric_tree_find(t, key) : NULL;

	return n && n->label ? n->label : key ? model_node_label(key) : "?";
}

/* Whether node key of t is ancestor or under it (memory nodes: their samples have data addresses). */
static bool under(const struct metric_tree *t, const char *key, const char *ancestor)
{
	for (const struct metric_node *n = metric_tree_find(t, key); n;
	     n = n->parent ? metric_tree_find(t, n->parent) : NULL)
		if (!strcmp(n->key, ancestor))
			return true;
	return false;
}

/* IP samples of cycles, with the reason (a format and its arguments). */
static void plan_ip(struct diag_pmu_plan *p, const struct diag_pmu_plan_in *in)
{
	p->method = DIAG_SAMPLE_IP;
	snprintf(p->event, sizeof(p->event), "cycles");
	p->freq = frequency(in);
	p->period = 0;
	p->branch_sample_type = 0;
	p->data_addr = false;
	p->spe_loads = false;
	p->locate_leaf = NULL;
}

/* SPE sampling of the event spec in sb (released): one operation in the PMU's minimum interval. 0 or TDP_ENOMEM. */
static int take_spe(struct diag_pmu_plan *p, const struct cpu_pmu *spe, struct strbuf *sb)
{
	long min_interval;

	if (strbuf_failed(sb) || sb->len >= sizeof(p->event)) {
		strbuf_release(sb);
		return TDP_ENOMEM;
	}
	memcpy(p->event, sb->buf, sb->len + 1);
	strbuf_release(sb);
	min_interval = cpu_pmu_cap_long(spe, "min_interval");
	p->method = DIAG_SAMPLE_SPE;
	p->spe_pmu_type = spe->type > 0 ? (uint32_t)spe->type : 0;
	p->period = min_interval > 0 ? (uint64_t)min_interval : DIAG_PMU_SPE_INTERVAL;
	p->freq = 0;
	return 0;
}

/* Bad Speculation with Arm SPE: every sampled branch (so that rates can be told), not only the mispredicted. */
static int plan_spe(struct diag_pmu_plan *p, const struct diag_pmu_plan_in *in)
{
	const struct cpu_pmu *spe = in->pmus ? cpu_pmu_list_first(in->pmus, CPU_PMU_SPE) : NULL;
	struct strbuf sb = STRBUF_INIT;
	struct tdp_err e = TDP_ERR_INIT;

	if (!spe || pmu_spe_event_spec(spe, false, &sb, &e)) {
		strbuf_release(&sb);
		plan_ip(p, in);
		setf(p->reason, sizeof(p->reason),
			 "Bad Speculation, but Arm SPE cannot sample branches here (%s): the hot code by cycles "
			 "samples instead, whose branches are the suspects",
			 spe ? e.msg : "no arm_spe PMU is listed");
		return 0;
	}
	if (take_spe(p, spe, &sb))
		return TDP_ENOMEM;
	setf(p->reason, sizeof(p->reason),
		 "Bad Speculation: Arm SPE ('%s') samples one operation in %llu; its branch records say which "
		 "branches mispredicted",
		 spe->name, (unsigned long long)p->period);
	return 0;
}

/*
 * A memory leaf on a machine with Arm SPE: SPE's load records (PC, data address, latency), which locate
 * loads better than any counter's samples. Returns 1 when planned, 0 when SPE cannot (no PMU, no
 * load_filter), TDP_ENOMEM.
 */
static int plan_spe_loads(struct diag_pmu_plan *p, const struct diag_pmu_plan_in *in)
{
	const struct cpu_pmu *spe = in->pmus ? cpu_pmu_list_first(in->pmus, CPU_PMU_SPE) : NULL;
	const struct metric_node *leaf = in->tree ? locate_leaf(in->tree) : NULL;
	struct strbuf sb = STRBUF_INIT;
	struct tdp_err e = TDP_ERR_INIT;

	if (!spe || !leaf || !(under(in->tree, leaf->key, "memory_bound") || !strcmp(leaf->key, "backend_bound")))
		return 0;
	if (pmu_spe_load_spec(spe, &sb, &e)) {
		strbuf_release(&sb);
		return 0;
	}
	if (take_spe(p, spe, &sb))
		return TDP_ENOMEM;
	p->spe_loads = true;
	p->locate_leaf = leaf->key;
	setf(p->reason, sizeof(p->reason),
	     "%s, down to its dominant leaf %s: Arm SPE ('%s') samples one operation in %llu, and its load records "
	     "give each load's instruction, data address and latency",
	     model_node_label(in->category), label_of(in->tree, leaf->key), spe->name, (unsigned long long)p->period);
	return 1;
}

int diag_pmu_plan(struct diag_pmu_plan *p, const struct diag_pmu_plan_in *in, struct tdp_err *err)
{
	const struct cpu_branch *br = in->branch;
	const struct cpu_pmu *core = in->pmus ? cpu_pmu_list_first(in->pmus, CPU_PMU_CORE) : NULL;
	const char *label = in->category ? model_node_label(in->category) : NULL;
	enum cpu_branch_facility f = br ? br->facility : CPU_BRANCH_NONE;

	memset(p, 0, sizeof(*p));
	p->drill = drill_of(in->category);
	p->facility = f;
	p->facility_name = cpu_branch_facility_name(f);
	setf(p->facility_reason, sizeof(p->facility_reason), "%s",
		 br && br->reason[0] ? br->reason : "the machine's branch recording is unknown");
	p->depth = br ? br->depth : -1;
	p->core_type = core ? core->type : -1;
	p->branch_counters = core ? cpu_pmu_cap_long(core, "branch_counter_nr") : -1;
	plan_ip(p, in);
	if (p->drill != DIAG_DRILL_BRANCHES && in->tree && in->category) {
		int planned = plan_spe_loads(p, in);

		if (planned < 0)
			return tdp_err_oom(err);
		if (planned)
			return 0;
	}
	if (p->drill != DIAG_DRILL_BRANCHES && in->tree && in->category) {
		struct locate_plan lp;

		/* the dominant leaf's own event finds its code better than cycles do */
		if (!locate_plan(in->tree, in->max_precise, &lp) && lp.spec[0]) {
			snprintf(p->event, sizeof(p->event), "%s", lp.spec);
			snprintf(p->locate_event, sizeof(p->locate_event), "%s", lp.event);
			p->locate_leaf = lp.leaf;
			p->data_addr = lp.precise && under(in->tree, lp.leaf, "memory_bound");
			setf(p->reason, sizeof(p->reason), "%s, down to its dominant leaf %s: %s%s", label,
			     label_of(in->tree, lp.leaf), lp.reason,
			     p->data_addr ? ", with each sample's data address (as perf record -d)" : "");
			return 0;
		}
	}
	if (p->drill != DIAG_DRILL_BRANCHES) {
		if (in->category)
			setf(p->reason, sizeof(p->reason), "%s: the hot %s by cycles samples", label,
				 p->drill == DIAG_DRILL_ICACHE ? "code footprint, per function" : "lines and functions");
		else
			setf(p->reason, sizeof(p->reason),
				 "no top-down verdict here: the hot lines and functions by cycles samples");
		return 0;
	}
	switch (f) {
	case CPU_BRANCH_LBR:
	case CPU_BRANCH_LBR_EXT_V2:
	case CPU_BRANCH_BRBE:
		p->method = DIAG_SAMPLE_BRANCH_STACK;
		snprintf(p->event, sizeof(p->event), "%s", pmu_branch_default_event(f));
		p->branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
		setf(p->reason, sizeof(p->reason),
			 "Bad Speculation: %s branch stacks of cycles samples, whose records say which branches "
			 "mispredicted",
			 facility_label(f));
		return 0;
	case CPU_BRANCH_BRS:
		/* BRS: only retired taken branches (0xC4), at a fixed period above the depth */
		p->method = DIAG_SAMPLE_BRANCH_STACK;
		snprintf(p->event, sizeof(p->event), "%s", pmu_branch_default_event(f));
		p->branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
		p->freq = 0;
		p->period = DIAG_PMU_BRS_PERIOD;
		setf(p->reason, sizeof(p->reason),
			 "Bad Speculation: AMD BRS branch stacks (one sample every %d taken branches); BRS records no "
			 "mispredict flag, so the sites are the most taken branches, the candidates",
			 DIAG_PMU_BRS_PERIOD);
		return 0;
	case CPU_BRANCH_SPE:
		return plan_spe(p, in) ? tdp_err_oom(err) : 0;
	case CPU_BRANCH_NONE:
		break;
	}
	setf(p->reason, sizeof(p->reason),
		 "Bad Speculation, but this machine has no branch-recording facility (%s): the hot code by cycles "
		 "samples instead, whose branches are the suspects",
		 p->facility_reason);
	return 0;
}

void diag_pmu_plan_fallback(struct diag_pmu_plan *p, const struct diag_pmu_plan_in *in, const char *why)
{
	const char *what = facility_label(p->facility);

	if (p->spe_loads) {
		setf(p->reason, sizeof(p->reason),
		     "Arm SPE's load recording did not open (%s): the hot lines and functions by cycles samples instead",
		     why);
		plan_ip(p, in);
		return;
	}

	setf(p->reason, sizeof(p->reason),
	     "Bad Speculation, but the %s recording did not open (%s): the hot code by cycles samples instead, whose "
	     "branches are the suspects",
	     what, why);
	plan_ip(p, in);
}

void diag_pmu_plan_unlocate(struct diag_pmu_plan *p, const struct diag_pmu_plan_in *in, const char *what_happened)
{
	char event[sizeof(p->locate_event)];
	const char *leaf = p->locate_leaf;

	snprintf(event, sizeof(event), "%s", p->locate_event);
	plan_ip(p, in);
	p->locate_leaf = NULL;
	p->locate_event[0] = '\0';
	setf(p->reason, sizeof(p->reason),
	     "the dominant leaf %s was not located: its Locate-with event %s %s; the hot lines and functions by cycles "
	     "samples instead", label_of(in->tree, leaf), event, what_happened);
}
