/*
 * event-generic.c: perf's generic event names, as tables.
 *
 * Spellings and aliases follow perf 6.1 (tools/perf/util/parse-events.l for the
 * hardware and software names, evsel.c's evsel__hw_cache* tables for the cache
 * names and which operations each cache type has); the numbers are those of
 * <linux/perf_event.h>. Matching is case-insensitive.
 */
#include "pmu/event-internal.h"

#include "base/err.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct generic_name {
	const char *name;
	uint32_t type;
	uint64_t config;
	const char *desc; /* NULL: an alias, not listed */
};

static const struct generic_name generic_names[] = {
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "CPU cycles (alias: cycles)" },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "CPU cycles" },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "retired instructions" },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES,
	  "cache accesses (usually last-level cache)" },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES,
	  "cache misses (usually last-level cache)" },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
	  "retired branch instructions (alias: branches)" },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "retired branch instructions" },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "mispredicted branch instructions" },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, "bus cycles" },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
	  "cycles the front end delivered nothing (alias: idle-cycles-frontend)" },
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, NULL },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
	  "cycles the back end stalled (alias: idle-cycles-backend)" },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, NULL },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, "reference cycles (constant rate)" },

	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "CPU clock, per CPU timer (msec)" },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "time the task ran on a CPU (msec)" },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page faults (alias: faults)" },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, NULL },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "context switches (alias: cs)" },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, NULL },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS,
	  "moves to another CPU (alias: migrations)" },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, NULL },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, "page faults served without I/O" },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, "page faults that needed I/O" },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, "alignment faults fixed up" },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, "instructions emulated" },
	{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, "counts nothing (a placeholder)" },
	{ "bpf-output", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT, "output of BPF programs" },
	{ "cgroup-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES, "switches between cgroups" },
};

/* Cache types, operations and results: the first spelling of each is canonical. */
static const char *const cache_types[PERF_COUNT_HW_CACHE_MAX][5] = {
	[PERF_COUNT_HW_CACHE_L1D] = { "L1-dcache", "l1-d", "l1d", "L1-data" },
	[PERF_COUNT_HW_CACHE_L1I] = { "L1-icache", "l1-i", "l1i", "L1-instruction" },
	[PERF_COUNT_HW_CACHE_LL] = { "LLC", "L2" },
	[PERF_COUNT_HW_CACHE_DTLB] = { "dTLB", "d-tlb", "Data-TLB" },
	[PERF_COUNT_HW_CACHE_ITLB] = { "iTLB", "i-tlb", "Instruction-TLB" },
	[PERF_COUNT_HW_CACHE_BPU] = { "branch", "branches", "bpu", "btb", "bpc" },
	[PERF_COUNT_HW_CACHE_NODE] = { "node" },
};

static const char *const cache_ops[PERF_COUNT_HW_CACHE_OP_MAX][4] = {
	[PERF_COUNT_HW_CACHE_OP_READ] = { "load", "loads", "read" },
	[PERF_COUNT_HW_CACHE_OP_WRITE] = { "store", "stores", "write" },
	[PERF_COUNT_HW_CACHE_OP_PREFETCH] = { "prefetch", "prefetches", "speculative-read", "speculative-load" },
};

static const char *const cache_results[PERF_COUNT_HW_CACHE_RESULT_MAX][4] = {
	[PERF_COUNT_HW_CACHE_RESULT_ACCESS] = { "refs", "Reference", "ops", "access" },
	[PERF_COUNT_HW_CACHE_RESULT_MISS] = { "misses", "miss" },
};

/* Which operations each cache type has (perf's evsel__hw_cache_stat). */
#define OPS_R (1u << PERF_COUNT_HW_CACHE_OP_READ)
#define OPS_RWP (OPS_R | (1u << PERF_COUNT_HW_CACHE_OP_WRITE) | (1u << PERF_COUNT_HW_CACHE_OP_PREFETCH))
static const unsigned cache_valid_ops[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = OPS_RWP,
	[PERF_COUNT_HW_CACHE_L1I] = OPS_R | (1u << PERF_COUNT_HW_CACHE_OP_PREFETCH),
	[PERF_COUNT_HW_CACHE_LL] = OPS_RWP,
	[PERF_COUNT_HW_CACHE_DTLB] = OPS_RWP,
	[PERF_COUNT_HW_CACHE_ITLB] = OPS_R,
	[PERF_COUNT_HW_CACHE_BPU] = OPS_R,
	[PERF_COUNT_HW_CACHE_NODE] = OPS_RWP,
};

static const char *const cache_descs[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = "level-1 data cache",
	[PERF_COUNT_HW_CACHE_L1I] = "level-1 instruction cache",
	[PERF_COUNT_HW_CACHE_LL] = "last-level cache",
	[PERF_COUNT_HW_CACHE_DTLB] = "data TLB",
	[PERF_COUNT_HW_CACHE_ITLB] = "instruction TLB",
	[PERF_COUNT_HW_CACHE_BPU] = "branch prediction unit",
	[PERF_COUNT_HW_CACHE_NODE] = "local memory node",
};

/*
 * Match one of `spellings` at the start of s[0..len), followed by '-' or the end.
 * Returns its index and the length matched, or -1.
 */
static int match_word(const char *s, size_t len, const char *const *spellings, size_t n, size_t *used)
{
	for (size_t i = 0; i < n && spellings[i]; i++) {
		size_t l = strlen(spellings[i]);

		if (l <= len && !strncasecmp(s, spellings[i], l) && (l == len || s[l] == '-')) {
			*used = l;
			return (int)i;
		}
	}
	return -1;
}

