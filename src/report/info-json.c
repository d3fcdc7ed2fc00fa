/* info-json.c: `tdprof info --json` (see info.h for the keys). */
#include "report/info.h"
#include "base/str.h"
#include "base/strbuf.h"
#include "report/json-util.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

/*
 * Builders that remember a failure: a NULL value (jansson could not allocate)
 * makes the whole document fail once, checked at the end.
 */
struct jb {
	bool failed;
};

/* The _new setters take v even when they fail; without a container v is dropped here. */
static json_t *int_or_null(long v, bool known)
{
	return known ? json_integer(v) : json_null();
}

static json_t *tri_bool(int v)
{
	return v < 0 ? json_null() : json_boolean(v);
}

/* A caps value: a JSON number when it is a plain decimal, else the text. */
static json_t *cap_value(const char *v)
{
	uint64_t x;

	if (*v && strncmp(v, "0x", 2) && str_to_u64(v, &x) && x <= (uint64_t)INT64_MAX)
		return json_integer((json_int_t)x);
	return json_string(v);
}

static json_t *cpu_json(struct jb *b, const struct cpu_info *c)
{
	json_t *o = json_object(), *types = json_array();
	char midr[24];

	jput(o, "vendor", jstr_or_null_empty(c->vendor_str), &b->failed);
	jput(o, "family", int_or_null(c->family, c->is_x86), &b->failed);
	jput(o, "model", int_or_null(c->model, c->is_x86), &b->failed);
	jput(o, "stepping", int_or_null(c->stepping, c->is_x86), &b->failed);
	snprintf(midr, sizeof(midr), "0x%016llx", (unsigned long long)c->midr);
	jput(o, "midr", c->is_arm ? json_string(midr) : json_null(), &b->failed);
	jput(o, "implementer", int_or_null(c->midr_fields.implementer, c->is_arm), &b->failed);
	jput(o, "variant", int_or_null(c->midr_fields.variant, c->is_arm), &b->failed);
	jput(o, "part", int_or_null(c->midr_fields.part, c->is_arm), &b->failed);
	jput(o, "revision", int_or_null(c->midr_fields.revision, c->is_arm), &b->failed);
	jput(o, "brand", jstr_or_null_empty(c->brand), &b->failed);
	jput(o, "uarch", jstr_or_null_empty(c->uarch), &b->failed);
	jput(o, "hybrid", json_boolean(c->hybrid), &b->failed);
	for (size_t i = 0; i < c->nr_core_types; i++) {
		const struct cpu_core_type *t = &c->core_types[i];
		json_t *ct = json_object();

		jput(ct, "type", json_string(t->type), &b->failed);
		jput(ct, "uarch", jstr_or_null_empty(t->uarch), &b->failed);
		jput(ct, "cpus", jstr_or_null_empty(t->cpus), &b->failed);
		jput(ct, "pmu", jstr_or_null_empty(t->pmu), &b->failed);
		jput(ct, "gp_counters", int_or_null(t->gp_counters, t->gp_counters >= 0), &b->failed);
		jput(ct, "fixed_counters", int_or_null(t->fixed_counters, t->fixed_counters >= 0), &b->failed);
		jappend(types, ct, &b->failed);
	}
	jput(o, "core_types", types, &b->failed);
	jput(o, "smt", tri_bool(c->smt), &b->failed);
	jput(o, "cpus_online", int_or_null(c->cpus_online, c->online != NULL), &b->failed);
	jput(o, "online", jstr_or_null_empty(c->online), &b->failed);
	jput(o, "gp_counters", int_or_null(c->gp_counters, c->gp_counters >= 0), &b->failed);
	jput(o, "fixed_counters", int_or_null(c->fixed_counters, c->fixed_counters >= 0), &b->failed);
	jput(o, "counters_source", jstr_or_null_empty(c->counters_source), &b->failed);
	jput(o, "source", jstr_or_null_empty(c->source), &b->failed);
	return o;
}

