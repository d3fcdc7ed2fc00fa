/*
 * event-pfm-names.c: perf's names for events libpfm4 4.13 spells differently,
 * per libpfm4 PMU. Only data; event-pfm.c rewrites a matching name (compared
 * case-insensitively, '.', ':' and '_' alike) into the libpfm4 string and lets
 * libpfm4 encode it, so attributes (":c=6", ":u") still apply.
 *
 * Sources:
 *   - AMD Zen 4: perf's tools/perf/pmu-events/arch/x86/amdzen4/{pipeline,core,other}.json
 *     (the names PipelineL1/L2 use; encodings quoted in shared/reference/tma-formulas.md
 *     §2.4.3) matched to libpfm4's amd64_fam19h_zen4 table (AMD PPR 19h/11h names).
 *   - Intel Skylake family: CPU_CLK_UNHALTED.* and INST_RETIRED.ANY as perf's
 *     skylake/skylakex/cascadelakex JSON name them; libpfm4 names the architectural
 *     events CPU_CLK_THREAD_UNHALTED and INST_RETIRED:ANY_P (Intel SDM vol. 3B,
 *     "Pre-defined Architectural Performance Events": 3CH/00H, C0H/00H).
 *   - Intel Ice Lake and later: CPU_CLK_UNHALTED.THREAD is the architectural 3CH/00H
 *     (libpfm4's CPU_CLK_UNHALTED:THREAD_P).
 * Each row is checked by tests/unit/pmu/test-event-pfm.c against libpfm4 and the
 * documented raw encoding for the CPUs the top-down models cover.
 */
#include "pmu/event-internal.h"

#define ROW(p, n, f) { .pmu = p, .name = n, .pfm = f }

