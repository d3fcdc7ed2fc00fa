/*
 * sim-findings.c: the ranked diagnosis of a simulated run: one finding per guilty
 * site of the dominant bucket (and the code footprint for Frontend), then the top
 * site of every other bucket over its threshold; each with the numbers behind it,
 * where it is, and a fix from the knowledge base (docs/tma-diagnosis-actions.md).
 */
#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "diagnose/diagnose-internal.h"
#include "diagnose/sim-internal.h"
#include "perfdata/perfdata.h"

static const char *bucket_key(enum sim_bucket b)
{
	return sim_bucket_name(b);
}

/*
 * What the top site's branch is, named from its instruction (the disassembler's
 * kind: an indirect call is not an indirect jump); for other sites, or without
 * the disassembly, what valgrind's counts tell: a conditional or an indirect branch.
 */
static const char *branch_kind(struct dsim *s, const struct diag *d, const struct sim_site *ss, bool ind)
{
	unsigned t = 0;

	if (ss == &s->scope[0] && d->has_disasm && d->disasm.target)
		for (size_t i = 0; i < d->disasm.nr; i++)
			if (d->disasm.v[i].target)
				t = d->disasm.v[i].branch_type;
	switch (t) {
	case BRANCH_TYPE_COND: return "branch";
	case BRANCH_TYPE_IND: return "indirect jump";
	case BRANCH_TYPE_IND_CALL: return "indirect call";
	default: return ind ? "indirect branch" : "branch";
	}
}

