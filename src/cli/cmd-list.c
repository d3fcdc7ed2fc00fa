/*
 * cmd-list.c: `tdprof list [models|metrics|events]`: the top-down models, their
 * metrics (formulas and sources) and the events known here.
 */
#include "cli/backend.h"
#include "cli/cmd.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/opts.h"
#include "cli/output.h"
#include "base/err.h"
#include "base/str.h"
#include "model/model.h"
#include "pmu/event.h"
#include "report/list.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char cmd_list_summary[] = "list the top-down models, their metrics and the events known here";

static const struct cmd_doc doc = {
	.name = "list",
	.summary = cmd_list_summary,
	.usage = "list [models] [--json]\n"
		 "list metrics [--cpu MODEL] [--json]\n"
		 "list events [--cpu MODEL] [--json]",
	.description =
		"'models' (the default) lists every top-down model with its vendor, kind (slots: the four-way "
		"top-down; cycle_accounting: stalled-cycle buckets where no slot-level top-down exists), slots "
		"per cycle, the other CPU names it serves and the CPUs it covers; '--cpu NAME' of 'tdprof "
		"topdown' accepts the name or any alias.\n"
		"\n"
		"'metrics' lists the formulas of a model (all models without --cpu): each metric's name, the "
		"tree node it computes, its expression in perf's metric syntax (alternatives in order of "
		"preference) and the document it comes from.\n"
		"\n"
		"'events' lists the event names this machine knows (perf's generic names, the sysfs aliases of "
		"its PMUs and, through libpfm4, the core PMU's events); with --cpu, the events a model needs "
		"instead, with every spelling it recognises in imported perf output and the encoding a live run "
		"uses.",
	.examples = "tdprof list\n"
		    "the top-down models\n"
		    "tdprof list metrics --cpu zen4\n"
		    "the Zen 4 formulas and their sources\n"
		    "tdprof list events --cpu icelakex\n"
		    "what an Ice Lake-X import must contain",
	.exit_status = "2 when the list or the model is unknown.",
	.see_also = "tdprof-topdown(1), tdprof-info(1), perf-list(1)",
	.words = "models|metrics|events",
};

/* Render the list r and write it to stdout. */
static int show(struct list_report *r, bool json)
{
	r->backend = backend_auto_name();
	return output_render(NULL, render_find(RENDER_LIST, json ? "json" : "text"), r);
}

static int list_models(bool json)
{
	struct list_report r = { .what = LIST_MODELS };

	r.models = model_all(&r.nr_models);
	return show(&r, json);
}

/* Metrics or events of one model (--cpu) or of every model. */
static int list_model_parts(const char *cpu, bool events, bool json)
{
	struct list_report r = { .what = events ? LIST_MODEL_EVENTS : LIST_METRICS };
	const struct model *one = NULL;

	if (cpu && !(one = model_find(cpu))) {
		msg_error("'%s' is not a top-down model", cpu);
		msg_hint("'tdprof list models' shows them");
		return EXIT_USAGE;
	}
	if (one) {
		r.models = &one;
		r.nr_models = 1;
		r.one = true;
	} else {
		r.models = model_all(&r.nr_models);
	}
	return show(&r, json);
}

static int list_known_events(bool json)
{
	struct pmu_event_desc_list l = PMU_EVENT_DESC_LIST_INIT;
	struct pmu_env env = PMU_ENV_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	struct list_report r = { .what = LIST_KNOWN_EVENTS, .known = &l };
	int rc;

	if (pmu_event_known(&l, &env, &err)) {
		msg_err(&err);
		rc = EXIT_ANALYSIS;
	} else {
		rc = show(&r, json);
	}
	pmu_event_desc_list_release(&l);
	return rc;
}

int cmd_list(int argc, char **argv, struct tdp_ctx *ctx)
{
	const char *cpu = NULL, *what = "models", *format = NULL;
	bool json = false;
	struct opt opts[] = {
		OPT_STRING(0, "cpu", &cpu, "MODEL", "metrics or events of this model only"),
		OPT_CHOICE(0, "format", &format, "text|json", "the list's format (default text)"),
		OPT_BOOL(0, "json", &json, "one JSON document (--format=json)"),
		OPT_END(),
	};
	int i;

	(void)ctx;
	/* `list metrics --cpu X`: the word first, options after it */
	if (argc > 1 && argv[1][0] != '-') {
		what = argv[1];
		argc--;
		argv++;
	}
	i = opts_parse(opts, &doc, argc, argv);
	if (i < 0)
		return opts_exit(i);
	if (i < argc && !strcmp(what, "models") && argc > 1)
		what = argv[i++];
	if (i < argc)
		return msg_usage("list", "unexpected argument '%s'", argv[i]);
	if (!(format = output_format("list", format, json ? "json" : NULL, "text")))
		return EXIT_USAGE;
	json = !strcmp(format, "json");
	if (!strcmp(what, "models")) {
		if (cpu)
			return msg_usage("list", "'--cpu' applies to 'list metrics' and 'list events'");
		return list_models(json);
	}
	if (!strcmp(what, "metrics"))
		return list_model_parts(cpu, false, json);
	if (!strcmp(what, "events"))
		return cpu ? list_model_parts(cpu, true, json) : list_known_events(json);
	return msg_usage("list", "'%s' is not a list: say models, metrics or events", what);
}
