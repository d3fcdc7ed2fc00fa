/* drilldown.c: the steps, groups and runs of the drill-down, and the mismeasured rule (drilldown.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "model/drilldown.h"
#include "model/locate.h"
#include "model/model-internal.h"

static int node_level(const struct model *m, size_t i)
{
	if (m->nodes[i].level > 0)
		return m->nodes[i].level;
	return m->nodes[i].parent ? 2 : 1;
}

static bool has_child(const struct model *m, size_t i, int max_level)
{
	for (size_t j = 0; j < m->nr_nodes; j++)
		if (m->nodes[j].parent && !strcmp(m->nodes[j].parent, m->nodes[i].key) &&
		    node_level(m, j) <= max_level)
			return true;
	return false;
}

void drill_step_init(struct drill_step *s)
{
	memset(s, 0, sizeof(*s));
	s->groups = (struct groups_plan)GROUPS_PLAN_INIT;
}

void drill_step_release(struct drill_step *s)
{
	groups_plan_release(&s->groups);
	drill_step_init(s);
}

void drill_first(const struct model *m, struct drill_step *s)
{
	groups_plan_release(&s->groups);
	drill_step_init(s);
	s->index = 1;
	s->level = 1;
	for (size_t i = 0; i < m->nr_nodes && i < MODEL_MAX_NODES; i++)
		if (!m->nodes[i].parent) {
			s->nodes[i] = 1;
			s->nr_nodes++;
		}
	snprintf(s->why, sizeof(s->why), "level 1");
}

static void add_children(const struct model *m, size_t parent, int max_level, struct drill_step *next)
{
	for (size_t j = 0; j < m->nr_nodes && j < MODEL_MAX_NODES; j++) {
		if (!m->nodes[j].parent || strcmp(m->nodes[j].parent, m->nodes[parent].key) ||
		    node_level(m, j) > max_level || next->nodes[j])
			continue;
		next->nodes[j] = 1;
		next->nr_nodes++;
		if (node_level(m, j) > next->level)
			next->level = node_level(m, j);
	}
}

static void why_add(struct drill_step *s, const char *label)
{
	size_t len = strlen(s->why);

	snprintf(s->why + len, sizeof(s->why) - len, "%s%s", len && s->why[len - 1] != ' ' ? ", " : "", label);
}

static long model_index(const struct model *m, const char *key)
{
	for (size_t i = 0; i < m->nr_nodes && i < MODEL_MAX_NODES; i++)
		if (!strcmp(m->nodes[i].key, key))
			return (long)i;
	return -1;
}

bool drill_next(const struct model *m, const struct drill_step *prev, const struct metric_tree *t, int max_level,
		struct drill_step *next)
{
	const struct metric_node *path = locate_leaf(t);
	long largest = -1, on_path = path ? model_index(m, path->key) : -1;
	double best = -INFINITY;
	bool crossed = false;

	groups_plan_release(&next->groups);
	drill_step_init(next);
	next->index = prev->index + 1;
	snprintf(next->why, sizeof(next->why), "children of ");
	for (size_t i = 0; i < m->nr_nodes && i < MODEL_MAX_NODES; i++) {
		const struct metric_node *n;

		if (!prev->nodes[i] || !(n = metric_tree_find(t, m->nodes[i].key)) || isnan(n->value) ||
		    !has_child(m, i, max_level))
			continue;
		if (n->flagged) {
			crossed = true;
			add_children(m, i, max_level, next);
			why_add(next, n->label ? n->label : n->key);
			if ((long)i == on_path)
				on_path = -1; /* expanded already */
		} else if (n->value > best) {
			best = n->value;
			largest = (long)i;
		}
	}
	if (!crossed && largest >= 0) {
		const struct metric_node *n = metric_tree_find(t, m->nodes[largest].key);

		add_children(m, (size_t)largest, max_level, next);
		snprintf(next->why, sizeof(next->why), "children of %s, the largest (no node crossed its threshold)",
			 n->label ? n->label : n->key);
		if (largest == on_path)
			on_path = -1;
	}
	/* the verdict's dominant node, that `why` locates, is drilled whatever its rank */
	if (on_path >= 0 && prev->nodes[on_path] && !isnan(path->value) && has_child(m, (size_t)on_path, max_level)) {
		size_t len = strlen(next->why);

		add_children(m, (size_t)on_path, max_level, next);
		snprintf(next->why + len, sizeof(next->why) - len, "%s%s, on the verdict's path",
			 next->nr_nodes && len > strlen("children of ") ? "; and of " : "",
			 path->label ? path->label : path->key);
	}
	if (!next->nr_nodes) {
		drill_step_init(next);
		return false;
	}
	return true;
}

