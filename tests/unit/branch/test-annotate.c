/*
 * test-annotate.c: a branch report's names (branch/annotate.h) against a real
 * binary with debug info: $TDPROF_SHARED_DATA/cachegrind/brmix_O0 (gcc -O0 -g
 * brmix.c). A perf.data is written here (perfdata-write.h) whose process maps
 * that binary and whose samples replay its inner loop (objdump -d of the binary):
 *
 *   1263: jle 1281   line 16, `if (a[i] >= 128)`, taken when a[i] < 128
 *   12d5: call *%rax line 18, the indirect call through ops[]
 *   1169..1177: add1 (line 5), 1177: ret
 *   12e7: jl 124a    the inner loop's back edge (line 15)
 *
 * Stack A (newest first; cycles in parentheses):
 *   e0 1177->12d7 (3)  e1 12d5->1169 (20)  e2 1263->1281 M (10)  e3 12e7->124a (4)
 *   e4 1177->12d7 (2)  e5 12d5->1169 (15)  e6 1263->1281 (8)     e7 12e7->124a (5)
 * Stack B: the same, nothing mispredicted. Samples: A three times, B once.
 *
 * Hand-computed expectations:
 *   entries 4 x 8 = 32, mispredicted 3 (A's e2), site 1263 executed 8 times,
 *   rate 3/8, share 3/3;
 *   types from the instructions (no save_type): 1263 and 12e7 COND, 12d5 IND_CALL,
 *   1177 RET;
 *   perf's rows (symbol pairs): main->main N 13 (1263->1281: 8 - 3 = 5, plus
 *   12e7->124a: 8), main->main Y 3, main->add1 N 8, add1->main N 8;
 *   blocks [e[i+1].to, e[i].from] in e[i].cycles, ranked by total cycles:
 *     [1281,12d5]: e1 (20) and e5 (15) per sample: 8 seen, 140 cycles, average
 *       17.5; 25 instructions (1281 ... 12d5 in objdump) -> IPC 25 / 17.5;
 *     [124a,1263]: e2 (10), e6 (8): 8 seen, 72 cycles, average 9; 8 instructions
 *       (124a 124d 124f 1257 125b 125e 1260 1263) -> IPC 8 / 9;
 *     [1169,1177]: e0 (3), e4 (2): 8 seen, 20 cycles, average 2.5; 7 instructions
 *       -> IPC 2.8;
 *     [12d7,12e7]: e3 (4) once per sample: 4 seen, 16 cycles, average 4;
 *       6 instructions (12d7 12d9 12dd 12e1 12e4 12e7) -> IPC 1.5;
 *     e7's cycles close a block whose start the stack does not hold.
 * Skips (77) without the shared data, or in a build without the symbol module.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"
#include "branch/annotate.h"
#include "branch/branch.h"
#include "perfdata/perfdata-write.h"
#include "perfdata/perfdata.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BASE 0x555555554000ull /* where the PIE is loaded */
#define PID 4242

static char binary[PATH_MAX];
static char data_path[64];

static size_t put_u64(uint8_t *b, size_t at, uint64_t v)
{
	memcpy(b + at, &v, 8);
	return at + 8;
}

static size_t put_u32(uint8_t *b, size_t at, uint32_t v)
{
	memcpy(b + at, &v, 4);
	return at + 4;
}

static void header(uint8_t *b, uint32_t type, uint16_t misc, size_t size)
{
	uint16_t sz = (uint16_t)size;

	memcpy(b, &type, 4);
	memcpy(b + 4, &misc, 2);
	memcpy(b + 6, &sz, 2);
}

struct e {
	uint64_t from, to;
	bool misp;
	unsigned cycles;
};

static int add_sample(struct perfdata_writer *w, const struct e *s, size_t nr, uint64_t time, struct tdp_err *err)
{
	uint8_t b[1024];
	size_t at = 8;

	at = put_u64(b, at, BASE + s[0].from);            /* IP */
	at = put_u32(b, at, PID);                          /* TID: pid, tid */
	at = put_u32(b, at, PID);
	at = put_u64(b, at, time);                         /* TIME */
	at = put_u64(b, at, nr);                           /* BRANCH_STACK */
	for (size_t i = 0; i < nr; i++) {
		struct branch_entry x;

		memset(&x, 0, sizeof(x));
		x.mispred = s[i].misp;
		x.predicted = !s[i].misp;
		x.cycles = (uint16_t)s[i].cycles;
		at = put_u64(b, at, BASE + s[i].from);
		at = put_u64(b, at, BASE + s[i].to);
		at = put_u64(b, at, perfdata_branch_flags_encode(&x));
	}
	header(b, PERFDATA_RECORD_SAMPLE, PERFDATA_MISC_USER, at);
	return perfdata_writer_add_record(w, b, at, err);
}

