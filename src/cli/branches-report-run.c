/*
 * branches-report-run.c: load, aggregate, annotate and render a branch recording
 * (see branches-report-run.h).
 */
#include "cli/columns.h"
#include "cli/branches-report-run.h"
#include "cli/branches-samples.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/progress.h"
#include "cli/symenv.h"
#include "cli/output.h"
#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"
#include "base/strbuf.h"
#include "branch/annotate.h"
#include "branch/branch.h"
#include "branch/ips.h"
#include "perfdata/perfdata.h"
#include "report/branches.h"
#include "report/render.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Rows per table of the text report when -n is not given (other formats: all). */
#define TEXT_TOP_DEFAULT 20

/* A stream read with --partial, or an unfinished file, that stopped early: say what was lost. */
static void warn_tail(const char *input, const struct perfdata *p)
{
	const struct perfdata_stats *st = perfdata_stats(p);

	if (!st->unfinished_tail)
		return;
	msg_warning("'%s': the data stops at offset 0x%" PRIx64 " (a cut or damaged record): the last %" PRIu64
		    " bytes were not read; the report covers the %" PRIu64 " records (%" PRIu64
		    " samples) before it",
		    input, st->unfinished_tail, st->tail_bytes, st->records, st->samples);
}

static enum branches_view parse_view(const char *by)
{
	if (!by)
		return BRANCHES_VIEW_ALL;
	if (!strcmp(by, "site"))
		return BRANCHES_VIEW_SITE;
	if (!strcmp(by, "edge"))
		return BRANCHES_VIEW_EDGE;
	if (!strcmp(by, "type"))
		return BRANCHES_VIEW_TYPE;
	return BRANCHES_VIEW_BLOCK;
}

/* The annotator's options; returns $HOME/.debug (free) when it is one of bid_dirs[2], else NULL. */
static char *annot_opts(const struct branches_report_opts *o, size_t top, const char **bid_dirs,
			struct branch_annot_opts *ao)
{
	const char *home = getenv("HOME");
	char *debug_dir = NULL;

	branch_annot_opts_init(ao);
	ao->symfs = o->symfs;
	ao->kallsyms = o->kallsyms;
	ao->lines = o->source;
	ao->disasm = o->disasm;
	if (home && *home && (debug_dir = malloc(strlen(home) + sizeof("/.debug")))) {
		memcpy(debug_dir, home, strlen(home));
		memcpy(debug_dir + strlen(home), "/.debug", sizeof("/.debug"));
		bid_dirs[0] = debug_dir;
		ao->buildid_dirs = bid_dirs;
	}
	ao->block_insns = top ? top : SIZE_MAX; /* the blocks shown get their instructions counted */
	if (ao->lines)
		ao->debuginfod_client = symenv_debuginfod(&ao->debuginfod_envp);
	return debug_dir;
}

/* The document of a loaded recording: where it came from and what it holds (recorder: its buffer). */
static void fill_report(const struct branches_report_opts *o, const struct perfdata_features *feat,
			const struct branch_load_info *li, const struct branch_result *res, char *recorder,
			size_t size, struct branches_report *r)
{
	memset(r, 0, sizeof(*r));
	r->file = o->input;
	r->backend = branch_recorded_by_tdprof(feat) ? "pmu" : "import";
	if (branch_recorded_by_tdprof(feat))
		snprintf(recorder, size, "%s", feat->version ? feat->version : "tdprof");
	else if (feat->version && feat->version[0])
		snprintf(recorder, size, "perf %s", feat->version);
	else
		recorder[0] = 0;
	r->recorded_by = recorder[0] ? recorder : NULL;
	r->cpu = feat->cpudesc ? feat->cpudesc : feat->cpuid;
	r->event = li->event_name;
	r->res = res;
	r->load = li;
	r->sort = o->sort ? o->sort : "mispredicts";
	r->view = parse_view(o->by);
	r->timing_reason = branch_timing_reason(res, li, feat);
	r->features = feat;
}

/* Open the recording (a file mapped and prefaulted; -i - read as it arrives) and its reader. */
static int open_input(const struct branches_report_opts *o, struct perfdata_input *in, struct branch_prefault **pf,
		      struct perfdata **p, struct tdp_err *err)
{
	int rc = perfdata_input_open(in, o->input, err);

	if (!rc && in->file.mapped)
		rc = branch_prefault_start(pf, in->file.data, in->file.size, err);
	if (!rc)
		rc = perfdata_input_read(p, in,
					 PERFDATA_OPEN_UNFINISHED | PERFDATA_OPEN_RAW_BRANCHES |
						 (o->partial ? PERFDATA_OPEN_PARTIAL : 0),
					 err);
	return rc;
}

/*
 * Aggregate every branch record of p into *agg while *an names their addresses;
 * plain samples (no branch stack) are counted in *ips.
 */
static int load(struct perfdata *p, const struct perfdata_input *in, struct branch_prefault *pf,
		const struct branch_annot_opts *ao, const struct perfdata_features *feat, struct branch_agg **agg,
		struct branch_annot **an, struct ips_agg **ips, struct branch_load_info *li, struct tdp_err *err)
{
	int rc = branch_agg_new(agg, err);

