/*
 * test-ips: plain samples (branch/ips.h) counted from hand-made records: self
 * and total samples per address (a recursive chain counts once), call-chain
 * markers left out, thread names from COMM and inherited through FORK, samples
 * of a second event kept apart, stacks of the same names merged when folded, and
 * self samples per IP (ips_agg_ips()).
 * No maps are given, so every address stays unresolved: its own row, and
 * "[unknown]" in a folded stack.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "base/err.h"
#include "branch/annotate.h"
#include "branch/ips.h"
#include "perfdata/perfdata.h"

#include <string.h>

#define MARK ((uint64_t)-512) /* PERF_CONTEXT_USER */

static struct perfdata_attr attr_a = { .sample_type = PERFDATA_SAMPLE_IP | PERFDATA_SAMPLE_TID |
						      PERFDATA_SAMPLE_CALLCHAIN, .name = "cpu-clock" };
static struct perfdata_attr attr_b = { .index = 1, .sample_type = PERFDATA_SAMPLE_IP | PERFDATA_SAMPLE_TID };

/* A sample of attr at (its time read only when at's sample_type has PERFDATA_SAMPLE_TIME). */
static void sample_at(struct ips_agg *a, const struct perfdata_attr *at, uint32_t tid, uint64_t ip,
		      const uint64_t *cc, size_t n, uint64_t time)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct perfdata_record r;

	memset(&r, 0, sizeof(r));
	r.type = PERFDATA_RECORD_SAMPLE;
	r.attr = at;
	r.u.sample.fields = at->sample_type;
	r.u.sample.ip = ip;
	r.u.sample.pid = 10;
	r.u.sample.tid = tid;
	r.u.sample.time = time;
	r.u.sample.callchain = cc;
	r.u.sample.nr_callchain = n;
	assert_int_equal(ips_agg_sample(a, &r, &err), 0);
}

static void sample(struct ips_agg *a, const struct perfdata_attr *at, uint32_t tid, uint64_t ip, const uint64_t *cc,
		   size_t n)
{
	sample_at(a, at, tid, ip, cc, n, 0);
}

static int passed_on;

static int count_passed(void *ctx, const struct perfdata_record *rec, struct tdp_err *err)
{
	(void)ctx;
	(void)rec;
	(void)err;
	passed_on++;
	return 0;
}

static const struct ips_function *fn_at(const struct ips_result *r, uint64_t addr)
{
	for (size_t i = 0; i < r->nr_functions; i++)
		if (r->functions[i].addr == addr)
			return &r->functions[i];
	fail_msg("no row for 0x%llx", (unsigned long long)addr);
	return NULL;
}

static uint64_t folded(const struct ips_result *r, const char *comm, size_t frames)
{
	for (size_t i = 0; i < r->nr_stacks; i++)
		if (!strcmp(r->stacks[i].comm, comm) && r->stacks[i].nr_frames == frames)
			return r->stacks[i].samples;
	return 0;
}

