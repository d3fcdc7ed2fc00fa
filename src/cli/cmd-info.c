/*
 * cmd-info.c: `tdprof info`: what this machine is and what it lets us measure
 * (CPU, PMUs, permissions, whether hardware events open, virtualization, the
 * top-down model, branch recording, and the backend --backend=auto picks).
 */
#include "cli/cmd.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/opts.h"
#include "cli/output.h"
#include "base/file.h"
#include "base/strbuf.h"
#include "cpu/cpu.h"
#include "model/model.h"
#include "report/info.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char cmd_info_summary[] = "show the CPU, its PMUs and permissions, and what can be measured here";

static const struct cmd_doc doc = {
	.name = "info",
	.summary = cmd_info_summary,
	.usage = "info [--json] [-o FILE]\n"
		 "info [--json] [-o FILE] --sysfs DIR [--procfs DIR]",
	.description =
		"Identifies the CPU (vendor, family/model/stepping or MIDR, micro-architecture, hybrid core "
		"types, SMT, online CPUs, counters), lists every PMU the kernel registered with its type, caps, "
		"event aliases and format fields, reports perf_event_paranoid and what it allows, your "
		"privileges and the NMI watchdog, tries to open one hardware event and explains a failure, "
		"detects a hypervisor, and says which top-down model and which branch-recording facility "
		"(Intel LBR, AMD LbrExtV2 or BRS, Arm BRBE or SPE) apply here, or why none does.\n"
		"\n"
		"The last line names the backend that --backend=auto picks: 'pmu' when hardware events open, "
		"else 'sim' (valgrind-based estimates).\n"
		"\n"
		"--sysfs DIR (and --procfs DIR) describe another machine from a copy of its /sys (and /proc) "
		"tree: nothing is executed or opened then, and what the files do not say is reported as "
		"unknown.",
	.examples = "tdprof info\n"
		    "show what this machine can measure\n"
		    "tdprof info --json | jq .hardware_events_open\n"
		    "ask whether hardware counters work here\n"
		    "tdprof info --sysfs /tmp/server-sys --procfs /tmp/server-proc\n"
		    "describe another machine from copies of its /sys and /proc",
	.see_also = "tdprof-stat(1), tdprof-list(1), perf-list(1)",
};

/* The top-down model for this CPU's micro-architecture (or its revision's), from the model registry. */
static const char *model_for(const struct cpu_info *c)
{
	const struct model *m = c->uarch_revision ? model_for_uarch(c->uarch_revision) : NULL;

	if (!m && c->uarch)
		m = model_for_uarch(c->uarch);
	return m ? m->name : NULL;
}

static void topdown_reason(const struct cpu_system *s, const char *model, struct strbuf *sb)
{
	const struct cpu_info *c = &s->cpu;

	if (model) {
		const struct model *m = model_find(model);

		strbuf_addf(sb, "the CPU is %s: %s", c->uarch, m && m->description ? m->description : model);
		if (m && m->kind == MODEL_KIND_CYCLE_ACCOUNTING)
			strbuf_adds(sb, " (cycle accounting only: this CPU has no slot-level top-down events)");
		if (!s->probe.opened)
			strbuf_adds(sb, "; hardware events do not open here, so it applies to counts imported "
					"from such a machine, and live runs fall back to the simulated backend");
	} else if (c->uarch) {
		strbuf_addf(sb, "no top-down model for '%s' yet; 'tdprof list models' shows the models, and "
				"--cpu MODEL picks one", c->uarch);
	} else if (c->is_x86) {
		strbuf_addf(sb, "the CPU is not recognised (%s family %u model %u stepping %u); --cpu MODEL picks "
				"a model", c->vendor_str, c->family, c->model, c->stepping);
	} else if (c->is_arm) {
		const struct cpu_pmu *core = cpu_pmu_list_first(&s->pmus, CPU_PMU_CORE);
		long slots = core ? cpu_pmu_cap_long(core, "slots") : -1;

		strbuf_addf(sb, "the CPU is not recognised (MIDR implementer 0x%02x part 0x%03x)",
			    c->midr_fields.implementer, c->midr_fields.part);
		/* without PMMIR_EL1.SLOTS the generic Arm slot model (sbsa) cannot apply either */
		if (core && slots <= 0)
			strbuf_addf(sb, " and its PMU '%s' has no slot events (caps/slots is %s): no slot-level "
					"top-down here; cores without slot events have cycle accounting (--cpu "
					"cortex-a76 or neoverse-n1: STALL_FRONTEND, STALL_BACKEND)",
				    core->name, slots == 0 ? "0" : "absent");
		strbuf_adds(sb, "; --cpu MODEL picks a model");
	} else {
		strbuf_adds(sb, "the CPU could not be identified; --cpu MODEL picks a model");
	}
}

int cmd_info(int argc, char **argv, struct tdp_ctx *ctx)
{
	bool json = false;
	const char *sysfs = NULL, *procfs = NULL, *output = NULL, *format = NULL;
	const struct opt opts[] = {
		OPT_CHOICE(0, "format", &format, "text|json", "the report's format (default text)"),
		OPT_BOOL(0, "json", &json, "write one JSON document instead of text (--format=json)"),
		OPT_STRING('o', "output", &output, "FILE", "write the report to FILE instead of stdout"),
		OPT_GROUP("describing another machine"),
		OPT_STRING(0, "sysfs", &sysfs, "DIR", "read a copy of another machine's /sys from DIR"),
		OPT_STRING(0, "procfs", &procfs, "DIR", "read a copy of another machine's /proc from DIR"),
		OPT_END(),
	};
	struct cpu_env env = CPU_ENV_INIT;
	struct cpu_system sys;
	struct tdp_err err = TDP_ERR_INIT;
	struct strbuf out = STRBUF_INIT, reason = STRBUF_INIT;
	struct info_report r;
	int i, rc, status;

	(void)ctx;
	i = opts_parse(opts, &doc, argc, argv);
	if (i < 0)
		return opts_exit(i);
	if (i < argc)
		return msg_usage("info", "'info' takes no arguments ('%s')", argv[i]);
	if (!(format = output_format("info", format, json ? "json" : NULL, "text")))
		return EXIT_USAGE;
	if (sysfs || procfs) {
		/* a snapshot: only what its files say, nothing from this machine */
		env.sysfs_root = sysfs;
		env.procfs_root = procfs;
		env.live = false;
	}
	rc = cpu_system_detect(&sys, &env, &err);
	if (rc) {
		msg_err(&err);
		return exitcode_from_err(rc);
	}
	memset(&r, 0, sizeof(r));
	r.sys = &sys;
	r.sysfs_root = env.sysfs_root;
	r.procfs_root = env.procfs_root;
	r.topdown_model = model_for(&sys.cpu);
	topdown_reason(&sys, r.topdown_model, &reason);
	r.topdown_reason = reason.buf;
	r.backend = sys.probe.opened ? "pmu" : "sim";
	r.backend_reason = sys.probe.opened ? "hardware events open here"
			   : sys.live ? "hardware events do not open here; figures will be labelled estimates"
				      : "a snapshot was described, so nothing could be opened";
	rc = render_find(RENDER_INFO, format)->render(&out, &r, &err);
	if (rc) {
		msg_err(&err);
		status = exitcode_from_err(rc);
	} else {
		status = output_write(output, out.buf, out.len);
	}
	strbuf_release(&out);
	strbuf_release(&reason);
	cpu_system_release(&sys);
	return status;
}
