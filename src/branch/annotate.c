/*
 * annotate.c: the annotator (annotate.h) over the symbol module: one
 * symbol_resolve() over the distinct addresses, types decoded from the binary,
 * disassembly of the top sites, instruction counts of the top blocks.
 */
#include "branch/annotate-internal.h"
#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "symbol/symbol.h"

#include <stdio.h>
#include <string.h>

struct branch_annot {
	struct branch_symbols syms;
	struct branch_annot_opts opts;
	struct symbol_session *sess;
	struct symbol_result *results;     /* parallel to syms.locs */
	struct branch_frame *frames;       /* every loc's inline chain, back to back */
	char *texts;                       /* perf texts and messages, NUL-separated */
};

int branch_annot_new(struct branch_annot **out, const struct branch_annot_opts *opts, struct tdp_err *err)
{
	struct branch_annot *an = tdp_calloc(1, sizeof(*an));
	struct symbol_opts so;
	int rc;

	if (!an)
		return tdp_err_oom(err);
	if (opts)
		an->opts = *opts;
	else
		branch_annot_opts_init(&an->opts);
	if (an->opts.disasm_sites > BRANCH_MAX_DISASM_SITES)
		an->opts.disasm_sites = BRANCH_MAX_DISASM_SITES;
	if (an->opts.disasm_before > BRANCH_MAX_DISASM_CONTEXT)
		an->opts.disasm_before = BRANCH_MAX_DISASM_CONTEXT;
	if (an->opts.disasm_after > BRANCH_MAX_DISASM_CONTEXT)
		an->opts.disasm_after = BRANCH_MAX_DISASM_CONTEXT;
	symbol_opts_init(&so);
	so.symfs = an->opts.symfs;
	so.buildid_dirs = an->opts.buildid_dirs;
	so.kallsyms = an->opts.kallsyms;
	so.debuginfod_client = an->opts.debuginfod_client;
	so.debuginfod_envp = an->opts.debuginfod_envp;
	/* perf's spelling in the symbol columns: names without parameter lists */
	so.flags = SYMBOL_DEMANGLE_NO_PARAMS | (an->opts.lines ? 0 : SYMBOL_NO_LINES);
	rc = symbol_session_new(&an->sess, &so, err);
	if (rc) {
		tdp_free(an);
		return rc;
	}
	an->syms.symbolizer = "elfutils";
	*out = an;
	return 0;
}

static void run_release(struct branch_annot *an)
{
	for (size_t i = 0; i < an->syms.nr_disasm; i++)
		tdp_free(an->syms.disasm[i].lines);
	tdp_free(an->syms.disasm);
	an->syms.disasm = NULL;
	an->syms.nr_disasm = 0;
	tdp_free(an->syms.block_insns);
	an->syms.block_insns = NULL;
	an->syms.nr_block_insns = 0;
	an->syms.block_note = NULL;
	an->syms.nr_resolved = 0;
	ba_symbols_release(&an->syms);
	tdp_free(an->results);
	an->results = NULL;
	tdp_free(an->frames);
	an->frames = NULL;
	tdp_free(an->texts);
	an->texts = NULL;
}

void branch_annot_free(struct branch_annot *an)
{
	if (!an)
		return;
	run_release(an);
	symbol_session_free(an->sess);
	tdp_free(an);
}

int branch_annot_features(struct branch_annot *an, const struct perfdata_features *f, struct tdp_err *err)
{
	return symbol_session_add_features(an->sess, f, err);
}

int branch_annot_record(void *ctx, const struct perfdata_record *rec, struct tdp_err *err)
{
	struct branch_annot *an = ctx;

	switch (rec->type) {
	case PERFDATA_RECORD_MMAP:
	case PERFDATA_RECORD_MMAP2:
	case PERFDATA_RECORD_COMM:
	case PERFDATA_RECORD_FORK:
	case PERFDATA_RECORD_HEADER_BUILD_ID:
		return symbol_session_add_record(an->sess, rec, err);
	default:
		return 0;
	}
}

/*
 * Texts are appended to one strbuf while the run goes, as offsets (the buffer
 * moves when it grows); fix_texts() turns them into pointers at the end.
 * Offset 0 is reserved for "no text".
 */
struct texts {
	struct strbuf sb;
};

static size_t text_add(struct texts *t, const char *s)
{
	size_t at;

	if (!s)
		return 0;
	at = t->sb.len;
	strbuf_adds(&t->sb, s);
	strbuf_addch(&t->sb, '\0');
	return at;
}