const struct pmu_pfm_alias pmu_pfm_aliases[] = {
	/* AMD Zen 4: PipelineL1 and PipelineL2 */
	ROW("amd64_fam19h_zen4", "de_no_dispatch_per_slot.no_ops_from_frontend", "DISPATCH_STALLS_1:FE_NO_OPS"),
	ROW("amd64_fam19h_zen4", "de_no_dispatch_per_slot.backend_stalls", "DISPATCH_STALLS_1:BE_STALLS"),
	ROW("amd64_fam19h_zen4", "de_no_dispatch_per_slot.smt_contention", "DISPATCH_STALLS_1:SMT_CONTENTION"),
	ROW("amd64_fam19h_zen4", "de_src_op_disp.all",
	    "OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:LOOP_BUFFER"),
	ROW("amd64_fam19h_zen4", "de_src_op_disp.decoder", "OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER"),
	ROW("amd64_fam19h_zen4", "de_src_op_disp.op_cache", "OPS_SOURCE_DISPATCHED_FROM_DECODER:OPCACHE"),
	ROW("amd64_fam19h_zen4", "de_src_op_disp.loop_buffer", "OPS_SOURCE_DISPATCHED_FROM_DECODER:LOOP_BUFFER"),
	ROW("amd64_fam19h_zen4", "ex_ret_ops", "RETIRED_OPS"),
	ROW("amd64_fam19h_zen4", "ex_ret_instr", "RETIRED_INSTRUCTIONS"),
	ROW("amd64_fam19h_zen4", "ls_not_halted_cyc", "CYCLES_NOT_IN_HALT"),
	ROW("amd64_fam19h_zen4", "ex_ret_brn", "RETIRED_BRANCH_INSTRUCTIONS"),
	ROW("amd64_fam19h_zen4", "ex_ret_brn_misp", "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED"),
	ROW("amd64_fam19h_zen4", "ex_ret_brn_tkn", "RETIRED_TAKEN_BRANCH_INSTRUCTIONS"),
	ROW("amd64_fam19h_zen4", "ex_ret_brn_tkn_misp", "RETIRED_TAKEN_BRANCH_INSTRUCTIONS_MISPREDICTED"),
	ROW("amd64_fam19h_zen4", "ex_ret_ucode_ops", "RETIRED_UCODE_OPS"),
	ROW("amd64_fam19h_zen4", "resyncs_or_nc_redirects", "RESYNCS"),
	ROW("amd64_fam19h_zen4", "ex_no_retire.empty", "CYCLES_NO_RETIRE:EMPTY"),
	ROW("amd64_fam19h_zen4", "ex_no_retire.not_complete", "CYCLES_NO_RETIRE:NOT_COMPLETE_LOAD_AND_ALU"),
	ROW("amd64_fam19h_zen4", "ex_no_retire.other", "CYCLES_NO_RETIRE:OTHER"),
	ROW("amd64_fam19h_zen4", "ex_no_retire.thread_not_selected", "CYCLES_NO_RETIRE:THREAD_NOT_SELECTED"),
	ROW("amd64_fam19h_zen4", "ex_no_retire.load_not_complete", "CYCLES_NO_RETIRE:NOT_COMPLETE_MISSING_LOAD"),

	/* Intel Skylake, Skylake-X, Cascade Lake-X */
	ROW("skl", "CPU_CLK_UNHALTED.THREAD", "CPU_CLK_THREAD_UNHALTED:THREAD_P"),
	ROW("skl", "CPU_CLK_UNHALTED.THREAD_P", "CPU_CLK_THREAD_UNHALTED:THREAD_P"),
	ROW("skl", "CPU_CLK_UNHALTED.THREAD_ANY", "CPU_CLK_THREAD_UNHALTED:THREAD_P:t=1"),
	ROW("skl", "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", "CPU_CLK_THREAD_UNHALTED:ONE_THREAD_ACTIVE"),
	ROW("skl", "CPU_CLK_UNHALTED.REF_XCLK", "CPU_CLK_THREAD_UNHALTED:REF_XCLK"),
	ROW("skl", "CPU_CLK_UNHALTED.REF_XCLK_ANY", "CPU_CLK_THREAD_UNHALTED:REF_XCLK_ANY"),
	ROW("skl", "INST_RETIRED.ANY", "INST_RETIRED:ANY_P"),
	ROW("skx", "CPU_CLK_UNHALTED.THREAD", "CPU_CLK_THREAD_UNHALTED:THREAD_P"),
	ROW("skx", "CPU_CLK_UNHALTED.THREAD_P", "CPU_CLK_THREAD_UNHALTED:THREAD_P"),
	ROW("skx", "CPU_CLK_UNHALTED.THREAD_ANY", "CPU_CLK_THREAD_UNHALTED:THREAD_P:t=1"),
	ROW("skx", "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", "CPU_CLK_THREAD_UNHALTED:ONE_THREAD_ACTIVE"),
	ROW("skx", "CPU_CLK_UNHALTED.REF_XCLK", "CPU_CLK_THREAD_UNHALTED:REF_XCLK"),
	ROW("skx", "CPU_CLK_UNHALTED.REF_XCLK_ANY", "CPU_CLK_THREAD_UNHALTED:REF_XCLK_ANY"),
	ROW("skx", "INST_RETIRED.ANY", "INST_RETIRED:ANY_P"),
	ROW("clx", "CPU_CLK_UNHALTED.THREAD", "CPU_CLK_THREAD_UNHALTED:THREAD_P"),
	ROW("clx", "CPU_CLK_UNHALTED.THREAD_P", "CPU_CLK_THREAD_UNHALTED:THREAD_P"),
	ROW("clx", "CPU_CLK_UNHALTED.THREAD_ANY", "CPU_CLK_THREAD_UNHALTED:THREAD_P:t=1"),
	ROW("clx", "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", "CPU_CLK_THREAD_UNHALTED:ONE_THREAD_ACTIVE"),
	ROW("clx", "CPU_CLK_UNHALTED.REF_XCLK", "CPU_CLK_THREAD_UNHALTED:REF_XCLK"),
	ROW("clx", "CPU_CLK_UNHALTED.REF_XCLK_ANY", "CPU_CLK_THREAD_UNHALTED:REF_XCLK_ANY"),
	ROW("clx", "INST_RETIRED.ANY", "INST_RETIRED:ANY_P"),

	/* Intel Ice Lake, Ice Lake-X, Sapphire Rapids */
	ROW("icl", "CPU_CLK_UNHALTED.THREAD", "CPU_CLK_UNHALTED:THREAD_P"),
	ROW("icx", "CPU_CLK_UNHALTED.THREAD", "CPU_CLK_UNHALTED:THREAD_P"),
	ROW("spr", "CPU_CLK_UNHALTED.THREAD", "CPU_CLK_UNHALTED:THREAD_P"),
};

const size_t pmu_pfm_aliases_nr = sizeof(pmu_pfm_aliases) / sizeof(pmu_pfm_aliases[0]);