static void counts(void **state)
{
	static const uint64_t c1[] = { MARK, 0x1000, 0x2000, 0x3000 }, c2[] = { MARK, 0x1100, 0x2000, 0x3000 },
			      c3[] = { MARK, 0x2000, 0x3000 }, c4[] = { MARK, 0x1000 },
			      c5[] = { MARK, 0x2000, 0x2000, 0x3000 };
	struct tdp_err err = TDP_ERR_INIT;
	struct branch_annot_opts ao;
	struct branch_annot *an = NULL;
	struct ips_agg *a = NULL;
	struct ips_result r = IPS_RESULT_INIT;
	struct perfdata_record rec;

	(void)state;
	branch_annot_opts_init(&ao);
	ao.lines = ao.disasm = ao.types = false;
	assert_int_equal(branch_annot_new(&an, &ao, &err), 0);
	assert_int_equal(ips_agg_new(&a, &err), 0);
	ips_agg_chain(a, count_passed, NULL);
	memset(&rec, 0, sizeof(rec));
	rec.type = PERFDATA_RECORD_COMM;
	rec.u.comm.pid = rec.u.comm.tid = 10;
	rec.u.comm.comm = (struct perfdata_str){ "app", 3 };
	assert_int_equal(ips_agg_record(a, &rec, &err), 0);
	memset(&rec, 0, sizeof(rec));
	rec.type = PERFDATA_RECORD_FORK;
	rec.u.fork = (struct perfdata_fork){ .pid = 10, .ppid = 10, .tid = 11, .ptid = 10 };
	assert_int_equal(ips_agg_record(a, &rec, &err), 0);
	assert_int_equal(passed_on, 2);

	for (int i = 0; i < 3; i++)
		sample(a, &attr_a, 10, 0x1000, c1, 4);
	sample(a, &attr_a, 10, 0x1100, c2, 4);
	for (int i = 0; i < 2; i++)
		sample(a, &attr_a, 11, 0x2000, c3, 3);  /* named "app" through the fork */
	sample(a, &attr_a, 12, 0x1000, c4, 2);          /* never named */
	sample(a, &attr_a, 10, 0x2000, c5, 4);          /* recursion: 0x2000 twice */
	for (int i = 0; i < 5; i++)
		sample(a, &attr_b, 10, 0x1000, NULL, 0);  /* another event */
	assert_int_equal(ips_agg_samples(a), 8);

	assert_int_equal(ips_agg_finish(a, an, &r, &err), 0);
	assert_ptr_equal(r.attr, &attr_a);
	assert_int_equal(r.samples, 8);
	assert_int_equal(r.other_samples, 5);
	assert_int_equal(r.with_callchain, 8);
	assert_true(r.callchains);
	assert_int_equal(r.nr_functions, 4);
	assert_int_equal(fn_at(&r, 0x1000)->self, 4);
	assert_int_equal(fn_at(&r, 0x1000)->total, 4);
	assert_int_equal(fn_at(&r, 0x2000)->self, 3);
	assert_int_equal(fn_at(&r, 0x2000)->total, 7); /* 3 + 1 + 2 + 1, the recursive one once */
	assert_int_equal(fn_at(&r, 0x3000)->self, 0);
	assert_int_equal(fn_at(&r, 0x3000)->total, 7);
	assert_int_equal(fn_at(&r, 0x1100)->total, 1);
	assert_true(fn_at(&r, 0x1000)->self_share == 0.5);
	assert_int_equal(r.functions[0].addr, 0x1000); /* ranked by self */
	assert_null(r.functions[0].function);
	/* folded by names: the unresolved frames are all "[unknown]" */
	assert_int_equal(folded(&r, "app", 3), 3 + 1 + 1);
	assert_int_equal(folded(&r, "app", 2), 2);
	assert_int_equal(folded(&r, "[unknown]", 1), 1);
	assert_int_equal(r.nr_stacks, 3);
	assert_string_equal(r.stacks[0].frames[0], "[unknown]");
	assert_int_equal(r.nr_lines, 0); /* no debug info */
	ips_result_release(&r);
	ips_agg_free(a);
	branch_annot_free(an);
}

/* Without call chains a stack is the IP alone, and total equals self. */
static void no_chains(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct branch_annot *an = NULL;
	struct ips_agg *a = NULL;
	struct ips_result r = IPS_RESULT_INIT;

	(void)state;
	assert_int_equal(branch_annot_new(&an, NULL, &err), 0);
	assert_int_equal(ips_agg_new(&a, &err), 0);
	for (int i = 0; i < 4; i++)
		sample(a, &attr_b, 10, 0x5000 + 0x100 * (i % 2), NULL, 0);
	assert_int_equal(ips_agg_finish(a, an, &r, &err), 0);
	assert_false(r.callchains);
	assert_int_equal(r.nr_functions, 2);
	for (size_t i = 0; i < r.nr_functions; i++)
		assert_int_equal(r.functions[i].self, r.functions[i].total);
	assert_int_equal(r.nr_stacks, 1); /* both IPs fold to the one line "[unknown];[unknown]" */
	assert_int_equal(r.stacks[0].nr_frames, 1);
	assert_int_equal(r.stacks[0].samples, 4);
	ips_result_release(&r);
	ips_agg_free(a);
	branch_annot_free(an);
}

