/*
 * test-drill-pmu.c: the PMU drill-down of `tdprof why` (diagnose/drill-pmu.h):
 * the plan for every branch facility, and the drill-down over recordings of
 * drill-target (built -g here) written with perfdata-write.h (drill-fixture.h says
 * what each holds; the expected figures below follow from it by hand), hostile
 * recordings, failed allocations, and one real recording of drill-target made on
 * this machine with a software event (cpu-clock: no hardware PMU is needed, and
 * none is pretended).
 *
 * Arguments: the drill-target binary and its source.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/err.h"
#include "diagnose/diagnose.h"
#include "diagnose/drill-pmu.h"
#include "model/advice.h"
#include "model/locate.h"
#include "perfdata/perfdata.h"
#include "drill-fixture.h"

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-6;
}

/* ---------------------------------------------------------------------------
 * The plan
 * ------------------------------------------------------------------------- */

static void test_plan_facilities(void **state)
{
	struct diag_pmu_plan p;

	(void)state;
	static const char *const label[] = { [CPU_BRANCH_LBR] = "Intel LBR", [CPU_BRANCH_LBR_EXT_V2] = "AMD LbrExtV2",
					     [CPU_BRANCH_BRBE] = "Arm BRBE" };

	/* Bad Speculation with LBR, LbrExtV2, BRBE: branch stacks of cycles, by frequency */
	for (enum cpu_branch_facility f = CPU_BRANCH_LBR; f <= CPU_BRANCH_BRBE; f++) {
		if (f == CPU_BRANCH_BRS)
			continue;
		assert_int_equal(fx_plan(&p, "bad_speculation", f), 0);
		assert_int_equal(p.method, DIAG_SAMPLE_BRANCH_STACK);
		assert_int_equal(p.drill, DIAG_DRILL_BRANCHES);
		assert_string_equal(p.event, "cycles");
		assert_int_equal(p.freq, DIAG_PMU_FREQ); /* a 1 s run: 4000 samples, enough */
		assert_int_equal(p.period, 0);
		assert_int_equal(p.branch_sample_type, PERF_SAMPLE_BRANCH_ANY);
		assert_non_null(strstr(p.reason, label[f]));
		assert_string_equal(p.facility_name, cpu_branch_facility_name(f));
	}
	/* BRS: retired taken branches (0xC4) at a fixed period, never by frequency */
	assert_int_equal(fx_plan(&p, "bad_speculation", CPU_BRANCH_BRS), 0);
	assert_int_equal(p.method, DIAG_SAMPLE_BRANCH_STACK);
	assert_string_equal(p.event, "r0c4");
	assert_int_equal(p.freq, 0);
	assert_int_equal(p.period, DIAG_PMU_BRS_PERIOD);
	assert_non_null(strstr(p.reason, "no mispredict flag"));
	/* no facility: IP samples, and the machine's reason in the plan's */
	assert_int_equal(fx_plan(&p, "bad_speculation", CPU_BRANCH_NONE), 0);
	assert_int_equal(p.method, DIAG_SAMPLE_IP);
	assert_int_equal(p.drill, DIAG_DRILL_BRANCHES);
	assert_string_equal(p.event, "cycles");
	assert_null(p.facility_name);
	assert_non_null(strstr(p.reason, "no branch-recording facility"));
	assert_non_null(strstr(p.reason, "the test machine records no branch"));
	/* the other buckets sample IPs whatever the machine records */
	assert_int_equal(fx_plan(&p, "frontend_bound", CPU_BRANCH_LBR), 0);
	assert_int_equal(p.method, DIAG_SAMPLE_IP);
	assert_int_equal(p.drill, DIAG_DRILL_ICACHE);
	assert_int_equal(fx_plan(&p, "backend_bound", CPU_BRANCH_LBR), 0);
	assert_int_equal(p.drill, DIAG_DRILL_MEMORY);
	assert_int_equal(fx_plan(&p, "retiring", CPU_BRANCH_BRBE), 0);
	assert_int_equal(p.drill, DIAG_DRILL_HOT_LOOP);
	assert_int_equal(fx_plan(&p, NULL, CPU_BRANCH_LBR), 0);
	assert_int_equal(p.drill, DIAG_DRILL_HOT_LOOP);
	assert_int_equal(p.method, DIAG_SAMPLE_IP);
	/* a refused branch recording falls back to IP samples, saying why */
	assert_int_equal(fx_plan(&p, "bad_speculation", CPU_BRANCH_LBR), 0);
	diag_pmu_plan_fallback(&p, &(struct diag_pmu_plan_in){ "bad_speculation", NULL, NULL, 1.0, 0, NULL, -1 },
			       "the kernel said EOPNOTSUPP");
	assert_int_equal(p.method, DIAG_SAMPLE_IP);
	assert_int_equal(p.branch_sample_type, 0);
	assert_non_null(strstr(p.reason, "the Intel LBR recording did not open (the kernel said EOPNOTSUPP)"));
}

/* Arm SPE: the PMU's format decides; min_interval is the period. */
static void test_plan_spe(void **state)
{
	struct cpu_kv fmt[] = { { "branch_filter", "config:32" }, { "jitter", "config:16" }, { "ts_enable", "config:0" } };
	struct cpu_kv caps[] = { { "min_interval", "1024" } };
	struct cpu_pmu pmus[] = {
		{ .name = "arm_spe_0", .type = 9, .kind = CPU_PMU_SPE, .caps = caps, .nr_caps = 1, .format = fmt, .nr_format = 3 },
	};
	struct cpu_pmu_list list = { pmus, 1, 1 };
	struct cpu_branch br = { .facility = CPU_BRANCH_SPE, .depth = -1, .reason = "Arm SPE (arm_spe_0)" };
	struct tdp_err err = TDP_ERR_INIT;
	struct diag_pmu_plan p;

	(void)state;
	assert_int_equal(diag_pmu_plan(&p, &(struct diag_pmu_plan_in){ "bad_speculation", &br, &list, 1.0, 0, NULL, -1 }, &err), 0);
	assert_int_equal(p.method, DIAG_SAMPLE_SPE);
	/* every sampled branch (no event_filter): the rates can be told */
	assert_string_equal(p.event, "arm_spe_0/branch_filter=1,ts_enable=1,jitter=1/");
	assert_int_equal(p.period, 1024);
	assert_int_equal(p.freq, 0);
	assert_int_equal(p.spe_pmu_type, 9);
	/* an SPE PMU without the branch_filter term: IP samples, and why */
	pmus[0].nr_format = 0;
	assert_int_equal(diag_pmu_plan(&p, &(struct diag_pmu_plan_in){ "bad_speculation", &br, &list, 1.0, 0, NULL, -1 }, &err), 0);
	assert_int_equal(p.method, DIAG_SAMPLE_IP);
	assert_non_null(strstr(p.reason, "'arm_spe_0' PMU has no 'branch_filter' format term"));
}

