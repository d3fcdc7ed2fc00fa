/*
 * Unit tests of what the engine notes about each record (sampling-track.c) and
 * of the DSO tracker (sampling-dso.c): branch-stack samples (with and without
 * hw_index) hit the DSOs of their IP and of every branch address, records of
 * different CPUs that arrive out of time order (an exec read after the mappings
 * that follow it) are applied in time order with perf's one-round delay, forked
 * children see their parent's mappings until they exec, kernel addresses go to
 * the kernel, build-ids from MMAP2 are kept, and the LOST/LOST_SAMPLES/THROTTLE/
 * AUX counts add up.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <sys/mman.h>

#include "base/err.h"
#include "pmu/sampling-internal.h"

#define ID_SIZE 32

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static size_t header(uint8_t *r, uint32_t type, uint16_t misc, size_t size)
{
	uint16_t s = (uint16_t)size;

	memset(r, 0, size);
	put32(r, type);
	memcpy(r + 4, &misc, 2);
	memcpy(r + 6, &s, 2);
	return size;
}

/* MMAP2 {pid, tid, addr, len, pgoff, ids or build-id, prot, flags, name} + sample_id with time t. */
static size_t mmap2(uint8_t *r, uint32_t pid, uint64_t start, uint64_t len, const char *name, uint64_t t,
		    const uint8_t *bid)
{
	size_t n = 72 + (strlen(name) + 8) / 8 * 8 + ID_SIZE;

	header(r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | (bid ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0), n);
	put32(r + 8, pid);
	put32(r + 12, pid);
	put64(r + 16, start);
	put64(r + 24, len);
	if (bid) {
		r[40] = 20;
		memcpy(r + 44, bid, 20);
	}
	put32(r + 64, PROT_READ | PROT_EXEC);
	put32(r + 68, MAP_PRIVATE);
	memcpy(r + 72, name, strlen(name));
	put64(r + n - 24, t); /* sample_id: TID, TIME, CPU, IDENTIFIER */
	return n;
}

static size_t comm_exec(uint8_t *r, uint32_t pid, uint64_t t)
{
	size_t n = 16 + 8 + ID_SIZE;

	header(r, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, n);
	put32(r + 8, pid);
	put32(r + 12, pid);
	memcpy(r + 16, "app", 3);
	put64(r + n - 24, t);
	return n;
}

static size_t fork_rec(uint8_t *r, uint32_t pid, uint32_t ppid, uint64_t t)
{
	size_t n = 8 + 24 + ID_SIZE;

	header(r, PERF_RECORD_FORK, 0, n);
	put32(r + 8, pid);
	put32(r + 12, ppid);
	put32(r + 16, pid);
	put32(r + 20, ppid);
	put64(r + 24, t);
	put64(r + n - 24, t);
	return n;
}

/* SAMPLE {identifier, ip, pid/tid, time, cpu, period} [+ branch stack of nr {from,to,flags}] */
static size_t sample(uint8_t *r, bool kernel, uint32_t pid, uint64_t ip, uint64_t t, const uint64_t *br, size_t nr,
		     bool hw_index)
{
	size_t n = 56 + (br ? 8 + (hw_index ? 8 : 0) + nr * 24 : 0), off = 64;

	header(r, PERF_RECORD_SAMPLE, kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER, n);
	put64(r + 16, ip);
	put32(r + 24, pid);
	put32(r + 28, pid);
	put64(r + 32, t);
	put64(r + 48, 1000);
	if (br) {
		put64(r + 56, nr);
		if (hw_index) {
			put64(r + 64, 7);
			off = 72;
		}
		for (size_t i = 0; i < nr; i++) {
			put64(r + off + i * 24, br[2 * i]);
			put64(r + off + i * 24 + 8, br[2 * i + 1]);
		}
	}
	return n;
}

static uint64_t hits_of(const struct pmu_dso_hit *h, size_t nr, const char *name)
{
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(h[i].filename, name))
			return h[i].hits;
	return 0;
}