/* Fill loc i from its symbol_result; its perf text offset goes to *text. */
static void fill_loc(struct branch_annot *an, size_t i, size_t *frame_at, struct texts *t, size_t *text)
{
	struct branch_loc *l = &an->syms.locs[i];
	const struct symbol_result *res = &an->results[i];

	l->resolved = res->status == SYMBOL_OK && res->function;
	l->kernel = res->kernel;
	l->function = res->function;
	l->offset = res->offset;
	l->dso = res->dso;
	l->dso_addr = res->dso_addr;
	l->file = res->file;
	l->line = res->line;
	l->note = res->note ? res->note : res->status != SYMBOL_OK ? symbol_status_name(res->status) : NULL;
	l->nr_inlines = 0;
	for (size_t k = 0; k < res->nr_frames; k++) {
		an->frames[*frame_at + k] = (struct branch_frame){
			res->frames[k].function, res->frames[k].file, res->frames[k].line,
		};
	}
	l->nr_inlines = res->nr_frames;
	/* pointer fixed after the frames array is complete (it is not moved) */
	l->inlines = res->nr_frames ? &an->frames[*frame_at] : NULL;
	*frame_at += res->nr_frames;
	*text = t->sb.len;
	symbol_format_perf(res, &t->sb);
	strbuf_addch(&t->sb, '\0');
}

/* Types of sites the recording did not type, from the instruction at the address. */
static void fill_types(struct branch_annot *an, struct branch_result *r)
{
	size_t done = 0;

	for (size_t i = 0; i < r->nr_sites && done < BRANCH_MAX_TYPED_SITES; i++) {
		struct branch_site *s = &r->sites[i];
		struct tdp_err e = TDP_ERR_INIT;
		unsigned type;

		if (s->type != BRANCH_TYPE_UNKNOWN || !s->addr)
			continue;
		done++;
		if (symbol_branch_type(an->sess, s->pid == BRANCH_PID_NONE ? SYMBOL_PID_NONE : s->pid, s->addr,
				       &type, &e) == 0 && type != BRANCH_TYPE_UNKNOWN) {
			s->type = (uint8_t)type;
			s->type_source = BRANCH_TYPE_FROM_DISASM;
		}
	}
}

static int do_disasm(struct branch_annot *an, const struct branch_result *r, struct texts *t, size_t *err_off,
		     struct tdp_err *err)
{
	size_t n = an->opts.disasm ? an->opts.disasm_sites : 0;

	if (n > r->nr_sites)
		n = r->nr_sites;
	if (!n)
		return 0;
	an->syms.disasm = tdp_calloc(n, sizeof(*an->syms.disasm));
	if (!an->syms.disasm)
		return tdp_err_oom(err);
	an->syms.nr_disasm = n;
	for (size_t i = 0; i < n; i++) {
		const struct branch_site *s = &r->sites[i];
		struct branch_site_disasm *out = &an->syms.disasm[i];
		struct symbol_disasm d = SYMBOL_DISASM_INIT;
		struct tdp_err e = TDP_ERR_INIT;
		int rc;

		out->addr = s->addr;
		/* the sites, the edges and this listing all in the recording's addresses */
		rc = symbol_disasm_runtime(an->sess, s->pid == BRANCH_PID_NONE ? SYMBOL_PID_NONE : s->pid, s->addr,
				   an->opts.disasm_before, an->opts.disasm_after, &d, &e);
		if (rc == TDP_ENOMEM) {
			symbol_disasm_release(&d);
			return tdp_err_oom(err);
		}
		if (rc) {
			err_off[i] = text_add(t, e.msg[0] ? e.msg : "cannot disassemble");
			continue;
		}
		out->function = d.function;
		out->lines = tdp_calloc(d.nr ? d.nr : 1, sizeof(*out->lines));
		if (!out->lines) {
			symbol_disasm_release(&d);
			return tdp_err_oom(err);
		}
		for (size_t k = 0; k < d.nr; k++) {
			struct branch_insn_line *ln = &out->lines[k];

			ln->addr = d.insns[k].addr;
			ln->target = d.insns[k].target;
			/* one address space: the listing's addresses are runtime ones, so are the targets */
			symbol_insn_text_runtime(&d.insns[k], ln->text, sizeof(ln->text));
		}
		out->nr_lines = d.nr;
		symbol_disasm_release(&d);
	}
	return 0;
}

