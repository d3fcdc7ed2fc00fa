/*
 * pprof-why.c: `tdprof why --format=pprof`: the diagnosis as a pprof profile.
 *
 * Each stack is a site (its function, file and line) under its level-1 bucket
 * (a frame named "[Bad Speculation]"...), so pprof's flame graph of `slots`
 * opens on the top-down tree's first level and shows the guilty lines under the
 * bucket the sites are ranked by. Values per sample:
 *   slots        the site's slots in that bucket: share_pct of the scope's slots
 *                (cycles x the model's slots per cycle)
 *                (sim), or of the bucket's slots divided by the sites' sampled
 *                share (PMU); one sample per bucket holds the rest of its slots,
 *                so the bucket totals are level1 x the scope's slots
 *   sim:  cycles, instructions, executions, branches, mispredicts, loads,
 *         l1d_misses, ll_misses, l1i_misses (the JSON's site counts)
 *   PMU:  samples, and branches/mispredicts when the sampled run recorded branches
 * Comments say the backend, the model, the machine and the verdict.
 */
#include "report/why.h"

#include <math.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "report/pprof-internal.h"

enum { V_SLOTS, V_CYCLES, V_SAMPLES, V_INSNS, V_EXEC, V_BR, V_MISP, V_LOADS, V_L1D, V_LL, V_L1I, V_NR };

static const char *const v_names[V_NR] = { "slots", "cycles", "samples", "instructions", "executions",
					   "branches", "mispredicts", "loads", "l1d_misses", "ll_misses",
					   "l1i_misses" };

static const char *const buckets[] = { "retiring", "bad_speculation", "frontend_bound", "backend_bound" };

static int64_t rnd(double v)
{
	return isfinite(v) && v > 0 ? (int64_t)llround(v) : 0;
}

/* The values of site s in v[] (by V_*). */
static void site_values(const struct diag *d, const struct diag_site *s, double site_slots, int64_t *v)
{
	const struct diag_counts *c = &s->c;

	memset(v, 0, V_NR * sizeof(*v));
	v[V_SLOTS] = rnd(site_slots);
	v[V_CYCLES] = rnd(c->cycles);
	v[V_SAMPLES] = (int64_t)s->samples;
	v[V_INSNS] = (int64_t)c->instructions;
	v[V_EXEC] = (int64_t)s->executions;
	v[V_BR] = (int64_t)(c->cond_branches + c->ind_branches);
	v[V_MISP] = (int64_t)(c->cond_mispredicts + c->ind_mispredicts);
	v[V_LOADS] = (int64_t)c->loads;
	v[V_L1D] = (int64_t)c->l1d_misses;
	v[V_LL] = (int64_t)c->ll_misses;
	v[V_L1I] = (int64_t)c->l1i_misses;
	(void)d;
}

static void comments(struct pprof_b *b, const struct why_report *r)
{
	const struct diag *d = r->d;

	pprof_b_comment(b, "tdprof why%s%s", r->command ? ": " : "", r->command ? r->command : "");
	pprof_b_comment(b, "backend: %s%s", backend_name(d->backend), d->estimate ? " (estimates: simulated)" : "");
	if (d->has_tree && d->tree.model)
		pprof_b_comment(b, "model: %s", d->tree.model->name);
	if (d->machine_name[0])
		pprof_b_comment(b, "machine: %s (%s)", d->machine_name, d->machine);
	if (d->category)
		pprof_b_comment(b, "verdict: %s %.1f%% of slots%s", d->category, d->category_value,
				d->over_threshold ? ", over its threshold" : ", under its threshold");
	for (size_t i = 0; d->has_tree && i < 4; i++) {
		const struct metric_node *n = metric_tree_find(&d->tree, buckets[i]);

		if (n && isfinite(n->value))
			pprof_b_comment(b, "level1 %s: %.1f%%", buckets[i], n->value);
	}
	if (d->ranked_by)
		pprof_b_comment(b, "sites ranked by %s", d->ranked_by);
}

