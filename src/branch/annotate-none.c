/*
 * annotate-none.c: the annotator of a build without the symbol module
 * (annotate.h): every address is left unresolved and printed as perf prints an
 * address it cannot place.
 */
#include "branch/annotate-internal.h"
#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"

#include <string.h>

static const char no_symbols[] = "tdprof was built without the symbol module";

struct branch_annot {
	struct branch_symbols syms;
	struct branch_annot_opts opts;
	char *texts;   /* the perf texts, NUL-separated */
};

int branch_annot_new(struct branch_annot **out, const struct branch_annot_opts *opts, struct tdp_err *err)
{
	struct branch_annot *an = tdp_calloc(1, sizeof(*an));

	if (!an)
		return tdp_err_oom(err);
	if (opts)
		an->opts = *opts;
	else
		branch_annot_opts_init(&an->opts);
	an->syms.symbolizer = "none";
	*out = an;
	return 0;
}

void branch_annot_free(struct branch_annot *an)
{
	if (!an)
		return;
	ba_symbols_release(&an->syms);
	tdp_free(an->texts);
	tdp_free(an);
}

int branch_annot_features(struct branch_annot *an, const struct perfdata_features *f, struct tdp_err *err)
{
	(void)an;
	(void)f;
	(void)err;
	return 0;
}

int branch_annot_record(void *an, const struct perfdata_record *rec, struct tdp_err *err)
{
	(void)an;
	(void)rec;
	(void)err;
	return 0;
}

int branch_annot_run(struct branch_annot *an, struct branch_result *r, struct tdp_err *err)
{
	struct strbuf sb = STRBUF_INIT;
	size_t *off = NULL;
	int rc;

	ba_symbols_release(&an->syms);
	tdp_free(an->texts);
	an->texts = NULL;
	rc = ba_locs_collect(r, &an->syms, err);
	if (rc)
		return rc;
	off = tdp_calloc(an->syms.nr_locs + 1, sizeof(*off));
	if (!off)
		return tdp_err_oom(err);
	for (size_t i = 0; i < an->syms.nr_locs; i++) {
		struct branch_loc *l = &an->syms.locs[i];

		l->kernel = l->addr >= BA_KERNEL_START;
		l->dso_addr = l->addr;
		l->note = no_symbols;
		off[i] = sb.len;
		ba_text_unresolved(l->addr, l->dso_addr, l->kernel, &sb);
		strbuf_addch(&sb, '\0');
	}
	if (strbuf_failed(&sb) || !(an->texts = strbuf_detach(&sb))) {
		strbuf_release(&sb);
		tdp_free(off);
		return tdp_err_oom(err);
	}
	for (size_t i = 0; i < an->syms.nr_locs; i++)
		an->syms.locs[i].perf_text = an->texts + off[i];
	tdp_free(off);
	an->syms.block_note = no_symbols;
	return ba_sym_edges(&an->syms, r, err);
}

const struct branch_symbols *branch_annot_symbols(const struct branch_annot *an)
{
	return &an->syms;
}
