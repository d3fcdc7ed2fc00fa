/*
 * Intel Sapphire Rapids, Emerald Rapids, Granite Rapids, and the P-cores of the
 * hybrids (Alder Lake / Raptor Lake Golden/Raptor Cove, Meteor Lake Redwood
 * Cove): 6 slots per cycle per logical processor, levels 1 and 2 from
 * PERF_METRICS.
 *
 * Sources:
 *   - Linux perf, tools/perf/pmu-events/arch/x86/sapphirerapids/spr-metrics.json
 *     (blob 26f4b26f76bd): tma_frontend_bound (with the UOP_DROPPING
 *     correction), tma_backend_bound and tma_retiring (normalised, no clears
 *     correction), tma_bad_speculation = max(1 - (FE + BE + RET), 0), and level 2
 *     from the second half of PERF_METRICS: tma_heavy_operations
 *     (topdown-heavy-ops), tma_branch_mispredicts (topdown-br-mispredict),
 *     tma_fetch_latency (topdown-fetch-lat, minus UOP_DROPPING / slots),
 *     tma_memory_bound (topdown-mem-bound), each over the sum of the four level-1
 *     fractions; the siblings are the remainders max(0, parent - child). The
 *     alderlake/adl-metrics.json cpu_core metrics and graniterapids'
 *     gnr-metrics.json use the same formulas.
 *   - Intel, TMA_Metrics-full.csv 5.2, SPR/EMR/GNR and ADL/RPL/MTL columns
 *     (PERF_METRICS.* / #PERF_METRICS_SUM, #Pipeline_Width 6); intel/perfmon
 *     SPR/metrics/sapphirerapids_metrics.json (TMA 5.2) for Frontend_Bound.
 *   - Linux, arch/x86/events/intel/core.c: topdown-heavy-ops 0x84,
 *     topdown-br-mispredict 0x85, topdown-fetch-lat 0x86, topdown-mem-bound 0x87.
 * Errata: none applied. Hybrids report each core type with its own model: the
 * P-core events are those of the cpu_core PMU.
 */
#include "model/tables/tables.h"

static const char src_spr[] =
	"perf sapphirerapids/spr-metrics.json (blob 26f4b26f76bd), alderlake/adl-metrics.json (cpu_core); "
	"Intel TMA_Metrics-full.csv 5.2 SPR/ADL columns";

#define TOPDOWN_EVENTS(pmu) \
	{ .name = "TOPDOWN.SLOTS", .aliases = { "slots", "topdown.slots_p", "topdown.slots:perf_metrics" }, \
	  .spec = pmu "/slots/", \
	  .counter = MODEL_CTR_FIXED, .fixed_idx = 3, .leader = true, .clock = true }, \
	{ .name = "topdown-retiring", .aliases = { "perf_metrics.retiring" }, .spec = pmu "/topdown-retiring/", \
	  .counter = MODEL_CTR_METRICS }, \
	{ .name = "topdown-bad-spec", .aliases = { "perf_metrics.bad_speculation" }, \
	  .spec = pmu "/topdown-bad-spec/", .counter = MODEL_CTR_METRICS }, \
	{ .name = "topdown-fe-bound", .aliases = { "perf_metrics.frontend_bound" }, \
	  .spec = pmu "/topdown-fe-bound/", .counter = MODEL_CTR_METRICS }, \
	{ .name = "topdown-be-bound", .aliases = { "perf_metrics.backend_bound" }, \
	  .spec = pmu "/topdown-be-bound/", .counter = MODEL_CTR_METRICS }, \
	{ .name = "topdown-heavy-ops", .aliases = { "perf_metrics.heavy_operations" }, \
	  .spec = pmu "/topdown-heavy-ops/", .counter = MODEL_CTR_METRICS }, \
	{ .name = "topdown-br-mispredict", .aliases = { "perf_metrics.branch_mispredicts" }, \
	  .spec = pmu "/topdown-br-mispredict/", .counter = MODEL_CTR_METRICS }, \
	{ .name = "topdown-fetch-lat", .aliases = { "perf_metrics.fetch_latency" }, \
	  .spec = pmu "/topdown-fetch-lat/", .counter = MODEL_CTR_METRICS }, \
	{ .name = "topdown-mem-bound", .aliases = { "perf_metrics.memory_bound" }, \
	  .spec = pmu "/topdown-mem-bound/", .counter = MODEL_CTR_METRICS }, \
	{ .name = "INT_MISC.UOP_DROPPING" }

static const struct model_event spr_events[] = { TOPDOWN_EVENTS("cpu") };
static const struct model_event pcore_events[] = { TOPDOWN_EVENTS("cpu_core") };

#define SUM "tma_perf_metrics_sum"

