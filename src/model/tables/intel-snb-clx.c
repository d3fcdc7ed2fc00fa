/*
 * Intel before Ice Lake: Sandy Bridge to Cascade/Cooper Lake, 4 slots per cycle
 * per physical core.
 *
 * Sources:
 *   - Linux perf, tools/perf/pmu-events/arch/x86/skylake/skl-metrics.json
 *     (torvalds/linux blob 1bbeaf83dd7b, generated from Intel's TMA 4.x tables):
 *     tma_frontend_bound, tma_bad_speculation, tma_retiring, tma_backend_bound,
 *     tma_info_thread_slots, tma_info_core_core_clks and the level-2 metrics
 *     tma_fetch_latency/bandwidth, tma_branch_mispredicts, tma_machine_clears,
 *     tma_memory_bound, tma_core_bound, tma_heavy/light_operations. The
 *     skylakex and cascadelakex files carry the same level-1 and level-2 formulas.
 *   - Intel, TMA_Metrics-full.csv 5.2 (intel/perfmon, 2024), columns SNB..CLX:
 *     Frontend_Bound, Bad_Speculation, Retiring (SNB cell, inherited to CLX),
 *     Backend_Bound (SKL cell), #Recovery_Cycles, CORE_CLKS, Microcode_Sequencer,
 *     #Memory_Bound_Fraction, #Backend_Bound_Cycles and #Few_Uops_Executed_Threshold
 *     (SKL cells).
 *   - Linux, arch/x86/events/intel/core.c: the generic topdown-* events of perf
 *     5.x's --topdown (topdown-total-slots scaled by 4, or by 2 with HT and the
 *     *_ANY encodings), read here from imports only.
 * SMT: with SMT on, slots are per physical core: core clocks are
 * CPU_CLK_UNHALTED.THREAD_ANY / 2 when all threads are counted (#core_wide),
 * otherwise Intel's EBS approximation THREAD / 2 * (1 + ONE_THREAD_ACTIVE /
 * REF_XCLK), and recovery cycles are INT_MISC.RECOVERY_CYCLES_ANY / 2; with SMT
 * off, the per-thread forms. An import uses whichever form its events hold.
 * Errata applied: none at level 1 or 2 (Intel's SKL erratum notes concern
 * deeper levels).
 * Sandy Bridge to Broadwell: level 1 as above; level 2 for Frontend, Bad
 * Speculation and Retiring. NEEDSWORK: their Memory/Core Bound split
 * (#Backend_Bound_Cycles with UOPS_EXECUTED.CORE:c1 and RESOURCE_STALLS.SB) is
 * not in the table yet, so those nodes are absent there.
 */
#include "model/tables/tables.h"

static const char src_skl[] = "perf skylake/skl-metrics.json (blob 1bbeaf83dd7b); Intel TMA_Metrics-full.csv 5.2; "
			      "imports of perf 5.x --topdown: the generic topdown-* events";
static const char src_snb[] = "Intel TMA_Metrics-full.csv 5.2, SNB column (Microcode_Sequencer)";

#define INTEL_FIXED(n) .counter = MODEL_CTR_FIXED, .fixed_idx = (n)

static const struct model_event skl_events[] = {
	{ .name = "INST_RETIRED.ANY", .aliases = { "instructions", "inst_retired.any_p" }, INTEL_FIXED(0) },
	{ .name = "CPU_CLK_UNHALTED.THREAD",
	  .aliases = { "cycles", "cpu-cycles", "cpu_clk_unhalted.thread_p", "cpu_clk_unhalted.core" },
	  INTEL_FIXED(1), .clock = true },
	{ .name = "CPU_CLK_UNHALTED.THREAD_ANY", .aliases = { "cpu_clk_unhalted.thread_p_any" },
	  .spec = "CPU_CLK_UNHALTED:THREAD_P:t=1" },
	{ .name = "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", .aliases = { "cpu_clk_thread_unhalted.one_thread_active" } },
	{ .name = "CPU_CLK_UNHALTED.REF_XCLK", .aliases = { "cpu_clk_thread_unhalted.ref_xclk" } },
	{ .name = "IDQ_UOPS_NOT_DELIVERED.CORE" },
	{ .name = "UOPS_ISSUED.ANY" },
	{ .name = "UOPS_RETIRED.RETIRE_SLOTS" },
	{ .name = "INT_MISC.RECOVERY_CYCLES" },
	{ .name = "INT_MISC.RECOVERY_CYCLES_ANY", .spec = "INT_MISC:RECOVERY_CYCLES:t=1" },
	/* level 2 */
	{ .name = "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE" },
	{ .name = "BR_MISP_RETIRED.ALL_BRANCHES", .aliases = { "branch-misses" } },
	{ .name = "MACHINE_CLEARS.COUNT" },
	{ .name = "CYCLE_ACTIVITY.STALLS_MEM_ANY" },
	{ .name = "EXE_ACTIVITY.BOUND_ON_STORES" },
	{ .name = "CYCLE_ACTIVITY.STALLS_TOTAL" },
	{ .name = "EXE_ACTIVITY.1_PORTS_UTIL" },
	{ .name = "EXE_ACTIVITY.2_PORTS_UTIL" },
	{ .name = "UOPS_RETIRED.MACRO_FUSED" },
	/* perf 5.x --topdown (imports only) */
	{ .name = "topdown-total-slots" },
	{ .name = "topdown-slots-issued" },
	{ .name = "topdown-slots-retired" },
	{ .name = "topdown-fetch-bubbles" },
	{ .name = "topdown-recovery-bubbles" },
};