int drill_step_plan(const struct model_compiled *mc, const struct model_eval_opts *o, const struct groups_budget *b,
		    bool no_multiplex, struct drill_step *s, struct tdp_err *err)
{
	struct model_eval_opts eo = *o;
	int rc;

	groups_plan_release(&s->groups);
	s->nr_runs = 0;
	eo.max_level = s->level;
	rc = model_plan_nodes(mc, &eo, s->nodes, b, &s->groups, err);
	if (rc)
		return rc;
	if (!no_multiplex) {
		s->runs[0] = (struct drill_run){ 0, s->groups.nr };
		s->nr_runs = 1;
		return 0;
	}
	if (s->groups.nr > DRILL_MAX_RUNS) {
		groups_plan_release(&s->groups);
		return tdp_err_set(err, TDP_ELIMIT, "drill-down step %d needs %zu runs with --no-multiplex (at most %d)",
				   s->index, s->groups.nr, DRILL_MAX_RUNS);
	}
	for (size_t g = 0; g < s->groups.nr; g++)
		s->runs[s->nr_runs++] = (struct drill_run){ g, 1 };
	return 0;
}

void drill_budget(const struct model *m, bool nmi_watchdog, struct groups_budget *out)
{
	model_default_budget(m, out);
	out->nmi_watchdog = nmi_watchdog;
}

const char *drill_cause_text(enum drill_cause c)
{
	switch (c) {
	case DRILL_OK:
		return "within its bounds";
	case DRILL_MULTIPLEXED:
		return "its events were multiplexed (their group ran only part of the time, and the scaled counts "
		       "are estimates): rerun with --no-multiplex";
	case DRILL_SHORT_RUN:
		return "the run was too short for its counts to be trusted: give the workload more work";
	case DRILL_OTHER_RUN:
		return "it and its parent were measured in different runs of a workload that varies between runs: "
		       "rerun, or make the workload repeatable";
	case DRILL_UNKNOWN:
		break;
	}
	return "neither multiplexing nor a short run explains it: a counter erratum of this CPU, or a formula "
	       "outside its range";
}

static bool multiplexed(const struct drill_origin *o)
{
	return o && o->running_pct >= 0 && o->running_pct < DRILL_MIN_RUNNING;
}

static bool short_run(const struct drill_origin *o)
{
	return o && o->seconds > 0 && o->seconds < DRILL_MIN_SECONDS;
}

void drill_check(const struct metric_tree *t, const struct metric_node *n, const struct drill_origin *origin,
		 const struct drill_origin *parent_origin, struct drill_verdict *out)
{
	const struct metric_node *p = n->parent ? metric_tree_find(t, n->parent) : NULL;
	bool parent_bound = false;

	memset(out, 0, sizeof(*out));
	if (isnan(n->value))
		return;
	if (n->value < 0) {
		snprintf(out->why, sizeof(out->why), "%.1f %% is negative", n->value);
	} else if (n->value > 100 + DRILL_TOLERANCE) {
		snprintf(out->why, sizeof(out->why), "%.1f %% is above 100 %%", n->value);
	} else if (p && !isnan(p->value) && !(p->def && p->def->approx_children) &&
		   n->value > p->value + DRILL_TOLERANCE) {
		/* only children that add up to their parent are bounded by it (Intel's cycle-domain
		 * nodes under a slot-domain parent are not) */
		snprintf(out->why, sizeof(out->why), "%.1f %% is above its parent %s (%.1f %%)", n->value,
			 p->label ? p->label : p->key, p->value);
		parent_bound = true;
	} else {
		return;
	}
	out->mismeasured = true;
	if (multiplexed(origin) || (parent_bound && multiplexed(parent_origin)))
		out->cause = DRILL_MULTIPLEXED;
	else if (short_run(origin) || (parent_bound && short_run(parent_origin)))
		out->cause = DRILL_SHORT_RUN;
	else if (parent_bound && origin && parent_origin &&
		 (origin->step != parent_origin->step || origin->run != parent_origin->run))
		out->cause = DRILL_OTHER_RUN;
	else
		out->cause = DRILL_UNKNOWN;
}

