/*
 * Unit tests of sim/ parsers on small hand-written inputs: every construct of the
 * cachegrind and callgrind formats, every error with its line number, limits, and
 * allocation failures. The expected values are summed by hand in the comments.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "sim/cost.h"
#include "sim/profile.h"

static const char cachegrind_sample[] =
	"desc: I1 cache:         32768 B, 64 B, 8-way associative\n"
	"desc: D1 cache:         49152 B, 64 B, 12-way associative\n"
	"desc: LL cache:         33554432 B, 64 B, 16-way associative\n"
	"cmd: ./x 1\n"
	"events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim\n"
	"fl=a.c\n"
	"fn=f\n"
	"3 10 1 1 4 2 1 . . . 2 1\n" /* '.' is 0, Bi and Bim missing: 0 */
	"3 5\n"                      /* the same line again: summed, Ir 15 */
	"fn=(below main)\n"          /* '(' + letter: a plain name, even in callgrind */
	"7 1\n"
	"fl=b.c\n"
	"fn=f\n"
	"3 2\n"
	/* Ir 10+5+1+2 = 18, I1mr 1, ILmr 1, Dr 4, D1mr 2, DLmr 1, Bc 2, Bcm 1 */
	"summary: 18 1 1 4 2 1 0 0 0 2 1 0 0\n";

static const char callgrind_sample[] =
	"# callgrind format\n"
	"version: 1\n"
	"creator: hand\n"
	"positions: instr line\n"
	"events: Ir Bc Bcm Bi Bim\n"
	"\n"
	"ob=(1) /bin/prog\n"
	"fl=(1) main.c\n"
	"fn=(1) main\n"
	"0x1000 10 5 1 1\n"      /* (0x1000, 10): Ir 5, Bc 1, Bcm 1 */
	"+4 * 3 . 0 1 1\n"       /* (0x1004, 10): Ir 3, Bi 1, Bim 1 */
	"+2 +2 7\n"              /* (0x1006, 12): Ir 7 */
	"cfi=(2) lib.c\n"
	"cfn=(2) helper\n"
	"calls=4 0x2000 +90\n"   /* the target does not move the base */
	"* * 400 40 20\n"        /* (0x1006, 12) inclusive: not self cost */
	"-6 -2 2\n"              /* (0x1000, 10): Ir 2 more, 7 in all */
	"fi=(3) inl.h\n"
	"+0x10 50 9\n"           /* (0x1010, 50) in inl.h: Ir 9 */
	"fe=(1)\n"
	"+1 -38 1\n"             /* (0x1011, 12) back in main.c: Ir 1 */
	"fl=(2)\n"
	"fn=(2)\n"
	"0x2000 100 100 40 20\n" /* helper's own cost, lib.c:100 */
	"jump=3 +4 *\n"
	/* Ir 7+3+7+9+1+100 = 127, Bc 1+40 = 41, Bcm 1+20 = 21, Bi 1, Bim 1 */
	"totals: 127 41 21 1 1\n";

static int parse_cg(struct sim_profile *p, const char *s, struct tdp_err *err)
{
	return sim_cachegrind_parse(p, (const uint8_t *)s, strlen(s), "t.out", err);
}

static int parse_clg(struct sim_profile *p, const char *s, struct tdp_err *err)
{
	return sim_callgrind_parse(p, (const uint8_t *)s, strlen(s), "t.out", err);
}

static const struct sim_entry *find(const struct sim_profile *p, const char *file, const char *fn, uint64_t line,
				    uint64_t addr)
{
	for (size_t i = 0; i < p->nr; i++) {
		const struct sim_entry *e = &p->v[i];

		if (e->line == line && e->addr == addr && !strcmp(sim_profile_name(p, e->file), file) &&
		    !strcmp(sim_profile_name(p, e->fn), fn))
			return e;
	}
	return NULL;
}

