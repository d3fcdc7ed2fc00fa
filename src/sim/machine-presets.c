/*
 * machine-presets.c: the named machines of --sim-machine (data only).
 *
 * Each preset cites where its numbers come from. Latencies are in core cycles,
 * rounded; where a source gives a range we take its common case or the middle.
 * valgrind simulates two cache levels (L1 and a last level), so `ll_latency`
 * stands for an L1 miss served by L2 or L3 together: we take the mean of the L2 and
 * L3 load-to-use latencies (docs/sim-machine.md explains the error this makes).
 * valgrind needs a power-of-two number of sets; a cache that has another (Alder
 * Lake's 30 MiB 12-way L3) is rounded down to the nearest size that has one, and
 * says so in its description.
 *
 * The costs of streaming and scattered misses (mlp, stream_mlp, stream_ratio) are
 * assumptions of the cost model, the same on every preset.
 */
#include "sim/machine.h"

#include <string.h>

#define KIB(x) ((uint64_t)(x) << 10)
#define MIB(x) ((uint64_t)(x) << 20)

/* The cost model's assumptions, shared by every preset (docs/sim-machine.md). */
#define MODEL_ASSUMPTIONS .uops_per_insn = 1.0, .mlp = 1.0, .stream_mlp = 8.0, .stream_ratio = 0.125, .indep_mlp = 6.0, \
	.pf_stride = 1, .pf_stream = 1, .pf_max_stride = 2048, .dep_range = 512, .btb_assoc = 8, .dsb_assoc = 8, \
	REP_STRINGS

/*
 * A repeated string instruction's microcode (rep movs/stos/lods/cmps/scas): a start
 * of about 20 µops whatever the count, then the fast-string loop moving 16 bytes
 * per µop (a 16-byte load and store pair per two µops, 32 bytes a cycle at four µops
 * a cycle). Intel's optimization manual (248966, "Enhanced REP MOVSB and STOSB
 * operation": a start-up of about 35 cycles for short counts, 32 or 64 bytes a cycle
 * beyond) and Agner Fog's instruction tables (REP MOVS: ~"2n + c" µops without fast
 * strings, a few per 16 bytes with them); AMD's Zen guides give FSRM the same shape.
 * One set for every preset: the numbers are rough (docs/sim-machine.md).
 */
#define REP_STRINGS .rep_start_uops = 20, .rep_bytes_per_uop = 16

/*
 * The valgrind tool's parameters (docs/sim-machine.md "The tool"): L2, load-to-use
 * latencies per level, ROB, L1D fill buffers (MSHR), one core's DRAM bandwidth,
 * BTB, µop cache and legacy decode. Shared assumptions: both prefetchers on,
 * strides up to 2 KiB prefetched (Intel's IP prefetcher's limit), a load within
 * 512 B above a loaded pointer depends on it, 8-way BTB and µop cache. One core's
 * bandwidth from L2, L3 and DRAM (l2_bw, l3_bw, mem_bw) is an assumption: single-core
 * read bandwidth as Chips and Cheese measured it for each core, in bytes per core
 * cycle, rounded down. The
 * µop cache is given in windows (its µops / 6, the µops of one way).
 */
#define TOOL(l2size, l2assoc, l1l, l2l, l3l, rob_, mshr_, l2bw, l3bw, bw, btb, btbp, dsbw, dsbb, dec, sw) \
	.l2 = { l2size, l2assoc, 64 }, .l1_latency = l1l, .l2_latency = l2l, .l3_latency = l3l, .rob = rob_, .mshr = mshr_, \
	.l2_bw = l2bw, .l3_bw = l3bw, .mem_bw = bw, .btb_entries = btb, .btb_penalty = btbp, .dsb_windows = dsbw, .dsb_window = dsbb, \
	.decode_width = dec, .dsb_switch = sw

