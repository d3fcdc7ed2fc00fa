/*
 * Arm Neoverse N1 and Cortex-A76-class cores (Armv8.2, PMUv3 without PMMIR):
 * two-bucket cycle accounting. No four-way split exists on these cores.
 *
 * Sources:
 *   - Linux perf, tools/perf/pmu-events/arch/arm64/arm/neoverse-n1/metrics.json
 *     (blob c05b27c8): frontend_stalled_cycles = STALL_FRONTEND / CPU_CYCLES and
 *     backend_stalled_cycles = STALL_BACKEND / CPU_CYCLES (MetricGroup
 *     Cycle_Accounting); no slot-level TopdownL1.
 *   - Arm, Neoverse N1 telemetry specification: stage 1 is Cycle_Accounting with
 *     exactly these two root nodes; the core has no STALL_SLOT*, OP_RETIRED or
 *     OP_SPEC events (event numbers STALL_FRONTEND 0x23, STALL_BACKEND 0x24,
 *     CPU_CYCLES 0x11).
 * Errata: none applied.
 */
#include "model/tables/tables.h"

static const char src[] = "perf arm64/arm/neoverse-n1/metrics.json (blob c05b27c8); Arm N1 telemetry spec";

static const struct model_event n1_events[] = {
	{ .name = "CPU_CYCLES", .aliases = { "cycles", "cpu-cycles" }, .counter = MODEL_CTR_FIXED, .fixed_idx = 0,
	  .clock = true },
	{ .name = "STALL_FRONTEND", .aliases = { "stalled-cycles-frontend", "idle-cycles-frontend" } },
	{ .name = "STALL_BACKEND", .aliases = { "stalled-cycles-backend", "idle-cycles-backend" } },
};

static const struct model_formula n1_formulas[] = {
	{ .name = "frontend_stalled_cycles", .expr = { "STALL_FRONTEND / CPU_CYCLES" }, .source = src },
	{ .name = "backend_stalled_cycles", .expr = { "STALL_BACKEND / CPU_CYCLES" }, .source = src },
};

static const struct model_node_def n1_nodes[] = {
	{ .key = "frontend_stalled_cycles", .formula = "frontend_stalled_cycles", .threshold = THR_NONE },
	{ .key = "backend_stalled_cycles", .formula = "backend_stalled_cycles", .threshold = THR_NONE },
};

static const char note[] =
	"cycle accounting, not top-down: this core has no slot events (STALL_SLOT*, OP_SPEC), so no four-way split "
	"(Retiring, Bad Speculation, Frontend, Backend) exists; the two buckets are percentages of cycles";

#define N1_MODEL(var, name_, desc, ...) \
	const struct model var = { \
		.name = name_, \
		.aliases = { __VA_ARGS__ }, \
		.description = desc, \
		.sources = "perf arm64/arm/neoverse-n1/metrics.json (torvalds/linux blob c05b27c8); Arm Neoverse N1 " \
			   "telemetry specification (stage 1: Cycle_Accounting)", \
		.note = note, \
		.vendor = MODEL_VENDOR_ARM, \
		.kind = MODEL_KIND_CYCLE_ACCOUNTING, \
		.slots = 0, \
		.gp_counters = 6, \
		.fixed_counters = 1, \
		.events = n1_events, \
		.nr_events = ARRAY_SIZE(n1_events), \
		.formulas = n1_formulas, \
		.nr_formulas = ARRAY_SIZE(n1_formulas), \
		.nodes = n1_nodes, \
		.nr_nodes = ARRAY_SIZE(n1_nodes), \
	}

N1_MODEL(model_neoverse_n1, "neoverse-n1", "Arm Neoverse N1, cycle accounting only", "ares", "graviton2");
N1_MODEL(model_cortex_a76, "cortex-a76", "Arm Cortex-A76-class cores (A76, A77, A78, X1), cycle accounting only",
	 "cortex-a77", "cortex-a78", "cortex-x1", "cortex-a76ae", "cortex-a78c");
