/*
 * annotate-load.c: `tdprof annotate -i FILE` (annotate-run.h): the recording
 * read and aggregated by the same code as `branches report` (branch_load() into
 * branch/branch.h's aggregator, plain samples into branch/ips.h's), its maps fed
 * to a symbol session that names functions with their parameters, then the
 * function chosen, listed and counted (annot/annot.h).
 */
#include "cli/annotate-run.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "annot/annot.h"
#include "base/alloc.h"
#include "base/err.h"
#include "branch/branch.h"
#include "branch/ips.h"
#include "perfdata/perfdata.h"
#include "symbol/symbol.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Everything a recording's annotation holds while it is made. */
struct load {
	struct perfdata_input in;
	struct perfdata *p;
	struct branch_agg *agg;
	struct ips_agg *ips;
	struct symbol_session *sess;
	struct branch_result res;
	struct branch_load_info li;
	struct ips_ip *ip;
	size_t nr_ip;
	char *debug_dir;
	const char *bid_dirs[2];
};

/* A branch_record_fn: the maps, processes and build-ids go to the symbol session. */
static int feed(void *sess, const struct perfdata_record *rec, struct tdp_err *err)
{
	return symbol_session_add_record(sess, rec, err);
}

static int session(const struct annotate_opts *o, struct load *l, struct tdp_err *err)
{
	struct symbol_opts so;
	const char *home = getenv("HOME");

	symbol_opts_init(&so);
	so.symfs = o->symfs;
	so.kallsyms = o->kallsyms;
	/* perf's build-id cache */
	if (home && *home && (l->debug_dir = malloc(strlen(home) + sizeof("/.debug")))) {
		memcpy(l->debug_dir, home, strlen(home));
		memcpy(l->debug_dir + strlen(home), "/.debug", sizeof("/.debug"));
		l->bid_dirs[0] = l->debug_dir;
		so.buildid_dirs = l->bid_dirs;
	}
	return symbol_session_new(&l->sess, &so, err);
}

/* Open, read and aggregate the recording. */
static int load(const struct annotate_opts *o, struct load *l, struct tdp_err *err)
{
	struct branch_load_opts lo = { 0 };
	int rc = perfdata_input_open(&l->in, o->input, err);

	if (!rc)
		rc = perfdata_input_read(&l->p, &l->in, PERFDATA_OPEN_UNFINISHED | PERFDATA_OPEN_RAW_BRANCHES, err);
	if (!rc)
		rc = branch_agg_new(&l->agg, err);
	if (!rc)
		rc = ips_agg_new(&l->ips, err);
	if (!rc)
		rc = session(o, l, err);
	if (!rc)
		rc = symbol_session_add_features(l->sess, perfdata_features(l->p), err);
	if (rc)
		return rc;
	lo.on_record = ips_agg_record;
	lo.ctx = l->ips;
	lo.on_plain_sample = ips_agg_sample;
	lo.sample_ctx = l->ips;
	ips_agg_chain(l->ips, feed, l->sess);
	rc = branch_load(l->p, l->agg, &lo, &l->li, err);
	if (!rc && (l->li.nr_branch_attrs || l->li.spe.present))
		rc = branch_agg_finish(l->agg, &l->res, err);
	if (!rc && ips_agg_samples(l->ips))
		rc = ips_agg_ips(l->ips, &l->ip, &l->nr_ip, err);
	return rc;
}

static void release(struct load *l)
{
	tdp_free(l->ip);
	branch_result_release(&l->res);
	branch_agg_free(l->agg);
	ips_agg_free(l->ips);
	symbol_session_free(l->sess);
	perfdata_close(l->p);
	perfdata_input_close(&l->in);
	free(l->debug_dir);
}

static int fail(const struct annotate_opts *o, struct load *l, struct tdp_err *err, int rc)
{
	if (rc == TDP_ENOENT && !err->hint[0] && !l->p)
		tdp_err_hint(err, "record one with 'tdprof branches record -o %s -- ./app' or 'perf record -b -o %s -- ./app'",
			     o->input, o->input);
	msg_err(err);
	return exitcode_from_err(rc);
}

int annotate_run_file(const struct annotate_opts *o, struct tdp_ctx *ctx)
{
	struct load l = { .in = PERFDATA_INPUT_INIT, .res = BRANCH_RESULT_INIT };
	struct tdp_err err = TDP_ERR_INIT;
	struct annot_doc d;
	struct annot_branch_state *st = NULL;
	struct annot_branch_in in = { 0 };
	struct annot_func *v = NULL;
	const char *comp_dir = NULL;
	char what[4200];
	size_t nr = 0;
	long k;
	int rc, status = EXIT_OK;
	bool branches;

	annot_doc_init(&d);
	if ((rc = load(o, &l, &err))) {
		status = fail(o, &l, &err, rc);
		goto out;
	}
	branches = l.li.nr_branch_attrs || l.li.spe.present;
	if (!branches && !l.nr_ip) {
		msg_error("'%s' has neither branch records nor samples to annotate", o->input);
		msg_hint("record with 'tdprof branches record -o FILE -- CMD' or 'perf record -b -o FILE -- CMD'");
		status = EXIT_USAGE;
		goto out;
	}
	d.backend = branch_recorded_by_tdprof(perfdata_features(l.p)) ? "pmu" : "import";
	d.input = o->input;
	in = (struct annot_branch_in){ l.sess, branches ? &l.res : NULL, l.ip, l.nr_ip };

	if ((rc = annot_branch_funcs(&d, &in, &st, &v, &nr, &err))) {
		status = fail(o, &l, &err, rc);
		goto out;
	}
	snprintf(what, sizeof(what), "'%s'", o->input);
	k = annotate_choose(o, &d, v, nr, false, what, &status);
	if (k < 0)
		goto out;
	if ((rc = annot_branch_build(&d, &in, st, &v[k], &comp_dir, &err))) {
		status = fail(o, &l, &err, rc);
		goto out;
	}
	status = annotate_report(o, &d, comp_dir, ctx);
out:
	annot_funcs_free(v);
	annot_branch_state_free(st);
	annot_doc_release(&d);
	release(&l);
	return status;
}