/* Level 1 and the helpers both families share (tma_info_* are perf's names). */
#define INTEL_PRE_ICL_LEVEL1 \
	{ .name = "tma_info_thread_clks", .expr = { "CPU_CLK_UNHALTED.THREAD" }, .source = src_skl }, \
	{ .name = "tma_info_core_core_clks", \
	  .expr = { "CPU_CLK_UNHALTED.THREAD_ANY / 2", \
		    "CPU_CLK_UNHALTED.THREAD / 2 * (1 + CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE / CPU_CLK_UNHALTED.REF_XCLK)", \
		    "tma_info_thread_clks" }, \
	  .when = { MODEL_WHEN_SMT | MODEL_WHEN_CORE_WIDE, MODEL_WHEN_SMT | MODEL_WHEN_NOT_CORE_WIDE, \
		    MODEL_WHEN_NO_SMT }, \
	  .source = src_skl }, \
	{ .name = "tma_info_thread_slots", .expr = { "4 * tma_info_core_core_clks" }, .source = src_skl }, \
	{ .name = "tma_recovery_cycles", /* Intel's #Recovery_Cycles */ \
	  .expr = { "INT_MISC.RECOVERY_CYCLES_ANY / 2", "INT_MISC.RECOVERY_CYCLES" }, \
	  .when = { MODEL_WHEN_SMT, MODEL_WHEN_NO_SMT }, .source = src_skl }, \
	{ .name = "tma_frontend_bound", \
	  .expr = { "IDQ_UOPS_NOT_DELIVERED.CORE / tma_info_thread_slots", \
		    "topdown\\-fetch\\-bubbles / topdown\\-total\\-slots" }, \
	  .when = { 0, MODEL_WHEN_IMPORT }, .source = src_skl }, \
	{ .name = "tma_bad_speculation", \
	  .expr = { "(UOPS_ISSUED.ANY - UOPS_RETIRED.RETIRE_SLOTS + 4 * tma_recovery_cycles) / tma_info_thread_slots", \
		    "(topdown\\-slots\\-issued - topdown\\-slots\\-retired + topdown\\-recovery\\-bubbles) / " \
		    "topdown\\-total\\-slots" }, \
	  .when = { 0, MODEL_WHEN_IMPORT }, .source = src_skl }, \
	{ .name = "tma_retiring", \
	  .expr = { "UOPS_RETIRED.RETIRE_SLOTS / tma_info_thread_slots", \
		    "topdown\\-slots\\-retired / topdown\\-total\\-slots" }, \
	  .when = { 0, MODEL_WHEN_IMPORT }, .source = src_skl }, \
	{ .name = "tma_backend_bound", \
	  .expr = { "1 - tma_frontend_bound - (UOPS_ISSUED.ANY + 4 * tma_recovery_cycles) / tma_info_thread_slots", \
		    "1 - (tma_frontend_bound + tma_bad_speculation + tma_retiring)" }, \
	  .when = { 0, MODEL_WHEN_IMPORT }, .source = src_skl }, \
	{ .name = "tma_fetch_latency", \
	  .expr = { "4 * IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE / tma_info_thread_slots" }, \
	  .source = src_skl }, \
	{ .name = "tma_fetch_bandwidth", .expr = { "tma_frontend_bound - tma_fetch_latency" }, .source = src_skl }, \
	{ .name = "tma_branch_mispredicts", \
	  .expr = { "BR_MISP_RETIRED.ALL_BRANCHES / (BR_MISP_RETIRED.ALL_BRANCHES + MACHINE_CLEARS.COUNT) * " \
		    "tma_bad_speculation" }, \
	  .source = src_skl }, \
	{ .name = "tma_machine_clears", .expr = { "tma_bad_speculation - tma_branch_mispredicts" }, .source = src_skl }

