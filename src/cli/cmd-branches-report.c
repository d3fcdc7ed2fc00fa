/*
 * cmd-branches-report.c: `tdprof branches report -i FILE`: read a perf.data with
 * branch stacks (or Arm SPE trace), aggregate it (branch/branch.h), name the
 * addresses (branch/annotate.h) and render it (report/branches.h).
 */
#include "cli/branches-samples.h"
#include "cli/cmd.h"
#include "cli/cmd-branches.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/opts.h"
#include "cli/output.h"
#include "base/err.h"
#include "base/file.h"
#include "base/strbuf.h"
#include "branch/annotate.h"
#include "branch/branch.h"
#include "branch/ips.h"
#include "perfdata/perfdata.h"
#include "report/branches.h"
#include "report/html.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Rows per table of the text report when -n is not given (other formats: all). */
#define TEXT_TOP_DEFAULT 20

const char cmd_branches_report_summary[] = "rank misprediction sites, edges and timed blocks of a perf.data";

static const struct cmd_doc doc = {
	.name = "branches report",
	.summary = cmd_branches_report_summary,
	.usage = "branches report [-i FILE] [--symfs DIR] [--json | --csv | --folded] [-n TOP] "
		 "[--sort mispredicts|executions|rate] [--by site|edge|type|block] [--no-source] [--no-disasm] "
		 "[-o FILE]",
	.description =
		"Reads a perf.data file with branch stacks (tdprof branches record, perf record -b or -j, any "
		"perf since 3.4, file or pipe format) or with Arm SPE trace (perf record -e arm_spe//), and "
		"reports:\n"
		"\n"
		"misprediction sites: each branch address with its executions (the LBR entries that name "
		"it), mispredicts, mispredict rate, share of all mispredicted entries and branch type (as "
		"recorded with -j save_type, else decoded from the binary), with function, file:line and the "
		"inline chain;\n"
		"\n"
		"edges grouped by (source symbol, target symbol, mispredicted) exactly as 'perf report "
		"--sort symbol_from,symbol_to,mispredict' counts them (overhead = entries of the row / all "
		"entries; unresolved addresses printed as perf prints them);\n"
		"\n"
		"branches by type; the disassembly around the top sites with the branch marked;\n"
		"\n"
		"timed basic blocks: Intel's LBR (and Arm BRBE) record in each entry the cycles since the "
		"previous entry, so the code from the older entry's target to the newer entry's branch ran "
		"in that many cycles; blocks are ranked by total cycles with their average cycles, "
		"instructions and IPC. Recordings without timing (AMD LbrExtV2 and BRS, Arm SPE) say 'no "
		"timing in this recording'.\n"
		"\n"
		"Binaries are found where the recording names them, under --symfs DIR, and by build-id in "
		"~/.debug and /usr/lib/debug. Without them, addresses stay addresses.\n"
		"\n"
		"A recording without branch stacks (plain samples: tdprof branches record -e cpu-clock, perf "
		"record [-g] with a software event) is reported by instruction pointer instead: hot functions "
		"(self samples, and with call chains the total with their callees, as perf report --children), "
		"hot source lines and hot call chains; --folded writes 'comm;outer;...;inner N' stacks as "
		"stackcollapse-perf.pl folds perf script, --csv the functions, and the JSON has mode "
		"'samples' with functions, lines and stacks.\n"
		"\n"
		"-i - reads a perf record -o - stream from standard input as it arrives (memory stays bounded "
		"by the largest record, however long the stream).\n"
		"\n"
		"--folded writes 'FROM;TO N' lines for flamegraph.pl: FROM and TO are the source and target "
		"functions of edges, N their mispredicted entries (--sort executions: all entries).\n"
		"\n"
		"JSON ('backend' is 'import' for a file recorded by another program, 'pmu' for one recorded "
		"by tdprof): samples, branch_entries, mispredicted_entries, lost_samples, sites, edges, "
		"symbol_edges, types, timing (or null with timing_reason), blocks, disassembly; addresses are "
		"\"0x...\" strings. Like the text, the ranked tables (sites, edges, symbol_edges, blocks) hold the "
		"top 20 rows unless -n N or --all says otherwise; 'top' is the cut (null: none) and "
		"'rows_left_out' counts the rows each table left out.",
	.examples = "tdprof branches report -i perf.data\n"
		    "the text report: sites, types, edges, blocks, disassembly\n"
		    "tdprof branches report -i perf.data --json -n 50 | jq '.sites[0]'\n"
		    "the worst site as JSON\n"
		    "tdprof branches report -i perf.data --folded > br.folded && flamegraph.pl br.folded > br.svg\n"
		    "a flame graph of mispredictions by source and target function\n"
		    "perf record -e cpu-clock -g -o - -- ./app | tdprof branches report -i - --folded > cpu.folded\n"
		    "plain samples (no PMU needed) read as they arrive: call chains for flamegraph.pl",
	.exit_status = "0: the report was written.\n"
		       "2: bad usage, a file that cannot be read, is not a perf.data, is corrupt or truncated "
		       "(the message names the offset), or has neither branch records nor samples.\n"
		       "1: the report could not be produced or written.",
	.see_also = "tdprof-branches-record(1), perf-report(1), perf-script(1)",
};