static int do_blocks(struct branch_annot *an, const struct branch_result *r, struct texts *t, size_t *note_off,
		     struct tdp_err *err)
{
	size_t n = an->opts.block_insns < r->nr_blocks ? an->opts.block_insns : r->nr_blocks;
	size_t counted = 0;

	if (!n)
		return 0;
	an->syms.block_insns = tdp_calloc(n, sizeof(*an->syms.block_insns));
	if (!an->syms.block_insns)
		return tdp_err_oom(err);
	an->syms.nr_block_insns = n;
	for (size_t i = 0; i < n; i++) {
		const struct branch_block *b = &r->blocks[i];
		struct tdp_err e = TDP_ERR_INIT;
		uint64_t insns;
		int rc = symbol_count_insns(an->sess, b->pid == BRANCH_PID_NONE ? SYMBOL_PID_NONE : b->pid, b->start,
					    b->end, &insns, &e);

		if (rc == TDP_ENOMEM)
			return tdp_err_oom(err);
		an->syms.block_insns[i] = rc ? -1 : (int64_t)insns;
		counted += !rc;
		if (rc && !*note_off)
			*note_off = text_add(t, e.msg[0] ? e.msg : "cannot count the instructions");
	}
	if (counted)
		*note_off = 0;
	return 0;
}

int branch_annot_run(struct branch_annot *an, struct branch_result *r, struct tdp_err *err)
{
	struct texts t = { STRBUF_INIT };
	struct symbol_addr *addrs = NULL;
	size_t *text_off = NULL, *dis_off = NULL, note_off = 0, nr_frames = 0, frame_at = 0;
	int rc;

	run_release(an);
	text_add(&t, "-"); /* offset 0: "no text" */
	rc = ba_locs_collect(r, &an->syms, err);
	if (rc)
		goto out;
	addrs = tdp_calloc(an->syms.nr_locs + 1, sizeof(*addrs));
	an->results = tdp_calloc(an->syms.nr_locs + 1, sizeof(*an->results));
	text_off = tdp_calloc(an->syms.nr_locs + 1, sizeof(*text_off));
	dis_off = tdp_calloc(BRANCH_MAX_DISASM_SITES, sizeof(*dis_off));
	if (!addrs || !an->results || !text_off || !dis_off) {
		rc = tdp_err_oom(err);
		goto out;
	}
	for (size_t i = 0; i < an->syms.nr_locs; i++) {
		addrs[i].addr = an->syms.locs[i].addr;
		addrs[i].pid = an->syms.locs[i].pid == BRANCH_PID_NONE ? SYMBOL_PID_NONE : an->syms.locs[i].pid;
	}
	rc = symbol_resolve(an->sess, addrs, an->syms.nr_locs, an->results, err);
	if (rc)
		goto out;
	for (size_t i = 0; i < an->syms.nr_locs; i++)
		nr_frames += an->results[i].nr_frames;
	an->frames = tdp_calloc(nr_frames + 1, sizeof(*an->frames));
	if (!an->frames) {
		rc = tdp_err_oom(err);
		goto out;
	}
	for (size_t i = 0; i < an->syms.nr_locs; i++) {
		fill_loc(an, i, &frame_at, &t, &text_off[i]);
		an->syms.nr_resolved += an->syms.locs[i].resolved;
	}
	if (an->opts.types) {
		fill_types(an, r);
		rc = branch_result_retype(r, err);
		if (rc)
			goto out;
	}
	rc = ba_sym_edges(&an->syms, r, err);
	if (!rc)
		rc = do_disasm(an, r, &t, dis_off, err);
	if (!rc)
		rc = do_blocks(an, r, &t, &note_off, err);
	if (rc)
		goto out;
	if (strbuf_failed(&t.sb) || !(an->texts = strbuf_detach(&t.sb))) {
		rc = tdp_err_oom(err);
		goto out;
	}
	for (size_t i = 0; i < an->syms.nr_locs; i++)
		an->syms.locs[i].perf_text = an->texts + text_off[i];
	for (size_t i = 0; i < an->syms.nr_disasm; i++)
		an->syms.disasm[i].error = dis_off[i] ? an->texts + dis_off[i] : NULL;
	an->syms.block_note = note_off ? an->texts + note_off : NULL;
out:
	strbuf_release(&t.sb);
	tdp_free(addrs);
	tdp_free(text_off);
	tdp_free(dis_off);
	if (rc)
		run_release(an);
	return rc;
}

const struct branch_symbols *branch_annot_symbols(const struct branch_annot *an)
{
	return &an->syms;
}
