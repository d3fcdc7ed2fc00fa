/*
 * Unit tests of model/expr: the metric expression language. Parsing and its
 * errors, precedence, NAN semantics, perf's own unit-test values
 * (tools/perf/tests/parse-metric.c), and hostile input that must never crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/err.h"
#include "model/expr.h"

/* Names for the tests: a tiny symbol table looked up by name. */
struct sym {
	const char *name;
	double value;
};

struct syms {
	const struct sym *v;
	size_t nr;
};

static double lookup(void *arg, const struct expr_node *n)
{
	const struct syms *s = arg;

	for (size_t i = 0; i < s->nr; i++)
		if (!strcasecmp(s->v[i].name, n->name))
			return s->v[i].value;
	return NAN;
}

static double eval_with(const char *src, const struct sym *v, size_t nr, double slots)
{
	struct expr e = EXPR_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	struct syms s = { v, nr };
	struct expr_env env = { lookup, &s, { slots, 1, 0 }, false };
	double r;

	if (expr_parse(&e, src, strlen(src), &err))
		fail_msg("'%s' does not parse: %s", src, err.msg);
	r = expr_eval(&e, &env);
	expr_release(&e);
	return r;
}

static double num(const char *src)
{
	return eval_with(src, NULL, 0, 4);
}

static void assert_near(double got, double want)
{
	if (isnan(want) ? !isnan(got) : !(fabs(got - want) <= 1e-12 * (fabs(want) + 1)))
		fail_msg("got %.15g, want %.15g", got, want);
}

static int parse_error(const char *src, char *msg, size_t size)
{
	struct expr e = EXPR_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	int rc = expr_parse(&e, src, strlen(src), &err);

	if (msg)
		snprintf(msg, size, "%s", err.msg);
	assert_null(e.v);
	assert_int_equal(e.root, -1);
	return rc;
}

static void test_arithmetic_and_precedence(void **state)
{
	(void)state;
	assert_near(num("1 + 2 * 3"), 7);          /* * binds tighter */
	assert_near(num("(1 + 2) * 3"), 9);
	assert_near(num("10 - 4 - 3"), 3);         /* left-associative: (10 - 4) - 3 */
	assert_near(num("24 / 4 / 3"), 2);         /* (24 / 4) / 3 */
	assert_near(num("-3 * -2"), 6);
	assert_near(num("--5"), 5);
	assert_near(num("1e3 + 0.5 + .25"), 1000.75);
	assert_near(num("0x10 + 1"), 17);
	assert_near(num("2 < 3"), 1);
	assert_near(num("3 <= 2"), 0);
	assert_near(num("2 == 2 & 1 != 1 | 1"), 1); /* (1 & 0) | 1 */
	assert_near(num("1 + 1 if 0 else 7 * 2"), 14); /* if-else binds loosest */
	assert_near(num("1 if 0 else 2 if 1 else 3"), 2); /* right-associative */
	assert_near(num("5 if 3 - 3 else 6"), 6); /* a number as condition: 0 is false */
	assert_near(num("#slots * 2"), 8);
	assert_near(num("#SMT_on + #core_wide"), 1); /* constants are case-insensitive */
}

static void test_functions_and_nan(void **state)
{
	(void)state;
	assert_near(num("d_ratio(1, 4)"), 0.25);
	assert_near(num("d_ratio(5, 0)"), 0);     /* perf: 0 when the divisor is 0 */
	assert_near(num("5 / 0"), NAN);           /* a plain division by zero is not measurable */
	assert_near(num("max(2, 3) + min(2, 3)"), 5);
	assert_near(num("max(1 - 2, 0)"), 0);
	/* NAN propagates through everything, including max() and conditions */
	assert_near(eval_with("max(missing, 0)", NULL, 0, 4), NAN);
	assert_near(eval_with("1 if missing else 2", NULL, 0, 4), NAN);
	assert_near(eval_with("missing < 1", NULL, 0, 4), NAN);
	assert_near(eval_with("d_ratio(1, missing)", NULL, 0, 4), NAN);
	/* only the selected branch is evaluated: the other may be unmeasurable */
	assert_near(eval_with("2 if 1 else missing", NULL, 0, 4), 2);
}

