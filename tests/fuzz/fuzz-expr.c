/*
 * fuzz-expr.c: the top-down expression language (model/expr.h: expr_parse),
 * then the walk of its names and its evaluation with every name bound.
 */
#include "fuzz.h"

#include "base/err.h"
#include "model/expr.h"

static double lookup(void *arg, const struct expr_node *n)
{
	(void)arg;
	return (double)(n->ref % 7) - 1.0; /* 0 and negatives too: division by zero */
}

static bool count_name(void *arg, const struct expr_node *n)
{
	FUZZ_CHECK(n->op == EXPR_NAME && n->name != NULL);
	return ++*(size_t *)arg < 100000;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct expr e = EXPR_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	struct expr_env env = { lookup, NULL, { 4, 1, 0 }, false };
	size_t names = 0;
	int ret = fuzz_check_ret(expr_parse(&e, (const char *)data, size, &err), &err);

	FUZZ_CHECK(ret == 0 || ret == TDP_EFORMAT || ret == TDP_ELIMIT || ret == TDP_ENOMEM);
	if (ret) {
		FUZZ_CHECK(e.v == NULL && e.nr == 0); /* "on failure e is released" */
		return 0;
	}
	FUZZ_CHECK(e.root >= 0 && (size_t)e.root < e.nr && e.nr <= EXPR_MAX_NODES);
	for (size_t i = 0; i < e.nr; i++) {
		struct expr_node *n = &e.v[i];

		FUZZ_CHECK(n->a < (int)e.nr && n->b < (int)e.nr && n->c < (int)e.nr);
		FUZZ_CHECK(n->offset <= size);
		if (n->op == EXPR_NAME)
			n->ref = (int)i;
		if (n->op == EXPR_CONST)
			FUZZ_CHECK(n->cnst >= 0 && n->cnst < EXPR_C_NR);
	}
	expr_walk_names(&e, &env, count_name, &names);
	(void)expr_eval(&e, &env);
	env.unclamped = true;
	(void)expr_eval(&e, &env);
	expr_release(&e);
	return 0;
}
