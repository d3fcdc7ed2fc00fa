/*
 * model-internal.h: the compiled form of a model, shared by model.c (compiling),
 * eval.c, plan.c and validate.c. Included only inside src/model/.
 */
#ifndef TDPROF_MODEL_MODEL_INTERNAL_H
#define TDPROF_MODEL_MODEL_INTERNAL_H

#include <stdint.h>

#include "model/expr.h"
#include "model/model.h"

/* expr_node.ref_kind once bound */
enum { MODEL_REF_NONE = 0, MODEL_REF_EVENT = 1, MODEL_REF_FORMULA = 2 };

/* Keys per event: its name, its aliases and its live spec. */
#define MODEL_KEYS_PER_EVENT (MODEL_MAX_ALIASES + 2)

struct compiled_formula {
	struct expr v[MODEL_MAX_VARIANTS];
	size_t nr; /* variants */
};

struct model_compiled {
	const struct model *m;
	struct compiled_formula *f; /* m->nr_formulas */
	char **keys;                /* m->nr_events * MODEL_KEYS_PER_EVENT; NULL where unused */
	int *node_formula;          /* per node: formula index */
	int *node_parent;           /* per node: index of the parent node, -1 at level 1 */
};

/* A set of model events. */
#define EVSET_WORDS ((MODEL_MAX_EVENTS + 63) / 64)
struct evset {
	uint64_t w[EVSET_WORDS];
};

static inline void evset_add(struct evset *s, size_t i)
{
	s->w[i / 64] |= UINT64_C(1) << (i % 64);
}

static inline bool evset_has(const struct evset *s, size_t i)
{
	return (s->w[i / 64] >> (i % 64)) & 1;
}

static inline void evset_union(struct evset *s, const struct evset *o)
{
	for (size_t i = 0; i < EVSET_WORDS; i++)
		s->w[i] |= o->w[i];
}

/** Index of the formula called name (case-insensitive) in m, or -1. */
int model_formula_index(const struct model *m, const char *name);

/* The level of node i: its def's level, else 1 without a parent and 2 with one. */
int model_node_level(const struct model_compiled *mc, size_t i);

/** Index of the node with key in m, or -1. */
int model_node_index(const struct model *m, const char *key);

/**
 * Index of the event of mc whose keys include key (from model_event_key), or -1.
 */
int model_event_index_by_key(const struct model_compiled *mc, const char *key);

/**
 * The events variant v of formula f reaches, following the formulas it names
 * through chosen[] (one variant per formula; -1: the formula contributes nothing),
 * with the constants of env. depth guards against loops (callers pass 0).
 */
void model_formula_events(const struct model_compiled *mc, size_t f, int v, const int *chosen,
			  const struct expr_env *env, struct evset *out, int depth);

/**
 * model_eval() with the algebra mode of expr_env.unclamped (for model_validate()).
 */
int model_eval_mode(const struct model_compiled *mc, const struct countset *cs, const struct model_eval_opts *o,
		    bool unclamped, struct metric_tree *out, struct tdp_err *err) __attribute__((warn_unused_result));

#endif
