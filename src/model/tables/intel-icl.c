/*
 * Intel Ice Lake, Tiger Lake, Rocket Lake and Ice Lake-X: 5 slots per cycle per
 * logical processor, level 1 from PERF_METRICS.
 *
 * Sources:
 *   - Linux perf, tools/perf/pmu-events/arch/x86/icelakex/icx-metrics.json
 *     (torvalds/linux @06f609b3, TMA 4.x) and icelake/icl-metrics.json (blob
 *     6b93f350e55f): tma_frontend_bound, tma_backend_bound, tma_retiring,
 *     tma_bad_speculation, tma_info_thread_slots, and the level-2 metrics
 *     tma_fetch_latency/bandwidth, tma_branch_mispredicts, tma_machine_clears,
 *     tma_memory_bound, tma_core_bound, tma_microcode_sequencer,
 *     tma_heavy/light_operations.
 *   - Intel, TMA_Metrics-full.csv 5.2 (intel/perfmon, 2024), ICL/ICX columns:
 *     the same formulas, with INT_MISC.CLEARS_COUNT for perf's
 *     cpu@INT_MISC.RECOVERY_CYCLES\,cmask\=1\,edge@.
 *   - tools/perf/Documentation/topdown.txt: slots leads the topdown group; the
 *     topdown-* events are read with PERF_FORMAT_GROUP; the kernel returns each
 *     as its share of slots.
 * Corrections applied (Intel's, as perf applies them): the four topdown
 * fractions are normalised by their sum; Frontend Bound subtracts
 * INT_MISC.UOP_DROPPING / slots; Backend Bound adds 5 * INT_MISC.CLEARS_COUNT
 * (recovery cycles, cmask=1 edge) / slots; Bad Speculation is what is left,
 * max(1 - (FE + BE + RET), 0). When an import lacks the two correction events
 * (perf 5.x --topdown), the plain normalised fractions are used.
 * Errata: none applied.
 */
#include "model/tables/tables.h"

static const char src_icx[] =
	"perf icelakex/icx-metrics.json (torvalds/linux @06f609b3) and icelake/icl-metrics.json; Intel TMA 5.2 ICL";

static const struct model_event icl_events[] = {
	{ .name = "TOPDOWN.SLOTS", .aliases = { "slots", "topdown.slots_p", "topdown.slots:perf_metrics" },
	  .spec = "cpu/slots/",
	  .counter = MODEL_CTR_FIXED, .fixed_idx = 3, .leader = true },
	{ .name = "topdown-retiring", .aliases = { "perf_metrics.retiring" }, .spec = "cpu/topdown-retiring/",
	  .counter = MODEL_CTR_METRICS },
	{ .name = "topdown-bad-spec", .aliases = { "perf_metrics.bad_speculation" }, .spec = "cpu/topdown-bad-spec/",
	  .counter = MODEL_CTR_METRICS },
	{ .name = "topdown-fe-bound", .aliases = { "perf_metrics.frontend_bound" }, .spec = "cpu/topdown-fe-bound/",
	  .counter = MODEL_CTR_METRICS },
	{ .name = "topdown-be-bound", .aliases = { "perf_metrics.backend_bound" }, .spec = "cpu/topdown-be-bound/",
	  .counter = MODEL_CTR_METRICS },
	{ .name = "INT_MISC.UOP_DROPPING" },
	{ .name = "INT_MISC.CLEARS_COUNT", .aliases = { "cpu/INT_MISC.RECOVERY_CYCLES,cmask=1,edge/" },
	  .spec = "INT_MISC:RECOVERY_CYCLES:c=1:e=1" },
	{ .name = "CPU_CLK_UNHALTED.THREAD", .aliases = { "cycles", "cpu-cycles", "cpu_clk_unhalted.thread_p" },
	  .counter = MODEL_CTR_FIXED, .fixed_idx = 1, .clock = true },
	/* level 2 */
	{ .name = "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE" },
	{ .name = "BR_MISP_RETIRED.ALL_BRANCHES", .aliases = { "branch-misses" } },
	{ .name = "MACHINE_CLEARS.COUNT" },
	{ .name = "CYCLE_ACTIVITY.STALLS_MEM_ANY" },
	{ .name = "EXE_ACTIVITY.BOUND_ON_STORES" },
	{ .name = "CYCLE_ACTIVITY.STALLS_TOTAL" },
	{ .name = "EXE_ACTIVITY.1_PORTS_UTIL" },
	{ .name = "EXE_ACTIVITY.2_PORTS_UTIL" },
	{ .name = "UOPS_ISSUED.ANY" },
	{ .name = "IDQ.MS_UOPS" },
	{ .name = "UOPS_DECODED.DEC0" },
	{ .name = "UOPS_DECODED.DEC0:c1", .aliases = { "cpu/UOPS_DECODED.DEC0,cmask=1/" },
	  .spec = "UOPS_DECODED:DEC0:c=1" },
	{ .name = "IDQ.MITE_UOPS" },
};

#define SUM "(topdown\\-fe\\-bound + topdown\\-bad\\-spec + topdown\\-retiring + topdown\\-be\\-bound)"

