/*
 * Arm: the generic slot rule of the SBSA PMU events (any Armv8.4+ core with
 * the STALL_SLOT* and OP_* events and PMMIR_EL1.SLOTS).
 *
 * Sources:
 *   - Linux perf, tools/perf/pmu-events/arch/arm64/sbsa.json (torvalds/linux blob
 *     602bf1830798): frontend_bound, bad_speculation, retiring, backend_bound
 *     (TopdownL1), copied verbatim.
 *   - #slots is an input: perf reads it from <pmu>/caps/slots (PMMIR_EL1.SLOTS,
 *     tools/perf/arch/arm64/util/pmu.c); so do we on a live run, and an import
 *     gives it with --slots. It is never hard-coded here.
 *   - Event numbers (Arm ARM, PMUv3): CPU_CYCLES 0x11, OP_RETIRED 0x3A, OP_SPEC
 *     0x3B, STALL_SLOT_BACKEND 0x3D, STALL_SLOT_FRONTEND 0x3E, STALL_SLOT 0x3F.
 * No level 2 (the vocabulary's split has no generic Arm events).
 * Errata: none here; see the Neoverse tables.
 */
#include "model/tables/tables.h"

static const char src[] = "perf arm64/sbsa.json (torvalds/linux blob 602bf1830798)";

static const struct model_event sbsa_events[] = {
	{ .name = "cpu_cycles", .aliases = { "cycles", "cpu-cycles" }, .counter = MODEL_CTR_FIXED, .fixed_idx = 0,
	  .clock = true },
	{ .name = "stall_slot_frontend" },
	{ .name = "stall_slot_backend" },
	{ .name = "stall_slot" },
	{ .name = "op_retired" },
	{ .name = "op_spec" },
};

static const struct model_formula sbsa_formulas[] = {
	{ .name = "frontend_bound", .expr = { "stall_slot_frontend / (#slots * cpu_cycles)" }, .source = src },
	{ .name = "bad_speculation", .expr = { "(1 - op_retired / op_spec) * (1 - stall_slot / (#slots * cpu_cycles))" },
	  .source = src },
	{ .name = "retiring", .expr = { "(op_retired / op_spec) * (1 - stall_slot / (#slots * cpu_cycles))" },
	  .source = src },
	{ .name = "backend_bound", .expr = { "stall_slot_backend / (#slots * cpu_cycles)" }, .source = src },
};

static const struct model_node_def sbsa_nodes[] = {
	{ .key = "retiring", .formula = "retiring", .threshold = THR_RETIRING },
	{ .key = "bad_speculation", .formula = "bad_speculation", .threshold = THR_BAD_SPECULATION },
	{ .key = "frontend_bound", .formula = "frontend_bound", .threshold = THR_FRONTEND_BOUND },
	{ .key = "backend_bound", .formula = "backend_bound", .threshold = THR_BACKEND_BOUND },
};

const struct model model_sbsa = {
	.name = "sbsa",
	.aliases = { "arm64", "armv8", "armv9", "cortex-a710", "cortex-x2", "cortex-a715", "cortex-x3", "cortex-a720",
		     "cortex-x4", "cortex-a725", "cortex-x925" },
	.description = "Arm, generic: any core with STALL_SLOT*/OP_* events; #slots from the PMU's caps/slots",
	.sources = "perf arm64/sbsa.json (torvalds/linux blob 602bf1830798); tools/perf/arch/arm64/util/pmu.c "
		   "(#slots from caps/slots)",
	.vendor = MODEL_VENDOR_ARM,
	.kind = MODEL_KIND_SLOTS,
	.slots = 0,
	.gp_counters = 6,
	.fixed_counters = 1,
	.events = sbsa_events,
	.nr_events = ARRAY_SIZE(sbsa_events),
	.formulas = sbsa_formulas,
	.nr_formulas = ARRAY_SIZE(sbsa_formulas),
	.nodes = sbsa_nodes,
	.nr_nodes = ARRAY_SIZE(sbsa_nodes),
};