/* Title, evidence, fix and node of a finding for site ss in bucket b. */
static void describe(struct dsim *s, struct diag *d, enum sim_bucket b, const struct sim_site *ss,
		     const char *file, double share, struct strbuf *title, struct strbuf *ev, struct strbuf *fix,
		     const char **node)
{
	const uint64_t *v = ss->cost.v;
	const char *fn = dsim_fn(s, ss->fn);
	uint64_t br = v[SIM_BC] + v[SIM_BI], mis = v[SIM_BCM] + v[SIM_BIM];

	switch (b) {
	case SIM_BAD_SPECULATION: {
		bool ind = v[SIM_BIM] > v[SIM_BCM];

		const char *kind = branch_kind(s, d, ss, ind);

		strbuf_addf(title, "unpredictable %s at ", kind);
		diag_add_where(title, file, ss->line, fn);
		if (ss == &s->scope[0] && d->nr_branches > 1 && d->branches[0].mispredicts) {
			/* the line holds several branches: name the one that mispredicts, then the line */
			const struct diag_branch *top = &d->branches[0];

			strbuf_addf(ev, "the '%s' at 0x%llx mispredicted ", top->text, (unsigned long long)top->addr);
			diag_add_grouped(ev, top->mispredicts);
			strbuf_adds(ev, " of its ");
			diag_add_grouped(ev, top->executions);
			strbuf_addf(ev, " runs (%.1f %%); the line's %zu branches together: ",
				    diag_pct(top->mispredicts, top->executions), d->nr_branches);
			diag_add_grouped(ev, mis);
			strbuf_adds(ev, " of ");
			diag_add_grouped(ev, br);
			strbuf_addf(ev, " (%.1f %%)", diag_pct(mis, br));
		} else {
			diag_add_grouped(ev, mis);
			strbuf_adds(ev, " of ");
			diag_add_grouped(ev, br);
			strbuf_addf(ev, " branches at this %s mispredicted (%.1f %%)", ss->line ? "line" : "site",
				    diag_pct(mis, br));
			if (ind)
				strbuf_addf(ev, ", nearly all at its %s", kind);
		}
		strbuf_addf(ev, "; an estimated %.1f %% of all slots are lost to them", share);
		*node = "branch_mispredicts";
		if (ind) {
			diag_kb_fix(*node, "Group objects by type", fix);
			if (strcmp(kind, "indirect call")) /* a dispatch jump: an interpreter's switch */
				strbuf_adds(fix, " In an interpreter, threaded dispatch (an indirect jump at the end of "
						 "every handler, e.g. computed goto) gives the predictor one branch per "
						 "handler and a pattern to learn.");
		} else {
			diag_kb_fix(*node, "data dependency", fix);
			strbuf_addch(fix, ' ');
			diag_kb_fix(*node, "Sort or partition", fix);
		}
		break;
	}
	case SIM_FRONTEND_BOUND: {
		/* the line's front-end cycles by cause: resteers (after mispredicts, at indirect
		 * branches), the fetch bandwidth of taken branches and µop-cache misses, the rest
		 * instruction-cache misses; the largest names the finding */
		struct dsim_fe f = { 0 };

		dsim_fe_add(&f, ss);
		if (f.resteer > f.bandwidth && f.resteer > f.icache) {
			strbuf_adds(title, "front-end resteers at ");
			diag_add_where(title, file, ss->line, fn);
			if (mis) {
				diag_add_grouped(ev, mis);
				strbuf_adds(ev, v[SIM_BI] ? " mispredicted and " : " mispredicted");
			}
			if (v[SIM_BI] || !mis) {
				diag_add_grouped(ev, v[SIM_BI]);
				strbuf_adds(ev, " indirect");
			}
			strbuf_addf(ev, " branches at this line redirect the front end, which delivers nothing "
					"while it refetches from the new target; an estimated %.1f %% of all slots starve "
					"(Fetch Latency: branch resteers)", share);
			*node = "fetch_latency";
			if (mis >= v[SIM_BI]) {
				strbuf_adds(fix, "The resteers follow the mispredicts: fix those first (Bad Speculation). ");
				diag_kb_fix("branch_mispredicts", "data dependency", fix);
			} else {
				diag_kb_fix(*node, "devirtualisation", fix);
			}
			break;
		}
		if (f.bandwidth > f.icache) {
			strbuf_adds(title, "taken branches limit fetch at ");
			diag_add_where(title, file, ss->line, fn);
			diag_add_grouped(ev, v[SIM_IR]);
			strbuf_addf(ev, " instructions in short blocks that end in a taken branch (or miss the µop cache): "
					"the front end delivers fewer µops a cycle than the machine issues; an estimated "
					"%.1f %% of all slots stay empty (Fetch Bandwidth)", share);
			*node = "fetch_bandwidth";
			diag_kb_fix(*node, "Remove taken branches", fix);
			break;
		}
		strbuf_adds(title, "instruction-cache misses at ");
		diag_add_where(title, file, ss->line, fn);
		diag_add_grouped(ev, v[SIM_I1MR]);
		strbuf_adds(ev, " L1i misses at this line (");
		diag_add_grouped(ev, v[SIM_ILMR]);
		strbuf_addf(ev, " of them missing the last level too) for ");
		diag_add_grouped(ev, v[SIM_IR]);
		strbuf_addf(ev, " instructions; an estimated %.1f %% of all slots starve while it is fetched", share);
		*node = "fetch_latency";
		diag_kb_fix(*node, "Profile-guided", fix);
		strbuf_addch(fix, ' ');
		diag_kb_fix(*node, "Sort the functions", fix);
		break;
	}
	case SIM_BACKEND_BOUND:
		if (ss->core > ss->cycles.v[SIM_BACKEND_BOUND] - ss->core) {
			/* the block model's stall: dependency chains, ports, dividers (issue 19); a block
			 * running at llvm-mca's throughput bound is port-bound, one above it waits on a chain */
			bool ports = ss->core_ports > ss->core - ss->core_ports;

			strbuf_adds(title, ports ? "busy execution port or divider at " : "dependency chain at ");
			diag_add_where(title, file, ss->line, fn);
			diag_add_grouped(ev, v[SIM_IR]);
			if (ports)
				strbuf_addf(ev, " instructions whose block runs at the throughput of its busiest port or "
						"divider in llvm-mca's scheduling model, slower than the machine issues: an "
						"estimated %.1f %% of all slots wait for those units (Core Bound, port "
						"utilization)", share);
			else
				strbuf_addf(ev, " instructions whose block runs slower than its ports allow in llvm-mca's "
						"scheduling model: each iteration waits for results of the one before (a "
						"dependency chain); an estimated %.1f %% of all slots wait for it (Core Bound)",
					    share);
			*node = "core_bound";
			if (ports) {
				diag_kb_fix(*node, "Vectorise", fix);
				strbuf_addch(fix, ' ');
				diag_kb_fix(*node, "Divide once", fix);
			} else {
				diag_kb_fix(*node, "independent accumulators", fix);
				strbuf_addch(fix, ' ');
				diag_kb_fix(*node, "Divide once", fix);
			}
			if (d->loop_command)
				strbuf_addf(fix, " Measure the loop alone: '%s'.", d->loop_command);
			break;
		}
		strbuf_adds(title, ss->stream ? "data-cache misses on a sequential stream at " : "data-cache misses at ");
		diag_add_where(title, file, ss->line, fn);
		diag_add_grouped(ev, v[SIM_D1MR]);
		strbuf_adds(ev, " of ");
		diag_add_grouped(ev, v[SIM_DR]);
		strbuf_addf(ev, " loads at this line miss the L1 data cache (%.1f %%) and ", diag_pct(v[SIM_D1MR], v[SIM_DR]));
		diag_add_grouped(ev, v[SIM_DLMR]);
		strbuf_addf(ev, " the last level too (%s); an estimated %.1f %% of all slots wait for them",
			    !ss->tool ? (ss->stream ? "costed as a prefetched stream" : "each one paying the full latency")
			    : ss->chase  ? "each waiting for the value the one before loaded: a pointer chase"
			    : ss->stream ? "a stream the prefetchers cover: what is left is bandwidth"
					 : "overlapping as far as the reorder and fill buffers let them", share);
		*node = "memory_bound";
		diag_kb_fix(*node, ss->stream ? "Block (tile)" : "linked structures", fix);
		break;
	default:
		if (ss->heavy > ss->cycles.v[SIM_RETIRING] - ss->heavy) {
			/* the block model's µop counts: most of what retires here is multi-µop or microcode */
			strbuf_adds(title, "multi-µop or microcoded instructions at ");
			diag_add_where(title, file, ss->line, fn);
			diag_add_grouped(ev, v[SIM_IR]);
			strbuf_addf(ev, " instructions (%.1f %% of the %s) whose µops the block model counts at two or more "
					"each, or as a microcode sequence (a repeated string instruction); an estimated %.1f %% "
					"of all slots retire them (Heavy Operations)",
				    diag_pct(v[SIM_IR], d->totals.instructions),
				    d->scope == DIAG_SCOPE_PROGRAM ? "program's" : "run's", 100.0 * ss->heavy / fmax(1e-9, ss->cycles.v[SIM_RETIRING]) * share / 100.0);
			*node = "heavy_operations";
			diag_kb_fix(*node, "microcoded", fix);
			if (d->loop_command)
				strbuf_addf(fix, " Measure the loop alone: '%s'.", d->loop_command);
			break;
		}
		strbuf_adds(title, "hot loop at ");
		diag_add_where(title, file, ss->line, fn);
		diag_add_grouped(ev, v[SIM_IR]);
		strbuf_addf(ev, " instructions (%.1f %% of the %s), %.1f mispredicts and %.1f L1d misses per 1000 of "
				"them; an estimated %.1f %% of all slots retire here",
			    diag_pct(v[SIM_IR], d->totals.instructions),
			    d->scope == DIAG_SCOPE_PROGRAM ? "program's" : "run's", 1000.0 * (double)mis / (double)(v[SIM_IR] ? v[SIM_IR] : 1),
			    1000.0 * (double)v[SIM_D1MR] / (double)(v[SIM_IR] ? v[SIM_IR] : 1), share);
		*node = "light_operations";
		diag_kb_fix("retiring", "algorithm", fix);
		strbuf_addch(fix, ' ');
		diag_kb_fix(*node, "vectorise", fix);
		if (d->loop_command)
			strbuf_addf(fix, " Measure the loop alone: '%s'.", d->loop_command);
		else if (d->loop_note[0])
			strbuf_addf(fix, " To measure it alone: %s.", d->loop_note);
		break;
	}
}

