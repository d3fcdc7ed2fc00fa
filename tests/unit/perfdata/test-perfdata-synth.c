/*
 * test-perfdata-synth: perf.data images built byte by byte in the test, with
 * values chosen by hand, for what the real recordings do not cover: every sample
 * field in perf's parse order, every branch flag, several attrs told apart by
 * IDENTIFIER or ID, sample_id trailers, attr sizes from 64 to future ones, the
 * record types with payloads, pipe-mode header records, and the error paths.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "base/err.h"
#include "perfdata/perfdata.h"

#include <inttypes.h>
#include <string.h>

/* ---- an image builder ---- */

struct img {
	uint8_t *p;
	size_t len, alloc;
};

static void put(struct img *m, const void *d, size_t n)
{
	if (TDP_GROW(m->p, m->alloc, m->len + n + 1))
		fail_msg("out of memory");
	memcpy(m->p + m->len, d, n);
	m->len += n;
}

static void u64(struct img *m, uint64_t v) { put(m, &v, 8); }
static void u32(struct img *m, uint32_t v) { put(m, &v, 4); }
static void u16(struct img *m, uint16_t v) { put(m, &v, 2); }
static void u8(struct img *m, uint8_t v) { put(m, &v, 1); }
static void u32x2(struct img *m, uint32_t a, uint32_t b) { u32(m, a); u32(m, b); }

static void zeros(struct img *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		u8(m, 0);
}

/* Start a record; rec_end() fills in its size. */
static size_t rec_begin(struct img *m, uint32_t type, uint16_t misc)
{
	size_t at = m->len;

	u32(m, type);
	u16(m, misc);
	u16(m, 0);
	return at;
}

static void rec_end(struct img *m, size_t at)
{
	uint16_t size = (uint16_t)(m->len - at);

	memcpy(m->p + at + 6, &size, 2);
}

struct attr_spec {
	uint32_t type, size;
	uint64_t config, sample_type, read_format, flags, branch_sample_type;
	uint64_t regs_user, regs_intr;
};

static void put_attr(struct img *m, const struct attr_spec *s, size_t room)
{
	uint8_t a[512] = { 0 };

	memcpy(a, &s->type, 4);
	memcpy(a + 4, &s->size, 4);
	memcpy(a + 8, &s->config, 8);
	memcpy(a + 24, &s->sample_type, 8);
	memcpy(a + 32, &s->read_format, 8);
	memcpy(a + 40, &s->flags, 8);
	if (room >= 80)
		memcpy(a + 72, &s->branch_sample_type, 8);
	if (room >= 88)
		memcpy(a + 80, &s->regs_user, 8);
	if (room >= 104)
		memcpy(a + 96, &s->regs_intr, 8);
	put(m, a, room);
}

/* A pipe-mode image: {magic, 16} then one HEADER_ATTR per spec. */
static void pipe_begin(struct img *m, const struct attr_spec *specs, size_t nr,
		       const uint64_t *const *ids, const size_t *nr_ids)
{
	u64(m, 0x32454c4946524550ull);
	u64(m, 16);
	for (size_t i = 0; i < nr; i++) {
		size_t r = rec_begin(m, PERFDATA_RECORD_HEADER_ATTR, 0);

		put_attr(m, &specs[i], specs[i].size);
		for (size_t k = 0; ids && k < nr_ids[i]; k++)
			u64(m, ids[i][k]);
		rec_end(m, r);
	}
}

static struct perfdata *open_ok(struct img *m)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct perfdata *p = NULL;

	if (perfdata_open(&p, m->p, m->len, "synth", 0, &err))
		fail_msg("%s", err.msg);
	return p;
}

static void next_ok(struct perfdata *p, struct perfdata_record *r)
{
	struct tdp_err err = TDP_ERR_INIT;
	int ret = perfdata_next(p, r, &err);

	if (ret != 1)
		fail_msg("perfdata_next: %d %s", ret, err.msg);
}

/* Open and read everything; return the error code and keep the message. */
static int read_all(struct img *m, unsigned flags, struct tdp_err *err)
{
	struct perfdata *p = NULL;
	struct perfdata_record r;
	int ret = perfdata_open(&p, m->p, m->len, "synth", flags, err);

	while (!ret && (ret = perfdata_next(p, &r, err)) > 0)
		ret = 0;
	perfdata_close(p);
	return ret;
}

#define ST_ALL (PERFDATA_SAMPLE_IDENTIFIER | PERFDATA_SAMPLE_IP | PERFDATA_SAMPLE_TID |        \
		PERFDATA_SAMPLE_TIME | PERFDATA_SAMPLE_ADDR | PERFDATA_SAMPLE_ID |                 \
		PERFDATA_SAMPLE_STREAM_ID | PERFDATA_SAMPLE_CPU | PERFDATA_SAMPLE_PERIOD |         \
		PERFDATA_SAMPLE_READ | PERFDATA_SAMPLE_CALLCHAIN | PERFDATA_SAMPLE_RAW |           \
		PERFDATA_SAMPLE_BRANCH_STACK | PERFDATA_SAMPLE_REGS_USER |                         \
		PERFDATA_SAMPLE_STACK_USER | PERFDATA_SAMPLE_WEIGHT_STRUCT |                       \
		PERFDATA_SAMPLE_DATA_SRC | PERFDATA_SAMPLE_TRANSACTION | PERFDATA_SAMPLE_REGS_INTR | \
		PERFDATA_SAMPLE_PHYS_ADDR | PERFDATA_SAMPLE_AUX | PERFDATA_SAMPLE_CGROUP |         \
		PERFDATA_SAMPLE_DATA_PAGE_SIZE | PERFDATA_SAMPLE_CODE_PAGE_SIZE)

