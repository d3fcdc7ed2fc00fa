/*
 * loop.h (report): the result of `tdprof loop` as text or as one JSON document:
 * tdprof's part (the file, the function, the compiler and its flags), the
 * harness program's own JSON result, and llvm-mca's prediction.
 * Rendered through report/render.h (RENDER_LOOP: "text", "json").
 */
#ifndef TDPROF_REPORT_LOOP_H
#define TDPROF_REPORT_LOOP_H

#include <jansson.h>

#include "loop/loop.h"

struct strbuf;
struct tdp_err;

struct loop_report {
	const struct loop_job *job;  /* the build (file, function, compiler, flags) */
	json_t *result;              /* the harness program's JSON result (borrowed) */
	const struct loop_mca *mca;  /* llvm-mca's prediction (mca->ok) or why there is none */
};

/** The text report into out. Returns 0 or TDP_ENOMEM. */
int loop_text_render(struct strbuf *out, const struct loop_report *r, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** The JSON document (indented, ending in a newline) into out. Returns 0 or TDP_ENOMEM. */
int loop_json_render(struct strbuf *out, const struct loop_report *r, struct tdp_err *err)
	__attribute__((warn_unused_result));

#endif