struct report_opts {
	const char *input, *output, *symfs, *kallsyms, *sort, *by, *html, *format;
	bool json, csv, folded, source, disasm, all, partial;
	long top;
};

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

/* The JSON document of r into out (for --html, which draws the page from it). */
static int json_doc(FILE *out, const void *r, struct tdp_err *err)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = report_branches_json(&sb, r, err);

	if (!ret && strbuf_failed(&sb))
		ret = tdp_err_oom(err);
	if (!ret && fwrite(sb.buf, 1, sb.len, out) != sb.len)
		ret = tdp_err_set(err, TDP_EIO, "cannot write the JSON document");
	strbuf_release(&sb);
	return ret;
}

/* The annotator's options; returns $HOME/.debug (free) when it is one of bid_dirs[2], else NULL. */
static char *annot_opts(const struct report_opts *o, size_t top, const char **bid_dirs, struct branch_annot_opts *ao)
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
	return debug_dir;
}

/* The document of a loaded recording: where it came from and what it holds (recorder: its buffer). */
static void fill_report(const struct report_opts *o, const struct perfdata_features *feat,
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
}

/* Load, aggregate and annotate; then render into out. Returns an exit status. */
static int run(const struct report_opts *o, struct strbuf *out)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct perfdata_input in = PERFDATA_INPUT_INIT; /* a file is mapped, -i - is read as it arrives */
	struct perfdata *p = NULL;
	struct branch_agg *agg = NULL;
	struct branch_annot *an = NULL;
	struct branch_prefault *pf = NULL;
	struct ips_agg *ips = NULL; /* plain samples, reported when there are no branch records */
	struct branch_result res = BRANCH_RESULT_INIT;
	struct branch_load_info li;
	struct branch_annot_opts ao;
	struct branches_report r;
	const struct perfdata_features *feat;
	enum branch_sort sort = BRANCH_SORT_MISPREDICTS;
	char recorder[128], *debug_dir = NULL;
	const char *bid_dirs[2] = { NULL, NULL };
	bool text = !o->json && !o->csv && !o->folded;
	/* JSON is ranked and cut like the text (its rows_left_out says by how much); --all or -n 0: every row */
	size_t top = o->all ? 0 : o->top >= 0 ? (size_t)o->top : text || o->json ? TEXT_TOP_DEFAULT : 0;
	int rc, status = EXIT_OK;

	if (o->sort && !branch_sort_parse(o->sort, &sort))
		return msg_usage("branches report", "--sort: '%s' is not mispredicts, executions or rate", o->sort);
	rc = perfdata_input_open(&in, o->input, &err);
	if (!rc && in.file.mapped)
		rc = branch_prefault_start(&pf, in.file.data, in.file.size, &err);
	if (!rc)
		rc = perfdata_input_read(&p, &in,
					 PERFDATA_OPEN_UNFINISHED | PERFDATA_OPEN_RAW_BRANCHES |
						 (o->partial ? PERFDATA_OPEN_PARTIAL : 0),
					 &err);
	if (rc)
		goto fail;
	if (perfdata_is_unfinished(p))
		msg_warning("'%s' is an unfinished recording (its header was never completed): reading the "
			    "records it holds", o->input);
	debug_dir = annot_opts(o, top, bid_dirs, &ao);
	feat = perfdata_features(p);
	rc = branch_agg_new(&agg, &err);
	if (!rc)
		rc = branch_annot_new(&an, &ao, &err);
	if (!rc)
		rc = branch_annot_features(an, feat, &err);
	if (!rc)
		rc = ips_agg_new(&ips, &err);
	if (!rc) {
		struct branch_load_opts lo = { .on_record = ips_agg_record, .ctx = ips, .pf = pf,
					       .on_plain_sample = ips_agg_sample, .sample_ctx = ips };

		ips_agg_chain(ips, branch_annot_record, an); /* the maps go on to the annotator */

		/* a second CPU aggregates while this one decodes (large files; a stream has its writer on the other) */
		lo.threaded = in.file.size >= BRANCH_PREFAULT_MIN && sysconf(_SC_NPROCESSORS_ONLN) > 1;
		rc = branch_load(p, agg, &lo, &li, &err);
	}
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
	rc = branch_annot_run(an, &res, &err);
	if (rc)
		goto fail;

	fill_report(o, feat, &li, &res, recorder, sizeof(recorder), &r);
	r.syms = branch_annot_symbols(an);
	r.sort_executions = sort == BRANCH_SORT_EXECUTIONS;
	r.top = top;
	r.stopped_at = perfdata_stats(p)->unfinished_tail;
	r.unread_bytes = perfdata_stats(p)->tail_bytes;
	rc = render_find(RENDER_BRANCHES, o->format)->render(out, &r, &err);
	if (rc)
		goto fail;
	if (o->html)
		status = output_html(o->html, json_doc, &r);
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
	return status;
}