/* Every sample field, in evsel__parse_sample()'s order, with distinct values. */
static void all_fields(void **state)
{
	struct attr_spec s = {
		.type = 4, .size = 136, .config = 0xc4, .sample_type = ST_ALL,
		.read_format = PERFDATA_FORMAT_GROUP | PERFDATA_FORMAT_TOTAL_TIME_ENABLED |
			       PERFDATA_FORMAT_ID | PERFDATA_FORMAT_LOST,
		.flags = PERFDATA_ATTR_FLAG_SAMPLE_ID_ALL,
		.branch_sample_type = PERFDATA_BRANCH_ANY | PERFDATA_BRANCH_HW_INDEX |
				      PERFDATA_BRANCH_COUNTERS,
		.regs_user = 0xb,  /* 3 registers */
		.regs_intr = 0x3,  /* 2 registers */
	};
	static const uint64_t ids0[] = { 42 };
	const uint64_t *ids[] = { ids0 };
	size_t nr_ids[] = { 1 };
	struct img m = { 0 };
	struct perfdata_record r;
	struct perfdata *p;
	const struct perfdata_sample *x;
	size_t at;

	(void)state;
	pipe_begin(&m, &s, 1, ids, nr_ids);
	at = rec_begin(&m, PERFDATA_RECORD_SAMPLE, PERFDATA_MISC_USER);
	u64(&m, 42);                 /* IDENTIFIER */
	u64(&m, 0x401000);           /* IP */
	u32x2(&m, 100, 101);         /* TID */
	u64(&m, 123456789);          /* TIME */
	u64(&m, 0xdead0000);         /* ADDR */
	u64(&m, 42);                 /* ID */
	u64(&m, 43);                 /* STREAM_ID */
	u32x2(&m, 3, 0);             /* CPU */
	u64(&m, 5000);               /* PERIOD */
	u64(&m, 2);                  /* READ: nr */
	u64(&m, 777);                /*   time_enabled */
	u64(&m, 11); u64(&m, 42); u64(&m, 0);  /* value, id, lost */
	u64(&m, 12); u64(&m, 44); u64(&m, 1);
	u64(&m, 3);                  /* CALLCHAIN: nr */
	u64(&m, (uint64_t)-512); u64(&m, 0x401000); u64(&m, 0x402000);
	u32(&m, 12);                 /* RAW: size 12, so that 4 + 12 fill two words */
	put(&m, "raw-payload!", 12);
	u64(&m, 2);                  /* BRANCH_STACK: nr */
	u64(&m, 7);                  /*   hw_idx */
	u64(&m, 0x401010); u64(&m, 0x401020); u64(&m, 0x1);       /* mispred */
	u64(&m, 0x401030); u64(&m, 0x401040); u64(&m, 0x8BF0000C);
	u64(&m, 0x1111); u64(&m, 0x2222);                         /*   counters */
	u64(&m, 2);                  /* REGS_USER: abi 64 */
	u64(&m, 0xa); u64(&m, 0xb); u64(&m, 0xc);
	u64(&m, 16);                 /* STACK_USER: size */
	put(&m, "0123456789abcdef", 16);
	u64(&m, 8);                  /*   dyn_size */
	u64(&m, 0x0003000200000001ull); /* WEIGHT_STRUCT: var1 1, var2 2, var3 3 */
	u64(&m, 0x5a);               /* DATA_SRC */
	u64(&m, 0x6b);               /* TRANSACTION */
	u64(&m, 2);                  /* REGS_INTR */
	u64(&m, 0xd); u64(&m, 0xe);
	u64(&m, 0x7c000);            /* PHYS_ADDR */
	u64(&m, 99);                 /* CGROUP */
	u64(&m, 4096);               /* DATA_PAGE_SIZE */
	u64(&m, 2097152);            /* CODE_PAGE_SIZE */
	u64(&m, 8);                  /* AUX: size */
	put(&m, "auxdata!", 8);
	rec_end(&m, at);

	p = open_ok(&m);
	assert_true(perfdata_is_pipe(p));
	assert_int_equal(perfdata_nr_attrs(p), 1);
	assert_int_equal(perfdata_attr(p, 0)->size, 136);
	assert_int_equal(perfdata_attr(p, 0)->sample_regs_user, 0xb);
	assert_int_equal(perfdata_attr(p, 0)->sample_regs_intr, 0x3);
	next_ok(p, &r); /* the HEADER_ATTR record itself */
	assert_int_equal(r.type, PERFDATA_RECORD_HEADER_ATTR);
	next_ok(p, &r);
	assert_int_equal(r.type, PERFDATA_RECORD_SAMPLE);
	assert_ptr_equal(r.attr, perfdata_attr(p, 0));
	x = &r.u.sample;
	assert_int_equal(x->fields, ST_ALL);
	assert_int_equal(x->id, 42);
	assert_int_equal(x->ip, 0x401000);
	assert_int_equal(x->pid, 100);
	assert_int_equal(x->tid, 101);
	assert_int_equal(x->time, 123456789);
	assert_int_equal(x->addr, 0xdead0000);
	assert_int_equal(x->stream_id, 43);
	assert_int_equal(x->cpu, 3);
	assert_int_equal(x->period, 5000);
	assert_int_equal(x->read_len, 8 * 8); /* nr, enabled, 2 x 3 */
	assert_int_equal(x->nr_callchain, 3);
	assert_int_equal(x->callchain[0], (uint64_t)-512);
	assert_int_equal(x->callchain[2], 0x402000);
	assert_int_equal(x->raw_size, 12);
	assert_memory_equal(x->raw, "raw-payload!", 12);
	assert_int_equal(x->nr_branches, 2);
	assert_true(x->has_hw_idx);
	assert_int_equal(x->hw_idx, 7);
	assert_int_equal(x->branches[0].from, 0x401010);
	assert_int_equal(x->branches[0].to, 0x401020);
	assert_true(x->branches[0].mispred);
	assert_false(x->branches[0].predicted);
	assert_int_equal(x->branches[1].type, BRANCH_TYPE_EXTEND_ABI);
	assert_non_null(x->branch_counters);
	assert_int_equal(x->branch_counters[0], 0x1111);
	assert_int_equal(x->branch_counters[1], 0x2222);
	assert_int_equal(x->regs_user_abi, 2);
	assert_int_equal(x->nr_regs_user, 3);
	assert_memory_equal(x->regs_user + 16, &(uint64_t){ 0xc }, 8);
	assert_int_equal(x->stack_user_size, 16);
	assert_memory_equal(x->stack_user, "0123456789abcdef", 16);
	assert_int_equal(x->stack_user_dyn_size, 8);
	assert_int_equal(x->weight_var1, 1);
	assert_int_equal(x->weight_var2, 2);
	assert_int_equal(x->weight_var3, 3);
	assert_int_equal(x->data_src, 0x5a);
	assert_int_equal(x->transaction, 0x6b);
	assert_int_equal(x->nr_regs_intr, 2);
	assert_memory_equal(x->regs_intr + 8, &(uint64_t){ 0xe }, 8);
	assert_int_equal(x->phys_addr, 0x7c000);
	assert_int_equal(x->cgroup, 99);
	assert_int_equal(x->data_page_size, 4096);
	assert_int_equal(x->code_page_size, 2097152);
	assert_int_equal(x->aux_size, 8);
	assert_memory_equal(x->aux, "auxdata!", 8);
	assert_int_equal(perfdata_next(p, &r, NULL), 0);
	assert_int_equal(perfdata_stats(p)->samples, 1);
	perfdata_close(p);
	tdp_free(m.p);
}

