/* triage.c: mode-1 metrics, routing and perf's `#` column (see triage.h). */
#include "model/triage.h"
#include "base/str.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Synonyms perf accepts for the generic events we read. NULL-terminated. */
static const char *const names_cycles[] = { "cycles", "cpu-cycles", NULL };
static const char *const names_instructions[] = { "instructions", NULL };
static const char *const names_branches[] = { "branches", "branch-instructions", NULL };
static const char *const names_branch_misses[] = { "branch-misses", NULL };
static const char *const names_l1i_misses[] = { "L1-icache-load-misses", "L1-icache-misses", NULL };
static const char *const names_l1i_loads[] = { "L1-icache-loads", NULL };
static const char *const names_llc_misses[] = { "LLC-load-misses", NULL };
static const char *const names_llc_loads[] = { "LLC-loads", NULL };
static const char *const names_cache_misses[] = { "cache-misses", NULL };
static const char *const names_cache_refs[] = { "cache-references", NULL };
static const char *const names_clock[] = { "task-clock", "cpu-clock", NULL };

/* A name with a modifier suffix perf allows on generic events (":u", ":k", ":uk", ":ppp"). */
static bool name_matches(const char *have, const char *want)
{
	const char *colon = strrchr(have, ':');
	char base[128];
	size_t n;

	if (str_event_name_eq(have, want))
		return true;
	if (!colon || !colon[1] || strspn(colon + 1, "ukhpPGHSDIW") != strlen(colon + 1))
		return false;
	n = (size_t)(colon - have);
	if (n >= sizeof(base))
		return false;
	memcpy(base, have, n);
	base[n] = '\0';
	return str_event_name_eq(base, want);
}

static bool is_one_of(const char *name, const char *const *names)
{
	for (size_t i = 0; names[i]; i++)
		if (name_matches(name, names[i]))
			return true;
	return false;
}

/* The first counted value of any of names, in the same group as `group` when possible. */
static bool lookup(const struct countset *cs, const char *const *names, int group, double *out)
{
	const struct count *any = NULL;

	for (size_t i = 0; i < cs->nr; i++) {
		const struct count *c = &cs->v[i];

		if (c->status != COUNT_OK || !is_one_of(c->name, names))
			continue;
		if (group >= 0 && c->group == group) {
			*out = c->value;
			return true;
		}
		if (!any)
			any = c;
	}
	if (!any)
		return false;
	*out = any->value;
	return true;
}

static double ratio(double num, double den, double mult)
{
	return den > 0 ? mult * num / den : NAN;
}

void triage_metrics_compute(const struct countset *cs, struct triage_metrics *m)
{
	double cyc, ins, br, brm, l1i, llc;
	bool have_cyc = lookup(cs, names_cycles, -1, &cyc);
	bool have_ins = lookup(cs, names_instructions, -1, &ins);

	m->cpi = m->ipc = m->branch_miss_rate = m->branch_mpki = m->l1i_mpki = m->llc_mpki = NAN;
	m->llc_event = NULL;
	if (have_cyc && have_ins) {
		m->cpi = ratio(cyc, ins, 1);
		m->ipc = ratio(ins, cyc, 1);
	}
	if (lookup(cs, names_branch_misses, -1, &brm)) {
		if (lookup(cs, names_branches, -1, &br))
			m->branch_miss_rate = ratio(brm, br, 100);
		if (have_ins)
			m->branch_mpki = ratio(brm, ins, 1000);
	}
	if (have_ins && lookup(cs, names_l1i_misses, -1, &l1i))
		m->l1i_mpki = ratio(l1i, ins, 1000);
	if (have_ins) {
		if (lookup(cs, names_llc_misses, -1, &llc))
			m->llc_event = "LLC-load-misses";
		else if (lookup(cs, names_cache_misses, -1, &llc))
			m->llc_event = "cache-misses";
		if (m->llc_event)
			m->llc_mpki = ratio(llc, ins, 1000);
	}
}

static void add_signal(struct triage_verdict *v, enum triage_next kind, double value, double threshold,
		       double cost, const char *fmt, const char *what)
{
	struct triage_signal *s;
	int n;

	if (v->nr_signals >= TRIAGE_MAX_SIGNALS)
		return;
	s = &v->signals[v->nr_signals++];
	s->kind = kind;
	s->value = value;
	s->threshold = threshold;
	s->cost_cpki = cost;
	n = snprintf(s->reason, sizeof(s->reason), fmt, value, threshold, what);
	if (!isnan(cost) && n > 0 && (size_t)n < sizeof(s->reason))
		snprintf(s->reason + n, sizeof(s->reason) - (size_t)n, " (about %.0f cycles per 1000 instructions)",
			 cost);
}