static void init(struct pmu_sampling *s, uint64_t branch_sample_type)
{
	memset(s, 0, sizeof(*s));
	s->id_size = ID_SIZE;
	s->branch_sample_type = branch_sample_type;
}

static void test_branch_stack_samples_hit_every_address(void **state)
{
	struct pmu_sampling s;
	uint8_t r[1024];
	const struct pmu_dso_hit *h;
	size_t nr;
	/* two entries: app -> lib, lib -> app */
	const uint64_t br[4] = { 0x1100, 0x5100, 0x5200, 0x1200 };

	(void)state;
	for (int hw = 0; hw < 2; hw++) {
		init(&s, PERF_SAMPLE_BRANCH_ANY | (hw ? PMU_BRANCH_HW_INDEX : 0));
		assert_int_equal(smp_track(&s, r, mmap2(r, 10, 0x1000, 0x1000, "/nonexistent/app", 1, NULL)), 0);
		assert_int_equal(smp_track(&s, r, mmap2(r, 10, 0x5000, 0x1000, "/nonexistent/lib.so", 2, NULL)), 0);
		assert_int_equal(smp_track(&s, r, sample(r, false, 10, 0x1180, 3, br, 2, hw)), 0);
		assert_int_equal(smp_dsos_round(&s.dsos, true), 0);
		assert_int_equal(s.st.samples, 1);
		assert_int_equal(s.st.branch_entries, 2);
		assert_int_equal(smp_dsos_result(&s.dsos, &h, &nr, NULL), 0);
		assert_int_equal(nr, 2);
		/* the IP and two branch ends in app, two ends in lib */
		assert_int_equal(hits_of(h, nr, "/nonexistent/app"), 3);
		assert_int_equal(hits_of(h, nr, "/nonexistent/lib.so"), 2);
		assert_string_equal(h[0].filename, "/nonexistent/app"); /* most hit first */
		assert_int_equal(h[0].build_id_size, 0);                 /* no file to read it from */
		smp_dsos_release(&s.dsos);
	}
}

static void test_a_truncated_branch_stack_is_ignored(void **state)
{
	struct pmu_sampling s;
	uint8_t r[1024];
	const uint64_t br[4] = { 0x1100, 0x1200, 0x1300, 0x1400 };
	size_t n;

	(void)state;
	init(&s, PERF_SAMPLE_BRANCH_ANY);
	n = sample(r, false, 10, 0x1180, 3, br, 2, false);
	put64(r + 56, 1000); /* claims 1000 entries in a record that holds 2 */
	assert_int_equal(smp_track(&s, r, n), 0);
	assert_int_equal(s.st.samples, 1);
	assert_int_equal(s.st.branch_entries, 0);
	smp_dsos_release(&s.dsos);
}

static void test_records_out_of_order_are_applied_in_time_order(void **state)
{
	struct pmu_sampling s;
	uint8_t r[1024];
	const struct pmu_dso_hit *h;
	size_t nr;

	(void)state;
	init(&s, 0);
	/*
	 * CPU 0's ring holds the new image's mappings and samples; CPU 1's holds
	 * the exec that came before them (t=5). Read ring 0 first: without time
	 * order the exec would wipe the mappings it created.
	 */
	assert_int_equal(smp_track(&s, r, mmap2(r, 20, 0x1000, 0x1000, "/nonexistent/new", 10, NULL)), 0);
	assert_int_equal(smp_track(&s, r, sample(r, false, 20, 0x1100, 20, NULL, 0, false)), 0);
	assert_int_equal(smp_track(&s, r, comm_exec(r, 20, 5)), 0);
	assert_int_equal(smp_dsos_round(&s.dsos, false), 0);
	/* first pass: nothing was older than the previous pass (none): all wait */
	assert_int_equal(s.dsos.nr_q, 3);
	/* second pass: a mapping read late from another ring, older than pass 1's newest */
	assert_int_equal(smp_track(&s, r, mmap2(r, 20, 0x3000, 0x1000, "/nonexistent/late", 15, NULL)), 0);
	assert_int_equal(smp_track(&s, r, sample(r, false, 20, 0x3100, 30, NULL, 0, false)), 0);
	assert_int_equal(smp_dsos_round(&s.dsos, false), 0);
	/* applied up to pass 1's newest (20): exec, new, late, the first sample; the t=30 sample waits */
	assert_int_equal(s.dsos.nr_q, 1);
	assert_int_equal(smp_dsos_round(&s.dsos, true), 0);
	assert_int_equal(s.dsos.nr_q, 0);
	assert_int_equal(smp_dsos_result(&s.dsos, &h, &nr, NULL), 0);
	assert_int_equal(hits_of(h, nr, "/nonexistent/new"), 1);
	assert_int_equal(hits_of(h, nr, "/nonexistent/late"), 1);
	smp_dsos_release(&s.dsos);
}

