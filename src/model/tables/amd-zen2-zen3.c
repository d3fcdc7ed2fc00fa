/*
 * AMD Zen 2 and Zen 3 (family 17h models 30h+, family 19h models 00h-0Fh,
 * 20h-5Fh): no slot-level top-down exists. A cycle-accounting approximation,
 * labelled as such, with its own node names (never the four top-down names).
 *
 * Why: the per-slot dispatch event (PMCx1A0 de_no_dispatch_per_slot) is new in
 * Zen 4 (Sandipan Das's perf patch for Linux 6.2: the pipeline metrics "are new
 * to Zen 4 processors"); perf has no PipelineL1 group for amdzen1-3 and AMD
 * uProf's pipeline_util is "supported only on AMD Zen 4 and Zen 5". Earlier
 * cores only account cycles.
 *
 * Sources:
 *   - Linux perf, tools/perf/pmu-events/arch/x86/amdzen3/other.json
 *     (torvalds/linux @a94e42b1): de_dis_uop_queue_empty_di0 (PMCx0A9, "cycles
 *     where the Micro-Op Queue is empty"), de_dis_dispatch_token_stalls1.*
 *     (PMCx0AE) and de_dis_dispatch_token_stalls2.* (PMCx0AF, Zen 2's
 *     de_dis_dispatch_token_stalls0.*): "cycles where a dispatch group is valid
 *     but does not get dispatched due to a token stall".
 *   - Linux, arch/x86/events/amd/core.c (amd_zen2_perfmon_event_map):
 *     stalled-cycles-frontend = 0x00a9, no backend stall event.
 * The nodes, in percent of cycles:
 *   frontend_stalled_cycles  = uop queue empty cycles / cycles;
 *   backend_stalled_cycles   = (token-stall cycles of PMCx0AE with every unit
 *                              mask + those of PMCx0AF) / cycles, at most 100:
 *                              an upper bound, as a cycle can stall on both.
 * Errata: none applied.
 */
#include "model/tables/tables.h"

static const char src[] = "perf amdzen3/other.json (torvalds/linux @a94e42b1); arch/x86/events/amd/core.c "
			  "(stalled-cycles-frontend = 0xa9)";

static const struct model_event zen23_events[] = {
	{ .name = "ls_not_halted_cyc", .aliases = { "cycles", "cpu-cycles" }, .spec = "cpu/event=0x76/",
	  .clock = true },
	{ .name = "de_dis_uop_queue_empty_di0", .aliases = { "stalled-cycles-frontend", "idle-cycles-frontend" },
	  .spec = "cpu/event=0xa9/" },
	{ .name = "cpu/event=0xae,umask=0xff/" },
	{ .name = "cpu/event=0xaf,umask=0xff/" },
};

static const struct model_formula zen23_formulas[] = {
	{ .name = "frontend_stalled_cycles", .expr = { "de_dis_uop_queue_empty_di0 / ls_not_halted_cyc" },
	  .source = src },
	{ .name = "backend_stalled_cycles",
	  .expr = { "min(1, (cpu@event\\=0xae\\,umask\\=0xff@ + cpu@event\\=0xaf\\,umask\\=0xff@) / ls_not_halted_cyc)" },
	  .source = src },
};

static const struct model_node_def zen23_nodes[] = {
	{ .key = "frontend_stalled_cycles", .formula = "frontend_stalled_cycles", .threshold = THR_NONE },
	{ .key = "backend_stalled_cycles", .formula = "backend_stalled_cycles", .threshold = THR_NONE },
};

static const char note[] =
	"cycle accounting, not top-down: Zen 2/3 have no per-slot dispatch events, so no four-way split "
	"(Retiring, Bad Speculation, Frontend, Backend) exists; the buckets are percentages of cycles and the "
	"backend one is an upper bound";

#define ZEN23_MODEL(var, name_, desc, ...) \
	const struct model var = { \
		.name = name_, \
		.aliases = { __VA_ARGS__ }, \
		.description = desc, \
		.sources = "perf amdzen3/other.json (torvalds/linux @a94e42b1), amdzen2/other.json; " \
			   "arch/x86/events/amd/core.c; Chips and Cheese, Hot Chips 2023 (Zen 4 slot events are new)", \
		.note = note, \
		.vendor = MODEL_VENDOR_AMD, \
		.kind = MODEL_KIND_CYCLE_ACCOUNTING, \
		.slots = 0, \
		.gp_counters = 6, \
		.fixed_counters = 0, \
		.events = zen23_events, \
		.nr_events = ARRAY_SIZE(zen23_events), \
		.formulas = zen23_formulas, \
		.nr_formulas = ARRAY_SIZE(zen23_formulas), \
		.nodes = zen23_nodes, \
		.nr_nodes = ARRAY_SIZE(zen23_nodes), \
	}

ZEN23_MODEL(model_zen2, "zen2", "AMD Zen 2 (family 17h), cycle accounting only", "amdzen2", "rome", "matisse");
ZEN23_MODEL(model_zen3, "zen3", "AMD Zen 3 (family 19h), cycle accounting only", "amdzen3", "milan", "vermeer");