static int add_site_finding(struct dsim *s, struct diag *d, enum sim_bucket b, const struct sim_site *ss, int index,
			    double share, struct tdp_err *err)
{
	struct strbuf title = STRBUF_INIT, ev = STRBUF_INIT, fix = STRBUF_INIT;
	const char *node = NULL;
	char *file = dsim_display_file(s, dsim_abs_file(s, ss->file));
	int ret = 0;

	describe(s, d, b, ss, file, share, &title, &ev, &fix, &node);
	if (strbuf_failed(&title) || strbuf_failed(&ev) || strbuf_failed(&fix) ||
	    diag_add_finding(d, &(struct diag_finding){ .title = title.buf, .category = bucket_key(b), .node = node,
							 .evidence = ev.buf, .site = index, .fix = fix.buf,
							 .file = file, .function = (char *)dsim_fn(s, ss->fn),
							 .line = ss->line, .share = share }))
		ret = tdp_err_oom(err);
	tdp_free(file);
	strbuf_release(&title);
	strbuf_release(&ev);
	strbuf_release(&fix);
	return ret;
}

/* Frontend: the footprint as a whole, whose i-cache misses cost share % of the slots. */
static int add_footprint_finding(struct diag *d, double share, struct tdp_err *err)
{
	const struct diag_footprint *f = &d->footprint;
	struct strbuf title = STRBUF_INIT, ev = STRBUF_INIT, fix = STRBUF_INIT;
	int ret = 0;

	strbuf_addf(&title, "hot code footprint: %llu functions", (unsigned long long)f->functions);
	if (f->bytes)
		strbuf_addf(&title, ", %.1f KiB of code", (double)f->bytes / 1024.0);
	if (f->i1_bytes && f->bytes > f->i1_bytes)
		strbuf_addf(&title, ", %.1fx the %llu KiB L1 i-cache", (double)f->bytes / (double)f->i1_bytes,
			    (unsigned long long)(f->i1_bytes / 1024));
	strbuf_addf(&ev, "%.2f L1i misses per 1000 instructions (", d->triage.l1i_mpki);
	diag_add_grouped(&ev, d->totals.l1i_misses);
	strbuf_addf(&ev, " in all) over %llu functions from %llu source files; an estimated %.1f %% of all slots "
			 "starve for instructions",
		    (unsigned long long)f->functions, (unsigned long long)f->files, share);
	diag_kb_fix("frontend_bound", "profile", &fix);
	strbuf_addch(&fix, ' ');
	diag_kb_fix("fetch_latency", "over-inline", &fix);
	if (strbuf_failed(&title) || strbuf_failed(&ev) || strbuf_failed(&fix) ||
	    diag_add_finding(d, &(struct diag_finding){ .title = title.buf, .category = "frontend_bound",
							 .node = "frontend_bound", .evidence = ev.buf, .site = -1,
							 .fix = fix.buf, .share = share }))
		ret = tdp_err_oom(err);
	strbuf_release(&title);
	strbuf_release(&ev);
	strbuf_release(&fix);
	return ret;
}

