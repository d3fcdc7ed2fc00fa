/*
 * AMD Zen 5 (family 1Ah): 8 dispatch slots per cycle per thread, PipelineL1 with
 * the SMT-contention bucket, and PipelineL2.
 *
 * Sources:
 *   - Linux perf, tools/perf/pmu-events/arch/x86/amdzen5/pipeline.json
 *     (torvalds/linux @a9fe4ac7): total_dispatch_slots = 8 * ls_not_halted_cyc,
 *     frontend_bound, bad_speculation, backend_bound, smt_contention, retiring
 *     (PipelineL1) and frontend_bound_by_latency/_by_bandwidth (cmask=0x8),
 *     bad_speculation_from_mispredicts/_from_pipeline_restarts (with
 *     bp_redirects.resync), backend_bound_by_memory/_by_cpu,
 *     retiring_from_fastpath/_from_microcode (PipelineL2), copied verbatim.
 *   - AMD uProf User Guide 57368, "Pipeline Utilization" (the same level-1 and
 *     level-2 breakdown for Zen 4 and Zen 5).
 * Mapping to the shared vocabulary as for Zen 4 (amd-zen4.c); smt_contention is
 * a level-1 extra. Live specs: the event names, as perf and libpfm spell them
 * (NEEDSWORK: raw encodings once checked against the family 1Ah PPR).
 * Errata: none applied.
 */
#include "model/tables/tables.h"

static const char src[] = "perf amdzen5/pipeline.json (torvalds/linux @a9fe4ac7); AMD uProf 57368 Pipeline Utilization";

static const struct model_event zen5_events[] = {
	{ .name = "ls_not_halted_cyc", .aliases = { "cycles", "cpu-cycles" }, .spec = "cpu/event=0x76/",
	  .clock = true },
	{ .name = "de_no_dispatch_per_slot.no_ops_from_frontend" },
	{ .name = "de_no_dispatch_per_slot.backend_stalls" },
	{ .name = "de_no_dispatch_per_slot.smt_contention" },
	{ .name = "de_src_op_disp.all" },
	{ .name = "ex_ret_ops" },
	{ .name = "cpu/de_no_dispatch_per_slot.no_ops_from_frontend,cmask=0x8/" },
	{ .name = "ex_ret_brn_misp", .aliases = { "branch-misses" } },
	{ .name = "bp_redirects.resync" },
	{ .name = "ex_no_retire.load_not_complete" },
	{ .name = "ex_no_retire.not_complete" },
	{ .name = "ex_ret_ucode_ops" },
};

static const struct model_formula zen5_formulas[] = {
	{ .name = "total_dispatch_slots", .expr = { "8 * ls_not_halted_cyc" }, .source = src },
	{ .name = "frontend_bound",
	  .expr = { "d_ratio(de_no_dispatch_per_slot.no_ops_from_frontend, total_dispatch_slots)" }, .source = src },
	{ .name = "bad_speculation", .expr = { "d_ratio(de_src_op_disp.all - ex_ret_ops, total_dispatch_slots)" },
	  .source = src },
	{ .name = "backend_bound", .expr = { "d_ratio(de_no_dispatch_per_slot.backend_stalls, total_dispatch_slots)" },
	  .source = src },
	{ .name = "smt_contention", .expr = { "d_ratio(de_no_dispatch_per_slot.smt_contention, total_dispatch_slots)" },
	  .source = src },
	{ .name = "retiring", .expr = { "d_ratio(ex_ret_ops, total_dispatch_slots)" }, .source = src },
	{ .name = "frontend_bound_by_latency",
	  .expr = { "d_ratio((8 * cpu@de_no_dispatch_per_slot.no_ops_from_frontend\\,cmask\\=0x8@), "
		    "total_dispatch_slots)" },
	  .source = src },
	{ .name = "frontend_bound_by_bandwidth",
	  .expr = { "d_ratio(de_no_dispatch_per_slot.no_ops_from_frontend - "
		    "(8 * cpu@de_no_dispatch_per_slot.no_ops_from_frontend\\,cmask\\=0x8@), total_dispatch_slots)" },
	  .source = src },
	{ .name = "bad_speculation_from_mispredicts",
	  .expr = { "d_ratio(bad_speculation * ex_ret_brn_misp, ex_ret_brn_misp + bp_redirects.resync)" },
	  .source = src },
	{ .name = "bad_speculation_from_pipeline_restarts",
	  .expr = { "d_ratio(bad_speculation * bp_redirects.resync, ex_ret_brn_misp + bp_redirects.resync)" },
	  .source = src },
	{ .name = "backend_bound_by_memory",
	  .expr = { "backend_bound * d_ratio(ex_no_retire.load_not_complete, ex_no_retire.not_complete)" },
	  .source = src },
	{ .name = "backend_bound_by_cpu",
	  .expr = { "backend_bound * (1 - d_ratio(ex_no_retire.load_not_complete, ex_no_retire.not_complete))" },
	  .source = src },
	{ .name = "retiring_from_fastpath", .expr = { "retiring * (1 - d_ratio(ex_ret_ucode_ops, ex_ret_ops))" },
	  .source = src },
	{ .name = "retiring_from_microcode", .expr = { "retiring * d_ratio(ex_ret_ucode_ops, ex_ret_ops)" }, .source = src },
};

