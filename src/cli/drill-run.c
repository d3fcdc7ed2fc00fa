/* drill-run.c: the counted runs of a drill-down, with their progress lines (see drill-run.h). */
#include "cli/drill-run.h"

#include <stdio.h>
#include <string.h>

#include "cli/backend.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/progress.h"
#include "measure/topdown.h"

static void note_progress(const char *line)
{
	msg_progress("%s", line);
}

/* A copy of cs's counts into out (empty). */
static int copy_counts(const struct countset *cs, struct countset *out, struct tdp_err *err)
{
	out->backend = cs->backend;
	out->elapsed_ns = cs->elapsed_ns;
	for (size_t i = 0; i < cs->nr; i++) {
		const struct count *src = &cs->v[i];
		struct count *dst = countset_add(out, src->name, src->unit, src->value, src->group);

		if (!dst)
			return tdp_err_oom(err);
		*dst = (struct count){ .name = dst->name, .unit = dst->unit, .status = src->status, .value = src->value,
				       .raw = src->raw, .enabled_ns = src->enabled_ns, .running_ns = src->running_ns,
				       .running_pct = src->running_pct, .stddev_pct = src->stddev_pct,
				       .group = src->group, .estimate = src->estimate };
	}
	return 0;
}

/* drill_counter.count: one step's groups over the workload (measure/topdown.h). */
static int count_step(void *arg, const struct drill_step *s, struct countset *out, bool *stop, struct tdp_err *err)
{
	static const struct measure_notify notify = { note_progress, NULL };
	struct cli_drill *c = arg;
	struct model_eval_opts so = *c->o;
	struct measure_topdown_opts mo = { .nr_models = 1, .eo = &so, .budget = c->b, .argv = c->argv,
					   .no_multiplex = c->no_multiplex, .nodes = s->nodes,
					   .extra = s->index == 1 ? c->first_extra : NULL };
	struct measure_topdown t;
	int ret, saved;

	so.max_level = s->level;
	mo.models[0] = c->m;
	msg_progress("drill-down step %d: %s (%zu group%s, %zu run%s)", s->index, s->why, s->groups.nr,
		     s->groups.nr == 1 ? "" : "s", s->nr_runs, s->nr_runs == 1 ? "" : "s");
	measure_topdown_init(&t);
	fflush(stdout); /* the workload shares it */
	saved = backend_divert_stdout(c->divert);
	progress_begin(true, "drill-down step %d: running %s", s->index, c->argv[0]);
	ret = measure_topdown_run(&mo, &t, &notify, err);
	progress_end();
	backend_restore_stdout(saved);
	if (!ret) {
		/* the counts move to out: drill_run() evaluates and releases them */
		*out = t.res.counts;
		t.res.counts = (struct countset)COUNTSET_INIT;
		if (t.res.workload_ran) {
			c->last_status = exitcode_from_wait(t.res.wstatus);
			if (!c->ran)
				c->first_status = c->last_status;
			c->ran = true;
		}
		if (t.res.signal) {
			c->signal = t.res.signal;
			*stop = true;
		}
		if (s->index == 1)
			ret = copy_counts(out, &c->first, err);
	}
	measure_topdown_release(&t);
	return ret;
}

int cli_drill_run(struct cli_drill *c, struct metric_tree *merged, struct drill_info *info)
{
	struct drill_counter counter = { count_step, c };
	struct tdp_err err = TDP_ERR_INIT;
	int ret;

	c->first = (struct countset)COUNTSET_INIT;
	c->ran = false;
	c->signal = 0;
	c->stopped[0] = '\0';
	ret = drill_run(c->m, c->o, c->b, c->no_multiplex, &counter, merged, info, &err);
	if (c->first_extra && info->nr_steps)
		info->steps[0].runs++; /* step 1's extra events had a run of their own (measure/topdown.h) */
	if (ret && c->keep_partial && info->nr_steps >= 1 && ret != TDP_ENOMEM) {
		snprintf(c->stopped, sizeof(c->stopped), "step %zu: %.400s", info->nr_steps + 1, err.msg);
		msg_warning("the drill-down stopped after step %zu: %s", info->nr_steps, err.msg);
		return EXIT_OK;
	}
	if (ret) {
		msg_err(&err);
		return exitcode_from_err(ret);
	}
	return EXIT_OK;
}

void cli_drill_release(struct cli_drill *c)
{
	countset_release(&c->first);
}
