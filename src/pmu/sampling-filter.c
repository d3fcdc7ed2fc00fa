/*
 * sampling-filter.c: -j branch filters as perf spells them
 * (tools/perf/util/parse-branch-options.c), and what each facility's kernel
 * driver accepts, checked before opening so that the user is told why.
 */
#include "pmu/sampling.h"
#include "base/err.h"
#include "base/str.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

struct branch_name {
	const char *name;
	uint64_t bit;
};

/* perf's names first (its table order), then the kernel-only ones and an alias. */
static const struct branch_name names[] = {
	{ "u", PERF_SAMPLE_BRANCH_USER },
	{ "k", PERF_SAMPLE_BRANCH_KERNEL },
	{ "hv", PERF_SAMPLE_BRANCH_HV },
	{ "any", PERF_SAMPLE_BRANCH_ANY },
	{ "any_call", PERF_SAMPLE_BRANCH_ANY_CALL },
	{ "any_ret", PERF_SAMPLE_BRANCH_ANY_RETURN },
	{ "ind_call", PERF_SAMPLE_BRANCH_IND_CALL },
	{ "abort_tx", PERF_SAMPLE_BRANCH_ABORT_TX },
	{ "in_tx", PERF_SAMPLE_BRANCH_IN_TX },
	{ "no_tx", PERF_SAMPLE_BRANCH_NO_TX },
	{ "cond", PERF_SAMPLE_BRANCH_COND },
	{ "ind_jmp", PERF_SAMPLE_BRANCH_IND_JUMP },
	{ "call", PERF_SAMPLE_BRANCH_CALL },
	{ "save_type", PERF_SAMPLE_BRANCH_TYPE_SAVE },
	{ "stack", PERF_SAMPLE_BRANCH_CALL_STACK },
	{ "hw_index", PMU_BRANCH_HW_INDEX },
	{ "priv", PMU_BRANCH_PRIV_SAVE },
	{ "counter", PMU_BRANCH_COUNTERS },
	{ "no_flags", PERF_SAMPLE_BRANCH_NO_FLAGS },
	{ "no_cycles", PERF_SAMPLE_BRANCH_NO_CYCLES },
	{ "call_stack", PERF_SAMPLE_BRANCH_CALL_STACK },
};

#define NR_NAMES (sizeof(names) / sizeof(names[0]))

/* The bits that select branch types (the rest are levels and modifiers). */
#define BRANCH_TYPES                                                                                          \
	(PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_ANY_CALL | PERF_SAMPLE_BRANCH_ANY_RETURN |                 \
	 PERF_SAMPLE_BRANCH_IND_CALL | PERF_SAMPLE_BRANCH_COND | PERF_SAMPLE_BRANCH_IND_JUMP | PERF_SAMPLE_BRANCH_CALL | \
	 PERF_SAMPLE_BRANCH_CALL_STACK)
/* the last entry is an alias: describe() prints "stack" for the bit */
#define NR_DESCRIBED (NR_NAMES - 1)

static int unknown(const char *spec, const char *word, size_t len, struct tdp_err *err)
{
	const char *list[NR_NAMES];
	char w[64];
	size_t idx[3], n;
	struct strbuf sb = STRBUF_INIT;

	snprintf(w, sizeof(w), "%.*s", (int)(len < 60 ? len : 60), word);
	if (!len) {
		tdp_err_set(err, TDP_EUSAGE, "'-j %s': empty branch filter between commas", spec);
		tdp_err_hint(err, "give filters separated by single commas, e.g. '-j any,u'");
		return TDP_EUSAGE;
	}
	tdp_err_set(err, TDP_EUSAGE, "'-j %s': unknown branch filter '%s'", spec, w);
	for (size_t i = 0; i < NR_NAMES; i++)
		list[i] = names[i].name;
	n = str_suggest(w, list, NR_NAMES, idx, 3);
	if (n) {
		strbuf_adds(&sb, "did you mean ");
		for (size_t i = 0; i < n; i++)
			strbuf_addf(&sb, "%s'%s'", i ? (i + 1 == n ? " or " : ", ") : "", list[idx[i]]);
		strbuf_adds(&sb, "? ");
	}
	strbuf_adds(&sb, "filters:");
	for (size_t i = 0; i < NR_NAMES; i++)
		strbuf_addf(&sb, " %s", names[i].name);
	tdp_err_hint(err, "%s", sb.buf);
	strbuf_release(&sb);
	return TDP_EUSAGE;
}