/*
 * Self samples per instruction pointer (ips_agg_ips(), for annotate): stacks that
 * share their IP but not their chain add up; sorted by address; the sum is every
 * sample counted. IP 0x2000 is sampled twice with two chains and once without.
 */
static void per_ip(void **state)
{
	static const uint64_t c1[] = { MARK, 0x2000, 0x3000 }, c2[] = { MARK, 0x2000, 0x3100 }, c3[] = { MARK, 0x1000 };
	struct tdp_err err = TDP_ERR_INIT;
	struct ips_agg *a = NULL;
	struct ips_ip *v = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(ips_agg_new(&a, &err), 0);
	assert_int_equal(ips_agg_ips(a, &v, &n, &err), 0);
	assert_null(v);
	assert_int_equal(n, 0);
	sample(a, &attr_a, 10, 0x2000, c1, 3);
	sample(a, &attr_a, 10, 0x2000, c2, 3);
	sample(a, &attr_a, 10, 0x2000, c2, 3);
	sample(a, &attr_a, 10, 0x1000, c3, 2);
	assert_int_equal(ips_agg_ips(a, &v, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].addr, 0x1000);
	assert_int_equal(v[0].samples, 1);
	assert_int_equal(v[1].addr, 0x2000);
	assert_int_equal(v[1].samples, 3);
	assert_int_equal(v[1].pid, 10);
	assert_int_equal(v[0].samples + v[1].samples, ips_agg_samples(a));
	tdp_free(v);
	ips_agg_free(a);
}

/* A COMM record; with a time (not 0), in its sample_id trailer. */
static void comm_at(struct ips_agg *a, uint32_t tid, const char *name, uint64_t time)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct perfdata_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.type = PERFDATA_RECORD_COMM;
	rec.u.comm.pid = rec.u.comm.tid = tid;
	rec.u.comm.comm = (struct perfdata_str){ name, strlen(name) };
	rec.sid.fields = time ? PERFDATA_SAMPLE_TIME : 0;
	rec.sid.time = time;
	assert_int_equal(ips_agg_record(a, &rec, &err), 0);
}

static void comm(struct ips_agg *a, uint32_t tid, const char *name)
{
	comm_at(a, tid, name, 0);
}

/*
 * Names by file order: a sample read before its thread's first COMM (another CPU's
 * buffer written later) takes that name; one read between two COMMs (an exec) the
 * first; one after, the second.
 */
static void names_in_file_order(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct branch_annot *an = NULL;
	struct ips_agg *a = NULL;
	struct ips_result r = IPS_RESULT_INIT;

	(void)state;
	assert_int_equal(branch_annot_new(&an, NULL, &err), 0);
	assert_int_equal(ips_agg_new(&a, &err), 0);
	sample(a, &attr_b, 20, 0x7000, NULL, 0);
	sample(a, &attr_b, 20, 0x7000, NULL, 0);
	comm(a, 20, "sh");
	sample(a, &attr_b, 20, 0x7000, NULL, 0);
	comm(a, 20, "prog");
	for (int i = 0; i < 4; i++)
		sample(a, &attr_b, 20, 0x7000, NULL, 0);
	assert_int_equal(ips_agg_finish(a, an, &r, &err), 0);
	assert_int_equal(folded(&r, "sh", 1), 3);
	assert_int_equal(folded(&r, "prog", 1), 4);
	assert_int_equal(r.nr_stacks, 2);
	ips_result_release(&r);
	ips_agg_free(a);
	branch_annot_free(an);
}