static const struct model_formula skl_formulas[] = {
	INTEL_PRE_ICL_LEVEL1,
	{ .name = "tma_memory_bound",
	  .expr = { "(CYCLE_ACTIVITY.STALLS_MEM_ANY + EXE_ACTIVITY.BOUND_ON_STORES) / (CYCLE_ACTIVITY.STALLS_TOTAL + "
		    "(EXE_ACTIVITY.1_PORTS_UTIL + tma_retiring * EXE_ACTIVITY.2_PORTS_UTIL) + "
		    "EXE_ACTIVITY.BOUND_ON_STORES) * tma_backend_bound" },
	  .source = src_skl },
	{ .name = "tma_core_bound", .expr = { "tma_backend_bound - tma_memory_bound" }, .source = src_skl },
	{ .name = "tma_heavy_operations",
	  .expr = { "(UOPS_RETIRED.RETIRE_SLOTS + UOPS_RETIRED.MACRO_FUSED - INST_RETIRED.ANY) / "
		    "tma_info_thread_slots" },
	  .source = src_skl },
	{ .name = "tma_light_operations", .expr = { "tma_retiring - tma_heavy_operations" }, .source = src_skl },
};

#define INTEL_NODES_LEVEL1 \
	{ .key = "retiring", .formula = "tma_retiring", .threshold = THR_RETIRING }, \
	{ .key = "bad_speculation", .formula = "tma_bad_speculation", .threshold = THR_BAD_SPECULATION }, \
	{ .key = "frontend_bound", .formula = "tma_frontend_bound", .threshold = THR_FRONTEND_BOUND }, \
	{ .key = "backend_bound", .formula = "tma_backend_bound", .threshold = THR_BACKEND_BOUND }, \
	{ .key = "fetch_latency", .parent = "frontend_bound", .formula = "tma_fetch_latency", \
	  .threshold = THR_FETCH_LATENCY }, \
	{ .key = "fetch_bandwidth", .parent = "frontend_bound", .formula = "tma_fetch_bandwidth", \
	  .threshold = THR_FETCH_BANDWIDTH }, \
	{ .key = "branch_mispredicts", .parent = "bad_speculation", .formula = "tma_branch_mispredicts", \
	  .threshold = THR_BRANCH_MISPREDICTS }, \
	{ .key = "machine_clears", .parent = "bad_speculation", .formula = "tma_machine_clears", \
	  .threshold = THR_MACHINE_CLEARS }, \
	{ .key = "light_operations", .parent = "retiring", .formula = "tma_light_operations", \
	  .threshold = THR_LIGHT_OPERATIONS }, \
	{ .key = "heavy_operations", .parent = "retiring", .formula = "tma_heavy_operations", \
	  .threshold = THR_HEAVY_OPERATIONS }

static const struct model_node_def skl_nodes[] = {
	INTEL_NODES_LEVEL1,
	{ .key = "memory_bound", .parent = "backend_bound", .formula = "tma_memory_bound",
	  .threshold = THR_MEMORY_BOUND },
	{ .key = "core_bound", .parent = "backend_bound", .formula = "tma_core_bound", .threshold = THR_CORE_BOUND },
};

/* Sandy Bridge to Broadwell: the same level 1; heavy operations are the microcode sequencer's. */
static const struct model_event hsw_events[] = {
	{ .name = "CPU_CLK_UNHALTED.THREAD",
	  .aliases = { "cycles", "cpu-cycles", "cpu_clk_unhalted.thread_p", "cpu_clk_unhalted.core" },
	  INTEL_FIXED(1), .clock = true },
	{ .name = "CPU_CLK_UNHALTED.THREAD_ANY", .aliases = { "cpu_clk_unhalted.thread_p_any" },
	  .spec = "CPU_CLK_UNHALTED:THREAD_P:t=1" },
	{ .name = "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", .aliases = { "cpu_clk_thread_unhalted.one_thread_active" } },
	{ .name = "CPU_CLK_UNHALTED.REF_XCLK", .aliases = { "cpu_clk_thread_unhalted.ref_xclk" } },
	{ .name = "IDQ_UOPS_NOT_DELIVERED.CORE" },
	{ .name = "UOPS_ISSUED.ANY" },
	{ .name = "UOPS_RETIRED.RETIRE_SLOTS" },
	{ .name = "INT_MISC.RECOVERY_CYCLES" },
	{ .name = "INT_MISC.RECOVERY_CYCLES_ANY", .spec = "INT_MISC:RECOVERY_CYCLES:t=1" },
	{ .name = "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE" },
	{ .name = "BR_MISP_RETIRED.ALL_BRANCHES", .aliases = { "branch-misses" } },
	{ .name = "MACHINE_CLEARS.COUNT" },
	{ .name = "IDQ.MS_UOPS" },
	{ .name = "topdown-total-slots" },
	{ .name = "topdown-slots-issued" },
	{ .name = "topdown-slots-retired" },
	{ .name = "topdown-fetch-bubbles" },
	{ .name = "topdown-recovery-bubbles" },
};