static long tree_index(const struct metric_tree *t, const char *key)
{
	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->v[i].key, key))
			return (long)i;
	return -1;
}

void drill_merge(const struct model *m, const struct drill_step *s, const struct metric_tree *step,
		 const int *group_run, const double *group_running, size_t nr_groups, double seconds,
		 struct metric_tree *merged, struct drill_node *info)
{
	for (size_t i = 0; i < m->nr_nodes && i < MODEL_MAX_NODES; i++) {
		long d = s->nodes[i] ? tree_index(merged, m->nodes[i].key) : -1;
		const struct metric_node *src = d >= 0 ? metric_tree_find(step, m->nodes[i].key) : NULL;
		struct metric_node *dst;
		int g;

		if (!src)
			continue;
		dst = &merged->v[d];
		dst->value = src->value;
		dst->expr = src->expr;
		dst->source = src->source;
		dst->older = src->older;
		dst->variant_source = src->variant_source;
		dst->group = src->group;
		dst->split = src->split;
		memcpy(dst->why, src->why, sizeof(dst->why));
		g = src->group;
		info[d].origin.step = s->index;
		info[d].origin.run = g >= 0 && (size_t)g < nr_groups && group_run ? group_run[g] : 1;
		info[d].origin.running_pct = g >= 0 && (size_t)g < nr_groups && group_running ? group_running[g] : -1;
		info[d].origin.seconds = seconds;
		info[d].raw = src->value;
	}
	for (size_t d = 0; d < merged->nr; d++) {
		struct metric_node *n = &merged->v[d];
		long p;

		if (info[d].origin.step != s->index)
			continue;
		p = n->parent ? tree_index(merged, n->parent) : -1;
		n->value = info[d].raw; /* the parent's raw value bounds it, mismeasured or not */
		if (p >= 0 && !isnan(info[p].raw) && info[p].origin.step) {
			struct metric_tree *mt = merged;
			double keep = mt->v[p].value;

			mt->v[p].value = info[p].raw;
			drill_check(mt, n, &info[d].origin, &info[p].origin, &info[d].verdict);
			mt->v[p].value = keep;
		} else {
			drill_check(merged, n, &info[d].origin, p >= 0 ? &info[p].origin : NULL, &info[d].verdict);
		}
		if (info[d].verdict.mismeasured) {
			n->value = NAN;
			snprintf(n->why, sizeof(n->why), "mismeasured: %s; %s", info[d].verdict.why,
				 drill_cause_text(info[d].verdict.cause));
		}
	}
}

const struct drill_node *drill_info_node(const struct drill_info *info, const struct metric_tree *merged,
					 const char *key)
{
	long d = key ? tree_index(merged, key) : -1;

	return d >= 0 && d < MODEL_MAX_NODES ? &info->nodes[d] : NULL;
}

/* Per group of a step's plan: the run that counted it (1-based) and the lowest running percentage of its counts. */
static void group_origins(const struct drill_step *s, const struct countset *cs, int *run, double *running, size_t nr)
{
	for (size_t g = 0; g < nr; g++) {
		run[g] = 1;
		running[g] = -1;
	}
	for (size_t r = 0; r < s->nr_runs; r++)
		for (size_t g = s->runs[r].first; g < s->runs[r].first + s->runs[r].nr && g < nr; g++)
			run[g] = (int)r + 1;
	for (size_t i = 0; i < cs->nr; i++) {
		int g = cs->v[i].group;

		if (g < 0 || (size_t)g >= nr || cs->v[i].running_pct < 0)
			continue;
		if (running[g] < 0 || cs->v[i].running_pct < running[g])
			running[g] = cs->v[i].running_pct;
	}
}

