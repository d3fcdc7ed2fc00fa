/*
 * Arm Neoverse V3 (10 slots) and N3 (5 slots): the SBSA rule with
 * STALL_FRONTEND_FLUSH moving the front-end cycles of flush recovery from
 * Frontend Bound into Bad Speculation.
 *
 * Sources:
 *   - Linux perf, tools/perf/pmu-events/arch/arm64/arm/neoverse-v3/metrics.json
 *     and neoverse-n3/metrics.json (torvalds/linux @2ed0e3ea): frontend_bound =
 *     STALL_SLOT_FRONTEND / (slots * CPU_CYCLES) - STALL_FRONTEND_FLUSH /
 *     CPU_CYCLES; bad_speculation = (1 - STALL_SLOT / (slots * CPU_CYCLES)) *
 *     (1 - OP_RETIRED / OP_SPEC) + STALL_FRONTEND_FLUSH / CPU_CYCLES (perf writes
 *     the slots as 10 and 5); retiring and backend_bound inherit sbsa.json
 *     (blob 602bf1830798).
 *   - Arm event number: STALL_FRONTEND_FLUSH 0x8162.
 * Percentages in perf's file become fractions here. Errata: none applied.
 */
#include "model/tables/tables.h"

static const char src[] = "perf arm64/arm/neoverse-v3/metrics.json and neoverse-n3/metrics.json (@2ed0e3ea)";
static const char src_sbsa[] = "perf arm64/sbsa.json (blob 602bf1830798), inherited by neoverse-v3/n3";

static const struct model_event v3_events[] = {
	{ .name = "CPU_CYCLES", .aliases = { "cycles", "cpu-cycles" }, .counter = MODEL_CTR_FIXED, .fixed_idx = 0,
	  .clock = true },
	{ .name = "STALL_SLOT_FRONTEND" },
	{ .name = "STALL_SLOT_BACKEND" },
	{ .name = "STALL_SLOT" },
	{ .name = "OP_RETIRED" },
	{ .name = "OP_SPEC" },
	{ .name = "STALL_FRONTEND_FLUSH" },
};

static const struct model_formula v3_formulas[] = {
	{ .name = "frontend_bound",
	  .expr = { "STALL_SLOT_FRONTEND / (#slots * CPU_CYCLES) - STALL_FRONTEND_FLUSH / CPU_CYCLES" }, .source = src },
	{ .name = "bad_speculation",
	  .expr = { "(1 - STALL_SLOT / (#slots * CPU_CYCLES)) * (1 - OP_RETIRED / OP_SPEC) + "
		    "STALL_FRONTEND_FLUSH / CPU_CYCLES" },
	  .source = src },
	{ .name = "retiring", .expr = { "(OP_RETIRED / OP_SPEC) * (1 - STALL_SLOT / (#slots * CPU_CYCLES))" },
	  .source = src_sbsa },
	{ .name = "backend_bound", .expr = { "STALL_SLOT_BACKEND / (#slots * CPU_CYCLES)" }, .source = src_sbsa },
};

static const struct model_node_def v3_nodes[] = {
	{ .key = "retiring", .formula = "retiring", .threshold = THR_RETIRING },
	{ .key = "bad_speculation", .formula = "bad_speculation", .threshold = THR_BAD_SPECULATION },
	{ .key = "frontend_bound", .formula = "frontend_bound", .threshold = THR_FRONTEND_BOUND },
	{ .key = "backend_bound", .formula = "backend_bound", .threshold = THR_BACKEND_BOUND },
};

#define V3N3_MODEL(var, name_, desc, slots_, ...) \
	const struct model var = { \
		.name = name_, \
		.aliases = { __VA_ARGS__ }, \
		.description = desc, \
		.sources = "perf arm64/arm/neoverse-v3/metrics.json, neoverse-n3/metrics.json (torvalds/linux " \
			   "@2ed0e3ea) over arm64/sbsa.json (blob 602bf1830798)", \
		.vendor = MODEL_VENDOR_ARM, \
		.kind = MODEL_KIND_SLOTS, \
		.slots = slots_, \
		.gp_counters = 6, \
		.fixed_counters = 1, \
		.events = v3_events, \
		.nr_events = ARRAY_SIZE(v3_events), \
		.formulas = v3_formulas, \
		.nr_formulas = ARRAY_SIZE(v3_formulas), \
		.nodes = v3_nodes, \
		.nr_nodes = ARRAY_SIZE(v3_nodes), \
	}

V3N3_MODEL(model_neoverse_v3, "neoverse-v3", "Arm Neoverse V3, 10 slots per cycle", 10, "poseidon-v");
V3N3_MODEL(model_neoverse_n3, "neoverse-n3", "Arm Neoverse N3, 5 slots per cycle", 5, "hermes");