/* A run whose workload never ran (its exec was refused) queues nothing: rounds on the empty queue. */
static void test_rounds_of_nothing(void **state)
{
	struct pmu_sampling s;
	const struct pmu_dso_hit *h;
	size_t nr = 1;

	(void)state;
	init(&s, 0);
	assert_int_equal(s.dsos.nr_q, 0);
	assert_int_equal(smp_dsos_round(&s.dsos, false), 0);
	assert_int_equal(smp_dsos_round(&s.dsos, true), 0);
	assert_int_equal(smp_dsos_result(&s.dsos, &h, &nr, NULL), 0);
	assert_int_equal(nr, 0);
	smp_dsos_release(&s.dsos);
}

static void test_children_see_their_parent_until_exec(void **state)
{
	struct pmu_sampling s;
	uint8_t r[1024];
	const struct pmu_dso_hit *h;
	size_t nr;

	(void)state;
	init(&s, 0);
	assert_int_equal(smp_track(&s, r, mmap2(r, 10, 0x1000, 0x1000, "/nonexistent/parent", 1, NULL)), 0);
	assert_int_equal(smp_track(&s, r, fork_rec(r, 11, 10, 2)), 0);
	assert_int_equal(smp_track(&s, r, fork_rec(r, 12, 11, 3)), 0); /* a grandchild */
	assert_int_equal(smp_track(&s, r, sample(r, false, 11, 0x1100, 4, NULL, 0, false)), 0);
	assert_int_equal(smp_track(&s, r, sample(r, false, 12, 0x1100, 5, NULL, 0, false)), 0);
	/* the child execs: the parent's image is no longer its own */
	assert_int_equal(smp_track(&s, r, comm_exec(r, 11, 6)), 0);
	assert_int_equal(smp_track(&s, r, sample(r, false, 11, 0x1100, 7, NULL, 0, false)), 0);
	assert_int_equal(smp_dsos_round(&s.dsos, true), 0);
	assert_int_equal(smp_dsos_result(&s.dsos, &h, &nr, NULL), 0);
	assert_int_equal(hits_of(h, nr, "/nonexistent/parent"), 2);
	smp_dsos_release(&s.dsos);
}

