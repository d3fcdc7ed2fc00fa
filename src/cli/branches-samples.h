/*
 * branches-samples.h: `tdprof branches report` on a recording of plain samples
 * (no branch stacks: branches record -e cpu-clock, perf record [-g]): name the
 * samples counted by branch/ips.h and render report/samples.h in the chosen
 * format (text, json, csv, folded).
 */
#ifndef TDPROF_CLI_BRANCHES_SAMPLES_H
#define TDPROF_CLI_BRANCHES_SAMPLES_H

#include <stddef.h>

struct branch_annot;
struct ips_agg;
struct perfdata;
struct strbuf;

/**
 * Render the plain samples of ips (loaded from p; an holds the recording's maps)
 * into out. html: the --html FILE asked for (refused with a note: no HTML view of
 * plain samples). Returns an exit status, having printed any error.
 */
int branches_report_samples(const char *input, const char *format, size_t top, const char *html,
			    struct perfdata *p, struct ips_agg *ips, struct branch_annot *an, struct strbuf *out);

#endif
