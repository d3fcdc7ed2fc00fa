/* why-text.c: `tdprof why` for a person (see why.h). */
#include "report/why.h"
#include "report/topdown.h"
#include "report/fit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/str.h"
#include "base/docpath.h"
#include "base/strbuf.h"
#include "model/advice.h"
#include "model/triage.h"
#include "report/palette.h"

/* Prose wraps at the terminal's width (why_report.columns, report/fit.h), set by
 * why_text_print() for the one call: renderers run one at a time. */
static size_t WIDTH = FIT_DEFAULT_COLUMNS;

static const char *est(const struct diag *d)
{
	return d->estimate ? ", estimate (simulated)" : "";
}

/* Print `first`, then text wrapped at WIDTH (why_wrap()). */
static void wrap(FILE *out, const char *first, size_t indent, const char *text)
{
	why_wrap(out, first, indent, text, WIDTH);
}

/* The widths of the site and function columns: what the terminal leaves beside `fixed` columns of figures. */
static void name_widths(size_t fixed, size_t *site_w, size_t *fn_w)
{
	size_t avail = WIDTH > fixed + 9 ? WIDTH - fixed - 9 : 0;

	/* 80 columns leave 29 beside the figures of a branch table: 18 + 11 */
	*site_w = avail * 3 / 5 > 18 ? avail * 3 / 5 : 18;
	*fn_w = avail > *site_w + 11 ? avail - *site_w : 11;
}

/* One row's site and function, each fitted to its column ("..." where cut). */
static void put_names(FILE *out, size_t i, const char *where, const char *fn, size_t site_w, size_t fn_w)
{
	char a[400], b[400];

	fprintf(out, "   %2zu  %-*s %-*s ", i, (int)site_w, fit_path(where, site_w, a, sizeof(a)), (int)fn_w,
		fit_name(fn, fn_w, b, sizeof(b)));
}

static void site_name(const struct diag_site *s, char *buf, size_t size)
{
	if (!s->file && !s->line && s->address)
		snprintf(buf, size, "0x%llx (no line)", (unsigned long long)s->address);
	else if (!s->file && !s->line)
		snprintf(buf, size, "(no line)");
	else if (s->line)
		snprintf(buf, size, "%s:%llu", s->file ? s->file : "???", (unsigned long long)s->line);
	else
		snprintf(buf, size, "%s", s->file ? s->file : "???");
}

static void print_header(FILE *out, const struct why_report *r)
{
	const struct diag *d = r->d;

	fprintf(out, "tdprof why: %s\n", r->command ? r->command : "?");
	if (d->estimate) {
		char line[1024];

		snprintf(line, sizeof(line), "%s: every figure below is an estimate (simulated) by valgrind and the cost "
			 "model of " TDP_DOC_SIM_MACHINE ", not a measurement", backend_name(d->backend));
		wrap(out, "backend:", 9, line);
		wrap(out, "machine:", 9, d->machine);
	} else
		fprintf(out, "backend: %s\n", backend_name(d->backend));
	if (d->scope_reason[0])
		wrap(out, "scope:", 7, d->scope_reason);
	if (r->workload_ran && r->exit_status)
		fprintf(out, "the workload exited with status %d\n", r->exit_status);
}

static void print_triage(FILE *out, const struct diag *d)
{
	const struct triage_metrics *m = &d->triage;
	char a[32], b[32];

	fprintf(out, "\n1. triage%s\n", est(d));
	if (d->backend == BACKEND_SIM)
		fprintf(out, "   %-14s %s instructions, %s cycles\n", "counts", str_grouped_u64(d->totals.instructions, a, sizeof(a)),
			str_grouped_u64((uint64_t)llround(d->totals.cycles), b, sizeof(b)));
	if (!isnan(m->cpi))
		fprintf(out, "   %-14s %8.2f   (IPC %.2f; high above %.1f)\n", "CPI", m->cpi, m->ipc, TRIAGE_CPI_HIGH);
	if (!isnan(m->branch_mpki))
		fprintf(out, "   %-14s %8.2f   mispredicts per 1000 instructions (high above %.0f)\n", "branch MPKI",
			m->branch_mpki, TRIAGE_BRANCH_MPKI_HIGH);
	if (!isnan(m->l1i_mpki))
		fprintf(out, "   %-14s %8.2f   L1i misses per 1000 instructions (high above %.0f)\n", "L1i MPKI",
			m->l1i_mpki, TRIAGE_L1I_MPKI_HIGH);
	if (!isnan(m->llc_mpki))
		fprintf(out, "   %-14s %8.2f   LLC misses per 1000 instructions (high above %.0f)\n", "LLC MPKI",
			m->llc_mpki, TRIAGE_LLC_MPKI_HIGH);
}