static void test_cachegrind(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct sim_profile p;
	const struct sim_entry *e;

	(void)state;
	sim_profile_init(&p);
	assert_int_equal(parse_cg(&p, cachegrind_sample, &err), 0);
	assert_int_equal(p.nr, 3);
	assert_int_equal(p.have, (1u << (SIM_BIM + 1)) - 1); /* valgrind's 13 events, not the tool's */
	assert_false(p.has_addr);
	assert_int_equal(p.totals.v[SIM_IR], 18);
	assert_int_equal(p.summary.v[SIM_IR], 18);
	assert_int_equal(p.totals.v[SIM_BCM], 1);
	e = find(&p, "a.c", "f", 3, 0);
	assert_non_null(e);
	assert_int_equal(e->cost.v[SIM_IR], 15);
	assert_int_equal(e->cost.v[SIM_D1MR], 2);
	assert_int_equal(e->cost.v[SIM_DW], 0);
	assert_int_equal(e->cost.v[SIM_BI], 0);
	assert_int_equal(e->obj, SIM_NO_NAME);
	assert_non_null(find(&p, "a.c", "(below main)", 7, 0));
	e = find(&p, "b.c", "f", 3, 0);
	assert_non_null(e);
	assert_int_equal(e->cost.v[SIM_IR], 2);
	assert_string_equal(p.cmd, "./x 1");
	assert_int_equal(p.i1.size, 32768);
	assert_int_equal(p.i1.assoc, 8);
	assert_int_equal(p.d1.assoc, 12);
	assert_int_equal(p.ll.size, 33554432);
	assert_int_equal(p.ll.line, 64);

	/* A second file merges: same entries, doubled costs. */
	assert_int_equal(sim_profile_parse(&p, (const uint8_t *)cachegrind_sample, strlen(cachegrind_sample), "t2",
					   &err), 0);
	assert_int_equal(p.nr, 3);
	assert_int_equal(p.nr_files, 2);
	assert_int_equal(p.totals.v[SIM_IR], 36);
	assert_int_equal(p.summary.v[SIM_IR], 36);
	assert_int_equal(find(&p, "a.c", "f", 3, 0)->cost.v[SIM_IR], 30);
	sim_profile_release(&p);
	assert_int_equal(p.nr, 0);
	assert_null(p.cmd);
}