/* 4000 Hz, raised for a short run to get DIAG_PMU_MIN_SAMPLES (2000), capped at 20000 Hz and the kernel's rate. */
static void test_plan_frequency(void **state)
{
	static const struct {
		double seconds;
		uint64_t max_rate, want;
	} cases[] = {
		{ 10.0, 0, 4000 },     /* 40000 samples at 4000 Hz */
		{ 0.5, 0, 4000 },      /* 2000 samples at 4000 Hz: enough */
		{ 0.25, 0, 8000 },     /* 2000 / 0.25 */
		{ 0.05, 0, 20000 },    /* 2000 / 0.05 = 40000, capped */
		{ 0.25, 5000, 5000 },  /* the kernel's limit */
		{ 0, 0, 4000 },        /* unknown duration */
	};
	struct cpu_branch br = { .facility = CPU_BRANCH_NONE };
	struct tdp_err err = TDP_ERR_INIT;
	struct diag_pmu_plan p;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(diag_pmu_plan(&p, &(struct diag_pmu_plan_in){ "retiring", &br, NULL, cases[i].seconds,
										cases[i].max_rate, NULL, -1 }, &err), 0);
		assert_int_equal(p.freq, cases[i].want);
	}
}

/* ---------------------------------------------------------------------------
 * The drill-down over recordings
 * ------------------------------------------------------------------------- */

struct run {
	struct diag d;
	struct diag_opts o;
	struct diag_pmu_plan p;
	int ret;
	struct tdp_err err;
};

/* d as diag_from_counts() leaves it for category (dominant at pct %), then the drill-down of recording kind. */
static void drill(struct run *r, const char *category, double pct, enum cpu_branch_facility f, enum fx_kind kind)
{
	uint8_t *buf = NULL;
	size_t len = 0;

	diag_init(&r->d);
	r->err = (struct tdp_err)TDP_ERR_INIT;
	assert_int_equal(fx_diag(&r->d, category, pct, &r->o), 0);
	assert_int_equal(fx_plan(&r->p, category, f), 0);
	assert_int_equal(fx_recording(kind, &buf, &len), 0);
	r->ret = diag_pmu_drill(&r->d, buf, len, &(struct diag_pmu_drill_opts){ &r->p, &r->o, NULL, 0 }, &r->err);
	if (r->ret)
		print_error("drill: %s\n", r->err.msg);
	tdp_free(buf);
}

static const struct diag_finding *finding_titled(const struct diag *d, const char *prefix)
{
	for (size_t i = 0; i < d->nr_findings; i++)
		if (!strncmp(d->findings[i].title, prefix, strlen(prefix)))
			return &d->findings[i];
	return NULL;
}

static bool has_note(const struct diag *d, const char *prefix)
{
	for (size_t i = 0; i < d->nr_notes; i++)
		if (!strncmp(d->notes[i], prefix, strlen(prefix)))
			return true;
	return false;
}

static void check_site(const struct diag_site *s, const char *function, unsigned line, uint64_t samples,
		       double share)
{
	assert_string_equal(s->function, function);
	assert_int_equal(s->line, line);
	if (line)
		assert_string_equal(s->file, "drill-target.c"); /* relative to the cwd given (the source's directory) */
	assert_int_equal(s->samples, samples);
	assert_true(near(s->share, share));
}

/* Retiring: IP samples, the hot lines, the loop command, a finding per line over 1 %. */
static void test_ip_retiring(void **state)
{
	struct run r;
	const struct diag_finding *f;
	char want[4200];

	(void)state;
	drill(&r, "retiring", 85, CPU_BRANCH_LBR, FX_IP);
	assert_int_equal(r.ret, 0);
	assert_true(r.d.has_sampling);
	assert_int_equal(r.d.sampling.method, DIAG_SAMPLE_IP);
	assert_int_equal(r.d.sampling.samples, 100);
	assert_int_equal(r.d.sampling.lost, 0);
	assert_int_equal(r.d.drill, DIAG_DRILL_HOT_LOOP);
	assert_string_equal(r.d.ranked_by, "cycles samples");
	/* 31 + 29 at the HOT line, 25 at the BRANCH line, 10 in main, 5 in the kernel (of 100) */
	assert_int_equal(r.d.nr_sites, 4);
	check_site(&r.d.sites[0], "spin", fx.hot_line, 60, 60.0);
	check_site(&r.d.sites[1], "pick", fx.branch_line, 25, 25.0);
	assert_string_equal(r.d.sites[2].function, "main");
	assert_int_equal(r.d.sites[2].samples, 10);
	check_site(&r.d.sites[3], "[kernel]", 0, 5, 5.0);
	assert_null(r.d.sites[3].file);
	assert_true(r.d.sites[0].in_program && r.d.sites[2].in_program && !r.d.sites[3].in_program);
	/* IP samples count no branch */
	assert_int_equal(r.d.sites[0].c.cond_branches + r.d.sites[0].c.ind_branches, 0);
	/* the hottest function of the program whose source is here takes an argument (spin(n)): no
	 * tdprof loop command, which would not run, but what to write (issue 16) */
	assert_null(r.d.loop_command);
	assert_non_null(strstr(r.d.loop_note, "'spin' takes arguments"));
	assert_non_null(strstr(r.d.loop_note, "tdprof loop drill-target.c --function bench"));
	/* the category's finding (85 % of slots) first, then the three lines over 1 %: 85 x 0.60, 0.25, 0.10 */
	assert_int_equal(r.d.nr_findings, 4);
	assert_true(r.d.findings[0].site < 0 && near(r.d.findings[0].share, 85));
	f = &r.d.findings[1];
	assert_true(near(f->share, 51.0) && f->site == 0);
	snprintf(want, sizeof(want), "hot loop at drill-target.c:%u in spin", fx.hot_line);
	assert_string_equal(f->title, want);
	assert_string_equal(f->node, "light_operations");
	assert_non_null(strstr(f->evidence, "60.0 % of the cycles samples (60 of 100)"));
	assert_non_null(strstr(f->fix, r.d.loop_note));
	assert_true(near(r.d.findings[2].share, 21.25) && near(r.d.findings[3].share, 8.5));
	/* the note that sent the user to `tdprof branches record` is gone; one says the figures are samples */
	assert_false(has_note(&r.d, "the PMU gives the tree;"));
	assert_true(has_note(&r.d, "the sites come from a second run"));
	diag_release(&r.d);
}