static const struct model_formula spr_formulas[] = {
	{ .name = "tma_info_thread_slots", .expr = { "TOPDOWN.SLOTS" }, .source = src_spr },
	{ .name = "tma_perf_metrics_sum", /* Intel's #PERF_METRICS_SUM */
	  .expr = { "topdown\\-fe\\-bound + topdown\\-bad\\-spec + topdown\\-retiring + topdown\\-be\\-bound" },
	  .source = src_spr },
	{ .name = "tma_frontend_bound",
	  .expr = { "topdown\\-fe\\-bound / " SUM " - INT_MISC.UOP_DROPPING / tma_info_thread_slots",
		    "topdown\\-fe\\-bound / " SUM },
	  .when = { 0, MODEL_WHEN_IMPORT },
	  .source = src_spr },
	{ .name = "tma_backend_bound", .expr = { "topdown\\-be\\-bound / " SUM }, .source = src_spr },
	{ .name = "tma_retiring", .expr = { "topdown\\-retiring / " SUM }, .source = src_spr },
	{ .name = "tma_bad_speculation", .expr = { "max(1 - (tma_frontend_bound + tma_backend_bound + tma_retiring), 0)" },
	  .source = src_spr },
	{ .name = "tma_fetch_latency",
	  .expr = { "topdown\\-fetch\\-lat / " SUM " - INT_MISC.UOP_DROPPING / tma_info_thread_slots",
		    "topdown\\-fetch\\-lat / " SUM },
	  .when = { 0, MODEL_WHEN_IMPORT },
	  .source = src_spr },
	{ .name = "tma_fetch_bandwidth", .expr = { "max(0, tma_frontend_bound - tma_fetch_latency)" },
	  .source = src_spr },
	{ .name = "tma_branch_mispredicts", .expr = { "topdown\\-br\\-mispredict / " SUM }, .source = src_spr },
	{ .name = "tma_machine_clears", .expr = { "max(0, tma_bad_speculation - tma_branch_mispredicts)" },
	  .source = src_spr },
	{ .name = "tma_memory_bound", .expr = { "topdown\\-mem\\-bound / " SUM }, .source = src_spr },
	{ .name = "tma_core_bound", .expr = { "max(0, tma_backend_bound - tma_memory_bound)" }, .source = src_spr },
	{ .name = "tma_heavy_operations", .expr = { "topdown\\-heavy\\-ops / " SUM }, .source = src_spr },
	{ .name = "tma_light_operations", .expr = { "max(0, tma_retiring - tma_heavy_operations)" },
	  .source = src_spr },
};

static const struct model_node_def spr_nodes[] = {
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
	"perf sapphirerapids/spr-metrics.json (torvalds/linux blob 26f4b26f76bd), alderlake/adl-metrics.json "
	"(cpu_core); Intel TMA_Metrics-full.csv 5.2 (intel/perfmon, 2024), SPR/EMR/GNR/ADL/MTL columns; "
	"arch/x86/events/intel/core.c (topdown-* encodings)";

#define SPR_MODEL(var, name_, desc, ev, pmu_, core_type_, companion_, ...) \
	const struct model var = { \
		.name = name_, \
		.aliases = { __VA_ARGS__ }, \
		.description = desc, \
		.sources = sources, \
		.vendor = MODEL_VENDOR_INTEL, \
		.kind = MODEL_KIND_SLOTS, \
		.core_type = core_type_, \
		.pmu = pmu_, \
		.companion = companion_, \
		.slots = 6, \
		.gp_counters = 8, \
		.fixed_counters = 4, \
		.events = ev, \
		.nr_events = ARRAY_SIZE(ev), \
		.formulas = spr_formulas, \
		.nr_formulas = ARRAY_SIZE(spr_formulas), \
		.nodes = spr_nodes, \
		.nr_nodes = ARRAY_SIZE(spr_nodes), \
	}

SPR_MODEL(model_sapphirerapids, "sapphirerapids", "Intel Sapphire Rapids (SPR, SPR-HBM), 6-wide", spr_events, NULL,
	  NULL, NULL, "spr", "goldencove-server");
SPR_MODEL(model_emeraldrapids, "emeraldrapids", "Intel Emerald Rapids (EMR), 6-wide", spr_events, NULL, NULL, NULL,
	  "emr");
SPR_MODEL(model_graniterapids, "graniterapids", "Intel Granite Rapids (GNR), 6-wide", spr_events, NULL, NULL, NULL,
	  "gnr", "redwoodcove-server");
SPR_MODEL(model_alderlake, "alderlake", "Intel Alder Lake and Raptor Lake P-cores (Golden Cove, Raptor Cove), 6-wide",
	  pcore_events, "cpu_core", "P-core", &model_gracemont, "raptorlake", "goldencove", "raptorcove", "adl", "rpl",
	  "alderlake-p", "raptorlake-p");
SPR_MODEL(model_meteorlake, "meteorlake", "Intel Meteor Lake P-cores (Redwood Cove), 6-wide", pcore_events,
	  "cpu_core", "P-core", &model_crestmont, "redwoodcove", "mtl", "meteorlake-p");