static void test_callgrind(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct sim_profile p;
	const struct sim_entry *e;

	(void)state;
	sim_profile_init(&p);
	assert_int_equal(parse_clg(&p, callgrind_sample, &err), 0);
	assert_true(p.has_addr);
	assert_int_equal(p.have, (1u << SIM_IR) | (1u << SIM_BC) | (1u << SIM_BCM) | (1u << SIM_BI) | (1u << SIM_BIM));
	assert_int_equal(p.nr, 6);
	assert_int_equal(p.totals.v[SIM_IR], 127);
	assert_int_equal(p.totals.v[SIM_BC], 41);
	assert_int_equal(p.totals.v[SIM_BCM], 21);
	assert_int_equal(p.summary.v[SIM_IR], 127); /* from totals: */
	e = find(&p, "main.c", "main", 10, 0x1000);
	assert_non_null(e);
	assert_int_equal(e->cost.v[SIM_IR], 7);
	assert_int_equal(e->cost.v[SIM_BCM], 1);
	assert_string_equal(sim_profile_name(&p, e->obj), "/bin/prog");
	e = find(&p, "main.c", "main", 10, 0x1004);
	assert_non_null(e);
	assert_int_equal(e->cost.v[SIM_BIM], 1);
	e = find(&p, "main.c", "main", 12, 0x1006);
	assert_non_null(e);
	assert_int_equal(e->cost.v[SIM_IR], 7); /* not 407: the call's cost is inclusive */
	e = find(&p, "inl.h", "main", 50, 0x1010);
	assert_non_null(e);
	assert_int_equal(e->cost.v[SIM_IR], 9);
	assert_non_null(find(&p, "main.c", "main", 12, 0x1011));
	e = find(&p, "lib.c", "helper", 100, 0x2000);
	assert_non_null(e);
	assert_int_equal(e->cost.v[SIM_BC], 40);
	assert_string_equal(sim_profile_name(&p, SIM_NO_NAME), "???");
	sim_profile_release(&p);

	/* sim_profile_parse() recognises callgrind (cachegrind rules would reject '+4'). */
	sim_profile_init(&p);
	assert_int_equal(sim_profile_parse(&p, (const uint8_t *)callgrind_sample, strlen(callgrind_sample), "t", &err),
			 0);
	assert_int_equal(p.totals.v[SIM_IR], 127);
	sim_profile_release(&p);

	/* Two parts of one run in one file: their totals: lines add up (5 + 3 = 8). */
	sim_profile_init(&p);
	assert_int_equal(parse_clg(&p, "events: Ir\nfn=a\n1 5\ntotals: 5\npart: 2\nevents: Ir\nfn=a\n2 3\ntotals: 3\n", &err),
			 0);
	assert_int_equal(p.totals.v[SIM_IR], 8);
	assert_int_equal(p.summary.v[SIM_IR], 8);
	sim_profile_release(&p);

	/* CRLF line ends and a file without positions: (default "line"). */
	sim_profile_init(&p);
	assert_int_equal(parse_clg(&p, "events: Ir\r\nfl=x.c\r\nfn=g\r\n5 3\r\n+1 4\r\n", &err), 0);
	assert_int_equal(p.nr, 2);
	assert_int_equal(find(&p, "x.c", "g", 6, 0)->cost.v[SIM_IR], 4);
	assert_false(p.has_addr);
	sim_profile_release(&p);
}

struct bad_case {
	int line;          /* __LINE__ of the row */
	int callgrind;
	const char *input;
	int code;
	const char *msg;   /* a substring of the message */
};

