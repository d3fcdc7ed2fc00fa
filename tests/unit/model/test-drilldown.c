/*
 * Unit tests of model/drilldown: for every model tdprof lists, against its
 * counters less the NMI watchdog's, each step of the drill fits the counters, loses
 * no node the model could measure, expands what crossed (or the largest), reaches
 * the leaves, and --no-multiplex gives each group its own run; and the mismeasured
 * rule with its causes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/countset.h"
#include "base/err.h"
#include "model/drilldown.h"
#include "model/groups.h"
#include "model/model.h"

static int level_of(const struct model *m, size_t i)
{
	return m->nodes[i].level > 0 ? m->nodes[i].level : m->nodes[i].parent ? 2 : 1;
}

/* Every event of m counted (ungrouped), or only those of plan p when p is given. */
static void fill(const struct model *m, const struct groups_plan *p, struct countset *cs)
{
	for (size_t e = 0; e < m->nr_events; e++) {
		bool in = !p;

		for (size_t g = 0; p && g < p->nr && !in; g++)
			for (size_t k = 0; k < p->v[g].nr; k++)
				in |= p->v[g].ev[k] == e;
		if (in)
			assert_non_null(countset_add(cs, m->events[e].name, NULL, 1e9 + 7e6 * (double)e, -1));
	}
}

static size_t measurable(const struct metric_tree *t, const struct model *m, const struct drill_step *s)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nr_nodes; i++) {
		const struct metric_node *mn = s->nodes[i] ? metric_tree_find(t, m->nodes[i].key) : NULL;

		n += mn && !isnan(mn->value);
	}
	return n;
}

static void groups_of(const struct model *m, struct groups_event *ev)
{
	for (size_t e = 0; e < m->nr_events; e++)
		ev[e] = (struct groups_event){ m->events[e].counter, m->events[e].fixed_idx, m->events[e].leader };
}

/* One step: plan, check the groups fit, and that the plan's events measure as much as all events do. */
static void check_step(const struct model *m, const struct model_compiled *mc, const struct groups_budget *b,
		       struct drill_step *s, struct metric_tree *all, struct metric_tree *planned)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct groups_event ev[MODEL_MAX_EVENTS];
	struct countset cs = COUNTSET_INIT;
	int rc;

	o.max_level = s->level;
	o.slots = m->slots > 0 ? m->slots : 8; /* Arm's from caps/slots */
	rc = drill_step_plan(mc, &o, b, false, s, &err);
	if (rc)
		fail_msg("%s step %d: %s", m->name, s->index, err.msg);
	assert_int_equal(s->nr_runs, 1);
	assert_int_equal(s->runs[0].nr, s->groups.nr);
	groups_of(m, ev);
	for (size_t g = 0; g < s->groups.nr; g++)
		if (!groups_fit(ev, s->groups.v[g].ev, s->groups.v[g].nr, b))
			fail_msg("%s step %d: group %zu does not fit %u+%u counters", m->name, s->index, g, b->gp,
				 b->fixed);
	fill(m, &s->groups, &cs);
	if (model_evaluate(m, &cs, &o, planned, &err)) /* a step below level 1 measures no level-1 node */
		err.msg[0] = 0;
	countset_release(&cs);
	/* the reference: the events of the whole tree down to this level planned at once (a node whose
	 * formulas only an import can read, as msr@tsc@ and duration_time, is measurable in neither) */
	{
		struct groups_plan whole = GROUPS_PLAN_INIT;

		if (model_plan(mc, &o, b, &whole, &err))
			fail_msg("%s level %d: %s", m->name, o.max_level, err.msg);
		fill(m, &whole, &cs);
		groups_plan_release(&whole);
	}
	if (model_evaluate(m, &cs, &o, all, &err))
		fail_msg("%s step %d: %s", m->name, s->index, err.msg);
	countset_release(&cs);
	for (size_t i = 0; i < m->nr_nodes; i++) {
		const struct metric_node *a = s->nodes[i] ? metric_tree_find(all, m->nodes[i].key) : NULL;
		const struct metric_node *pl = s->nodes[i] ? metric_tree_find(planned, m->nodes[i].key) : NULL;

		if (a && pl && !isnan(a->value) && isnan(pl->value))
			print_error("%s: %s lost: %s\n", m->name, m->nodes[i].key, pl->why);
	}
	if (measurable(planned, m, s) != measurable(all, m, s))
		fail_msg("%s step %d: the plan measures %zu of the %zu nodes all events measure", m->name, s->index,
			 measurable(planned, m, s), measurable(all, m, s));
	/* with --no-multiplex: one run per group */
	rc = drill_step_plan(mc, &o, b, true, s, &err);
	assert_int_equal(rc, 0);
	assert_int_equal(s->nr_runs, s->groups.nr);
	for (size_t r = 0; r < s->nr_runs; r++)
		assert_true(s->runs[r].first == r && s->runs[r].nr == 1);
}