void triage_route(const struct triage_metrics *m, struct triage_verdict *v)
{
	static const struct triage_costs defaults = TRIAGE_COSTS_DEFAULT;

	triage_route_costs(m, &defaults, v);
}

void triage_route_costs(const struct triage_metrics *m, const struct triage_costs *c, struct triage_verdict *v)
{
	bool any_input = !isnan(m->cpi) || !isnan(m->branch_mpki) || !isnan(m->l1i_mpki) || !isnan(m->llc_mpki);
	const struct triage_signal *best = NULL;

	memset(v, 0, sizeof(*v));
	if (m->cpi > TRIAGE_CPI_HIGH)
		add_signal(v, TRIAGE_TOPDOWN, m->cpi, TRIAGE_CPI_HIGH, NAN, "CPI %.2f > %.1f: %s",
			   "the core is stalled more than it retires; classify why");
	if (m->branch_mpki > TRIAGE_BRANCH_MPKI_HIGH)
		add_signal(v, TRIAGE_BRANCHES, m->branch_mpki, TRIAGE_BRANCH_MPKI_HIGH, m->branch_mpki * c->mispredict,
			   "branch MPKI %.2f > %.0f: %s", "mispredicted branches waste a large share of cycles");
	if (m->l1i_mpki > TRIAGE_L1I_MPKI_HIGH)
		add_signal(v, TRIAGE_FRONTEND, m->l1i_mpki, TRIAGE_L1I_MPKI_HIGH, m->l1i_mpki * c->l1i_miss,
			   "L1i MPKI %.2f > %.0f: %s", "instruction-cache misses starve the frontend");
	if (m->llc_mpki > TRIAGE_LLC_MPKI_HIGH)
		add_signal(v, TRIAGE_MEMORY, m->llc_mpki, TRIAGE_LLC_MPKI_HIGH, m->llc_mpki * c->llc_miss,
			   "LLC MPKI %.2f > %.0f: %s", "last-level cache misses go to DRAM");
	/* the costliest specific signal; the CPI signal alone asks to classify */
	for (size_t i = 0; i < v->nr_signals; i++) {
		const struct triage_signal *s = &v->signals[i];

		if (s->kind == TRIAGE_TOPDOWN)
			continue;
		if (!best || s->cost_cpki > best->cost_cpki)
			best = s;
	}
	if (!best && v->nr_signals)
		best = &v->signals[0];
	if (best) {
		v->next = best->kind;
		snprintf(v->reason, sizeof(v->reason), "%s", best->reason);
		return;
	}
	if (isnan(m->cpi) || !any_input) {
		v->next = TRIAGE_UNKNOWN;
		snprintf(v->reason, sizeof(v->reason), "%s",
			 isnan(m->cpi) ? "cycles and instructions were not counted, so the run cannot be triaged"
				       : "no triage metric could be computed");
		return;
	}
	v->next = TRIAGE_DONE;
	snprintf(v->reason, sizeof(v->reason),
		 "CPI %.2f <= %.1f and no miss rate above its threshold: the core retires efficiently", m->cpi,
		 TRIAGE_CPI_HIGH);
}

const char *triage_next_name(enum triage_next n)
{
	switch (n) {
	case TRIAGE_DONE: return "done";
	case TRIAGE_TOPDOWN: return "topdown";
	case TRIAGE_BRANCHES: return "branches";
	case TRIAGE_FRONTEND: return "frontend";
	case TRIAGE_MEMORY: return "memory";
	case TRIAGE_UNKNOWN: break;
	}
	return "unknown";
}

const char *triage_next_text_sim(enum triage_next n, const char *cmd, char *buf, size_t size)
{
	if (n != TRIAGE_BRANCHES)
		return triage_next_text(n, cmd, buf, size);
	snprintf(buf, size, "tdprof why -- %s (it names the mispredicting branches from the simulation; "
		 "a branch trace, 'tdprof branches record', needs a hardware PMU)", cmd ? cmd : "CMD");
	return buf;
}