/*
 * The flags word (bit numbers from include/uapi/linux/perf_event.h), worked by
 * hand: in_tx 1<<2 = 0x4, abort 1<<3 = 0x8, type 15<<20 = 0xf00000, spec 3<<24 =
 * 0x3000000, new_type 2<<26 = 0x8000000, priv 2<<30 = 0x80000000: 0x8bf0000c.
 */
static void branch_flags(void **state)
{
	struct branch_entry e;

	(void)state;
	perfdata_branch_flags_decode(0x1, &e);
	assert_true(e.mispred);
	assert_false(e.predicted || e.in_tx || e.abort);
	assert_int_equal(e.cycles, 0);

	perfdata_branch_flags_decode(0x2012, &e); /* predicted | 513 << 4 */
	assert_true(e.predicted);
	assert_false(e.mispred);
	assert_int_equal(e.cycles, 513);

	perfdata_branch_flags_decode(0xffff0, &e);
	assert_int_equal(e.cycles, 65535);
	assert_int_equal(e.type, 0);

	perfdata_branch_flags_decode(0x8bf0000c, &e);
	assert_true(e.in_tx);
	assert_true(e.abort);
	assert_false(e.mispred || e.predicted);
	assert_int_equal(e.type, BRANCH_TYPE_EXTEND_ABI);
	assert_int_equal(e.spec, BRANCH_SPEC_CORRECT_PATH);
	assert_int_equal(e.new_type, BRANCH_NEW_FAULT_INST);
	assert_int_equal(e.priv, BRANCH_PRIV_KERNEL);
	assert_int_equal(perfdata_branch_flags_encode(&e), 0x8bf0000c);
	assert_string_equal(perfdata_branch_type_name(e.type, e.new_type), "FAULT_INST");

	/* type 5 = IND_CALL, spec 2 = NON_SPEC_CORRECT_PATH (AMD LbrExtV2), priv 1 = user */
	perfdata_branch_flags_decode((5ull << 20) | (2ull << 24) | (1ull << 30), &e);
	assert_string_equal(perfdata_branch_type_name(e.type, e.new_type), "IND_CALL");
	assert_string_equal(perfdata_branch_spec_name(e.spec), "NON_SPEC_CORRECT_PATH");
	assert_int_equal(e.priv, BRANCH_PRIV_USER);
	assert_string_equal(perfdata_branch_type_name(0, 0), "");
	assert_string_equal(perfdata_branch_spec_name(0), "-");

	/* bits 33..63 are reserved: decode ignores them, encode never sets them */
	perfdata_branch_flags_decode(0xfffffffe00000000ull | 0x3, &e);
	assert_int_equal(perfdata_branch_flags_encode(&e), 0x3);
}

