/* branches-text.c: `tdprof branches report` for a person (branches.h). */
#include "report/branches.h"
#include "report/palette.h"
#include "base/str.h"
#include "base/strbuf.h"
#include "report/fit.h"

#include <inttypes.h>
#include <string.h>

static size_t limit(const struct branches_report *r, size_t nr)
{
	return r->top && r->top < nr ? r->top : nr;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static const char *basename_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* The width of a name as strbuf_add_name() writes it. */
static size_t name_width(const char *s)
{
	struct strbuf t = STRBUF_INIT;
	size_t n;

	strbuf_add_name(&t, s);
	n = strbuf_failed(&t) ? strlen(s) : t.len;
	strbuf_release(&t);
	return n;
}

/* An escaped name, padded with blanks to width. */
static void padded_name(struct strbuf *sb, const char *s, size_t width)
{
	size_t at = sb->len;

	strbuf_add_name(sb, s);
	for (size_t n = sb->len >= at ? sb->len - at : width; n < width; n++)
		strbuf_addch(sb, ' ');
}

/* "func+0x1a  file.c:12 (inlined into g at x.c:40)", or where the address lies */
static void where(struct strbuf *sb, const struct branch_loc *l, bool with_source)
{
	if (!l) {
		strbuf_adds(sb, "?");
		return;
	}
	/* names come from the recording and the binaries: escaped (strbuf_add_name()) */
	if (l->resolved) {
		strbuf_add_name(sb, l->function);
		strbuf_addf(sb, "+0x%" PRIx64, l->offset);
	} else if (l->dso && !l->kernel) {
		strbuf_add_name(sb, basename_of(l->dso));
		strbuf_addf(sb, "+0x%" PRIx64, l->dso_addr);
	} else {
		strbuf_adds(sb, l->kernel ? "[kernel]" : "[unknown]");
	}
	if (!with_source)
		return;
	if (l->file) {
		strbuf_adds(sb, "  ");
		strbuf_add_name(sb, l->file);
		strbuf_addf(sb, ":%u", l->line);
	}
	for (size_t i = 1; i < l->nr_inlines; i++) {
		const struct branch_frame *f = &l->inlines[i];

		strbuf_adds(sb, i == 1 ? " (inlined into " : ", into ");
		strbuf_add_name(sb, f->function ? f->function : "?");
		if (f->file) {
			strbuf_adds(sb, " at ");
			strbuf_add_name(sb, basename_of(f->file));
			strbuf_addf(sb, ":%u", f->line);
		}
		if (i + 1 == l->nr_inlines)
			strbuf_addch(sb, ')');
	}
}

/*
 * where() as the last column of a row whose first `used` columns are taken: Rust's
 * /rustc/<commit>/ shortened, and cut with "..." at the terminal's width (at least
 * 40 columns of it are kept: a row wider than the terminal wraps rather than lose
 * the function).
 */
static void fitted_where(struct strbuf *sb, const struct branch_loc *l, unsigned columns, size_t used)
{
	struct strbuf w = STRBUF_INIT;
	char a[2048], b[2048];
	size_t cols = fit_columns(columns), room = cols > used + 40 ? cols - used : 40;

	where(&w, l, true);
	if (strbuf_failed(&w)) {
		strbuf_release(&w);
		where(sb, l, true);
		return;
	}
	fit_path(w.buf, sizeof(a) - 1, a, sizeof(a)); /* only the /rustc/ part: no cut */
	strbuf_adds(sb, fit_name(a, room, b, sizeof(b)));
	strbuf_release(&w);
}

/*
 * The lines of text (each "  head: words...") wrapped at `width` columns, the
 * continuation lines indented 4: hints hold paths and names, never cut.
 */
static void add_wrapped(struct strbuf *sb, const char *text, size_t width)
{
	for (const char *line = text; *line;) {
		const char *eol = strchr(line, '\n'), *p = line;
		size_t col = 0;

		eol = eol ? eol : line + strlen(line);
		while (p < eol && *p == ' ') {
			strbuf_addch(sb, ' ');
			p++;
			col++;
		}
		for (bool first = true; p < eol;) {
			size_t w = strcspn(p, " \n");

			if (w > (size_t)(eol - p))
				w = (size_t)(eol - p);
			if (!first && col + 1 + w > width) {
				strbuf_adds(sb, "\n    ");
				col = 4;
			} else if (!first) {
				strbuf_addch(sb, ' ');
				col++;
			}
			strbuf_add(sb, p, w);
			col += w;
			first = false;
			p += w;
			while (p < eol && *p == ' ')
				p++;
		}
		strbuf_addch(sb, '\n');
		line = *eol ? eol + 1 : eol;
	}
}

/* JIT code: anonymous executable memory (symbol/dso.c's rule, as perf names such maps). */
static bool is_jit(const char *dso)
{
	return dso && (!strncmp(dso, "//anon", 6) || !strncmp(dso, "[anon", 5) || !strncmp(dso, "/memfd:", 7));
}

/* What to try for unresolved user addresses like l: the exact option, or where a JIT's names come from. */
static void user_hint(struct strbuf *sb, const struct branch_loc *l)
{
	if (!l->dso) {
		strbuf_adds(sb, "the user ones are in no map of their process: the recording lacks their MMAP "
				"records (cut short, or recorded without them), which no option brings back");
	} else if (is_jit(l->dso)) {
		strbuf_adds(sb, "the JIT's perf map, /tmp/perf-PID.map of the recorded process (node "
				"--perf-basic-prof, Java's perf-map-agent; with --symfs DIR, DIR/tmp/perf-PID.map)");
	} else {
		strbuf_adds(sb, "--symfs DIR, a copy of the recorded machine's files: DIR");
		strbuf_add_name(sb, l->dso);
		strbuf_adds(sb, " must be the recorded binary");
	}
}

/*
 * Why addresses did not resolve (to a function, or to a source line), how many,
 * and what to try: said when none resolved, or when most user addresses did not,
 * or when none of the resolved has a line.
 */
static void resolve_why_lines(struct strbuf *sb, const struct branch_symbols *sy)
{
	size_t kernel = 0, user = 0, lines = 0;
	const struct branch_loc *k_ex = NULL, *u_ex = NULL;

	if (!strcmp(sy->symbolizer, "none") || !sy->nr_locs)
		return;
	for (size_t i = 0; i < sy->nr_locs; i++) {
		const struct branch_loc *l = &sy->locs[i];

		lines += l->file && l->line;
		if (l->resolved)
			continue;
		if (l->kernel) {
			kernel++;
			k_ex = k_ex ? k_ex : l;
		} else {
			user++;
			u_ex = u_ex && u_ex->note ? u_ex : l;
		}
	}
	if (!sy->nr_resolved || 2 * user > sy->nr_locs) {
		strbuf_addf(sb, "  %s:", sy->nr_resolved ? "unresolved" : "why none");
		if (kernel && !sy->nr_resolved) {
			strbuf_addf(sb, " %zu kernel addresses (", kernel);
			strbuf_add_name(sb, k_ex->note ? k_ex->note : "no kallsyms of the recorded kernel");
			strbuf_adds(sb, ")");
		}
		if (user) {
			strbuf_addf(sb, "%s %zu user addresses", kernel && !sy->nr_resolved ? ";" : "", user);
			if (u_ex->dso) {
				strbuf_adds(sb, ", e.g. in '");
				strbuf_add_name(sb, u_ex->dso);
				strbuf_adds(sb, "'");
			}
			strbuf_adds(sb, " (");
			strbuf_add_name(sb, u_ex->note ? u_ex->note : "no symbol");
			strbuf_adds(sb, ")");
		}
		strbuf_adds(sb, "\n  to resolve them: ");
		if (kernel && !sy->nr_resolved)
			strbuf_addf(sb, "--kallsyms FILE, a copy of /proc/kallsyms of the recorded machine and boot%s",
				    user ? "; " : "");
		if (user)
			user_hint(sb, u_ex);
		strbuf_addch(sb, '\n');
	}
	if (sy->nr_resolved && !lines)
		strbuf_adds(sb, "  no source lines: the binaries have no debug info; rebuild with -g, install their "
				"debug info (-dbgsym/-debuginfo), set DEBUGINFOD_URLS to fetch it from a debuginfod server "
				"(with debuginfod-find installed), or point --symfs at a tree that has it\n");
}

/* resolve_why_lines(), wrapped at the terminal's width */
static void resolve_why(struct strbuf *sb, const struct branch_symbols *sy, unsigned columns)
{
	struct strbuf t = STRBUF_INIT;

	resolve_why_lines(&t, sy);
	if (!strbuf_failed(&t) && t.len) /* out of memory: the hint is left out, the report goes on */
		add_wrapped(sb, t.buf, fit_columns(columns));
	strbuf_release(&t);
}

void report_recording_head(struct strbuf *sb, const char *file, const char *recorded_by, const char *cpu,
			   const char *backend, const char *event)
{
	strbuf_adds(sb, "tdprof branches report: '");
	strbuf_add_name(sb, file);
	strbuf_addch(sb, '\'');
	if (recorded_by) {
		strbuf_adds(sb, ", recorded by ");
		strbuf_add_name(sb, recorded_by);
	}
	if (cpu) {
		strbuf_adds(sb, " on ");
		strbuf_add_name(sb, cpu);
	}
	strbuf_addf(sb, " (backend %s", backend);
	if (event) {
		strbuf_adds(sb, ", event ");
		strbuf_add_name(sb, event);
	}
}

static void header(struct strbuf *sb, const struct branches_report *r)
{
	const struct branch_counts *c = &r->res->counts;
	char g1[STR_GROUPED_U64_MAX], g2[STR_GROUPED_U64_MAX];

	report_recording_head(sb, r->file, r->recorded_by, r->cpu, r->backend, r->event);
	if (r->load->spe.present)
		strbuf_adds(sb, ", Arm SPE");
	strbuf_adds(sb, ")\n");
	/* both: a system-wide recording holds many samples whose stack is empty */
	strbuf_addf(sb, "samples %s read, %s with branch records", str_grouped_u64(c->samples, g1, sizeof(g1)),
		    str_grouped_u64(c->samples_with_stack - c->samples_empty_stack, g2, sizeof(g2)));
	if (c->samples_empty_stack)
		strbuf_addf(sb, " (%s with an empty branch stack)", str_grouped_u64(c->samples_empty_stack, g1, sizeof(g1)));
	strbuf_addf(sb, ", branch entries %" PRIu64, c->branch_entries);
	if (c->zero_entries)
		strbuf_addf(sb, " (%" PRIu64 " with a 0 address)", c->zero_entries);
	if (r->res->has_mispred_flags)
		strbuf_addf(sb, ", mispredicted %" PRIu64 " (%.2f%%)", c->mispredicted_entries,
			    pct(c->mispredicted_entries, c->branch_entries));
	else
		strbuf_adds(sb, ", mispredicted: not recorded (the hardware sets no mispredict flag)");
	strbuf_addf(sb, ", lost samples %" PRIu64 "\n", c->lost + c->lost_samples);
	if (r->load->spe.present)
		strbuf_addf(sb, "Arm SPE: %" PRIu64 " records, %" PRIu64 " branches, %" PRIu64 " trace bytes (%" PRIu64
				" undecodable, %" PRIu64 " truncated)\n",
			    r->load->spe.records, r->load->spe.branch_records, r->load->spe.auxtrace_bytes,
			    r->load->spe.bad_bytes, r->load->spe.truncated);
	if (r->load->spe.mispred_only)
		strbuf_adds(sb, "note: SPE sampled only mispredicted branches (event_filter bit 7): every sampled branch "
				"is a mispredict, so each rate is 100 % by the filter, not by the program; the counts rank "
				"the sites. For rates, record every sampled branch: 'tdprof branches record --spe --spe-filter all'\n");
	if (!strcmp(r->syms->symbolizer, "none"))
		strbuf_adds(sb, "symbols: none (this tdprof was built without the symbol module)\n");
	else
		strbuf_addf(sb, "symbols: %zu of %zu addresses resolved\n", r->syms->nr_resolved, r->syms->nr_locs);
	resolve_why(sb, r->syms, r->columns);
}

static void sites(struct strbuf *sb, const struct branches_report *r)
{
	const struct branch_result *res = r->res;
	size_t n = limit(r, res->nr_sites);

	strbuf_addf(sb, "\nMisprediction sites by %s (%zu of %zu)\n", r->sort, n, res->nr_sites);
	strbuf_addf(sb, "%5s  %-18s  %10s  %10s  %7s  %7s  %-9s  %s\n", "rank", "address", "mispred", "executions",
		    "rate", "share", "type", "function  source");
	bool known = res->has_mispred_flags, filtered = r->load->spe.mispred_only;

	if (!known)
		strbuf_adds(sb, "(mispredicts unknown: the records carry no mispredict flag; sites by executions, "
				"their share of the branch entries)\n");
	for (size_t i = 0; i < n; i++) {
		const struct branch_site *s = &res->sites[i];

		strbuf_addf(sb, "%s%5zu  0x%016" PRIx64 "  ", i ? "" : pal_on(r->pal, PAL_HOT), i + 1, s->addr);
		if (known)
			strbuf_addf(sb, "%10" PRIu64 "  ", s->mispredicts);
		else
			strbuf_addf(sb, "%10s  ", "unknown");
		strbuf_addf(sb, "%10" PRIu64 "  ", s->executions);
		if (known && !filtered)
			strbuf_addf(sb, "%6.2f%%  ", 100.0 * branch_site_rate(s));
		else
			strbuf_addf(sb, "%7s  ", filtered ? "filter" : "-");
		strbuf_addf(sb, "%6.2f%%  %-9s  ",
			    known ? 100.0 * branch_site_share(s, &res->counts)
				  : res->counts.branch_entries ? 100.0 * (double)s->executions / (double)res->counts.branch_entries : 0.0,
			    branch_type_name(s->type, s->new_type));
		fitted_where(sb, branch_symbols_find(r->syms, s->addr), r->columns, 80);
		strbuf_addf(sb, "%s\n", i ? "" : pal_off(r->pal)); /* the hottest row */
	}
}

static void types(struct strbuf *sb, const struct branches_report *r)
{
	const struct branch_result *res = r->res;

	strbuf_adds(sb, "\nBranches by type");
	if (!res->has_types)
		strbuf_adds(sb, " (the recording saved no types: decoded from the binaries where they were found)");
	strbuf_addch(sb, '\n');
	strbuf_addf(sb, "  %-12s  %8s  %12s  %12s  %7s  %7s\n", "type", "sites", "executions", "mispredicts", "rate",
		    "share");
	for (size_t i = 0; i < res->nr_types; i++) {
		const struct branch_type_row *t = &res->types[i];

		if (!res->has_mispred_flags) {
			strbuf_addf(sb, "  %-12s  %8" PRIu64 "  %12" PRIu64 "  %12s  %7s  %7s\n",
				    branch_type_name(t->type, t->new_type), t->sites, t->executions, "unknown", "-", "-");
			continue;
		}
		strbuf_addf(sb, "  %-12s  %8" PRIu64 "  %12" PRIu64 "  %12" PRIu64 "  ", branch_type_name(t->type, t->new_type),
			    t->sites, t->executions, t->mispredicts);
		if (r->load->spe.mispred_only)
			strbuf_addf(sb, "%7s  ", "filter");
		else
			strbuf_addf(sb, "%6.2f%%  ", pct(t->mispredicts, t->executions));
		strbuf_addf(sb, "%6.2f%%\n", pct(t->mispredicts, res->counts.mispredicted_entries));
	}
}

static const char *const flag_text[] = { "N", "Y", "N/A" };

static void edges(struct strbuf *sb, const struct branches_report *r)
{
	const struct branch_symbols *sy = r->syms;
	size_t n = limit(r, sy->nr_sym_edges), wf = 13, wt = 13;

	for (size_t i = 0; i < n; i++) {
		size_t a = name_width(sy->sym_edges[i].from->perf_text), b = name_width(sy->sym_edges[i].to->perf_text);

		wf = a > wf ? a : wf;
		wt = b > wt ? b : wt;
	}
	strbuf_addf(sb, "\nEdges as perf report --sort symbol_from,symbol_to,mispredict (%zu of %zu)\n", n,
		    sy->nr_sym_edges);
	strbuf_addf(sb, "  %8s  %-*s  %-*s  %s\n", "Overhead", (int)wf, "Source Symbol", (int)wt, "Target Symbol",
		    "Branch Mispredicted");
	for (size_t i = 0; i < n; i++) {
		const struct branch_sym_edge *e = &sy->sym_edges[i];

		strbuf_addf(sb, "  %7.2f%%  ", pct(e->count, r->res->counts.branch_entries));
		padded_name(sb, e->from->perf_text, wf);
		strbuf_adds(sb, "  ");
		padded_name(sb, e->to->perf_text, wt);
		strbuf_addf(sb, "  %s\n", flag_text[e->flag < 3 ? e->flag : 2]);
	}
}

static void blocks(struct strbuf *sb, const struct branches_report *r)
{
	const struct branch_result *res = r->res;
	const struct branch_symbols *sy = r->syms;
	size_t n = limit(r, res->nr_blocks);

	if (!res->has_timing) {
		strbuf_addf(sb, "\nTimed basic blocks: %s\n",
			    r->timing_reason ? r->timing_reason : "no timing in this recording");
		return;
	}
	strbuf_addf(sb, "\nTimed basic blocks by total cycles (%zu of %zu; %" PRIu64 " of %" PRIu64
			" candidates skipped: a 0 address or not straight-line)\n",
		    n, res->nr_blocks, res->counts.blocks_skipped, res->counts.blocks_seen);
	strbuf_addf(sb, "  %-18s  %-18s  %8s  %10s  %6s  %6s  %s\n", "start", "end", "seen", "avg cycles", "insns",
		    "IPC", "function");
	for (size_t i = 0; i < n; i++) {
		const struct branch_block *b = &res->blocks[i];
		int64_t insns = i < sy->nr_block_insns ? sy->block_insns[i] : -1;
		double ipc = branch_block_ipc(b, insns);

		strbuf_addf(sb, "  0x%016" PRIx64 "  0x%016" PRIx64 "  %8" PRIu64 "  %10.2f  ", b->start, b->end, b->count,
			    branch_block_avg_cycles(b));
		if (insns >= 0)
			strbuf_addf(sb, "%6" PRId64 "  ", insns);
		else
			strbuf_addf(sb, "%6s  ", "-");
		if (ipc >= 0)
			strbuf_addf(sb, "%6.2f  ", ipc);
		else
			strbuf_addf(sb, "%6s  ", "-");
		where(sb, branch_symbols_find(sy, b->start), false);
		strbuf_addch(sb, '\n');
	}
	if (sy->block_note)
	{
		strbuf_adds(sb, "  (instructions and IPC unknown: ");
		strbuf_add_name(sb, sy->block_note);
		strbuf_adds(sb, ")\n");
	}
}

static void disasm(struct strbuf *sb, const struct branches_report *r)
{
	const struct branch_symbols *sy = r->syms;

	if (!sy->nr_disasm)
		return;
	strbuf_adds(sb, "\nDisassembly around the top sites (=> marks the branch)\n");
	for (size_t i = 0; i < sy->nr_disasm; i++) {
		const struct branch_site_disasm *d = &sy->disasm[i];

		strbuf_addf(sb, "  site 0x%" PRIx64 "  ", d->addr);
		where(sb, branch_symbols_find(sy, d->addr), true);
		strbuf_addch(sb, '\n');
		if (!d->nr_lines) {
			strbuf_adds(sb, "     (");
			strbuf_add_name(sb, d->error ? d->error : "no code"); /* it may quote a recorded path */
			strbuf_adds(sb, ")\n");
			continue;
		}
		for (size_t k = 0; k < d->nr_lines; k++)
			strbuf_addf(sb, "  %s 0x%016" PRIx64 "  %s\n", d->lines[k].target ? "=>" : "  ",
				    d->lines[k].addr, d->lines[k].text);
	}
}

void report_branches_text(struct strbuf *out, const struct branches_report *r)
{
	header(out, r);
	switch (r->view) {
	case BRANCHES_VIEW_SITE:
		sites(out, r);
		break;
	case BRANCHES_VIEW_EDGE:
		edges(out, r);
		break;
	case BRANCHES_VIEW_TYPE:
		types(out, r);
		break;
	case BRANCHES_VIEW_BLOCK:
		blocks(out, r);
		break;
	default:
		sites(out, r);
		types(out, r);
		edges(out, r);
		blocks(out, r);
		disasm(out, r);
		break;
	}
}