/* tools/perf/tests/parse-metric.c: perf's own expected values. */
static void test_perf_parse_metric_values(void **state)
{
	static const struct sym v[] = {
		{ "idq_uops_not_delivered.core", 300 },
		{ "cpu_clk_unhalted.thread", 200 },
		{ "cpu_clk_unhalted.one_thread_active", 400 },
		{ "cpu_clk_unhalted.ref_xclk", 600 },
		{ "inst_retired.any", 300 },
	};

	(void)state;
	/* 300 / (4 * (200 / 2 * (1 + 400 / 600))) = 300 / (4 * 166.67) = 0.45 */
	assert_near(eval_with("idq_uops_not_delivered.core / (4 * ((cpu_clk_unhalted.thread / 2) * "
			      "(1 + cpu_clk_unhalted.one_thread_active / cpu_clk_unhalted.ref_xclk)))",
			      v, 5, 4),
		    0.45);
	/* IPC = 300 / 200 */
	assert_near(eval_with("inst_retired.any / cpu_clk_unhalted.thread", v, 5, 4), 1.5);
}

static void test_names_escapes_and_raw_events(void **state)
{
	struct expr e = EXPR_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	const char *src = "topdown\\-fe\\-bound + 'topdown-be-bound' + cpu@INT_MISC.RECOVERY_CYCLES\\,cmask\\=1\\,edge@ "
			  "+ EXE_ACTIVITY.1_PORTS_UTIL";
	size_t names = 0;

	(void)state;
	assert_int_equal(expr_parse(&e, src, strlen(src), &err), 0);
	for (size_t i = 0; i < e.nr; i++) {
		const struct expr_node *n = &e.v[i];

		if (n->op != EXPR_NAME)
			continue;
		switch (names++) {
		case 0: assert_string_equal(n->name, "topdown-fe-bound"); assert_false(n->raw); break;
		case 1: assert_string_equal(n->name, "topdown-be-bound"); break;
		case 2:
			assert_string_equal(n->name, "cpu/INT_MISC.RECOVERY_CYCLES,cmask=1,edge/");
			assert_true(n->raw);
			break;
		case 3: assert_string_equal(n->name, "EXE_ACTIVITY.1_PORTS_UTIL"); break;
		}
	}
	assert_int_equal(names, 4);
	expr_release(&e);
	/* 'if' quoted or escaped is a name, not the keyword */
	assert_near(eval_with("'if' + \\else", (const struct sym[]){ { "if", 1 }, { "else", 2 } }, 2, 4), 3);
}