/* Write the recording described at the top. Returns 0 or a TDP_E* code. */
static int write_recording(const char *path, struct tdp_err *err)
{
	static const struct e a[8] = {
		{ 0x1177, 0x12d7, 0, 3 }, { 0x12d5, 0x1169, 0, 20 }, { 0x1263, 0x1281, 1, 10 }, { 0x12e7, 0x124a, 0, 4 },
		{ 0x1177, 0x12d7, 0, 2 }, { 0x12d5, 0x1169, 0, 15 }, { 0x1263, 0x1281, 0, 8 },  { 0x12e7, 0x124a, 0, 5 },
	};
	struct e bstack[8];
	struct perfdata_writer *w = NULL;
	uint8_t attr[128], rec[512];
	size_t at, n;
	int rc;

	memcpy(bstack, a, sizeof(a));
	bstack[2].misp = false;
	memset(attr, 0, sizeof(attr));
	put_u32(attr, 0, 0);    /* PERF_TYPE_HARDWARE */
	put_u32(attr, 4, sizeof(attr));
	put_u64(attr, 16, 100003);
	put_u64(attr, 24, PERFDATA_SAMPLE_IP | PERFDATA_SAMPLE_TID | PERFDATA_SAMPLE_TIME | PERFDATA_SAMPLE_BRANCH_STACK);
	put_u64(attr, 72, PERFDATA_BRANCH_ANY | PERFDATA_BRANCH_USER);
	rc = perfdata_writer_open(&w, path, err);
	if (!rc)
		rc = perfdata_writer_add_attr(w, attr, sizeof(attr), NULL, 0, "cycles:u", err);
	if (rc)
		goto fail;
	/* COMM {pid, tid, "brmix_O0"} */
	at = put_u32(rec, 8, PID);
	at = put_u32(rec, at, PID);
	memset(rec + at, 0, 16);
	memcpy(rec + at, "brmix_O0", 8);
	at += 16;
	header(rec, PERFDATA_RECORD_COMM, PERFDATA_MISC_COMM_EXEC, at);
	rc = perfdata_writer_add_record(w, rec, at, err);
	if (rc)
		goto fail;
	/* MMAP2 of the executable segment: file offset 0x1000 at BASE + 0x1000 */
	at = put_u32(rec, 8, PID);
	at = put_u32(rec, at, PID);
	at = put_u64(rec, at, BASE + 0x1000);
	at = put_u64(rec, at, 0x1000);
	at = put_u64(rec, at, 0x1000);
	at = put_u32(rec, at, 8);      /* maj */
	at = put_u32(rec, at, 1);      /* min */
	at = put_u64(rec, at, 12345);  /* ino */
	at = put_u64(rec, at, 0);      /* ino generation */
	at = put_u32(rec, at, 5);      /* PROT_READ | PROT_EXEC */
	at = put_u32(rec, at, 2);      /* MAP_PRIVATE */
	n = strlen(binary) + 1;
	memset(rec + at, 0, (n + 7) & ~(size_t)7);
	memcpy(rec + at, binary, n);
	at += (n + 7) & ~(size_t)7;
	header(rec, PERFDATA_RECORD_MMAP2, PERFDATA_MISC_USER, at);
	rc = perfdata_writer_add_record(w, rec, at, err);
	for (int i = 0; !rc && i < 3; i++)
		rc = add_sample(w, a, 8, 1000 + (uint64_t)i, err);
	if (!rc)
		rc = add_sample(w, bstack, 8, 2000, err);
	if (rc)
		goto fail;
	return perfdata_writer_close(w, err);
fail:
	perfdata_writer_free(w);
	return rc;
}

struct fixture {
	struct tdp_file f;
	struct perfdata *p;
	struct branch_agg *agg;
	struct branch_annot *an;
	struct branch_result res;
	const struct branch_symbols *syms;
};