int pmu_branch_filter_parse(const char *spec, uint64_t *out, struct tdp_err *err)
{
	uint64_t mode = 0;
	size_t len = strlen(spec);
	const char *p = spec;

	if (len > PMU_BRANCH_FILTER_MAX)
		return tdp_err_set(err, TDP_ELIMIT, "'-j': a branch filter of %zu bytes (at most %d)", len,
				   PMU_BRANCH_FILTER_MAX);
	while (len) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		size_t i;

		for (i = 0; i < NR_NAMES; i++)
			if (strlen(names[i].name) == n && !strncasecmp(p, names[i].name, n))
				break;
		if (i == NR_NAMES)
			return unknown(spec, p, n, err);
		mode |= names[i].bit;
		if (!comma)
			break;
		p = comma + 1;
		if (!*p)
			return unknown(spec, p, 0, err);
	}
	/*
	 * No branch type (only levels or modifiers such as save_type): record any
	 * branch, as perf does for levels alone. perf then drops the levels; we keep
	 * them, so '-j u' means user branches. (Without a type the kernel would
	 * record nothing, or refuse: BRBE wants at least one.)
	 */
	if (!(mode & BRANCH_TYPES))
		mode |= PERF_SAMPLE_BRANCH_ANY;
	*out = mode;
	return 0;
}

void pmu_branch_filter_describe(uint64_t filter, struct strbuf *sb)
{
	bool first = true;

	for (size_t i = 0; i < NR_DESCRIBED; i++) {
		if (!(filter & names[i].bit))
			continue;
		strbuf_addf(sb, "%s%s", first ? "" : ",", names[i].name);
		first = false;
	}
}

static int refuse(uint64_t bad, const char *facility, const char *why, struct tdp_err *err)
{
	struct strbuf sb = STRBUF_INIT;

	pmu_branch_filter_describe(bad, &sb);
	tdp_err_set(err, TDP_EUSAGE, "branch filter '%s' is not supported by %s%s%s", sb.buf, facility,
		    why ? ": " : "", why ? why : "");
	strbuf_release(&sb);
	tdp_err_hint(err, "leave it out of '-j' (see 'tdprof branches record --help' for what each facility "
				 "accepts)");
	return TDP_EUSAGE;
}

#define TX_BITS (PERF_SAMPLE_BRANCH_ABORT_TX | PERF_SAMPLE_BRANCH_IN_TX | PERF_SAMPLE_BRANCH_NO_TX)

int pmu_branch_filter_check(enum cpu_branch_facility f, uint64_t filter, long branch_counters,
			    struct tdp_err *err)
{
	uint64_t bad;

	switch (f) {
	case CPU_BRANCH_LBR:
		if ((filter & PMU_BRANCH_COUNTERS) && branch_counters <= 0)
			return refuse(PMU_BRANCH_COUNTERS, "this Intel LBR",
				      "branch counters need architectural LBR with caps/branch_counter_nr (Sierra "
				      "Forest, Lunar Lake and later)", err);
		return 0;
	case CPU_BRANCH_LBR_EXT_V2:
		/* arch/x86/events/amd/lbr.c: LBR_NOT_SUPP in lbr_select_map; counters are Intel's */
		bad = filter & (PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_NO_FLAGS |
				PERF_SAMPLE_BRANCH_NO_CYCLES | TX_BITS | PMU_BRANCH_COUNTERS);
		return bad ? refuse(bad, "AMD LbrExtV2", "it has no call-stack mode, no TSX, and always records "
							 "the mispredict flags (never cycles)", err)
			   : 0;
	case CPU_BRANCH_BRS:
		/* arch/x86/events/amd/brs.c amd_brs_setup_filter(): only ANY, plus privilege levels */
		bad = filter & ~(PMU_BRANCH_PLM | PERF_SAMPLE_BRANCH_ANY);
		return bad ? refuse(bad, "AMD BRS (Zen 3)", "it records every taken branch, with no type filter "
							    "and no flags; use '-j any' (optionally with u or k)", err)
			   : 0;
	case CPU_BRANCH_BRBE:
		/* drivers/perf/arm_brbe.c BRBE_EXCLUDE_BRANCH_FILTERS */
		bad = filter & (PERF_SAMPLE_BRANCH_CALL_STACK | TX_BITS | PMU_BRANCH_COUNTERS);
		return bad ? refuse(bad, "Arm BRBE", NULL, err) : 0;
	case CPU_BRANCH_SPE:
		tdp_err_set(err, TDP_EUSAGE, "Arm SPE records sampled branches, not branch stacks: '-j' does not apply");
		tdp_err_hint(err, "leave out '-j' with '--spe'");
		return TDP_EUSAGE;
	case CPU_BRANCH_NONE:
		break;
	}
	return tdp_err_set(err, TDP_EUSAGE, "this machine has no branch-stack facility for '-j'");
}

