/*
 * branches-samples.c: the plain-samples report of `tdprof branches report`
 * (branches-samples.h).
 */
#include "cli/branches-samples.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "branch/annotate.h"
#include "branch/ips.h"
#include "perfdata/perfdata.h"
#include "report/samples.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int branches_report_samples(const char *input, const char *format, size_t top, const char *html,
			    struct perfdata *p, struct ips_agg *ips, struct branch_annot *an, struct strbuf *out)
{
	const struct perfdata_features *feat = perfdata_features(p);
	const struct perfdata_stats *st = perfdata_stats(p);
	struct tdp_err err = TDP_ERR_INIT;
	struct ips_result res = IPS_RESULT_INIT;
	struct samples_report r;
	char recorder[128];
	int rc;

	rc = ips_agg_finish(ips, an, &res, &err);
	if (rc) {
		msg_err(&err);
		return exitcode_from_err(rc);
	}
	memset(&r, 0, sizeof(r));
	r.file = input;
	r.backend = branch_recorded_by_tdprof(feat) ? "pmu" : "import";
	if (branch_recorded_by_tdprof(feat))
		snprintf(recorder, sizeof(recorder), "%s", feat->version ? feat->version : "tdprof");
	else if (feat->version && feat->version[0])
		snprintf(recorder, sizeof(recorder), "perf %s", feat->version);
	else
		recorder[0] = 0;
	r.recorded_by = recorder[0] ? recorder : NULL;
	r.cpu = feat->cpudesc ? feat->cpudesc : feat->cpuid;
	r.event = res.attr ? res.attr->name : NULL;
	r.res = &res;
	r.lost_samples = st->lost + st->lost_samples;
	r.top = top;
	r.stopped_at = st->unfinished_tail;
	r.unread_bytes = st->tail_bytes;
	if (html)
		msg_note("'%s' has plain samples only (no branch stacks): no HTML report is written for them", input);
	if (!strcmp(format, "json"))
		rc = report_samples_json(out, &r, &err);
	else if (!strcmp(format, "csv"))
		report_samples_csv(out, &r);
	else if (!strcmp(format, "folded"))
		report_samples_folded(out, &r);
	else
		report_samples_text(out, &r);
	if (!rc && strbuf_failed(out))
		rc = tdp_err_oom(&err);
	ips_result_release(&res);
	if (rc) {
		msg_err(&err);
		return exitcode_from_err(rc);
	}
	return EXIT_OK;
}