static int setup(void **state)
{
	static struct fixture fx;
	struct tdp_err err = TDP_ERR_INIT;
	struct branch_annot_opts o;

	memset(&fx, 0, sizeof(fx));
	fx.f = (struct tdp_file)TDP_FILE_INIT;
	fx.res = (struct branch_result)BRANCH_RESULT_INIT;
	branch_annot_opts_init(&o);
	o.disasm_sites = 2;
	if (tdp_file_open(&fx.f, data_path, 0, &err) || perfdata_open(&fx.p, fx.f.data, fx.f.size, data_path, 0, &err) ||
	    branch_agg_new(&fx.agg, &err) || branch_annot_new(&fx.an, &o, &err) ||
	    branch_annot_features(fx.an, perfdata_features(fx.p), &err) ||
	    branch_load(fx.p, fx.agg, &(struct branch_load_opts){ .on_record = branch_annot_record, .ctx = fx.an }, NULL,
			&err) ||
	    branch_agg_finish(fx.agg, &fx.res, &err) || branch_annot_run(fx.an, &fx.res, &err)) {
		print_error("setup: %s\n", err.msg);
		return -1;
	}
	fx.syms = branch_annot_symbols(fx.an);
	*state = &fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	branch_result_release(&fx->res);
	branch_annot_free(fx->an);
	branch_agg_free(fx->agg);
	perfdata_close(fx->p);
	tdp_file_close(&fx->f);
	return 0;
}

static const struct branch_site *site(const struct branch_result *r, uint64_t vaddr)
{
	for (size_t i = 0; i < r->nr_sites; i++)
		if (r->sites[i].addr == BASE + vaddr)
			return &r->sites[i];
	return NULL;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suffix);

	return s && a >= b && !strcmp(s + a - b, suffix);
}

static void test_counts_and_sites(void **state)
{
	struct fixture *fx = *state;
	const struct branch_site *s = &fx->res.sites[0];
	const struct branch_loc *l;

	assert_int_equal(fx->res.counts.samples, 4);
	assert_int_equal(fx->res.counts.branch_entries, 32);
	assert_int_equal(fx->res.counts.mispredicted_entries, 3);
	/* the top site is the jle of line 16 */
	assert_int_equal(s->addr, BASE + 0x1263);
	assert_int_equal(s->executions, 8);
	assert_int_equal(s->mispredicts, 3);
	assert_true(fabs(branch_site_rate(s) - 3.0 / 8.0) < 1e-12);
	assert_true(fabs(branch_site_share(s, &fx->res.counts) - 1.0) < 1e-12);
	l = branch_symbols_find(fx->syms, s->addr);
	assert_non_null(l);
	assert_true(l->resolved);
	assert_string_equal(l->function, "main");
	assert_int_equal(l->offset, 0x1263 - 0x1195); /* main starts at 0x1195 */
	assert_true(ends_with(l->file, "brmix.c"));
	assert_int_equal(l->line, 16);
	assert_true(l->nr_inlines >= 1);
	assert_string_equal(l->inlines[0].function, "main");
	assert_string_equal(l->perf_text, "[.] main");
	l = branch_symbols_find(fx->syms, BASE + 0x1177);
	assert_non_null(l);
	assert_string_equal(l->function, "add1");
	assert_int_equal(l->line, 5);
	assert_string_equal(fx->syms->symbolizer, "elfutils");
}

static void test_types_from_disasm(void **state)
{
	struct fixture *fx = *state;
	static const struct {
		uint64_t vaddr;
		uint8_t type;
	} want[] = { { 0x1263, BRANCH_TYPE_COND }, { 0x12e7, BRANCH_TYPE_COND }, { 0x12d5, BRANCH_TYPE_IND_CALL },
		     { 0x1177, BRANCH_TYPE_RET } };

	assert_false(fx->res.has_types);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct branch_site *s = site(&fx->res, want[i].vaddr);

		assert_non_null(s);
		assert_int_equal(s->type, want[i].type);
		assert_int_equal(s->type_source, BRANCH_TYPE_FROM_DISASM);
	}
	/* view by type: COND 2 sites, 16 executions, 3 mispredicts first */
	assert_string_equal(branch_type_name(fx->res.types[0].type, fx->res.types[0].new_type), "COND");
	assert_int_equal(fx->res.types[0].sites, 2);
	assert_int_equal(fx->res.types[0].executions, 16);
	assert_int_equal(fx->res.types[0].mispredicts, 3);
}

static void test_perf_rows(void **state)
{
	struct fixture *fx = *state;
	const struct branch_symbols *sy = fx->syms;
	static const struct {
		const char *from, *to;
		uint8_t flag;
		uint64_t count;
	} want[] = {
		{ "[.] main", "[.] main", BRANCH_PRED_N, 13 },
		{ "[.] add1", "[.] main", BRANCH_PRED_N, 8 },
		{ "[.] main", "[.] add1", BRANCH_PRED_N, 8 },
		{ "[.] main", "[.] main", BRANCH_PRED_Y, 3 },
	};

	assert_int_equal(sy->nr_sym_edges, 4);
	for (size_t i = 0; i < 4; i++) {
		bool found = false;

		for (size_t k = 0; k < sy->nr_sym_edges; k++) {
			const struct branch_sym_edge *e = &sy->sym_edges[k];

			if (!strcmp(e->from->perf_text, want[i].from) && !strcmp(e->to->perf_text, want[i].to) &&
			    e->flag == want[i].flag) {
				assert_int_equal(e->count, want[i].count);
				found = true;
			}
		}
		assert_true(found);
	}
	/* ranked by count */
	assert_int_equal(sy->sym_edges[0].count, 13);
	assert_int_equal(sy->sym_edges[3].count, 3);
}

