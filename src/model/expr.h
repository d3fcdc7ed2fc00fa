/*
 * expr.h: the expression language of the top-down models, parsed once into a
 * tree and evaluated many times.
 *
 * A model's metric is a formula written in the spirit of perf's metric JSON
 * (tools/perf/pmu-events/arch/<arch>/<cpu>/ metric files, MetricExpr), so that perf's and
 * Intel's formulas can be copied into a table and compared by eye:
 *
 *   numbers      12   0.5   1e9   0x10
 *   names        INT_MISC.UOP_DROPPING   tma_info_thread_slots   ls_not_halted_cyc
 *                an event of the model or another metric of the model; perf's
 *                backslash escapes are accepted (topdown\-fe\-bound), and so is a
 *                quoted name ('topdown-fe-bound')
 *   raw events   cpu@INT_MISC.RECOVERY_CYCLES\,cmask\=1\,edge@   (perf's spelling;
 *                held as "cpu/INT_MISC.RECOVERY_CYCLES,cmask=1,edge/" and
 *                resolved, like a name, to an event of the model)
 *   constants    #slots  #smt_on  #core_wide   (case-insensitive: #SMT_on)
 *   operators    + - * /   unary -   < > <= >= == !=   & (and)   | (or)
 *                X if C else Y   (C is true when it is a number other than 0)
 *   functions    d_ratio(a, b)  a / b, or 0 when b is 0 (perf's definition)
 *                max(a, b)  min(a, b)
 *
 * Precedence, lowest first: `if else` (right-associative), |, &, comparisons,
 * + -, * /, unary minus. Names and keywords (if, else) are case-sensitive as
 * written; resolving a name to an event is the caller's business (model.c
 * compares event names the way perf users expect).
 *
 * Evaluation: a name's value comes from the caller (expr_env.lookup). NAN means
 * "not measurable" and propagates through every operator, including max(), min()
 * and conditions (a condition that is NAN makes the result NAN). x / 0 is NAN;
 * d_ratio(x, 0) is 0, as in perf. Only the branch a condition selects is
 * evaluated.
 *
 * Lifecycle:
 *   1. struct expr e = EXPR_INIT;
 *   2. expr_parse(&e, src, len, &err);
 *   3. bind names (set node.ref for each EXPR_NAME node), then expr_eval() as often
 *      as needed;
 *   4. expr_release(&e).
 *
 * Hostile input: the parser accepts any bytes and fails cleanly (never crashes)
 * within the limits below; the unit tests feed it random strings.
 */
#ifndef TDPROF_MODEL_EXPR_H
#define TDPROF_MODEL_EXPR_H

#include <stdbool.h>
#include <stddef.h>

struct tdp_err;

#define EXPR_MAX_LEN 8192   /* bytes of one expression */
#define EXPR_MAX_NODES 2048 /* tree nodes of one expression */
#define EXPR_MAX_DEPTH 64   /* nesting of parentheses, operators and calls */
#define EXPR_MAX_NAME 512   /* bytes of one name after unescaping */
#define EXPR_MAX_NUMBER 64  /* bytes of one number literal */

enum expr_op {
	EXPR_NUM = 0, /* num */
	EXPR_NAME,    /* name, ref */
	EXPR_CONST,   /* cnst */
	EXPR_NEG,     /* -a */
	EXPR_ADD,
	EXPR_SUB,
	EXPR_MUL,
	EXPR_DIV,
	EXPR_LT,
	EXPR_GT,
	EXPR_LE,
	EXPR_GE,
	EXPR_EQ,
	EXPR_NE,
	EXPR_AND,
	EXPR_OR,
	EXPR_IF,      /* a if b else c */
	EXPR_DRATIO,  /* d_ratio(a, b) */
	EXPR_MAX,     /* max(a, b) */
	EXPR_MIN,     /* min(a, b) */
};

enum expr_const {
	EXPR_C_SLOTS = 0, /* #slots: pipeline slots per cycle */
	EXPR_C_SMT_ON,    /* #smt_on: 1 when SMT is on */
	EXPR_C_CORE_WIDE, /* #core_wide: 1 when every thread of the cores is counted */
	EXPR_C_NR,
};

struct expr_node {
	enum expr_op op;
	int a, b, c;    /* operand node indices; -1 when unused */
	double num;     /* EXPR_NUM */
	int cnst;       /* EXPR_CONST: enum expr_const */
	char *name;     /* EXPR_NAME: unescaped name (owned); raw events as "pmu/terms/" */
	bool raw;       /* EXPR_NAME written as pmu@...@ */
	int ref_kind;   /* EXPR_NAME: set by the caller when binding (0: unbound) */
	int ref;        /* EXPR_NAME: index set by the caller when binding */
	size_t offset;  /* byte offset of the node in the source (for messages) */
};

struct expr {
	struct expr_node *v; /* nodes; v[root] is the top */
	size_t nr;
	size_t alloc;
	int root;            /* -1 until parsed */
};

#define EXPR_INIT { NULL, 0, 0, -1 }

/**
 * Parse src[0..len) (need not be NUL-terminated; borrowed) into e, which must be
 * empty (EXPR_INIT or released). Returns 0; TDP_EFORMAT with a message giving the
 * byte offset and what was expected ("at offset 7: expected ')'"), or TDP_ELIMIT
 * beyond the EXPR_MAX_* limits, or TDP_ENOMEM. On failure e is released.
 * Allocates; reentrant.
 */
int expr_parse(struct expr *e, const char *src, size_t len, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** Free the tree; e is left as after EXPR_INIT. */
void expr_release(struct expr *e);

/** The value of a name node, provided by the caller (NAN: not measurable). */
typedef double expr_lookup_fn(void *arg, const struct expr_node *n);

struct expr_env {
	expr_lookup_fn *lookup;   /* required when the tree has names */
	void *arg;
	double consts[EXPR_C_NR]; /* values of #slots, #smt_on, #core_wide */
	/*
	 * Algebra mode, for model_validate(): max()/min() with a literal number on
	 * one side return the other side, and d_ratio(a, b) is a / b, so that
	 * "children add up to their parent" can be checked as an identity.
	 */
	bool unclamped;
};

/** Evaluate e (parsed, names bound as env->lookup expects). Never fails: NAN. */
double expr_eval(const struct expr *e, const struct expr_env *env);

/**
 * Call fn for each name node the evaluation of e can reach, given the constants
 * in env: a condition made only of numbers and constants selects its branch
 * (as perf does when it collects a metric's events), any other condition lets
 * both branches through. fn returns false to stop the walk early.
 */
typedef bool expr_name_fn(void *arg, const struct expr_node *n);
void expr_walk_names(const struct expr *e, const struct expr_env *env, expr_name_fn *fn, void *arg);

/** The constant for "#name" (case-insensitive, without '#'), or -1. */
int expr_const_lookup(const char *name, size_t len);

/** Name of a constant as written in formulas ("#slots"). */
const char *expr_const_name(int c);

#endif