static const struct bad_case bad_cases[] = {
	{ __LINE__, 0, "", TDP_EFORMAT, "'t.out': no 'events:' line" },
	{ __LINE__, 0, "events: Ir\nfl=a.c\nfn=f\n1 x\nsummary: 0\n", TDP_EFORMAT, "line 4: bad count 'x'" },
	{ __LINE__, 0, "events: Ir\nfl=a\nfn=f\n1 5\nsummary: 6\n", TDP_EFORMAT, "Ir 6 there, 5 summed" },
	{ __LINE__, 0, "events: Ir\nfl=a\nfn=f\n1 5\n", TDP_EFORMAT, "no 'summary:' line (truncated file?)" },
	{ __LINE__, 0, "fl=a\nfn=f\n1 5\nevents: Ir\n", TDP_EFORMAT, "line 3: cost line before the 'events:' line" },
	{ __LINE__, 0, "events: Ir Bc\nfl=a\nfn=f\n1 5 6 7\n", TDP_EFORMAT, "line 4: cost line has more counts" },
	{ __LINE__, 0, "events: Ir\nfl=a\nfn=f\n+1 5\n", TDP_EFORMAT, "line 4: relative position '+1' in a cachegrind" },
	{ __LINE__, 0, "events: Ir\ncalls=1 2\n", TDP_EFORMAT, "line 2: callgrind line 'calls=' in a cachegrind" },
	{ __LINE__, 0, "events: Ir\nob=x\n", TDP_EFORMAT, "line 2: callgrind line 'ob=x'" },
	{ __LINE__, 0, "events: Ir\nfl=a\nfn=f\n1 18446744073709551616\n", TDP_EFORMAT, "bad count '18446744073709551616'" },
	{ __LINE__, 0, "events: Ir\nfl=a\nfn=f\n1 18446744073709551615\n2 1\n", TDP_EFORMAT, "line 5: the sum of 'Ir' overflows 64 bits" },
	{ __LINE__, 0, "events: Ir Ir\n", TDP_EFORMAT, "line 1: event 'Ir' is listed twice" },
	{ __LINE__, 0, "events:\n", TDP_EFORMAT, "names no event" },
	{ __LINE__, 0, "events: Ir\nevents: Bc\n", TDP_EFORMAT, "line 2: a second 'events:' line differs" },
	{ __LINE__, 0, "events: Ir\nhello world\n", TDP_EFORMAT, "line 2: unrecognised line 'hello world'" },
	{ __LINE__, 0, "events: Ir\nfl=a\nfn=f\n1 \x01\x1b[31m\n", TDP_EFORMAT, "bad count '??[31m'" },
	{ __LINE__, 0, "events: Ir\nfl=a\0b\n", TDP_EFORMAT, "line 2: NUL byte" },
	{ __LINE__, 0, "events: Ir\nfl=a\nfn=f\n1 1\nsummary: 1 2\n", TDP_EFORMAT, "'summary:' line has more counts" },
	{ __LINE__, 0, "events: Ir\nfl=a\nfn=f\n1 1\nsummary: 1\nsummary: 1\n", TDP_EFORMAT, "line 6: a second 'summary:'" },
	{ __LINE__, 0, "events: Ir\nfl=a\nfn=f\n2000000000 1\nsummary: 1\n", TDP_EFORMAT, "line number 2000000000 is out of range" },
	{ __LINE__, 1, "events: Ir\nfn=(7)\n", TDP_EFORMAT, "line 2: function id (7) is used before it is defined" },
	{ __LINE__, 1, "events: Ir\nfl=(3 x\n", TDP_EFORMAT, "line 2: compressed name '(3 x' has no ')'" },
	{ __LINE__, 1, "events: Ir\nfl=(99999999999) x\n", TDP_EFORMAT, "bad file id" },
	{ __LINE__, 1, "events: Ir\nfn=(1) a\nfn=(1) b\n", TDP_EFORMAT, "line 3: function id (1) is defined twice" },
	{ __LINE__, 1, "events: Ir\nfn=a\n5 1\ncalls=1 3\n", TDP_EFORMAT, "ends after a 'calls=' line" },
	{ __LINE__, 1, "events: Ir\nfn=a\ncalls=1 3\nfn=b\n", TDP_EFORMAT, "line 4: a 'calls=' line must be followed" },
	{ __LINE__, 1, "events: Ir\nfn=a\ncalls=x\n", TDP_EFORMAT, "line 3: 'calls=' line has no call count" },
	{ __LINE__, 1, "events: Ir\nfn=a\n5 1\n-6 1\n", TDP_EFORMAT, "line 4: position '-6' is out of range" },
	{ __LINE__, 1, "events: Ir\nfn=a\n18446744073709551615 1\n+1 1\n", TDP_EFORMAT, "out of range" },
	{ __LINE__, 1, "positions: instr line\nevents: Ir\nfn=a\n0x1g 1 2\n", TDP_EFORMAT, "line 4: bad position '0x1g'" },
	{ __LINE__, 1, "positions: instr line\nevents: Ir\nfn=a\n0x10\n", TDP_EFORMAT, "has 1 subpositions, 'positions:' wants 2" },
	{ __LINE__, 1, "positions: line instr\n", TDP_EFORMAT, "line 1: bad 'positions:' entry 'instr'" },
	{ __LINE__, 1, "events: Ir\nfn=a\n1 1\npositions: instr line\n", TDP_EFORMAT, "line 4: 'positions:' changes" },
	{ __LINE__, 1, "version: 2\n", TDP_EFORMAT, "line 1: unsupported format version" },
	{ __LINE__, 1, "events: Ir\nfn=a\n1 5\ntotals: 4\n", TDP_EFORMAT, "'totals:' line does not match" },
	{ __LINE__, 1, "totals: 4\n", TDP_EFORMAT, "'totals:' line before the 'events:' line" },
	{ __LINE__, 1, "creator: callgrind-3.19.0\nevents: Ir\nfn=a\n1 5\n", TDP_EFORMAT, "no 'totals:' line (truncated" },
};

