/*
 * list.h (report): what `tdprof list` shows, as text or as one JSON document:
 * the top-down models, the metrics (formulas and their sources) or events of
 * one model or of all, or the events this machine knows. Rendered through
 * report/render.h (RENDER_LIST: "text", "json").
 */
#ifndef TDPROF_REPORT_LIST_H
#define TDPROF_REPORT_LIST_H

#include <stddef.h>

#include "model/model.h"
#include "pmu/event.h"

struct strbuf;
struct tdp_err;

enum list_what {
	LIST_MODELS = 0,     /* the models */
	LIST_METRICS,        /* the formulas of models[] */
	LIST_MODEL_EVENTS,   /* the events of models[] */
	LIST_KNOWN_EVENTS,   /* the events of this machine (known) */
};

struct list_report {
	enum list_what what;
	const char *backend;                     /* --backend=auto's; not written: nothing is measured */
	const struct model *const *models;       /* borrowed */
	size_t nr_models;
	bool one;                                /* one model was asked for (--cpu): no blank lines */
	const struct pmu_event_desc_list *known; /* LIST_KNOWN_EVENTS (borrowed) */
};

/** The list as text into out. Returns 0 or TDP_ENOMEM. */
int list_text_render(struct strbuf *out, const struct list_report *r, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** {"<models|metrics|events>": [...]} (indented, a newline) into out. Returns 0 or TDP_ENOMEM. */
int list_json_render(struct strbuf *out, const struct list_report *r, struct tdp_err *err)
	__attribute__((warn_unused_result));

#endif
