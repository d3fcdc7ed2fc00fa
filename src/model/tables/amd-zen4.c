/*
 * AMD Zen 4 (family 19h models 10h-1Fh, 60h-7Fh, A0h-AFh): 6 dispatch slots
 * per cycle per thread, PipelineL1 with the SMT-contention bucket, and PipelineL2.
 *
 * Sources:
 *   - Linux perf, tools/perf/pmu-events/arch/x86/amdzen4/pipeline.json
 *     (torvalds/linux blob 037dd1308c6d, Linux 6.2, Sandipan Das): the metrics
 *     total_dispatch_slots, frontend_bound, bad_speculation, backend_bound,
 *     smt_contention, retiring (PipelineL1) and frontend_bound_latency/bandwidth,
 *     bad_speculation_mispredicts/pipeline_restarts, backend_bound_memory/cpu,
 *     retiring_fastpath/microcode (PipelineL2), copied verbatim.
 *   - AMD, Processor Programming Reference for family 19h model 11h, 2.1.15.2,
 *     Table 28 "Guidance for Pipeline Utilization Analysis Statistics" (the
 *     same formulas), and the event encodings of amdzen4/other.json @6599e683
 *     and core.json @254a1420 (the live specs below).
 * Mapping to the shared vocabulary: latency -> fetch_latency, bandwidth ->
 * fetch_bandwidth, mispredicts -> branch_mispredicts, pipeline_restarts ->
 * machine_clears, memory -> memory_bound, cpu -> core_bound, fastpath ->
 * light_operations, microcode -> heavy_operations. smt_contention is a level-1
 * extra: slots lost to the sibling thread, the fifth bucket of the 100 %.
 * Groups: perf prints ls_not_halted_cyc once per metric group; each node reads
 * the copy of its own group (eval.c), as perf does.
 * Errata: none applied.
 */
#include "model/tables/tables.h"

static const char src[] = "perf amdzen4/pipeline.json (torvalds/linux blob 037dd1308c6d); AMD PPR 19h/11h Table 28";

static const struct model_event zen4_events[] = {
	{ .name = "ls_not_halted_cyc", .aliases = { "cycles", "cpu-cycles" }, .spec = "cpu/event=0x76/",
	  .clock = true },
	{ .name = "de_no_dispatch_per_slot.no_ops_from_frontend", .spec = "cpu/event=0x1a0,umask=0x1/" },
	{ .name = "de_no_dispatch_per_slot.backend_stalls", .spec = "cpu/event=0x1a0,umask=0x1e/" },
	{ .name = "de_no_dispatch_per_slot.smt_contention", .spec = "cpu/event=0x1a0,umask=0x60/" },
	{ .name = "de_src_op_disp.all", .spec = "cpu/event=0xaa,umask=0x7/" },
	{ .name = "ex_ret_ops", .spec = "cpu/event=0xc1/" },
	{ .name = "cpu/de_no_dispatch_per_slot.no_ops_from_frontend,cmask=0x6/",
	  .spec = "cpu/event=0x1a0,umask=0x1,cmask=0x6/" },
	{ .name = "ex_ret_brn_misp", .aliases = { "branch-misses" }, .spec = "cpu/event=0xc3/" },
	{ .name = "resyncs_or_nc_redirects", .spec = "cpu/event=0x96/" },
	{ .name = "ex_no_retire.load_not_complete", .spec = "cpu/event=0xd6,umask=0xa2/" },
	{ .name = "ex_no_retire.not_complete", .spec = "cpu/event=0xd6,umask=0x2/" },
	{ .name = "ex_ret_ucode_ops", .spec = "cpu/event=0x1c2/" },
};

