/*
 * test-finish.c: an annotated function's derived figures (annot/annot.h:
 * annot_count(), annot_block(), annot_finish(), annot_sources()) on listings
 * made by hand, so that every sum, rate, rank and IPC below is worked out here.
 *
 * The listing (addresses, source lines as "file:line"):
 *   0x10 a.c:5    executions 10                 (max column x: 7)
 *   0x14 a.c:6    executions 100, mispredicts 40 (x: 3)
 *   0x18 b.h:2    executions 50,  mispredicts 2  (inlined)
 *   0x1c a.c:6    executions 100, mispredicts 20 (x: 9)
 *   0x20 a.c:9    nothing
 * Lines in source order: a.c:5, a.c:6, a.c:9, then b.h:2 (the first
 * instruction's file first). a.c:6 sums 200 executions and 60 mispredicts
 * (rate 0.3, 60/62 of the function's mispredicts); its x is 9 (the largest);
 * it runs in two chunks (0x14 and 0x1c), the first being its first.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "annot/annot.h"
#include "base/alloc.h"
#include "base/err.h"

static size_t add_line(struct annot_doc *d, const char *file, uint32_t line, bool inlined)
{
	d->lines = realloc(d->lines, (d->nr_lines + 1) * sizeof(*d->lines));
	assert_non_null(d->lines);
	memset(&d->lines[d->nr_lines], 0, sizeof(d->lines[0]));
	d->lines[d->nr_lines].file = annot_intern(d, file);
	d->lines[d->nr_lines].line = line;
	d->lines[d->nr_lines].has_code = true;
	d->lines[d->nr_lines].inlined = inlined;
	d->lines[d->nr_lines].function = inlined ? "helper" : "f";
	return d->nr_lines++;
}

static void add_insn(struct annot_doc *d, uint64_t addr, size_t line)
{
	d->insns = realloc(d->insns, (d->nr_insns + 1) * sizeof(*d->insns));
	assert_non_null(d->insns);
	memset(&d->insns[d->nr_insns], 0, sizeof(d->insns[0]));
	d->insns[d->nr_insns].addr = addr;
	d->insns[d->nr_insns].size = 4;
	d->insns[d->nr_insns].text = "nop";
	d->insns[d->nr_insns].line = line;
	d->insns[d->nr_insns].rate = d->insns[d->nr_insns].pct = NAN;
	d->insns[d->nr_insns].avg_cycles = d->insns[d->nr_insns].ipc = NAN;
	d->nr_insns++;
}

/* The listing of the header comment, counted; x is column 2 (MAX). */
static void make(struct annot_doc *d)
{
	size_t a5, a6, b2, a9;

	annot_doc_init(d);
	d->function = "f";
	d->col_exec = annot_col_add(d, "executions", "Execs", "e", ANNOT_AGG_SUM);
	d->col_misp = annot_col_add(d, "mispredicts", "Misp", "m", ANNOT_AGG_SUM);
	assert_int_equal(annot_col_add(d, "x", "X", "x", ANNOT_AGG_MAX), 2);
	d->col_rate_den = d->col_exec;
	d->col_primary = d->col_exec;
	d->sort_col = d->col_misp;
	/* lines in the order a listing meets them: b.h first to check the source order */
	b2 = add_line(d, "b.h", 2, true);
	a6 = add_line(d, "a.c", 6, false);
	a5 = add_line(d, "a.c", 5, false);
	a9 = add_line(d, "a.c", 9, false);
	add_insn(d, 0x10, a5);
	add_insn(d, 0x14, a6);
	add_insn(d, 0x18, b2);
	add_insn(d, 0x1c, a6);
	add_insn(d, 0x20, a9);
	assert_true(annot_count(d, 0x10, 0, 10));
	assert_true(annot_count(d, 0x14, 0, 100));
	assert_true(annot_count(d, 0x14, 1, 40));
	assert_true(annot_count(d, 0x18, 0, 50));
	assert_true(annot_count(d, 0x18, 1, 2));
	assert_true(annot_count(d, 0x1c, 0, 100));
	assert_true(annot_count(d, 0x1c, 1, 20));
	assert_true(annot_count(d, 0x10, 2, 7));
	assert_true(annot_count(d, 0x14, 2, 3));
	assert_true(annot_count(d, 0x1c, 2, 9));
}

static const struct annot_line *line_of(const struct annot_doc *d, const char *file, uint32_t line)
{
	for (size_t i = 0; i < d->nr_lines; i++)
		if (!strcmp(d->lines[i].file, file) && d->lines[i].line == line)
			return &d->lines[i];
	fail_msg("no line %s:%u", file, line);
	return NULL;
}