const char *triage_next_text(enum triage_next n, const char *cmd, char *buf, size_t size)
{
	if (!cmd)
		cmd = "CMD";
	switch (n) {
	case TRIAGE_TOPDOWN:
		snprintf(buf, size, "tdprof topdown -- %s", cmd);
		return buf;
	case TRIAGE_BRANCHES:
		snprintf(buf, size, "tdprof branches record -o branches.data -- %s", cmd);
		return buf;
	case TRIAGE_FRONTEND:
		return "shrink and lay out the hot code: profile-guided optimisation (-fprofile-use), "
		       "link-time ordering of hot functions, fewer inlined cold paths; confirm with 'tdprof topdown'";
	case TRIAGE_MEMORY:
		return "improve data locality: smaller or packed data, blocking/tiling of loops, "
		       "sequential access the prefetcher can follow; confirm with 'tdprof topdown'";
	case TRIAGE_DONE:
		return "look at the algorithm, or isolate the hottest loop with 'tdprof loop'";
	case TRIAGE_UNKNOWN:
		break;
	}
	return "rerun where hardware counters are available, or with --backend=sim for a simulated estimate";
}

/* A count found by one of names, with its index, counted. */
static const struct count *find_counted(const struct countset *cs, const char *const *names, int group)
{
	const struct count *any = NULL;

	for (size_t i = 0; i < cs->nr; i++) {
		const struct count *c = &cs->v[i];

		if (c->status != COUNT_OK || !is_one_of(c->name, names))
			continue;
		if (group >= 0 && c->group == group)
			return c;
		if (!any)
			any = c;
	}
	return any;
}

static void annotate_share(const struct countset *cs, const struct count *c, const char *const *base,
			   const char *fmt, const char *unit, struct triage_annotation *out)
{
	const struct count *b = find_counted(cs, base, c->group);

	if (!b || b->value <= 0)
		return;
	out->fmt = fmt;
	out->value = 100.0 * c->value / b->value;
	snprintf(out->unit, sizeof(out->unit), "%s", unit);
}

void triage_annotate(const struct countset *cs, size_t i, double elapsed_ns, struct triage_annotation *out)
{
	const struct count *c = &cs->v[i];
	const struct count *clk;

	memset(out, 0, sizeof(*out));
	if (c->status != COUNT_OK)
		return;
	if (is_one_of(c->name, names_clock)) {
		if (elapsed_ns > 0) {
			out->fmt = "%8.3f";
			out->value = c->value / elapsed_ns;
			snprintf(out->unit, sizeof(out->unit), "CPUs utilized");
		}
		return;
	}
	clk = find_counted(cs, names_clock, c->group);
	if (is_one_of(c->name, names_cycles)) {
		if (clk && clk->value > 0) {
			out->fmt = "%8.3f";
			out->value = c->value / clk->value;
			snprintf(out->unit, sizeof(out->unit), "GHz");
		}
		return;
	}
	if (is_one_of(c->name, names_instructions)) {
		const struct count *cyc = find_counted(cs, names_cycles, c->group);

		if (cyc && cyc->value > 0) {
			out->fmt = "%7.2f ";
			out->value = c->value / cyc->value;
			snprintf(out->unit, sizeof(out->unit), "insn per cycle");
		}
		return;
	}
	if (is_one_of(c->name, names_branch_misses)) {
		annotate_share(cs, c, names_branches, "%7.2f%%", "of all branches", out);
		return;
	}
	if (is_one_of(c->name, names_cache_misses)) {
		annotate_share(cs, c, names_cache_refs, "%8.3f %%", "of all cache refs", out);
		return;
	}
	if (is_one_of(c->name, names_l1i_misses)) {
		annotate_share(cs, c, names_l1i_loads, "%7.2f%%", "of all L1-icache accesses", out);
		return;
	}
	if (is_one_of(c->name, names_llc_misses)) {
		annotate_share(cs, c, names_llc_loads, "%7.2f%%", "of all LL-cache accesses", out);
		return;
	}
	if (clk && clk->value > 0) {
		/* perf: a rate per second of task-clock, scaled to K/M/G */
		double rate = 1e9 * c->value / clk->value;
		const char *prefix = "";

		if (rate > 1e9) {
			rate /= 1e9;
			prefix = "G";
		} else if (rate > 1e6) {
			rate /= 1e6;
			prefix = "M";
		} else if (rate > 1e3) {
			rate /= 1e3;
			prefix = "K";
		}
		out->fmt = "%8.3f";
		out->value = rate;
		snprintf(out->unit, sizeof(out->unit), "%s/sec", prefix);
	}
}