static void test_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct tdp_err err = TDP_ERR_INIT;
		struct sim_profile p;
		size_t len = strlen(c->input);
		int ret;

		/* Inputs with an embedded NUL: the row's string literal length. */
		if (strstr(c->msg, "NUL byte"))
			len = sizeof("events: Ir\nfl=a\0b\n") - 1;
		sim_profile_init(&p);
		ret = c->callgrind ? sim_callgrind_parse(&p, (const uint8_t *)c->input, len, "t.out", &err)
				   : sim_cachegrind_parse(&p, (const uint8_t *)c->input, len, "t.out", &err);
		if (ret != c->code || !strstr(err.msg, c->msg) || !strstr(err.msg, "'t.out'"))
			fail_msg("row at line %d: got %d '%s', want %d '%s'", c->line, ret, err.msg, c->code, c->msg);
		if (c->code == TDP_EFORMAT && !strstr(err.hint, "record it again with 'valgrind --tool="))
			fail_msg("row at line %d: no hint ('%s')", c->line, err.hint);
		sim_profile_release(&p);
	}
}

static void test_limits(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct sim_profile p;
	size_t n = SIM_MAX_LINE_LEN + 100, len;
	char *buf = malloc(n + 64);

	(void)state;
	/* A line longer than SIM_MAX_LINE_LEN. */
	len = (size_t)snprintf(buf, 64, "events: Ir\nfn=");
	memset(buf + len, 'a', n);
	len += n;
	sim_profile_init(&p);
	assert_int_equal(sim_cachegrind_parse(&p, (const uint8_t *)buf, len, "long", &err), TDP_ELIMIT);
	assert_non_null(strstr(err.msg, "'long': line 2: line is longer than 65536 bytes"));
	sim_profile_release(&p);

	/* More than SIM_MAX_EVENTS columns. */
	tdp_err_clear(&err);
	len = (size_t)snprintf(buf, 64, "events:");
	for (unsigned i = 0; i <= SIM_MAX_EVENTS; i++)
		len += (size_t)snprintf(buf + len, 16, " E%u", i);
	sim_profile_init(&p);
	assert_int_equal(sim_cachegrind_parse(&p, (const uint8_t *)buf, len, "wide", &err), TDP_ELIMIT);
	assert_non_null(strstr(err.msg, "more than 64 events"));
	sim_profile_release(&p);

	/* Unknown columns are skipped: "Foo" between Ir and Bc. */
	tdp_err_clear(&err);
	sim_profile_init(&p);
	assert_int_equal(parse_cg(&p, "events: Ir Foo Bc\nfl=a\nfn=f\n1 5 99 2\nsummary: 5 99 2\n", &err), 0);
	assert_int_equal(p.totals.v[SIM_IR], 5);
	assert_int_equal(p.totals.v[SIM_BC], 2);
	assert_int_equal(p.have, (1u << SIM_IR) | (1u << SIM_BC));
	sim_profile_release(&p);
	free(buf);
}