static void sums_rates_and_ranks(void **state)
{
	struct annot_doc d;
	const struct annot_line *l;

	(void)state;
	make(&d);
	assert_int_equal(annot_finish(&d), 0);
	/* totals: sums, and the largest for a MAX column */
	assert_int_equal(d.totals[0], 260);
	assert_int_equal(d.totals[1], 62);
	assert_int_equal(d.totals[2], 9);
	assert_float_equal(d.rate, 62.0 / 260.0, 1e-12);
	l = line_of(&d, "a.c", 6);
	assert_int_equal(l->v[0], 200);
	assert_int_equal(l->v[1], 60);
	assert_int_equal(l->v[2], 9);
	assert_int_equal(l->nr_insns, 2);
	assert_float_equal(l->rate, 0.3, 1e-12);
	assert_float_equal(l->pct, 100.0 * 60 / 62, 1e-9);
	assert_int_equal(l->hot, 1);
	assert_ptr_equal(&d.lines[d.hottest_line], l);
	/* b.h:2 has 2 of 62 mispredicts (3.2 %): under the 5 % of a second mark */
	assert_int_equal(line_of(&d, "b.h", 2)->hot, 0);
	assert_true(line_of(&d, "b.h", 2)->inlined);
	/* a.c:5 has executions but no mispredict: rate 0, no percentage */
	assert_float_equal(line_of(&d, "a.c", 5)->rate, 0.0, 0);
	assert_true(isnan(line_of(&d, "a.c", 9)->rate));
	assert_int_equal(line_of(&d, "a.c", 5)->hot, 0);
	/* the hottest instruction: 40 mispredicts at 0x14 */
	assert_int_equal(d.insns[d.hottest_insn].addr, 0x14);
	assert_float_equal(d.insns[1].pct, 100.0 * 40 / 62, 1e-9);
	annot_doc_release(&d);
}

static void second_mark_needs_five_percent(void **state)
{
	struct annot_doc d;

	(void)state;
	make(&d);
	annot_count(&d, 0x18, 1, 2); /* b.h:2: 4 of 64 mispredicts, 6.25 % */
	assert_int_equal(annot_finish(&d), 0);
	assert_int_equal(line_of(&d, "b.h", 2)->hot, 2);
	assert_int_equal(line_of(&d, "a.c", 6)->hot, 1);
	annot_doc_release(&d);
}

static void source_order_and_chunks(void **state)
{
	struct annot_doc d;
	static const uint32_t want[] = { 5, 6, 9, 2 };

	(void)state;
	make(&d);
	assert_int_equal(annot_finish(&d), 0);
	assert_int_equal(d.nr_lines, 4);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(d.lines[i].line, want[i]);
	assert_string_equal(d.lines[3].file, "b.h");
	/* every instruction still points at its own line after the reordering */
	assert_int_equal(d.lines[d.insns[0].line].line, 5);
	assert_int_equal(d.lines[d.insns[2].line].line, 2);
	assert_int_equal(d.lines[d.insns[3].line].line, 6);
	/* runs: 0x10 | 0x14 | 0x18 | 0x1c (a.c:6 again, not its first run) | 0x20 */
	for (size_t i = 0; i < 5; i++)
		assert_true(d.insns[i].chunk_start);
	assert_true(d.insns[1].first_chunk);
	assert_false(d.insns[3].first_chunk);
	assert_string_equal(d.file, "a.c");
	annot_doc_release(&d);
}

/*
 * Timed blocks: [0x10, 0x1c] (4 instructions) seen 10 times, all timed, 80
 * cycles: IPC 4 * 10 / 80 = 0.5; [0x18, 0x20] (3) seen 5 times, 60 cycles:
 * IPC 0.25. The first has more cycles: 0x10..0x1c take 0.5, 0x20 takes 0.25.
 * Function: (40 + 15) / 140 cycles; every instruction covered.
 */
static void timed_blocks(void **state)
{
	struct annot_doc d;

	(void)state;
	make(&d);
	d.has_timing = true;
	assert_int_equal(annot_block(&d, 0x18, 0x20, 5, 5, 60), 0);
	assert_int_equal(annot_block(&d, 0x10, 0x1c, 6, 6, 50), 0);
	assert_int_equal(annot_block(&d, 0x10, 0x1c, 4, 4, 30), 0); /* the same block again: added up */
	assert_int_equal(annot_block(&d, 0x11, 0x1c, 1, 1, 9), 1);  /* not an instruction start: ignored */
	assert_int_equal(annot_block(&d, 0x1c, 0x10, 1, 1, 9), 1);  /* backwards: ignored */
	assert_int_equal(d.nr_blocks, 2);
	assert_int_equal(annot_finish(&d), 0);
	for (size_t i = 0; i < 4; i++)
		assert_float_equal(d.insns[i].ipc, 0.5, 1e-12);
	assert_float_equal(d.insns[4].ipc, 0.25, 1e-12);
	assert_int_equal(d.insns[3].blk_cycles, 80);
	assert_int_equal(d.insns[3].blk_timed, 10);
	assert_float_equal(d.insns[3].avg_cycles, 8.0, 1e-12);
	assert_true(isnan(d.insns[0].avg_cycles));
	assert_int_equal(d.cycles, 140);
	assert_float_equal(d.ipc, 55.0 / 140.0, 1e-12);
	assert_float_equal(d.coverage_pct, 100.0, 1e-12);
	/* a line's cycles: those of the blocks ending on it (a.c:6 holds 0x1c) */
	assert_int_equal(line_of(&d, "a.c", 6)->cycles, 80);
	assert_int_equal(line_of(&d, "a.c", 9)->cycles, 60);
	annot_doc_release(&d);
}