/* Backend: the hot lines, the fix of the largest level-2 node. */
static void test_ip_backend(void **state)
{
	struct run r;

	(void)state;
	drill(&r, "backend_bound", 70, CPU_BRANCH_NONE, FX_IP);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.d.drill, DIAG_DRILL_MEMORY);
	check_site(&r.d.sites[0], "spin", fx.hot_line, 60, 60.0);
	assert_true(r.d.loop_command == NULL && r.d.loop_note[0]); /* spin(n): what to write */
	/* the sim tree charges Backend Bound to memory_bound */
	assert_string_equal(r.d.findings[1].node, "memory_bound");
	assert_true(near(r.d.findings[1].share, 42.0)); /* 70 x 0.60 */
	assert_non_null(strstr(r.d.findings[1].title, "hot line at drill-target.c:"));
	diag_release(&r.d);
}

/*
 * Item 4 of issue 18: with a tree whose dominant leaf has a Locate-with event (Intel's data), the
 * drill-down samples that event (":pp" on a PMU that samples precisely) instead of cycles, and each
 * finding names the leaf it located; Bad Speculation keeps the branch stacks; an event that does not
 * open falls back to cycles, saying why.
 */
static void test_plan_locate(void **state)
{
	struct metric_tree *t = tdp_calloc(1, sizeof(*t));
	struct countset cs = COUNTSET_INIT;
	struct cpu_branch br = { .facility = CPU_BRANCH_LBR, .depth = 32, .reason = "Intel LBR" };
	struct tdp_err err = TDP_ERR_INIT;
	struct diag_pmu_plan p;
	struct locate_plan lp;

	(void)state;
	assert_int_equal(fx_model_tree("sapphirerapids", 0.10, 0.02, 0.60, &cs, t), 0);
	assert_string_equal(t->verdict.category, "backend_bound");
	assert_int_equal(locate_plan(t, 2, &lp), 0);
	assert_int_equal(diag_pmu_plan(&p, &(struct diag_pmu_plan_in){ "backend_bound", &br, NULL, 1.0, 0, t, 2 }, &err), 0);
	assert_int_equal(p.method, DIAG_SAMPLE_IP);
	assert_string_equal(p.locate_leaf, lp.leaf);
	assert_string_equal(p.event, lp.spec);
	assert_string_equal(p.locate_event, lp.event);
	assert_non_null(strstr(p.reason, "dominant leaf"));
	assert_true(lp.precise == (strstr(p.event, ":pp") != NULL));
	/* no precise sampling here: the event without :pp */
	assert_int_equal(diag_pmu_plan(&p, &(struct diag_pmu_plan_in){ "backend_bound", &br, NULL, 1.0, 0, t, 0 }, &err), 0);
	assert_null(strstr(p.event, ":pp"));
	/* the event did not open: cycles, and why */
	diag_pmu_plan_unlocate(&p, &(struct diag_pmu_plan_in){ "backend_bound", &br, NULL, 1.0, 0, t, 0 },
			       "did not open (not supported)");
	assert_string_equal(p.event, "cycles");
	assert_null(p.locate_leaf);
	assert_non_null(strstr(p.reason, "was not located: its Locate-with event "));
	assert_non_null(strstr(p.reason, " did not open (not supported); the hot lines"));
	/* no tree: cycles as before */
	assert_int_equal(diag_pmu_plan(&p, &(struct diag_pmu_plan_in){ "backend_bound", &br, NULL, 1.0, 0, NULL, 2 }, &err), 0);
	assert_string_equal(p.event, "cycles");
	countset_release(&cs);
	/* Bad Speculation keeps the branch-stack path */
	assert_int_equal(fx_model_tree("sapphirerapids", 0.30, 0.45, 0.05, &cs, t), 0);
	assert_int_equal(diag_pmu_plan(&p, &(struct diag_pmu_plan_in){ "bad_speculation", &br, NULL, 1.0, 0, t, 2 }, &err), 0);
	assert_int_equal(p.method, DIAG_SAMPLE_BRANCH_STACK);
	assert_null(p.locate_leaf);
	countset_release(&cs);
	tdp_free(t);
}