	if (!rc)
		rc = branch_annot_new(an, ao, err);
	if (!rc)
		rc = branch_annot_features(*an, feat, err);
	if (!rc)
		rc = ips_agg_new(ips, err);
	if (!rc) {
		struct branch_load_opts lo = { .on_record = ips_agg_record, .ctx = *ips, .pf = pf,
					       .on_plain_sample = ips_agg_sample, .sample_ctx = *ips };

		ips_agg_chain(*ips, branch_annot_record, *an); /* the maps go on to the annotator */
		/* a second CPU aggregates while this one decodes (large files; a stream has its writer on the other) */
		lo.threaded = in->file.size >= BRANCH_PREFAULT_MIN && sysconf(_SC_NPROCESSORS_ONLN) > 1;
		rc = branch_load(p, *agg, &lo, li, err);
	}
	return rc;
}

int branches_report_run(const struct branches_report_opts *o, struct strbuf *out)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct perfdata_input in = PERFDATA_INPUT_INIT; /* a file is mapped, -i - is read as it arrives */
	struct perfdata *p = NULL;
	struct ips_agg *ips = NULL; /* plain samples, reported when there are no branch records */
	struct branch_agg *agg = NULL;
	struct branch_annot *an = NULL;
	struct branch_prefault *pf = NULL;
	struct branch_result res = BRANCH_RESULT_INIT;
	struct branch_load_info li;
	struct branch_annot_opts ao = { 0 };
	struct branches_report r;
	const struct perfdata_features *feat;
	enum branch_sort sort = BRANCH_SORT_MISPREDICTS;
	char recorder[128], *debug_dir = NULL;
	const char *bid_dirs[2] = { NULL, NULL };
	/*
	 * JSON (and the HTML page drawn from it) is ranked and cut like the text (its
	 * rows_left_out says by how much); CSV and folded hold every row; --all or -n 0:
	 * every row
	 */
	bool cut = strcmp(o->format, "csv") && strcmp(o->format, "folded") && strcmp(o->format, "pprof");
	size_t top = o->all ? 0 : o->top >= 0 ? (size_t)o->top : cut ? TEXT_TOP_DEFAULT : 0;
	int rc, status = EXIT_OK;

	if (o->sort && !branch_sort_parse(o->sort, &sort))
		return msg_usage("branches report", "--sort: '%s' is not mispredicts, executions or rate", o->sort);
	rc = open_input(o, &in, &pf, &p, &err);
	if (rc)
		goto fail;
	if (perfdata_is_unfinished(p))
		msg_warning("'%s' is an unfinished recording (its header was never completed): reading the "
			    "records it holds", o->input);
	debug_dir = annot_opts(o, top, bid_dirs, &ao);
	feat = perfdata_features(p);
	progress_begin(false, "reading '%s'", o->input);
	rc = load(p, &in, pf, &ao, feat, &agg, &an, &ips, &li, &err);
	progress_end();
	branch_prefault_stop(pf);
	pf = NULL;
	if (rc)
		goto fail;
	warn_tail(o->input, p);
	feat = perfdata_features(p); /* pipe mode: features arrive with the records */
	if (!li.nr_branch_attrs && !li.spe.present && ips_agg_samples(ips)) {
		status = branches_report_samples(o->input, o->format, top, o->html, p, ips, an, out);
		goto out;
	}
	if (!li.nr_branch_attrs && !li.spe.present) {
		msg_error("'%s' has no branch records: no event samples branch stacks and there is no Arm SPE "
			  "trace", o->input);
		msg_hint("record with 'tdprof branches record -o FILE -- CMD' or 'perf record -b -o FILE -- CMD'");
		status = EXIT_USAGE;
		goto out;
	}
	rc = branch_agg_finish(agg, &res, &err);
	if (rc)
		goto fail;
	branch_sites_sort(res.sites, res.nr_sites, sort);
	progress_begin(false, "naming the branches of '%s' (symbols, source lines, disassembly)", o->input);
	rc = branch_annot_run(an, &res, &err);
	progress_end();
	if (rc)
		goto fail;

	fill_report(o, feat, &li, &res, recorder, sizeof(recorder), &r);
	r.syms = branch_annot_symbols(an);
	r.sort_executions = sort == BRANCH_SORT_EXECUTIONS;
	r.top = top;
	r.columns = cli_columns();
	r.pal = o->pal;
	r.stopped_at = perfdata_stats(p)->unfinished_tail;
	r.unread_bytes = perfdata_stats(p)->tail_bytes;
	rc = render_find(RENDER_BRANCHES, o->format)->render(out, &r, &err);
	if (rc)
		goto fail;
	if (o->html)
		status = output_html_of(o->html, RENDER_BRANCHES, &r);
	goto out;
fail:
	if (rc == TDP_ENOENT && !err.hint[0] && !p)
		tdp_err_hint(&err, "record one with 'tdprof branches record -o %s -- ./app' or 'perf record -b -o %s -- ./app'",
			     o->input, o->input);
	msg_err(&err);
	status = exitcode_from_err(rc);
out:
	branch_prefault_stop(pf);
	branch_result_release(&res);
	branch_annot_free(an);
	ips_agg_free(ips);
	branch_agg_free(agg);
	perfdata_close(p);
	perfdata_input_close(&in);
	free(debug_dir);
	tdp_free((char *)ao.debuginfod_client);
	return status;
}