/* Two attrs told apart by IDENTIFIER, in samples and in sample_id trailers. */
static void identifier(void **state)
{
	struct attr_spec s[2] = {
		{ .size = 128, .sample_type = PERFDATA_SAMPLE_IDENTIFIER | PERFDATA_SAMPLE_IP |
			PERFDATA_SAMPLE_TID | PERFDATA_SAMPLE_TIME,
		  .flags = PERFDATA_ATTR_FLAG_SAMPLE_ID_ALL },
		{ .size = 128, .sample_type = PERFDATA_SAMPLE_IDENTIFIER | PERFDATA_SAMPLE_IP |
			PERFDATA_SAMPLE_TID | PERFDATA_SAMPLE_TIME | PERFDATA_SAMPLE_PERIOD,
		  .flags = PERFDATA_ATTR_FLAG_SAMPLE_ID_ALL },
	};
	static const uint64_t a_ids[] = { 100, 101 }, b_ids[] = { 200 };
	const uint64_t *ids[] = { a_ids, b_ids };
	size_t nr_ids[] = { 2, 1 };
	struct img m = { 0 };
	struct perfdata_record r;
	struct perfdata *p;
	size_t at;

	(void)state;
	pipe_begin(&m, s, 2, ids, nr_ids);
	at = rec_begin(&m, PERFDATA_RECORD_SAMPLE, 0);
	u64(&m, 101); u64(&m, 0x1000); u32x2(&m, 1, 2); u64(&m, 10);
	rec_end(&m, at);
	at = rec_begin(&m, PERFDATA_RECORD_SAMPLE, 0);
	u64(&m, 200); u64(&m, 0x2000); u32x2(&m, 3, 4); u64(&m, 20); u64(&m, 999);
	rec_end(&m, at);
	at = rec_begin(&m, PERFDATA_RECORD_SAMPLE, 0); /* an id no attr has */
	u64(&m, 555); u64(&m, 0x3000); u32x2(&m, 5, 6); u64(&m, 30);
	rec_end(&m, at);
	/* COMM with a trailer {pid,tid}, time, identifier, read from its end */
	at = rec_begin(&m, PERFDATA_RECORD_COMM, PERFDATA_MISC_COMM_EXEC);
	u32x2(&m, 7, 8);
	put(&m, "worker\0\0", 8);
	u32x2(&m, 7, 8); u64(&m, 40); u64(&m, 200);
	rec_end(&m, at);

	p = open_ok(&m);
	assert_int_equal(perfdata_nr_attrs(p), 2);
	next_ok(p, &r);
	next_ok(p, &r);
	assert_int_equal(r.type, PERFDATA_RECORD_HEADER_ATTR);
	next_ok(p, &r);
	assert_ptr_equal(r.attr, perfdata_attr(p, 0));
	assert_int_equal(r.u.sample.ip, 0x1000);
	next_ok(p, &r);
	assert_ptr_equal(r.attr, perfdata_attr(p, 1));
	assert_int_equal(r.u.sample.period, 999);
	assert_int_equal(r.u.sample.tid, 4);
	next_ok(p, &r);
	assert_null(r.attr);
	assert_int_equal(perfdata_stats(p)->unknown_id, 1);
	next_ok(p, &r);
	assert_int_equal(r.type, PERFDATA_RECORD_COMM);
	assert_ptr_equal(r.attr, perfdata_attr(p, 1));
	assert_int_equal(r.sid.fields, PERFDATA_SAMPLE_IDENTIFIER | PERFDATA_SAMPLE_TID |
			 PERFDATA_SAMPLE_TIME);
	assert_int_equal(r.sid.time, 40);
	assert_int_equal(r.sid.id, 200);
	assert_int_equal(r.sid.tid, 8);
	assert_int_equal(r.u.comm.pid, 7);
	assert_int_equal(r.u.comm.comm.len, 6);
	assert_memory_equal(r.u.comm.comm.s, "worker", 6);
	assert_int_equal(perfdata_next(p, &r, NULL), 0);
	perfdata_close(p);
	tdp_free(m.p);
}

/* Without IDENTIFIER: ID at the same place in both (IP, TID, ID: position 2). */
static void id_position(void **state)
{
	struct attr_spec s[2] = {
		{ .size = 96, .sample_type = PERFDATA_SAMPLE_IP | PERFDATA_SAMPLE_TID | PERFDATA_SAMPLE_ID },
		{ .size = 96, .sample_type = PERFDATA_SAMPLE_IP | PERFDATA_SAMPLE_TID | PERFDATA_SAMPLE_ID |
			PERFDATA_SAMPLE_CPU },
	};
	static const uint64_t a_ids[] = { 5 }, b_ids[] = { 6 };
	const uint64_t *ids[] = { a_ids, b_ids };
	size_t nr_ids[] = { 1, 1 };
	struct img m = { 0 };
	struct perfdata_record r;
	struct perfdata *p;
	size_t at;

	(void)state;
	pipe_begin(&m, s, 2, ids, nr_ids);
	at = rec_begin(&m, PERFDATA_RECORD_SAMPLE, 0);
	u64(&m, 0xa); u32x2(&m, 1, 1); u64(&m, 6); u32x2(&m, 9, 0);
	rec_end(&m, at);
	p = open_ok(&m);
	next_ok(p, &r);
	next_ok(p, &r);
	next_ok(p, &r);
	assert_ptr_equal(r.attr, perfdata_attr(p, 1));
	assert_int_equal(r.u.sample.cpu, 9);
	perfdata_close(p);
	tdp_free(m.p);

	/* an attr without any id cannot be told apart from the first: refused */
	s[1].sample_type = PERFDATA_SAMPLE_IP;
	memset(&m, 0, sizeof(m));
	pipe_begin(&m, s, 2, ids, nr_ids);
	{
		struct tdp_err err = TDP_ERR_INIT;

		assert_int_equal(read_all(&m, 0, &err), TDP_EFORMAT);
		assert_non_null(strstr(err.msg, "cannot be told apart"));
		assert_non_null(strstr(err.msg, "offset 0x"));
	}
	tdp_free(m.p);
}