/* The located leaf's samples (an IP recording of drill-target) become findings that name the leaf. */
static void test_ip_located(void **state)
{
	struct diag d;
	struct diag_opts o;
	struct diag_pmu_plan p;
	struct cpu_branch br = { .facility = CPU_BRANCH_NONE, .depth = -1, .reason = "none" };
	struct tdp_err err = TDP_ERR_INIT;
	const struct diag_finding *f;
	uint8_t *buf = NULL;
	size_t len = 0;

	(void)state;
	diag_init(&d);
	assert_int_equal(fx_diag_model(&d, "sapphirerapids", 0.10, 0.02, 0.60, &o), 0);
	assert_int_equal(diag_pmu_plan(&p, &(struct diag_pmu_plan_in){ d.category, &br, NULL, 1.0, 0, &d.tree, 2 }, &err),
			 0);
	assert_non_null(p.locate_leaf);
	assert_int_equal(fx_recording(FX_IP, &buf, &len), 0);
	assert_int_equal(diag_pmu_drill(&d, buf, len, &(struct diag_pmu_drill_opts){ &p, &o, NULL, 0 }, &err), 0);
	assert_string_equal(d.sampling.located, p.locate_leaf);
	f = NULL;
	for (size_t i = 0; i < d.nr_findings && !f; i++)
		if (strstr(d.findings[i].title, " located at drill-target.c:"))
			f = &d.findings[i];
	assert_non_null(f);
	assert_int_equal(f->line, fx.hot_line);
	assert_non_null(strstr(f->evidence, p.event));
	assert_non_null(strstr(f->evidence, "Locate-with"));
	assert_non_null(f->node);
	assert_non_null(advice_find(f->node)); /* a fix from the knowledge base */
	assert_true(f->fix && strlen(f->fix) > 20);
	/* the Bottlenecks lead: the memory costs point at the located code */
	for (size_t i = 0; i < d.nr_bottlenecks; i++)
		if (!strcmp(d.bottlenecks[i].node ? d.bottlenecks[i].node : "", "memory_bound") && d.bottlenecks[i].leaf)
			assert_int_equal(d.bottlenecks[i].site, 0);
	tdp_free(buf);
	diag_release(&d);
}

/* Frontend: the footprint per function. */
static void test_ip_frontend(void **state)
{
	struct run r;
	const struct diag_footprint *fp;
	uint64_t lines[4] = { fx.hot[0] / DIAG_PMU_CACHE_LINE, fx.hot[1] / DIAG_PMU_CACHE_LINE,
			      fx.branch_first / DIAG_PMU_CACHE_LINE, fx.main.addr / DIAG_PMU_CACHE_LINE };
	uint64_t touched = 1; /* the kernel address is one line */
	char want[64];

	(void)state;
	/* the distinct 64-byte lines of the user addresses (FX_BASE is a multiple of 64) */
	for (int i = 0; i < 4; i++) {
		bool seen = false;

		for (int j = 0; j < i; j++)
			seen |= lines[j] == lines[i];
		touched += !seen;
	}
	drill(&r, "frontend_bound", 45, CPU_BRANCH_LBR, FX_IP);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.d.drill, DIAG_DRILL_ICACHE);
	assert_true(r.d.has_footprint);
	fp = &r.d.footprint;
	/* spin, pick, main and the kernel; the sizes from the symbol table (the kernel's unknown) */
	assert_int_equal(fp->functions, 4);
	assert_int_equal(fp->bytes, fx.spin.size + fx.pick.size + fx.main.size);
	assert_int_equal(fp->files, 1);
	assert_int_equal(fp->nr, 4);
	assert_string_equal(fp->v[0].name, "spin");
	assert_int_equal(fp->v[0].samples, 60);
	assert_int_equal(fp->v[0].bytes, fx.spin.size);
	assert_string_equal(fp->v[0].file, "drill-target.c");
	assert_string_equal(fp->v[3].name, "[kernel]");
	assert_int_equal(fp->v[3].samples, 5);
	assert_string_equal(r.d.findings[0].title, "Frontend Bound: 45.0 % of slots");
	snprintf(want, sizeof(want), "the cycles samples touched %llu distinct", (unsigned long long)touched);
	assert_non_null(strstr(finding_titled(&r.d, "hot code footprint: 4 functions")->evidence, want));
	diag_release(&r.d);
}

/* Bad Speculation with LBR: mispredicted records per line, the disassembly around the branch. */
static void test_lbr(void **state)
{
	struct run r;
	const struct diag_finding *f;
	const struct symbol_exe_insn *target = NULL;
	char want[256];

	(void)state;
	diag_init(&r.d);
	assert_int_equal(fx_diag(&r.d, "bad_speculation", 60, &r.o), 0);
	/* before the drill-down, the category's fix sends the user to `tdprof branches record` */
	assert_non_null(strstr(r.d.findings[0].fix, "tdprof branches record"));
	diag_release(&r.d);

	drill(&r, "bad_speculation", 60, CPU_BRANCH_LBR, FX_LBR);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.d.sampling.method, DIAG_SAMPLE_BRANCH_STACK);
	assert_int_equal(r.d.sampling.samples, 20);
	assert_int_equal(r.d.sampling.branch_records, 40);
	assert_int_equal(r.d.sampling.mispredicted, 14);
	assert_true(r.d.sampling.has_flags);
	assert_string_equal(r.d.ranked_by, "mispredicted branch records");
	/* jcc: 20 records, 10 mispredicted (10 / 14 of them); main's edge: 20, 4 (4 / 14) */
	assert_int_equal(r.d.nr_sites, 2);
	assert_string_equal(r.d.sites[0].function, "pick");
	assert_int_equal(r.d.sites[0].line, fx.branch_line);
	assert_int_equal(r.d.sites[0].c.cond_branches, 20);
	assert_int_equal(r.d.sites[0].c.cond_mispredicts, 10);
	assert_int_equal(r.d.sites[0].samples, 20);
	assert_true(near(r.d.sites[0].share, 1000.0 / 14));
	assert_string_equal(r.d.sites[1].function, "main");
	assert_int_equal(r.d.sites[1].c.cond_branches + r.d.sites[1].c.ind_branches, 20);
	assert_true(near(r.d.sites[1].share, 400.0 / 14));
	/* the disassembly marks the conditional branch as the target, inside the line */
	assert_true(r.d.has_disasm);
	for (size_t i = 0; i < r.d.disasm.nr; i++)
		if (r.d.disasm.v[i].target)
			target = &r.d.disasm.v[i];
	assert_non_null(target);
	assert_int_equal(target->addr, fx.jcc);
	assert_int_equal(r.d.disasm.target, fx.jcc);
	assert_true(target->in_line);
	assert_int_equal(target->branch_type, BRANCH_TYPE_COND);
	assert_string_equal(r.d.disasm.function, "pick");
	/* the findings: the category (60 %), then the branch (60 x 10/14) and main's edge (60 x 4/14) */
	snprintf(want, sizeof(want), "unpredictable branch at drill-target.c:%u in pick", fx.branch_line);
	f = finding_titled(&r.d, want);
	assert_non_null(f);
	assert_true(f == &r.d.findings[1] && near(f->share, 600.0 / 14) && f->site == 0);
	assert_string_equal(f->node, "branch_mispredicts");
	assert_non_null(strstr(f->evidence, "10 of 20 sampled executions"));
	assert_non_null(strstr(f->evidence, "(50.0 %)"));
	assert_non_null(strstr(f->evidence, "14 mispredicted branch records (Intel LBR, 20 samples)"));
	/* this is the trace the category's fix asked for: it no longer asks */
	assert_null(strstr(r.d.findings[0].fix, "tdprof branches record"));
	assert_true(r.d.findings[0].fix[0] != '\0');
	diag_release(&r.d);
}