int cmd_branches_report(int argc, char **argv, struct tdp_ctx *ctx)
{
	struct report_opts o = { .input = "perf.data", .source = true, .disasm = true, .top = -1 };
	const struct opt opts[] = {
		OPT_STRING('i', "input", &o.input, "FILE", "the perf.data to read (default perf.data; -: stdin, a perf record -o - stream read as it arrives)"),
		OPT_STRING('o', "output", &o.output, "FILE", "write the report to FILE instead of stdout"),
		OPT_GROUP("format"),
		OPT_CHOICE(0, "format", &o.format, "text|json|csv|folded", "the report's format (default text)"),
		OPT_BOOL(0, "json", &o.json, "write one JSON document (--format=json)"),
		OPT_BOOL(0, "csv", &o.csv, "write one CSV table (the --by view; sites by default)"),
		OPT_BOOL(0, "folded", &o.folded, "write folded stacks for flamegraph.pl ('FROM;TO N')"),
		OPT_STRING(0, "html", &o.html, "FILE", "also write a self-contained HTML report to FILE"),
		OPT_LONG('n', "top", &o.top, "N", "rows per table (text and JSON: 20, CSV and folded: all; 0: all)", 0,
			 1L << 30),
		OPT_BOOL(0, "all", &o.all, "every row of every table (as -n 0)"),
		OPT_CHOICE(0, "sort", &o.sort, "mispredicts|executions|rate", "rank sites by (default mispredicts)"),
		OPT_CHOICE(0, "by", &o.by, "site|edge|type|block", "show one view (text: all; CSV: site)"),
		OPT_GROUP("symbols"),
		OPT_STRING(0, "symfs", &o.symfs, "DIR", "look for the recorded binaries under DIR"),
		OPT_STRING(0, "kallsyms", &o.kallsyms, "FILE", "kernel symbols of the recorded kernel"),
		OPT_BOOL(0, "source", &o.source, "source lines and inline chains (--no-source: faster)"),
		OPT_BOOL(0, "disasm", &o.disasm, "disassemble the top sites (--no-disasm to skip)"),
		OPT_GROUP("damaged input"),
		OPT_BOOL(0, "partial", &o.partial,
			 "read a cut or damaged pipe stream up to the damage and say what was lost (default: refuse it)"),
		OPT_END(),
	};
	struct strbuf out = STRBUF_INIT;
	int i, status;

	(void)ctx;
	i = opts_parse(opts, &doc, argc, argv);
	if (i < 0)
		return opts_exit(i);
	if (i < argc)
		return msg_usage("branches report", "unexpected argument '%s' (the file is given with -i)", argv[i]);
	if (o.json + o.csv + o.folded > 1)
		return msg_usage("branches report", "--json, --csv and --folded exclude each other");
	if (o.all && o.top > 0)
		return msg_usage("branches report", "--all and -n %ld exclude each other", o.top);
	o.format = output_format("branches report", o.format, o.json ? "json" : o.csv ? "csv" : o.folded ? "folded" : NULL,
				 "text");
	if (!o.format)
		return EXIT_USAGE;
	o.json = !strcmp(o.format, "json");
	o.csv = !strcmp(o.format, "csv");
	o.folded = !strcmp(o.format, "folded");
	strbuf_init(&out, 1u << 30);
	status = run(&o, &out);
	if (status == EXIT_OK)
		status = output_write(o.output, out.buf, out.len);
	strbuf_release(&out);
	return status;
}