static void test_kernel_and_build_ids(void **state)
{
	struct pmu_sampling s;
	uint8_t r[1024], bid[20];
	const struct pmu_dso_hit *h;
	size_t nr, n;

	(void)state;
	for (int i = 0; i < 20; i++)
		bid[i] = (uint8_t)(0x10 + i);
	init(&s, 0);
	n = pmu_synth_kernel_mmap(r, sizeof(r), 0xffffffff81000000ull, 0xffffffff82000000ull, ID_SIZE);
	assert_int_equal(smp_track(&s, r, n), 0);
	assert_int_equal(smp_track(&s, r, mmap2(r, 10, 0x1000, 0x1000, "/nonexistent/withid", 1, bid)), 0);
	assert_true(s.st.build_id_mmap);
	assert_int_equal(smp_track(&s, r, sample(r, true, 10, 0xffffffff81001000ull, 2, NULL, 0, false)), 0);
	/* a kernel IP outside _text.._etext (a module) is still the kernel's */
	assert_int_equal(smp_track(&s, r, sample(r, true, 10, 0xffffffffc0001000ull, 3, NULL, 0, false)), 0);
	assert_int_equal(smp_track(&s, r, sample(r, false, 10, 0x1010, 4, NULL, 0, false)), 0);
	/* a user sample outside every mapping hits nothing */
	assert_int_equal(smp_track(&s, r, sample(r, false, 10, 0x9000, 5, NULL, 0, false)), 0);
	assert_int_equal(smp_dsos_round(&s.dsos, true), 0);
	assert_int_equal(smp_dsos_result(&s.dsos, &h, &nr, NULL), 0);
	assert_int_equal(nr, 2);
	assert_string_equal(h[0].filename, "[kernel.kallsyms]");
	assert_true(h[0].kernel);
	assert_int_equal(h[0].hits, 2);
	assert_string_equal(h[1].filename, "/nonexistent/withid");
	assert_false(h[1].kernel);
	assert_int_equal(h[1].build_id_size, 20);
	assert_memory_equal(h[1].build_id, bid, 20);
	smp_dsos_release(&s.dsos);
}

static void test_loss_and_other_counts(void **state)
{
	struct pmu_sampling s;
	uint8_t r[256];

	(void)state;
	init(&s, 0);
	header(r, PERF_RECORD_LOST, 0, 24 + ID_SIZE);
	put64(r + 16, 123);
	assert_int_equal(smp_track(&s, r, 24 + ID_SIZE), 0);
	header(r, PERF_RECORD_LOST, 0, 24 + ID_SIZE);
	put64(r + 16, 7);
	assert_int_equal(smp_track(&s, r, 24 + ID_SIZE), 0);
	header(r, PERF_RECORD_LOST_SAMPLES, 0, 16 + ID_SIZE);
	put64(r + 8, 5);
	assert_int_equal(smp_track(&s, r, 16 + ID_SIZE), 0);
	header(r, PERF_RECORD_THROTTLE, 0, 32 + ID_SIZE);
	assert_int_equal(smp_track(&s, r, 32 + ID_SIZE), 0);
	header(r, PERF_RECORD_AUX, 0, 32 + ID_SIZE);
	put64(r + 24, PERF_AUX_FLAG_TRUNCATED);
	assert_int_equal(smp_track(&s, r, 32 + ID_SIZE), 0);
	header(r, PERF_RECORD_AUX, 0, 32 + ID_SIZE);
	put64(r + 24, PERF_AUX_FLAG_PARTIAL);
	assert_int_equal(smp_track(&s, r, 32 + ID_SIZE), 0);
	assert_int_equal(s.st.lost, 130);
	assert_int_equal(s.st.lost_records, 2);
	assert_int_equal(s.st.lost_samples, 5);
	assert_int_equal(s.st.throttled, 1);
	assert_int_equal(s.st.aux_truncated, 1);
	/* records too short for their type are counted, never read past */
	header(r, PERF_RECORD_LOST, 0, 16);
	assert_int_equal(smp_track(&s, r, 16), 0);
	assert_int_equal(s.st.lost_records, 2);
	header(r, PERF_RECORD_MMAP2, 0, 40);
	assert_int_equal(smp_track(&s, r, 40), 0);
	assert_int_equal(s.dsos.nr_q, 0);
	smp_dsos_release(&s.dsos);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_branch_stack_samples_hit_every_address),
		cmocka_unit_test(test_a_truncated_branch_stack_is_ignored),
		cmocka_unit_test(test_records_out_of_order_are_applied_in_time_order),
		cmocka_unit_test(test_rounds_of_nothing),
		cmocka_unit_test(test_children_see_their_parent_until_exec),
		cmocka_unit_test(test_kernel_and_build_ids),
		cmocka_unit_test(test_loss_and_other_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