/* AMD BRS: no mispredict flags, so the most taken branches are the candidates. */
static void test_brs(void **state)
{
	struct run r;

	(void)state;
	drill(&r, "bad_speculation", 60, CPU_BRANCH_BRS, FX_BRS);
	assert_int_equal(r.ret, 0);
	assert_false(r.d.sampling.has_flags);
	assert_int_equal(r.d.sampling.branch_records, 32);
	assert_string_equal(r.d.ranked_by, "taken branch records");
	/* jcc 20 of 32 records, main's edge 12 */
	assert_string_equal(r.d.sites[0].function, "pick");
	assert_int_equal(r.d.sites[0].samples, 20);
	assert_true(near(r.d.sites[0].share, 62.5));
	assert_true(near(r.d.sites[1].share, 37.5));
	assert_non_null(finding_titled(&r.d, "most taken branch at drill-target.c:"));
	assert_non_null(strstr(r.d.findings[1].evidence, "AMD BRS records no mispredict flag"));
	diag_release(&r.d);
}

/* Bad Speculation without a facility: the hot code, and a finding that says why. */
static void test_no_facility(void **state)
{
	struct run r;
	const struct diag_finding *f;

	(void)state;
	drill(&r, "bad_speculation", 60, CPU_BRANCH_NONE, FX_IP);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.d.drill, DIAG_DRILL_BRANCHES);
	assert_int_equal(r.d.sampling.method, DIAG_SAMPLE_IP);
	assert_null(r.d.sampling.facility);
	assert_string_equal(r.d.sampling.facility_reason, "the test machine records no branch");
	check_site(&r.d.sites[0], "spin", fx.hot_line, 60, 60.0);
	f = finding_titled(&r.d, "the mispredicting branches cannot be traced on this machine");
	assert_non_null(f);
	assert_non_null(strstr(f->evidence, "no branch-recording facility (the test machine records no branch)"));
	assert_non_null(strstr(f->fix, "tdprof why --backend=sim -- drill-target"));
	assert_int_equal(f->site, 0);
	/* the disassembly of the hottest line: its instructions marked, no branch named */
	assert_true(r.d.has_disasm);
	assert_int_equal(r.d.disasm.target, 0);
	for (size_t i = 0; i < r.d.disasm.nr; i++) {
		assert_false(r.d.disasm.v[i].target);
		if (r.d.disasm.v[i].addr == fx.hot[0] || r.d.disasm.v[i].addr == fx.hot[1])
			assert_true(r.d.disasm.v[i].in_line);
	}
	diag_release(&r.d);
}

/* No model: no verdict, no finding; the sites and the loop command still. */
static void test_no_model(void **state)
{
	struct run r;

	(void)state;
	drill(&r, NULL, 0, CPU_BRANCH_NONE, FX_IP);
	assert_int_equal(r.ret, 0);
	assert_false(r.d.has_tree);
	assert_null(r.d.category);
	assert_non_null(strstr(r.d.reason, "no top-down model"));
	assert_int_equal(r.d.drill, DIAG_DRILL_HOT_LOOP);
	assert_int_equal(r.d.nr_findings, 0);
	check_site(&r.d.sites[0], "spin", fx.hot_line, 60, 60.0);
	assert_true(r.d.loop_command == NULL && strstr(r.d.loop_note, "takes arguments")); /* spin(n) */
	assert_true(has_note(&r.d, "no top-down model applies"));
	assert_true(has_note(&r.d, "the sites come from a second run"));
	diag_release(&r.d);
}

/* -n: the sites kept. */
static void test_top(void **state)
{
	struct run r;
	uint8_t *buf = NULL;
	size_t len = 0;

	(void)state;
	diag_init(&r.d);
	assert_int_equal(fx_diag(&r.d, "retiring", 85, &r.o), 0);
	r.o.top = 2;
	assert_int_equal(fx_plan(&r.p, "retiring", CPU_BRANCH_NONE), 0);
	assert_int_equal(fx_recording(FX_IP, &buf, &len), 0);
	assert_int_equal(diag_pmu_drill(&r.d, buf, len, &(struct diag_pmu_drill_opts){ &r.p, &r.o, NULL, 7 }, &r.err), 0);
	assert_int_equal(r.d.nr_sites, 2);
	assert_int_equal(r.d.sampling.lost, 7); /* the dropped samples the caller counted */
	assert_true(has_note(&r.d, "some samples were lost"));
	tdp_free(buf);
	diag_release(&r.d);
}