/* Count step s, evaluate it at its level and merge it into merged (classified again). */
static int run_step(const struct model_compiled *mc, const struct model_eval_opts *o, const struct groups_budget *b,
		    bool no_multiplex, const struct drill_counter *c, struct drill_step *s, struct metric_tree *merged,
		    struct drill_info *info, bool *stop, struct tdp_err *err)
{
	const struct model *m = model_compiled_model(mc);
	struct model_eval_opts so = *o;
	struct countset cs = COUNTSET_INIT;
	struct metric_tree *step = NULL;
	int *run = NULL;
	double *running = NULL;
	size_t nr;
	int ret;

	so.max_level = s->level;
	ret = drill_step_plan(mc, &so, b, no_multiplex, s, err);
	if (ret)
		return ret;
	nr = s->groups.nr ? s->groups.nr : 1;
	step = tdp_calloc(1, sizeof(*step));
	run = tdp_calloc(nr, sizeof(*run));
	running = tdp_calloc(nr, sizeof(*running));
	if (!step || !run || !running) {
		ret = tdp_err_oom(err);
		goto out;
	}
	ret = c->count(c->arg, s, &cs, stop, err);
	if (!ret && (ret = model_eval(mc, &cs, &so, step, err)) == TDP_EANALYSIS && s->index > 1) {
		ret = 0; /* a step below level 1 measures no level-1 node */
		*err = (struct tdp_err)TDP_ERR_INIT;
	}
	if (!ret) {
		struct drill_step_info *si = &info->steps[info->nr_steps];
		double seconds = cs.elapsed_ns > 0 ? cs.elapsed_ns / 1e9 : -1;

		group_origins(s, &cs, run, running, nr);
		drill_merge(m, s, step, run, running, nr, seconds, merged, info->nodes);
		model_classify(merged);
		*si = (struct drill_step_info){ .index = s->index, .level = s->level, .nr_nodes = s->nr_nodes,
						.groups = s->groups.nr, .runs = s->nr_runs, .seconds = seconds };
		memcpy(si->why, s->why, sizeof(si->why));
		info->nr_steps++;
	}
out:
	countset_release(&cs);
	tdp_free(step);
	tdp_free(run);
	tdp_free(running);
	return ret;
}

int drill_run(const struct model *m, const struct model_eval_opts *o, const struct groups_budget *b,
	      bool no_multiplex, const struct drill_counter *c, struct metric_tree *merged, struct drill_info *info,
	      struct tdp_err *err)
{
	struct model_compiled *mc = NULL;
	struct countset none = COUNTSET_INIT;
	struct drill_step s, next;
	struct tdp_err ignored = TDP_ERR_INIT;
	int ret;

	memset(info, 0, sizeof(*info));
	info->no_multiplex = no_multiplex;
	drill_step_init(&s);
	drill_step_init(&next);
	ret = model_compile(m, &mc, err);
	if (ret)
		return ret;
	/* the tree's shape down to -l N, every node not measured until a step measures it */
	ret = model_eval(mc, &none, o, merged, &ignored);
	if (ret && !merged->nr) {
		*err = ignored;
		goto out;
	}
	ret = 0;
	drill_first(m, &s);
	for (;;) {
		bool stop = false;

		if (info->nr_steps >= DRILL_MAX_STEPS) /* never: a step per level */
			break;
		ret = run_step(mc, o, b, no_multiplex, c, &s, merged, info, &stop, err);
		if (ret || stop || !drill_next(m, &s, merged, o->max_level, &next))
			break;
		drill_step_release(&s);
		s = next;
		drill_step_init(&next);
	}
out:
	drill_step_release(&s);
	drill_step_release(&next);
	model_compiled_free(mc);
	return ret;
}