static const struct model_formula hsw_formulas[] = {
	INTEL_PRE_ICL_LEVEL1,
	{ .name = "tma_heavy_operations", /* = Microcode_Sequencer before Skylake */
	  .expr = { "UOPS_RETIRED.RETIRE_SLOTS / UOPS_ISSUED.ANY * IDQ.MS_UOPS / tma_info_thread_slots" },
	  .source = src_snb },
	{ .name = "tma_light_operations", .expr = { "tma_retiring - tma_heavy_operations" }, .source = src_snb },
};

static const struct model_node_def hsw_nodes[] = {
	INTEL_NODES_LEVEL1,
};

static const char sources[] =
	"perf skylake/skl-metrics.json (torvalds/linux blob 1bbeaf83dd7b); Intel TMA_Metrics-full.csv 5.2 "
	"(intel/perfmon, 2024), columns SNB-CLX; perf 5.x generic topdown events for imports";

#define PRE_SKL_MODEL(var, name_, desc, ...) \
	const struct model var = { \
		.name = name_, \
		.aliases = { __VA_ARGS__ }, \
		.description = desc, \
		.sources = sources, \
		.vendor = MODEL_VENDOR_INTEL, \
		.kind = MODEL_KIND_SLOTS, \
		.slots = 4, \
		.gp_counters = 4, \
		.fixed_counters = 3, \
		.events = hsw_events, \
		.nr_events = ARRAY_SIZE(hsw_events), \
		.formulas = hsw_formulas, \
		.nr_formulas = ARRAY_SIZE(hsw_formulas), \
		.nodes = hsw_nodes, \
		.nr_nodes = ARRAY_SIZE(hsw_nodes), \
	}

#define SKL_MODEL(var, name_, desc, ...) \
	const struct model var = { \
		.name = name_, \
		.aliases = { __VA_ARGS__ }, \
		.description = desc, \
		.sources = sources, \
		.vendor = MODEL_VENDOR_INTEL, \
		.kind = MODEL_KIND_SLOTS, \
		.slots = 4, \
		.gp_counters = 4, \
		.fixed_counters = 3, \
		.events = skl_events, \
		.nr_events = ARRAY_SIZE(skl_events), \
		.formulas = skl_formulas, \
		.nr_formulas = ARRAY_SIZE(skl_formulas), \
		.nodes = skl_nodes, \
		.nr_nodes = ARRAY_SIZE(skl_nodes), \
	}

PRE_SKL_MODEL(model_sandybridge, "sandybridge", "Intel Sandy Bridge (SNB, JKT/SNB-EP), 4-wide", "jaketown", "snb");
PRE_SKL_MODEL(model_ivybridge, "ivybridge", "Intel Ivy Bridge (IVB, IVT), 4-wide", "ivytown", "ivb");
PRE_SKL_MODEL(model_haswell, "haswell", "Intel Haswell (HSW, HSX), 4-wide", "haswellx", "hsw");
PRE_SKL_MODEL(model_broadwell, "broadwell", "Intel Broadwell (BDW, BDX), 4-wide", "broadwellx", "broadwellde",
	      "bdw");
SKL_MODEL(model_skylake, "skylake", "Intel Skylake client (SKL, KBL, CFL, CML), 4-wide", "kabylake", "coffeelake",
	  "cometlake", "whiskeylake", "amberlake", "skl");
SKL_MODEL(model_skylakex, "skylakex", "Intel Skylake server (SKX), 4-wide", "skx");
SKL_MODEL(model_cascadelake, "cascadelake", "Intel Cascade Lake and Cooper Lake (CLX, CPX), 4-wide",
	  "cascadelakex", "cooperlake", "clx", "cpx");