/* Hostile recordings: every cut of a recording, and garbage, fail cleanly. */
static void test_hostile(void **state)
{
	struct run r;
	uint8_t *buf = NULL, junk[512];
	size_t len = 0;

	(void)state;
	assert_int_equal(fx_recording(FX_LBR, &buf, &len), 0);
	assert_int_equal(fx_plan(&r.p, "bad_speculation", CPU_BRANCH_LBR), 0);
	for (size_t cut = 0; cut < len; cut += cut < 256 ? 1 : 61) {
		diag_init(&r.d);
		assert_int_equal(fx_diag(&r.d, "bad_speculation", 60, &r.o), 0);
		r.err = (struct tdp_err)TDP_ERR_INIT;
		r.ret = diag_pmu_drill(&r.d, buf, cut, &(struct diag_pmu_drill_opts){ &r.p, &r.o, NULL, 0 }, &r.err);
		assert_true(r.ret == TDP_EFORMAT || r.ret == TDP_ELIMIT);
		assert_non_null(strstr(r.err.msg, "the drill-down's recording"));
		diag_release(&r.d);
	}
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(i * 7919 + 13);
	memcpy(junk, buf, 16); /* the magic, then garbage */
	diag_init(&r.d);
	assert_int_equal(fx_diag(&r.d, "bad_speculation", 60, &r.o), 0);
	r.ret = diag_pmu_drill(&r.d, junk, sizeof(junk), &(struct diag_pmu_drill_opts){ &r.p, &r.o, NULL, 0 }, &r.err);
	assert_true(r.ret < 0);
	diag_release(&r.d);
	tdp_free(buf);
}

/* Every allocation of the drill-down may fail: ENOMEM, no leak (ASan), no crash. */
static void test_alloc_failures(void **state)
{
	enum fx_kind kinds[] = { FX_IP, FX_LBR };
	const char *cats[] = { "frontend_bound", "bad_speculation" };

	(void)state;
	for (size_t k = 0; k < 2; k++) {
		struct run r;
		uint8_t *buf = NULL;
		size_t len = 0;
		long total;

		assert_int_equal(fx_recording(kinds[k], &buf, &len), 0);
		assert_int_equal(fx_plan(&r.p, cats[k], CPU_BRANCH_LBR), 0);
		diag_init(&r.d);
		assert_int_equal(fx_diag(&r.d, cats[k], 50, &r.o), 0);
		tdp_alloc_fail_after(-1); /* counts from here */
		assert_int_equal(diag_pmu_drill(&r.d, buf, len, &(struct diag_pmu_drill_opts){ &r.p, &r.o, NULL, 0 },
						&r.err), 0);
		total = tdp_alloc_fail_after(-1);
		assert_true(total > 10);
		diag_release(&r.d);
		for (long n = 0; n < total; n += total > 400 ? total / 400 : 1) {
			int ret;

			diag_init(&r.d);
			assert_int_equal(fx_diag(&r.d, cats[k], 50, &r.o), 0);
			r.err = (struct tdp_err)TDP_ERR_INIT;
			tdp_alloc_fail_after(n);
			ret = diag_pmu_drill(&r.d, buf, len, &(struct diag_pmu_drill_opts){ &r.p, &r.o, NULL, 0 }, &r.err);
			tdp_alloc_fail_after(-1);
			assert_true(ret == 0 || ret == TDP_ENOMEM);
			diag_release(&r.d);
		}
		tdp_free(buf);
	}
}

/* ---------------------------------------------------------------------------
 * A real recording (a software event: this machine may have no PMU)
 * ------------------------------------------------------------------------- */

static bool dir_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool empty = true;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = false;
	if (d)
		closedir(d);
	return empty;
}

static void test_record_cpu_clock(void **state)
{
	char tmp[] = "/tmp/tdprof-drill-rec-XXXXXX";
	char *argv[] = { fx.binary, "spin", "150000000", NULL };
	struct diag_pmu_recording rec = DIAG_PMU_RECORDING_INIT;
	struct run r;
	double in_spin = 0;
	int ret;

	(void)state;
	assert_int_equal(fx_plan(&r.p, "retiring", CPU_BRANCH_NONE), 0);
	snprintf(r.p.event, sizeof(r.p.event), "cpu-clock"); /* a software event: no PMU needed */
	r.p.freq = 2000;
	assert_non_null(mkdtemp(tmp));
	r.err = (struct tdp_err)TDP_ERR_INIT;
	fflush(stdout);
	ret = diag_pmu_record(&r.p, argv, tmp, &rec, &r.err);
	if (ret == TDP_EPERM || ret == TDP_ENOTSUP) {
		rmdir(tmp);
		print_message("cannot sample here (%s)\n", r.err.msg);
		skip();
	}
	assert_int_equal(ret, 0);
	/* the recording is in memory (or a private file already removed): nothing in the directory given */
	assert_true(dir_empty(tmp));
	rmdir(tmp);
	assert_true(rec.stats.workload_ran);
	assert_int_equal(rec.stats.wstatus, 0);
	assert_true(rec.stats.samples > 20);
	diag_init(&r.d);
	assert_int_equal(fx_diag(&r.d, "retiring", 85, &r.o), 0);
	ret = diag_pmu_drill(&r.d, rec.data, rec.size, &(struct diag_pmu_drill_opts){ &r.p, &r.o, NULL, rec.dropped },
			     &r.err);
	assert_int_equal(ret, 0);
	assert_int_equal(r.d.sampling.samples, rec.stats.samples);
	/* nearly all of drill-target's time is spin()'s loop (its lines share it) */
	for (size_t i = 0; i < r.d.nr_sites; i++) {
		print_message("site %zu: %s:%llu %s %.1f %%\n", i + 1, r.d.sites[i].file ? r.d.sites[i].file : "?",
			      (unsigned long long)r.d.sites[i].line, r.d.sites[i].function, r.d.sites[i].share);
		if (!strcmp(r.d.sites[i].function, "spin"))
			in_spin += r.d.sites[i].share;
	}
	assert_string_equal(r.d.sites[0].function, "spin");
	assert_true(r.d.sites[0].in_program);
	assert_true(in_spin > 80);
	assert_string_equal(r.d.sites[0].file, "drill-target.c");
	assert_true(r.d.loop_command == NULL && strstr(r.d.loop_note, "takes arguments")); /* spin(n) */
	diag_release(&r.d);
	diag_pmu_recording_release(&rec);
	assert_null(rec.data);
}