int report_why_pprof(struct strbuf *out, const struct why_report *r, struct tdp_err *err)
{
	const struct diag *d = r->d;
	bool sim = !d->has_sampling, br = sim || d->sampling.method != DIAG_SAMPLE_IP;
	double cycles = sim ? d->totals.cycles : NAN, total_slots;
	bool slots;
	bool on[V_NR] = { 0 };
	int col[V_NR];
	uint64_t bucket_loc[4] = { 0 }, exe_map = 0;
	double bucket_slots[4] = { 0 }, rest[4] = { 0 };
	int64_t all[V_NR], v[PPROF_MAX_TYPES];
	struct pprof_b b;
	int ret, rank_bucket = -1;

	/* the tree's slots are per cycle (#slots): the scope's slots are its cycles times that */
	if (!sim && !countset_get(&d->counts, "cycles", &cycles))
		cycles = NAN;
	total_slots = d->has_tree ? cycles * d->tree.slots : NAN;
	slots = isfinite(total_slots) && total_slots > 0;
	on[V_SLOTS] = slots;
	if (sim) {
		for (int k = V_CYCLES; k < V_NR; k++)
			on[k] = k != V_SAMPLES;
	} else {
		on[V_SAMPLES] = true;
		on[V_BR] = br;
		on[V_MISP] = br && d->sampling.has_flags;
	}
	pprof_b_init(&b);
	for (int k = 0; k < V_NR; k++)
		col[k] = on[k] ? pprof_b_type(&b, v_names[k], "count") : -1;
	if (on[V_MISP])
		b.default_type = pprof_b_str(&b, "mispredicts");
	else if (slots)
		b.default_type = pprof_b_str(&b, "slots");
	comments(&b, r);
	if (d->scope_object)
		exe_map = pprof_b_mapping(&b, d->scope_object, NULL, 0, 0, 0, true);
	for (int i = 0; i < 4; i++) {
		const struct metric_node *n = d->has_tree ? metric_tree_find(&d->tree, buckets[i]) : NULL;
		char name[64];
		struct pprof_line l = { name, NULL, 0 };

		snprintf(name, sizeof(name), "[%s]", n && n->label ? n->label : buckets[i]);
		bucket_loc[i] = pprof_b_location(&b, 0, 0, &l, 1);
		bucket_slots[i] = slots && n && isfinite(n->value) ? n->value / 100.0 * total_slots : 0;
		rest[i] = bucket_slots[i];
		if (d->category && !strcmp(d->category, buckets[i]))
			rank_bucket = i;
	}
	for (size_t i = 0; i < d->nr_sites; i++) {
		const struct diag_site *s = &d->sites[i];
		struct pprof_line l = { s->function, s->file, s->line };
		double ss = 0;
		uint64_t stack[2];
		size_t nr = 1;

		if (slots && rank_bucket >= 0 && isfinite(s->share))
			ss = s->share / 100.0 * (sim ? total_slots : bucket_slots[rank_bucket]);
		if (rank_bucket >= 0) {
			if (ss > rest[rank_bucket])
				ss = rest[rank_bucket];
			rest[rank_bucket] -= ss;
		}
		stack[0] = pprof_b_location(&b, s->in_program ? exe_map : 0, s->address, &l, 1);
		if (rank_bucket >= 0)
			stack[nr++] = bucket_loc[rank_bucket];
		site_values(d, s, ss, all);
		for (int k = 0; k < V_NR; k++)
			if (col[k] >= 0)
				v[col[k]] = all[k];
		pprof_b_sample(&b, stack, nr, v);
	}
	for (int i = 0; slots && i < 4; i++) {
		memset(v, 0, sizeof(v));
		v[col[V_SLOTS]] = rnd(rest[i]);
		if (v[col[V_SLOTS]])
			pprof_b_sample(&b, &bucket_loc[i], 1, v);
	}
	ret = pprof_b_finish(&b, out, err);
	pprof_b_release(&b);
	return ret;
}
