/*
 * gen-why-pmu.c: print the `tdprof why` document (JSON or text) of a PMU
 * drill-down over one of drill-fixture.h's recordings of drill-target, so that
 * tests/e2e/test_why.py can hold a PMU-shaped document to docs/json/why.schema.json
 * and read its text on a machine without a PMU. A test helper, not a way into
 * tdprof: the recordings are the fixture's synthetic ones and say so.
 *
 *   gen-why-pmu BINARY SOURCE lbr|brs|nofacility|frontend|backend|retiring|nomodel|intel json|text|data
 *
 * data: the scenario's recording itself (a perf.data image on stdout: fuzz seeds).
 *
 * intel: the tree of made-up Sapphire Rapids counts (drill-fixture.h's fx_model_tree():
 * 45 % Bad Speculation, 90 % of it mispredicts) drilled with LBR records: its
 * Bottlenecks view leads the document.
 * drilled: Sapphire Rapids' tree drilled down as `why` does on a PMU (fx_drill_diag():
 * made-up counts, 65 % Backend Bound, 50 % Memory Bound), each node with its step and
 * run, then the dominant leaf's Locate-with sampled (IP samples of the fixture).
 * mismeasured: the same, but from step 2 on topdown-mem-bound reads 3 times more and
 * the groups ran 40 % of the time: Memory Bound exceeds its parent, mismeasured.
 * nomux: drilled with --no-multiplex (one run per group).
 * dataaddr: Sapphire Rapids' Backend Bound > Memory Bound > L3 Bound > L3 Hit Latency (made
 * up), located with MEM_LOAD_RETIRED.L3_HIT:pp and each sample's data address (the
 * fixture's FX_ADDR recording: a [heap] and a [stack]).
 * speloads: Neoverse V1's Backend Bound (made up) on a machine with Arm SPE: SPE's load
 * records (the fixture's FX_SPE recording) with their data addresses and latencies.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "diagnose/diagnose.h"
#include "diagnose/drill-pmu.h"
#include "drill-fixture.h"
#include "report/why.h"

static const struct {
	const char *name, *category;
	double pct;
	enum cpu_branch_facility facility;
	enum fx_kind kind;
} scenarios[] = {
	{ "lbr", "bad_speculation", 60, CPU_BRANCH_LBR, FX_LBR },
	{ "brs", "bad_speculation", 60, CPU_BRANCH_BRS, FX_BRS },
	{ "nofacility", "bad_speculation", 60, CPU_BRANCH_NONE, FX_IP },
	{ "frontend", "frontend_bound", 45, CPU_BRANCH_LBR, FX_IP },
	{ "backend", "backend_bound", 70, CPU_BRANCH_NONE, FX_IP },
	{ "retiring", "retiring", 85, CPU_BRANCH_NONE, FX_IP },
	{ "nomodel", NULL, 0, CPU_BRANCH_NONE, FX_IP },
	{ "intel", "bad_speculation", 0, CPU_BRANCH_LBR, FX_LBR },
	{ "drilled", "backend_bound", 0, CPU_BRANCH_LBR, FX_IP },
	{ "mismeasured", "backend_bound", 0, CPU_BRANCH_LBR, FX_IP },
	{ "nomux", "backend_bound", 0, CPU_BRANCH_LBR, FX_IP },
	{ "dataaddr", "backend_bound", 0, CPU_BRANCH_LBR, FX_ADDR },
	{ "speloads", "backend_bound", 0, CPU_BRANCH_SPE, FX_SPE },
};

static const struct fx_node arm_backend[] = {
	{ "retiring", 20 }, { "bad_speculation", 5 }, { "frontend_bound", 10 }, { "backend_bound", 65 },
};

static const struct fx_node l3_path[] = {
	{ "retiring", 20 }, { "bad_speculation", 5 }, { "frontend_bound", 10 }, { "backend_bound", 65 },
	{ "memory_bound", 50 }, { "core_bound", 15 }, { "l3_bound", 30 }, { "l3_hit_latency", 25 },
};

/* The diagnosis of scenario name (its row s) and its sampling plan. */
static int prepare(const char *name, size_t s, struct diag *d, struct diag_opts *o, struct diag_pmu_plan *p)
{
	static const struct fx_fault fault = { 2, "topdown-mem-bound", 3.0, 40.0 };

	if (!strcmp(name, "intel"))
		return fx_diag_model(d, "sapphirerapids", 0.30, 0.45, 0.05, o) ||
		       fx_plan(p, scenarios[s].category, scenarios[s].facility);
	if (!strcmp(name, "speloads"))
		return fx_diag_path(d, "neoverse-v1", arm_backend, sizeof(arm_backend) / sizeof(arm_backend[0]), o) ||
		       fx_plan_spe(p, d);
	if (!strcmp(name, "dataaddr"))
		return fx_diag_path(d, "sapphirerapids", l3_path, sizeof(l3_path) / sizeof(l3_path[0]), o) ||
		       fx_plan_tree(p, d, scenarios[s].facility, 2);
	if (!strcmp(name, "drilled") || !strcmp(name, "mismeasured") || !strcmp(name, "nomux"))
		return fx_drill_diag(d, "sapphirerapids", 0.20, 0.05, 0.50, !strcmp(name, "mismeasured") ? &fault : NULL,
				     !strcmp(name, "nomux"), o) ||
		       fx_plan_tree(p, d, scenarios[s].facility, 2);
	return fx_diag(d, scenarios[s].category, scenarios[s].pct, o) ||
	       fx_plan(p, scenarios[s].category, scenarios[s].facility);
}

int main(int argc, char **argv)
{
	struct diag d;
	struct diag_opts o;
	struct diag_pmu_plan p;
	struct tdp_err err = TDP_ERR_INIT;
	uint8_t *buf = NULL;
	size_t len = 0, i;
	int ret;

	if (argc != 5 || fx_init(argv[1], argv[2])) {
		fprintf(stderr, "usage: gen-why-pmu BINARY SOURCE SCENARIO json|text\n");
		return 2;
	}
	for (i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]) && strcmp(scenarios[i].name, argv[3]); i++)
		;
	if (i == sizeof(scenarios) / sizeof(scenarios[0])) {
		fprintf(stderr, "gen-why-pmu: unknown scenario '%s'\n", argv[3]);
		return 2;
	}
	diag_init(&d);
	if (prepare(argv[3], i, &d, &o, &p) || fx_recording(scenarios[i].kind, &buf, &len))
		return 1;
	if (!strcmp(argv[4], "data")) {
		ret = fwrite(buf, 1, len, stdout) != len;
		tdp_free(buf);
		diag_release(&d);
		return ret;
	}
	ret = diag_pmu_drill(&d, buf, len, &(struct diag_pmu_drill_opts){ &p, &o, NULL, 0 }, &err);
	if (!ret) {
		struct why_report r = { .d = &d, .command = "drill-target", .exit_status = 0, .workload_ran = true };

		if (!strcmp(argv[4], "text"))
			why_text_print(stdout, &r);
		else
			ret = why_json_print(stdout, &r, &err);
	}
	if (ret)
		fprintf(stderr, "gen-why-pmu: %s\n", err.msg);
	tdp_free(buf);
	diag_release(&d);
	return ret ? 1 : 0;
}