/*
 * File mode with every attr size perf has used (VER0 64 .. VER8 136) and a
 * future one (200): the header's attr_size is size + 16 and the ids follow.
 */
static void file_image(struct img *m, uint32_t size, const struct attr_spec *s, uint64_t id)
{
	uint64_t ids_off = 104, attrs_off = 112, data_off = attrs_off + size + 16;
	size_t at;

	u64(m, 0x32454c4946524550ull);
	u64(m, 104);
	u64(m, size + 16);
	u64(m, attrs_off); u64(m, size + 16);
	u64(m, data_off); u64(m, 0); /* data size filled below */
	u64(m, 0); u64(m, 0);
	zeros(m, 32);
	u64(m, id);            /* the ids array at 104 */
	put_attr(m, s, size);  /* the attrs at 112 */
	u64(m, ids_off); u64(m, 8);
	at = rec_begin(m, PERFDATA_RECORD_SAMPLE, 0);
	u64(m, 0xabc); u64(m, id);
	rec_end(m, at);
	{
		uint64_t dsize = m->len - data_off;

		memcpy(m->p + 48, &dsize, 8);
	}
}

static void attr_sizes(void **state)
{
	static const uint32_t sizes[] = { 64, 72, 80, 96, 104, 112, 120, 128, 136, 200, 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct attr_spec s = { .type = 1, .size = sizes[i], .config = 9,
				       .sample_type = PERFDATA_SAMPLE_IP | PERFDATA_SAMPLE_ID };
		struct img m = { 0 };
		struct perfdata_record r;
		struct perfdata *p;

		file_image(&m, sizes[i] ? sizes[i] : 64, &s, 77);
		p = open_ok(&m);
		assert_false(perfdata_is_pipe(p));
		assert_int_equal(perfdata_attr(p, 0)->size, sizes[i] ? sizes[i] : 64);
		assert_int_equal(perfdata_attr(p, 0)->config, 9);
		assert_int_equal(perfdata_attr(p, 0)->ids[0], 77);
		next_ok(p, &r);
		assert_int_equal(r.u.sample.ip, 0xabc);
		assert_int_equal(r.u.sample.id, 77);
		assert_int_equal(perfdata_next(p, &r, NULL), 0);
		perfdata_close(p);
		tdp_free(m.p);
	}
}