const char *pmu_branch_default_event(enum cpu_branch_facility f)
{
	switch (f) {
	case CPU_BRANCH_LBR:
	case CPU_BRANCH_LBR_EXT_V2:
	case CPU_BRANCH_BRBE:
		return "cycles";
	case CPU_BRANCH_BRS:
		return "r0c4";
	case CPU_BRANCH_SPE:
	case CPU_BRANCH_NONE:
		break;
	}
	return NULL;
}

/*
 * AMD64_RAW_EVENT_MASK (arch/x86/include/asm/perf_event.h): event select
 * [7:0] and [35:32], unit mask, edge, invert, counter mask. amd_is_brs_event()
 * compares the event's config under it with 0xC4.
 */
#define AMD64_RAW_EVENT_MASK (0xF00000000ull | 0xFF84FFFFull)
#define AMD_BRS_EVENT 0xC4ull

int pmu_branch_event_check(enum cpu_branch_facility f, const struct perf_event_attr *attr, const char *name,
			   long core_type, uint64_t period, bool freq, int depth, struct tdp_err *err)
{
	bool core = attr->type == PERF_TYPE_RAW || (core_type >= 0 && attr->type == (uint32_t)core_type);

	switch (f) {
	case CPU_BRANCH_BRS:
		if (!core || (attr->config & AMD64_RAW_EVENT_MASK) != AMD_BRS_EVENT) {
			tdp_err_set(err, TDP_EUSAGE,
				    "AMD BRS samples only on retired taken branches (event 0xC4), not on '%s'", name);
			tdp_err_hint(err, "leave out '-e' (the default is 'r0c4'), or give '-e r0c4'");
			return TDP_EUSAGE;
		}
		if (freq) {
			tdp_err_set(err, TDP_EUSAGE, "AMD BRS cannot sample in frequency mode ('-F')");
			tdp_err_hint(err, "give a fixed period instead, e.g. '-c 100003'");
			return TDP_EUSAGE;
		}
		if (period <= (uint64_t)(depth > 0 ? depth : 16)) {
			tdp_err_set(err, TDP_EUSAGE,
				    "AMD BRS needs a period above its depth (%d taken branches), not %llu", depth > 0 ? depth : 16,
				    (unsigned long long)period);
			tdp_err_hint(err, "give a larger period, e.g. '-c 100003'");
			return TDP_EUSAGE;
		}
		return 0;
	case CPU_BRANCH_SPE:
		if (freq) {
			tdp_err_set(err, TDP_EUSAGE, "Arm SPE samples by interval, not in frequency mode ('-F')");
			tdp_err_hint(err, "give the sampling interval in operations with '-c', or leave it to the "
						 "PMU's minimum");
			return TDP_EUSAGE;
		}
		return 0;
	case CPU_BRANCH_LBR:
	case CPU_BRANCH_LBR_EXT_V2:
	case CPU_BRANCH_BRBE:
		if (attr->type == PERF_TYPE_SOFTWARE || attr->type == PERF_TYPE_TRACEPOINT) {
			tdp_err_set(err, TDP_EUSAGE, "'%s' is not a hardware event: it cannot carry a branch stack", name);
			tdp_err_hint(err, "use a hardware event (the default is 'cycles'), or add '--no-branch-stack'");
			return TDP_EUSAGE;
		}
		return 0;
	case CPU_BRANCH_NONE:
		break;
	}
	return 0;
}