static void test_parse_errors(void **state)
{
	char msg[TDP_ERR_MSG_MAX];

	(void)state;
	assert_int_equal(parse_error("", msg, sizeof(msg)), TDP_EFORMAT);
	assert_non_null(strstr(msg, "empty expression"));
	assert_int_equal(parse_error("(1 + 2", msg, sizeof(msg)), TDP_EFORMAT);
	assert_string_equal(msg, "at offset 6: expected ')' (found the end)");
	assert_int_equal(parse_error("1 +* 2", msg, sizeof(msg)), TDP_EFORMAT);
	assert_non_null(strstr(msg, "at offset 3"));
	assert_int_equal(parse_error("1 if 2", msg, sizeof(msg)), TDP_EFORMAT);
	assert_non_null(strstr(msg, "expected 'else'"));
	assert_int_equal(parse_error("foo(1, 2)", msg, sizeof(msg)), TDP_EFORMAT);
	assert_non_null(strstr(msg, "unknown function"));
	assert_int_equal(parse_error("max(1)", msg, sizeof(msg)), TDP_EFORMAT);
	assert_int_equal(parse_error("#nope", msg, sizeof(msg)), TDP_EFORMAT);
	assert_non_null(strstr(msg, "unknown constant"));
	assert_int_equal(parse_error("1 2", msg, sizeof(msg)), TDP_EFORMAT);
	assert_int_equal(parse_error("12abc", msg, sizeof(msg)), TDP_EFORMAT);
	assert_int_equal(parse_error("a $ b", msg, sizeof(msg)), TDP_EFORMAT);
	assert_string_equal(msg, "at offset 2: unexpected character (found '$')");
	assert_int_equal(parse_error("cpu@unterminated", msg, sizeof(msg)), TDP_EFORMAT);
	assert_int_equal(parse_error("'open", msg, sizeof(msg)), TDP_EFORMAT);
	assert_int_equal(parse_error("a\\", msg, sizeof(msg)), TDP_EFORMAT);
	assert_int_equal(parse_error("1 = 2", msg, sizeof(msg)), TDP_EFORMAT);
	assert_int_equal(parse_error("1 < 2 < 3", msg, sizeof(msg)), TDP_EFORMAT); /* not chained */
	{
		const char nul[] = { 'a', '+', '\0', 'b' };
		struct expr e = EXPR_INIT;
		struct tdp_err err = TDP_ERR_INIT;

		assert_int_equal(expr_parse(&e, nul, sizeof(nul), &err), TDP_EFORMAT);
		assert_non_null(strstr(err.msg, "byte 0x00"));
	}
}

static void test_limits(void **state)
{
	char buf[EXPR_MAX_LEN + 16];
	char msg[TDP_ERR_MSG_MAX];
	size_t n = 0;

	(void)state;
	/* nesting deeper than EXPR_MAX_DEPTH */
	for (int i = 0; i < EXPR_MAX_DEPTH + 5; i++)
		buf[n++] = '(';
	buf[n++] = '1';
	for (int i = 0; i < EXPR_MAX_DEPTH + 5; i++)
		buf[n++] = ')';
	buf[n] = '\0';
	assert_int_equal(parse_error(buf, msg, sizeof(msg)), TDP_ELIMIT);
	assert_non_null(strstr(msg, "nested deeper"));
	/* a chain of unary minus */
	memset(buf, '-', 500);
	buf[500] = '1';
	buf[501] = '\0';
	assert_int_equal(parse_error(buf, NULL, 0), TDP_ELIMIT);
	/* longer than EXPR_MAX_LEN */
	memset(buf, '1', EXPR_MAX_LEN + 1);
	buf[EXPR_MAX_LEN + 1] = '\0';
	assert_int_equal(parse_error(buf, msg, sizeof(msg)), TDP_ELIMIT);
	/* more terms than EXPR_MAX_NODES: "1+1+1..." */
	n = 0;
	for (int i = 0; i < EXPR_MAX_NODES + 10 && n + 2 < EXPR_MAX_LEN; i++) {
		buf[n++] = '1';
		buf[n++] = '+';
	}
	buf[n++] = '1';
	buf[n] = '\0';
	assert_int_equal(parse_error(buf, msg, sizeof(msg)), TDP_ELIMIT);
	/* a name longer than EXPR_MAX_NAME */
	memset(buf, 'a', EXPR_MAX_NAME + 1);
	buf[EXPR_MAX_NAME + 1] = '\0';
	assert_int_equal(parse_error(buf, NULL, 0), TDP_ELIMIT);
	/* a long number */
	memset(buf, '7', EXPR_MAX_NUMBER + 1);
	buf[EXPR_MAX_NUMBER + 1] = '\0';
	assert_int_equal(parse_error(buf, NULL, 0), TDP_ELIMIT);
}