/* Non-sample records: their bodies, payloads and the counters they feed. */
static void record_types(void **state)
{
	struct attr_spec s = { .size = 128, .sample_type = PERFDATA_SAMPLE_IP };
	struct img m = { 0 };
	struct perfdata_record r;
	struct perfdata *p;
	size_t at;

	(void)state;
	pipe_begin(&m, &s, 1, NULL, NULL);
	at = rec_begin(&m, PERFDATA_RECORD_MMAP2, PERFDATA_MISC_USER | PERFDATA_MISC_MMAP_BUILD_ID);
	u32x2(&m, 10, 11); u64(&m, 0x400000); u64(&m, 0x1000); u64(&m, 0x200);
	u8(&m, 20); u8(&m, 0); u16(&m, 0);
	for (uint8_t i = 0; i < 20; i++)
		u8(&m, (uint8_t)(0xa0 + i));
	u32x2(&m, 5, 2); /* prot, flags */
	put(&m, "/bin/app\0\0\0\0\0\0\0\0", 16);
	rec_end(&m, at);
	at = rec_begin(&m, PERFDATA_RECORD_MMAP2, PERFDATA_MISC_USER);
	u32x2(&m, 10, 11); u64(&m, 0x500000); u64(&m, 0x2000); u64(&m, 0);
	u32x2(&m, 8, 1); u64(&m, 1234); u64(&m, 1);
	u32x2(&m, 5, 2);
	put(&m, "/lib/x.so\0\0\0\0\0\0\0", 16);
	rec_end(&m, at);
	at = rec_begin(&m, PERFDATA_RECORD_LOST, 0);
	u64(&m, 1); u64(&m, 17);
	rec_end(&m, at);
	at = rec_begin(&m, PERFDATA_RECORD_LOST_SAMPLES, 0);
	u64(&m, 5);
	rec_end(&m, at);
	at = rec_begin(&m, PERFDATA_RECORD_AUXTRACE, 0);
	u64(&m, 24); u64(&m, 0x100); u64(&m, 0x55); u32(&m, 1); u32(&m, 2); u32(&m, 3); u32(&m, 0);
	rec_end(&m, at);
	put(&m, "SPE-packets-0123456789ab", 24); /* not counted in header.size */
	at = rec_begin(&m, 200, 0);                /* a type from the future */
	u64(&m, 0);
	rec_end(&m, at);
	at = rec_begin(&m, PERFDATA_RECORD_SWITCH, PERFDATA_MISC_SWITCH_OUT);
	rec_end(&m, at);
	at = rec_begin(&m, PERFDATA_RECORD_FORK, 0);
	u32x2(&m, 20, 10); u32x2(&m, 21, 11); u64(&m, 99);
	rec_end(&m, at);
	at = rec_begin(&m, PERFDATA_RECORD_EXIT, 0);
	u32x2(&m, 20, 10); u32x2(&m, 21, 11); u64(&m, 100);
	rec_end(&m, at);
	at = rec_begin(&m, PERFDATA_RECORD_KSYMBOL, 0);
	u64(&m, 0xffffffffc0000000ull); u32(&m, 64); u16(&m, 1); u16(&m, 0);
	put(&m, "bpf_prog_x\0\0\0\0\0\0", 16);
	rec_end(&m, at);
	at = rec_begin(&m, PERFDATA_RECORD_FINISHED_ROUND, 0);
	rec_end(&m, at);

	p = open_ok(&m);
	next_ok(p, &r);
	next_ok(p, &r);
	assert_int_equal(r.type, PERFDATA_RECORD_MMAP2);
	assert_true(r.u.mmap.has_build_id);
	assert_int_equal(r.u.mmap.build_id_size, 20);
	assert_int_equal(r.u.mmap.build_id[19], 0xb3);
	assert_int_equal(r.u.mmap.start, 0x400000);
	assert_int_equal(r.u.mmap.pgoff, 0x200);
	assert_int_equal(r.u.mmap.prot, 5);
	assert_int_equal(r.u.mmap.filename.len, 8);
	next_ok(p, &r);
	assert_false(r.u.mmap.has_build_id);
	assert_int_equal(r.u.mmap.maj, 8);
	assert_int_equal(r.u.mmap.ino, 1234);
	assert_memory_equal(r.u.mmap.filename.s, "/lib/x.so", 9);
	next_ok(p, &r);
	assert_int_equal(r.u.lost.lost, 17);
	next_ok(p, &r);
	assert_int_equal(r.u.lost.lost, 5);
	next_ok(p, &r);
	assert_int_equal(r.type, PERFDATA_RECORD_AUXTRACE);
	assert_int_equal(r.size, 48);
	assert_int_equal(r.raw_len, 48 + 24);
	assert_int_equal(r.u.auxtrace.size, 24);
	assert_int_equal(r.u.auxtrace.reference, 0x55);
	assert_int_equal(r.u.auxtrace.cpu, 3);
	assert_memory_equal(r.u.auxtrace.data, "SPE-packets-0123456789ab", 24);
	next_ok(p, &r);
	assert_int_equal(r.type, 200);
	next_ok(p, &r);
	assert_true(r.u.sw.out);
	next_ok(p, &r);
	assert_int_equal(r.u.fork.ppid, 10);
	assert_int_equal(r.u.fork.time, 99);
	next_ok(p, &r);
	assert_int_equal(r.type, PERFDATA_RECORD_EXIT);
	assert_int_equal(r.u.fork.time, 100);
	next_ok(p, &r);
	assert_int_equal(r.u.ksymbol.len, 64);
	assert_int_equal(r.u.ksymbol.name.len, 10);
	next_ok(p, &r);
	assert_int_equal(r.type, PERFDATA_RECORD_FINISHED_ROUND);
	assert_int_equal(perfdata_next(p, &r, NULL), 0);
	assert_int_equal(perfdata_stats(p)->lost, 17);
	assert_int_equal(perfdata_stats(p)->lost_samples, 5);
	assert_int_equal(perfdata_stats(p)->unknown_type, 1);
	assert_int_equal(perfdata_stats(p)->records, 12);
	perfdata_close(p);
	tdp_free(m.p);
}

/* Pipe mode: names from EVENT_UPDATE, features from HEADER_FEATURE, ids from ID_INDEX. */
static void pipe_header_records(void **state)
{
	struct attr_spec s[2] = {
		{ .size = 128, .sample_type = PERFDATA_SAMPLE_IDENTIFIER | PERFDATA_SAMPLE_IP },
		{ .size = 128, .config = 1, .sample_type = PERFDATA_SAMPLE_IDENTIFIER | PERFDATA_SAMPLE_IP },
	};
	struct img m = { 0 };
	struct perfdata_record r;
	struct perfdata *p;
	size_t at;

	(void)state;
	pipe_begin(&m, s, 2, NULL, NULL); /* no ids in the attrs */
	at = rec_begin(&m, PERFDATA_RECORD_ID_INDEX, 0);
	u64(&m, 2);
	u64(&m, 31); u64(&m, 0); u64(&m, 0); u64(&m, 1);
	u64(&m, 32); u64(&m, 1); u64(&m, 0); u64(&m, 1);
	rec_end(&m, at);
	at = rec_begin(&m, PERFDATA_RECORD_EVENT_UPDATE, 0);
	u64(&m, 2); u64(&m, 32);
	put(&m, "instructions:u\0\0", 16);
	rec_end(&m, at);
	at = rec_begin(&m, PERFDATA_RECORD_HEADER_FEATURE, 0);
	u64(&m, PERFDATA_FEAT_CPUID);
	u32(&m, 24);
	put(&m, "GenuineIntel,6,85,4\0\0\0\0\0", 24);
	rec_end(&m, at);
	at = rec_begin(&m, PERFDATA_RECORD_SAMPLE, 0);
	u64(&m, 32); u64(&m, 0x77);
	rec_end(&m, at);

	p = open_ok(&m);
	assert_string_equal(perfdata_features(p)->cpuid, "GenuineIntel,6,85,4");
	assert_string_equal(perfdata_attr(p, 1)->name, "instructions:u");
	assert_null(perfdata_attr(p, 0)->name);
	assert_ptr_equal(perfdata_attr_by_id(p, 31), perfdata_attr(p, 0));
	for (int i = 0; i < 5; i++)
		next_ok(p, &r);
	next_ok(p, &r);
	assert_int_equal(r.type, PERFDATA_RECORD_SAMPLE);
	assert_ptr_equal(r.attr, perfdata_attr(p, 1));
	assert_int_equal(r.u.sample.ip, 0x77);
	assert_int_equal(perfdata_next(p, &r, NULL), 0);
	assert_int_equal(perfdata_nr_attrs(p), 2); /* not added twice by the iteration */
	perfdata_close(p);
	tdp_free(m.p);
}