/* The PMU drill-down's sites: sampled figures (diagnose/drill-pmu.h), not totals. */
static void print_sampled_sites(FILE *out, const struct diag *d, size_t n, const struct palette *pal)
{
	char where[320], a[32], b[32];
	bool records = d->sampling.method != DIAG_SAMPLE_IP, flags = records && d->sampling.has_flags;
	size_t sw, fw;

	name_widths(flags ? 42 : 21, &sw, &fw);
	if (flags)
		fprintf(out, "   %2s  %-*s %-*s %13s %13s %6s %7s\n", "#", (int)sw, "site", (int)fw, "function",
			"mispredicted", "records", "rate", "share");
	else
		fprintf(out, "   %2s  %-*s %-*s %13s %7s\n", "#", (int)sw, "site", (int)fw, "function",
			records ? "records" : "samples", "share");
	for (size_t i = 0; i < n; i++) {
		const struct diag_site *s = &d->sites[i];

		site_name(s, where, sizeof(where));
		fputs(i ? "" : pal_on(pal, PAL_HOT), out); /* the hottest row */
		put_names(out, i + 1, where, s->function ? s->function : "???", sw, fw);
		if (flags)
			fprintf(out, "%13s %13s %5.1f%% %6.1f%%", str_grouped_u64(s->mispredicts, a, sizeof(a)),
				str_grouped_u64(s->branches, b, sizeof(b)), s->mispredict_rate, s->share);
		else
			fprintf(out, "%13s %6.1f%%", str_grouped_u64(s->samples, a, sizeof(a)), s->share);
		fprintf(out, "%s\n", i ? "" : pal_off(pal));
	}
}

static void print_sites(FILE *out, const struct diag *d, size_t max, const struct palette *pal)
{
	char where[320], a[32], b[32], c[32];
	size_t n = d->nr_sites < max ? d->nr_sites : max, sw, fw;

	if (!n) {
		fputs(d->has_sampling ? "   no site: no sample landed in code that could be named\n"
				      : "   no site: valgrind gave no per-line costs (build with -g for source lines)\n",
		      out);
		return;
	}
	if (d->has_sampling) {
		print_sampled_sites(out, d, n, pal);
		if (d->nr_sites > n)
			fprintf(out, "   (%zu more: -n or --json)\n", d->nr_sites - n);
		return;
	}
	name_widths(d->drill == DIAG_DRILL_BRANCHES ? 42 : d->drill == DIAG_DRILL_ICACHE || d->drill == DIAG_DRILL_MEMORY
			    ? 50 : 29, &sw, &fw);
	fprintf(out, "   %2s  %-*s %-*s ", "#", (int)sw, "site", (int)fw, "function");
	switch (d->drill) {
	case DIAG_DRILL_BRANCHES:
		fprintf(out, "%13s %13s %6s %7s\n", "mispredicts", "branches", "rate", "slots");
		break;
	case DIAG_DRILL_ICACHE:
		fprintf(out, "%13s %13s %13s %7s\n", "L1i misses", "LL misses", "instructions", "slots");
		break;
	case DIAG_DRILL_MEMORY:
		fprintf(out, "%13s %13s %13s %7s\n", "loads", "L1d misses", "LL misses", "slots");
		break;
	default:
		fprintf(out, "%13s %7s %7s\n", "instructions", "share", "slots");
		break;
	}
	for (size_t i = 0; i < n; i++) {
		const struct diag_site *s = &d->sites[i];
		const struct diag_counts *k = &s->c;
		const char *fn = s->function ? s->function : "???";

		site_name(s, where, sizeof(where));
		fputs(i ? "" : pal_on(pal, PAL_HOT), out); /* the hottest row */
		put_names(out, i + 1, where, fn, sw, fw);
		switch (d->drill) {
		case DIAG_DRILL_BRANCHES:
			fprintf(out, "%13s %13s %5.1f%% %6.1f%%", str_grouped_u64(s->mispredicts, a, sizeof(a)),
				str_grouped_u64(s->branches, b, sizeof(b)), s->mispredict_rate, s->share);
			break;
		case DIAG_DRILL_ICACHE:
			fprintf(out, "%13s %13s %13s %6.1f%%", str_grouped_u64(k->l1i_misses, a, sizeof(a)),
				str_grouped_u64(k->ll_i_misses, b, sizeof(b)), str_grouped_u64(k->instructions, c, sizeof(c)),
				s->share);
			break;
		case DIAG_DRILL_MEMORY:
			fprintf(out, "%13s %13s %13s %6.1f%%%s", str_grouped_u64(k->loads, a, sizeof(a)),
				str_grouped_u64(k->l1d_misses, b, sizeof(b)), str_grouped_u64(k->ll_misses, c, sizeof(c)),
				s->share, s->stream ? "  (stream)" : "");
			break;
		default:
			fprintf(out, "%13s %6.1f%% %6.1f%%", str_grouped_u64(k->instructions, a, sizeof(a)), s->insn_share,
				s->share);
			break;
		}
		fprintf(out, "%s\n", i ? "" : pal_off(pal));
	}
	if (d->nr_sites > n)
		fprintf(out, "   (%zu more: -n or --json)\n", d->nr_sites - n);
}