static const struct model_formula zen4_formulas[] = {
	{ .name = "total_dispatch_slots", .expr = { "6 * ls_not_halted_cyc" }, .source = src },
	{ .name = "frontend_bound",
	  .expr = { "d_ratio(de_no_dispatch_per_slot.no_ops_from_frontend, total_dispatch_slots)" }, .source = src },
	{ .name = "bad_speculation", .expr = { "d_ratio(de_src_op_disp.all - ex_ret_ops, total_dispatch_slots)" },
	  .source = src },
	{ .name = "backend_bound", .expr = { "d_ratio(de_no_dispatch_per_slot.backend_stalls, total_dispatch_slots)" },
	  .source = src },
	{ .name = "smt_contention", .expr = { "d_ratio(de_no_dispatch_per_slot.smt_contention, total_dispatch_slots)" },
	  .source = src },
	{ .name = "retiring", .expr = { "d_ratio(ex_ret_ops, total_dispatch_slots)" }, .source = src },
	{ .name = "frontend_bound_latency",
	  .expr = { "d_ratio((6 * cpu@de_no_dispatch_per_slot.no_ops_from_frontend\\,cmask\\=0x6@), "
		    "total_dispatch_slots)" },
	  .source = src },
	{ .name = "frontend_bound_bandwidth",
	  .expr = { "d_ratio(de_no_dispatch_per_slot.no_ops_from_frontend - "
		    "(6 * cpu@de_no_dispatch_per_slot.no_ops_from_frontend\\,cmask\\=0x6@), total_dispatch_slots)" },
	  .source = src },
	{ .name = "bad_speculation_mispredicts",
	  .expr = { "d_ratio(bad_speculation * ex_ret_brn_misp, ex_ret_brn_misp + resyncs_or_nc_redirects)" },
	  .source = src },
	{ .name = "bad_speculation_pipeline_restarts",
	  .expr = { "d_ratio(bad_speculation * resyncs_or_nc_redirects, ex_ret_brn_misp + resyncs_or_nc_redirects)" },
	  .source = src },
	{ .name = "backend_bound_memory",
	  .expr = { "backend_bound * d_ratio(ex_no_retire.load_not_complete, ex_no_retire.not_complete)" },
	  .source = src },
	{ .name = "backend_bound_cpu",
	  .expr = { "backend_bound * (1 - d_ratio(ex_no_retire.load_not_complete, ex_no_retire.not_complete))" },
	  .source = src },
	{ .name = "retiring_fastpath", .expr = { "retiring * (1 - d_ratio(ex_ret_ucode_ops, ex_ret_ops))" },
	  .source = src },
	{ .name = "retiring_microcode", .expr = { "retiring * d_ratio(ex_ret_ucode_ops, ex_ret_ops)" }, .source = src },
};

static const struct model_node_def zen4_nodes[] = {
	{ .key = "retiring", .formula = "retiring", .threshold = THR_RETIRING },
	{ .key = "bad_speculation", .formula = "bad_speculation", .threshold = THR_BAD_SPECULATION },
	{ .key = "frontend_bound", .formula = "frontend_bound", .threshold = THR_FRONTEND_BOUND },
	{ .key = "backend_bound", .formula = "backend_bound", .threshold = THR_BACKEND_BOUND },
	{ .key = "smt_contention", .formula = "smt_contention", .threshold = THR_NONE, .extra = true },
	{ .key = "fetch_latency", .parent = "frontend_bound", .formula = "frontend_bound_latency",
	  .threshold = THR_FETCH_LATENCY },
	{ .key = "fetch_bandwidth", .parent = "frontend_bound", .formula = "frontend_bound_bandwidth",
	  .threshold = THR_FETCH_BANDWIDTH },
	{ .key = "branch_mispredicts", .parent = "bad_speculation", .formula = "bad_speculation_mispredicts",
	  .threshold = THR_BRANCH_MISPREDICTS },
	{ .key = "machine_clears", .parent = "bad_speculation", .formula = "bad_speculation_pipeline_restarts",
	  .threshold = THR_MACHINE_CLEARS },
	{ .key = "memory_bound", .parent = "backend_bound", .formula = "backend_bound_memory",
	  .threshold = THR_MEMORY_BOUND },
	{ .key = "core_bound", .parent = "backend_bound", .formula = "backend_bound_cpu", .threshold = THR_CORE_BOUND },
	{ .key = "light_operations", .parent = "retiring", .formula = "retiring_fastpath",
	  .threshold = THR_LIGHT_OPERATIONS },
	{ .key = "heavy_operations", .parent = "retiring", .formula = "retiring_microcode",
	  .threshold = THR_HEAVY_OPERATIONS },
};

const struct model model_zen4 = {
	.name = "zen4",
	.aliases = { "amdzen4", "genoa", "bergamo", "raphael", "phoenix" },
	.description = "AMD Zen 4 (family 19h), 6 dispatch slots per cycle",
	.sources = "perf amdzen4/pipeline.json (torvalds/linux blob 037dd1308c6d, Linux 6.2); AMD PPR for family 19h "
		   "model 11h, Table 28; event encodings from amdzen4/other.json @6599e683, core.json @254a1420",
	.vendor = MODEL_VENDOR_AMD,
	.kind = MODEL_KIND_SLOTS,
	.slots = 6,
	.gp_counters = 6,
	.fixed_counters = 0,
	.events = zen4_events,
	.nr_events = ARRAY_SIZE(zen4_events),
	.formulas = zen4_formulas,
	.nr_formulas = ARRAY_SIZE(zen4_formulas),
	.nodes = zen4_nodes,
	.nr_nodes = ARRAY_SIZE(zen4_nodes),
};