/* HEADER_BUILD_ID records join the build-id list: at the start, later, not twice. */
static void build_id_records(void **state)
{
	struct attr_spec s = { .size = 128, .sample_type = PERFDATA_SAMPLE_IP };
	struct img m = { 0 };
	struct perfdata_record r;
	struct perfdata *p;
	const struct perfdata_features *f;
	size_t at;

	(void)state;
	pipe_begin(&m, &s, 1, NULL, NULL);
	for (int k = 0; k < 3; k++) {
		uint8_t id[24] = { 0 };

		if (k == 1) { /* a sample between them */
			at = rec_begin(&m, PERFDATA_RECORD_SAMPLE, 0);
			u64(&m, 0x10);
			rec_end(&m, at);
		}
		id[0] = (uint8_t)(k == 0 ? 0x22 : 0x11); /* the third repeats the second */
		id[20] = 16;                                  /* size, valid with BUILD_ID_SIZE */
		at = rec_begin(&m, PERFDATA_RECORD_HEADER_BUILD_ID,
			       PERFDATA_MISC_USER | PERFDATA_MISC_BUILD_ID_SIZE);
		u32(&m, (uint32_t)-1);
		put(&m, id, 24);
		put(&m, k == 0 ? "/usr/lib/libc.so.6\0\0\0\0\0\0" : "/usr/bin/app\0\0\0\0", k == 0 ? 24 : 16);
		rec_end(&m, at);
	}
	p = open_ok(&m);
	f = perfdata_features(p);
	assert_int_equal(f->nr_build_ids, 1); /* the one before any event, applied at open */
	assert_string_equal(f->build_ids[0].filename, "/usr/lib/libc.so.6");
	while (perfdata_next(p, &r, NULL) > 0)
		;
	f = perfdata_features(p);
	assert_int_equal(f->nr_build_ids, 2);
	assert_int_equal(f->build_ids[1].size, 16);
	assert_int_equal(f->build_ids[1].id[0], 0x11);
	assert_int_equal(f->build_ids[1].pid, -1);
	assert_string_equal(f->build_ids[1].filename, "/usr/bin/app");
	perfdata_close(p);
	tdp_free(m.p);
}

/* ---- errors: code, file name and offset in the message ---- */

static void expect_error(struct img *m, unsigned flags, int code, const char *text)
{
	struct tdp_err err = TDP_ERR_INIT;
	int ret = read_all(m, flags, &err);

	if (ret != code || !strstr(err.msg, text) || strncmp(err.msg, "'synth': ", 9))
		fail_msg("got %d '%s', wanted %d with '%s'", ret, err.msg, code, text);
}