/* The top line's branches, each with its own counts (a line's rate averages them). */
static void print_line_branches(FILE *out, const struct diag *d)
{
	const struct diag_site *top = &d->sites[0];
	char a[32], b[32];

	if (d->nr_branches < 2)
		return;
	fprintf(out, "\n   the line's %zu branches, each counted%s (* the marked one):\n", d->nr_branches, est(d));
	fprintf(out, "   %10s  %-20s %12s %12s %7s\n", "address", "instruction", "mispredicts", "executions", "rate");
	for (size_t i = 0; i < d->nr_branches; i++) {
		const struct diag_branch *br = &d->branches[i];

		char t[64];

		fprintf(out, "  %c%10llx  %-20s %12s %12s %6.1f%%\n", d->has_disasm && br->addr == d->disasm.target ? '*' : ' ',
			(unsigned long long)br->addr,
			fit_name(br->text, 20, t, sizeof(t)),
			str_grouped_u64(br->mispredicts, a, sizeof(a)), str_grouped_u64(br->executions, b, sizeof(b)),
			br->executions ? 100.0 * (double)br->mispredicts / (double)br->executions : 0.0);
	}
	fprintf(out, "   %10s  %-20s %12s %12s %6.1f%%\n", "", "the whole line",
		str_grouped_u64(top->mispredicts, a, sizeof(a)), str_grouped_u64(top->branches, b, sizeof(b)),
		top->mispredict_rate);
}

static void print_disasm(FILE *out, const struct diag *d)
{
	char where[320];

	if (!d->nr_sites)
		return;
	site_name(&d->sites[0], where, sizeof(where));
	if (!d->has_disasm) {
		fprintf(out, "\n   no disassembly of %s: %s\n", where, d->disasm_why);
		return;
	}
	{
		char line[800];

		snprintf(line, sizeof(line), "around %s (%s); > marks the line's instructions, * its branch:", where,
			 d->disasm.function[0] ? d->disasm.function : "no symbol");
		fputc('\n', out);
		wrap(out, "   disassembly", 6, line);
	}
	for (size_t i = 0; i < d->disasm.nr; i++) {
		const struct symbol_exe_insn *in = &d->disasm.v[i];

		fprintf(out, "   %c%c %8llx:  %s%s\n", in->target ? '*' : ' ', in->in_line ? '>' : ' ',
			(unsigned long long)in->addr, in->text,
			!in->target                                            ? ""
			: d->has_sampling && !d->sampling.has_flags ? "      <- the most taken branch"
									: "      <- the mispredicted branch");
	}
	if (!d->disasm.target && d->disasm.line_cond + d->disasm.line_ind > 1)
		fprintf(out, "   no branch marked: the line holds %zu branches and the run counted them together\n",
			d->disasm.line_cond + d->disasm.line_ind);
	print_line_branches(out, d);
}

static void print_footprint(FILE *out, const struct diag *d)
{
	const struct diag_footprint *f = &d->footprint;
	char a[32], b[32];

	if (!d->has_footprint)
		return;
	fprintf(out, "\n   hot code footprint%s: %llu functions", est(d), (unsigned long long)f->functions);
	if (f->bytes)
		fprintf(out, ", %s bytes of code", str_grouped_u64(f->bytes, a, sizeof(a)));
	fprintf(out, " from %llu source files", (unsigned long long)f->files);
	if (f->i1_bytes)
		fprintf(out, "; the L1 i-cache holds %llu KiB", (unsigned long long)(f->i1_bytes / 1024));
	fputs("\n", out);
	{
		char fn[400], file[400];
		size_t fixed = d->has_sampling ? 23 : 37, sw, fw;

		name_widths(fixed, &fw, &sw); /* the function first, its file second */
		fprintf(out, "   %-*s %-*s %8s ", (int)fw, "function", (int)sw, "file", "bytes");
		fputs(d->has_sampling ? "      samples\n" : " instructions    L1i misses\n", out);
		for (size_t i = 0; i < f->nr; i++) {
			fprintf(out, "   %-*s %-*s %8llu ", (int)fw, fit_name(f->v[i].name, fw, fn, sizeof(fn)), (int)sw,
				fit_path(f->v[i].file ? f->v[i].file : "???", sw, file, sizeof(file)),
				(unsigned long long)f->v[i].bytes);
			if (d->has_sampling)
				fprintf(out, "%13s\n", str_grouped_u64(f->v[i].samples, a, sizeof(a)));
			else
				fprintf(out, "%13s %13s\n", str_grouped_u64(f->v[i].instructions, a, sizeof(a)),
					str_grouped_u64(f->v[i].l1i_misses, b, sizeof(b)));
		}
	}
}

