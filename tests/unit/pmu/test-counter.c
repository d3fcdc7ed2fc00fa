/*
 * Unit tests of pmu/counter, pmu/repeat and the CPU-list parser of pmu/session:
 * parsing synthetic PERF_FORMAT_GROUP read buffers, multiplexing scale, deltas,
 * statuses, averaging over runs, and real software counters on this thread.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/countset.h"
#include "base/err.h"
#include "pmu/counter.h"
#include "pmu/session.h"
#include "pmu/target.h"

/* A read buffer as the kernel lays it out for `read_format`, from plain numbers. */
static size_t put_u64s(uint8_t *buf, const uint64_t *v, size_t n)
{
	memcpy(buf, v, n * sizeof(*v));
	return n * sizeof(*v);
}

static void test_group_read_parse(void **state)
{
	/* nr=3, enabled=1000, running=250, then {value, id} x 3 */
	const uint64_t words[] = { 3, 1000, 250, 111, 7, 222, 8, 333, 9 };
	uint8_t buf[sizeof(words)];
	struct pmu_group_read r;
	struct tdp_err err = TDP_ERR_INIT;
	size_t len = put_u64s(buf, words, 9);

	(void)state;
	assert_int_equal(pmu_group_read_parse(buf, len, PMU_READ_FORMAT, &r, &err), 0);
	assert_int_equal(r.nr, 3);
	assert_int_equal(r.enabled, 1000);
	assert_int_equal(r.running, 250);
	assert_int_equal(r.v[0].value, 111);
	assert_int_equal(r.v[0].id, 7);
	assert_int_equal(r.v[2].value, 333);
	assert_int_equal(r.v[2].id, 9);

	/* one byte short of the last id: malformed, with the offset */
	assert_int_equal(pmu_group_read_parse(buf, len - 1, PMU_READ_FORMAT, &r, &err), TDP_EFORMAT);
	assert_non_null(strstr(err.msg, "offset 24"));
	assert_int_equal(r.nr, 0);
}

static void test_group_read_formats(void **state)
{
	/* GROUP only: nr=2, values 5 and 6 */
	const uint64_t plain[] = { 2, 5, 6 };
	/* GROUP|ID|LOST without times: nr=1, value 40, id 3, lost 1 */
	const uint64_t lost[] = { 1, 40, 3, 1 };
	uint8_t buf[64];
	struct pmu_group_read r;
	struct tdp_err err = TDP_ERR_INIT;
	size_t len;

	(void)state;
	len = put_u64s(buf, plain, 3);
	assert_int_equal(pmu_group_read_parse(buf, len, PERF_FORMAT_GROUP, &r, NULL), 0);
	assert_int_equal(r.nr, 2);
	assert_int_equal(r.enabled, 0);
	assert_int_equal(r.v[1].value, 6);

	len = put_u64s(buf, lost, 4);
	assert_int_equal(pmu_group_read_parse(buf, len, PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST, &r,
					      NULL),
			 0);
	assert_int_equal(r.v[0].value, 40);
	assert_int_equal(r.v[0].id, 3);
	assert_int_equal(r.v[0].lost, 1);

	/* not a group read */
	assert_int_equal(pmu_group_read_parse(buf, len, PERF_FORMAT_ID, &r, &err), TDP_EFORMAT);
	/* empty buffer */
	tdp_err_clear(&err);
	assert_int_equal(pmu_group_read_parse(buf, 0, PMU_READ_FORMAT, &r, &err), TDP_EFORMAT);
}

static void test_group_read_limits(void **state)
{
	/* a hostile nr: 2^40 events would need terabytes; refused before any use */
	const uint64_t huge[] = { 1ull << 40, 1, 1 };
	const uint64_t over[] = { PMU_GROUP_MAX_EVENTS + 1, 1, 1 };
	uint8_t buf[64];
	struct pmu_group_read r;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	assert_int_equal(pmu_group_read_parse(buf, put_u64s(buf, huge, 3), PMU_READ_FORMAT, &r, &err), TDP_ELIMIT);
	tdp_err_clear(&err);
	assert_int_equal(pmu_group_read_parse(buf, put_u64s(buf, over, 3), PMU_READ_FORMAT, &r, &err), TDP_ELIMIT);
	assert_non_null(strstr(err.msg, "more than 64"));
}