#define DSIM_SITE_FINDINGS 3     /* sites of the dominant bucket turned into findings */
#define DSIM_MIN_SHARE 1.0       /* a further site needs this share of slots (percent) */

int dsim_findings(struct dsim *s, struct diag *d, enum sim_bucket b, struct tdp_err *err)
{
	double cycles = s->est.cycles;
	int ret = 0;

	if (b == SIM_FRONTEND_BOUND && d->has_footprint) {
		/* the footprint is the finding only when i-cache misses are the front end's largest cause
		 * (not resteers, not the taken-branch fetch limit) */
		struct dsim_fe f = { 0 };

		for (size_t i = 0; i < s->nr_scope; i++)
			dsim_fe_add(&f, &s->scope[i]);
		if (f.icache >= f.resteer && f.icache >= f.bandwidth && cycles > 0 &&
		    (ret = add_footprint_finding(d, 100.0 * f.icache / cycles, err)))
			return ret;
	}
	for (size_t i = 0; i < s->nr_scope && i < DSIM_SITE_FINDINGS; i++) {
		const struct sim_site *ss = &s->scope[i];
		double share = 100.0 * ss->cycles.v[b] / cycles;

		/* a site too small to matter is noise beside a finding already made (the footprint) */
		if ((i || d->nr_findings) && share < DSIM_MIN_SHARE)
			break;
		if ((ret = add_site_finding(s, d, b, ss, i < d->nr_sites ? (int)i : -1, share, err)))
			return ret;
	}
	/* the top site of each other bucket over its threshold */
	for (int ob = 0; ob < SIM_NR_BUCKETS; ob++) {
		const struct metric_node *n = metric_tree_find(&d->tree, bucket_key((enum sim_bucket)ob));
		const struct sim_site *best = NULL;

		if (ob == (int)b || !n || !n->flagged)
			continue;
		for (size_t i = 0; i < s->nr_scope; i++)
			if (!best || s->scope[i].cycles.v[ob] > best->cycles.v[ob])
				best = &s->scope[i];
		if (best && best->cycles.v[ob] > 0 &&
		    (ret = add_site_finding(s, d, (enum sim_bucket)ob, best, -1, 100.0 * best->cycles.v[ob] / cycles, err)))
			return ret;
	}
	return 0;
}