static void errors(void **state)
{
	struct attr_spec s = { .size = 128, .sample_type = PERFDATA_SAMPLE_IP |
			       PERFDATA_SAMPLE_BRANCH_STACK | PERFDATA_SAMPLE_CALLCHAIN };
	struct img m = { 0 };
	size_t at;

	(void)state;
	/* the message of the brief, exactly */
	pipe_begin(&m, &s, 1, NULL, NULL);
	at = rec_begin(&m, PERFDATA_RECORD_COMM, 0);
	rec_end(&m, at);
	m.p[at + 6] = 4;
	expect_error(&m, 0, TDP_EFORMAT, "record at offset 0x98: size 4 is smaller than its header (8)");
	tdp_free(m.p);

	/*
	 * a record that claims more than there is: in pipe mode an error even with
	 * UNFINISHED (a stream has no header to be unfinished); with PARTIAL, the end,
	 * and the stats say where and how much was not read
	 */
	memset(&m, 0, sizeof(m));
	pipe_begin(&m, &s, 1, NULL, NULL);
	at = rec_begin(&m, PERFDATA_RECORD_FINISHED_ROUND, 0);
	rec_end(&m, at);
	m.p[at + 6] = 64;
	expect_error(&m, 0, TDP_EFORMAT, "size 64 runs past the end of the data");
	expect_error(&m, PERFDATA_OPEN_UNFINISHED, TDP_EFORMAT, "size 64 runs past the end of the data");
	{
		struct tdp_err err = TDP_ERR_INIT;
		struct perfdata *p = NULL;
		struct perfdata_record r;
		int n = 0, ret;

		assert_int_equal(perfdata_open(&p, m.p, m.len, "synth", PERFDATA_OPEN_PARTIAL, &err), 0);
		while ((ret = perfdata_next(p, &r, &err)) > 0)
			n++;
		assert_int_equal(ret, 0);
		assert_int_equal(n, 1); /* the HEADER_ATTR before it */
		assert_int_equal(perfdata_stats(p)->unfinished_tail, at);
		assert_int_equal(perfdata_stats(p)->tail_bytes, m.len - at);
		perfdata_close(p);
	}
	tdp_free(m.p);

	/* branch stack over the limit, callchain over the limit, entries past the record */
	memset(&m, 0, sizeof(m));
	pipe_begin(&m, &s, 1, NULL, NULL);
	at = rec_begin(&m, PERFDATA_RECORD_SAMPLE, 0);
	u64(&m, 1); u64(&m, 0); u64(&m, BRSTACK_MAX_NR + 1);
	rec_end(&m, at);
	expect_error(&m, 0, TDP_ELIMIT, "BRSTACK_MAX_NR");
	tdp_free(m.p);
	memset(&m, 0, sizeof(m));
	pipe_begin(&m, &s, 1, NULL, NULL);
	at = rec_begin(&m, PERFDATA_RECORD_SAMPLE, 0);
	u64(&m, 1); u64(&m, UINT64_MAX);
	rec_end(&m, at);
	expect_error(&m, 0, TDP_ELIMIT, "PERFDATA_MAX_CALLCHAIN");
	tdp_free(m.p);
	memset(&m, 0, sizeof(m));
	pipe_begin(&m, &s, 1, NULL, NULL);
	at = rec_begin(&m, PERFDATA_RECORD_SAMPLE, 0);
	u64(&m, 1); u64(&m, 0); u64(&m, 3); zeros(&m, 48);
	rec_end(&m, at);
	expect_error(&m, 0, TDP_EFORMAT, "the branch entries needs 72 bytes");
	tdp_free(m.p);

	/* unknown sample_type bits, and an attr larger than PERFDATA_MAX_ATTR_SIZE */
	memset(&m, 0, sizeof(m));
	s.sample_type = 1ull << 30;
	pipe_begin(&m, &s, 1, NULL, NULL);
	expect_error(&m, 0, TDP_EFORMAT, "has fields this reader does not know (0x40000000)");
	tdp_free(m.p);
	memset(&m, 0, sizeof(m));
	s.sample_type = PERFDATA_SAMPLE_IP;
	pipe_begin(&m, &s, 1, NULL, NULL);
	{
		uint32_t big = PERFDATA_MAX_ATTR_SIZE + 8;

		memcpy(m.p + 16 + 8 + 4, &big, 4);
	}
	expect_error(&m, 0, TDP_ELIMIT, "PERFDATA_MAX_ATTR_SIZE");
	tdp_free(m.p);

	/* compressed records: refused, with the command that decompresses */
	memset(&m, 0, sizeof(m));
	pipe_begin(&m, &s, 1, NULL, NULL);
	at = rec_begin(&m, PERFDATA_RECORD_COMPRESSED, 0);
	u64(&m, 0);
	rec_end(&m, at);
	{
		struct tdp_err err = TDP_ERR_INIT;

		assert_int_equal(read_all(&m, 0, &err), TDP_EFORMAT);
		assert_non_null(strstr(err.msg, "compressed"));
		assert_non_null(strstr(err.hint, "perf inject"));
	}
	tdp_free(m.p);
}

static void bad_magic(void **state)
{
	struct img m = { 0 };
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	u64(&m, 0x50455246494c4532ull); /* "PERFILE2" written big-endian */
	u64(&m, 16ull << 56);
	assert_int_equal(read_all(&m, 0, &err), TDP_EFORMAT);
	assert_non_null(strstr(err.msg, "other byte order"));
	assert_non_null(strstr(err.msg, "offset 0x0"));
	assert_true(err.hint[0] != '\0');
	m.len = 0;
	put(&m, "PERFFILE", 8);
	u64(&m, 104);
	expect_error(&m, 0, TDP_EFORMAT, "version 1");
	m.len = 0;
	put(&m, "GIF89a..", 8);
	expect_error(&m, 0, TDP_EFORMAT, "not a perf.data file: bad magic at offset 0x0");
	m.len = 3;
	expect_error(&m, 0, TDP_EFORMAT, "not a perf.data file");
	tdp_free(m.p);
}

/* After an error the reader stays stopped and says so. */
static void sticky_error(void **state)
{
	struct attr_spec s = { .size = 128, .sample_type = PERFDATA_SAMPLE_IP };
	struct tdp_err err = TDP_ERR_INIT;
	struct img m = { 0 };
	struct perfdata_record r;
	struct perfdata *p;
	size_t at;

	(void)state;
	pipe_begin(&m, &s, 1, NULL, NULL);
	at = rec_begin(&m, PERFDATA_RECORD_SAMPLE, 0);
	u32(&m, 0); /* 4 bytes: too few for IP */
	rec_end(&m, at);
	p = open_ok(&m);
	next_ok(p, &r);
	assert_int_equal(perfdata_next(p, &r, &err), TDP_EFORMAT);
	assert_non_null(strstr(err.msg, "sample at offset 0x98: IP needs 8 bytes"));
	tdp_err_clear(&err);
	assert_int_equal(perfdata_next(p, &r, &err), TDP_EFORMAT);
	assert_non_null(strstr(err.msg, "after an earlier error"));
	perfdata_close(p);
	tdp_free(m.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(all_fields),
		cmocka_unit_test(branch_flags),
		cmocka_unit_test(identifier),
		cmocka_unit_test(id_position),
		cmocka_unit_test(attr_sizes),
		cmocka_unit_test(record_types),
		cmocka_unit_test(pipe_header_records),
		cmocka_unit_test(build_id_records),
		cmocka_unit_test(errors),
		cmocka_unit_test(bad_magic),
		cmocka_unit_test(sticky_error),
	};

	return cmocka_run_group_tests_name("perfdata-synth", tests, NULL, NULL);
}
