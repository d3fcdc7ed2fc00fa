/*
 * Intel hybrid E-cores: Gracemont (Alder Lake, Raptor Lake; 5 slots) and
 * Crestmont (Meteor Lake; 6 slots). The P-cores of the same chips use the
 * Sapphire Rapids tables (intel-spr.c); `tdprof topdown` reports each core type
 * with its own model.
 *
 * Sources:
 *   - Intel, E-core_TMA_Metrics.csv 3.52 (intel/perfmon @379ad3d4), columns GRT
 *     (Gracemont) and CMT (Crestmont): Frontend_Bound, Fetch_Latency,
 *     Fetch_Bandwidth, Bad_Speculation, Branch_Mispredicts, Machine_Clears,
 *     Backend_Bound, Memory_Bound (min(Backend_Bound, LD_HEAD.ANY_AT_RET / CLKS +
 *     Store_Bound)), Core_Bound, Store_Bound, Mem_Scheduler, Retiring, Base,
 *     MS_uops; SLOTS = #Pipeline_Width * CLKS with #Pipeline_Width 5 (GRT) and
 *     6 (CMT); CLKS = CPU_CLK_UNHALTED.CORE.
 *   - Linux perf, tools/perf/pmu-events/arch/x86/alderlake/adl-metrics.json,
 *     the cpu_atom metrics (the same formulas over cpu_atom@...@ events).
 * Mapping to the shared vocabulary: Base -> light_operations, MS_uops ->
 * heavy_operations. Gracemont's Bad_Speculation is the remainder of the other
 * three (its hardware has no .ALL event for it); Crestmont counts it.
 * The level-2 events of Frontend Bound and Bad Speculation are separate
 * hardware counts that add up to their parent only approximately; Memory/Core
 * Bound are in cycles (Intel's Count Domain) scaled as Intel does.
 * Errata: none applied.
 */
#include "model/tables/tables.h"

static const char src_grt[] = "Intel E-core_TMA_Metrics.csv 3.52 (intel/perfmon @379ad3d4), GRT column; "
			      "perf alderlake/adl-metrics.json (cpu_atom)";
static const char src_cmt[] = "Intel E-core_TMA_Metrics.csv 3.52 (intel/perfmon @379ad3d4), CMT column";

#define ECORE_COMMON_EVENTS \
	{ .name = "CPU_CLK_UNHALTED.CORE", \
	  .aliases = { "cycles", "cpu-cycles", "cpu_clk_unhalted.core_p", "cpu_clk_unhalted.thread" }, \
	  .counter = MODEL_CTR_FIXED, .fixed_idx = 1, .clock = true }, \
	{ .name = "TOPDOWN_FE_BOUND.FRONTEND_LATENCY" }, \
	{ .name = "TOPDOWN_FE_BOUND.FRONTEND_BANDWIDTH" }, \
	{ .name = "TOPDOWN_BAD_SPECULATION.MISPREDICT" }, \
	{ .name = "TOPDOWN_BAD_SPECULATION.MACHINE_CLEARS" }, \
	{ .name = "TOPDOWN_BE_BOUND.MEM_SCHEDULER" }, \
	{ .name = "MEM_SCHEDULER_BLOCK.ST_BUF" }, \
	{ .name = "MEM_SCHEDULER_BLOCK.ALL" }, \
	{ .name = "LD_HEAD.ANY_AT_RET" }, \
	{ .name = "UOPS_RETIRED.MS" }

static const struct model_event grt_events[] = {
	ECORE_COMMON_EVENTS,
	{ .name = "TOPDOWN_FE_BOUND.ALL", .aliases = { "topdown_fe_bound.all_p" } },
	{ .name = "TOPDOWN_BE_BOUND.ALL", .aliases = { "topdown_be_bound.all_p" } },
	{ .name = "TOPDOWN_RETIRING.ALL", .aliases = { "topdown_retiring.all_p" } },
};