static void test_slot_scale(void **state)
{
	struct pmu_slot_count s = { 1000, 400, 100 };
	double v, pct;

	(void)state;
	/* multiplexed: ran 100 of 400 ns -> 1000 * 400/100 = 4000, 25% */
	assert_true(pmu_slot_scale(&s, 1.0, false, &v, &pct));
	assert_true(v == 4000.0 && pct == 25.0);
	/* a sysfs scale applies to plain events: 4000 * 0.5 = 2000 */
	assert_true(pmu_slot_scale(&s, 0.5, false, &v, &pct));
	assert_true(v == 2000.0);
	/* but not to clocks, kept in ns */
	assert_true(pmu_slot_scale(&s, 1e-6, true, &v, &pct));
	assert_true(v == 4000.0);
	/* never ran: not counted, whatever the raw value */
	s.running = 0;
	assert_false(pmu_slot_scale(&s, 1.0, false, &v, &pct));
}

/* A hand-built counter set over two slots, fds on /dev/null so close() is real. */
static void fake_counters(struct pmu_counters *c, size_t nr_events)
{
	memset(c, 0, sizeof(*c));
	c->nr = nr_events;
	c->nr_slots = 2;
	c->v = tdp_calloc(nr_events, sizeof(*c->v));
	assert_non_null(c->v);
	for (size_t i = 0; i < nr_events; i++) {
		struct pmu_counter *k = &c->v[i];

		k->name = tdp_strdup(i == 0 ? "task-clock" : "instructions");
		k->unit = tdp_strdup(i == 0 ? "msec" : "");
		k->is_clock = i == 0;
		k->scale = 1.0;
		k->list_group = -1;
		k->fd = tdp_calloc(2, sizeof(int));
		k->id = tdp_calloc(2, sizeof(uint64_t));
		k->cur = tdp_calloc(2, sizeof(*k->cur));
		k->prev = tdp_calloc(2, sizeof(*k->prev));
		k->fd[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		k->fd[1] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		k->nr_open = 2;
	}
}

static void test_countset_totals_and_deltas(void **state)
{
	struct pmu_counters c;
	struct countset cs = COUNTSET_INIT;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	fake_counters(&c, 2);
	/* task-clock: slot 0 1e6 ns (not multiplexed), slot 1 3e6 ns */
	c.v[0].cur[0] = (struct pmu_slot_count){ 1000000, 1000000, 1000000 };
	c.v[0].cur[1] = (struct pmu_slot_count){ 3000000, 3000000, 3000000 };
	/* instructions: slot 0 ran half its time: 500 -> 1000; slot 1 ran a quarter: 100 -> 400 */
	c.v[1].cur[0] = (struct pmu_slot_count){ 500, 2000, 1000 };
	c.v[1].cur[1] = (struct pmu_slot_count){ 100, 4000, 1000 };
	assert_int_equal(pmu_counters_countset(&c, false, &cs, &err), 0);
	assert_int_equal(cs.nr, 2);
	assert_string_equal(cs.v[0].name, "task-clock");
	assert_string_equal(cs.v[0].unit, "msec");
	assert_int_equal(cs.v[0].status, COUNT_OK);
	assert_true(cs.v[0].value == 4000000.0);
	assert_true(cs.v[0].running_pct == 100.0);
	/* each slot scaled on its own, then summed: 1000 + 400 = 1400; raw 600 */
	assert_true(cs.v[1].value == 1400.0);
	assert_true(cs.v[1].raw == 600.0);
	assert_int_equal(cs.v[1].enabled_ns, 6000);
	assert_int_equal(cs.v[1].running_ns, 2000);
	/* 2000 of 6000 ns: 33.33% */
	assert_true(fabs(cs.v[1].running_pct - 100.0 / 3) < 1e-9);
	assert_int_equal(cs.v[1].group, -1);
	countset_release(&cs);

	/* interval: advance, then the counters grow */
	pmu_counters_advance(&c);
	c.v[0].cur[0] = (struct pmu_slot_count){ 1500000, 1500000, 1500000 };
	c.v[1].cur[0] = (struct pmu_slot_count){ 800, 3000, 2000 }; /* +300 in +1000 of +1000: 300 */
	assert_int_equal(pmu_counters_countset(&c, true, &cs, &err), 0);
	assert_true(cs.v[0].value == 500000.0);
	assert_true(cs.v[1].value == 300.0);
	assert_true(cs.v[1].running_pct == 100.0);
	countset_release(&cs);

	/* nothing ran in the next interval: not counted, and never shown as 0 */
	pmu_counters_advance(&c);
	assert_int_equal(pmu_counters_countset(&c, true, &cs, &err), 0);
	assert_int_equal(cs.v[0].status, COUNT_NOT_COUNTED);
	assert_int_equal(cs.v[1].status, COUNT_NOT_COUNTED);
	countset_release(&cs);

	/* an event that opened nowhere is not supported */
	close(c.v[1].fd[0]);
	close(c.v[1].fd[1]);
	c.v[1].fd[0] = c.v[1].fd[1] = -1;
	c.v[1].nr_open = 0;
	assert_int_equal(pmu_counters_countset(&c, false, &cs, &err), 0);
	assert_int_equal(cs.v[1].status, COUNT_NOT_SUPPORTED);
	assert_true(cs.v[1].value == 0);
	countset_release(&cs);
	pmu_counters_close(&c);
	assert_null(c.v);
}

static struct perf_event_attr sw_attr(uint64_t config)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	return a;
}