static void counts_off_the_listing(void **state)
{
	struct annot_doc d;

	(void)state;
	make(&d);
	assert_false(annot_count(&d, 0x12, 1, 5)); /* the sort column: kept as unplaced */
	assert_false(annot_count(&d, 0x12, 0, 5)); /* another: dropped */
	assert_false(annot_count(&d, 0x10, 7, 5)); /* no such column */
	assert_int_equal(d.unplaced, 5);
	assert_int_equal(annot_insn_at(&d, 0x20), 4);
	assert_int_equal(annot_insn_at(&d, 0x21), ANNOT_NONE);
	assert_int_equal(annot_insn_at(&d, 0x0), ANNOT_NONE);
	/* counts saturate instead of wrapping */
	annot_count(&d, 0x20, 0, UINT64_MAX);
	annot_count(&d, 0x20, 0, 2);
	assert_true(d.insns[4].v[0] == UINT64_MAX);
	annot_doc_release(&d);
}

static void interned_strings(void **state)
{
	struct annot_doc d;
	char buf[8];
	const char *a, *b;

	(void)state;
	annot_doc_init(&d);
	snprintf(buf, sizeof(buf), "x.c");
	a = annot_intern(&d, "x.c");
	b = annot_intern(&d, buf);
	assert_non_null(a);
	assert_ptr_equal(a, b);
	for (int i = 0; i < 1000; i++) { /* past several growths of the table */
		snprintf(buf, sizeof(buf), "f%d", i);
		assert_non_null(annot_intern(&d, buf));
	}
	assert_ptr_equal(annot_intern(&d, "x.c"), a);
	assert_null(annot_intern(&d, NULL));
	annot_doc_release(&d);
}

/* A source file: the body of the entry file whole, `context` lines around inlined lines, the text read. */
static void source_lines(void **state)
{
	char dir[] = "/tmp/tdprof-annot-XXXXXX", path[64];
	FILE *f;
	struct annot_doc d;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a.c", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 1; i <= 30; i++)
		fprintf(f, i == 6 ? "\tline %d\n" : "line %d\n", i);
	fclose(f);
	annot_doc_init(&d);
	add_line(&d, "a.c", 6, false);
	add_line(&d, "a.c", 9, false);
	add_line(&d, "a.c", 25, true);
	add_insn(&d, 0x10, 0);
	add_insn(&d, 0x14, 1);
	add_insn(&d, 0x18, 2);
	/* a.c is relative: found under the compilation directory, shown relative to cwd */
	assert_int_equal(annot_sources(&d, dir, dir, 1, &err), 0);
	assert_int_equal(annot_finish(&d), 0);
	/* 5 (context), 6..9 (the body), 10 (context), 24..26 (around the inlined line) */
	assert_int_equal(d.nr_lines, 9);
	assert_int_equal(d.lines[0].line, 5);
	assert_false(d.lines[0].has_code);
	assert_string_equal(d.lines[1].text, "\tline 6");
	assert_true(d.lines[1].has_code);
	assert_int_equal(d.lines[5].line, 10);
	assert_int_equal(d.lines[6].line, 24);
	assert_int_equal(d.lines[8].line, 26);
	assert_string_equal(d.lines[0].file, "a.c");
	assert_string_equal(d.lines[0].path, path);
	annot_doc_release(&d);
	/* a file nowhere: its lines keep no text and no context lines are made */
	annot_doc_init(&d);
	add_line(&d, "nowhere.c", 3, false);
	add_insn(&d, 0x10, 0);
	assert_int_equal(annot_sources(&d, dir, dir, 2, &err), 0);
	assert_int_equal(d.nr_lines, 1);
	assert_null(d.lines[0].text);
	assert_null(d.lines[0].path);
	annot_doc_release(&d);
	unlink(path);
	rmdir(dir);
}

static void out_of_memory(void **state)
{
	(void)state;
	for (long n = 0; n < 40; n++) {
		struct annot_doc d;
		int rc;

		make(&d);
		tdp_alloc_fail_after(n);
		rc = annot_finish(&d);
		tdp_alloc_fail_after(-1);
		assert_true(rc == 0 || rc == TDP_ENOMEM);
		annot_doc_release(&d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sums_rates_and_ranks),
		cmocka_unit_test(second_mark_needs_five_percent),
		cmocka_unit_test(source_order_and_chunks),
		cmocka_unit_test(timed_blocks),
		cmocka_unit_test(counts_off_the_listing),
		cmocka_unit_test(interned_strings),
		cmocka_unit_test(source_lines),
		cmocka_unit_test(out_of_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