/* How the PMU drill-down sampled its run (diagnose/drill-pmu.h). */
static void print_sampling(FILE *out, const struct diag *d)
{
	const struct diag_sampling *m = &d->sampling;
	char line[1200], a[32], b[32];

	snprintf(line, sizeof(line), "%s; a second run sampled '%s' %s %llu%s: %s samples", m->reason, m->event,
		 m->freq ? "at" : "every", (unsigned long long)(m->freq ? m->freq : m->period), m->freq ? " Hz" : "",
		 str_grouped_u64(m->samples, a, sizeof(a)));
	if (m->loads)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " (SPE load records)");
	else if (m->method != DIAG_SAMPLE_IP)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " with %s branch records",
			 str_grouped_u64(m->branch_records, b, sizeof(b)));
	if (m->lost)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " (%s lost)", str_grouped_u64(m->lost, b, sizeof(b)));
	if (m->data_addr)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), ", %s of them with a data address",
			 str_grouped_u64(m->with_addr, b, sizeof(b)));
	wrap(out, "   sampled:", 14, line);
	if (!m->facility) {
		snprintf(line, sizeof(line), "no branch-recording facility here: %s", m->facility_reason);
		wrap(out, "   branches:", 14, line);
	}
}

/* PEBS data addresses: the data lines the samples touched most, and the code that touched each. */
static void print_data(FILE *out, const struct diag *d)
{
	char where[320], region[160], a[32];
	bool lat = false;

	if (!d->has_sampling || !d->sampling.data_addr)
		return;
	if (!d->nr_data) {
		fputs("\n   data: no sample carried a data address (this event gives none here)\n", out);
		return;
	}
	fputs("\n   data: the cache lines the sampled accesses touched most, and the code that touched each\n", out);
	for (size_t i = 0; i < d->nr_data; i++)
		lat |= d->data[i].latency >= 0;
	fprintf(out, "   %2s  %-18s %-16s %8s %7s %s %s\n", "#", "address", "mapping", "samples", "share",
		lat ? " latency" : "", "code");
	for (size_t i = 0; i < d->nr_data; i++) {
		const struct diag_data *x = &d->data[i];
		struct diag_site s = { .file = x->file, .function = x->function, .line = x->line };

		site_name(&s, where, sizeof(where));
		if (x->offset)
			snprintf(region, sizeof(region), "%s+0x%llx", x->region, (unsigned long long)x->offset);
		else
			snprintf(region, sizeof(region), "%s", x->region[0] ? x->region : "(unmapped)");
		fprintf(out, "   %2zu  0x%-16llx %-16s %8s %6.1f%% ", i + 1, (unsigned long long)x->addr, region,
			str_grouped_u64(x->samples, a, sizeof(a)), x->share);
		if (lat && x->latency >= 0)
			fprintf(out, "%8.0f ", x->latency);
		else if (lat)
			fprintf(out, "%8s ", "-");
		fprintf(out, "%s in %s\n", where, x->function ? x->function : "???");
	}
}

/* The PMU drill-down says what its samples can show. */
static const char *sampled_title(const struct diag *d)
{
	bool ip = d->sampling.method == DIAG_SAMPLE_IP;

	if (!d->category)
		return "no verdict -> the hot code";
	switch (d->drill) {
	case DIAG_DRILL_BRANCHES:
		return ip ? "Bad Speculation -> the hot lines (no branch records here)"
			  : "Bad Speculation -> the mispredicting branches";
	case DIAG_DRILL_ICACHE: return "Frontend Bound -> the hot code footprint";
	case DIAG_DRILL_MEMORY: return "Backend Bound -> the hot lines";
	case DIAG_DRILL_HOT_LOOP: return "Retiring -> the hot loop";
	case DIAG_DRILL_NONE: break;
	}
	return "";
}

