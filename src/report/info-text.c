/* info-text.c: `tdprof info` for a person (see info.h). */
#include "report/info.h"
#include "base/strbuf.h"

#include <stdarg.h>
#include <string.h>

/* Width of the label column, so every value starts in the same column. */
#define LABEL_W 22

static void row(struct strbuf *sb, const char *label, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void row(struct strbuf *sb, const char *label, const char *fmt, ...)
{
	va_list ap;

	strbuf_addf(sb, "  %-*s ", LABEL_W - 1, label);
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
	strbuf_addch(sb, '\n');
}

static const char *yes_no_unknown(int v, const char *yes, const char *no)
{
	return v < 0 ? "unknown" : v ? yes : no;
}

static void cpu_section(struct strbuf *sb, const struct cpu_info *c)
{
	strbuf_adds(sb, "CPU\n");
	row(sb, "vendor", "%s", c->vendor_str[0] ? c->vendor_str : "unknown");
	if (c->is_x86)
		row(sb, "family/model/stepping", "%u/%u/%u (0x%x/0x%x/0x%x)", c->family, c->model, c->stepping,
		    c->family, c->model, c->stepping);
	if (c->is_arm)
		row(sb, "MIDR", "0x%016llx (implementer 0x%02x, variant 0x%x, part 0x%03x, revision %u)",
		    (unsigned long long)c->midr, c->midr_fields.implementer, c->midr_fields.variant,
		    c->midr_fields.part, c->midr_fields.revision);
	if (c->brand[0])
		row(sb, "brand", "%s", c->brand);
	row(sb, "micro-architecture", "%s", c->uarch ? c->uarch : "unknown (not in tdprof's tables)");
	row(sb, "hybrid", "%s", c->hybrid ? "yes" : "no");
	for (size_t i = 0; i < c->nr_core_types; i++) {
		const struct cpu_core_type *t = &c->core_types[i];
		struct strbuf line = STRBUF_INIT;

		strbuf_addf(&line, "%s: %s, CPUs %s", t->type, t->uarch ? t->uarch : "unknown", t->cpus);
		if (t->pmu[0])
			strbuf_addf(&line, ", PMU %s", t->pmu);
		if (t->gp_counters >= 0)
			strbuf_addf(&line, ", %d general-purpose + %d fixed counters", t->gp_counters,
				    t->fixed_counters);
		row(sb, i ? "" : "core types", "%s", line.buf);
		strbuf_release(&line);
	}
	row(sb, "SMT", "%s", yes_no_unknown(c->smt, "on", "off"));
	if (c->online)
		row(sb, "CPUs online", "%u (%s)", c->cpus_online, c->online);
	else
		row(sb, "CPUs online", "unknown");
	if (c->gp_counters >= 0)
		row(sb, "counters", "%d general-purpose, %d fixed (%s)", c->gp_counters, c->fixed_counters,
		    c->counters_source ? c->counters_source : "");
	else
		row(sb, "counters", "unknown (not discoverable here)");
	row(sb, "identified from", "%s", c->source ? c->source : "nothing (no CPUID, midr_el1 or cpuinfo)");
}

static void pmu_section(struct strbuf *sb, const struct cpu_pmu_list *l)
{
	strbuf_addf(sb, "\nPMUs (%zu)\n", l->nr);
	if (!l->nr) {
		strbuf_adds(sb, "  none (no bus/event_source/devices: a kernel without perf events?)\n");
		return;
	}
	strbuf_addf(sb, "  %-20s %6s %7s  %s\n", "NAME", "TYPE", "EVENTS", "CAPS AND FORMAT");
	for (size_t i = 0; i < l->nr; i++) {
		const struct cpu_pmu *p = &l->v[i];
		const char *sep;

		strbuf_addf(sb, "  %-20s ", p->name);
		if (p->type >= 0)
			strbuf_addf(sb, "%6ld", p->type);
		else
			strbuf_addf(sb, "%6s", "?");
		strbuf_addf(sb, " %7zu", p->nr_events);
		/* "caps k=v ...; format a, b; cpus 0-3", each part only when present */
		sep = "  ";
		if (p->nr_caps) {
			strbuf_adds(sb, sep);
			for (size_t k = 0; k < p->nr_caps; k++)
				strbuf_addf(sb, "%s%s=%s", k ? " " : "", p->caps[k].name, p->caps[k].value);
			sep = "; ";
		}
		if (p->nr_format) {
			strbuf_addf(sb, "%sformat:", sep);
			for (size_t k = 0; k < p->nr_format; k++)
				strbuf_addf(sb, "%s%s", k ? ", " : " ", p->format[k].name);
			sep = "; ";
		}
		if (p->cpus && (p->kind == CPU_PMU_CORE || p->kind == CPU_PMU_SPE))
			strbuf_addf(sb, "%scpus %s", sep, p->cpus);
		strbuf_addch(sb, '\n');
	}
}

static void perms_section(struct strbuf *sb, const struct cpu_perms *p)
{
	strbuf_adds(sb, "\nPermissions\n");
	if (p->paranoid != CPU_PARANOID_UNKNOWN)
		row(sb, "perf_event_paranoid", "%d: %s", p->paranoid, cpu_paranoid_meaning(p->paranoid));
	else
		row(sb, "perf_event_paranoid", "unknown");
	if (!p->privileges_known) {
		row(sb, "privileged", "unknown (a snapshot: credentials are not part of it)");
	} else if (p->privileged) {
		row(sb, "privileged", "yes (%s%s%s%s%s): perf_event_paranoid does not apply", p->root ? "root" : "",
		    p->root && (p->cap_perfmon || p->cap_sys_admin) ? ", " : "", p->cap_perfmon ? "CAP_PERFMON" : "",
		    p->cap_perfmon && p->cap_sys_admin ? ", " : "", p->cap_sys_admin ? "CAP_SYS_ADMIN" : "");
	} else {
		row(sb, "privileged", "no (neither CAP_PERFMON nor CAP_SYS_ADMIN)");
	}
	row(sb, "NMI watchdog", "%s",
	    p->nmi_watchdog < 0 ? "unknown"
	    : p->nmi_watchdog   ? "on (on x86 it holds one hardware counter; "
				  "'sudo sysctl -w kernel.nmi_watchdog=0' frees it)"
				: "off");
}

static void probe_section(struct strbuf *sb, const struct cpu_probe *p)
{
	strbuf_adds(sb, "\nHardware events\n");
	if (!p->tried) {
		row(sb, "open", "not probed");
		row(sb, "why", "%s", p->msg);
		return;
	}
	row(sb, "open", "%s", p->opened ? "yes (instructions:u opened on this thread)" : "no");
	if (!p->opened) {
		row(sb, "why", "%s", p->msg);
		if (p->hint[0])
			row(sb, "what to do", "%s", p->hint);
	}
}

static void virt_section(struct strbuf *sb, const struct cpu_virt *v)
{
	strbuf_adds(sb, "\nVirtualization\n");
	if (v->hypervisor < 0)
		row(sb, "hypervisor", "unknown");
	else if (!v->hypervisor)
		row(sb, "hypervisor", "none (bare metal)%s%s", v->source ? ", from " : "", v->source ? v->source : "");
	else
		row(sb, "hypervisor", "yes: %s%s%s%s (from %s)", v->vendor[0] ? v->vendor : "unknown vendor",
		    v->signature[0] ? ", CPUID signature '" : "", v->signature, v->signature[0] ? "'" : "",
		    v->source ? v->source : "?");
	row(sb, "platform", "%s", v->product[0] ? v->product : "unknown (no DMI information)");
}

static void branch_section(struct strbuf *sb, const struct cpu_branch *b)
{
	const char *name = cpu_branch_facility_name(b->facility);

	strbuf_adds(sb, "\nBranch recording\n");
	if (name && b->depth > 0)
		row(sb, "facility", "%s, depth %d, PMU %s", name, b->depth, b->pmu);
	else if (name)
		row(sb, "facility", "%s, PMU %s", name, b->pmu);
	else
		row(sb, "facility", "none");
	row(sb, "reason", "%s", b->reason);
}

void report_info_text(struct strbuf *sb, const struct info_report *r)
{
	const struct cpu_system *s = r->sys;

	if (!s->live)
		strbuf_addf(sb, "Snapshot of another machine (sysfs: %s, procfs: %s): nothing was run or opened\n\n",
			    r->sysfs_root ? r->sysfs_root : "not read", r->procfs_root ? r->procfs_root : "not read");
	cpu_section(sb, &s->cpu);
	pmu_section(sb, &s->pmus);
	perms_section(sb, &s->perms);
	probe_section(sb, &s->probe);
	virt_section(sb, &s->virt);
	strbuf_adds(sb, "\nTop-down model\n");
	row(sb, "model", "%s", r->topdown_model ? r->topdown_model : "none");
	row(sb, "reason", "%s", r->topdown_reason);
	branch_section(sb, &s->branch);
	strbuf_adds(sb, "\nBackend\n");
	row(sb, "--backend=auto", "%s (%s)", r->backend, r->backend_reason);
}