/* The path Backend Bound > Memory Bound > L3 Bound > L3 Hit Latency (MEM_LOAD_RETIRED.L3_HIT_PS) of made-up values. */
static const struct fx_node l3_path[] = {
	{ "retiring", 20 }, { "bad_speculation", 5 }, { "frontend_bound", 10 }, { "backend_bound", 65 },
	{ "memory_bound", 50 }, { "core_bound", 15 }, { "l3_bound", 30 }, { "l3_hit_latency", 25 },
};

/*
 * Issue 18, item 2 (x86): a memory leaf sampled precisely (PEBS) records each sample's data address, as
 * perf record -d does; not without precise sampling, nor for a leaf outside Memory Bound.
 */
static void test_plan_data_addresses(void **state)
{
	static const struct fx_node fe_path[] = {
		{ "retiring", 20 }, { "bad_speculation", 5 }, { "frontend_bound", 60 }, { "backend_bound", 15 },
		{ "fetch_latency", 40 }, { "icache_misses", 30 },
	};
	struct cpu_branch br = { .facility = CPU_BRANCH_LBR, .depth = 32, .reason = "Intel LBR" };
	struct tdp_err err = TDP_ERR_INIT;
	struct diag_pmu_plan p;
	struct diag_opts o;
	struct diag d;

	(void)state;
	diag_init(&d);
	assert_int_equal(fx_diag_path(&d, "sapphirerapids", l3_path, sizeof(l3_path) / sizeof(l3_path[0]), &o), 0);
	assert_int_equal(diag_pmu_plan(&p, &(struct diag_pmu_plan_in){ d.category, &br, NULL, 1.0, 0, &d.tree, 2 }, &err), 0);
	assert_string_equal(p.locate_leaf, "l3_hit_latency");
	assert_string_equal(p.event, "MEM_LOAD_RETIRED.L3_HIT:pp");
	assert_true(p.data_addr);
	assert_non_null(strstr(p.reason, "dominant leaf L3 Hit Latency"));
	assert_non_null(strstr(p.reason, "data address (as perf record -d)"));
	/* a PMU without PEBS: no data address (the plain sample lands after the load) */
	assert_int_equal(diag_pmu_plan(&p, &(struct diag_pmu_plan_in){ d.category, &br, NULL, 1.0, 0, &d.tree, 0 }, &err), 0);
	assert_false(p.data_addr);
	/* the event did not open: cycles, without addresses */
	assert_int_equal(diag_pmu_plan(&p, &(struct diag_pmu_plan_in){ d.category, &br, NULL, 1.0, 0, &d.tree, 2 }, &err), 0);
	diag_pmu_plan_unlocate(&p, &(struct diag_pmu_plan_in){ d.category, &br, NULL, 1.0, 0, &d.tree, 2 },
			       "did not open (no such event)");
	assert_false(p.data_addr);
	assert_non_null(strstr(p.reason, "the dominant leaf L3 Hit Latency was not located"));
	diag_release(&d);
	/* a leaf outside Memory Bound */
	diag_init(&d);
	assert_int_equal(fx_diag_path(&d, "sapphirerapids", fe_path, sizeof(fe_path) / sizeof(fe_path[0]), &o), 0);
	assert_int_equal(diag_pmu_plan(&p, &(struct diag_pmu_plan_in){ d.category, &br, NULL, 1.0, 0, &d.tree, 2 }, &err), 0);
	assert_string_equal(p.locate_leaf, "icache_misses");
	assert_false(p.data_addr);
	diag_release(&d);
}

/* The data addresses of a recording (FX_ADDR): the hottest lines, their mapping and code, in the finding. */
static void test_data_addresses(void **state)
{
	struct cpu_branch br = { .facility = CPU_BRANCH_NONE, .depth = -1, .reason = "none" };
	struct tdp_err err = TDP_ERR_INIT;
	struct diag_pmu_plan p;
	struct diag_opts o;
	struct diag d;
	uint8_t *buf = NULL;
	size_t len = 0;
	const struct diag_finding *f = NULL;
	static const struct { uint64_t addr, samples; const char *region; int code; } want[] = {
		{ FX_HEAP + 0x40, 31, "[heap]", 0 }, { FX_HEAP + 0x1000, 29, "[heap]", 0 }, { FX_STACK + 0x100, 25, "[stack]", 1 },
	};

	(void)state;
	diag_init(&d);
	assert_int_equal(fx_diag_path(&d, "sapphirerapids", l3_path, sizeof(l3_path) / sizeof(l3_path[0]), &o), 0);
	assert_int_equal(diag_pmu_plan(&p, &(struct diag_pmu_plan_in){ d.category, &br, NULL, 1.0, 0, &d.tree, 2 }, &err), 0);
	assert_int_equal(fx_recording(FX_ADDR, &buf, &len), 0);
	assert_int_equal(diag_pmu_drill(&d, buf, len, &(struct diag_pmu_drill_opts){ &p, &o, NULL, 0 }, &err), 0);
	assert_true(d.sampling.data_addr);
	assert_int_equal(d.sampling.samples, 100);
	assert_int_equal(d.sampling.with_addr, 85); /* main's and the kernel's samples have none */
	assert_int_equal(d.nr_data, 3);
	for (size_t i = 0; i < 3; i++) {
		const struct diag_data *x = &d.data[i];

		assert_int_equal(x->addr, want[i].addr);
		assert_int_equal(x->samples, want[i].samples);
		assert_true(fabs(x->share - 100.0 * (double)want[i].samples / 85) < 1e-9);
		assert_string_equal(x->region, want[i].region);
		assert_int_equal(x->offset, 0);
		assert_string_equal(x->function, want[i].code ? "pick" : "spin");
		assert_int_equal(x->line, want[i].code ? fx.branch_line : fx.hot_line);
		assert_non_null(strstr(x->file, "drill-target.c"));
	}
	for (size_t i = 0; i < d.nr_findings && !f; i++)
		if (d.findings[i].line == fx.hot_line && strstr(d.findings[i].title, " located at "))
			f = &d.findings[i];
	assert_non_null(f);
	assert_non_null(strstr(f->evidence, "its hottest data is the line at 0x555556000040 ([heap]), 36.5 % of the "
					    "samples with a data address"));
	tdp_free(buf);
	diag_release(&d);
	/* the same samples without addresses: no data section */
	diag_init(&d);
	assert_int_equal(fx_diag_path(&d, "sapphirerapids", l3_path, sizeof(l3_path) / sizeof(l3_path[0]), &o), 0);
	assert_int_equal(fx_recording(FX_IP, &buf, &len), 0);
	assert_int_equal(diag_pmu_drill(&d, buf, len, &(struct diag_pmu_drill_opts){ &p, &o, NULL, 0 }, &err), 0);
	assert_false(d.sampling.data_addr);
	assert_int_equal(d.nr_data, 0);
	tdp_free(buf);
	diag_release(&d);
}

