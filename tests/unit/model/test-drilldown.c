/*
 * Unit tests of model/drilldown: for every model tdprof lists, against its
 * counters less the NMI watchdog's, each step of the drill fits the counters, loses
 * no node the model could measure, expands what crossed (or the largest), reaches
 * the leaves, and --no-multiplex gives each group its own run; the verdict's path is
 * drilled whatever its rank; the mismeasured rule with its causes; and the whole
 * drill (drill_run()) over counts a test counter gives each step as a live run would:
 * the run and running fraction of every node, the leaf `why` locates always measured as
 * deep as the tree goes, a step whose counts are off flagged with its cause.
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
#include "model/locate.h"
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

/* Nothing crossed, the largest is Retiring: its children are drilled, and those of the verdict (the largest stall). */
static void test_verdict_path(void **state)
{
	const struct model *m = model_find("skylake");
	struct metric_tree *t = calloc(1, sizeof(*t));
	struct countset cs = COUNTSET_INIT;
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	struct drill_step s, next;
	static const struct { const char *key; double v; } l1[] = {
		{ "retiring", 45 }, { "backend_bound", 30 }, { "frontend_bound", 15 }, { "bad_speculation", 10 },
	};

	(void)state;
	assert_true(m && t);
	fill(m, NULL, &cs);
	o.max_level = MODEL_MAX_LEVEL;
	assert_int_equal(model_evaluate(m, &cs, &o, t, &err), 0);
	countset_release(&cs);
	for (size_t i = 0; i < t->nr; i++) { /* as after step 1: nothing below level 1 measured */
		t->v[i].value = NAN;
		for (size_t k = 0; k < sizeof(l1) / sizeof(l1[0]); k++)
			if (!strcmp(t->v[i].key, l1[k].key))
				t->v[i].value = l1[k].v;
	}
	model_classify(t);
	assert_string_equal(t->verdict.category, "backend_bound");
	assert_false(t->verdict.over_threshold);
	drill_step_init(&s);
	drill_step_init(&next);
	drill_first(m, &s);
	assert_true(drill_next(m, &s, t, MODEL_MAX_LEVEL, &next));
	for (size_t i = 0; i < m->nr_nodes; i++)
		assert_int_equal(next.nodes[i], m->nodes[i].parent && (!strcmp(m->nodes[i].parent, "retiring") ||
								       !strcmp(m->nodes[i].parent, "backend_bound")));
	assert_non_null(strstr(next.why, "the largest"));
	assert_non_null(strstr(next.why, "Backend Bound, on the verdict's path"));
	drill_step_release(&s);
	drill_step_release(&next);
	free(t);
}

/* A parent whose children are in another unit (Intel's cycle-domain nodes: approx_children) does not bound them. */
static void test_parent_of_other_unit(void **state)
{
	static struct metric_tree t;
	static const struct model_node_def exact = { .key = "backend_bound" }, approx = { .key = "memory_bound",
											  .approx_children = true };
	struct drill_origin o = { 2, 1, 100, 2.0 };
	struct drill_verdict v;
	struct metric_node *be, *mem, *l1;

	(void)state;
	be = node(&t, "backend_bound", NULL, 30);
	mem = node(&t, "memory_bound", "backend_bound", 25);
	l1 = node(&t, "l1_bound", "memory_bound", 40);
	be->def = &exact;
	mem->def = &approx;
	drill_check(&t, l1, &o, &o, &v);
	assert_false(v.mismeasured); /* 40 % of cycles under 25 % of slots: no contradiction */
	mem->value = 35;
	drill_check(&t, mem, &o, &o, &v);
	assert_true(v.mismeasured); /* Memory Bound is a part of Backend Bound */
	l1->value = 120;
	drill_check(&t, l1, &o, &o, &v);
	assert_true(v.mismeasured); /* above 100 % is out of bounds in any unit */
}

/* A counter for drill_run(): made-up counts (fill()'s) of the planned events, as a live run numbers them. */
struct counter {
	const struct model *m;
	double running;              /* percent every group ran */
	int fail_step;               /* this step's counting fails; 0: none */
	const char *scale_event;     /* from step 2 on, this event's count is scaled; NULL none */
	double scale;
	size_t calls;
	size_t runs[DRILL_MAX_STEPS]; /* runs each step asked for */
	const double *fixed;         /* per event (m->events order) a count instead of fill()'s; NULL */
};

