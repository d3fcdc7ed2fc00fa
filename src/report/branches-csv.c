/* branches-csv.c: `tdprof branches report --csv`: one table, chosen by --by (branches.h). */
#include "report/branches.h"
#include "base/strbuf.h"

#include <inttypes.h>
#include <string.h>

static size_t limit(const struct branches_report *r, size_t nr)
{
	return r->top && r->top < nr ? r->top : nr;
}

/*
 * The mispredict columns: the figures, or empty fields when the recording has no
 * mispredict flags (AMD Zen 3 BRS): unmeasured, never 0.
 */
static void misp_u64(struct strbuf *sb, const struct branches_report *r, uint64_t v)
{
	if (r->res->has_mispred_flags)
		strbuf_addf(sb, "%" PRIu64, v);
}

static void misp_real(struct strbuf *sb, const struct branches_report *r, double v)
{
	if (r->res->has_mispred_flags)
		strbuf_addf(sb, "%.6f", v);
}

static void sites(struct strbuf *sb, const struct branches_report *r)
{
	const struct branch_result *res = r->res;

	strbuf_adds(sb, "rank,address,function,offset,dso,file,line,executions,mispredicts,rate,share,type,symbol\n");
	for (size_t i = 0; i < limit(r, res->nr_sites); i++) {
		const struct branch_site *s = &res->sites[i];
		const struct branch_loc *l = branch_symbols_find(r->syms, s->addr);
		bool named = l && l->resolved;

		strbuf_addf(sb, "%zu,0x%" PRIx64 ",", i + 1, s->addr);
		strbuf_add_csv_field(sb, named ? l->function : NULL);
		strbuf_addch(sb, ',');
		if (named)
			strbuf_addf(sb, "0x%" PRIx64, l->offset);
		strbuf_addch(sb, ',');
		strbuf_add_csv_field(sb, l ? l->dso : NULL);
		strbuf_addch(sb, ',');
		strbuf_add_csv_field(sb, l ? l->file : NULL);
		strbuf_addch(sb, ',');
		if (l && l->file && l->line)
			strbuf_addf(sb, "%u", l->line);
		strbuf_addf(sb, ",%" PRIu64 ",", s->executions);
		misp_u64(sb, r, s->mispredicts);
		strbuf_addch(sb, ',');
		misp_real(sb, r, branch_site_rate(s));
		strbuf_addch(sb, ',');
		misp_real(sb, r, branch_site_share(s, &res->counts));
		strbuf_addf(sb, ",%s,", s->type ? branch_type_name(s->type, s->new_type) : "");
		strbuf_add_csv_field(sb, l ? l->perf_text : NULL);
		strbuf_addch(sb, '\n');
	}
}

static void edges(struct strbuf *sb, const struct branches_report *r)
{
	const struct branch_result *res = r->res;

	strbuf_adds(sb, "from,to,from_symbol,to_symbol,count,mispredicts,predicted,type\n");
	for (size_t i = 0; i < limit(r, res->nr_edges); i++) {
		const struct branch_edge *e = &res->edges[i];
		const struct branch_loc *f = branch_symbols_edge(r->syms, i, false);
		const struct branch_loc *t = branch_symbols_edge(r->syms, i, true);

		strbuf_addf(sb, "0x%" PRIx64 ",0x%" PRIx64 ",", e->from, e->to);
		strbuf_add_csv_field(sb, f ? f->perf_text : NULL);
		strbuf_addch(sb, ',');
		strbuf_add_csv_field(sb, t ? t->perf_text : NULL);
		strbuf_addf(sb, ",%" PRIu64 ",", e->count);
		misp_u64(sb, r, e->mispredicts);
		strbuf_addch(sb, ',');
		misp_u64(sb, r, e->predicted);
		strbuf_addf(sb, ",%s\n", e->type ? branch_type_name(e->type, e->new_type) : "");
	}
}

static void types(struct strbuf *sb, const struct branches_report *r)
{
	const struct branch_result *res = r->res;

	strbuf_adds(sb, "type,sites,executions,mispredicts,rate,share\n");
	for (size_t i = 0; i < res->nr_types; i++) {
		const struct branch_type_row *t = &res->types[i];

		strbuf_addf(sb, "%s,%" PRIu64 ",%" PRIu64 ",", branch_type_name(t->type, t->new_type), t->sites,
			    t->executions);
		misp_u64(sb, r, t->mispredicts);
		strbuf_addch(sb, ',');
		misp_real(sb, r, t->rate);
		strbuf_addch(sb, ',');
		misp_real(sb, r, t->share);
		strbuf_addch(sb, '\n');
	}
}

static void blocks(struct strbuf *sb, const struct branches_report *r)
{
	const struct branch_result *res = r->res;
	const struct branch_symbols *sy = r->syms;

	strbuf_adds(sb, "start,end,function,count,timed,avg_cycles,instructions,ipc\n");
	for (size_t i = 0; i < limit(r, res->nr_blocks); i++) {
		const struct branch_block *b = &res->blocks[i];
		const struct branch_loc *l = branch_symbols_find(sy, b->start);
		int64_t insns = i < sy->nr_block_insns ? sy->block_insns[i] : -1;
		double ipc = branch_block_ipc(b, insns);

		strbuf_addf(sb, "0x%" PRIx64 ",0x%" PRIx64 ",", b->start, b->end);
		strbuf_add_csv_field(sb, l && l->resolved ? l->function : NULL);
		strbuf_addf(sb, ",%" PRIu64 ",%" PRIu64 ",", b->count, b->timed);
		if (b->timed)
			strbuf_addf(sb, "%.4f", branch_block_avg_cycles(b));
		strbuf_addch(sb, ',');
		if (insns >= 0)
			strbuf_addf(sb, "%" PRId64, insns);
		strbuf_addch(sb, ',');
		if (ipc >= 0)
			strbuf_addf(sb, "%.4f", ipc);
		strbuf_addch(sb, '\n');
	}
}

void report_branches_csv(struct strbuf *out, const struct branches_report *r)
{
	switch (r->view) {
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
		break;
	}
}