/* Every node crossed: the drill reaches every node of the tree, one level per step. */
static void test_every_model_whole_tree(void **state)
{
	size_t nr;
	const struct model *const *all = model_all(&nr);
	struct metric_tree *t = calloc(3, sizeof(*t));

	(void)state;
	assert_non_null(t);
	assert_true(nr > 10);
	for (size_t k = 0; k < nr; k++) {
		const struct model *m = all[k];
		struct model_compiled *mc;
		struct tdp_err err = TDP_ERR_INIT;
		struct groups_budget b;
		struct drill_step s, next;
		unsigned char seen[MODEL_MAX_NODES] = { 0 };
		int depth = model_depth(m), steps = 1;

		assert_int_equal(model_compile(m, &mc, &err), 0);
		drill_budget(m, true, &b);
		assert_true(b.nmi_watchdog);
		drill_step_init(&s);
		drill_step_init(&next);
		drill_first(m, &s);
		for (;;) {
			check_step(m, mc, &b, &s, &t[0], &t[1]);
			for (size_t i = 0; i < m->nr_nodes; i++) {
				if (!s.nodes[i])
					continue;
				assert_int_equal(level_of(m, i), s.index); /* everything crossed: one level per step */
				seen[i] = 1;
			}
			/* the tree of everything so far, every node crossed */
			for (size_t i = 0; i < t[0].nr; i++) {
				t[0].v[i].flagged = true;
				t[0].v[i].value = 10;
			}
			if (!drill_next(m, &s, &t[0], MODEL_MAX_LEVEL, &next))
				break;
			assert_int_equal(next.index, s.index + 1);
			drill_step_release(&s);
			s = next;
			drill_step_init(&next);
			steps++;
		}
		assert_int_equal(steps, depth);
		for (size_t i = 0; i < m->nr_nodes; i++)
			if (!seen[i])
				fail_msg("%s: the drill never measured %s", m->name, m->nodes[i].key);
		drill_step_release(&s);
		drill_step_release(&next);
		model_compiled_free(mc);
	}
	free(t);
}

