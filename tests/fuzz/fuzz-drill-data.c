/*
 * fuzz-drill-data.c: a perf.data image read by the PMU drill-down of `why` as a
 * recording with data addresses (diagnose/drill-pmu.h): once as IP samples of a
 * precise memory event (PERF_SAMPLE_ADDR, perf record -d), once as Arm SPE load
 * records (AUXTRACE), binaries looked up under a --symfs that does not exist. On
 * success the data lines are at most DIAG_MAX_DATA, ranked by samples, their shares
 * of the samples with an address at most 100 % and their samples at most those; on
 * failure the error carries a message.
 */
#include "fuzz.h"

#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "diagnose/diagnose.h"
#include "diagnose/drill-pmu.h"
#include "symbol/symbol.h"

static void drill(const uint8_t *data, size_t size, bool spe)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct symbol_opts so;
	struct diag_pmu_plan p;
	struct diag_opts o = { .command = "fuzz", .level = 2, .top = 10 };
	struct diag d;
	double sum = 0;
	int ret;

	memset(&p, 0, sizeof(p));
	p.drill = DIAG_DRILL_MEMORY;
	p.method = spe ? DIAG_SAMPLE_SPE : DIAG_SAMPLE_IP;
	p.spe_loads = spe;
	p.data_addr = !spe;
	p.locate_leaf = "backend_bound";
	snprintf(p.event, sizeof(p.event), "%s", spe ? "arm_spe_0/load_filter=1/" : "MEM_LOAD_RETIRED.L3_HIT:pp");
	symbol_opts_init(&so);
	so.symfs = "/nonexistent-tdprof-fuzz";
	so.debug_dirs = NULL;
	so.running_kallsyms = NULL;
	so.running_notes = NULL;
	diag_init(&d);
	ret = fuzz_check_ret(diag_pmu_drill(&d, data, size, &(struct diag_pmu_drill_opts){ &p, &o, &so, 0 }, &err), &err);
	if (!ret) {
		FUZZ_CHECK(d.nr_data <= DIAG_MAX_DATA);
		FUZZ_CHECK(d.sampling.with_addr <= d.sampling.samples);
		for (size_t i = 0; i < d.nr_data; i++) {
			FUZZ_CHECK(d.data[i].samples >= 1 && d.data[i].samples <= d.sampling.with_addr);
			FUZZ_CHECK(i == 0 || d.data[i].samples <= d.data[i - 1].samples);
			FUZZ_CHECK(d.data[i].function != NULL && d.data[i].addr % DIAG_PMU_CACHE_LINE == 0);
			sum += d.data[i].share;
		}
		FUZZ_CHECK(sum <= 100.0 + 1e-6);
		FUZZ_CHECK(!d.nr_data || d.sampling.data_addr);
	}
	diag_release(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	drill(data, size, false);
	drill(data, size, true);
	return 0;
}