/* The front-end share of a mispredict (resteer_latency) is the refill of the
 * pipeline up to allocation after the flush: about a third of the penalty (the
 * µop-cache hit path is the short front end of Golden Cove and Zen 4; Intel's TMA
 * charges those cycles to Branch_Resteers under Fetch Latency, the rest of the
 * penalty to Branch_Mispredicts). indirect_resteer: a correctly predicted
 * indirect jump or call still ends the fetch block and costs a redirect bubble
 * (2-3 cycles on Golden Cove and Zen 4 per Chips and Cheese's BTB measurements). */

/*
 * .hosts: without --sim-machine (or TDPROF_SIM_MACHINE) the simulation follows the
 * host: the preset whose list holds the host's micro-architecture (cpu/'s name),
 * else generic. Each stands for its own core and its nearest relatives: Skylake for
 * Haswell to Cooper Lake (4-wide), Ice Lake-SP for the Sunny and Willow Cove
 * chips, Golden Cove for the hybrids' and Xeons' P-cores up to Lion Cove (which is
 * wider: 8 slots), Zen 3 for Zen 1 to 3, Zen 4 for Zen 5 (8 slots), Neoverse N1
 * for the Cortex-A76 family it derives from.
 */
static const struct sim_machine_preset presets[] = {
	{
		.name = "generic",
		.description = "a modern desktop core: Golden Cove's L1 caches, Zen 4's L3, 6-wide",
		.sources = "composite of the zen4 and alderlake presets below (their sources); "
			   "costs between the two; the tool: Golden Cove's L2, ROB and fill buffers, Zen 4's L3 latency",
		.m = {
			.name = "generic",
			.i1 = { KIB(32), 8, 64 },
			.d1 = { KIB(48), 12, 64 },
			.ll = { MIB(32), 16, 64 },
			.width = 6,
			.branch_penalty = 15,
			.i1_latency = 14,
			.ll_latency = 35,
			.mem_latency = 400,
			.resteer_latency = 5, .indirect_resteer = 2, .mcpu = "alderlake",
			TOOL(KIB(1280), 10, 5, 15, 50, 512, 16, 48, 20, 7, 8192, 9, 512, 64, 6, 2),
			MODEL_ASSUMPTIONS,
		},
	},
	{
		.name = "zen4",
		.hosts = "zen4 zen5",
		.description = "AMD Zen 4 (Ryzen 7000, EPYC 9004): 32 MiB L3 per CCX, 6-wide",
		.sources = "AMD, Software Optimization Guide for the AMD Zen4 Microarchitecture (pub. 57647): "
			   "L1I/L1D 32 KiB 8-way, L2 1 MiB 14 cycles, L3 32 MiB 16-way ~50 cycles, "
			   "6 macro-ops dispatched per cycle, mispredict 11-18 cycles (13 common); "
			   "DRAM ~80 ns at ~5 GHz (Chips and Cheese, \"AMD's Zen 4 Part 2: Memory "
			   "Subsystem\", 2022); tool: L1D 4 cycles, ROB 320, 24 L1D misses in flight, L1 BTB 1.5K + "
			   "L2 BTB 7K (as 8K), op cache 6.75K ops, 4-wide decode (Chips and Cheese, \"Zen 4 Part 1\", 2022)",
		.m = {
			.name = "zen4",
			.i1 = { KIB(32), 8, 64 },
			.d1 = { KIB(32), 8, 64 },
			.ll = { MIB(32), 16, 64 },
			.width = 6,
			.branch_penalty = 13,
			.i1_latency = 14,
			.ll_latency = 32,
			.mem_latency = 400,
			.resteer_latency = 4, .indirect_resteer = 2, .mcpu = "znver3",
			TOOL(MIB(1), 8, 4, 14, 50, 320, 24, 48, 24, 8, 8192, 8, 1024, 64, 4, 1),
			MODEL_ASSUMPTIONS,
		},
	},
	{
		.name = "alderlake",
		.hosts = "alderlake raptorlake meteorlake arrowlake lunarlake pantherlake sapphirerapids emeraldrapids graniterapids",
		.description = "Intel Golden Cove P-core (Alder Lake): L3 30 MiB 12-way simulated as 24 MiB",
		.sources = "Intel 64 and IA-32 Architectures Optimization Reference Manual (248966), "
			   "Golden Cove: L1I 32 KiB 8-way, L1D 48 KiB 12-way, L2 1.25 MiB 15 cycles, "
			   "6-wide allocation; L3 ~65 cycles, mispredict ~17 cycles, DRAM ~90 ns at ~5 GHz "
			   "(Chips and Cheese, \"Popping the Hood on Golden Cove\", 2021); tool: ROB 512, 16 L1D fill "
			   "buffers, BTB 12K, µop cache 4K µops (64 B windows), 6-wide decode",
		.m = {
			.name = "alderlake",
			.i1 = { KIB(32), 8, 64 },
			.d1 = { KIB(48), 12, 64 },
			.ll = { MIB(24), 12, 64 },
			.width = 6,
			.branch_penalty = 17,
			.i1_latency = 15,
			.ll_latency = 40,
			.mem_latency = 450,
			.resteer_latency = 6, .indirect_resteer = 2, .mcpu = "alderlake",
			TOOL(KIB(1280), 10, 5, 15, 65, 512, 16, 48, 20, 6.5, 12288, 9, 512, 64, 6, 2),
			MODEL_ASSUMPTIONS,
		},
	},
	{
		.name = "skylake",
		.hosts = "haswell haswellx broadwell broadwellx broadwellde skylake skylakex cascadelake cooperlake cannonlake",
		.description = "Intel Skylake client (Core i7-6700K): 8 MiB L3, 4-wide",
		.sources = "Intel 64 and IA-32 Architectures Optimization Reference Manual (248966), "
			   "Skylake: L1I/L1D 32 KiB 8-way, L2 256 KiB 12 cycles, 4-wide allocation "
			   "(top-down's 4 slots), mispredict ~16 cycles; L3 8 MiB 16-way ~42 cycles, "
			   "DRAM ~42 cycles + 51 ns at 4 GHz (7-cpu.com, Skylake); tool: L1D 4 cycles, ROB 224, 12 fill "
			   "buffers, BTB ~4K, DSB 1.5K µops (32 sets x 8 ways of 32 B windows), 4-wide legacy decode "
			   "(the same manual), TMA's BAClear_Cost 9",
		.m = {
			.name = "skylake",
			.i1 = { KIB(32), 8, 64 },
			.d1 = { KIB(32), 8, 64 },
			.ll = { MIB(8), 16, 64 },
			.width = 4,
			.branch_penalty = 16,
			.i1_latency = 12,
			.ll_latency = 27,
			.mem_latency = 250,
			.resteer_latency = 5, .indirect_resteer = 2, .mcpu = "skylake",
			TOOL(KIB(256), 4, 4, 12, 42, 224, 12, 32, 16, 5, 4096, 9, 256, 32, 4, 2),
			MODEL_ASSUMPTIONS,
		},
	},
	{
		.name = "icelake-server",
		.hosts = "icelake icelakex tigerlake rocketlake",
		.description = "Intel Sunny Cove server core (Ice Lake-SP): L3 simulated as 32 MiB, 5-wide",
		.sources = "Intel 64 and IA-32 Architectures Optimization Reference Manual (248966), "
			   "Ice Lake: L1I 32 KiB 8-way, L1D 48 KiB 12-way, L2 1.25 MiB 14 cycles, 5-wide "
			   "allocation; L3 1.5 MiB/core on a mesh ~70 cycles, DRAM ~110 ns at ~3 GHz "
			   "(Chips and Cheese, \"Intel's Ice Lake-SP\", 2021); mispredict ~17 cycles; tool: ROB 352, "
			   "12 fill buffers, BTB ~5K, DSB 2.25K µops, 4 decoders",
		.m = {
			.name = "icelake-server",
			.i1 = { KIB(32), 8, 64 },
			.d1 = { KIB(48), 12, 64 },
			.ll = { MIB(32), 16, 64 },
			.width = 5,
			.branch_penalty = 17,
			.i1_latency = 14,
			.ll_latency = 42,
			.mem_latency = 330,
			.resteer_latency = 6, .indirect_resteer = 2, .mcpu = "icelake-server",
			TOOL(KIB(1280), 20, 5, 14, 70, 352, 12, 40, 10, 4.5, 5120, 9, 384, 64, 4, 2),
			MODEL_ASSUMPTIONS,
		},
	},
	{
		.name = "zen3",
		.hosts = "zen1 zen2 zen3",
		.description = "AMD Zen 3 (Ryzen 5000, EPYC 7003): 32 MiB L3 per CCX, 6-wide",
		.sources = "AMD, Software Optimization Guide for AMD EPYC 7003 Processors (pub. 56665): "
			   "L1I/L1D 32 KiB 8-way, L2 512 KiB 12 cycles, L3 32 MiB 16-way ~46 cycles, "
			   "6 macro-ops dispatched per cycle, mispredict ~13 cycles; DRAM ~80 ns at ~4.5 GHz; tool: ROB 256, "
			   "24 L1D misses in flight, op cache 4K ops, 4-wide decode",
		.m = {
			.name = "zen3",
			.i1 = { KIB(32), 8, 64 },
			.d1 = { KIB(32), 8, 64 },
			.ll = { MIB(32), 16, 64 },
			.width = 6,
			.branch_penalty = 13,
			.i1_latency = 12,
			.ll_latency = 29,
			.mem_latency = 360,
			.resteer_latency = 4, .indirect_resteer = 2, .mcpu = "znver3",
			TOOL(KIB(512), 8, 4, 12, 46, 256, 24, 32, 24, 7.5, 8192, 8, 640, 64, 4, 1),
			MODEL_ASSUMPTIONS,
		},
	},
	{
		.name = "neoverse-n1",
		.hosts = "neoverse-n1 cortex-a76 cortex-a77 cortex-a78 cortex-x1",
		.description = "Arm Neoverse N1 (Ampere Altra, Graviton2): 64 KiB L1s, 32 MiB SLC, 4-wide",
		.sources = "Arm Neoverse N1 Technical Reference Manual (100616): L1I/L1D 64 KiB 4-way, "
			   "L2 1 MiB 8-way; Arm Neoverse N1 Software Optimization Guide: 4-wide decode, "
			   "mispredict 11 cycles, L2 ~11 cycles; Ampere Altra: 32 MiB system level "
			   "cache ~90 cycles, DRAM ~120 ns at 3 GHz; tool: ROB 128, BTB 6K; its macro-op cache is not "
			   "modelled (x86 code decodes differently)",
		.m = {
			.name = "neoverse-n1",
			.i1 = { KIB(64), 4, 64 },
			.d1 = { KIB(64), 4, 64 },
			.ll = { MIB(32), 16, 64 },
			.width = 4,
			.branch_penalty = 11,
			.i1_latency = 11,
			.ll_latency = 50,
			.mem_latency = 360,
			.resteer_latency = 4, .indirect_resteer = 2, .mcpu = "neoverse-n1", .mtriple = "aarch64",
			TOOL(MIB(1), 8, 4, 11, 90, 128, 16, 32, 12, 6.5, 6144, 8, 0, 64, 4, 0),
			MODEL_ASSUMPTIONS,
		},
	},
};

const struct sim_machine_preset *sim_machine_presets(size_t *nr)
{
	*nr = sizeof(presets) / sizeof(presets[0]);
	return presets;
}

const char *sim_machine_preset_for_uarch(const char *uarch)
{
	size_t n = uarch ? strlen(uarch) : 0;

	for (size_t i = 0; n && i < sizeof(presets) / sizeof(presets[0]); i++) {
		for (const char *h = presets[i].hosts; h && *h;) {
			size_t l = strcspn(h, " ");

			if (l == n && !memcmp(h, uarch, n))
				return presets[i].name;
			h += l;
			h += strspn(h, " ");
		}
	}
	return NULL;
}