static int count(void *arg, const struct drill_step *s, struct countset *out, bool *stop, struct tdp_err *err)
{
	struct counter *c = arg;

	(void)stop;
	c->runs[c->calls++ % DRILL_MAX_STEPS] = s->nr_runs;
	if (s->index == c->fail_step)
		return tdp_err_set(err, TDP_ENOTSUP, "step %d's events do not open here", s->index);
	for (size_t g = 0; g < s->groups.nr; g++)
		for (size_t k = 0; k < s->groups.v[g].nr; k++) {
			size_t e = s->groups.v[g].ev[k];
			double v = c->fixed ? c->fixed[e] : 1e9 + 7e6 * (double)e;
			struct count *n;

			if (c->scale_event && s->index >= 2 && !strcmp(c->m->events[e].name, c->scale_event))
				v *= c->scale;
			assert_non_null(n = countset_add(out, c->m->events[e].name, NULL, v, (int)g));
			n->running_pct = c->running;
		}
	out->elapsed_ns = 1e9;
	return 0;
}

static const struct drill_node *info_of(const struct drill_info *info, const struct metric_tree *t, const char *key)
{
	const struct drill_node *d = drill_info_node(info, t, key);

	assert_non_null(d);
	return d;
}

/* The invariants of a whole drill of m over made-up counts. */
static void check_drill(const struct model *m, bool no_multiplex, struct metric_tree *t, struct drill_info *info)
{
	struct counter c = { .m = m, .running = 100 };
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct groups_budget b;
	struct tdp_err err = TDP_ERR_INIT;
	const struct metric_node *leaf;
	int depth = model_depth(m);
	struct countset none = COUNTSET_INIT;
	static struct metric_tree constant; /* the nodes whose formula needs no count (CXL on a CPU without) */

	drill_budget(m, true, &b);
	o.max_level = depth;
	o.slots = m->slots > 0 ? m->slots : 8;
	if (drill_run(m, &o, &b, no_multiplex, &(struct drill_counter){ count, &c }, t, info, &err))
		fail_msg("%s: %s", m->name, err.msg);
	if (model_evaluate(m, &none, &o, &constant, &err))
		err.msg[0] = 0;
	assert_int_equal(constant.nr, t->nr);
	assert_true(info->nr_steps >= 1 && info->nr_steps <= (size_t)depth);
	assert_int_equal(c.calls, info->nr_steps);
	assert_true(info->no_multiplex == no_multiplex);
	for (size_t k = 0; k < info->nr_steps; k++) {
		assert_int_equal(info->steps[k].index, (int)k + 1);
		assert_int_equal(info->steps[k].runs, no_multiplex ? info->steps[k].groups : 1);
		assert_int_equal(info->steps[k].runs, c.runs[k]);
	}
	for (size_t i = 0; i < t->nr; i++) {
		const struct metric_node *n = &t->v[i];
		const struct drill_node *d = &info->nodes[i];

		if (!d->origin.step) { /* what no step measured is not a figure */
			if (!isnan(n->value) && isnan(constant.v[i].value))
				fail_msg("%s: %s is %g, and no step measured it", m->name, n->key, n->value);
			continue;
		}
		assert_true(d->origin.run >= 1 && (size_t)d->origin.run <= info->steps[d->origin.step - 1].runs);
		if (n->parent) /* a node is measured the step after its parent */
			assert_int_equal(info_of(info, t, n->parent)->origin.step, d->origin.step - 1);
		else
			assert_int_equal(d->origin.step, 1);
		if (d->verdict.mismeasured)
			assert_true(isnan(n->value) && !isnan(d->raw) && strstr(n->why, "mismeasured"));
	}
	/* why's leaf: measured, and as deep as the drill could go (every child of it was measured) */
	leaf = locate_leaf(t);
	if (!leaf)
		return;
	assert_true(info_of(info, t, leaf->key)->origin.step >= 1);
	for (size_t i = 0; i < t->nr; i++)
		if (t->v[i].parent && !strcmp(t->v[i].parent, leaf->key)) {
			if (!info_of(info, t, t->v[i].key)->origin.step)
				fail_msg("%s: the leaf %s has a child %s no step measured", m->name, leaf->key, t->v[i].key);
			assert_true(isnan(t->v[i].value));
		}
}

static void test_run_every_model(void **state)
{
	size_t nr;
	const struct model *const *all = model_all(&nr);
	struct metric_tree *t = calloc(1, sizeof(*t));
	struct drill_info *info = calloc(1, sizeof(*info));

	(void)state;
	assert_true(t && info);
	for (size_t k = 0; k < nr; k++) {
		check_drill(all[k], false, t, info);
		check_drill(all[k], true, t, info);
	}
	free(t);
	free(info);
}

/*
 * Zen 4 from counts chosen here: 6e9 slots; Retiring 20 %, Bad Speculation 5 %, Frontend 10 %, Backend
 * 65 % (above 40 %), of which memory 80 %: Memory Bound 52 %, Core Bound 13 %.
 */