/* Nothing crossed: only the children of the largest; one crossed: only its children; -l stops it. */
static void test_largest_and_crossed(void **state)
{
	size_t nr;
	const struct model *const *all = model_all(&nr);
	struct metric_tree *t = calloc(1, sizeof(*t));

	(void)state;
	assert_non_null(t);
	for (size_t k = 0; k < nr; k++) {
		const struct model *m = all[k];
		struct drill_step s, next;
		struct countset cs = COUNTSET_INIT;
		struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
		struct tdp_err err = TDP_ERR_INIT;
		const char *pick = NULL, *other = NULL;

		if (model_depth(m) < 2)
			continue;
		fill(m, NULL, &cs);
		o.max_level = MODEL_MAX_LEVEL;
		o.slots = m->slots > 0 ? m->slots : 8;
		assert_int_equal(model_evaluate(m, &cs, &o, t, &err), 0);
		countset_release(&cs);
		/* two level-1 nodes with children */
		for (size_t i = 0; i < m->nr_nodes; i++)
			for (size_t j = 0; !m->nodes[i].parent && j < m->nr_nodes; j++)
				if (m->nodes[j].parent && !strcmp(m->nodes[j].parent, m->nodes[i].key)) {
					if (!pick)
						pick = m->nodes[i].key;
					else if (!other && strcmp(pick, m->nodes[i].key))
						other = m->nodes[i].key;
					break;
				}
		assert_non_null(pick);
		for (size_t i = 0; i < t->nr; i++) {
			t->v[i].flagged = false;
			t->v[i].value = !strcmp(t->v[i].key, pick) ? 60 : 5;
		}
		drill_step_init(&s);
		drill_step_init(&next);
		drill_first(m, &s);
		assert_true(drill_next(m, &s, t, MODEL_MAX_LEVEL, &next));
		assert_non_null(strstr(next.why, "largest"));
		for (size_t i = 0; i < m->nr_nodes; i++)
			assert_int_equal(next.nodes[i], m->nodes[i].parent && !strcmp(m->nodes[i].parent, pick));
		if (other) { /* the smaller one crossed its threshold: it is drilled, not the largest */
			for (size_t i = 0; i < t->nr; i++)
				t->v[i].flagged = !strcmp(t->v[i].key, other);
			assert_true(drill_next(m, &s, t, MODEL_MAX_LEVEL, &next));
			for (size_t i = 0; i < m->nr_nodes; i++)
				assert_int_equal(next.nodes[i],
						 m->nodes[i].parent && !strcmp(m->nodes[i].parent, other));
		}
		assert_false(drill_next(m, &s, t, 1, &next)); /* -l 1: nothing below */
		drill_step_release(&s);
		drill_step_release(&next);
	}
	free(t);
}

static struct metric_node *node(struct metric_tree *t, const char *key, const char *parent, double v)
{
	struct metric_node *n = &t->v[t->nr++];

	memset(n, 0, sizeof(*n));
	n->key = key;
	n->label = key;
	n->parent = parent;
	n->value = v;
	return n;
}

static void test_mismeasured(void **state)
{
	static struct metric_tree t;
	struct drill_origin same = { 1, 1, 100, 2.0 }, child = { 2, 1, 100, 2.0 }, mux = { 2, 1, 40, 2.0 },
			    brief = { 2, 1, 100, 0.01 };
	struct drill_verdict v;
	struct metric_node *be, *mem, *neg, *ok, *na;

	(void)state;
	be = node(&t, "backend_bound", NULL, 30);
	mem = node(&t, "memory_bound", "backend_bound", 42);
	neg = node(&t, "core_bound", "backend_bound", -3.1);
	ok = node(&t, "frontend_bound", NULL, 25);
	na = node(&t, "fetch_latency", "frontend_bound", NAN);
	drill_check(&t, be, &same, NULL, &v);
	assert_false(v.mismeasured);
	drill_check(&t, ok, &same, NULL, &v);
	assert_false(v.mismeasured);
	drill_check(&t, na, &child, &same, &v);
	assert_false(v.mismeasured); /* not measurable is not mismeasured */
	drill_check(&t, mem, &mux, &same, &v);
	assert_true(v.mismeasured);
	assert_int_equal(v.cause, DRILL_MULTIPLEXED);
	assert_non_null(strstr(v.why, "above its parent backend_bound (30.0 %)"));
	drill_check(&t, mem, &brief, &same, &v);
	assert_int_equal(v.cause, DRILL_SHORT_RUN);
	drill_check(&t, mem, &child, &same, &v);
	assert_int_equal(v.cause, DRILL_OTHER_RUN);
	drill_check(&t, mem, &same, &same, &v);
	assert_int_equal(v.cause, DRILL_UNKNOWN);
	drill_check(&t, neg, &child, &same, &v);
	assert_true(v.mismeasured);
	assert_non_null(strstr(v.why, "-3.1 % is negative"));
	assert_int_equal(v.cause, DRILL_UNKNOWN); /* a negative value is not explained by the other run */
	mem->value = 30.5;                         /* within the tolerance */
	drill_check(&t, mem, &child, &same, &v);
	assert_false(v.mismeasured);
	ok->value = 104;
	drill_check(&t, ok, &same, NULL, &v);
	assert_true(v.mismeasured);
	assert_non_null(strstr(drill_cause_text(DRILL_MULTIPLEXED), "--no-multiplex"));
}

