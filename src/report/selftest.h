/*
 * selftest.h: the result of `tdprof selftest` (every demo workload, what the
 * diagnosis expected and got) as text or as one JSON document. Rendered through
 * report/render.h (RENDER_SELFTEST: "text", "json").
 */
#ifndef TDPROF_REPORT_SELFTEST_H
#define TDPROF_REPORT_SELFTEST_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf;
struct tdp_err;

struct selftest_row {
	const char *name;           /* "branch-random" */
	const char *path;           /* the workload run */
	const char *args;           /* its argument, or NULL */
	const char *expected;       /* the level-1 key expected */
	const char *expected_label; /* its label ("Bad Speculation") */
	const char *got;            /* the level-1 key found; NULL: not analysed */
	double expected_pct;        /* the expected node's share of slots */
	double got_pct;             /* the found node's */
	int exit_status;            /* the run's (0 expected) */
	const char *error;          /* why it could not be analysed, or "" */
	bool pass;
};

struct selftest_report {
	const char *backend;        /* "pmu" or "sim" */
	bool estimate;              /* simulated: every figure an estimate */
	const struct selftest_row *rows;
	size_t nr_rows;
	size_t passed;
};

/** The table of results into out. Returns 0 or TDP_ENOMEM. */
int selftest_text_render(struct strbuf *out, const struct selftest_report *r, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** The JSON document (indented, ending in a newline) into out. Returns 0 or TDP_ENOMEM. */
int selftest_json_render(struct strbuf *out, const struct selftest_report *r, struct tdp_err *err)
	__attribute__((warn_unused_result));

#endif