/*
 * Issue 18, item 2 (Arm): a memory leaf (Arm's one-level trees: Backend Bound) on a machine with SPE is
 * sampled by SPE's load records: each load's line, data address and latency.
 */
static void test_spe_loads(void **state)
{
	static const struct fx_node arm_backend[] = {
		{ "retiring", 20 }, { "bad_speculation", 5 }, { "frontend_bound", 10 }, { "backend_bound", 65 },
	};
	static const struct { uint64_t addr, samples; double latency; } want[] = {
		{ FX_HEAP + 0x40, 31, 300 }, { FX_HEAP + 0x1000, 29, 40 }, { FX_STACK + 0x100, 25, 4 },
	};
	struct tdp_err err = TDP_ERR_INIT;
	struct diag_pmu_plan p;
	struct diag_opts o;
	struct diag d;
	uint8_t *buf = NULL;
	size_t len = 0;
	const struct diag_finding *f = NULL;

	(void)state;
	diag_init(&d);
	assert_int_equal(fx_diag_path(&d, "neoverse-v1", arm_backend, 4, &o), 0);
	assert_string_equal(d.category, "backend_bound");
	assert_int_equal(fx_plan_spe(&p, &d), 0);
	assert_int_equal(p.method, DIAG_SAMPLE_SPE);
	assert_true(p.spe_loads);
	assert_string_equal(p.event, "arm_spe_0/load_filter=1,ts_enable=1,jitter=1/");
	assert_int_equal(p.period, 1024);
	assert_string_equal(p.locate_leaf, "backend_bound");
	assert_non_null(strstr(p.reason, "load records give each load's instruction, data address and latency"));
	assert_int_equal(fx_recording(FX_SPE, &buf, &len), 0);
	assert_int_equal(diag_pmu_drill(&d, buf, len, &(struct diag_pmu_drill_opts){ &p, &o, NULL, 0 }, &err), 0);
	assert_true(d.sampling.loads && d.sampling.data_addr);
	assert_int_equal(d.sampling.samples, 95); /* the loads: not the 5 stores nor the 3 branches */
	assert_int_equal(d.sampling.with_addr, 85);
	assert_string_equal(d.ranked_by, "SPE-sampled loads");
	assert_true(d.nr_sites >= 3);
	assert_int_equal(d.sites[0].line, fx.hot_line);
	assert_int_equal(d.sites[0].samples, 60);
	assert_int_equal(d.nr_data, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(d.data[i].addr, want[i].addr);
		assert_int_equal(d.data[i].samples, want[i].samples);
		assert_true(d.data[i].latency == want[i].latency);
	}
	for (size_t i = 0; i < d.nr_findings && !f; i++)
		if (d.findings[i].line == fx.hot_line && strstr(d.findings[i].title, "Backend Bound located at "))
			f = &d.findings[i];
	assert_non_null(f);
	assert_non_null(strstr(f->evidence, "63.2 % of the loads Arm SPE sampled (60 of 95) are on this line"));
	assert_non_null(strstr(f->evidence, "its loads waiting 300 cycles on average"));
	tdp_free(buf);
	diag_release(&d);
	/* a leaf outside Memory Bound keeps its Locate-with event even with SPE */
	{
		static const struct fx_node fe[] = {
			{ "retiring", 20 }, { "bad_speculation", 5 }, { "frontend_bound", 60 }, { "backend_bound", 15 },
		};

		diag_init(&d);
		assert_int_equal(fx_diag_path(&d, "neoverse-v1", fe, 4, &o), 0);
		assert_int_equal(fx_plan_spe(&p, &d), 0);
		assert_false(p.spe_loads);
		assert_int_equal(p.method, DIAG_SAMPLE_IP);
		assert_string_equal(p.locate_event, "STALL_SLOT_FRONTEND");
		diag_release(&d);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_facilities), cmocka_unit_test(test_plan_spe),
		cmocka_unit_test(test_plan_frequency),  cmocka_unit_test(test_ip_retiring),
		cmocka_unit_test(test_ip_backend),      cmocka_unit_test(test_ip_frontend),
		cmocka_unit_test(test_lbr),             cmocka_unit_test(test_brs),
		cmocka_unit_test(test_no_facility),     cmocka_unit_test(test_no_model),
		cmocka_unit_test(test_top),             cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_alloc_failures),  cmocka_unit_test(test_record_cpu_clock),
		cmocka_unit_test(test_plan_locate),     cmocka_unit_test(test_ip_located),
		cmocka_unit_test(test_plan_data_addresses), cmocka_unit_test(test_data_addresses),
		cmocka_unit_test(test_spe_loads),
	};

	if (argc < 3 || fx_init(argv[1], argv[2]))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