/* Backend Bound on the PMU: memory versus core is the measured level 2. */
static void print_memory_core(FILE *out, const struct diag *d)
{
	const struct metric_node *m = metric_tree_find(&d->tree, "memory_bound");
	const struct metric_node *c = metric_tree_find(&d->tree, "core_bound");

	if (!d->has_tree || !m || !c || isnan(m->value) || isnan(c->value))
		return;
	fprintf(out, "   memory versus core: Memory Bound %.1f %%, Core Bound %.1f %% of slots\n", m->value, c->value);
}

static void print_drill(FILE *out, const struct why_report *r)
{
	const struct diag *d = r->d;
	static const char *const what[] = {
		[DIAG_DRILL_NONE] = "",
		[DIAG_DRILL_BRANCHES] = "Bad Speculation -> the mispredicting branches",
		[DIAG_DRILL_ICACHE] = "Frontend Bound -> the lines that starve the front end, and the code footprint",
		[DIAG_DRILL_MEMORY] = "Backend Bound -> memory: the data-miss sites",
		[DIAG_DRILL_HOT_LOOP] = "Retiring -> the hot loop",
	};

	if (d->drill == DIAG_DRILL_NONE)
		return;
	{
		char line[512];

		/* the simulation's Core Bound drills into the hot loop too (diagnose/sim.c) */
		const char *title = d->has_sampling ? sampled_title(d)
				    : d->drill == DIAG_DRILL_HOT_LOOP && d->category && !strcmp(d->category, "backend_bound")
					    ? "Backend Bound (Core Bound) -> the hot loop"
					    : what[d->drill];

		snprintf(line, sizeof(line), "%s, ranked by %s%s", title, d->ranked_by, est(d));
		fputc('\n', out);
		wrap(out, "3. drill-down:", 3, line);
	}
	if (d->has_sampling)
		print_sampling(out, d);
	if (d->drill == DIAG_DRILL_MEMORY && d->has_sampling)
		print_memory_core(out, d);
	if (d->drill == DIAG_DRILL_MEMORY && d->backend == BACKEND_SIM)
		fputs("   memory versus core: the simulation charges Backend Bound to data misses only (Memory Bound); "
		      "Core Bound is not simulated\n",
		      out);
	print_sites(out, d, r->verbose ? d->nr_sites : 10, r->pal);
	print_data(out, d);
	if (d->drill == DIAG_DRILL_BRANCHES)
		print_disasm(out, d);
	if (d->drill == DIAG_DRILL_ICACHE)
		print_footprint(out, d);
	if (d->drill == DIAG_DRILL_HOT_LOOP && d->loop_command)
		fprintf(out, "\n   measure the hot function alone:\n     %s\n", d->loop_command);
	if (d->drill == DIAG_DRILL_HOT_LOOP && d->loop_note[0]) {
		fputc('\n', out);
		wrap(out, d->loop_command ? "   note:" : "   to measure it alone:", d->loop_command ? 12 : 26, d->loop_note);
	}
}

static void print_findings(FILE *out, const struct diag *d)
{
	fprintf(out, "\n%d. diagnosis, most costly first%s\n", d->drill == DIAG_DRILL_NONE ? 3 : 4, est(d));
	if (!d->nr_findings)
		fputs("   nothing to report\n", out);
	for (size_t i = 0; i < d->nr_findings; i++) {
		const struct diag_finding *f = &d->findings[i];
		char head[64];

		snprintf(head, sizeof(head), "   %zu.", i + 1);
		if (!isnan(f->share)) {
			char t[600];

			snprintf(t, sizeof(t), "%s [%.1f %% of slots]", f->title, f->share);
			wrap(out, head, 6, t);
		} else {
			wrap(out, head, 6, f->title);
		}
		wrap(out, "      evidence:", 16, f->evidence);
		wrap(out, "      fix:", 16, f->fix);
		fprintf(out, "      more:     tdprof explain %s\n", f->node ? f->node : f->category);
	}
}

void why_text_print(FILE *out, const struct why_report *r)
{
	const struct diag *d = r->d;

	WIDTH = fit_columns(r->columns);
	print_header(out, r);
	why_lead_text(out, d, WIDTH); /* the vendor's Bottlenecks view leads, where the model has it */
	print_triage(out, d);
	if (d->has_tree) {
		why_tree_text(out, d, r->pal, WIDTH);
	} else if (d->reason[0]) {
		fputs("\n2. top-down\n", out);
		wrap(out, "   none:", 12, d->reason);
	}
	if (d->has_functions)
		byfunc_text(out, &d->functions);
	print_drill(out, r);
	print_findings(out, d);
	for (size_t i = 0; i < d->nr_notes; i++)
		wrap(out, "note:", 6, d->notes[i]);
}