static void test_blocks_ipc(void **state)
{
	struct fixture *fx = *state;
	const struct branch_result *r = &fx->res;
	const struct branch_symbols *sy = fx->syms;
	static const struct {
		uint64_t start, end, count, cycles;
		int64_t insns;
		double ipc;
	} want[] = {
		{ 0x1281, 0x12d5, 8, 140, 25, 25.0 / 17.5 },
		{ 0x124a, 0x1263, 8, 72, 8, 8.0 / 9.0 },
		{ 0x1169, 0x1177, 8, 20, 7, 2.8 },
		{ 0x12d7, 0x12e7, 4, 16, 6, 1.5 },
	};

	assert_true(r->has_timing);
	assert_int_equal(r->nr_blocks, 4);
	assert_true(sy->nr_block_insns >= 4);
	for (size_t i = 0; i < 4; i++) {
		const struct branch_block *b = &r->blocks[i];

		assert_int_equal(b->start, BASE + want[i].start);
		assert_int_equal(b->end, BASE + want[i].end);
		assert_int_equal(b->count, want[i].count);
		assert_int_equal(b->timed, want[i].count);
		assert_int_equal(b->cycles, want[i].cycles);
		assert_int_equal(sy->block_insns[i], want[i].insns);
		assert_true(fabs(branch_block_ipc(b, sy->block_insns[i]) - want[i].ipc) < 1e-9);
	}
	assert_null(sy->block_note);
}

static void test_disasm(void **state)
{
	struct fixture *fx = *state;
	const struct branch_site_disasm *d = &fx->syms->disasm[0];
	size_t targets = 0;

	assert_int_equal(fx->syms->nr_disasm, 2);
	assert_int_equal(d->addr, BASE + 0x1263);
	assert_null(d->error);
	assert_string_equal(d->function, "main");
	assert_true(d->nr_lines >= 2);
	for (size_t i = 0; i < d->nr_lines; i++) {
		if (!d->lines[i].target)
			continue;
		targets++;
		assert_int_equal(d->lines[i].addr, BASE + 0x1263);
		assert_true(!strncmp(d->lines[i].text, "jle", 3));
	}
	assert_int_equal(targets, 1);
	/* the instruction before it: 1260 cmp eax, 0x7f */
	for (size_t i = 1; i < d->nr_lines; i++)
		if (d->lines[i].target) {
			assert_int_equal(d->lines[i - 1].addr, BASE + 0x1260);
			assert_true(!strncmp(d->lines[i - 1].text, "cmp", 3));
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_and_sites),
		cmocka_unit_test(test_types_from_disasm),
		cmocka_unit_test(test_perf_rows),
		cmocka_unit_test(test_blocks_ipc),
		cmocka_unit_test(test_disasm),
	};
	const char *dir = getenv("TDPROF_SHARED_DATA");
	struct tdp_err err = TDP_ERR_INIT;
	struct branch_annot *an = NULL;
	char path[PATH_MAX];
	int fd, rc;

	snprintf(path, sizeof(path), "%s/cachegrind/brmix_O0", dir ? dir : "");
	if (!dir || !*dir || !realpath(path, binary)) {
		print_message("skip: the shared binary brmix_O0 is not readable (TDPROF_SHARED_DATA)\n");
		return 77;
	}
	if (branch_annot_new(&an, NULL, &err))
		return 1;
	rc = !strcmp(branch_annot_symbols(an)->symbolizer, "none");
	branch_annot_free(an);
	if (rc) {
		print_message("skip: this build has no symbol module\n");
		return 77;
	}
	snprintf(data_path, sizeof(data_path), "/tmp/tdprof-annotate-XXXXXX");
	fd = mkstemp(data_path);
	if (fd < 0)
		return 1;
	close(fd);
	if (write_recording(data_path, &err)) {
		print_error("cannot write the recording: %s\n", err.msg);
		unlink(data_path);
		return 1;
	}
	rc = cmocka_run_group_tests(tests, setup, teardown);
	unlink(data_path);
	return rc;
}