static void add_event(struct pmu_event_list *l, const char *name, struct perf_event_attr attr, int group,
		      bool leader, bool hw)
{
	struct pmu_event *ev;

	assert_int_equal(TDP_GROW(l->v, l->alloc, l->nr + 1), 0);
	ev = &l->v[l->nr++];
	memset(ev, 0, sizeof(*ev));
	ev->name = tdp_strdup(name);
	ev->pmu = tdp_strdup(hw ? "cpu" : "software");
	ev->unit = tdp_strdup(strcmp(name, "task-clock") ? "" : "msec");
	ev->attr = attr;
	ev->group = group;
	ev->leader = leader;
	ev->is_hardware = hw;
	ev->scale = 1.0;
}

static void free_events(struct pmu_event_list *l)
{
	for (size_t i = 0; i < l->nr; i++) {
		tdp_free(l->v[i].name);
		tdp_free(l->v[i].pmu);
		tdp_free(l->v[i].unit);
	}
	tdp_free(l->v);
	memset(l, 0, sizeof(*l));
}

static void spin_ms(long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

/*
 * Real counters on this thread: a software singleton counts; a group whose leader
 * is an impossible hardware event is entirely not supported, and the singleton
 * after it keeps counting.
 */
static void test_open_real_software(void **state)
{
	struct pmu_event_list l = { 0 };
	struct pmu_counters c = PMU_COUNTERS_INIT;
	struct countset cs = COUNTSET_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	struct perf_event_attr bad;
	pid_t self = (pid_t)syscall(SYS_gettid);
	struct pmu_target t = { .tids = &self, .nr_tids = 1 };

	(void)state;
	memset(&bad, 0, sizeof(bad));
	bad.size = sizeof(bad);
	bad.type = PERF_TYPE_HARDWARE;
	bad.config = 0xfffff; /* beyond PERF_COUNT_HW_MAX on every kernel: EINVAL or ENOENT */
	add_event(&l, "task-clock", sw_attr(PERF_COUNT_SW_TASK_CLOCK), -1, false, false);
	add_event(&l, "bogus-leader", bad, 0, true, true);
	add_event(&l, "page-faults", sw_attr(PERF_COUNT_SW_PAGE_FAULTS), 0, false, false);
	add_event(&l, "context-switches", sw_attr(PERF_COUNT_SW_CONTEXT_SWITCHES), -1, false, false);

	if (pmu_counters_open(&c, &l, &t, &err) == TDP_EPERM) {
		free_events(&l);
		skip(); /* perf_event_paranoid forbids even software counting here */
	}
	assert_int_equal(err.code, 0);
	assert_int_equal(c.nr_groups, 3);
	assert_int_equal(pmu_counters_enable(&c, &err), 0);
	spin_ms(30);
	assert_int_equal(pmu_counters_disable(&c, &err), 0);
	assert_int_equal(pmu_counters_read(&c, &err), 0);
	assert_int_equal(pmu_counters_countset(&c, false, &cs, &err), 0);
	assert_int_equal(cs.nr, 4);
	/* 30 ms of CPU spun on this thread while enabled: task-clock at least that */
	assert_int_equal(cs.v[0].status, COUNT_OK);
	assert_true(cs.v[0].value >= 29e6);
	assert_true(cs.v[0].value < 5e9);
	assert_int_equal(cs.v[1].status, COUNT_NOT_SUPPORTED);
	assert_int_equal(cs.v[2].status, COUNT_NOT_SUPPORTED);
	assert_true(c.v[1].open_errno != 0);
	assert_int_equal(cs.v[2].group, 0);
	assert_int_equal(cs.v[3].status, COUNT_OK);
	countset_release(&cs);
	pmu_counters_close(&c);
	free_events(&l);
}

/* Every allocation of pmu_counters_open can fail: no leak, a clean TDP_ENOMEM. */
static void test_open_oom(void **state)
{
	struct pmu_event_list l = { 0 };
	pid_t self = (pid_t)syscall(SYS_gettid);
	struct pmu_target t = { .tids = &self, .nr_tids = 1 };
	int ret;

	(void)state;
	add_event(&l, "task-clock", sw_attr(PERF_COUNT_SW_TASK_CLOCK), -1, false, false);
	add_event(&l, "page-faults", sw_attr(PERF_COUNT_SW_PAGE_FAULTS), 3, true, false);
	for (long n = 0;; n++) {
		struct pmu_counters c = PMU_COUNTERS_INIT;
		struct tdp_err err = TDP_ERR_INIT;

		tdp_alloc_fail_after(n);
		ret = pmu_counters_open(&c, &l, &t, &err);
		tdp_alloc_fail_after(-1);
		pmu_counters_close(&c);
		if (ret == 0 || ret == TDP_EPERM)
			break;
		assert_int_equal(ret, TDP_ENOMEM);
		assert_true(n < 100);
	}
	free_events(&l);
}

static void test_open_bad_target(void **state)
{
	struct pmu_event_list l = { 0 };
	struct pmu_counters c = PMU_COUNTERS_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	struct pmu_target none = { 0 };
	int cpu = 0;
	pid_t p = 1;
	struct pmu_target both = { .tids = &p, .nr_tids = 1, .cpus = &cpu, .nr_cpus = 1 };

	(void)state;
	add_event(&l, "task-clock", sw_attr(PERF_COUNT_SW_TASK_CLOCK), -1, false, false);
	assert_int_equal(pmu_counters_open(&c, &l, &none, &err), TDP_EINVAL);
	tdp_err_clear(&err);
	assert_int_equal(pmu_counters_open(&c, &l, &both, &err), TDP_EINVAL);
	free_events(&l);
}

static void test_repeat_mean_and_spread(void **state)
{
	struct pmu_repeat r = PMU_REPEAT_INIT;
	struct countset run = COUNTSET_INIT, out = COUNTSET_INIT;
	const double x[] = { 10, 12, 14 };
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	assert_non_null(countset_add(&run, "instructions", NULL, 0, -1));
	assert_non_null(countset_add(&run, "cycles", NULL, 0, -1));
	run.v[1].status = COUNT_NOT_SUPPORTED;
	for (int i = 0; i < 3; i++) {
		run.v[0].value = run.v[0].raw = x[i];
		run.v[0].running_pct = 50 + 10 * i; /* 50, 60, 70 */
		assert_int_equal(pmu_repeat_add(&r, &run, 1e6 * (i + 1), &err), 0);
	}
	assert_int_equal(pmu_repeat_result(&r, &out, &err), 0);
	/*
	 * mean 12; sample variance ((−2)² + 0 + 2²)/2 = 4; standard error of the mean
	 * sqrt(4/3) = 1.1547; relative: 100 * 1.1547 / 12 = 9.6225%  (perf's "+-")
	 */
	assert_true(out.v[0].value == 12.0);
	assert_true(fabs(out.v[0].stddev_pct - 9.6225) < 1e-3);
	assert_true(out.v[0].running_pct == 60.0);
	assert_int_equal(out.v[1].status, COUNT_NOT_SUPPORTED);
	assert_true(out.v[1].stddev_pct < 0);
	/* elapsed 1, 2, 3 ms: mean 2 ms, standard error sqrt(1/3) ms */
	assert_true(out.elapsed_ns == 2e6);
	assert_true(fabs(pmu_repeat_stat_stderr(&r.elapsed) - 1e6 * sqrt(1.0 / 3)) < 1e-3);

	/* a run with a different event count is refused */
	assert_non_null(countset_add(&run, "extra", NULL, 1, -1));
	assert_int_equal(pmu_repeat_add(&r, &run, 1, &err), TDP_EINVAL);
	pmu_repeat_release(&r);
	countset_release(&run);
	countset_release(&out);
}

static void test_repeat_single_run(void **state)
{
	struct pmu_repeat r = PMU_REPEAT_INIT;
	struct countset run = COUNTSET_INIT, out = COUNTSET_INIT;

	(void)state;
	assert_non_null(countset_add(&run, "task-clock", "msec", 5e6, -1));
	assert_non_null(countset_add(&run, "page-faults", NULL, 0, -1));
	run.v[1].status = COUNT_NOT_COUNTED;
	assert_int_equal(pmu_repeat_add(&r, &run, -1, NULL), 0);
	assert_int_equal(pmu_repeat_result(&r, &out, NULL), 0);
	assert_true(out.v[0].value == 5e6);
	assert_true(out.v[0].stddev_pct < 0); /* one run: no spread */
	assert_int_equal(out.v[1].status, COUNT_NOT_COUNTED);
	assert_true(out.elapsed_ns < 0);
	pmu_repeat_release(&r);
	countset_release(&run);
	countset_release(&out);
}

static void test_repeat_keeps_every_run(void **state)
{
	struct pmu_repeat r = PMU_REPEAT_INIT;
	struct countset run = COUNTSET_INIT;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	assert_non_null(countset_add(&run, "instructions", NULL, 0, -1));
	assert_non_null(countset_add(&run, "page-faults", NULL, 0, -1));
	/* 20 runs (more than the first allocation of 8): run k counts 100 + k; page-faults
	 * is not counted in the odd runs, which must leave NAN in its place */
	for (int k = 0; k < 20; k++) {
		run.v[0].value = 100 + k;
		run.v[1].value = k;
		run.v[1].status = k % 2 ? COUNT_NOT_COUNTED : COUNT_OK;
		assert_int_equal(pmu_repeat_add(&r, &run, k % 3 ? 1000.0 * k : -1, &err), 0);
	}
	assert_int_equal(r.runs, 20);
	for (int k = 0; k < 20; k++) {
		assert_true(r.v[0].runs_v[k] == 100 + k);
		if (k % 2)
			assert_true(isnan(r.v[1].runs_v[k]));
		else
			assert_true(r.v[1].runs_v[k] == k);
		if (k % 3)
			assert_true(r.elapsed_v[k] == 1000.0 * k);
		else
			assert_true(isnan(r.elapsed_v[k]));
	}
	pmu_repeat_release(&r);
	countset_release(&run);
}

static void test_cpu_list_parse(void **state)
{
	int *v = NULL;
	size_t n = 0;
	struct tdp_err err = TDP_ERR_INIT;
	static const char *const bad[] = { "", "1-", "a", "5-2", "1,,2", "1,", "-3", "0x1", "1 2" };

	(void)state;
	assert_int_equal(pmu_cpu_list_parse("0-3,6\n", 6, &v, &n, &err), 0);
	assert_int_equal(n, 5);
	assert_int_equal(v[0], 0);
	assert_int_equal(v[3], 3);
	assert_int_equal(v[4], 6);
	tdp_free(v);
	/* unsorted and repeated: sorted, unique */
	assert_int_equal(pmu_cpu_list_parse("3,1,1,2-3", 9, &v, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[0], 1);
	assert_int_equal(v[2], 3);
	tdp_free(v);
	/* not NUL-terminated: only len bytes are read */
	assert_int_equal(pmu_cpu_list_parse("7,8", 1, &v, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0], 7);
	tdp_free(v);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		tdp_err_clear(&err);
		assert_int_equal(pmu_cpu_list_parse(bad[i], strlen(bad[i]), &v, &n, &err), TDP_EUSAGE);
	}
	tdp_err_clear(&err);
	assert_int_equal(pmu_cpu_list_parse("0-99999", 7, &v, &n, &err), TDP_ELIMIT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group_read_parse),
		cmocka_unit_test(test_group_read_formats),
		cmocka_unit_test(test_group_read_limits),
		cmocka_unit_test(test_slot_scale),
		cmocka_unit_test(test_countset_totals_and_deltas),
		cmocka_unit_test(test_open_real_software),
		cmocka_unit_test(test_open_oom),
		cmocka_unit_test(test_open_bad_target),
		cmocka_unit_test(test_repeat_mean_and_spread),
		cmocka_unit_test(test_repeat_single_run),
		cmocka_unit_test(test_repeat_keeps_every_run),
		cmocka_unit_test(test_cpu_list_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
