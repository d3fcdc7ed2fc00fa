/*
 * Arm Neoverse V1: 8 slots per cycle, with perf's V1 overrides of the SBSA rule.
 *
 * Sources:
 *   - Linux perf, tools/perf/pmu-events/arch/arm64/arm/neoverse-v1/metrics.json
 *     (torvalds/linux blob 918e37d50a2f): frontend_bound and bad_speculation
 *     override sbsa.json, moving the front-end bubbles of mispredict recovery
 *     (BR_MIS_PRED * 4 / CPU_CYCLES) into Bad Speculation; backend_bound and
 *     retiring inherit sbsa.json (blob 602bf1830798).
 *   - Arm, Neoverse V1 telemetry specification (ARM-software/telemetry-solution,
 *     data/pmu/cpu/neoverse/neoverse-v1.json): the same frontend_bound.
 * The overrides are written there as percentages (100 * ...); here they are
 * fractions like every formula of ours (the value is scaled to percent once).
 * Errata: none applied.
 */
#include "model/tables/tables.h"

static const char src_v1[] = "perf arm64/arm/neoverse-v1/metrics.json (blob 918e37d50a2f); Arm V1 telemetry spec";
static const char src_sbsa[] = "perf arm64/sbsa.json (blob 602bf1830798), inherited by neoverse-v1";

static const struct model_event v1_events[] = {
	{ .name = "CPU_CYCLES", .aliases = { "cycles", "cpu-cycles" }, .counter = MODEL_CTR_FIXED, .fixed_idx = 0,
	  .clock = true },
	{ .name = "STALL_SLOT_FRONTEND" },
	{ .name = "STALL_SLOT_BACKEND" },
	{ .name = "STALL_SLOT" },
	{ .name = "OP_RETIRED" },
	{ .name = "OP_SPEC" },
	{ .name = "BR_MIS_PRED", .aliases = { "branch-misses" } },
};

static const struct model_formula v1_formulas[] = {
	{ .name = "frontend_bound", .expr = { "STALL_SLOT_FRONTEND / (CPU_CYCLES * 8) - BR_MIS_PRED * 4 / CPU_CYCLES" },
	  .source = src_v1 },
	{ .name = "bad_speculation",
	  .expr = { "(1 - OP_RETIRED / OP_SPEC) * (1 - STALL_SLOT / (CPU_CYCLES * 8)) + BR_MIS_PRED * 4 / CPU_CYCLES" },
	  .source = src_v1 },
	{ .name = "retiring", .expr = { "(OP_RETIRED / OP_SPEC) * (1 - STALL_SLOT / (#slots * CPU_CYCLES))" },
	  .source = src_sbsa },
	{ .name = "backend_bound", .expr = { "STALL_SLOT_BACKEND / (#slots * CPU_CYCLES)" }, .source = src_sbsa },
};

static const struct model_node_def v1_nodes[] = {
	{ .key = "retiring", .formula = "retiring", .threshold = THR_RETIRING },
	{ .key = "bad_speculation", .formula = "bad_speculation", .threshold = THR_BAD_SPECULATION },
	{ .key = "frontend_bound", .formula = "frontend_bound", .threshold = THR_FRONTEND_BOUND },
	{ .key = "backend_bound", .formula = "backend_bound", .threshold = THR_BACKEND_BOUND },
};

const struct model model_neoverse_v1 = {
	.name = "neoverse-v1",
	.aliases = { "zeus", "graviton3" },
	.description = "Arm Neoverse V1, 8 slots per cycle",
	.sources = "perf arm64/arm/neoverse-v1/metrics.json (torvalds/linux blob 918e37d50a2f) over arm64/sbsa.json "
		   "(blob 602bf1830798); Arm Neoverse V1 telemetry specification",
	.vendor = MODEL_VENDOR_ARM,
	.kind = MODEL_KIND_SLOTS,
	.slots = 8,
	.gp_counters = 6,
	.fixed_counters = 1,
	.events = v1_events,
	.nr_events = ARRAY_SIZE(v1_events),
	.formulas = v1_formulas,
	.nr_formulas = ARRAY_SIZE(v1_formulas),
	.nodes = v1_nodes,
	.nr_nodes = ARRAY_SIZE(v1_nodes),
};