static struct perfdata_attr attr_t = { .index = 2, .sample_type = PERFDATA_SAMPLE_IP | PERFDATA_SAMPLE_TID |
						      PERFDATA_SAMPLE_TIME };

/*
 * Names by time, as perf orders records: samples read after an exec's COMM whose
 * times are before it (taken on a CPU whose clock lags: a busy VM) keep the name
 * before the exec; those after it take the new one.
 */
static void names_by_time(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct branch_annot *an = NULL;
	struct ips_agg *a = NULL;
	struct ips_result r = IPS_RESULT_INIT;

	(void)state;
	assert_int_equal(branch_annot_new(&an, NULL, &err), 0);
	assert_int_equal(ips_agg_new(&a, &err), 0);
	comm_at(a, 30, "perf-exec", 10);
	sample_at(a, &attr_t, 30, 0x7000, NULL, 0, 20);
	comm_at(a, 30, "prog", 100);
	sample_at(a, &attr_t, 30, 0x7000, NULL, 0, 90); /* read after the exec, earlier by its clock */
	sample_at(a, &attr_t, 30, 0x7000, NULL, 0, 95);
	sample_at(a, &attr_t, 30, 0x7000, NULL, 0, 100); /* at the COMM's time: named by it, as perf's queue orders them */
	sample_at(a, &attr_t, 30, 0x7000, NULL, 0, 150);
	assert_int_equal(ips_agg_finish(a, an, &r, &err), 0);
	assert_int_equal(folded(&r, "perf-exec", 1), 3);
	assert_int_equal(folded(&r, "prog", 1), 2);
	ips_result_release(&r);
	ips_agg_free(a);
	branch_annot_free(an);
}

static void finished_round(struct ips_agg *a)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct perfdata_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.type = PERFDATA_RECORD_FINISHED_ROUND;
	assert_int_equal(ips_agg_record(a, &rec, &err), 0);
}

/*
 * Across perf's flushes: a sample read two rounds after the exec's COMM, with an
 * earlier time, is processed after it (perf orders by time only within a flush):
 * named by the new name; one read in the COMM's own flush with an earlier time is not.
 */
static void names_by_flush(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct branch_annot *an = NULL;
	struct ips_agg *a = NULL;
	struct ips_result r = IPS_RESULT_INIT;

	(void)state;
	assert_int_equal(branch_annot_new(&an, NULL, &err), 0);
	assert_int_equal(ips_agg_new(&a, &err), 0);
	comm_at(a, 40, "perf-exec", 10);
	comm_at(a, 40, "prog", 100);                     /* round 0: flushed at the second round's end */
	sample_at(a, &attr_t, 40, 0x7000, NULL, 0, 90);  /* the same flush, earlier: perf-exec */
	finished_round(a);                               /* limit 100 */
	sample_at(a, &attr_t, 40, 0x7000, NULL, 0, 200); /* round 1, beyond the limit: flush 2 */
	finished_round(a);                               /* flush 1: times up to 100 (the COMM); limit 200 */
	sample_at(a, &attr_t, 40, 0x7000, NULL, 0, 95);  /* round 2, within 200: flush 2, after the COMM: prog */
	sample_at(a, &attr_t, 40, 0x7000, NULL, 0, 300);
	assert_int_equal(ips_agg_finish(a, an, &r, &err), 0);
	assert_int_equal(folded(&r, "perf-exec", 1), 1);
	assert_int_equal(folded(&r, "prog", 1), 3);
	ips_result_release(&r);
	ips_agg_free(a);
	branch_annot_free(an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counts),
		cmocka_unit_test(no_chains),
		cmocka_unit_test(per_ip),
		cmocka_unit_test(names_in_file_order),
		cmocka_unit_test(names_by_time),
		cmocka_unit_test(names_by_flush),
	};

	return cmocka_run_group_tests_name("branch-ips", tests, NULL, NULL);
}