/* Index of the first row of `table` (rows of `cols` spellings) that matches. */
static int match_row(const char *s, size_t len, const char *const *table, size_t rows, size_t cols,
		     size_t *used)
{
	for (size_t r = 0; r < rows; r++)
		if (match_word(s, len, table + r * cols, cols, used) >= 0)
			return (int)r;
	return -1;
}

/* perf's grammar: type, then an operation and/or a result, in that order. */
static bool cache_lookup(const char *name, size_t len, uint64_t *config)
{
	int type, op = -1, result = -1;
	size_t used;

	type = match_row(name, len, &cache_types[0][0], PERF_COUNT_HW_CACHE_MAX, 5, &used);
	if (type < 0)
		return false;
	name += used;
	len -= used;
	if (len) {
		name++; /* the '-' */
		len--;
		op = match_row(name, len, &cache_ops[0][0], PERF_COUNT_HW_CACHE_OP_MAX, 4, &used);
		if (op < 0)
			result = match_row(name, len, &cache_results[0][0], PERF_COUNT_HW_CACHE_RESULT_MAX, 4,
					   &used);
		if (op < 0 && result < 0)
			return false;
		name += used;
		len -= used;
	}
	if (len) {
		if (result >= 0)
			return false;
		name++;
		len--;
		result = match_row(name, len, &cache_results[0][0], PERF_COUNT_HW_CACHE_RESULT_MAX, 4, &used);
		if (result < 0 || used != len)
			return false;
	}
	if (op < 0)
		op = PERF_COUNT_HW_CACHE_OP_READ;
	if (result < 0)
		result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	if (!(cache_valid_ops[type] & (1u << op)))
		return false;
	*config = (uint64_t)type | (uint64_t)op << 8 | (uint64_t)result << 16;
	return true;
}

bool pmu_generic_lookup(const char *name, size_t len, uint32_t *type, uint64_t *config, bool *clock)
{
	*clock = false;
	for (size_t i = 0; i < ARRAY_SIZE(generic_names); i++) {
		const struct generic_name *g = &generic_names[i];

		if (strlen(g->name) == len && !strncasecmp(g->name, name, len)) {
			*type = g->type;
			*config = g->config;
			*clock = g->type == PERF_TYPE_SOFTWARE &&
				 (g->config == PERF_COUNT_SW_CPU_CLOCK || g->config == PERF_COUNT_SW_TASK_CLOCK);
			return true;
		}
	}
	if (cache_lookup(name, len, config)) {
		*type = PERF_TYPE_HW_CACHE;
		return true;
	}
	return false;
}

static int add_cache_names(struct pmu_name_sink *sink)
{
	/* perf list's spellings: L1-dcache-loads, L1-dcache-load-misses */
	static const char *const plural[PERF_COUNT_HW_CACHE_OP_MAX] = { "loads", "stores", "prefetches" };
	char name[64], desc[128];
	int ret = 0;

	for (int t = 0; t < PERF_COUNT_HW_CACHE_MAX && !ret; t++) {
		for (int op = 0; op < PERF_COUNT_HW_CACHE_OP_MAX && !ret; op++) {
			if (!(cache_valid_ops[t] & (1u << op)))
				continue;
			snprintf(name, sizeof(name), "%s-%s", cache_types[t][0], plural[op]);
			snprintf(desc, sizeof(desc), "%s %s", cache_descs[t], plural[op]);
			ret = sink->add(sink, name, desc, "cpu", PMU_EV_GENERIC);
			if (ret)
				break;
			snprintf(name, sizeof(name), "%s-%s-misses", cache_types[t][0], cache_ops[op][0]);
			snprintf(desc, sizeof(desc), "%s %s that missed", cache_descs[t], plural[op]);
			ret = sink->add(sink, name, desc, "cpu", PMU_EV_GENERIC);
		}
	}
	return ret;
}

int pmu_generic_names(struct pmu_name_sink *sink)
{
	int ret = 0;

	/* hardware names first, then the cache names, then software (perf list's order) */
	for (size_t i = 0; i < ARRAY_SIZE(generic_names) && !ret; i++)
		if (generic_names[i].desc && generic_names[i].type == PERF_TYPE_HARDWARE)
			ret = sink->add(sink, generic_names[i].name, generic_names[i].desc, "cpu", PMU_EV_GENERIC);
	if (!ret)
		ret = add_cache_names(sink);
	for (size_t i = 0; i < ARRAY_SIZE(generic_names) && !ret; i++)
		if (generic_names[i].desc && generic_names[i].type == PERF_TYPE_SOFTWARE)
			ret = sink->add(sink, generic_names[i].name, generic_names[i].desc, "software",
					PMU_EV_SOFTWARE);
	return ret;
}

bool pmu_event_generic_name(uint32_t type, uint64_t config, char *buf, size_t size)
{
	/* perf's own spelling where the table has an alias first (evsel__hw_names: "cycles") */
	if (type == PERF_TYPE_HARDWARE && config == PERF_COUNT_HW_CPU_CYCLES)
		return snprintf(buf, size, "cycles") > 0;
	if (type == PERF_TYPE_HARDWARE && config == PERF_COUNT_HW_BRANCH_INSTRUCTIONS)
		return snprintf(buf, size, "branches") > 0;
	if (type == PERF_TYPE_RAW)
		return snprintf(buf, size, "r%llx", (unsigned long long)config) > 0;
	for (size_t i = 0; i < ARRAY_SIZE(generic_names); i++)
		if (generic_names[i].desc && generic_names[i].type == type && generic_names[i].config == config)
			return snprintf(buf, size, "%s", generic_names[i].name) > 0;
	if (size)
		buf[0] = '\0';
	return false;
}