static const struct model_event cmt_events[] = {
	ECORE_COMMON_EVENTS,
	{ .name = "TOPDOWN_FE_BOUND.ALL_P", .aliases = { "topdown_fe_bound.all" } },
	{ .name = "TOPDOWN_BE_BOUND.ALL_P", .aliases = { "topdown_be_bound.all" } },
	{ .name = "TOPDOWN_RETIRING.ALL_P", .aliases = { "topdown_retiring.all" } },
	{ .name = "TOPDOWN_BAD_SPECULATION.ALL_P", .aliases = { "topdown_bad_speculation.all" } },
};

/* Level 2 and helpers, identical in both columns. */
#define ECORE_FORMULAS(src, fe, be, ret) \
	{ .name = "tma_info_core_clks", .expr = { "CPU_CLK_UNHALTED.CORE" }, .source = src }, \
	{ .name = "tma_info_core_slots", .expr = { "#slots * tma_info_core_clks" }, .source = src }, \
	{ .name = "tma_frontend_bound", .expr = { fe " / tma_info_core_slots" }, .source = src }, \
	{ .name = "tma_backend_bound", .expr = { be " / tma_info_core_slots" }, .source = src }, \
	{ .name = "tma_retiring", .expr = { ret " / tma_info_core_slots" }, .source = src }, \
	{ .name = "tma_fetch_latency", .expr = { "TOPDOWN_FE_BOUND.FRONTEND_LATENCY / tma_info_core_slots" }, \
	  .source = src }, \
	{ .name = "tma_fetch_bandwidth", .expr = { "TOPDOWN_FE_BOUND.FRONTEND_BANDWIDTH / tma_info_core_slots" }, \
	  .source = src }, \
	{ .name = "tma_branch_mispredicts", .expr = { "TOPDOWN_BAD_SPECULATION.MISPREDICT / tma_info_core_slots" }, \
	  .source = src }, \
	{ .name = "tma_machine_clears", .expr = { "TOPDOWN_BAD_SPECULATION.MACHINE_CLEARS / tma_info_core_slots" }, \
	  .source = src }, \
	{ .name = "tma_mem_scheduler", .expr = { "TOPDOWN_BE_BOUND.MEM_SCHEDULER / tma_info_core_slots" }, \
	  .source = src }, \
	{ .name = "tma_store_bound", \
	  .expr = { "tma_mem_scheduler * (MEM_SCHEDULER_BLOCK.ST_BUF / MEM_SCHEDULER_BLOCK.ALL)" }, .source = src }, \
	{ .name = "tma_memory_bound", \
	  .expr = { "min(tma_backend_bound, LD_HEAD.ANY_AT_RET / tma_info_core_clks + tma_store_bound)" }, \
	  .source = src }, \
	{ .name = "tma_core_bound", .expr = { "max(0, tma_backend_bound - tma_memory_bound)" }, .source = src }, \
	{ .name = "tma_base", .expr = { "(" ret " - UOPS_RETIRED.MS) / tma_info_core_slots" }, .source = src }, \
	{ .name = "tma_ms_uops", .expr = { "UOPS_RETIRED.MS / tma_info_core_slots" }, .source = src }

static const struct model_formula grt_formulas[] = {
	ECORE_FORMULAS(src_grt, "TOPDOWN_FE_BOUND.ALL", "TOPDOWN_BE_BOUND.ALL", "TOPDOWN_RETIRING.ALL"),
	{ .name = "tma_bad_speculation",
	  .expr = { "(tma_info_core_slots - (TOPDOWN_FE_BOUND.ALL + TOPDOWN_BE_BOUND.ALL + TOPDOWN_RETIRING.ALL)) / "
		    "tma_info_core_slots" },
	  .source = src_grt },
};

static const struct model_formula cmt_formulas[] = {
	ECORE_FORMULAS(src_cmt, "TOPDOWN_FE_BOUND.ALL_P", "TOPDOWN_BE_BOUND.ALL_P", "TOPDOWN_RETIRING.ALL_P"),
	{ .name = "tma_bad_speculation", .expr = { "TOPDOWN_BAD_SPECULATION.ALL_P / tma_info_core_slots" },
	  .source = src_cmt },
};

