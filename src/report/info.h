/*
 * info.h: the renderers of `tdprof info` (text for a person, JSON for tools).
 *
 * The command (cli/cmd-info.c) detects the machine with cpu_system_detect(),
 * decides the top-down model and the backend `--backend=auto` would pick, and
 * passes all of it here in one struct. A renderer only formats: it decides
 * nothing and computes nothing.
 *
 * Lifecycle:
 *   1. struct info_report r = { .sys = &sys, ... };
 *   2. report_info_text(&sb, &r) or report_info_json(&sb, &r, &err);
 *   3. write sb.buf to stdout or the -o file; strbuf_release(&sb).
 *
 * JSON keys (design.md's contract; tests/e2e/tdp.py reads hardware_events_open):
 *   cpu {vendor, family, model, stepping, midr, brand, uarch, hybrid,
 *        core_types [{type, uarch, cpus, pmu}], smt, cpus_online, gp_counters,
 *        fixed_counters, ...}, pmus [{name, type, caps {...}, events, format [...]}],
 *   perf_event_paranoid, paranoid_meaning, privileged, nmi_watchdog,
 *   hardware_events_open, hardware_events_error, virtualization {hypervisor,
 *   vendor, product}, topdown {model, reason}, branch_recording {facility,
 *   depth, reason}, backend. Unknown values are null, never 0 or "".
 */
#ifndef TDPROF_REPORT_INFO_H
#define TDPROF_REPORT_INFO_H

#include "base/err.h"
#include "cpu/cpu.h"

struct strbuf;

struct info_report {
	const struct cpu_system *sys; /* borrowed; required */
	const char *sysfs_root;       /* what was read: "/sys", a snapshot dir, or NULL */
	const char *procfs_root;      /* "/proc", a snapshot dir, or NULL */
	const char *topdown_model;    /* the model --backend=auto would use, NULL when none */
	const char *topdown_reason;   /* why that model, or why none; required */
	const char *backend;          /* "pmu" or "sim": what --backend=auto picks */
	const char *backend_reason;   /* one line; required */
};

/**
 * Append the human-readable report to out (aligned sections: CPU, PMUs,
 * permissions, hardware events, virtualization, top-down model, branch
 * recording, backend). Check strbuf_failed(out) afterwards. Never fails itself.
 */
void report_info_text(struct strbuf *out, const struct info_report *r);

/**
 * Append the JSON document (one object, two-space indented, with a final
 * newline) to out. Returns 0, or TDP_ENOMEM when building it failed (err says
 * so); out may then hold a partial document and must be discarded.
 */
int report_info_json(struct strbuf *out, const struct info_report *r, struct tdp_err *err)
	__attribute__((warn_unused_result));

#endif