/* What tdprof's valgrind tool (vgtool/) writes: callgrind's format with its own events. */
static const char tdpsim_sample[] =
	"# callgrind format\nversion: 1\ncreator: tdpsim-1\npid: 77\ncmd: ./k chase\n"
	"desc: Tool: tdpsim 1 (tdprof's valgrind tool)\ndesc: Machine: generic: ...\n"
	"desc: I1 cache: 32768 B, 64 B, 8-way associative\ndesc: D1 cache: 49152 B, 64 B, 12-way associative\n"
	"desc: L2 cache: 1310720 B, 64 B, 10-way associative\ndesc: LL cache: 33554432 B, 64 B, 16-way associative\n"
	"\npositions: instr line\n"
	"events: Ir Dr Dw I1mr I2mr ILmr D1mr D2mr DLmr D1mw D2mw DLmw Bc Bcm Bi Bim Br Brm Btk Btbm Dpf Dsw "
	"Ddep Dcy2 Dcy3 DcyM Idsbm Imite\n\n"
	"ob=(1) /k\nfl=(2) k.c\nfn=(3) k_chase\n"
	"0x1190 40 1000 1000 . . . . 1000 900 800 . . . . . . . . . . . . . 990 100 2000 300000\n"
	"0x1193 39 1000 . . . . . . . . . . . 1000 1 . . . . 999 1\n"
	"fn=(4) main\n0x1040 50 1 . 1 1 1 1 . . . . . . . . . . 1 . 1\n"
	"\ntotals: 2001 1000 1 1 1 1 1000 900 800 0 0 0 1000 1 0 0 1 0 1000 1 0 0 990 100 2000 300000\n";

static void test_tdpsim(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct sim_profile p;
	const struct sim_entry *e;

	(void)state;
	sim_profile_init(&p);
	assert_int_equal(parse_clg(&p, tdpsim_sample, &err), 0);
	assert_string_equal(p.creator, "tdpsim-1");
	assert_true(sim_profile_from_tool(&p));
	assert_true(p.has_addr);
	assert_int_equal(p.ll.size, 33554432); /* the L3 is the last level */
	e = find(&p, "k.c", "k_chase", 40, 0x1190);
	assert_non_null(e);
	assert_int_equal(e->cost.v[SIM_D2MR], 900);
	assert_int_equal(e->cost.v[SIM_DLMR], 800);
	assert_int_equal(e->cost.v[SIM_DDEP], 990);
	assert_int_equal(e->cost.v[SIM_DCY2], 100);
	assert_int_equal(e->cost.v[SIM_DCYM], 300000);
	e = find(&p, "k.c", "main", 50, 0x1040);
	assert_int_equal(e->cost.v[SIM_BR], 1);
	assert_int_equal(e->cost.v[SIM_BTK], 1);
	assert_int_equal(p.totals.v[SIM_IR], 2001);
	sim_profile_release(&p);

	/* the tool always ends its file with totals: a file without them was cut short */
	sim_profile_init(&p);
	{
		const char *cut = strstr(tdpsim_sample, "\ntotals:");
		char *buf = strndup(tdpsim_sample, (size_t)(cut - tdpsim_sample) + 1);

		assert_int_equal(parse_clg(&p, buf, &err), TDP_EFORMAT);
		assert_non_null(strstr(err.msg, "no 'totals:' line"));
		free(buf);
	}
	sim_profile_release(&p);
	/* callgrind's own files are no tool profile */
	sim_profile_init(&p);
	assert_int_equal(parse_clg(&p, callgrind_sample, &err), 0);
	assert_false(sim_profile_from_tool(&p));
	sim_profile_release(&p);
}

static void test_alloc_failures(void **state)
{
	static const char *const inputs[] = { cachegrind_sample, callgrind_sample };

	(void)state;
	for (size_t k = 0; k < 2; k++) {
		long n;

		for (n = 0;; n++) {
			struct tdp_err err = TDP_ERR_INIT;
			struct sim_profile p;
			int ret;

			sim_profile_init(&p);
			tdp_alloc_fail_after(n);
			ret = sim_profile_parse(&p, (const uint8_t *)inputs[k], strlen(inputs[k]), "t", &err);
			tdp_alloc_fail_after(-1);
			sim_profile_release(&p);
			if (ret == 0)
				break;
			assert_int_equal(ret, TDP_ENOMEM);
			assert_string_equal(err.msg, "out of memory");
		}
		assert_true(n > 5); /* the loop did fail some allocations */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cachegrind),
		cmocka_unit_test(test_callgrind),
		cmocka_unit_test(test_tdpsim),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_alloc_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