static json_t *pmus_json(struct jb *b, const struct cpu_pmu_list *l)
{
	static const char *const kinds[] = {
		[CPU_PMU_OTHER] = "other",
		[CPU_PMU_CORE] = "core",
		[CPU_PMU_SOFTWARE] = "software",
		[CPU_PMU_SPE] = "spe",
	};
	json_t *arr = json_array();

	for (size_t i = 0; i < l->nr; i++) {
		const struct cpu_pmu *p = &l->v[i];
		json_t *o = json_object(), *caps = json_object(), *fmt = json_array();

		jput(o, "name", json_string(p->name), &b->failed);
		jput(o, "type", int_or_null(p->type, p->type >= 0), &b->failed);
		jput(o, "kind", json_string(kinds[p->kind]), &b->failed);
		for (size_t k = 0; k < p->nr_caps; k++)
			jput(caps, p->caps[k].name, cap_value(p->caps[k].value), &b->failed);
		jput(o, "caps", caps, &b->failed);
		jput(o, "events", json_integer((json_int_t)p->nr_events), &b->failed);
		for (size_t k = 0; k < p->nr_format; k++) {
			json_t *f = json_object();

			jput(f, "name", json_string(p->format[k].name), &b->failed);
			jput(f, "value", json_string(p->format[k].value), &b->failed);
			jappend(fmt, f, &b->failed);
		}
		jput(o, "format", fmt, &b->failed);
		jput(o, "cpus", jstr_or_null_empty(p->cpus), &b->failed);
		jappend(arr, o, &b->failed);
	}
	return arr;
}

static json_t *doc_json(struct jb *b, const struct info_report *r)
{
	const struct cpu_system *s = r->sys;
	const struct cpu_perms *pm = &s->perms;
	bool paranoid_known = pm->paranoid != CPU_PARANOID_UNKNOWN;
	json_t *o = json_object(), *virt = json_object(), *td = json_object(), *br = json_object();
	json_t *src = json_object();

	jput(src, "live", json_boolean(s->live), &b->failed);
	jput(src, "sysfs", jstr_or_null_empty(r->sysfs_root), &b->failed);
	jput(src, "procfs", jstr_or_null_empty(r->procfs_root), &b->failed);
	jput(o, "source", src, &b->failed);
	jput(o, "cpu", cpu_json(b, &s->cpu), &b->failed);
	jput(o, "pmus", pmus_json(b, &s->pmus), &b->failed);
	jput(o, "perf_event_paranoid", int_or_null(pm->paranoid, paranoid_known), &b->failed);
	jput(o, "paranoid_meaning", paranoid_known ? json_string(cpu_paranoid_meaning(pm->paranoid)) : json_null(), &b->failed);
	jput(o, "privileged", pm->privileges_known ? json_boolean(pm->privileged) : json_null(), &b->failed);
	jput(o, "nmi_watchdog", tri_bool(pm->nmi_watchdog), &b->failed);
	jput(o, "hardware_events_open", json_boolean(s->probe.opened), &b->failed);
	jput(o, "hardware_events_error", s->probe.opened ? json_null() : jstr_or_null_empty(s->probe.msg), &b->failed);
	jput(o, "hardware_events_hint", s->probe.opened ? json_null() : jstr_or_null_empty(s->probe.hint), &b->failed);
	jput(virt, "hypervisor", tri_bool(s->virt.hypervisor), &b->failed);
	jput(virt, "vendor", jstr_or_null_empty(s->virt.vendor), &b->failed);
	jput(virt, "signature", jstr_or_null_empty(s->virt.signature), &b->failed);
	jput(virt, "product", jstr_or_null_empty(s->virt.product), &b->failed);
	jput(virt, "source", jstr_or_null_empty(s->virt.source), &b->failed);
	jput(o, "virtualization", virt, &b->failed);
	jput(td, "model", jstr_or_null_empty(r->topdown_model), &b->failed);
	jput(td, "reason", jstr_or_null_empty(r->topdown_reason), &b->failed);
	jput(o, "topdown", td, &b->failed);
	jput(br, "facility", jstr_or_null_empty(cpu_branch_facility_name(s->branch.facility)), &b->failed);
	jput(br, "depth", int_or_null(s->branch.depth, s->branch.depth > 0), &b->failed);
	jput(br, "pmu", jstr_or_null_empty(s->branch.pmu), &b->failed);
	jput(br, "reason", jstr_or_null_empty(s->branch.reason), &b->failed);
	jput(o, "branch_recording", br, &b->failed);
	jput(o, "backend", json_string(r->backend), &b->failed);
	jput(o, "backend_reason", jstr_or_null_empty(r->backend_reason), &b->failed);
	return o;
}

static int dump_cb(const char *buf, size_t size, void *data)
{
	struct strbuf *sb = data;

	strbuf_add(sb, buf, size);
	return strbuf_failed(sb) ? -1 : 0;
}

int report_info_json(struct strbuf *out, const struct info_report *r, struct tdp_err *err)
{
	struct jb b = { false };
	json_t *doc = doc_json(&b, r);
	int rc = 0;

	if (b.failed || !doc || json_dump_callback(doc, dump_cb, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER))
		rc = tdp_err_oom(err);
	else
		strbuf_addch(out, '\n');
	json_decref(doc);
	return rc;
}