/* Merging a step: each node says its step, run and running fraction; one above its parent is not a fact. */
static void test_merge(void **state)
{
	const struct model *m = model_find("skylake");
	struct metric_tree *t = calloc(2, sizeof(*t));
	struct drill_node *info = calloc(MODEL_MAX_NODES, sizeof(*info));
	struct countset cs = COUNTSET_INIT;
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	struct drill_step s1, s2;
	struct metric_node *mem, *be;
	int run[] = { 1, 2 };
	double running[] = { 100, 50 };

	(void)state;
	assert_non_null(m);
	assert_true(t && info);
	fill(m, NULL, &cs);
	o.max_level = 2;
	assert_int_equal(model_evaluate(m, &cs, &o, &t[0], &err), 0); /* the merged tree */
	assert_int_equal(model_evaluate(m, &cs, &o, &t[1], &err), 0); /* each step's */
	countset_release(&cs);
	drill_step_init(&s1);
	drill_step_init(&s2);
	drill_first(m, &s1);
	for (size_t i = 0; i < t[1].nr; i++) { /* made-up counts give made-up values: 25 % each, 12.5 % below */
		t[1].v[i].group = 0;
		t[1].v[i].value = t[1].v[i].level == 1 ? 25 : 12.5;
	}
	drill_merge(m, &s1, &t[1], run, running, 2, 2.0, &t[0], info);
	be = (struct metric_node *)metric_tree_find(&t[0], "backend_bound");
	assert_int_equal(info[be - t[0].v].origin.step, 1);
	assert_int_equal(info[be - t[0].v].origin.run, 1);
	assert_true(info[be - t[0].v].origin.running_pct == 100);
	assert_false(isnan(be->value));
	/* step 2: memory_bound from the second group (run 2, half the time), above its parent */
	for (size_t i = 0; i < m->nr_nodes; i++)
		s2.nodes[i] = m->nodes[i].parent && !strcmp(m->nodes[i].parent, "backend_bound");
	s2.index = 2;
	s2.level = 2;
	mem = (struct metric_node *)metric_tree_find(&t[1], "memory_bound");
	mem->value = be->value + 20;
	mem->group = 1;
	drill_merge(m, &s2, &t[1], run, running, 2, 2.0, &t[0], info);
	mem = (struct metric_node *)metric_tree_find(&t[0], "memory_bound");
	assert_true(isnan(mem->value));
	assert_non_null(strstr(mem->why, "mismeasured: "));
	assert_non_null(strstr(mem->why, "multiplexed"));
	assert_int_equal(info[mem - t[0].v].origin.step, 2);
	assert_int_equal(info[mem - t[0].v].origin.run, 2);
	assert_true(info[mem - t[0].v].origin.running_pct == 50);
	assert_true(info[mem - t[0].v].raw == be->value + 20);
	assert_int_equal(info[mem - t[0].v].verdict.cause, DRILL_MULTIPLEXED);
	free(t);
	free(info);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_model_whole_tree),
		cmocka_unit_test(test_largest_and_crossed),
		cmocka_unit_test(test_mismeasured),
		cmocka_unit_test(test_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