static const struct model_formula icl_formulas[] = {
	{ .name = "tma_info_thread_slots", .expr = { "TOPDOWN.SLOTS" }, .source = src_icx },
	{ .name = "tma_info_thread_clks", .expr = { "CPU_CLK_UNHALTED.THREAD" }, .source = src_icx },
	{ .name = "tma_frontend_bound",
	  .expr = { "topdown\\-fe\\-bound / " SUM " - INT_MISC.UOP_DROPPING / tma_info_thread_slots",
		    "topdown\\-fe\\-bound / " SUM },
	  .when = { 0, MODEL_WHEN_IMPORT },
	  .source = src_icx },
	{ .name = "tma_backend_bound",
	  .expr = { "topdown\\-be\\-bound / " SUM " + 5 * cpu@INT_MISC.RECOVERY_CYCLES\\,cmask\\=1\\,edge@ / "
		    "tma_info_thread_slots",
		    "topdown\\-be\\-bound / " SUM },
	  .when = { 0, MODEL_WHEN_IMPORT },
	  .source = src_icx },
	{ .name = "tma_retiring",
	  .expr = { "topdown\\-retiring / " SUM " + 0 * tma_info_thread_slots", "topdown\\-retiring / " SUM },
	  .when = { 0, MODEL_WHEN_IMPORT },
	  .source = src_icx },
	{ .name = "tma_bad_speculation", .expr = { "max(1 - (tma_frontend_bound + tma_backend_bound + tma_retiring), 0)" },
	  .source = src_icx },
	{ .name = "tma_fetch_latency",
	  .expr = { "(5 * IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE - INT_MISC.UOP_DROPPING) / "
		    "tma_info_thread_slots" },
	  .source = src_icx },
	{ .name = "tma_fetch_bandwidth", .expr = { "max(0, tma_frontend_bound - tma_fetch_latency)" },
	  .source = src_icx },
	{ .name = "tma_branch_mispredicts",
	  .expr = { "BR_MISP_RETIRED.ALL_BRANCHES / (BR_MISP_RETIRED.ALL_BRANCHES + MACHINE_CLEARS.COUNT) * "
		    "tma_bad_speculation" },
	  .source = src_icx },
	{ .name = "tma_machine_clears", .expr = { "max(0, tma_bad_speculation - tma_branch_mispredicts)" },
	  .source = src_icx },
	{ .name = "tma_memory_bound",
	  .expr = { "(CYCLE_ACTIVITY.STALLS_MEM_ANY + EXE_ACTIVITY.BOUND_ON_STORES) / (CYCLE_ACTIVITY.STALLS_TOTAL + "
		    "(EXE_ACTIVITY.1_PORTS_UTIL + tma_retiring * EXE_ACTIVITY.2_PORTS_UTIL) + "
		    "EXE_ACTIVITY.BOUND_ON_STORES) * tma_backend_bound" },
	  .source = src_icx },
	{ .name = "tma_core_bound", .expr = { "max(0, tma_backend_bound - tma_memory_bound)" }, .source = src_icx },
	{ .name = "tma_microcode_sequencer",
	  .expr = { "tma_retiring * tma_info_thread_slots / UOPS_ISSUED.ANY * IDQ.MS_UOPS / tma_info_thread_slots" },
	  .source = src_icx },
	{ .name = "tma_heavy_operations",
	  .expr = { "tma_microcode_sequencer + tma_retiring * (UOPS_DECODED.DEC0 - cpu@UOPS_DECODED.DEC0\\,cmask\\=1@) "
		    "/ IDQ.MITE_UOPS" },
	  .source = src_icx },
	{ .name = "tma_light_operations", .expr = { "max(0, tma_retiring - tma_heavy_operations)" },
	  .source = src_icx },
};

static const struct model_node_def icl_nodes[] = {
	{ .key = "retiring", .formula = "tma_retiring", .threshold = THR_RETIRING },
	{ .key = "bad_speculation", .formula = "tma_bad_speculation", .threshold = THR_BAD_SPECULATION },
	{ .key = "frontend_bound", .formula = "tma_frontend_bound", .threshold = THR_FRONTEND_BOUND },
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
	{ .key = "light_operations", .parent = "retiring", .formula = "tma_light_operations",
	  .threshold = THR_LIGHT_OPERATIONS },
	{ .key = "heavy_operations", .parent = "retiring", .formula = "tma_heavy_operations",
	  .threshold = THR_HEAVY_OPERATIONS },
};

static const char sources[] =
	"perf icelakex/icx-metrics.json (torvalds/linux @06f609b3), icelake/icl-metrics.json (blob 6b93f350e55f); "
	"Intel TMA_Metrics-full.csv 5.2 (intel/perfmon, 2024), ICL/ICX columns; tools/perf/Documentation/topdown.txt";

#define ICL_MODEL(var, name_, desc, ...) \
	const struct model var = { \
		.name = name_, \
		.aliases = { __VA_ARGS__ }, \
		.description = desc, \
		.sources = sources, \
		.vendor = MODEL_VENDOR_INTEL, \
		.kind = MODEL_KIND_SLOTS, \
		.slots = 5, \
		.gp_counters = 8, \
		.fixed_counters = 4, \
		.events = icl_events, \
		.nr_events = ARRAY_SIZE(icl_events), \
		.formulas = icl_formulas, \
		.nr_formulas = ARRAY_SIZE(icl_formulas), \
		.nodes = icl_nodes, \
		.nr_nodes = ARRAY_SIZE(icl_nodes), \
	}

ICL_MODEL(model_icelake, "icelake", "Intel Ice Lake client, Tiger Lake, Rocket Lake (ICL, TGL, RKL), 5-wide",
	  "tigerlake", "rocketlake", "icl", "tgl", "rkl", "sunnycove", "willowcove", "cypresscove");
ICL_MODEL(model_icelakex, "icelakex", "Intel Ice Lake-SP/D server (ICX), 5-wide", "icx", "icelake-server");
