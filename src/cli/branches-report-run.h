/*
 * branches-report-run.h: the work of `tdprof branches report` after its options
 * are read: the recording opened and checked (file or stream, --partial), loaded
 * and aggregated (branch/branch.h), its addresses named (branch/annotate.h), and
 * the document rendered (report/branches.h) into memory; --html's page written.
 *
 * Usage (cmd-branches-report.c):
 *   struct strbuf out = STRBUF_INIT;
 *   rc = branches_report_run(&o, &out);    prints its errors; EXIT_OK: out holds the report
 */
#ifndef TDPROF_CLI_BRANCHES_REPORT_RUN_H
#define TDPROF_CLI_BRANCHES_REPORT_RUN_H

#include <stdbool.h>

struct strbuf;

struct palette;

struct branches_report_opts {
	const char *input, *output, *symfs, *kallsyms, *sort, *by, *html, *format;
	bool json, csv, folded, source, disasm, all, partial;
	long top;
	const struct palette *pal; /* text on stdout: its colours (cli/colour.h); NULL: none */
};

/** Load, aggregate and annotate o->input; render it into out. Returns an exit status. */
int branches_report_run(const struct branches_report_opts *o, struct strbuf *out);

#endif
