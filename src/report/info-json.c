/* info-json.c: `tdprof info --json` (see info.h for the keys). */
#include "report/info.h"
#include "base/str.h"
#include "base/strbuf.h"

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
static void put(struct jb *b, json_t *obj, const char *key, json_t *v)
{
	if (!obj) {
		json_decref(v);
		b->failed = true;
	} else if (!v || json_object_set_new(obj, key, v)) {
		b->failed = true;
	}
}

static void append(struct jb *b, json_t *arr, json_t *v)
{
	if (!arr) {
		json_decref(v);
		b->failed = true;
	} else if (!v || json_array_append_new(arr, v)) {
		b->failed = true;
	}
}

static json_t *str_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

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

	put(b, o, "vendor", str_or_null(c->vendor_str));
	put(b, o, "family", int_or_null(c->family, c->is_x86));
	put(b, o, "model", int_or_null(c->model, c->is_x86));
	put(b, o, "stepping", int_or_null(c->stepping, c->is_x86));
	snprintf(midr, sizeof(midr), "0x%016llx", (unsigned long long)c->midr);
	put(b, o, "midr", c->is_arm ? json_string(midr) : json_null());
	put(b, o, "implementer", int_or_null(c->midr_fields.implementer, c->is_arm));
	put(b, o, "variant", int_or_null(c->midr_fields.variant, c->is_arm));
	put(b, o, "part", int_or_null(c->midr_fields.part, c->is_arm));
	put(b, o, "revision", int_or_null(c->midr_fields.revision, c->is_arm));
	put(b, o, "brand", str_or_null(c->brand));
	put(b, o, "uarch", str_or_null(c->uarch));
	put(b, o, "hybrid", json_boolean(c->hybrid));
	for (size_t i = 0; i < c->nr_core_types; i++) {
		const struct cpu_core_type *t = &c->core_types[i];
		json_t *ct = json_object();

		put(b, ct, "type", json_string(t->type));
		put(b, ct, "uarch", str_or_null(t->uarch));
		put(b, ct, "cpus", str_or_null(t->cpus));
		put(b, ct, "pmu", str_or_null(t->pmu));
		put(b, ct, "gp_counters", int_or_null(t->gp_counters, t->gp_counters >= 0));
		put(b, ct, "fixed_counters", int_or_null(t->fixed_counters, t->fixed_counters >= 0));
		append(b, types, ct);
	}
	put(b, o, "core_types", types);
	put(b, o, "smt", tri_bool(c->smt));
	put(b, o, "cpus_online", int_or_null(c->cpus_online, c->online != NULL));
	put(b, o, "online", str_or_null(c->online));
	put(b, o, "gp_counters", int_or_null(c->gp_counters, c->gp_counters >= 0));
	put(b, o, "fixed_counters", int_or_null(c->fixed_counters, c->fixed_counters >= 0));
	put(b, o, "counters_source", str_or_null(c->counters_source));
	put(b, o, "source", str_or_null(c->source));
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

		put(b, o, "name", json_string(p->name));
		put(b, o, "type", int_or_null(p->type, p->type >= 0));
		put(b, o, "kind", json_string(kinds[p->kind]));
		for (size_t k = 0; k < p->nr_caps; k++)
			put(b, caps, p->caps[k].name, cap_value(p->caps[k].value));
		put(b, o, "caps", caps);
		put(b, o, "events", json_integer((json_int_t)p->nr_events));
		for (size_t k = 0; k < p->nr_format; k++) {
			json_t *f = json_object();

			put(b, f, "name", json_string(p->format[k].name));
			put(b, f, "value", json_string(p->format[k].value));
			append(b, fmt, f);
		}
		put(b, o, "format", fmt);
		put(b, o, "cpus", str_or_null(p->cpus));
		append(b, arr, o);
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

	put(b, src, "live", json_boolean(s->live));
	put(b, src, "sysfs", str_or_null(r->sysfs_root));
	put(b, src, "procfs", str_or_null(r->procfs_root));
	put(b, o, "source", src);
	put(b, o, "cpu", cpu_json(b, &s->cpu));
	put(b, o, "pmus", pmus_json(b, &s->pmus));
	put(b, o, "perf_event_paranoid", int_or_null(pm->paranoid, paranoid_known));
	put(b, o, "paranoid_meaning", paranoid_known ? json_string(cpu_paranoid_meaning(pm->paranoid)) : json_null());
	put(b, o, "privileged", pm->privileges_known ? json_boolean(pm->privileged) : json_null());
	put(b, o, "nmi_watchdog", tri_bool(pm->nmi_watchdog));
	put(b, o, "hardware_events_open", json_boolean(s->probe.opened));
	put(b, o, "hardware_events_error", s->probe.opened ? json_null() : str_or_null(s->probe.msg));
	put(b, o, "hardware_events_hint", s->probe.opened ? json_null() : str_or_null(s->probe.hint));
	put(b, virt, "hypervisor", tri_bool(s->virt.hypervisor));
	put(b, virt, "vendor", str_or_null(s->virt.vendor));
	put(b, virt, "signature", str_or_null(s->virt.signature));
	put(b, virt, "product", str_or_null(s->virt.product));
	put(b, virt, "source", str_or_null(s->virt.source));
	put(b, o, "virtualization", virt);
	put(b, td, "model", str_or_null(r->topdown_model));
	put(b, td, "reason", str_or_null(r->topdown_reason));
	put(b, o, "topdown", td);
	put(b, br, "facility", str_or_null(cpu_branch_facility_name(s->branch.facility)));
	put(b, br, "depth", int_or_null(s->branch.depth, s->branch.depth > 0));
	put(b, br, "pmu", str_or_null(s->branch.pmu));
	put(b, br, "reason", str_or_null(s->branch.reason));
	put(b, o, "branch_recording", br);
	put(b, o, "backend", json_string(r->backend));
	put(b, o, "backend_reason", str_or_null(r->backend_reason));
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
