/*
 * bpred-presets.c: the branch predictor of each --sim-machine preset (data only;
 * freestanding like bpred.c).
 *
 * No vendor publishes its predictor's tables. What is published:
 * - the budgets of the TAGE-SC-L predictors that won the branch prediction
 *   championships, which are the designs these cores descend from: Seznec,
 *   "TAGE-SC-L branch predictors", CBP-4 (2014), and "TAGE-SC-L branch predictors
 *   again", CBP-5 (2016): 8 KB (26 banks of 128 entries, 1,000 bits of history) and
 *   64 KB (30 banks of 1,024 entries, 8- and 12-bit tags, 3,000 bits of history,
 *   a 32-entry loop predictor);
 * - the reach of Intel's history: Yavarzadeh et al., "Half&Half: demystifying
 *   Intel's directional branch predictors for fast, secure partitioned execution",
 *   IEEE S&P 2023: the path history register holds the last 194 taken branches on
 *   Alder Lake's P-core (388 bits) and 93 on Skylake-derived cores;
 * - the sizes AMD gives: Software Optimization Guide for the AMD Zen4
 *   Microarchitecture (pub. 57647): a 32-entry return address stack per thread, an
 *   indirect target array of 3,072 entries (1,536 on Zen 3, guide 56665); the
 *   direction predictor is described as TAGE-like without sizes;
 * - Skylake's 16-entry return stack buffer (Agner Fog, "The microarchitecture of
 *   Intel, AMD and VIA CPUs", Skylake chapter).
 * So the sizes below are TAGE-SC-L-like budgets of each core's era, not the cores'
 * real tables: direction tables (bimodal + tagged) of 53 KiB for Golden Cove and
 * Zen 4, 22 KiB for Zen 3 and Sunny Cove, 17 KiB for Skylake and Neoverse N1; with
 * ITTAGE, return stack and loop predictor 73, 33-36 and 31 KiB (bpred_budget_bits();
 * docs/sim-machine.md §5 the table). max_hist counts our history bits (one per
 * conditional branch, one to three per other branch), about twice the taken branches
 * of Intel's path history. The loop predictor (TAGE-SC-L's L) is on everywhere:
 * whether these cores have one is not published.
 */
#include "bpred.h" /* by its directory: vgtool/ compiles this file by path */

/* Golden Cove and Zen 4 class: 12 tables of 2K entries, 12-bit tags (53 KiB with the base),
 * history to ~2x Alder Lake's 194 taken branches, 32-entry loop predictor. */
#define BIG(hist, itt_tables, ras) \
	{ .log_bimodal = 13, .nr_tagged = 12, .log_tagged = 11, .tag_bits = 12, .min_hist = 4, \
	  .max_hist = (hist), .log_ittage = 9, .nr_ittage = (itt_tables), .ras_depth = (ras), \
	  .log_loop = 5, .log_u_reset = 18 }

/* Zen 3 and Sunny Cove class: 10 tables of 1K entries, 11-bit tags (22 KiB with the base). */
#define MID(hist, itt_tables, ras) \
	{ .log_bimodal = 13, .nr_tagged = 10, .log_tagged = 10, .tag_bits = 11, .min_hist = 4, \
	  .max_hist = (hist), .log_ittage = 9, .nr_ittage = (itt_tables), .ras_depth = (ras), \
	  .log_loop = 5, .log_u_reset = 18 }

/* Skylake and Neoverse N1 class: 8 tables of 1K entries, 11-bit tags (17 KiB with the base). */
#define SMALL(hist, itt_tables, ras) \
	{ .log_bimodal = 12, .nr_tagged = 8, .log_tagged = 10, .tag_bits = 11, .min_hist = 4, \
	  .max_hist = (hist), .log_ittage = 9, .nr_ittage = (itt_tables), .ras_depth = (ras), \
	  .log_loop = 4, .log_u_reset = 18 }

static const struct bpred_preset presets[] = {
	{ "generic", BIG(400, 6, 32),
	  "as alderlake and zen4 (a TAGE-SC-L-like 64 KB-class budget; sizes assumed)" },
	{ "zen4", BIG(400, 6, 32),
	  "AMD 57647: 32-entry return stack, 3,072-entry indirect target array (6 x 512 "
	  "here); direction tables a TAGE-SC-L 64 KB-class budget (Seznec, CBP-5 2016), assumed" },
	{ "alderlake", BIG(400, 6, 32),
	  "Half&Half (S&P 2023): 194 taken branches of path history, ~400 of our history bits; "
	  "tables a TAGE-SC-L 64 KB-class budget (Seznec, CBP-5 2016), return stack assumed" },
	{ "icelake-server", MID(300, 4, 16),
	  "Sunny Cove between Skylake and Golden Cove (assumed); TAGE-SC-L budget of the era "
	  "(Seznec, CBP-4 2014); 16-entry return stack as Skylake" },
	{ "zen3", MID(300, 3, 32),
	  "AMD 56665: 32-entry return stack, 1,536-entry indirect target array (3 x 512 here); "
	  "direction tables a TAGE-SC-L budget of the era (Seznec, CBP-4 2014), assumed" },
	{ "skylake", SMALL(200, 4, 16),
	  "Half&Half (S&P 2023): 93 taken branches of path history, ~200 of our history bits; "
	  "Agner Fog: 16-entry return stack buffer; tables a ~16 KB budget (assumed)" },
	{ "neoverse-n1", SMALL(200, 4, 16),
	  "Arm publishes no sizes for N1's predictor: the skylake-class budget, assumed" },
};

static bool same_name(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

const struct bpred_preset *bpred_preset(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (same_name(presets[i].name, name))
			return &presets[i];
	return NULL;
}

const struct bpred_preset *bpred_preset_at(size_t i)
{
	return i < sizeof(presets) / sizeof(presets[0]) ? &presets[i] : NULL;
}