static const char *const zen4_names[] = {
	"ls_not_halted_cyc", "ex_ret_ops", "de_src_op_disp.all", "de_no_dispatch_per_slot.no_ops_from_frontend",
	"de_no_dispatch_per_slot.backend_stalls", "de_no_dispatch_per_slot.smt_contention",
	"ex_no_retire.load_not_complete", "ex_no_retire.not_complete",
};
static const double zen4_values[] = { 1e9, 1.2e9, 1.5e9, 0.6e9, 3.9e9, 0, 0.8e9, 1e9 };

static void zen4_counts(const struct model *m, double *v)
{
	for (size_t e = 0; e < m->nr_events; e++) {
		v[e] = 1e8; /* the others: mispredicts, the frontend latency, microcode */
		for (size_t k = 0; k < sizeof(zen4_names) / sizeof(zen4_names[0]); k++)
			if (!strcmp(m->events[e].name, zen4_names[k]))
				v[e] = zen4_values[k];
	}
}

static void test_run_zen4(void **state)
{
	const struct model *m = model_find("zen4");
	struct metric_tree *t = calloc(1, sizeof(*t));
	struct drill_info *info = calloc(1, sizeof(*info));
	double v[MODEL_MAX_EVENTS];
	struct counter c = { .m = m, .running = 100, .fixed = v };
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct groups_budget b;
	struct tdp_err err = TDP_ERR_INIT;
	const struct metric_node *mem, *leaf;
	const struct drill_node *dm;

	(void)state;
	assert_true(m && t && info);
	zen4_counts(m, v);
	drill_budget(m, true, &b);
	o.max_level = model_depth(m);
	assert_int_equal(drill_run(m, &o, &b, false, &(struct drill_counter){ count, &c }, t, info, &err), 0);
	assert_int_equal(info->nr_steps, 2);
	assert_string_equal(info->steps[1].why, "children of Backend Bound");
	assert_int_equal(info->steps[1].nr_nodes, 2);
	mem = metric_tree_find(t, "memory_bound");
	assert_true(fabs(mem->value - 52.0) < 1e-9);
	dm = info_of(info, t, "memory_bound");
	assert_int_equal(dm->origin.step, 2);
	assert_int_equal(dm->origin.run, 1);
	assert_true(dm->origin.running_pct == 100 && !dm->verdict.mismeasured);
	assert_int_equal(info_of(info, t, "fetch_latency")->origin.step, 0); /* Frontend crossed nothing */
	assert_true(isnan(metric_tree_find(t, "fetch_latency")->value));
	leaf = locate_leaf(t);
	assert_string_equal(leaf->key, "memory_bound");
	/* step 2 read 40 % more backend stalls (another run of a workload that varies): Memory Bound 72.8 %
	 * exceeds its parent's 65 %, is not a fact, and the cause says why; the leaf is then Core Bound */
	c.scale_event = "de_no_dispatch_per_slot.backend_stalls";
	c.scale = 1.4;
	assert_int_equal(drill_run(m, &o, &b, false, &(struct drill_counter){ count, &c }, t, info, &err), 0);
	dm = info_of(info, t, "memory_bound");
	assert_true(dm->verdict.mismeasured);
	assert_int_equal(dm->verdict.cause, DRILL_OTHER_RUN);
	assert_true(fabs(dm->raw - 72.8) < 1e-9);
	assert_non_null(strstr(dm->verdict.why, "above its parent Backend Bound (65.0 %)"));
	assert_true(isnan(metric_tree_find(t, "memory_bound")->value));
	assert_string_equal(locate_leaf(t)->key, "core_bound");
	/* the same with groups that ran 40 % of the time: multiplexing is the likely cause */
	c.running = 40;
	assert_int_equal(drill_run(m, &o, &b, false, &(struct drill_counter){ count, &c }, t, info, &err), 0);
	assert_int_equal(info_of(info, t, "memory_bound")->verdict.cause, DRILL_MULTIPLEXED);
	assert_true(info_of(info, t, "memory_bound")->origin.running_pct == 40);
	/* -l 1: one step */
	o.max_level = 1;
	assert_int_equal(drill_run(m, &o, &b, false, &(struct drill_counter){ count, &c }, t, info, &err), 0);
	assert_int_equal(info->nr_steps, 1);
	/* a step that cannot be counted ends the drill with its error; what was measured stays */
	o.max_level = 2;
	c.fail_step = 2;
	assert_int_equal(drill_run(m, &o, &b, false, &(struct drill_counter){ count, &c }, t, info, &err),
			 TDP_ENOTSUP);
	assert_int_equal(info->nr_steps, 1);
	assert_non_null(strstr(err.msg, "step 2's events"));
	assert_false(isnan(metric_tree_find(t, "backend_bound")->value));
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
		cmocka_unit_test(test_verdict_path),
		cmocka_unit_test(test_parent_of_other_unit),
		cmocka_unit_test(test_run_every_model),
		cmocka_unit_test(test_run_zen4),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