static const struct model_node_def ecore_nodes[] = {
	{ .key = "retiring", .formula = "tma_retiring", .threshold = THR_RETIRING },
	{ .key = "bad_speculation", .formula = "tma_bad_speculation", .threshold = THR_BAD_SPECULATION,
	  .approx_children = true },
	{ .key = "frontend_bound", .formula = "tma_frontend_bound", .threshold = THR_FRONTEND_BOUND,
	  .approx_children = true },
	{ .key = "backend_bound", .formula = "tma_backend_bound", .threshold = THR_BACKEND_BOUND },
	{ .key = "fetch_latency", .parent = "frontend_bound", .formula = "tma_fetch_latency",
	  .threshold = THR_FETCH_LATENCY },
	{ .key = "fetch_bandwidth", .parent = "frontend_bound", .formula = "tma_fetch_bandwidth",
	  .threshold = THR_FETCH_BANDWIDTH },
	{ .key = "branch_mispredicts", .parent = "bad_speculation", .formula = "tma_branch_mispredicts",
	  .threshold = THR_BRANCH_MISPREDICTS },
	{ .key = "machine_clears", .parent = "bad_speculation", .formula = "tma_machine_clears",
	  .threshold = THR_MACHINE_CLEARS },
	{ .key = "memory_bound", .parent = "backend_bound", .formula = "tma_memory_bound",
	  .threshold = THR_MEMORY_BOUND },
	{ .key = "core_bound", .parent = "backend_bound", .formula = "tma_core_bound", .threshold = THR_CORE_BOUND },
	{ .key = "light_operations", .parent = "retiring", .formula = "tma_base", .vendor = "tma_base",
	  .threshold = THR_LIGHT_OPERATIONS },
	{ .key = "heavy_operations", .parent = "retiring", .formula = "tma_ms_uops", .vendor = "tma_ms_uops",
	  .threshold = THR_HEAVY_OPERATIONS },
};

static const char sources[] = "Intel E-core_TMA_Metrics.csv 3.52 (intel/perfmon @379ad3d4), GRT and CMT columns; "
			      "perf alderlake/adl-metrics.json (cpu_atom metrics)";

const struct model model_gracemont = {
	.name = "gracemont",
	.aliases = { "alderlake-e", "raptorlake-e", "alderlake_atom", "grt", "alderlaken" },
	.description = "Intel Gracemont E-cores of Alder Lake, Raptor Lake and Alder Lake-N, 5-wide",
	.sources = sources,
	.vendor = MODEL_VENDOR_INTEL,
	.kind = MODEL_KIND_SLOTS,
	.core_type = "E-core",
	.pmu = "cpu_atom",
	.companion = &model_alderlake,
	.slots = 5,
	.gp_counters = 6,
	.fixed_counters = 3,
	.events = grt_events,
	.nr_events = ARRAY_SIZE(grt_events),
	.formulas = grt_formulas,
	.nr_formulas = ARRAY_SIZE(grt_formulas),
	.nodes = ecore_nodes,
	.nr_nodes = ARRAY_SIZE(ecore_nodes),
};

const struct model model_crestmont = {
	.name = "crestmont",
	.aliases = { "meteorlake-e", "cmt", "sierraforest", "grandridge" },
	.description = "Intel Crestmont E-cores of Meteor Lake (and Sierra Forest, Grand Ridge), 6-wide",
	.sources = sources,
	.vendor = MODEL_VENDOR_INTEL,
	.kind = MODEL_KIND_SLOTS,
	.core_type = "E-core",
	.pmu = "cpu_atom",
	.companion = &model_meteorlake,
	.slots = 6,
	.gp_counters = 8,
	.fixed_counters = 3,
	.events = cmt_events,
	.nr_events = ARRAY_SIZE(cmt_events),
	.formulas = cmt_formulas,
	.nr_formulas = ARRAY_SIZE(cmt_formulas),
	.nodes = ecore_nodes,
	.nr_nodes = ARRAY_SIZE(ecore_nodes),
};