/* Random and mutated strings: parse must return 0 or an error, never crash or leak. */
static void test_hostile_strings(void **state)
{
	static const char alphabet[] = "()+-*/<>=!&|,#@\\'. 0123456789eExXabcdif_slotsmaxd_ratioelse";
	static const char *const seeds[] = {
		"d_ratio(a - b, 6 * c)",
		"(x if #smt_on else y) / (4 * z)",
		"cpu@INT_MISC.RECOVERY_CYCLES\\,cmask\\=1\\,edge@ * 5 / max(1, s)",
		"'q' + \\-n",
	};
	uint64_t seed = 12345;
	char buf[256];

	(void)state;
	for (int round = 0; round < 20000; round++) {
		struct expr e = EXPR_INIT;
		struct tdp_err err = TDP_ERR_INIT;
		size_t len;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		if (round % 2) {
			len = (seed >> 33) % sizeof(buf);
			for (size_t i = 0; i < len; i++) {
				seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
				buf[i] = (round % 4 == 1) ? alphabet[(seed >> 33) % (sizeof(alphabet) - 1)]
							  : (char)(seed >> 40);
			}
		} else {
			const char *s = seeds[(seed >> 33) % 4];

			len = strlen(s);
			memcpy(buf, s, len);
			for (int k = 0; k < 3; k++) {
				seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
				buf[(seed >> 33) % len] = alphabet[(seed >> 20) % (sizeof(alphabet) - 1)];
			}
		}
		if (expr_parse(&e, buf, len, &err) == 0) {
			struct expr_env env = { NULL, NULL, { 4, 1, 1 }, false };

			(void)expr_eval(&e, &env);
			env.unclamped = true;
			(void)expr_eval(&e, &env);
			expr_release(&e);
		} else {
			assert_true(err.msg[0] != '\0');
			assert_null(e.v);
		}
	}
}

static void test_allocation_failures(void **state)
{
	const char *src = "d_ratio(de_src_op_disp.all - ex_ret_ops, 6 * ls_not_halted_cyc) + max(a, b) * (c if d else e)";
	long total;

	(void)state;
	{
		struct expr e = EXPR_INIT;

		tdp_alloc_fail_after(-1);
		assert_int_equal(expr_parse(&e, src, strlen(src), NULL), 0);
		total = tdp_alloc_fail_after(-1); /* allocations one parse makes */
		expr_release(&e);
	}
	assert_true(total > 5);
	for (long n = 0; n < total; n++) {
		struct expr e = EXPR_INIT;
		struct tdp_err err = TDP_ERR_INIT;
		int rc;

		tdp_alloc_fail_after(n);
		rc = expr_parse(&e, src, strlen(src), &err);
		tdp_alloc_fail_after(-1);
		if (rc == 0)
			expr_release(&e);
		else
			assert_int_equal(rc, TDP_ENOMEM);
	}
}

static bool count_cb(void *arg, const struct expr_node *n)
{
	(void)n;
	(*(int *)arg)++;
	return true;
}

static void test_walk_constant_conditions(void **state)
{
	struct expr e = EXPR_INIT;
	const char *src = "(a if #slots - 5 else b - c) + (d if x else e)";
	struct expr_env env = { NULL, NULL, { 5, 0, 0 }, false };
	int n = 0;

	(void)state;
	assert_int_equal(expr_parse(&e, src, strlen(src), NULL), 0);
	/* #slots - 5 is 0 with 5 slots: only b, c; x decides at run time: x, d, e */
	expr_walk_names(&e, &env, count_cb, &n);
	assert_int_equal(n, 5);
	env.consts[EXPR_C_SLOTS] = 8;
	n = 0;
	expr_walk_names(&e, &env, count_cb, &n); /* a; x, d, e */
	assert_int_equal(n, 4);
	expr_release(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arithmetic_and_precedence),
		cmocka_unit_test(test_functions_and_nan),
		cmocka_unit_test(test_perf_parse_metric_values),
		cmocka_unit_test(test_names_escapes_and_raw_events),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_hostile_strings),
		cmocka_unit_test(test_allocation_failures),
		cmocka_unit_test(test_walk_constant_conditions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