static const struct model_node_def zen5_nodes[] = {
	{ .key = "retiring", .formula = "retiring", .threshold = THR_RETIRING },
	{ .key = "bad_speculation", .formula = "bad_speculation", .threshold = THR_BAD_SPECULATION },
	{ .key = "frontend_bound", .formula = "frontend_bound", .threshold = THR_FRONTEND_BOUND },
	{ .key = "backend_bound", .formula = "backend_bound", .threshold = THR_BACKEND_BOUND },
	{ .key = "smt_contention", .formula = "smt_contention", .threshold = THR_NONE, .extra = true },
	{ .key = "fetch_latency", .parent = "frontend_bound", .formula = "frontend_bound_by_latency",
	  .threshold = THR_FETCH_LATENCY },
	{ .key = "fetch_bandwidth", .parent = "frontend_bound", .formula = "frontend_bound_by_bandwidth",
	  .threshold = THR_FETCH_BANDWIDTH },
	{ .key = "branch_mispredicts", .parent = "bad_speculation", .formula = "bad_speculation_from_mispredicts",
	  .threshold = THR_BRANCH_MISPREDICTS },
	{ .key = "machine_clears", .parent = "bad_speculation", .formula = "bad_speculation_from_pipeline_restarts",
	  .threshold = THR_MACHINE_CLEARS },
	{ .key = "memory_bound", .parent = "backend_bound", .formula = "backend_bound_by_memory",
	  .threshold = THR_MEMORY_BOUND },
	{ .key = "core_bound", .parent = "backend_bound", .formula = "backend_bound_by_cpu", .threshold = THR_CORE_BOUND },
	{ .key = "light_operations", .parent = "retiring", .formula = "retiring_from_fastpath",
	  .threshold = THR_LIGHT_OPERATIONS },
	{ .key = "heavy_operations", .parent = "retiring", .formula = "retiring_from_microcode",
	  .threshold = THR_HEAVY_OPERATIONS },
};

const struct model model_zen5 = {
	.name = "zen5",
	.aliases = { "amdzen5", "turin", "granite-ridge", "strix" },
	.description = "AMD Zen 5 (family 1Ah), 8 dispatch slots per cycle",
	.sources = "perf amdzen5/pipeline.json (torvalds/linux @a9fe4ac7); AMD uProf User Guide 57368, Pipeline "
		   "Utilization",
	.vendor = MODEL_VENDOR_AMD,
	.kind = MODEL_KIND_SLOTS,
	.slots = 8,
	.gp_counters = 6,
	.fixed_counters = 0,
	.events = zen5_events,
	.nr_events = ARRAY_SIZE(zen5_events),
	.formulas = zen5_formulas,
	.nr_formulas = ARRAY_SIZE(zen5_formulas),
	.nodes = zen5_nodes,
	.nr_nodes = ARRAY_SIZE(zen5_nodes),
};
